"""`--backend factored`: the spec's constraints as factors over the secret's parts
(compiler/factored.py). No decision diagram: it counts secrets whose parts all meet one
another (pieces on a board, all-different codes) where a diagram grows too large.

When every factor joins two parts, a state is bit sets of each part's allowed values
and the facts observed since (compiler/factored_state.py): a fact is read part by part
(compiler/factored_facts.py) as narrower masks and clauses, and a count and every part's
marginals come from one compiled pass. So it conditions, gives marginals, counts a
query's feedback values from those marginals where it can (`counts`), samples and lists.
With a factor over three parts or more it counts the constraints only, and says so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.counters.base import Counter
from sleuth.compiler.errors import SleuthError, option
from sleuth.compiler.memo import Memo, memoised


class FactoredCounter(Counter):
    name = "factored"
    conditions = False  # beliefs on specs whose constraints are pairwise only: not a belief
    #                     backend for every spec (BELIEF_BACKENDS)
    cheap_counts = True  # a query's feedback counts are read off one pass's marginals
    automatic = 0  # first where it suits: a board of pieces outgrows any decision diagram
    help = "constraints as factors over the secret's parts (pairwise: beliefs too)"

    def __init__(self, space: Any):
        super().__init__(space)
        self.memo = Memo()

    @memoised
    def graph(self) -> Any:
        """The constraints' factor graph (compiler/factored.py)."""
        from sleuth.compiler.factored import FactorGraph

        return FactorGraph(self.space.model)

    def suits(self) -> bool:
        """A uniform prior and constraints that tabulate as factors joining two parts each:
        then it counts, conditions and gives marginals in compiled passes."""
        try:
            graph = self.graph
        except SleuthError:  # a weighted prior, a part or a factor too large to tabulate
            return False
        return self._pairwise(graph)

    @staticmethod
    def _pairwise(graph: Any) -> bool:
        return len(graph.parts) >= 2 and not graph.empty and all(
            len(scope) == 2 for scope, _ in graph.factors)

    def start(self) -> Any:
        """Bit sets over the parts' values when every factor joins two parts (a state that
        conditions); else the factor graph itself, which only counts."""
        from sleuth.compiler.factored_state import Pairwise

        def make() -> Any:
            graph = self.graph
            return Pairwise(graph.masks, graph.factors).start if self._pairwise(graph) \
                else graph

        return self.memo.get(("start",), make)

    @memoised
    def tables(self) -> Any:
        """Each circuit variable's truth per value of its part (factored_facts.py)."""
        from sleuth.compiler.factored_facts import PartTables

        return PartTables(self.space.lowering, self.graph.parts, self.graph.domains)

    def _conditions(self, state: Any) -> None:
        if not hasattr(state, "conjoin"):
            raise SleuthError("the factored backend conditions on observations when every "
                              "constraint joins two parts of the secret; this spec has a "
                              "constraint over three or more (or one part)",
                              hint=f'use {option("backend", "sdd")} (or cnf) for beliefs after '
                                   'queries')

    def conjoin(self, state: Any, *formulas: int) -> Any:
        if not formulas:
            return state
        self._conditions(state)
        if len(formulas) == 1 and (reading := self._read(formulas[0])).sum is not None:
            return state.observe_read(reading)  # a pass derived from narrowed ones
        return state.conjoin([c for f in formulas for c in self.tables.clauses(f)])

    def count(self, state: Any) -> int:
        return state.count()

    def counts(self, state: Any, formulas: list[int]) -> list[int]:
        self._conditions(state)
        return [state.count_read(self._read(f)) for f in formulas]

    def _read(self, formula: int) -> Any:
        """How a formula is counted on this graph (factored_state.Reading), made once."""
        from sleuth.compiler.factored_state import Reading

        return self.memo.get(("reading", formula),
                             lambda: Reading.of(self.start(), self.tables, formula))

    def marginals(self, state: Any) -> dict[str, dict[Any, float]]:
        """P(value) of every one-hot group, from one pass's part marginals."""
        self._conditions(state)
        total = state.count()
        out: dict[str, dict[Any, float]] = {}
        for counts, leaves in zip(state.part_counts(), self.tables.leaves, strict=True):
            for g, ranks in leaves:
                per = np.bincount(ranks, weights=counts.astype(float), minlength=len(g.values))
                out[g.name] = {v: float(per[k]) / total for k, v in enumerate(g.values)}
        return out

    def sample_ranks(self, state: Any, k: int, seed: int) -> list[int]:
        self._conditions(state)
        return self._product_ranks(state.sample(k, np.random.default_rng(seed)))

    def list_ranks(self, state: Any, limit: int) -> list[int] | None:
        self._conditions(state)
        rows = state.listing(limit)
        return None if rows is None else self._product_ranks(rows)

    def _product_ranks(self, rows: np.ndarray) -> list[int]:
        """Rows of part ranks as ranks in the secret's product (the first part most
        significant)."""
        ranks = [0] * len(rows)
        for p, size in enumerate(self.graph.sizes):
            ranks = [r * size + int(v) for r, v in zip(ranks, rows[:, p].tolist(),
                                                         strict=True)]
        return ranks

    def describe(self, state: Any) -> dict[str, Any]:
        return self.graph.describe()


__all__ = ["FactoredCounter"]

"""Counted beliefs: an information set kept as facts and counted, never listed.

For hypothesis spaces too large to enumerate (a deal of 21 cards to 8
holders, a code of 8 pegs in 10 colours), a `CountedBelief` holds the spec's
constraints and every observed feedback as formulas of the boolean lowering.
With the `sdd` backend they are conjoined into one decision diagram and
counts are model counts of it (under one more literal, for marginals); with
`cnf` every count is a fresh Ganak call on the clauses, projected onto the
secret (slow, but an independent check). With a weighted prior each
hypothesis weighs its weight class's weight. Beliefs are immutable, like the
enumerated ones; a fact that no hypothesis satisfies raises "inconsistent
observations" and changes nothing.

Strategies see a counted belief through the same interface as an enumerated
one. Once it keeps at most `LIST_LIMIT` hypotheses, `settle` lists them
from the diagram into a restricted game (a hypothesis table of exactly
those) and the belief continues as an ordinary enumerated `Belief`, scored
by the vectorised kernels; before that, sampled strategies draw exact
uniform samples from the diagram, and exhaustive ones partition by exact
conditioned counts.
"""

from __future__ import annotations

import math
import time
from functools import cached_property
from typing import Any

import numpy as np

from sleuth.compiler.api import BudgetError, Game, Loc, ObservationError, diagram_count
from sleuth.solver.infoset.belief import Belief, InconsistentObservations

GANAK_SECONDS = 120.0
LISTABLE = 64  # beliefs this small can list their hypotheses (for `top`)
LIST_LIMIT = 50_000  # a counted belief this small is listed and scored by the kernels
COUNT_QUERIES = 2_000  # queries an exhaustive strategy may partition by model counts
SAMPLE_BATCH = 64  # samples drawn between two looks at the clock


class CountedBelief:
    """Hypotheses satisfying the constraints and `facts`, counted by `backend`; with a
    weighted prior, each hypothesis weighs its class's weight (SymbolicSpace.classes)."""

    def __init__(self, game: Game, backend: str = "sdd", facts: tuple[int, ...] = (),
                 diagram: Any | None = None,
                 observed: tuple[tuple[str, int, int], ...] = (), list_limit: int = LIST_LIMIT):
        if backend not in ("sdd", "cnf"):
            raise ValueError(backend)
        self.game = game
        self.backend = backend
        self.space = game.symbolic
        self.facts = facts
        self.observed = observed  # (action, argument rank, feedback code) per event
        self.list_limit = list_limit  # listed (and scored by the kernels) at this size
        self._diagram = diagram
        self._listed: Belief | None = None  # the listing, once made

    @classmethod
    def prior(cls, game: Game, backend: str = "sdd", list_limit: int = LIST_LIMIT
              ) -> CountedBelief:
        return cls(game, backend, list_limit=list_limit)

    # -- counting

    @property
    def diagram(self) -> Any:
        if self._diagram is None:
            self._diagram = self.space.condition(self.space.base, *self.facts)
        return self._diagram

    def count_with(self, *formulas: int) -> int:
        """Hypotheses of this belief that also satisfy the formulas."""
        if self.backend == "sdd":
            d = self.diagram if not formulas else self.space.condition(self.diagram, *formulas)
            return diagram_count(d)
        from sleuth.compiler.api import projected_count

        cnf = self.space.clauses(*self.facts, *formulas)
        n = projected_count(cnf.clauses, cnf.top, cnf.secret_vars, GANAK_SECONDS)
        if n is None:
            raise ObservationError(f"Ganak gave no count within {GANAK_SECONDS:.0f} s",
                                   hint="use --backend sdd")
        return n

    @cached_property
    def size(self) -> int:
        """How many hypotheses (of positive prior weight) remain."""
        return self.count_with()

    @property
    def uniform(self) -> bool:
        return self.space.uniform

    @cached_property
    def class_counts(self) -> list[tuple[float, int, int]]:
        """(weight, formula, hypotheses) per prior weight class."""
        if self.uniform:
            return [(1, self.space.classes[0][1], self.size)]
        if self.backend == "sdd":
            return [(w, f, diagram_count(d))
                    for (w, f), d in zip(self.space.classes, self.class_diagrams, strict=True)]
        return [(w, f, self.count_with(f)) for w, f in self.space.classes]

    @cached_property
    def mass(self) -> float:
        """Total prior weight of the remaining hypotheses (= size when uniform)."""
        return sum(w * n for w, _, n in self.class_counts)

    def mass_with(self, *formulas: int) -> float:
        """Prior weight of the hypotheses that also satisfy the formulas."""
        if self.uniform:
            return self.count_with(*formulas)
        return sum(w * self.count_with(f, *formulas) for w, f, n in self.class_counts if n)

    def entropy_bits(self) -> float:
        if self.uniform:
            return math.log2(self.size)
        # p(h) = w/W for the n_w hypotheses of weight w: H = log W - sum n_w w log w / W
        return math.log2(self.mass) - sum(
            n * w * math.log2(w) for w, _, n in self.class_counts if n) / self.mass

    def kl_bits(self, before: CountedBelief) -> float:
        """KL(self || before), self a restriction of before by deterministic facts: minus
        the log of the prior mass of what remains."""
        return math.log2(before.mass / self.mass)

    # -- updates

    def condition(self, formula: int, what: str, loc: Loc | None = None,
                  observed: tuple[str, int, int] | None = None) -> CountedBelief:
        """The belief after a fact; `observed` = (action, argument rank, feedback code)
        records it for `contains`."""
        diagram = None
        if self.backend == "sdd":
            diagram = self.space.condition(self.diagram, formula)
        record = self.observed + ((observed,) if observed is not None else ())
        after = CountedBelief(self.game, self.backend, self.facts + (formula,), diagram, record,
                              self.list_limit)
        if after.size == 0:
            raise InconsistentObservations(
                f"inconsistent observations: no remaining hypothesis gives {what}", loc,
                hint="check the values typed; the belief is unchanged")
        return after

    # -- as a list, as a sample

    def listed(self, limit: int | None = None) -> Belief | None:
        """The same belief as an enumerated one over a table of exactly its hypotheses
        (listed from the diagram), or None when it keeps more than `limit` (default: the
        belief's list_limit)."""
        limit = self.list_limit if limit is None else limit
        if self.size > limit:
            return None
        if self._listed is None:
            ranks = self.space.list_ranks(self.diagram, limit)
            assert ranks is not None and len(ranks) == self.size
            game = self.game.restricted(np.asarray(ranks, dtype=np.int64))
            self._listed = Belief.prior(game)
        return self._listed

    def sampled(self, k: int, seed: int, deadline: float | None = None) -> Belief:
        """k hypotheses drawn with replacement, by prior weight (fewer if `deadline`, a
        perf_counter time, passes first; at least one batch), as an enumerated belief
        over the distinct ones weighted by how often each was drawn."""
        rng = np.random.default_rng(seed)
        drawn: list[int] = []
        while len(drawn) < k:
            batch = min(SAMPLE_BATCH, k - len(drawn))
            drawn += self.sample_ranks(batch, int(rng.integers(2**63)))
            if deadline is not None and time.perf_counter() >= deadline:
                break
        ranks, counts = np.unique(np.asarray(drawn, dtype=np.int64), return_counts=True)
        game = self.game.restricted(ranks, transient=True)
        index = np.arange(len(ranks), dtype=np.int64)
        if np.all(counts == counts[0]):
            return Belief(game, index)
        return Belief(game, index, np.log(counts.astype(np.float64)))

    def sample_ranks(self, k: int, seed: int) -> list[int]:
        """k hypotheses drawn from the belief (by prior weight), as product ranks: a weight
        class by its mass, then uniformly within it."""
        if self.uniform:
            return self.space.sample_ranks(self.diagram, k, seed)
        rng = np.random.default_rng(seed)
        masses = np.array([w * n for w, _, n in self.class_counts], dtype=float)
        per_class = rng.multinomial(k, masses / masses.sum())
        out: list[int] = []
        for diagram, m in zip(self.class_diagrams, per_class, strict=True):
            if m:
                out += self.space.sample_ranks(diagram, int(m), int(rng.integers(2**63)))
        return [out[i] for i in rng.permutation(len(out))]

    @cached_property
    def class_diagrams(self) -> list[Any]:
        """The diagram restricted to each prior weight class (for sampling)."""
        return [self.space.condition(self.diagram, f) for _, f in self.space.classes]

    def contains(self, ranks: np.ndarray) -> np.ndarray:
        """Which hypotheses (product ranks, sorted) this belief keeps: the constraints and
        every recorded observation checked by the kernels, all ranks at once."""
        listed = self._listed or self.listed()
        if listed is not None:
            table = listed.game.hypotheses.ranks
            pos = np.minimum(np.searchsorted(table, ranks), len(table) - 1)
            return table[pos] == ranks
        keep = self.game.consistent(ranks)
        if keep.any():
            sub = self.game.restricted(ranks[keep])
            alive = np.ones(int(keep.sum()), dtype=bool)
            for action, rank, code in self.observed:
                alive &= sub.feedback_matrix(action, np.array([rank]))[0] == code
            keep[keep] = alive
        return keep

    def partition_counts(self, action: str, queries: list[dict[str, Any]]) -> np.ndarray:
        """(queries, feedbacks) hypothesis counts, each by conditioned model counting."""
        if len(queries) > COUNT_QUERIES:
            raise BudgetError(
                f"scoring {len(queries):,} queries exactly on {self.size:,} counted hypotheses "
                f"means one model count per query and feedback; the limit is "
                f"{COUNT_QUERIES:,} queries",
                hint="use --strategy ises-sampled (exact samples from the diagram)")
        rows = []
        for args in queries:
            formulas = self.space.lowering.feedback_values(action, args)
            rows.append({k: n for k, f in formulas.items() if (n := self.mass_with(f))})
        keys = sorted({k for r in rows for k in r}, key=repr)
        out = np.zeros((len(rows), max(1, len(keys))),
                       dtype=np.int64 if self.uniform else np.float64)
        for i, r in enumerate(rows):
            for j, k in enumerate(keys):
                out[i, j] = r.get(k, 0)
        return out if self.uniform else out / self.mass  # weighted: probability masses

    # -- what is known

    def marginals(self) -> dict[str, dict[Any, float]]:
        """P(value) of every one-hot group: with sdd, every literal's probability from one
        weighted-model-count pass (derivatives); with cnf, one Ganak count per value."""
        return self.space.lowering.by_part(self._group_marginals())

    def _group_marginals(self) -> dict[str, dict[Any, float]]:
        groups = self.space.lowering.groups
        if self.backend == "sdd":
            if self.uniform:
                return self.space.marginals(self.diagram)
            out = {g.name: dict.fromkeys(g.values, 0.0) for g in groups}
            for (w, _, n), diagram in zip(self.class_counts, self.class_diagrams, strict=True):
                if n:
                    share = w * n / self.mass
                    for name, dist in self.space.marginals(diagram).items():
                        for v, p in dist.items():
                            out[name][v] += share * p
            return out
        return {g.name: {v: self.mass_with(node) / self.mass
                         for v, node in zip(g.values, g.nodes, strict=True)} for g in groups}

    def determined(self, names: list[str]) -> bool:
        """True when each named variable has a single possible value (sdd: from the
        marginals, where a value no hypothesis has gets probability exactly 0)."""
        groups = [g for g in self.space.lowering.groups
                  if g.name.split("[")[0].split(".")[0] in names]
        if self.backend == "sdd":
            m = self._group_marginals()
            return all(sum(1 for p in m[g.name].values() if p > 0) == 1 for g in groups)
        return all(sum(1 for node in g.nodes if self.count_with(node)) == 1 for g in groups)

    def top(self, k: int) -> list[tuple[dict[str, Any], float]]:
        """The k most likely hypotheses, when there are at most LISTABLE of them."""
        listed = self.listed(limit=LISTABLE) if k else None
        return [] if listed is None else listed.top(k)


def prior_belief(game: Game, backend: str) -> Belief | CountedBelief:
    """The belief before any observation on a backend: enum, sdd or cnf."""
    return Belief.prior(game) if backend == "enum" else CountedBelief.prior(game, backend)


def settle(belief: Belief | CountedBelief, limit: int | None = None) -> Belief | CountedBelief:
    """A counted belief small enough to list (its list_limit, or `limit`) continues as an
    enumerated one."""
    if isinstance(belief, CountedBelief):
        listed = belief.listed(limit)
        if listed is not None:
            return listed
    return belief


__all__ = ["CountedBelief", "LIST_LIMIT", "prior_belief", "settle"]

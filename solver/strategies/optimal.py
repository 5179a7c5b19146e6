"""The optimal strategies: `optimal` (the least total, then the least worst case) and
`optimal-worst` (the least worst case, then the least total), proven by the first exact
search engine that applies to the game (solver/search/, `ENGINES`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.search import Engine, engine_for
from sleuth.solver.strategies.base import ListedStrategy, Option


class Optimal(ListedStrategy):
    """The least expected number of queries (then the least worst case), proven."""

    name = "optimal"
    worst_first = False
    top = Option(int, 0, "try only the first K queries of each information set, in the "
                         "search's order (by lower bound, then rule K): the best strategy "
                         "that asks only those, an upper bound on the optimum (0: every "
                         "query, the proven optimum)", minimum=0)

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        self.engine: Engine = engine_for(candidates, self.worst_first, self.top,
                                         self.prepared)

    @property
    def search(self) -> Any:
        """The engine's set search (its nodes, table and symmetry)."""
        return self.engine.search

    def notes(self) -> list[str]:
        return self.engine.notes()

    def share(self, workers: Any, recipe: Any) -> bool:
        return self.engine.share(workers, recipe)

    @classmethod
    def opening(cls, recipe: Any, workers: int) -> list[tuple[Callable[..., Any], tuple]]:
        """Each worker's first part of the split from the prior (search/split.py
        `open_part`), worked out in the worker as it builds; not under the least worst
        case first, whose split starts from a depth budget."""
        if cls.worst_first:
            return []
        from sleuth.solver.search.split import open_part

        return [(open_part, (recipe, k, workers)) for k in range(workers)]

    def split_root(self) -> np.ndarray | None:
        """The hypotheses the split starts at, or None when the engine does not split."""
        return self.engine.split_root()

    def value(self, belief: AnyBelief) -> tuple[int, int]:
        """The proven (total, worst case) from this belief."""
        return self.engine.value(belief)

    def proven(self, belief: AnyBelief) -> dict[str, Any]:
        return self.engine.proven(belief)

    def opened(self, belief: AnyBelief, query: Query) -> None:
        self.engine.opened(belief, query)

    def proven_after(self, belief: AnyBelief, query: Query) -> dict[str, Any] | None:
        return self.engine.proven_after(belief, query)

    def choose(self, belief: AnyBelief) -> Query:
        return self.engine.choose(belief)


class OptimalWorst(Optimal):
    """The least worst case (then the least expected number of queries), proven."""

    name = "optimal-worst"
    worst_first = True
    # Against an adversary who lies only the worst case is defined per information set: a
    # secret's length is the longest the lies can make it, and the total of those is not
    # a sum over a query's parts (a secret lies in several), so `optimal` refuses.
    handles_lies = True


__all__ = ["Optimal", "OptimalWorst"]

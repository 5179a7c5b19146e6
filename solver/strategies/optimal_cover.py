"""The exact search for a game with a cover goal (goal: {cover}): the least total number
of queries over all secrets (`optimal`), or the least worst game (`optimal-worst`).

A secret h is done once every query of its cover C(h) has been asked and the player
knows it (cover.py); a query of C(h) asked twice tells nothing, so each is asked once,
and h's game takes |C(h)| queries plus the queries outside C(h) asked on its way (its
*misses*: shots that find nothing, probes that open a mine). So the search minimises
misses: at an information set S, a useful query q (one that splits S) costs the secrets
of S it misses, and the parts go on; S is over when its secrets agree on the cover (the
queries left are forced, and none misses). Totals are Σ |C(h)| plus the misses; the
worst game is the largest |C(h)| + misses(h). Ties: the worst game (resp. the total),
then rule K (the first query in canonical order). Uniform prior, deterministic feedback,
no rounds, history rules or max_queries.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.cover import Cover
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.strategies.base import require_optimal

Value = tuple[int, int]  # (misses over the set, the worst game's queries)


class CoverSearch:
    """Depth-first search with a transposition table over information sets."""

    def __init__(self, candidates: Candidates, worst_first: bool = False, top: int = 0):
        game = candidates.game
        require_optimal(candidates, "the search of a game with cover", top)
        self.worst_first = worst_first
        table = OutcomeTable(candidates)
        self.queries: list[Query] = table.queries
        self.codes = table.codes
        cover = Cover.of(game)
        order = [cover.position[(q.action, q.rank)] for q in self.queries]
        self.cover = cover.table[order]  # in the outcome table's query order
        self.size = self.cover.sum(axis=0)  # |C(h)|
        # When the cover holds for one answer of each query at most (a hit, say),
        # a tree reaches one settled set without a miss at most, so a set's secrets miss
        # at least |S| minus its largest cover class (`_least`); otherwise free queries
        # may split and only the first query's cost bounds it.
        self.single = all(
            len(np.unique(self.codes[q][self.cover[q]])) <= 1 for q in range(len(self.queries)))
        _, ids = np.unique(self.cover, axis=1, return_inverse=True)
        self.cover_id = ids.ravel()  # each hypothesis's cover class
        self.memo: dict[bytes, tuple[Value, int]] = {}
        self.nodes = 0

    @staticmethod
    def applies(candidates: Candidates) -> bool:
        return candidates.game.model.cover is not None

    def state_of(self, history: tuple) -> None:
        """No state beyond the set: what a query costs does not depend on the history."""
        return None

    def rank(self, v: Value) -> tuple[int, int]:
        return (v[1], v[0]) if self.worst_first else v

    def solve(self, hyps: np.ndarray, state: None = None) -> tuple[Value, int]:
        """((misses, worst game), query) of the sorted hypotheses `hyps`; query -1 when the
        cover is settled."""
        ids = self.cover_id[hyps]
        if (ids == ids[0]).all():
            return (0, int(self.size[hyps].max())), -1
        key = hyps.tobytes()
        got = self.memo.get(key)
        if got is not None:
            return got
        self.nodes += 1
        rows = self.codes[:, hyps]
        useful = np.flatnonzero(rows.min(axis=1) != rows.max(axis=1))
        if not len(useful):
            raise SleuthError("no query tells apart hypotheses whose covers differ",
                              hint="a cover the player can never learn")
        options = []  # (a lower bound on the total, query, labels, inverse, misses)
        seen: set[bytes] = set()
        for q in useful.tolist():
            labels, inverse = np.unique(rows[q], return_inverse=True)
            signature = inverse.tobytes()
            if signature in seen:  # the same parts as a query listed: the same value
                continue
            seen.add(signature)
            misses = ~self.cover[q, hyps]
            floor = int(misses.sum()) + sum(self._least(ids[inverse == j])
                                            for j in range(len(labels)))
            options.append((floor, q, labels, inverse, misses))
        options.sort(key=lambda o: (o[0], o[1]))
        best: tuple[tuple, Value, int] | None = None
        for floor, q, labels, inverse, misses in options:
            if best is not None and not self.worst_first and floor > best[1][0]:
                break  # sorted by bound: none left can reach the best total
            total, worst = int(misses.sum()), 0
            for j in range(len(labels)):
                part = inverse == j
                child, _ = self.solve(hyps[part])
                total += child[0]
                # the part's worst game, plus this query if it missed the part's secrets
                worst = max(worst, child[1] + int(misses[part][0]))
            candidate = (self.rank((total, worst)), q)
            if best is None or candidate < best[0]:
                best = (candidate, (total, worst), q)
        assert best is not None
        got = (best[1], best[2])
        self.memo[key] = got
        return got

    def _least(self, ids: np.ndarray) -> int:
        """A lower bound on the misses of a set whose secrets' cover classes are `ids`."""
        if not self.single or len(ids) <= 1:
            return 0
        return int(len(ids) - np.unique(ids, return_counts=True)[1].max())

    def proven(self, hyps: np.ndarray, value: Value) -> dict[str, Any]:
        misses, worst = value
        order = "worst case, then total" if self.worst_first else "total, then worst case"
        return {"total": int(self.size[hyps].sum()) + misses, "worst": worst,
                "order": order, "nodes": self.nodes, "top": 0}


__all__ = ["CoverSearch"]

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

`optimal` is a branch and bound on the total (each set searched within a limit, a set
over it left with a lower bound in the table), with the leaf bound of `LeafCosts`.
"""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.cover import Cover
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.search.automorphisms import table_symmetries
from sleuth.solver.search.refusals import require_optimal

Value = tuple[int, int]  # (misses over the set, the worst game's queries)
Found = tuple[Value, bool]  # (value, exact); not exact: value[0] a lower bound
NO_LIMIT = 1 << 62
KEYS = 64  # symmetries a set's key is taken over at most (fewer share less, never wrongly)


class LeafCosts:
    """A lower bound on a set's misses from how many settled sets a tree can reach at
    each cost, when the cover holds for at most one answer of each query.

    Along a secret's path a query either is in its cover (free: at most r of them, the
    cover queries still useful) or misses (cost 1, with one of at most `b` answers). A
    tree's leaves are prefix-free answer strings; padding each with cover answers up to
    r is one-to-one, so the leaves of cost m are at most the strings of r cover answers
    and m misses: C(r-1+m, m) when b = 1 (a last miss could not have split a set with
    no cover query left), C(r+m, m)·b^m otherwise. A leaf holds one cover class (the
    secrets that agree on the cover), and a class split over leaves costs more than
    kept whole, so the least total pairs the classes, largest first, with the cheapest
    leaves.
    """

    def __init__(self, most_cover: int, answers: int, secrets: int):
        self.table = np.array([self._costs(r, answers, secrets)
                               for r in range(most_cover + 1)])  # (r, i-th leaf)

    @staticmethod
    def _costs(r: int, b: int, n: int) -> np.ndarray:
        """The cost of the i-th cheapest leaf, for i < n."""
        if b == 1 and r == 0:  # one leaf only: the rest cannot be reached
            return np.array([0] + [n] * (n - 1), dtype=np.int64)
        out: list[int] = []
        m = 0
        while len(out) < n:
            leaves = comb(r - 1 + m, m) if b == 1 else comb(r + m, m) * b ** m
            out.extend([m] * min(leaves, n - len(out)))
            m += 1
        return np.array(out, dtype=np.int64)


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
        _, ids = np.unique(self.cover, axis=1, return_inverse=True)
        self.cover_id = ids.ravel()  # each hypothesis's cover class
        self.leaves = self._leaf_costs()
        # a set and its images under the table's symmetries share one entry (sigma None:
        # the identity only)
        sigma, _ = table_symmetries(self.codes * 2 + self.cover)
        self.sigma = sigma[:KEYS] if len(sigma) > 1 else None
        self.memo: dict[bytes, Found] = {}
        self.nodes = 0

    def _leaf_costs(self) -> LeafCosts | None:
        """The leaf bound when each query's cover holds for one answer at most, else None
        (then free queries may split, and only a query's own misses bound it)."""
        answers = 1
        for q in range(len(self.queries)):
            if len(np.unique(self.codes[q][self.cover[q]])) > 1:
                return None
            answers = max(answers, len(np.unique(self.codes[q][~self.cover[q]])))
        return LeafCosts(int(self.size.max(initial=0)), answers, len(self.cover_id))

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
        value, exact = self._search(hyps, NO_LIMIT)
        assert exact
        ids = self.cover_id[hyps]
        return value, (-1 if (ids == ids[0]).all() else self._first(hyps, value))

    def _search(self, hyps: np.ndarray, limit: int) -> Found:
        """(The set's value, True) when its misses are at most `limit` or already known,
        else (a lower bound over `limit`, False). `optimal-worst` searches unlimited."""
        ids = self.cover_id[hyps]
        if (ids == ids[0]).all():
            return (0, int(self.size[hyps].max())), True
        key = self._key(hyps)
        got = self.memo.get(key)
        if got is not None and (got[1] or got[0][0] > limit):
            return got
        self.nodes += 1
        best: Value | None = None
        floor_over = NO_LIMIT  # the least lower bound among the options over the limit
        for floor, q, labels, bounds in self._options(hyps, ids):
            cap = NO_LIMIT if self.worst_first else (
                limit if best is None else min(limit, best[0]))
            if floor > cap:  # sorted by bound: none left can reach it
                floor_over = min(floor_over, floor)
                break
            value, exact = self._try(hyps, q, labels, bounds, cap)
            if not exact:
                floor_over = min(floor_over, value[0])
            elif best is None or self.rank(value) < self.rank(best):
                best = value
        got = ((max(floor_over, got[0][0] if got else 0), 0), False) if best is None else (
            best, True)
        self.memo[key] = got
        return got

    def _try(self, hyps: np.ndarray, q: int, labels: np.ndarray, bounds: np.ndarray,
             cap: int) -> tuple[Value, bool]:
        """(value, True) of asking q at the set when its misses are at most `cap`, else
        (a lower bound over `cap`, False)."""
        misses = ~self.cover[q, hyps]
        parts = [(labels == j, int(bounds[j])) for j in np.argsort(-bounds, kind="stable")
                 if bounds[j] or (labels == j).any()]  # the costliest first: cuts sooner
        total, worst, rest = int(misses.sum()), 0, sum(b for _, b in parts)
        for part, part_floor in parts:
            rest -= part_floor
            (child, child_worst), exact = self._search(hyps[part], cap - total - rest)
            total += child
            if not exact or total + rest > cap:  # (a part known exactly may pass its limit)
                return (total + rest, 0), False
            # the part's worst game, plus this query if it missed the part's secrets
            worst = max(worst, child_worst + int(misses[part][0]))
        return (total, worst), True

    def _first(self, hyps: np.ndarray, value: Value) -> int:
        """The first query in canonical order that reaches the set's value: rule K's
        choice (the table holds values only, one per set and its images)."""
        ids = self.cover_id[hyps]
        cap = NO_LIMIT if self.worst_first else value[0]
        for floor, q, labels, bounds in sorted(self._options(hyps, ids), key=lambda o: o[1]):
            if floor <= cap and self._try(hyps, q, labels, bounds, cap) == (value, True):
                return q
        raise AssertionError("no query reaches the value found")

    def _key(self, hyps: np.ndarray) -> bytes:
        """The set's key in the table: its least image under the symmetries."""
        if self.sigma is None:
            return hyps.tobytes()
        return min(row.tobytes() for row in np.sort(self.sigma[:, hyps], axis=1))

    def _options(self, hyps: np.ndarray,
                 ids: np.ndarray) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
        """Each useful query with a distinct row, as (a lower bound on the set's misses
        after it, query, each secret's answer as 0..b-1, each answer's part's bound), in
        the order of the bound, then canonical. Every part's bound is counted at once."""
        rows = self.codes[:, hyps]
        useful = np.flatnonzero(rows.min(axis=1) != rows.max(axis=1))
        if not len(useful):
            raise SleuthError("no query tells apart hypotheses whose covers differ",
                              hint="a cover the player can never learn")
        _, first = np.unique(rows[useful], axis=0, return_index=True)
        useful = useful[np.sort(first)]  # a row repeated: the same value, the first kept
        n = len(useful)
        _, labels = np.unique(rows[useful], return_inverse=True)  # answers as 0..b-1
        labels = labels.reshape(n, len(hyps))
        b = int(labels.max()) + 1
        covered = self.cover[useful][:, hyps]
        misses = len(hyps) - covered.sum(axis=1)
        bounds = np.zeros((n, b), dtype=np.int64)
        if self.leaves is not None:
            _, classes = np.unique(ids, return_inverse=True)
            u = int(classes.max()) + 1
            group = (np.arange(n)[:, None] * b + labels).ravel()  # (query, answer)
            counts = np.bincount(group * u + np.tile(classes.ravel(), n),
                                 minlength=n * b * u).reshape(n, b, u)
            # the cover queries left useful on a part's paths: the set's, less q
            free = covered.sum(axis=0)[None, :] - covered
            most = np.zeros(n * b, dtype=np.int64)
            np.maximum.at(most, group, free.ravel())
            costs = self.leaves.table[most][:, :u].reshape(n, b, u)
            bounds = (-np.sort(-counts, axis=2) * costs).sum(axis=2)
        floors = misses + bounds.sum(axis=1)
        return [(int(floors[i]), int(useful[i]), labels[i], bounds[i])
                for i in np.lexsort((useful, floors)).tolist()]

    def proven(self, hyps: np.ndarray, value: Value) -> dict[str, Any]:
        misses, worst = value
        order = "worst case, then total" if self.worst_first else "total, then worst case"
        return {"total": int(self.size[hyps].sum()) + misses, "worst": worst,
                "order": order, "nodes": self.nodes, "top": 0}


__all__ = ["CoverSearch"]

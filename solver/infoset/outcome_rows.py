"""The exact searches' outcome table when the dense one does not fit: every query's code
on every hypothesis, made on demand and never held whole.

`OutcomeTable` (outcomes.py) holds a (queries x hypotheses) matrix of int64: 32,768 x
32,768 codes take 8 GiB. `OutcomeRows` offers the searches the same interface from the
codes the game keeps by hypothesis (codes.py, one byte a code when they fit): the whole
matrix when it fits half of `memory_mb` that way (CodeMatrix), else a row cache
(RowCache: a hypothesis's codes on every query, made from one computed row per symmetry
orbit and kept up to half of `memory_mb`, least recently used out first). A request for
a large set, which the cache would not hold (the root, the first level), is computed
from the feedback expressions, a chunk of queries at a time, and not kept. The searches
ask a large set only about one query per orbit of its stabiliser (a handful at the
root, a few hundred below), so nothing of the size of the whole matrix is ever made.

It applies to a game with one block of deterministic queries that can be secrets and a
proved symmetry (what makes the row cache), with no history rule (a set would carry
the queries allowed) and a goal other than `until_indistinguishable` (which compares
whole columns).
"""

from __future__ import annotations

import numpy as np

from sleuth.solver.infoset.codes import CodeMatrix, RowCache
from sleuth.solver.infoset.queries import Candidates, Query, has_stop

DISTINCT = (8, 64)  # the sizes of sets whose distinct queries are listed (see distinct)
CHUNK_SHARE = 8  # a computed block of codes takes at most memory_mb / CHUNK_SHARE
COLUMN_CODES = 256  # going_sums reads the cache's codes as they are with at most these


class OutcomeRows:
    """The outcome table's interface over codes made on demand (see the module's text)."""

    note: str | None = None  # why it was made, and what it costs (outcomes.searched_table)

    def __init__(self, candidates: Candidates, cache: CodeMatrix | RowCache):
        from sleuth.solver.infoset.symmetry import LIMIT, detect

        game = candidates.game
        block = candidates.blocks[0]
        self.game, self.block, self.cache = game, block, cache
        self.queries = [Query(block.action.name, int(r)) for r in block.ranks.tolist()]
        self.book = cache.book  # a code label -> the feedback's real code
        self.ncodes = len(self.book)
        self.dtype = cache.dtype
        self.stops = stop_table(candidates, self.queries, self.book)
        # the proved symmetries: the transpositions the row cache was made from (kept by
        # the game), or the group listed when it is small enough
        group = candidates._orbits(block, game)
        self.symmetry = group if group and group.size > LIMIT else \
            detect(game, None, block.ranks)
        self.all_queries = np.arange(len(self.queries), dtype=np.int64)

    @staticmethod
    def make(candidates: Candidates) -> OutcomeRows | None:
        """The table made on demand, when the game has what it needs (see the module's
        text); None otherwise."""
        game, blocks = candidates.game, candidates.blocks
        if len(blocks) != 1 or not blocks[0].secret_like or not blocks[0].deterministic \
                or candidates.generators or candidates.history_rules \
                or blocks[0].action.timed or game.model.until_indistinguishable:
            return None
        cache = candidates._matrix(blocks[0], game)
        if cache is None:
            return None
        return OutcomeRows(candidates, cache)

    @property
    def most_going(self) -> int:
        """At least the most codes that go on that one query gives on the whole set: the
        codes that occur (the book), less the fewest that end the game for one query
        (counting each query's would mean every code of the whole matrix)."""
        return len(self.book) - int(self.stops.sum(axis=1).min()) if len(self.stops) else 0

    # -- codes

    def labels(self, hyps: np.ndarray, active: np.ndarray) -> np.ndarray:
        """The code labels of the queries `active` on the hypotheses `hyps`, a row per
        query: from the row cache when it holds the set, else computed."""
        got = self.cache.cut(hyps, active, len(self.queries))
        if got is not None:
            return np.ascontiguousarray(got.T)
        ranks = self.block.ranks[active]
        codes = self.game.feedback_matrix(self.block.action.name, ranks, hyps)
        return np.searchsorted(self.book, codes).astype(self.dtype)

    def chunks(self, n: int, active: np.ndarray) -> list[np.ndarray]:
        """`active` in pieces whose codes on n hypotheses fit the share of the budget."""
        step = max(1, self.game.budget.memory_bytes // CHUNK_SHARE // max(1, 8 * n))
        return [active[lo:lo + step] for lo in range(0, max(1, len(active)), step)]

    def row(self, q: int, hyps: np.ndarray) -> np.ndarray:
        """Query q's code labels on `hyps`."""
        return self.labels(hyps, np.array([q], dtype=np.int64))[0]

    def counts(self, hyps: np.ndarray, queries: np.ndarray | None = None) -> np.ndarray:
        """Part sizes (len(queries) x codes) of `hyps` under the queries (None: all)."""
        queries = self.all_queries if queries is None else queries
        out = []
        for piece in self.chunks(len(hyps), queries):
            codes = self.labels(hyps, piece).astype(np.int64)
            flat = (codes + (np.arange(len(piece)) * self.ncodes)[:, None]).ravel()
            out.append(np.bincount(flat, minlength=len(piece) * self.ncodes)
                       .reshape(len(piece), self.ncodes))
        return np.concatenate(out) if out else np.zeros((0, self.ncodes), dtype=np.int64)

    # -- the compiled passes (outcome_kernels.py), on the codes of the queries asked

    def part_sizes(self, hyps: np.ndarray, lb_total: np.ndarray, lb_worst: np.ndarray,
                   active: np.ndarray) -> tuple[np.ndarray, ...]:
        from sleuth.solver.infoset.outcome_kernels import part_sizes

        pieces = [part_sizes(self.labels(hyps, p), np.arange(len(hyps)), self.stops[p],
                             lb_total, lb_worst, np.arange(len(p)))
                  for p in self.chunks(len(hyps), active)]
        return tuple(np.concatenate(parts) for parts in zip(*pieces, strict=True))

    def column_floors(self, lb_total: np.ndarray, lb_worst: np.ndarray) -> None:
        """No floor read by hypothesis: the codes are made for a set's hypotheses on
        demand, never held whole (column_kernels.py needs every query's code on each)."""
        return None

    def least_bounds(self, hyps: np.ndarray, lb_total: np.ndarray, lb_worst: np.ndarray,
                     active: np.ndarray, allowed: np.ndarray, none: int) -> tuple[int, int]:
        from sleuth.solver.infoset.outcome_kernels import least_bounds

        total, worst = none, none
        for p in self.chunks(len(hyps), active[allowed[active]]):
            t, w = least_bounds(self.labels(hyps, p), np.arange(len(hyps)), self.stops[p],
                                lb_total, lb_worst, np.arange(len(p)),
                                np.ones(len(p), dtype=bool), none)
            total, worst = min(total, t), min(worst, w)
        return total, worst

    def going_sums(self, hyps: np.ndarray, cost: np.ndarray, active: np.ndarray
                   ) -> np.ndarray:
        """outcome_kernels.going_sums: read where the cache holds the codes, by hypothesis
        (column_sums), when it holds the set and the counters that pass keeps per
        (query, code) stay small; else on codes computed a chunk at a time."""
        from sleuth.solver.infoset.outcome_kernels import column_sums, going_sums

        if self.ncodes <= COLUMN_CODES:
            got = self.cache.held(hyps)
            if got is not None:
                return column_sums(*got, active, self.stops, cost)
        return np.concatenate([going_sums(self.labels(hyps, p), np.arange(len(hyps)),
                                          self.stops[p], cost, np.arange(len(p)))
                               for p in self.chunks(len(hyps), active)])

    def distinct(self, hyps: np.ndarray, active: np.ndarray, top: int = 0) -> np.ndarray:
        """The queries of `active` that part `hyps` as no earlier one of them does
        (outcome_kernels.distinct_rows), when the search tries every query (`top` 0) at
        a set of 9 to 64 secrets (DISTINCT); else all of `active` (a superset serves the
        search as well). The pass makes the set's codes once more: it pays where every
        query is tried below the set (the calibrated look-ahead's exact solves), not
        under `--top`, which tries few queries anyway, nor at a set so small that its
        first query usually meets its size bound."""
        from sleuth.solver.infoset.outcome_kernels import distinct_rows

        if top or not DISTINCT[0] < len(hyps) <= DISTINCT[1]:
            return active
        codes = self.labels(hyps, active)
        kept = distinct_rows(codes, np.arange(len(hyps)), self.stops[active],
                             np.arange(len(active)))
        return active[kept]


def stop_table(candidates: Candidates, queries: list[Query], book: np.ndarray) -> np.ndarray:
    """(queries x code labels): whether the feedback ends the game for that query."""
    stops = np.zeros((len(queries), len(book)), dtype=bool)
    if not has_stop(candidates.game) or not queries:
        return stops
    codes = book.tolist()
    if not candidates.stops.reads_args(queries[0].action):  # one row serves every query
        stops[:] = [candidates.stops(queries[0], code) for code in codes]
        return stops
    for i, query in enumerate(queries):
        stops[i] = [candidates.stops(query, code) for code in codes]
    return stops


__all__ = ["OutcomeRows", "stop_table"]

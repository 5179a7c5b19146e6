"""The optimal search (search/plain.py) run in compiled code (numba), set after set.

In Python the branch and bound spends most of its time on per-set overhead (a call, a
dict key, a few numpy calls), not on the work.
This kernel runs the same search in one call from a set down: the same queries (one
per way of parting the set, the earliest of those that part it alike; one per orbit
of the symmetries that map the set onto itself), the same order (the lower bounds of
the total and the depth, then tie-break K), the same pruning (size bounds; each part's
floor one query deeper, read by column where the search would; what the table knows
of a part), the set's own secrets tried first (the search's `settled`), and the same
answer: the least (total, worst case, K rank) of any tree, within a depth budget when
there is one; it searches the same sets the Python search does.

Its table (search/table.py) keeps every set solved, as the search's dict does; the
search keeps the sets it hands over, and `plan` asks the kernel again for those below.

Symmetry. A part inherits its parent's symmetries that fix the query, so a group
listed element by element (symmetry.Symmetry, `inherit`) is used here as in Python.
Transpositions (groups of millions, their stabilisers found afresh per set) are not:
then only sets of up to SMALL are solved here, where few symmetries remain. Leaving
symmetries out never changes the answer: within an orbit the first query has the
least K rank, and the least (total, worst, K) over every query is found at an orbit's
first. That needs queries that part a set alike to agree on whether they may be the
secret, which holds when the game stops exactly on the query that names the secret.

So it applies only there (`applies`): a game that stops when the query asked is the
secret (`stop_when`, and no other query ends it), queries that can be secrets, a dense
table, no history rule and no `--top` (whose cut order depends on the orbits). Its
trees are compared with the Python search's in tests/test_optimal_kernel.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from sleuth.solver.infoset.column_kernels import _distinct, column_pays
from sleuth.solver.infoset.column_kernels import _least as _least_by_column
from sleuth.solver.infoset.column_kernels import _scores as _scores_by_column
from sleuth.solver.infoset.outcome_kernels import _score, marked_counts, true_at
from sleuth.solver.search.bounds import NO_TREE
from sleuth.solver.search.table import SetTable, find, keep, set_hash

SMALL = 48  # the largest set solved here, unless the symmetries are inherited (`limit`)
FLOOR = -2  # the depth a set's floor is kept at in the table (-1: no depth budget)
FULL = -2  # the query a search reports when it gave up: its table is full
MANY = 64  # symmetries above which a set's orbits are read query by query


@njit(cache=True, nogil=True)
def _scores(codes: np.ndarray, stops: np.ndarray, lb_total: np.ndarray,
            lb_worst: np.ndarray, hyps: np.ndarray, cand: np.ndarray, by_column: tuple
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """outcome_kernels._score for each query of `cand` at `hyps`: (lbq, lbw, useful,
    ends), read by column for every query of the table where that pays (`by_column` as
    in _floor), as the floors are; the values are the same either way."""
    columns, going, knots, gains, ab, _ = by_column
    na, n, nc = cand.shape[0], hyps.shape[0], stops.shape[1]
    if columns.shape[0] and column_pays(n, na, columns.shape[1], going.shape[0]):
        return _scores_by_column(columns, hyps, going, ab[0], ab[1], knots, gains, lb_worst,
                                 cand, NO_TREE)  # (NO_TREE: as _floor gives _least)
    counts = np.zeros(nc, dtype=np.int64)
    seen = np.empty(nc, dtype=np.int64)
    lbq, lbw = np.empty(na, dtype=np.int64), np.empty(na, dtype=np.int64)
    useful, ends = np.empty(na, dtype=np.bool_), np.empty(na, dtype=np.bool_)
    for a in range(na):
        lbq[a], lbw[a], largest, ends[a] = _score(codes, cand[a], hyps, stops, lb_total,
                                                  lb_worst, counts, seen, False)
        useful[a] = largest < n
    return lbq, lbw, useful, ends


@njit(cache=True, nogil=True)
def _floor(codes: np.ndarray, stops: np.ndarray, lb_total: np.ndarray,
           lb_worst: np.ndarray, consistent: bool, part: np.ndarray, cand: np.ndarray,
           counts: np.ndarray, seen: np.ndarray, by_column: tuple) -> tuple[int, int]:
    """The least lower bounds on the total and the depth over the useful queries of
    `cand` at `part` (with consistent guesses, those that may be the secret), each
    raised to the part's size bounds: the search's `floor`. Read by column over every
    query (column_kernels.py: `by_column` holds its arrays, none when it has none)
    where that pays, as the search does: the least is the same."""
    n = part.shape[0]
    low_t, low_w = lb_total[n], lb_worst[n]
    if n <= 2:
        return low_t, low_w
    columns, going, knots, gains, ab, allowed = by_column
    nq = columns.shape[1]
    if not consistent and columns.shape[0] and column_pays(n, cand.shape[0], nq,
                                                           going.shape[0]):
        best_t, best_w = _least_by_column(columns, part, going, ab[0], ab[1], knots, gains,
                                          lb_total, lb_worst, allowed, NO_TREE, 0, nq)
        return max(best_t, low_t), max(best_w, low_w)
    best_t, best_w = NO_TREE, NO_TREE
    for a in range(cand.shape[0]):
        total, worst, largest, ends = _score(codes, cand[a], part, stops, lb_total, lb_worst,
                                             counts, seen, False)
        if largest < n and (ends or not consistent):
            best_t = min(best_t, total)
            best_w = min(best_w, worst)
            if best_t <= low_t and best_w <= low_w:
                break
    return max(best_t, low_t), max(best_w, low_w)


@njit(cache=True, nogil=True)
def _parts(codes: np.ndarray, stops: np.ndarray, lb_total: np.ndarray,
           lb_worst: np.ndarray, consistent: bool, hyps: np.ndarray, q: int,
           cand: np.ndarray, depth: int, limit: int, keys: np.ndarray, rows: np.ndarray,
           arena: np.ndarray, state: np.ndarray, by_column: tuple
           ) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
    """Query q's going parts at `hyps`, largest first, each ascending, as one array cut at
    `starts`, with their floors (`lows`): as the search's `raised`, each part's size
    bound raised in turn to its floor one query deeper and to what the table knows of
    it; (False, ...) once `hyps`' size plus those bounds pass `limit`, or a floor of the
    depth passes `depth` - 1. Floors are kept in the table too (depth FLOOR)."""
    n, nc = hyps.shape[0], stops.shape[1]
    counts = np.zeros(nc, dtype=np.int64)
    row = np.empty(n, dtype=np.int64)
    for j in range(n):
        c = codes[q, hyps[j]]
        row[j] = c
        counts[c] += 1
    labels = np.empty(nc, dtype=np.int64)
    m = 0
    for c in range(nc):
        if counts[c] > 0 and not stops[q, c]:
            labels[m] = c
            m += 1
    labels = labels[:m]
    labels = labels[np.argsort(-counts[labels], kind="mergesort")]  # largest first
    starts = np.empty(m + 1, dtype=np.int64)
    where = np.full(nc, -1, dtype=np.int64)
    starts[0] = 0
    for i in range(m):
        where[labels[i]] = i
        starts[i + 1] = starts[i] + counts[labels[i]]
    flat = np.empty(starts[m], dtype=np.int64)
    fill = starts[:m].copy()
    for j in range(n):  # each part ascending, as hyps is
        i = where[row[j]]
        if i >= 0:
            flat[fill[i]] = hyps[j]
            fill[i] += 1
    lows = np.empty(m, dtype=np.int64)
    rest = n
    for i in range(m):
        lows[i] = lb_total[starts[i + 1] - starts[i]]
        rest += lows[i]
    if rest > limit:
        return False, flat, starts, lows
    child = depth - 1 if depth >= 0 else -1
    seen = np.empty(nc, dtype=np.int64)
    counts[:] = 0
    for i in range(m):
        part = flat[starts[i]:starts[i + 1]]
        low, deep = lb_total[part.shape[0]], lb_worst[part.shape[0]]
        if part.shape[0] > 2:
            h = set_hash(part, FLOOR)
            slot = find(keys, rows, arena, part, FLOOR, h)
            if slot >= 0:
                low, deep = rows[slot, 3], rows[slot, 4]
            else:
                low, deep = _floor(codes, stops, lb_total, lb_worst, consistent, part,
                                   cand, counts, seen, by_column)
                # (typed: a literal constant would compile one more copy of `keep`)
                keep(keys, rows, arena, state, part, np.int64(FLOOR), h, low, deep, np.int64(-1))
            slot = find(keys, rows, arena, part, child, set_hash(part, child))
            if slot >= 0:
                low = max(low, rows[slot, 3])
        rest += low - lows[i]
        lows[i] = low
        if rest > limit or (child >= 0 and deep > child):
            return False, flat, starts, lows
    return True, flat, starts, lows


@njit(cache=True, nogil=True)
def _drop_images(group: np.ndarray, whole: np.ndarray, stab: np.ndarray, cand: np.ndarray,
                 tries: np.ndarray) -> None:
    """Unset `tries` for the queries of `cand` that are not the first (least) of their
    orbit under the symmetries `stab`. Every listed one (the set is the whole group's):
    as `whole` says. Few: row by row (the group's rows are long). Many: query by query,
    each left at the first symmetry that maps it lower."""
    if stab.shape[0] == group.shape[0]:
        for a in range(cand.shape[0]):
            if not whole[cand[a]]:
                tries[a] = False
        return
    if stab.shape[0] <= MANY:
        for g in stab:
            image = group[g]
            for a in range(cand.shape[0]):
                if image[cand[a]] < cand[a]:
                    tries[a] = False
        return
    for a in range(cand.shape[0]):
        if not tries[a]:
            continue
        q = cand[a]
        for g in stab:
            if group[g, q] < q:
                tries[a] = False
                break


@njit(cache=True, nogil=True)
def _firsts(group: np.ndarray, whole: np.ndarray, stab: np.ndarray,
            cand: np.ndarray) -> np.ndarray:
    """The queries of `cand` that are the first of their orbit under `stab`."""
    first = np.ones(cand.shape[0], dtype=np.bool_)
    _drop_images(group, whole, stab, cand, first)
    return cand[first]


@njit(cache=True, nogil=True)
def _own(codes: np.ndarray, stops: np.ndarray, lb_total: np.ndarray, lb_worst: np.ndarray,
         query_of: np.ndarray, hyps: np.ndarray, marks: np.ndarray) -> np.ndarray:
    """The set's own secrets (as queries, ascending: rule K's order) among the queries
    marked active that meet both size bounds of the set: any of them whose tree does is
    the search's answer (the search's `settled`)."""
    n, nc = hyps.shape[0], stops.shape[1]
    counts = np.zeros(nc, dtype=np.int64)
    seen = np.empty(nc, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    m = 0
    for j in range(n):  # hyps ascending, and so their queries (one block, in order)
        q = query_of[hyps[j]]
        if q < 0 or not marks[q]:
            continue
        total, worst, largest, _ = _score(codes, q, hyps, stops, lb_total, lb_worst, counts,
                                          seen, False)
        if largest < n and total == lb_total[n] and worst == lb_worst[n]:
            out[m] = q
            m += 1
    return np.sort(out[:m])


@njit(cache=True, nogil=True)
def _solve(codes: np.ndarray, stops: np.ndarray, lb_total: np.ndarray,
           lb_worst: np.ndarray, query_of: np.ndarray, consistent: bool,
           hyps: np.ndarray, active: np.ndarray, marks: np.ndarray, group: np.ndarray,
           whole: np.ndarray, stab: np.ndarray, depth: int, bound: int, keys: np.ndarray,
           rows: np.ndarray, arena: np.ndarray, state: np.ndarray, by_column: tuple
           ) -> tuple[int, int, int]:
    """(total, worst, query) of the best tree for `hyps` (ascending) within `depth`
    queries (-1: no limit) if its total is at most `bound`; else (a lower bound above
    `bound`, 0, -1). `active`: the queries that part `hyps` in every way any does;
    `marks`: all False (a scratch array, one per query, left as found). `group`: the
    game's symmetries on the queries (one row each; none: no rows), of which `stab` map
    `hyps` onto itself (`whole`: the queries first in their orbit when every row does):
    one query per orbit is tried, and a part inherits those that fix
    the query (as the search's `stabiliser`, `representatives`, `fixing`). The table
    (`keys`, `rows`, `arena`: table.py `find`) keeps every set's answer as the search's does;
    `state`: (nodes searched, arena used, sets kept, full). A search that finds the
    table full gives up: (0, 0, FULL), nothing else meant."""
    n = hyps.shape[0]
    if n == 0:
        return 0, 0, -1
    if depth >= 0 and lb_worst[n] > depth:
        return NO_TREE, 0, -1
    if lb_total[n] > bound:
        return lb_total[n], 0, -1
    h = set_hash(hyps, depth)
    slot = find(keys, rows, arena, hyps, depth, h)
    known = 0
    if slot >= 0:
        known = rows[slot, 3]
        if rows[slot, 5] >= 0 or known > bound:
            return known, rows[slot, 4], rows[slot, 5]
    state[0] += 1
    nq = codes.shape[0]
    want_t, want_w = lb_total[n], lb_worst[n]
    best_t, best_w, best_k, best_q = NO_TREE, 0, 0, -1
    cand = active
    for phase in range(2):
        if phase == 0:  # the set's own secrets, if one meets the size bounds
            for a in range(active.shape[0]):
                marks[active[a]] = True
            trials = _own(codes, stops, lb_total, lb_worst, query_of, hyps, marks)
            for a in range(active.shape[0]):
                marks[active[a]] = False
            lbq = np.full(trials.shape[0], want_t, dtype=np.int64)
            lbw = np.full(trials.shape[0], want_w, dtype=np.int64)
            krank = trials.copy()
        else:  # every query, one per way of parting the set, in the search's order
            cand = _distinct(codes, hyps, stops, active, by_column[0], by_column[1])
            na = cand.shape[0]
            lbq, lbw, useful, ends = _scores(codes, stops, lb_total, lb_worst, hyps, cand,
                                             by_column)
            krank = np.empty(na, dtype=np.int64)
            sort_key = np.empty(na, dtype=np.int64)
            tries = np.zeros(na, dtype=np.bool_)
            wide = n + 2  # above any depth bound of a set of n
            for a in range(na):
                q = cand[a]
                krank[a] = q if ends[a] else nq + q
                # (one whose bound passes `bound` comes after the loop below stops)
                tries[a] = (useful[a] and (ends[a] or not consistent) and lbq[a] <= bound
                            and (depth < 0 or lbw[a] <= depth))
                sort_key[a] = (lbq[a] * wide + lbw[a]) * 2 * nq + krank[a]
            if stab.shape[0] > 1:  # one query per orbit: the first, as K ranks them
                _drop_images(group, whole, stab, cand, tries)
            order = true_at(tries)
            order = order[np.argsort(sort_key[order])]
            trials = cand[order]
            lbq, lbw, krank = lbq[order], lbw[order], krank[order]
        for i in range(trials.shape[0]):
            if lbq[i] > bound:
                break
            if best_q >= 0 and (lbq[i], lbw[i], krank[i]) >= (best_t, best_w, best_k):
                break
            q = trials[i]
            limit = bound if best_q < 0 else min(bound, best_t)
            if phase == 0:
                limit = want_t
            fixing, scanned = stab[:0], cand
            if stab.shape[0] > 1:  # the parts' floors: one query per orbit of `fixing`
                fixing = stab[group[stab, q] == q]
                scanned = _firsts(group, whole, fixing, cand)
            ok, flat, starts, lows = _parts(codes, stops, lb_total, lb_worst, consistent,
                                            hyps, q, scanned, depth, limit, keys, rows,
                                            arena, state, by_column)
            if state[3]:
                return 0, 0, FULL
            if not ok:
                continue
            # the best tree under q within `limit`, part by part (in this function:
            # numba's cache crashed loading two functions that call each other)
            t, w, rest = n, 1, lows.sum()
            for p in range(lows.shape[0]):
                rest -= lows[p]
                within = limit - t - rest
                got, deep, _ = _solve(codes, stops, lb_total, lb_worst, query_of,
                                      consistent, flat[starts[p]:starts[p + 1]], cand,
                                      marks, group, whole, fixing, depth - 1 if depth >= 0 else -1,
                                      within, keys, rows, arena, state, by_column)
                if state[3]:
                    return 0, 0, FULL
                if got > within:
                    t = -1
                    break
                t += got
                w = max(w, 1 + deep)
            if phase == 0 and t == want_t and w == want_w:
                keep(keys, rows, arena, state, hyps, depth, h, t, w, q)
                return t, w, q
            if phase == 1 and t >= 0 and (best_q < 0 or
                                          (t, w, krank[i]) < (best_t, best_w, best_k)):
                best_t, best_w, best_k, best_q = t, w, krank[i], q
    if best_q < 0:
        keep(keys, rows, arena, state, hyps, depth, h, max(bound + 1, known), np.int64(0),
             np.int64(-1))
        return max(bound + 1, known), 0, -1
    keep(keys, rows, arena, state, hyps, depth, h, best_t, best_w, best_q)
    return best_t, best_w, best_q


def _plain(a: np.ndarray) -> np.ndarray:
    """`a` as the kernel's one type of index array: int64, contiguous and writable (a
    copy only when it is not: the searches' are). A read-only array (np.frombuffer of a
    memo key) would compile a second `_solve` calling the first, and numba crashed
    loading that pair from its cache."""
    if a.dtype == np.int64 and a.flags.c_contiguous and a.flags.writeable:
        return a
    return np.array(a, dtype=np.int64, order="C")


class CompiledSearch:
    """The kernel bound to one search's table and size bounds: `solve` is the search's
    `solve` for a small set (its answers are the same)."""

    def __init__(self, search: Any):
        table = search.table
        self.codes = table.small
        self.stops = np.ascontiguousarray(table.stops)
        self.lb_total, self.lb_worst = search.lb_total, search.lb_worst
        own = np.flatnonzero(search.secret_of >= 0)
        self.query_of = np.full(search.game.hypotheses.size, -1, dtype=np.int64)
        self.query_of[search.secret_of[own]] = own
        self.consistent = search.candidates.guesses == "consistent"
        self.marks = np.zeros(len(search.queries), dtype=np.bool_)
        self.all_queries = search.all_queries
        self.search = search
        self.none = np.zeros(0, dtype=np.int64)
        self.symmetry: Any = None
        self._seen: Any = ()  # the search's symmetry when `group` and `limit` were set
        self.group = np.zeros((0, len(search.queries)), dtype=np.int64)
        self.whole = np.ones(len(search.queries), dtype=np.bool_)
        self.limit = SMALL
        self._refresh()
        floors = search.column_floors  # the floor read by column, where the search has it
        if floors is None:
            self.by_column = (np.zeros((0, 1), dtype=np.uint8), np.zeros((1, 1), np.uint8),
                              np.zeros(0, np.int32), np.zeros(0, np.int32),
                              np.zeros(2, np.int32), np.ones(1, dtype=np.bool_))
        else:
            shape = floors.shape
            self.by_column = (floors.columns, floors.going, shape.knots, shape.gains,
                              np.array([shape.a, shape.b], dtype=np.int32),
                              np.ones(floors.columns.shape[1], dtype=np.bool_))
        self.solved = SetTable()  # every set solved here

    def _refresh(self) -> None:
        """Follow the search's symmetries (the tests remove them from a search). Those a
        part inherits from its parent (a group listed element by element) are used here;
        transpositions, found afresh per set, are not. With a listed group, or none, the
        kernel takes every set, and searches the sets the Python search would, node for
        node. Otherwise only sets of up to SMALL, where few symmetries exist."""
        symmetry = self.search.symmetry
        if symmetry is self._seen:
            return
        self._seen = symmetry
        listed = symmetry is not None and symmetry.inherit
        self.symmetry = symmetry if listed else None
        self.group = (np.ascontiguousarray(symmetry.queries) if listed else
                      np.zeros((0, len(self.search.queries)), dtype=np.int64))
        self.whole = (np.ascontiguousarray(symmetry.whole) if listed else
                      np.ones(len(self.search.queries), dtype=np.bool_))
        self.limit = (self.search.game.hypotheses.size if symmetry is None or listed
                      else SMALL)

    def takes(self, n: int) -> bool:
        """Whether a set of n is solved here."""
        self._refresh()
        return n <= self.limit

    @property
    def nodes(self) -> int:
        """The sets searched here so far."""
        return int(self.solved.state[0])

    @staticmethod
    def applies(search: Any) -> bool:
        """Whether the kernel gives the search's answers (the module's docstring): a
        dense table, no `--top` or history rule, and a game that stops exactly when a
        query is asked on the secret it names."""
        table = search.table
        if not (search.stop_game and search.secret_like and not search.top
                and search.rules is None and hasattr(table, "small")):
            return False
        codes, secret_of = table.small, search.secret_of
        rows = np.arange(len(codes))
        ended = marked_counts(codes, table.stops)  # the secrets each query ends the game for
        own = secret_of >= 0
        names = table.stops[rows[own], codes[rows[own], secret_of[own]]]
        return bool(np.all(ended == own) and np.all(names))

    def solve(self, hyps: np.ndarray, depth: int | None, bound: int,
              active: np.ndarray | None, stab: np.ndarray | None
              ) -> tuple[int, int, int] | int:
        """As OptimalSearch.solve: (total, worst, query) if the best total is at most
        `bound`, else a lower bound above it. `stab`: symmetries known to map `hyps`
        onto itself (None: found here)."""
        self._refresh()
        depth = -1 if depth is None else depth
        value, worst, q = self.solved.known(hyps, depth)
        if q >= 0 or value > bound:  # (known: no stabiliser to find)
            return (value, worst, q) if q >= 0 else value
        if self.symmetry is None:
            stab = self.none
        elif stab is None:
            stab = self.symmetry.stabiliser(hyps)
        hyps, stab = _plain(hyps), _plain(stab)
        active = self.all_queries if active is None else _plain(active)
        while True:
            total, worst, q = _solve(self.codes, self.stops, self.lb_total, self.lb_worst,
                                     self.query_of, self.consistent, hyps, active,
                                     self.marks, self.group, self.whole, stab, depth,
                                     bound, *self.solved.arrays(), self.by_column)
            if self.solved.full:  # (also when only this set's own answer was not kept)
                self.solved.grow(len(hyps))
            if q != FULL:
                return (int(total), int(worst), int(q)) if q >= 0 else int(total)


__all__ = ["SMALL", "CompiledSearch"]

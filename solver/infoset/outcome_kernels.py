"""Compiled loops over the outcome table (numba): what the exact searches ask of every
query at an information set, in one pass over its codes, without the (queries x
codes) temporaries the vectorised form makes.

    part_sizes    every query's part sizes and the lower bounds of its total and depth
    least_bounds  only the least of those bounds over the allowed queries that split
                  the set or end the game for part of it, never below the set's own
                  size bounds (the search's per-set floor)
    going_sums    a cost summed over each query's parts by their sizes (the
                  calibrated look-ahead); column_sums the same read by hypothesis
    distinct_rows the queries whose outcome rows at a set no earlier query has: the
                  others part it, and every subset of it, exactly as one kept does

A pass over many queries is cut into runs of the query order, one per thread
(compiler/parallel.py says how many); each run is the one-thread loop over its queries,
and the results are put together as one run's would be, so a pass gives the same answer
however it is cut (tests/test_optimal_kernels.py). A threaded kernel
(`parallel.threaded`) is only ever called from Python, and only for two runs or more:
numba runs a threaded kernel called from another compiled kernel before starting its
threads, and a threaded call costs more than the same loop compiled without.

A query's lower bounds add, over its parts that go on (feedback not in `stops`), the
size bounds `lb_total[size]` to the set's size, and take 1 + the largest
`lb_worst[size]` (1 when no part goes on). The reference form in numpy is
`OptimalSearch.scores`' docstring; tests/test_optimal_kernels.py checks one against
the other.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from sleuth.compiler.api import parallel
from sleuth.solver.infoset.hashing import FNV64_OFFSET, fnv64

COLUMN_BLOCK = 512  # queries counted side by side by column_sums (counters kept in cache)


@njit(cache=True, nogil=True)
def true_at(mask: np.ndarray) -> np.ndarray:
    """np.flatnonzero of a 1-D mask, in the kernels: numba's goes through np.ravel, whose
    shape check brings string formatting with it, and every kernel that calls it carries
    that code (MM(4,6)'s search: 7% of what it loads)."""
    n = 0
    for i in range(mask.shape[0]):
        n += 1 if mask[i] else 0
    out = np.empty(n, dtype=np.int64)
    n = 0
    for i in range(mask.shape[0]):
        if mask[i]:
            out[n] = i
            n += 1
    return out


@njit(cache=True, nogil=True)
def _score(codes: np.ndarray, q: int, hyps: np.ndarray, stops: np.ndarray,
           lb_total: np.ndarray, lb_worst: np.ndarray, counts: np.ndarray, seen: np.ndarray,
           keep: bool) -> tuple[int, int, int, bool]:
    """Query q's lower bounds on the total and the depth at `hyps`, its largest going
    part, and whether it ends the game for some of the set. Its part sizes are counted
    into `counts` (zero before) at the codes it meets, listed in `seen`; with `keep`
    they stay there, those of the parts that end the game set to 0, else every count
    is left 0 again.

    One function with no call inside and no row view: a call given arrays (and a view)
    takes and drops a reference count on each, two atomic calls. As two calls on a row,
    counting and bounds cost the exact search (search/compiled.py) 3.6% of MM(4,7)'s
    time in those calls (docs/results.md, "Reference counts")."""
    n = hyps.shape[0]
    m = 0
    for j in range(n):
        c = codes[q, hyps[j]]
        if counts[c] == 0:
            seen[m] = c
            m += 1
        counts[c] += 1
    total, worst, largest, ends = n, 1, 0, False
    for i in range(m):
        c = seen[i]
        k = counts[c]
        stop = stops[q, c]
        if stop or not keep:
            counts[c] = 0
        if stop:
            ends = True
            continue
        total += lb_total[k]
        if 1 + lb_worst[k] > worst:
            worst = 1 + lb_worst[k]
        if k > largest:
            largest = k
    return total, worst, largest, ends


@njit(cache=True, nogil=True)
def _sizes(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray, lb_total: np.ndarray,
           lb_worst: np.ndarray, active: np.ndarray, lo: int, hi: int, going: np.ndarray,
           lbq: np.ndarray, lbw: np.ndarray, useful: np.ndarray, ends: np.ndarray) -> None:
    """part_sizes' rows lo..hi-1, written into its arrays."""
    n = hyps.shape[0]
    seen = np.empty(stops.shape[1], dtype=np.int64)
    for a in range(lo, hi):
        q = active[a]
        total, worst, largest, ends[a] = _score(codes, q, hyps, stops, lb_total, lb_worst,
                                                going[a], seen, True)
        lbq[a], lbw[a], useful[a] = total, worst, largest < n


@parallel.threaded(cache=True, nogil=True)
def _sizes_split(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                 lb_total: np.ndarray, lb_worst: np.ndarray, active: np.ndarray,
                 going: np.ndarray, lbq: np.ndarray, lbw: np.ndarray, useful: np.ndarray,
                 ends: np.ndarray, pieces: int) -> None:
    na = active.shape[0]
    for k in prange(pieces):
        _sizes(codes, hyps, stops, lb_total, lb_worst, active, k * na // pieces,
               (k + 1) * na // pieces, going, lbq, lbw, useful, ends)


def part_sizes(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
               lb_total: np.ndarray, lb_worst: np.ndarray, active: np.ndarray,
               pieces: int | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(going, lbq, lbw, useful, ends) of the queries `active`, one row each: the sizes
    of each one's parts that go on (queries x codes), its lower bounds on the total and
    the depth, whether it splits the set or ends the game for part of it (its largest
    going part is smaller than the set), and whether some of the set ends there. The
    queries are cut in `pieces` runs, one per thread (None: as threads.pieces says)."""
    na = active.shape[0]
    if pieces is None:
        pieces = parallel.pieces(hyps.shape[0] * na)
    going = np.zeros((na, stops.shape[1]), dtype=np.int64)
    lbq, lbw = np.empty(na, dtype=np.int64), np.empty(na, dtype=np.int64)
    useful, ends = np.empty(na, dtype=np.bool_), np.empty(na, dtype=np.bool_)
    if pieces > 1:
        _sizes_split(codes, hyps, stops, lb_total, lb_worst, active, going, lbq, lbw,
                     useful, ends, pieces)
    else:
        _sizes(codes, hyps, stops, lb_total, lb_worst, active, 0, na, going, lbq, lbw,
               useful, ends)
    return going, lbq, lbw, useful, ends


@njit(cache=True, nogil=True)
def _least(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray, lb_total: np.ndarray,
           lb_worst: np.ndarray, active: np.ndarray, allowed: np.ndarray, none: int,
           lo: int, hi: int) -> tuple[int, int]:
    """least_bounds over the queries active[lo:hi], not yet raised to the size bounds."""
    nc = stops.shape[1]
    n = hyps.shape[0]
    counts = np.zeros(nc, dtype=np.int64)
    seen = np.empty(nc, dtype=np.int64)  # the codes met, in order
    best_total, best_worst = none, none
    for a in range(lo, hi):
        q = active[a]
        if not allowed[q]:
            continue
        total, worst, largest, _ = _score(codes, q, hyps, stops, lb_total, lb_worst, counts,
                                          seen, False)
        if largest < n:
            if total < best_total:
                best_total = total
            if worst < best_worst:
                best_worst = worst
            if best_total <= lb_total[n] and best_worst <= lb_worst[n]:
                break
    return best_total, best_worst


@njit(cache=True, nogil=True)
def least_bounds_serial(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                        lb_total: np.ndarray, lb_worst: np.ndarray, active: np.ndarray,
                        allowed: np.ndarray, none: int) -> tuple[int, int]:
    """least_bounds on one core."""
    n = hyps.shape[0]
    total, worst = _least(codes, hyps, stops, lb_total, lb_worst, active, allowed, none, 0,
                          active.shape[0])
    return max(total, lb_total[n]), max(worst, lb_worst[n])


@parallel.threaded(cache=True, nogil=True)
def least_bounds_split(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                       lb_total: np.ndarray, lb_worst: np.ndarray, active: np.ndarray,
                       allowed: np.ndarray, none: int, pieces: int) -> tuple[int, int]:
    """least_bounds with the queries cut in `pieces` runs of the order, one per thread,
    each stopping on its own at the size bounds; the least of their results."""
    n, na = hyps.shape[0], active.shape[0]
    totals = np.empty(pieces, dtype=np.int64)
    worsts = np.empty(pieces, dtype=np.int64)
    for k in prange(pieces):
        totals[k], worsts[k] = _least(codes, hyps, stops, lb_total, lb_worst, active,
                                      allowed, none, k * na // pieces,
                                      (k + 1) * na // pieces)
    return max(totals.min(), lb_total[n]), max(worsts.min(), lb_worst[n])


def least_bounds(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                 lb_total: np.ndarray, lb_worst: np.ndarray, active: np.ndarray,
                 allowed: np.ndarray, none: int, pieces: int | None = None) -> tuple[int, int]:
    """The least lower bounds on the total and on the depth over the queries `active`
    that are allowed and useful (each least on its own), each raised to at least the
    set's own size bound (`lb_total[n]`, `lb_worst[n]`); (none, none) when there is no
    such query. Only the codes a query gives at the set are visited, and the scan ends
    once both reach the size bounds: no later query can change the result. The queries
    are cut in `pieces` runs, one per thread (None: as threads.pieces says)."""
    if pieces is None:
        pieces = parallel.pieces(hyps.shape[0] * active.shape[0])
    if pieces > 1:
        return least_bounds_split(codes, hyps, stops, lb_total, lb_worst, active, allowed,
                                  none, pieces)
    return least_bounds_serial(codes, hyps, stops, lb_total, lb_worst, active, allowed,
                               none)


@njit(cache=True, nogil=True)
def _going_sums(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray, cost: np.ndarray,
                active: np.ndarray, lo: int, hi: int, sums: np.ndarray) -> None:
    """going_sums' entries lo..hi-1, written into `sums`."""
    n = hyps.shape[0]
    counts = np.zeros(stops.shape[1], dtype=np.int64)
    seen = np.empty(stops.shape[1], dtype=np.int64)  # the codes met, in order
    for a in range(lo, hi):
        q = active[a]
        row = codes[q]
        m = 0
        for j in range(n):
            c = row[hyps[j]]
            if counts[c] == 0:
                seen[m] = c
                m += 1
            counts[c] += 1
        total, largest = 0.0, 0
        for i in range(m):
            c = seen[i]
            k = counts[c]
            counts[c] = 0
            if not stops[q, c]:
                total += cost[k]
                if k > largest:
                    largest = k
        sums[a] = total if largest < n else np.inf


@parallel.threaded(cache=True, nogil=True)
def _going_sums_split(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                      cost: np.ndarray, active: np.ndarray, sums: np.ndarray,
                      pieces: int) -> None:
    na = active.shape[0]
    for k in prange(pieces):
        _going_sums(codes, hyps, stops, cost, active, k * na // pieces,
                    (k + 1) * na // pieces, sums)


def going_sums(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray, cost: np.ndarray,
               active: np.ndarray, pieces: int | None = None) -> np.ndarray:
    """Per query of `active`: the sum of `cost[size]` (floats, by part size) over the
    parts of `hyps` that go on, or inf for a query that neither splits the set nor ends
    the game for part of it. One pass over the codes, without the (queries x codes)
    matrix of part sizes that `cost[counts].sum(axis=1)` makes (the calibrated
    look-ahead, at every decision and every part it looks past: 25 MB with 12,972
    queries and 243 codes, docs/solver.md). A query's parts are summed in the order
    of the set's first hypothesis in each, so a sum can differ from numpy's in its
    last bits. The queries are cut in `pieces` runs, one per thread (None: as
    threads.pieces says)."""
    if pieces is None:
        pieces = parallel.pieces(hyps.shape[0] * active.shape[0])
    sums = np.empty(active.shape[0], dtype=np.float64)
    if pieces > 1:
        _going_sums_split(codes, hyps, stops, cost, active, sums, pieces)
    else:
        _going_sums(codes, hyps, stops, cost, active, 0, active.shape[0], sums)
    return sums


@njit(cache=True, nogil=True)
def _column_sums(columns: np.ndarray, rows: np.ndarray, active: np.ndarray,
                 whole: bool, stops: np.ndarray, cost: np.ndarray, lo: int, hi: int,
                 sums: np.ndarray) -> None:
    """column_sums' entries lo..hi-1, written into `sums` (`whole`: `active` is every
    query in order, read straight)."""
    n, nc = rows.shape[0], stops.shape[1]
    counts = np.zeros((COLUMN_BLOCK, nc), dtype=np.int64)
    for b0 in range(lo, hi, COLUMN_BLOCK):
        b1 = min(b0 + COLUMN_BLOCK, hi)
        for j in range(n):
            row = columns[rows[j]]
            if whole:  # in order: 1.35x faster than through `active`
                for a in range(b0, b1):
                    counts[a - b0, row[a]] += 1
            else:
                for a in range(b0, b1):
                    counts[a - b0, row[active[a]]] += 1
        for a in range(b0, b1):
            q = active[a]
            total, largest = 0.0, 0
            for c in range(nc):
                k = counts[a - b0, c]
                if k > 0:
                    counts[a - b0, c] = 0
                    if not stops[q, c]:
                        total += cost[k]
                        if k > largest:
                            largest = k
            sums[a] = total if largest < n else np.inf


@parallel.threaded(cache=True, nogil=True)
def _column_sums_split(columns: np.ndarray, rows: np.ndarray, active: np.ndarray,
                       whole: bool, stops: np.ndarray, cost: np.ndarray, sums: np.ndarray,
                       pieces: int) -> None:
    na = active.shape[0]
    for k in prange(pieces):
        _column_sums(columns, rows, active, whole, stops, cost, k * na // pieces,
                     (k + 1) * na // pieces, sums)


def column_sums(columns: np.ndarray, rows: np.ndarray, active: np.ndarray,
                stops: np.ndarray, cost: np.ndarray, pieces: int | None = None) -> np.ndarray:
    """going_sums read by hypothesis: row `rows[j]` of `columns` holds the set's j-th
    hypothesis's code on every query, `stops` a row per query; one sum per query of
    `active`. The part sizes of COLUMN_BLOCK queries are counted side by side as each
    hypothesis's codes are streamed, and a query's parts are summed in code order. The
    row cache of codes made on demand holds codes so (outcome_rows.py), and the pass
    reads its rows where they are: turning a set's block of them the other way, or
    gathering some queries' codes row by row, would cost more than the pass itself
    (docs/solver.md). The queries are cut in `pieces`
    runs, one per thread (None: as threads.pieces says)."""
    if pieces is None:
        pieces = parallel.pieces(rows.shape[0] * active.shape[0])
    nq = columns.shape[1]
    whole = len(active) == nq and bool((active == np.arange(nq)).all())
    sums = np.empty(active.shape[0], dtype=np.float64)
    if pieces > 1:
        _column_sums_split(columns, rows, active, whole, stops, cost, sums, pieces)
    else:
        _column_sums(columns, rows, active, whole, stops, cost, 0, active.shape[0], sums)
    return sums


@njit(cache=True, nogil=True)
def _keys(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray, active: np.ndarray,
          lo: int, hi: int, keys: np.ndarray) -> None:
    """A hash (FNV-1a) of the rows of queries active[lo:hi] at `hyps` (each code, and
    whether it ends the game), into `keys`."""
    for a in range(lo, hi):
        q = active[a]
        row = codes[q]
        h = np.uint64(FNV64_OFFSET)
        for j in range(hyps.shape[0]):
            c = row[hyps[j]]
            h = fnv64(h, np.uint64(2 * c + (1 if stops[q, c] else 0) + 1))
        keys[a] = h


@parallel.threaded(cache=True, nogil=True)
def _keys_split(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray, active: np.ndarray,
                keys: np.ndarray, pieces: int) -> None:
    na = active.shape[0]
    for k in prange(pieces):
        _keys(codes, hyps, stops, active, k * na // pieces, (k + 1) * na // pieces, keys)


def distinct_rows(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                  active: np.ndarray, pieces: int | None = None) -> np.ndarray:
    """The queries of `active` (ascending) whose rows at `hyps` -- each hypothesis's code
    and whether it ends the game -- no earlier query of `active` has: a query dropped
    has the same parts as one kept, at `hyps` and at every subset of it. Rows are
    hashed (over `pieces` threads; None: as threads.pieces says), and rows with equal
    hashes compared in full."""
    if pieces is None:
        pieces = parallel.pieces(hyps.shape[0] * active.shape[0])
    keys = np.empty(active.shape[0], dtype=np.uint64)
    if pieces > 1:
        _keys_split(codes, hyps, stops, active, keys, pieces)
    else:
        _keys(codes, hyps, stops, active, 0, active.shape[0], keys)
    return _distinct_by_keys(codes, hyps, stops, active, keys)


@njit(cache=True, nogil=True)
def _open_table(na: int) -> tuple[np.ndarray, int]:
    """An empty open-addressed table for `na` keys (slots -1), at most half full, and
    the bits of its size."""
    bits = 1
    while (1 << bits) < 2 * na:
        bits += 1
    return np.full(1 << bits, -1, dtype=np.int64), bits


@njit(cache=True, nogil=True)
def _home(key: int, bits: int) -> int:
    """A key's first slot in a table of 2^bits: the top bits of the key times 2^64 /
    golden ratio (any key width)."""
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))


@njit(cache=True, nogil=True)
def _distinct_by_keys(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                      active: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """distinct_rows, given each query's row hash (`keys`, by position in `active`; 32
    or 64 bits): the queries in order, each into an open-addressed table by its hash
    (no sort), and one that meets an equal hash there compared in full with that
    query, code by code and game end by game end."""
    na, n = active.shape[0], hyps.shape[0]
    slots, bits = _open_table(na)  # a kept query's position in `active`
    size = slots.shape[0]
    keep = np.zeros(na, dtype=np.bool_)
    for a in range(na):
        qa, key = active[a], keys[a]
        i = _home(key, bits)
        while True:
            b = slots[i]
            if b < 0:
                slots[i] = a
                keep[a] = True
                break
            if keys[b] == key:
                qb, same = active[b], True
                for j in range(n):
                    c = codes[qa, hyps[j]]
                    if c != codes[qb, hyps[j]] or stops[qa, c] != stops[qb, c]:
                        same = False
                        break
                if same:
                    break
            i = (i + 1) & (size - 1)
    return active[keep]


@njit(cache=True, nogil=True)
def codes_met(codes: np.ndarray, ncodes: int) -> np.ndarray:
    """Which of `ncodes` codes each query's row of `codes` (queries x hypotheses) holds:
    (queries x ncodes), read hypothesis by hypothesis (the table is stored so)."""
    nq, nh = codes.shape
    met = np.zeros((nq, ncodes), dtype=np.bool_)
    for h in range(nh):
        for q in range(nq):
            met[q, codes[q, h]] = True
    return met


@njit(cache=True, nogil=True)
def marked_counts(codes: np.ndarray, marks: np.ndarray) -> np.ndarray:
    """For each query q (a row of `codes`, queries x hypotheses), how many hypotheses it
    gives a code c with marks[q, c]."""
    nq, nh = codes.shape
    out = np.zeros(nq, dtype=np.int64)
    for h in range(nh):
        for q in range(nq):
            out[q] += marks[q, codes[q, h]]
    return out


__all__ = ["COLUMN_BLOCK", "codes_met", "column_sums", "distinct_rows", "going_sums",
           "least_bounds", "marked_counts", "part_sizes", "true_at"]

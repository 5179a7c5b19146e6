"""The search's per-set floor read from the outcome table by hypothesis (its columns):
the same least lower bounds as `outcome_kernels.least_bounds`, for every query at once.

`least_bounds` reads, query by query, each hypothesis's code in that query's row: at
sets of 10 to 30 codes in a table of thousands of hypotheses, one row per query and a
cache line per code, the pass waits on memory (about 4 ns a code). Here the table is
read the other way: for each hypothesis of the set, its column (every query's code on it, one
byte each, in query order) is streamed once, and the part sizes of a block of BLOCK
queries are counted side by side, one counter per (code, query). The bounds are then
taken over the block with no table look-up, in byte-wide lanes the compiler turns into
vector instructions: for a set of at most MAX_SET hypotheses, the size bound is written

    lb_total[k] = a k + b [k > 0] + sum over knots K of g_K max(0, k - K),  k <= MAX_SET

(`Shape.of` finds a, b and the knots from the bound itself; a convex bound, as those of
search/bounds.py, has a few knots), so a query's bound at a set of n is

    n + a (its secrets in going parts) + b (its going parts) + sum g_K (excess over K),

each term a sum over the codes of a byte, and the depth bound is 1 + lb_worst[its
largest going part] (lb_worst does not decrease). With at most BY_CODE codes (those that
occur, renumbered: `Columns`), the sizes are counted code by code, four secrets at a
time, in byte lanes too. The measured gains are in docs/solver.md ("Floors read by
hypothesis"; benchmarks/column_floors.py).

Every query of the table is scanned, not only the search's `active` ones: the caller
guarantees that each query outside `active` parts the set as one inside does (a copy
at a superset, or a symmetry's image, OptimalSearch.floor), so the least is the same.
`ColumnFloors.pays` says where the row-wise pass is cheaper instead: a set of more
than MAX_SET, or few active queries against the whole table (a stabiliser's orbit
representatives near the root). The distinct rows (`distinct_by_columns`) are hashed
by column the same way. The exact kernel (search/compiled.py) reads a set's per-query
scores from the same block pass (`_scores`, by `column_pays`) and finds its distinct
queries with `_distinct` (by `hashes_pay`). The answers are equal either way
(tests/test_column_kernels.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from sleuth.compiler.api import parallel
from sleuth.solver.infoset.hashing import FNV32_OFFSET, fnv32
from sleuth.solver.infoset.outcome_kernels import (
    _distinct_by_keys,
    _home,
    _keys,
    _open_table,
    true_at,
)

BLOCK = 256  # queries counted side by side: (codes x BLOCK) counters stay in cache
MAX_SET = 255  # the largest set read this way: every counter and sum fits in a byte
MAX_KNOTS = 8  # a size bound with more changes of slope below MAX_SET is not written so
BY_CODE = 32  # with at most this many codes, part sizes are counted code by code
HASH_BLOCK = 2048  # queries hashed side by side
# Measured costs (ns) that pick the pass: a code read row by row, a code read by column
# (counted at each query's code; counting code by code is cheaper, so the column pass is
# chosen a little less often than it would pay), a code of the feedback per query (the
# bounds over a block), a code hashed by column
ROW_NS, COLUMN_NS, CODE_NS, HASH_NS = 4.0, 0.9, 0.1, 0.5


class Shape:
    """lb_total on 0..MAX_SET as a k + b [k > 0] + sum_K g_K max(0, k - K)."""

    def __init__(self, a: int, b: int, knots: np.ndarray, gains: np.ndarray):
        self.a, self.b = np.int32(a), np.int32(b)
        self.knots, self.gains = knots.astype(np.int32), gains.astype(np.int32)

    @classmethod
    def of(cls, lb_total: np.ndarray, lb_worst: np.ndarray) -> Shape | None:
        """The shape of a size bound, checked to give back every value; None when it has
        more than MAX_KNOTS, or the depth bound decreases somewhere (then the largest
        part alone does not give it)."""
        upto = min(MAX_SET, len(lb_total) - 1)
        if upto < 2:
            return None
        worst = lb_worst[:upto + 1]
        if worst[0] != 0 or np.any(np.diff(worst) < 0):
            return None
        lb = lb_total[:upto + 1].astype(np.int64)
        slope = np.diff(lb)  # slope[k - 1] = lb[k] - lb[k - 1]
        a, b = int(slope[1]), int(lb[1] - slope[1])
        change = np.diff(slope[1:])  # at k = 3..upto: the slope into k less that into k-1
        where = np.flatnonzero(change)
        if len(where) > MAX_KNOTS:
            return None
        shape = cls(a, b, where + 2, change[where])
        k = np.arange(upto + 1)
        again = a * k + b * (k > 0) + sum(
            (int(g) * np.maximum(0, k - int(knot)) for knot, g in
             zip(shape.knots, shape.gains, strict=True)), np.zeros_like(k))
        return shape if np.array_equal(again, lb) else None


@njit(cache=True, nogil=True)
def column_pays(n: int, rows: int, queries: int, codes: int) -> bool:
    """Whether reading all `queries` of the table by column (`codes` codes) beats
    reading `rows` of them row by row at a set of n, by the measured costs."""
    return n <= MAX_SET and ROW_NS * n * rows > queries * (COLUMN_NS * n + CODE_NS * codes)


@njit(cache=True, nogil=True)
def _lanes(nc: int, nknots: int) -> tuple:
    """A block pass's scratch arrays, BLOCK lanes each: the part sizes (codes x BLOCK),
    the secrets in going parts, the going parts, the largest going part, each knot's
    excess (knots x BLOCK), and the size bound's sum over the going parts (each set by
    `_pass` before it is read, block by block)."""
    return (np.empty((nc, BLOCK), dtype=np.uint8), np.empty(BLOCK, dtype=np.uint8),
            np.empty(BLOCK, dtype=np.uint8), np.empty(BLOCK, dtype=np.uint8),
            np.empty((nknots, BLOCK), dtype=np.uint8), np.empty(BLOCK, dtype=np.int32))


@njit(cache=True, nogil=True)
def _below(knots: np.ndarray, n: int) -> int:
    """How many knots are below n (a knot at n or above adds 0 at a set of n)."""
    nk = 0
    while nk < knots.shape[0] and knots[nk] < n:
        nk += 1
    return nk


@njit(cache=True, nogil=True)
def _pass(columns: np.ndarray, hyps: np.ndarray, going: np.ndarray, a: np.int32,
          b: np.int32, knots: np.ndarray, gains: np.ndarray, lb_total: np.ndarray,
          lb_worst: np.ndarray, allowed: np.ndarray, none: int, lo: int, hi: int,
          out: np.ndarray) -> tuple[int, int]:
    """The queries lo..hi-1 at `hyps`, a block of BLOCK at a time: for each, its secrets
    in going parts, its going parts, its largest going part and its size bound's sum
    over them (in the lanes, `_lanes`). With `out` (4 x queries), each query's scores are
    written there, as `_scores` gives them; with `out` empty, the least bounds over the
    allowed useful queries are returned (not yet raised to the set's own size bounds),
    and the pass ends once both reach those (`_least`).

    The blocks are counted here, in one function, with no call inside the loop: a call
    given arrays (and an array view) takes and drops a reference count on each, two
    atomic calls. A call per block cost MM(4,7) 4.6% of its time in those calls (its
    floors are read by column 251,708 times, up to ten blocks each; docs/results.md,
    "Reference counts")."""
    n, nc = hyps.shape[0], going.shape[0]
    count, inside, parts, largest, excess, total = _lanes(nc, knots.shape[0])
    nk = _below(knots, n)
    scores = out.shape[0] > 0
    best_total, best_worst = none, none
    top, size = np.int32(2**31 - 1), np.uint8(n)
    one, zero = np.uint8(1), np.uint8(0)
    for start in range(lo, hi, BLOCK):
        w = min(hi, start + BLOCK) - start
        first = np.uint64(start)  # (an unsigned index is not wrapped, so it is vectorised)
        for c in range(nc):
            for r in range(w):
                count[c, r] = 0
        if nc <= BY_CODE:  # code by code, four secrets at a time: compare and add in byte
            # lanes, where adding at each query's code cannot be vectorised
            j = 0
            while j + 4 <= n:
                s0 = columns[hyps[j], start:start + w]
                s1 = columns[hyps[j + 1], start:start + w]
                s2 = columns[hyps[j + 2], start:start + w]
                s3 = columns[hyps[j + 3], start:start + w]
                for c in range(nc):
                    code = np.uint8(c)
                    for r in range(w):
                        count[c, r] += ((one if s0[r] == code else zero)
                                        + (one if s1[r] == code else zero)
                                        + (one if s2[r] == code else zero)
                                        + (one if s3[r] == code else zero))
                j += 4
            for i in range(j, n):  # the last one to three
                s0 = columns[hyps[i], start:start + w]
                for c in range(nc):
                    code = np.uint8(c)
                    for r in range(w):
                        count[c, r] += one if s0[r] == code else zero
        else:
            for j in range(n):
                column = columns[hyps[j]]
                for r in range(w):
                    count[column[start + r], r] += 1
        for r in range(w):
            inside[r] = 0
            parts[r] = 0
            largest[r] = 0
        for t in range(nk):
            for r in range(w):
                excess[t, r] = 0
        for c in range(nc):
            for r in range(w):
                k = count[c, r] & going[c, first + np.uint64(r)]  # going: 255, or 0 at a stop
                inside[r] += k
                parts[r] += k != 0
                largest[r] = largest[r] if largest[r] > k else k
            for t in range(nk):
                knot = np.uint8(knots[t])
                for r in range(w):
                    k = count[c, r] & going[c, first + np.uint64(r)]
                    excess[t, r] += k - knot if k > knot else zero
        for r in range(w):
            total[r] = a * np.int32(inside[r]) + b * np.int32(parts[r])
        for t in range(nk):
            g = gains[t]
            for r in range(w):
                total[r] += g * np.int32(excess[t, r])
        if scores:
            for r in range(w):
                out[0, start + r] = n + total[r]
                out[1, start + r] = 1 + lb_worst[largest[r]]
                out[2, start + r] = largest[r] < size  # useful: it splits the set or ends some
                out[3, start + r] = inside[r] < size  # it ends the game for some
            continue
        least, deepest = top, np.uint8(255)
        for r in range(w):  # allowed, and it splits the set or ends the game for some:
            use = allowed[first + np.uint64(r)] & (largest[r] < size)
            t = total[r] if use else top
            least = t if t < least else least
            d = largest[r] if use else np.uint8(255)
            deepest = d if d < deepest else deepest
        if least < top:
            best_total = min(best_total, n + int(least))
            best_worst = min(best_worst, 1 + int(lb_worst[deepest]))
        if best_total <= lb_total[n] and best_worst <= lb_worst[n]:
            break
    return best_total, best_worst


@njit(cache=True, nogil=True)
def _least(columns: np.ndarray, hyps: np.ndarray, going: np.ndarray, a: np.int32,
           b: np.int32, knots: np.ndarray, gains: np.ndarray, lb_total: np.ndarray,
           lb_worst: np.ndarray, allowed: np.ndarray, none: int, lo: int,
           hi: int) -> tuple[int, int]:
    """The least bounds over the allowed useful queries lo..hi-1 (not yet raised to the
    set's own size bounds), block by block; ends once both reach those."""
    return _pass(columns, hyps, going, a, b, knots, gains, lb_total, lb_worst, allowed,
                 none, lo, hi, np.empty((0, 0), dtype=np.int64))


@njit(cache=True, nogil=True)
def _scores(columns: np.ndarray, hyps: np.ndarray, going: np.ndarray, a: np.int32,
            b: np.int32, knots: np.ndarray, gains: np.ndarray, lb_worst: np.ndarray,
            cand: np.ndarray, none: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray]:
    """Each query of `cand`'s lower bounds on the total and the depth at `hyps` (at most
    MAX_SET), whether it is useful (splits the set or ends the game for some of it) and
    whether it ends the game for some: as the kernels' row pass (outcome_kernels._score)
    gives them, read by column for every query of the table.

    `none` is not read here: a kernel that also calls `_least` passes the same constant
    it gives `_least` (and 0 is the first query for both), so that numba compiles one
    `_pass` for the two. numba compiles a copy for each literal constant, which lets it
    fold the constant where a typed value would be read at run time."""
    nq = columns.shape[1]
    out = np.empty((4, nq), dtype=np.int64)
    # (the size bound and the allowed queries are read only for the least: none here)
    _pass(columns, hyps, going, a, b, knots, gains, lb_worst, lb_worst,
          np.empty(0, dtype=np.bool_), none, 0, nq, out)
    return out[0][cand], out[1][cand], out[2][cand] != 0, out[3][cand] != 0


@parallel.threaded(cache=True, nogil=True)
def _least_split(columns: np.ndarray, hyps: np.ndarray, going: np.ndarray, a: np.int32,
                 b: np.int32, knots: np.ndarray, gains: np.ndarray, lb_total: np.ndarray,
                 lb_worst: np.ndarray, allowed: np.ndarray, none: int,
                 pieces: int) -> tuple[int, int]:
    """_least with the queries cut in `pieces` runs of whole blocks, one per thread."""
    nq = columns.shape[1]
    blocks = (nq + BLOCK - 1) // BLOCK
    totals = np.empty(pieces, dtype=np.int64)
    worsts = np.empty(pieces, dtype=np.int64)
    for k in prange(pieces):
        lo = min(nq, k * blocks // pieces * BLOCK)
        hi = min(nq, (k + 1) * blocks // pieces * BLOCK)
        totals[k], worsts[k] = _least(columns, hyps, going, a, b, knots, gains, lb_total,
                                      lb_worst, allowed, none, lo, hi)
    return totals.min(), worsts.min()


@njit(cache=True, nogil=True)
def _hashes(columns: np.ndarray, hyps: np.ndarray, keys: np.ndarray, lo: int,
            hi: int) -> None:
    """A 32-bit FNV-1a hash of the codes of queries lo..hi-1 at `hyps`, into `keys`, a
    block of HASH_BLOCK queries at a time."""
    for start in range(lo, hi, HASH_BLOCK):
        end = min(hi, start + HASH_BLOCK)
        for r in range(start, end):
            keys[r] = np.uint32(FNV32_OFFSET)
        for j in range(hyps.shape[0]):
            column = columns[hyps[j]]
            for r in range(start, end):
                keys[r] = fnv32(keys[r], np.uint32(column[r] + 1))


@parallel.threaded(cache=True, nogil=True)
def _hashes_split(columns: np.ndarray, hyps: np.ndarray, keys: np.ndarray,
                  pieces: int) -> None:
    nq = columns.shape[1]
    for k in prange(pieces):
        _hashes(columns, hyps, keys, k * nq // pieces, (k + 1) * nq // pieces)


@njit(cache=True, nogil=True)
def hashes_pay(active: int, queries: int) -> bool:
    """Whether hashing every query's codes by column beats hashing `active` rows (by the
    measured costs; both read the set's codes once per query)."""
    return ROW_NS * active > HASH_NS * queries


@njit(cache=True, nogil=True)
def _alike(hyps: np.ndarray, active: np.ndarray, keys: np.ndarray, columns: np.ndarray,
           ends: np.ndarray) -> tuple[bool, np.ndarray]:
    """outcome_kernels._distinct_by_keys with its comparisons made by column: which of
    the queries `active` (in order) are kept, the first of each row. Each query is
    paired, by its hash alone (`keys`, by position in `active`), with the first kept
    query of that hash; then every pair is compared at once, hypothesis by hypothesis,
    each hypothesis's column (its codes in query order) read once, where comparing row
    against row reads two cache lines a code (MM(4,8): 7.5% of the search). `ends[c,
    q]` says, alike for queries that agree on it, whether code c ends the game after
    query q. (False, ...) when a pair differs: two rows with one hash, or alike in
    codes but not in where the game ends (the hash reads codes only); the caller then
    compares row by row."""
    na, n = active.shape[0], hyps.shape[0]
    slots, bits = _open_table(na)  # a kept query's position in `active`
    size = slots.shape[0]
    first = np.full(na, -1, dtype=np.int64)  # the kept query each one is paired with
    for a in range(na):
        key = keys[a]
        i = _home(key, bits)
        while True:
            b = slots[i]
            if b < 0:
                slots[i] = a
                break
            if keys[b] == key:
                first[a] = b
                break
            i = (i + 1) & (size - 1)
    pairs = true_at(first >= 0)
    qa, qb = active[pairs], active[first[pairs]]
    for j in range(n):
        column = columns[hyps[j]]
        for p in range(pairs.shape[0]):
            c = column[qa[p]]
            if c != column[qb[p]] or ends[c, qa[p]] != ends[c, qb[p]]:
                return False, first < 0
    return True, first < 0


@njit(cache=True, nogil=True)
def _distinct(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray, active: np.ndarray,
              columns: np.ndarray, going: np.ndarray) -> np.ndarray:
    """outcome_kernels.distinct_rows in one thread, in compiled code: the rows hashed and
    compared by column (`columns`, the table by hypothesis, and `going`, as ColumnFloors
    keeps them; none: no rows) where that pays (`_alike`), else row by row."""
    nq = codes.shape[0]
    if columns.shape[0] and hashes_pay(active.shape[0], nq):
        keys = np.empty(nq, dtype=np.uint32)
        _hashes(columns, hyps, keys, 0, nq)
        whole, kept = _alike(hyps, active, keys[active], columns, going)
        return active[kept] if whole else _distinct_by_keys(codes, hyps, stops, active,
                                                            keys[active])
    hashes = np.empty(active.shape[0], dtype=np.uint64)
    _keys(codes, hyps, stops, active, 0, active.shape[0], hashes)
    return _distinct_by_keys(codes, hyps, stops, active, hashes)


def distinct_by_columns(columns: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                        active: np.ndarray, pieces: int | None = None) -> np.ndarray:
    """outcome_kernels.distinct_rows with the rows hashed by column, every query's (then
    those of `active` looked up, in order, the first of each row kept): the same
    queries, since rows with equal hashes are compared in full, codes and game ends."""
    n, nq = hyps.shape[0], columns.shape[1]
    if pieces is None:
        pieces = parallel.pieces(int(n * nq * HASH_NS / ROW_NS))
    keys = np.empty(nq, dtype=np.uint32)
    if pieces > 1:
        _hashes_split(columns, hyps, keys, pieces)
    else:
        _hashes(columns, hyps, keys, 0, nq)
    whole, kept = _alike(hyps, active, keys[active], columns, stops.T)
    if whole:
        return active[kept]
    # two rows with one hash: compared row by row, as distinct_rows does (the table by
    # query is the transpose, a view)
    return _distinct_by_keys(columns.T, hyps, stops, active, keys[active])


class Columns:
    """A dense table read by hypothesis: `codes` (hypotheses x queries, one byte each),
    renumbered 0..k-1 over the codes that occur (a table may number many codes that no
    query gives: the passes loop over codes), and `stops` (queries x those k
    codes), whether each ends the game."""

    def __init__(self, codes: np.ndarray, stops: np.ndarray):
        self.codes, self.stops = codes, stops

    @classmethod
    def of(cls, by_query: np.ndarray, stops: np.ndarray) -> Columns | None:
        """From the table by query (queries x hypotheses) and its stops; None when more
        than 256 codes occur."""
        present = np.zeros(stops.shape[1], dtype=bool)
        present[by_query.ravel(order="K")] = True  # (bincount widens a byte table first)
        used = np.flatnonzero(present)
        if len(used) > 256:
            return None
        label = np.zeros(stops.shape[1], dtype=np.uint8)
        label[used] = np.arange(len(used))
        # by hypothesis, each row contiguous whatever the table's order (the passes
        # read a hypothesis's codes for a run of queries)
        return cls(np.ascontiguousarray(label[by_query].T), np.ascontiguousarray(stops[:, used]))


class ColumnFloors:
    """OptimalSearch.floor's pass over the table's columns, for one search's bounds."""

    def __init__(self, columns: np.ndarray, stops: np.ndarray, shape: Shape,
                 lb_total: np.ndarray, lb_worst: np.ndarray):
        self.columns = columns  # (hypotheses x queries), one byte a code
        self.going = np.ascontiguousarray(np.where(stops.T, 0, 255).astype(np.uint8))
        self.shape = shape
        self.lb_total, self.lb_worst = lb_total, lb_worst

    @classmethod
    def make(cls, columns: np.ndarray, stops: np.ndarray, lb_total: np.ndarray,
             lb_worst: np.ndarray) -> ColumnFloors | None:
        """None when the bounds have no shape (`Shape.of`)."""
        shape = Shape.of(lb_total, lb_worst)
        return None if shape is None else cls(columns, stops, shape, lb_total, lb_worst)

    def pays(self, n: int, active: int) -> bool:
        """Whether reading every query by column beats reading `active` rows at a set
        of n (by the measured costs)."""
        return column_pays(n, active, self.columns.shape[1], self.going.shape[0])

    def least(self, hyps: np.ndarray, allowed: np.ndarray, none: int,
              pieces: int | None = None) -> tuple[int, int]:
        """outcome_kernels.least_bounds over every query of the table (at most MAX_SET
        hypotheses): the least bounds over the allowed useful ones, each raised to the
        set's own size bounds; (none, none) when there is none. `pieces`: runs of the
        queries, one per thread (None: as threads.pieces says, for the codes read)."""
        n, nq = hyps.shape[0], self.columns.shape[1]
        if n > MAX_SET:  # its counts would wrap round
            raise ValueError(f"a set of {n} is read by column only up to {MAX_SET}")
        s = self.shape
        if pieces is None:
            pieces = parallel.pieces(int(n * nq * COLUMN_NS / ROW_NS))
        args = (self.columns, hyps, self.going, s.a, s.b, s.knots, s.gains, self.lb_total,
                self.lb_worst, allowed, none)
        if pieces > 1:
            total, worst = _least_split(*args, pieces)
        else:
            total, worst = _least(*args, 0, nq)
        return max(int(total), int(self.lb_total[n])), max(int(worst), int(self.lb_worst[n]))


__all__ = ["BLOCK", "MAX_SET", "ColumnFloors", "Shape", "distinct_by_columns", "hashes_pay"]

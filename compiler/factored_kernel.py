"""The compiled count of a factor graph whose factors are all pairwise (numba): every
assignment of k parts that each part's mask, each pairwise table and each clause allows,
with the number of them that give each part each of its values (the marginals), in one
pass; or the assignments themselves, listed.

Values are bit sets: `masks[j]` the allowed values of part j (W 64-bit words), `B[i, j, v]`
the values of part j that value v of part i allows (all ones where no factor joins them).
A *clause* is a disjunction over parts, "part i takes a value of V_i or part j one of
V_j ...": `sig[i, v]` has bit c set when value v of part i satisfies clause c, and an
assignment counts only when the OR of its parts' signatures is `full`. `C[j, c]` is the bit
set of part j's values satisfying clause c (to prune a branch no part left can satisfy).

The walk assigns parts 0..k-3 depth first, each time intersecting the allowed sets of the
parts still open with the rows of the value chosen, and sums the last two parts x, y as
pairs: for each allowed value a of x, the allowed values of y that a allows (a popcount
of W words), and symmetrically for y's marginals. A branch ends as soon as a part has no
value left or a clause no part left can satisfy. Part 0's values are split into groups
walked in parallel (prange), each with its own marginals.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit, prange, types
from numba.extending import intrinsic

from sleuth.compiler.parallel import threaded

GROUPS = 32  # part-0 value groups walked in parallel (each with its own marginals)


@intrinsic
def _popcount(typingctx, x):  # noqa: ARG001 - numba's intrinsic signature
    """The number of set bits of a uint64 (llvm.ctpop: one instruction where the CPU has it)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [llvm_ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return types.uint64(types.uint64), codegen


@intrinsic
def _trailing(typingctx, x):  # noqa: ARG001
    """The index of the lowest set bit of a nonzero uint64 (llvm.cttz)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [llvm_ir.IntType(64),
                                                            llvm_ir.IntType(1)])
        return builder.call(fn, [args[0], llvm_ir.Constant(llvm_ir.IntType(1), 0)])

    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True)
def _bit(bits: np.ndarray, v: int) -> bool:
    return (bits[v >> 6] >> np.uint64(v & 63)) & np.uint64(1) != 0


@njit(cache=True, nogil=True)
def _one_side(ax: np.ndarray, ay: np.ndarray, x: int, y: int, s: np.uint64, full: np.uint64,
              B: np.ndarray, sig: np.ndarray, ynz: np.ndarray, n: int,
              marg: np.ndarray, add: bool, rows: np.ndarray, emitted: np.ndarray,
              prefix: np.ndarray) -> int:
    """Sum over the allowed values a of part x of the allowed values of part y that a
    allows and that, with signature s so far, satisfy every clause (each a's number added
    to marg[x, a] when `add`). When `rows` has room, each such pair (a, b) after `prefix`
    is written to it, in order (`emitted` counts the rows written)."""
    total = 0
    words = ax.shape[0]
    need0 = full & ~s
    listing = rows.shape[0] > 0
    for a in range(n):
        if not _bit(ax, a):
            continue
        need = need0 & ~sig[x, a]
        c = 0
        if need == 0 and not listing:
            for w in range(words):
                c += _popcount(ay[w] & B[x, y, a, w])
        else:  # pair by pair: with clauses open, only values of y that satisfy some
            for w in range(words):
                m = ay[w] & B[x, y, a, w]
                if need:
                    m &= ynz[w]
                while m:
                    b = w * 64 + _trailing(m)
                    m &= m - np.uint64(1)
                    if sig[y, b] & need == need:
                        c += 1
                        if listing and emitted[0] < rows.shape[0]:
                            rows[emitted[0], :x] = prefix[:x]
                            rows[emitted[0], x] = a
                            rows[emitted[0], y] = b
                            emitted[0] += 1
        if add:
            marg[x, a] += c
        total += c
    return total


@njit(cache=True, nogil=True)
def _walk(start: np.ndarray, sizes: np.ndarray, masks: np.ndarray, B: np.ndarray,
          sig: np.ndarray, C: np.ndarray, nonzero: np.ndarray, full: np.uint64,
          marg: np.ndarray, with_marg: bool, rows: np.ndarray) -> int:
    """Assignments of k >= 3 parts whose part 0 is in `start` (a bit set), each part's
    marginals added to marg (k x values) when `with_marg`, and each one written to `rows`
    (assignments x k, in order) when it has room for them."""
    k, words = masks.shape
    nclauses = C.shape[1]
    x, y = k - 2, k - 1
    allowed = np.zeros((k, k, words), dtype=np.uint64)
    acc = np.zeros(k + 1, dtype=np.uint64)
    cur = np.full(k, -1, dtype=np.int64)
    cnt = np.zeros(k, dtype=np.int64)
    for j in range(k):
        allowed[0, j] = masks[j]
    allowed[0, 0] &= start
    emitted = np.zeros(1, dtype=np.int64)  # rows written so far
    total = 0
    d = 0
    while True:
        if cur[d] >= 0:  # the value left: its count goes to its marginal and its parent
            if with_marg:
                marg[d, cur[d]] += cnt[d]
            if d == 0:
                total += cnt[d]
            else:
                cnt[d - 1] += cnt[d]
        v = cur[d] + 1
        while v < sizes[d] and not _bit(allowed[d, d], v):
            v += 1
        if v >= sizes[d]:
            cur[d] = -1
            if d == 0:
                break
            d -= 1
            continue
        cur[d] = v
        cnt[d] = 0
        s = acc[d] | sig[d, v]
        empty = False
        for j in range(d + 1, k):
            nz = np.uint64(0)
            for w in range(words):
                m = allowed[d, j, w] & B[d, j, v, w]
                allowed[d + 1, j, w] = m
                nz |= m
            if nz == 0:
                empty = True
                break
        if empty:
            continue
        need = full & ~s
        if need:  # each clause still open must be satisfiable by a part left
            for c in range(nclauses):
                if (need >> np.uint64(c)) & np.uint64(1):
                    ok = False
                    for j in range(d + 1, k):
                        for w in range(words):
                            if allowed[d + 1, j, w] & C[j, c, w]:
                                ok = True
                                break
                        if ok:
                            break
                    if not ok:
                        empty = True
                        break
            if empty:
                continue
        acc[d + 1] = s
        if d + 1 == x:
            ax, ay = allowed[d + 1, x], allowed[d + 1, y]
            cnt[d] += _one_side(ax, ay, x, y, s, full, B, sig, nonzero[y], sizes[x], marg,
                                with_marg, rows, emitted, cur)
            if with_marg:
                _one_side(ay, ax, y, x, s, full, B, sig, nonzero[x], sizes[y], marg, True,
                          rows[:0], emitted, cur)
            continue
        d += 1
        cur[d] = -1
    return total


@threaded(cache=True)
def _walk_groups(groups: np.ndarray, sizes: np.ndarray, masks: np.ndarray, B: np.ndarray,
                 sig: np.ndarray, C: np.ndarray, nonzero: np.ndarray, full: np.uint64,
                 with_marg: bool) -> tuple[np.ndarray, np.ndarray]:
    g = groups.shape[0]
    k = masks.shape[0]
    totals = np.zeros(g, dtype=np.int64)
    margs = np.zeros((g, k, sig.shape[1]), dtype=np.int64)
    rows = np.zeros((0, k), dtype=np.int64)
    for i in prange(g):
        totals[i] = _walk(groups[i], sizes, masks, B, sig, C, nonzero, full, margs[i],
                          with_marg, rows)
    return totals, margs


@njit(cache=True, nogil=True)
def _pairs(sizes: np.ndarray, masks: np.ndarray, B: np.ndarray, sig: np.ndarray,
           nonzero: np.ndarray, full: np.uint64, marg: np.ndarray, with_marg: bool) -> int:
    emitted, prefix = np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64)
    none = np.zeros((0, 2), dtype=np.int64)  # counting, not listing
    total = _one_side(masks[0], masks[1], 0, 1, np.uint64(0), full, B, sig, nonzero[1],
                      sizes[0], marg, with_marg, none, emitted, prefix)
    if with_marg:
        _one_side(masks[1], masks[0], 1, 0, np.uint64(0), full, B, sig, nonzero[0],
                  sizes[1], marg, True, none, emitted, prefix)
    return total


def count_pairwise(sizes: np.ndarray, masks: np.ndarray, B: np.ndarray, sig: np.ndarray,
                   C: np.ndarray, full: int, with_marg: bool = True
                   ) -> tuple[int, np.ndarray, np.ndarray]:
    """(assignments, marginals (k x values, int64), assignments per group of part-0
    values) of k >= 2 parts: see the module."""
    k, words = masks.shape
    nonzero = _nonzero(sig, words)
    full64 = np.uint64(full)
    if k == 2:
        marg = np.zeros((k, sig.shape[1]), dtype=np.int64)
        n = int(_pairs(sizes, masks, B, sig, nonzero, full64, marg, with_marg))
        return n, marg, np.array([n])
    groups = _groups(masks[0], int(sizes[0]), words)
    totals, margs = _walk_groups(groups, sizes, masks, B, sig, C, nonzero, full64, with_marg)
    return int(totals.sum()), margs.sum(axis=0), totals


LIST_BYTES = 1 << 28  # rows a listing gives each group before it counts the groups first


def list_pairwise(sizes: np.ndarray, masks: np.ndarray, B: np.ndarray, sig: np.ndarray,
                  C: np.ndarray, full: int, n: int, totals: np.ndarray | None = None
                  ) -> np.ndarray:
    """Every assignment (n of them), as rows of value indices, in lexicographic order:
    each group of part-0 values listed in parallel, into rows of its own (room for all
    n each while that fits LIST_BYTES; else into its share, `totals` per group, counted
    first when not given)."""
    k, words = masks.shape
    full64 = np.uint64(full)
    nonzero = _nonzero(sig, words)
    if k == 2:
        rows = np.zeros((n, k), dtype=np.int64)
        _one_side(masks[0], masks[1], 0, 1, np.uint64(0), full64, B, sig, nonzero[1],
                  int(sizes[0]), np.zeros((k, sig.shape[1]), dtype=np.int64), False, rows,
                  np.zeros(1, dtype=np.int64), np.zeros(k, dtype=np.int64))
        return rows
    groups = _groups(masks[0], int(sizes[0]), words)
    if len(groups) * n * k * 8 <= LIST_BYTES:
        room = np.zeros((len(groups), n, k), dtype=np.int64)
        found = _list_groups(groups, sizes, masks, B, sig, C, nonzero, full64, room)
        rows = np.concatenate([room[i, :found[i]] for i in range(len(groups))])
    else:
        if totals is None:
            totals = _walk_groups(groups, sizes, masks, B, sig, C, nonzero, full64, False)[0]
        offsets = np.concatenate([[0], np.cumsum(totals)])
        rows = np.zeros((n, k), dtype=np.int64)
        _list_shares(groups, offsets, sizes, masks, B, sig, C, nonzero, full64, rows)
    return rows[np.lexsort(rows.T[::-1])]


@threaded(cache=True)
def _list_groups(groups: np.ndarray, sizes: np.ndarray, masks: np.ndarray, B: np.ndarray,
                 sig: np.ndarray, C: np.ndarray, nonzero: np.ndarray, full: np.uint64,
                 room: np.ndarray) -> np.ndarray:
    k = masks.shape[0]
    found = np.zeros(groups.shape[0], dtype=np.int64)
    for i in prange(groups.shape[0]):
        marg = np.zeros((k, sig.shape[1]), dtype=np.int64)
        found[i] = _walk(groups[i], sizes, masks, B, sig, C, nonzero, full, marg, False,
                         room[i])
    return found


@threaded(cache=True)
def _list_shares(groups: np.ndarray, offsets: np.ndarray, sizes: np.ndarray,
                 masks: np.ndarray, B: np.ndarray, sig: np.ndarray, C: np.ndarray,
                 nonzero: np.ndarray, full: np.uint64, rows: np.ndarray) -> None:
    k = masks.shape[0]
    for i in prange(groups.shape[0]):
        marg = np.zeros((k, sig.shape[1]), dtype=np.int64)
        _walk(groups[i], sizes, masks, B, sig, C, nonzero, full, marg, False,
              rows[offsets[i]:offsets[i + 1]])


def _groups(first: np.ndarray, n: int, words: int) -> np.ndarray:
    """Part 0's allowed values dealt into GROUPS bit sets (walked in parallel)."""
    values = np.flatnonzero(unpack(first, n))
    groups = np.zeros((min(GROUPS, max(1, len(values))), words), dtype=np.uint64)
    for i in range(len(groups)):
        groups[i] = pack(values[i::len(groups)], words)
    return groups


def _nonzero(sig: np.ndarray, words: int) -> np.ndarray:
    """Per part, the bit set of its values that satisfy some clause."""
    return np.array([pack(np.flatnonzero(row != 0), words) for row in sig],
                    dtype=np.uint64).reshape(len(sig), words)


def pack(values: np.ndarray, words: int) -> np.ndarray:
    """The bit set (words x 64 bits) of the given value indices."""
    bits = np.zeros(words * 64, dtype=bool)
    bits[np.asarray(values, dtype=np.int64)] = True
    return np.packbits(bits, bitorder="little").view(np.uint64).copy()


def unpack(bits: np.ndarray, n: int) -> np.ndarray:
    """The booleans (n) of a bit set."""
    as_bytes = np.ascontiguousarray(bits).view(np.uint8)
    return np.unpackbits(as_bytes, bitorder="little")[:n].astype(bool)


__all__ = ["count_pairwise", "list_pairwise", "pack", "unpack"]

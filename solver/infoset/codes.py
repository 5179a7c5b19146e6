"""Feedback codes kept between decisions, and part counts from them.

A kept block is compact and by hypothesis: entry [h, q] is the place of query q's code
on hypothesis h in `book` (the codes that occur, in order), one byte when at most 256
codes occur. Two kinds share one interface, `cut(index, positions)` (labels of the
queries at `positions` on the hypotheses `index`, or None: compute those with the
kernels) and `book`:

    CodeMatrix  every row, computed once (by the kernels, or from one row per orbit
                through `symmetry.orbit_matrix`) when the whole fits half the memory
                budget
    RowCache    rows made on demand from one row per orbit (`symmetry.Links`: a
                hypothesis's row is a permuted copy of its parent's) and kept up to
                the budget, least recently used out first: for games whose matrix
                does not fit (32,768 queries x 32,768 secrets: 1 GiB against 256 MiB)

Counting parts from labels adds one hypothesis at a time (a fancy-indexed add over
all queries) when there are fewer hypotheses than queries, a bincount otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sleuth.compiler.api import Game

RELABEL_RADIX = 4096  # above this many feedback codes, count parts after relabelling
MIN_ROWS = 256  # a row cache holding fewer rows than this is not worth keeping


def compact(codes: np.ndarray) -> tuple[np.ndarray, np.dtype, np.ndarray]:
    """(book, dtype, labels): the distinct codes, sorted, and each code's place in the book
    (as `codes`, in the smallest dtype that holds them). No table over the code space: a
    feedback's codes may run to billions."""
    book, places = np.unique(codes, return_inverse=True)
    dtype = np.dtype(np.uint8 if len(book) <= 1 << 8 else np.uint16
                     if len(book) <= 1 << 16 else np.int64)
    return book, dtype, places.reshape(codes.shape).astype(dtype)


def rows_that_fit(game: Game, queries: int, dtype: np.dtype) -> int:
    """How many rows of `queries` labels fit half the memory budget."""
    return (game.budget.memory_bytes // 2) // max(1, queries * dtype.itemsize)


@dataclass
class CodeMatrix:
    """Every hypothesis's row of labels (see the module's text)."""

    data: np.ndarray  # (hypotheses, queries)
    book: np.ndarray

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    def cut(self, index: np.ndarray, positions: np.ndarray, queries: int) -> np.ndarray:
        """Labels (len(index), len(positions))."""
        if len(positions) == queries:
            return self.data[index]
        return cut_rows(self.data, index, positions)

    def held(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, places): the hypotheses `index`'s rows of labels are rows[places], in
        place (no copy)."""
        return self.data, index


class RowCache:
    """Rows of labels made on demand from one row per orbit, at most `capacity` kept."""

    def __init__(self, tree: Any, first: np.ndarray, book: np.ndarray, capacity: int):
        self.tree, self.book, self.capacity = tree, book, capacity
        hyps, queries = len(tree.parent), first.shape[1]
        self.first_of = np.full(hyps, -1, dtype=np.int64)
        self.first_of[tree.firsts] = np.arange(len(tree.firsts))
        self.first, self.dtype = first, first.dtype
        self.slab = np.empty((capacity, queries), dtype=first.dtype)
        self.slot = np.full(hyps, -1, dtype=np.int64)
        self.owner = np.full(capacity, -1, dtype=np.int64)
        self.stamp = np.zeros(capacity, dtype=np.int64)
        self.clock = 0

    def cut(self, index: np.ndarray, positions: np.ndarray, queries: int) -> np.ndarray | None:
        """Labels (len(index), len(positions)); None for a set too large to hold."""
        got = self.held(index)
        if got is None:
            return None
        slab, slots = got
        if len(positions) == queries:
            return slab[slots]
        return cut_rows(slab, slots, positions)

    def held(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(rows, places): the hypotheses `index`'s rows of labels are rows[places], made
        where missing and held in the slab; None for a set too large to hold."""
        if 2 * len(index) > self.capacity:
            return None
        self.clock += 2  # this request's rows: clock; rows made on the way: clock - 1
        have = self.slot[index]
        self.stamp[have[have >= 0]] = self.clock
        for h in index[have < 0].tolist():
            self._make(h)
        return self.slab, self.slot[index]

    def _row(self, h: int) -> np.ndarray | None:
        if self.first_of[h] >= 0:
            return self.first[self.first_of[h]]
        return self.slab[self.slot[h]] if self.slot[h] >= 0 else None

    def _make(self, h: int) -> None:
        """Make h's row from its nearest ancestor at hand, keeping the rows made on the
        way while there is room that no row of this request holds."""
        chain, at = [], h
        while (row := self._row(at)) is None:
            chain.append(at)
            at = int(self.tree.parent[at])
        if not chain:  # made on the way earlier in this request, or an orbit's first row
            if self.slot[h] >= 0:
                self.stamp[self.slot[h]] = self.clock
            else:
                self._keep(h, row, must=True)
        for node in reversed(chain):
            row = np.take(row, self.tree.perms[self.tree.via[node]])
            self._keep(node, row, must=node == h)

    def _keep(self, h: int, row: np.ndarray, must: bool) -> None:
        """Keep a row in the least recently used slot: never one of this request's rows
        (at most half the slots), and a row made on the way only in a slot from an
        earlier request."""
        s = int(np.argmin(self.stamp))
        if self.stamp[s] >= self.clock - 1 and not must:
            return
        if self.owner[s] >= 0:
            self.slot[self.owner[s]] = -1
            self.owner[s] = -1
        self.slab[s] = row
        self.owner[s], self.slot[h] = h, s
        self.stamp[s] = self.clock if must else self.clock - 1


FEW_POSITIONS = 128  # measured: at most this many, one gather of all the pairs is faster


def cut_rows(array: np.ndarray, rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """array[rows][:, positions]: for a few positions one gather of every pair (far
    cheaper than a call per row); for more, one row at a time, each row's gather in
    cache."""
    if len(positions) <= FEW_POSITIONS:
        return array[rows[:, None], positions[None, :]]
    out = np.empty((len(rows), len(positions)), dtype=array.dtype)
    for i, r in enumerate(rows.tolist()):
        np.take(array[r], positions, out=out[i])
    return out


def count_parts(codes: np.ndarray, radix: int, weights: np.ndarray | None) -> np.ndarray:
    """Row-wise bincount of codes (relabelled first when the code space is large)."""
    rows, n = codes.shape
    if radix > RELABEL_RADIX and radix > 4 * n:
        uniq, inv = np.unique(codes, return_inverse=True)
        codes, radix = inv.reshape(rows, n), len(uniq)
    offsets = (np.arange(rows, dtype=np.int64) * radix)[:, None]
    flat = (codes + offsets).ravel()
    w = None if weights is None else np.broadcast_to(weights, codes.shape).ravel()
    counts = np.bincount(flat, weights=w, minlength=rows * radix)
    return counts.reshape(rows, radix)


def count_columns(labels: np.ndarray, radix: int, weights: np.ndarray | None) -> np.ndarray:
    """Part sizes (or masses) per column of (hypotheses x queries) labels: (queries, radix).
    With more queries than hypotheses, one hypothesis is added at a time (a row holds
    each query once, so a fancy-indexed add counts right)."""
    n, queries = labels.shape
    if n > queries:
        base = np.arange(queries, dtype=np.int64) * radix
        w = None if weights is None else np.repeat(weights, queries)
        counts = np.bincount((labels + base).ravel(), weights=w, minlength=queries * radix)
        return counts.reshape(queries, radix)
    small = queries * radix < 1 << 31
    base = np.arange(queries, dtype=np.int32 if small else np.int64) * radix
    out = np.zeros(queries * radix, dtype=(np.int32 if small else np.int64)
                   if weights is None else np.float64)
    for i in range(n):
        out[base + labels[i]] += 1 if weights is None else weights[i]
    return out.reshape(queries, radix)


__all__ = ["FEW_POSITIONS", "CodeMatrix", "RowCache", "compact", "count_columns", "count_parts",
           "cut_rows", "rows_that_fit"]

"""The symmetries of a table: every pair of permutations, π of its rows (queries) and σ
of its columns (hypotheses), with table[π(q), σ(h)] == table[q, h] for every q and h.

symmetry.py finds a game's symmetries from the spec's structure (values and positions
of a sequence secret). A table knows nothing of structure, so this finds the ones no
structure names: a board's rotations and reflections, say, when cells are numbered
along rows and pieces are records. It is the individualisation-refinement search of
graph automorphism tools (McKay's nauty), on the table read as a bipartite graph with
labelled edges:

* refinement: colour rows and columns alike when they meet the same multiset of (label,
  colour) on the other side, until the colouring is stable. Colours are numbered by
  sorting the signatures, so two colourings refined alike can be compared; a trace of
  every round's signatures tells the two sides apart as soon as they differ;
* individualisation: while some row colour holds several rows, give the first such row
  a colour of its own on the left, and each row of that colour in turn on the right,
  and refine both;
* a leaf (every row its own colour) gives π; σ matches each column to a column equal
  to it once its rows are permuted, and the pair is kept when every column matches.

Columns that are equal stay together under every query, so matching them in any order
gives the same action on sets of hypotheses. The search stops at LIMIT symmetries or
WORK / (rows x columns) refinements; what it found is then a set of symmetries, not a
closed group, and callers that only take each set's least image stay sound with it.
"""

from __future__ import annotations

import hashlib

import numpy as np

LIMIT = 5_000  # symmetries kept at most
WORK = 200_000_000  # refinements x table cells at most (at least 50 refinements)
CELLS = 5_000_000  # rows x columns at most: larger tables are not searched


def table_symmetries(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(σ (G, columns), π (G, rows)), identity first: the symmetries of `table` found
    within the limits (only the identity for a larger table)."""
    rows, cols = table.shape
    found_h = [np.arange(cols, dtype=np.int64)]
    found_q = [np.arange(rows, dtype=np.int64)]
    if rows and cols and rows * cols <= CELLS:
        _, labels = np.unique(table, return_inverse=True)
        search = _Search(labels.reshape(rows, cols).astype(np.int64))
        for sigma, pi in search.run():
            if not (pi == found_q[0]).all():
                found_h.append(sigma)
                found_q.append(pi)
    return np.stack(found_h), np.stack(found_q)


class _Search:
    def __init__(self, table: np.ndarray):
        self.table = table
        self.rows, self.cols = table.shape
        self.nodes = 0
        self.most_nodes = max(50, WORK // table.size)
        self.found = 0

    def run(self):
        """Yield each symmetry found (σ, π)."""
        rows = np.zeros(self.rows, dtype=np.int64)
        cols = np.zeros(self.cols, dtype=np.int64)
        left = self._refine(rows, cols)
        if left is not None:
            yield from self._descend(left, left)

    def _descend(self, left: tuple, right: tuple):
        if self.found >= LIMIT or self.nodes >= self.most_nodes:
            return
        lrows, lcols, ltrace = left
        rrows, rcols, rtrace = right
        if ltrace != rtrace:
            return
        counts = np.bincount(lrows)
        if counts.max() == 1:  # every row its own colour: π maps equal colours
            pi = np.empty(self.rows, dtype=np.int64)
            pi[np.argsort(lrows)] = np.argsort(rrows)
            sigma = self._columns(pi)
            if sigma is not None:
                self.found += 1
                yield sigma, pi
            return
        colour = int(np.flatnonzero(counts > 1)[0])
        mine = int(np.flatnonzero(lrows == colour)[0])
        pinned_left = self._pin(lrows, lcols, mine)
        if pinned_left is None:
            return
        for target in np.flatnonzero(rrows == colour).tolist():
            pinned_right = self._pin(rrows, rcols, target)
            if pinned_right is not None:
                yield from self._descend(pinned_left, pinned_right)

    def _pin(self, rows: np.ndarray, cols: np.ndarray, row: int) -> tuple | None:
        """Give `row` a colour of its own and refine."""
        rows = rows.copy()
        rows[row] = rows.max() + 1
        return self._refine(rows, cols)

    def _refine(self, rows: np.ndarray, cols: np.ndarray) -> tuple | None:
        """The stable colouring from (rows, cols), with the trace of its rounds."""
        self.nodes += 1
        trace = hashlib.blake2b(digest_size=16)
        nrows = ncols = -1
        while True:
            cols = self._recolour(self.table.T, rows, cols, trace)
            rows = self._recolour(self.table, cols, rows, trace)
            now = (int(rows.max()) + 1, int(cols.max()) + 1)
            if now == (nrows, ncols):
                return rows, cols, trace.hexdigest()
            nrows, ncols = now

    @staticmethod
    def _recolour(table: np.ndarray, other: np.ndarray, own: np.ndarray, trace) -> np.ndarray:
        """New colours of the table's rows: their own colour and the sorted (label, colour)
        of the columns they meet, numbered in sorted order."""
        pairs = np.sort(table * (int(other.max()) + 1) + other[None, :], axis=1)
        signature = np.concatenate([own[:, None], pairs], axis=1)
        unique, colours, counts = np.unique(signature, axis=0, return_inverse=True,
                                            return_counts=True)
        trace.update(unique.tobytes())
        trace.update(counts.tobytes())
        return colours.ravel().astype(np.int64)

    def _columns(self, pi: np.ndarray) -> np.ndarray | None:
        """σ with table[π(q), σ(h)] == table[q, h], or None when a column has no match."""
        moved = self.table[pi]  # moved[q, h'] = table[π(q), h']
        where: dict[bytes, list[int]] = {}
        for h in range(self.cols - 1, -1, -1):
            where.setdefault(moved[:, h].tobytes(), []).append(h)
        sigma = np.empty(self.cols, dtype=np.int64)
        for h in range(self.cols):
            match = where.get(np.ascontiguousarray(self.table[:, h]).tobytes())
            if not match:
                return None
            sigma[h] = match.pop()
        return sigma


__all__ = ["LIMIT", "table_symmetries"]

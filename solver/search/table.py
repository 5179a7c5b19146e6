"""The compiled optimal search's transposition table (search/compiled.py): every set it
solves, with its exact (total, worst, query) or a lower bound learnt from a failed
search, as search/plain.py keeps in a dict, here in flat arrays numba can read.

A set is found by a 64-bit hash of its hypotheses (ascending) and depth budget, in an
open-addressed table (`keys`, linear probing), and compared in full with the copy kept
in `arena`: a hash that two sets share costs a probe, never a wrong answer. Slots grow
only between searches (`SetTable.grow`); a search that meets a full table gives up
(the kernel's FULL), and is asked again once the table has grown.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sleuth.solver.infoset.hashing import FNV64_OFFSET, fnv64

# The arena's hypothesis numbers, each an index into the game's hypotheses: the kernel
# runs only on a dense outcome table (CompiledSearch.applies), which is far from 2^31
# hypotheses (half the memory of int64, and half the pages a worker's table touches)
ARENA = np.int32


@njit(cache=True, nogil=True)
def set_hash(hyps: np.ndarray, depth: int) -> np.uint64:
    """FNV-1a of a set (ascending) and its depth budget; never 0 (an empty slot)."""
    h = np.uint64(FNV64_OFFSET)
    for j in range(hyps.shape[0]):
        h = fnv64(h, hyps[j] + 1)
    h = fnv64(h, depth + 2)
    return h | np.uint64(1)


@njit(cache=True, nogil=True)
def find(keys: np.ndarray, rows: np.ndarray, arena: np.ndarray, hyps: np.ndarray,
         depth: int, h: np.uint64) -> int:
    """The slot of the set (with its depth budget) in the table, or -1 - the empty slot
    where it would go. Slots hold (size, depth, where its hypotheses are in `arena`,
    value, worst, query): an exact (total, worst, query) or a lower bound (query -1)."""
    mask = keys.shape[0] - 1
    n = hyps.shape[0]
    s = np.int64(h & np.uint64(mask))
    while keys[s] != 0:
        if keys[s] == h and rows[s, 0] == n and rows[s, 1] == depth:
            at = rows[s, 2]
            same = True
            for j in range(n):
                if arena[at + j] != hyps[j]:
                    same = False
                    break
            if same:
                return s
        s = (s + 1) & mask
    return -1 - s


@njit(cache=True, nogil=True)
def keep(keys: np.ndarray, rows: np.ndarray, arena: np.ndarray, state: np.ndarray,
         hyps: np.ndarray, depth: int, h: np.uint64, value: int, worst: int,
         q: int) -> None:
    """Write a set's value (its hash `h`: set_hash) at its slot, found now: a slot found
    before the set was solved may since have been taken by a set kept below it. A new
    set only while the table is under 3/4 full and the arena has room. Else nothing is
    written and state[3] is set: the search gives up, and the caller grows both and
    asks again (what was kept stays)."""
    slot = find(keys, rows, arena, hyps, depth, h)
    if slot < 0:
        n = hyps.shape[0]
        if 4 * (state[2] + 1) > 3 * keys.shape[0] or state[1] + n > arena.shape[0]:
            state[3] = 1
            return
        slot = -1 - slot
        keys[slot] = h
        rows[slot, 0], rows[slot, 1], rows[slot, 2] = n, depth, state[1]
        for i in range(n):  # (a slice assignment checks shapes with a formatted message:
            arena[state[1] + i] = hyps[i]  # every search kernel would carry that code)
        state[1] += n
        state[2] += 1
    rows[slot, 3], rows[slot, 4], rows[slot, 5] = value, worst, q


@njit(cache=True, nogil=True)
def known(keys: np.ndarray, rows: np.ndarray, arena: np.ndarray, hyps: np.ndarray,
           depth: int) -> tuple[int, int, int]:
    """What the table keeps of a set: (value, worst, query) as `find` describes, or
    (0, 0, -1) when nothing."""
    slot = find(keys, rows, arena, hyps, depth, set_hash(hyps, depth))
    if slot < 0:
        return 0, 0, -1
    return rows[slot, 3], rows[slot, 4], rows[slot, 5]


@njit(cache=True, nogil=True)
def rehash(keys: np.ndarray, rows: np.ndarray, new_keys: np.ndarray,
            new_rows: np.ndarray) -> None:
    """Every kept slot moved into a larger table (the arena stays)."""
    mask = new_keys.shape[0] - 1
    for s in range(keys.shape[0]):
        if keys[s] != 0:
            t = np.int64(keys[s] & np.uint64(mask))
            while new_keys[t] != 0:
                t = (t + 1) & mask
            new_keys[t] = keys[s]
            new_rows[t] = rows[s]


class SetTable:
    """The arrays of one search's table: `keys` (a hash per slot, 0: empty), `rows` (per
    slot: size, depth, where its hypotheses start in `arena`, value, worst, query) and
    `state` (sets searched, arena used, sets kept, full)."""

    def __init__(self, slots: int = 1 << 16, arena: int = 1 << 20):
        self.keys = np.zeros(slots, dtype=np.uint64)
        self.rows = np.zeros((slots, 6), dtype=np.int64)
        self.arena = np.zeros(arena, dtype=ARENA)
        self.state = np.zeros(4, dtype=np.int64)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.keys, self.rows, self.arena, self.state

    def known(self, hyps: np.ndarray, depth: int) -> tuple[int, int, int]:
        """(value, worst, query) kept for the set, (0, 0, -1) when nothing is."""
        value, worst, q = known(self.keys, self.rows, self.arena, hyps, depth)
        return int(value), int(worst), int(q)

    @property
    def full(self) -> bool:
        """Whether a set was not kept (the table 3/4 full, or the arena short)."""
        return bool(self.state[3])

    def grow(self, n: int) -> None:
        """Double the slots (3/4 full) and the arena (short of room for a set of n);
        every slot kept is moved, the arena copied, and `full` cleared."""
        self.state[3] = 0
        if 4 * (self.state[2] + 1) > 3 * len(self.keys):
            keys = np.zeros(2 * len(self.keys), dtype=np.uint64)
            rows = np.zeros((2 * len(self.keys), 6), dtype=np.int64)
            rehash(self.keys, self.rows, keys, rows)
            self.keys, self.rows = keys, rows
        if 2 * (self.state[1] + n) > len(self.arena):
            # only the part in use is copied: the rest is never read before it is
            # written (`keep`), so the new array's pages are touched as it fills
            used = int(self.state[1])
            arena = np.empty(2 * len(self.arena), dtype=self.arena.dtype)
            arena[:used] = self.arena[:used]
            self.arena = arena


__all__ = ["SetTable", "find", "keep", "known", "set_hash"]

"""FNV-1a, the one hash the compiled passes use to key sets and rows of codes.

FNV-1a folds a value into a running hash by XOR, then multiplies by a prime, in
wrapping unsigned arithmetic: cheap in a compiled loop, and good enough to find
candidates that are then compared exactly (a hash only narrows a search; a collision
costs a comparison, never a wrong answer). `fnv64` and `fnv32` are one step each,
inlined where they are called; start from FNV64_OFFSET or FNV32_OFFSET.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FNV64_OFFSET = np.uint64(14695981039346656037)
FNV64_PRIME = np.uint64(1099511628211)
FNV32_OFFSET = np.uint32(2166136261)
FNV32_PRIME = np.uint32(16777619)


@njit(inline="always", cache=True)
def fnv64(h: np.uint64, value: np.uint64) -> np.uint64:
    """The 64-bit hash `h` with `value` folded in (unsigned throughout: numba would type
    the prime, a constant that fits int64, as signed)."""
    return (np.uint64(h) ^ np.uint64(value)) * np.uint64(FNV64_PRIME)


@njit(inline="always", cache=True)
def fnv32(h: np.uint32, value: np.uint32) -> np.uint32:
    """The 32-bit hash `h` with `value` folded in (kept to 32 bits)."""
    return np.uint32((np.uint32(h) ^ np.uint32(value)) * np.uint32(FNV32_PRIME))


__all__ = ["FNV32_OFFSET", "FNV32_PRIME", "FNV64_OFFSET", "FNV64_PRIME", "fnv32", "fnv64"]

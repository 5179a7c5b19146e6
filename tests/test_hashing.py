"""The one FNV-1a helper (solver/infoset/hashing.py) against the algorithm written here,
and the compiled keys that use it against the same written hash."""

from __future__ import annotations

import numpy as np

from sleuth.solver.infoset.hashing import FNV32_OFFSET, FNV64_OFFSET, fnv32, fnv64
from sleuth.solver.search.table import set_hash


def fnv1a(values: list[int], bits: int) -> int:
    """FNV-1a over whole values, as its authors define it for 32 and 64 bits."""
    offset, prime = {32: (2166136261, 16777619),
                     64: (14695981039346656037, 1099511628211)}[bits]
    h = offset
    for v in values:
        h = ((h ^ v) * prime) % (1 << bits)
    return h


def test_one_step_at_a_time_is_the_written_hash():
    rng = np.random.default_rng(3)
    for _ in range(50):
        values = [int(v) for v in rng.integers(0, 2**31, size=int(rng.integers(0, 20)))]
        h64, h32 = FNV64_OFFSET, FNV32_OFFSET
        for v in values:
            h64 = np.uint64(fnv64(np.uint64(h64), np.uint64(v)))
            h32 = np.uint32(fnv32(np.uint32(h32), np.uint32(v)))
        assert int(h64) == fnv1a(values, 64)
        assert int(h32) == fnv1a(values, 32)


def test_a_set_s_key_is_the_hash_of_its_members_and_depth():
    hyps = np.array([0, 5, 17, 300], dtype=np.int64)
    for depth in (-1, 0, 3):
        want = fnv1a([int(h) + 1 for h in hyps] + [depth + 2], 64) | 1
        assert int(set_hash(hyps, depth)) == want

"""`Memo.bounded` against a plain least-recently-used store written here."""

from __future__ import annotations

import random

from sleuth.compiler.memo import Memo


def reference(ops: list[tuple[int, int]], capacity: int, largest: int) -> list[list[int]]:
    """The keys held after each call, oldest first, by a list scanned in full."""
    held: list[tuple[int, int]] = []
    out = []
    for key, size in ops:
        hit = [i for i, (k, _) in enumerate(held) if k == key]
        if hit:
            held.append(held.pop(hit[0]))
        elif size <= largest:
            held.append((key, size))
            while sum(s for _, s in held) > capacity:
                held.pop(0)
        out.append([k for k, _ in held])
    return out


def test_bounded_keeps_what_a_plain_lru_keeps():
    rng = random.Random(7)
    for capacity, largest in ((10, 10), (10, 4), (25, 12)):
        ops = [(rng.randrange(12), 0) for _ in range(400)]
        sizes = {k: rng.randrange(1, 9) for k in range(12)}
        ops = [(k, sizes[k]) for k, _ in ops]
        memo, made = Memo(), []
        for step, ((key, size), want) in enumerate(
                zip(ops, reference(ops, capacity, largest), strict=True)):
            value = memo.bounded("r", key, lambda k=key, m=made, s=sizes: m.append(k) or [k] * s[k],
                                 len, capacity, largest)
            assert value == [key] * size
            assert list(memo._regions["r"]) == want, step
        # a value is made again exactly when the plain store did not hold it
        misses = sum(1 for i, (k, _) in enumerate(ops)
                     if i == 0 or k not in reference(ops, capacity, largest)[i - 1])
        assert len(made) == misses

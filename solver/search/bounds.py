"""Lower bounds on the size of a search tree that depend only on how many secrets it
holds: what the optimal search (optimal.py) prunes with before it looks at a set."""

from __future__ import annotations

NO_TREE = 1 << 60  # the bound a failed search reports when no tree exists at all


def fill(n: int, branches: int) -> tuple[int, int]:
    """Least total and depth of n secrets in a tree where each query ends at most one and
    has at most `branches` parts that go on: b^(d-1) secrets fit at depth d."""
    total, depth, slots, left = 0, 0, 1, n
    while left > 0:
        depth += 1
        take = min(left, slots)
        total += take * depth
        left -= take
        slots *= branches
    return total, depth


def external(n: int, k: int) -> tuple[int, int]:
    """Least external path length of n leaves in a tree of at most k branches, and its
    depth: n d - (k^d - n) // (k - 1), d = ceil(log_k n)."""
    d, power = 0, 1
    while power < n:
        d += 1
        power *= k
    return n * d - (power - n) // (k - 1), d


__all__ = ["NO_TREE", "external", "fill"]

"""Compiled loops over the outcome table (numba): what the exact searches ask of every
query at an information set, in one pass over its codes, without the (queries x
codes) temporaries the vectorised form makes.

    part_sizes   every query's part sizes and the lower bounds of its total and depth
    least_bounds only the least of those bounds over the allowed queries that split the
                 set or end the game for part of it (the search's per-set floor)

A query's lower bounds add, over its parts that go on (feedback not in `stops`), the
size bounds `lb_total[size]` to the set's size, and take 1 + the largest
`lb_worst[size]` (1 when no part goes on). The reference form in numpy is
`OptimalSearch.scores`' docstring; tests/test_optimal_kernels.py checks one against
the other.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def part_sizes(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
               lb_total: np.ndarray, lb_worst: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(going, lbq, lbw, useful): the sizes of each query's parts that go on (queries x
    codes), its lower bounds on the total and the depth, and whether it splits the set
    or ends the game for part of it (its largest going part is smaller than the set)."""
    nq, nc = stops.shape
    n = hyps.shape[0]
    going = np.zeros((nq, nc), dtype=np.int64)
    lbq = np.empty(nq, dtype=np.int64)
    lbw = np.empty(nq, dtype=np.int64)
    useful = np.empty(nq, dtype=np.bool_)
    for q in range(nq):
        row = codes[q]
        g = going[q]
        for j in range(n):
            g[row[hyps[j]]] += 1
        total, worst, largest = n, 1, 0
        for c in range(nc):
            k = g[c]
            if k == 0:
                continue
            if stops[q, c]:
                g[c] = 0
                continue
            total += lb_total[k]
            if 1 + lb_worst[k] > worst:
                worst = 1 + lb_worst[k]
            if k > largest:
                largest = k
        lbq[q], lbw[q], useful[q] = total, worst, largest < n
    return going, lbq, lbw, useful


@njit(cache=True, nogil=True)
def least_bounds(codes: np.ndarray, hyps: np.ndarray, stops: np.ndarray,
                 lb_total: np.ndarray, lb_worst: np.ndarray, allowed: np.ndarray,
                 none: int) -> tuple[int, int]:
    """The least lower bounds on the total and on the depth over the allowed useful
    queries (each least on its own); (none, none) when no allowed query is useful."""
    nq, nc = stops.shape
    n = hyps.shape[0]
    counts = np.zeros(nc, dtype=np.int64)
    best_total, best_worst = none, none
    for q in range(nq):
        if not allowed[q]:
            continue
        counts[:] = 0
        row = codes[q]
        for j in range(n):
            counts[row[hyps[j]]] += 1
        total, worst, largest = n, 1, 0
        for c in range(nc):
            k = counts[c]
            if k == 0 or stops[q, c]:
                continue
            total += lb_total[k]
            if 1 + lb_worst[k] > worst:
                worst = 1 + lb_worst[k]
            if k > largest:
                largest = k
        if largest < n:
            if total < best_total:
                best_total = total
            if worst < best_worst:
                best_worst = worst
    return best_total, best_worst


__all__ = ["least_bounds", "part_sizes"]

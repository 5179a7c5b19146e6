"""The optimal search split over workers (evaluation/cluster.py), at its first level
and below.

At the root set S, the search takes the useful queries in its usual order. The
first query's parts (most of the work: its tree is usually the best) are solved
exactly, largest first: a part of fewer than SPLIT secrets as one task, a larger
one split the same way at its own first level (its first query's parts, then its
other queries), so one large part does not leave the other workers idle. Their
total is a bound B. Every other query whose lower bounds could beat or tie that tree
is raised to its parts' floors on the driver (`OptimalSearch.raised`) and dropped when
they pass B; the rest are tried against B as the serial search tries a query
(`OptimalSearch.try_query`): with at least as many of them as workers, one task each;
with fewer, each one's parts dealt into one group per worker, limited by B less |S|
and the other groups' floors. A query whose tree is as good as B is solved exactly,
so the least (total, worst, K rank) wins at every level, as in the serial search.
The winner's parts come back with their solved trees (`OptimalSearch.plan`), so a
whole evaluation after the root is read from them, not searched again.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from sleuth.solver.evaluation.cluster import Recipe, Workers
from sleuth.solver.strategies.optimal_search import NO_TREE, OptimalSearch

SPLIT = 256  # a first query's part of at least this many secrets is split again
# The driver splits a level's large parts in threads, each waiting on its own tasks, so
# their rounds overlap; the search's own structures are used by one thread at a time.
_DRIVER = threading.RLock()


def solve_part(recipe: Recipe, hyps: np.ndarray, depth: int | None,
               limit: int) -> tuple[Any, dict[bytes, tuple] | None, int]:
    """A worker's task: the part's (total, worst, query) and solved tree, if its total is
    at most `limit`; else a lower bound above it, and no tree; and the information sets
    this task searched."""
    search: OptimalSearch = recipe.build()[1].search
    before = search.nodes
    got = search.solve(hyps, depth, limit)
    plan = search.plan(hyps, depth) if isinstance(got, tuple) else None
    return got, plan, search.nodes - before


def try_parts(recipe: Recipe, hyps: np.ndarray, query: int, codes: list[int],
              depth: int | None, limit: int) -> tuple[tuple[int, int] | None,
                                                      dict[bytes, tuple], int]:
    """A worker's task: under one query at `hyps`, the parts with feedback `codes`, tried
    as the serial search tries a query (their floors first, then each part in turn,
    largest first, with the running limit): their (total, worst) if the total is at
    most `limit`, else None; the solved trees; and the information sets this task
    searched."""
    search: OptimalSearch = recipe.build()[1].search
    before = search.nodes
    row = search.table.row(query, hyps)
    going = np.bincount(row)
    going[np.setdiff1d(np.flatnonzero(going), codes)] = 0  # only this task's parts
    n = len(hyps)
    got = search.try_query(hyps, query, going, depth, n + limit,
                           _fixing(search, hyps, query), search.all_queries, None)
    if got is None:
        return None, {}, search.nodes - before
    child = None if depth is None else depth - 1
    plan: dict[bytes, tuple] = {}
    for c in codes:
        plan.update(search.plan(hyps[row == c], child))
    # (the query counted once for each of `hyps`, and one deeper than its parts)
    return (got[0] - n, got[1] - 1), plan, search.nodes - before


def _fixing(search: OptimalSearch, hyps: np.ndarray, q: int,
            stab: np.ndarray | None = None) -> np.ndarray | None:
    """The symmetries that map `hyps` and query q onto themselves (from `stab`, those
    of `hyps`, when known)."""
    sym = search.symmetry
    if sym is None:
        return None
    return sym.fixing(sym.stabiliser(hyps) if stab is None else stab, q)


def groups(sizes: dict[int, int], k: int) -> list[list[int]]:
    """Feedback codes dealt into at most k groups of about equal total size."""
    out: list[list[int]] = [[] for _ in range(k)]
    load = [0] * k
    for code, size in sorted(sizes.items(), key=lambda cs: -cs[1]):
        g = load.index(min(load))
        out[g].append(code)
        load[g] += size
    return [g for g in out if g]


def split_solve(search: OptimalSearch, hyps: np.ndarray, depth: int | None,
                workers: Workers, recipe: Recipe) -> tuple[tuple | None, dict[bytes, tuple]]:
    """The best tree at `hyps` within `depth` ((total, worst, query) or None when there is
    none), solved on the workers, and the solved trees it is made of."""
    with _DRIVER:
        if search.terminal(hyps):
            return (0, 0, -1), {}
        n = len(hyps)
        stab = None if search.symmetry is None else search.symmetry.stabiliser(hyps)
        order, lbq, lbw, krank, going, scored = search.ordered(hyps, depth, stab)
    if not order:
        return None, {}
    child = None if depth is None else depth - 1
    # The first query: its parts in parallel, largest first, each solved exactly (a large
    # one split again, in a thread of its own, while the small ones run).
    i = order[0]  # a position in `scored`
    row = search.table.row(int(scored[i]), hyps)
    parts = sorted((hyps[row == c] for c in np.flatnonzero(going[i]).tolist()),
                   key=len, reverse=True)
    small = workers.submit(solve_part, [(recipe, p, child, NO_TREE - 1) for p in parts
                                        if len(p) < SPLIT])
    large = [p for p in parts if len(p) >= SPLIT]
    with ThreadPoolExecutor(max(1, len(large))) as pool:
        split = list(pool.map(lambda p: split_solve(search, p, child, workers, recipe), large))
    # (tree or None, its plan, no nodes: the split counts its own)
    got = [(*t, 0) for t in split] + workers.results(small)
    with _DRIVER:
        search.nodes += sum(g[2] for g in got)
    best: tuple | None = None
    plan: dict[bytes, tuple] = {}
    if (tree := _joined(n, got)) is not None:
        best, plan = (*tree, int(krank[i]), int(scored[i])), _merged(got)
    # Every other query that could beat or tie it, tried against that total.
    rest = [j for j in order[1:] if best is None or (lbq[j], lbw[j], krank[j]) < best[:3]]
    ceiling = NO_TREE - 1 if best is None else best[0]
    tasks, owners, kept = [], [], []
    for j in rest:
        q = int(scored[j])
        with _DRIVER:
            raised = search.raised(hyps, q, going[j], depth, ceiling,
                                   None if stab is None else _fixing(search, hyps, q, stab),
                                   search.all_queries, None)
        if raised is not None:  # else its parts' floors pass the ceiling: as the serial try
            kept.append((j, dict(zip(raised[0], raised[3], strict=True))))
    # as many queries as workers: one task each, all its parts in turn (the serial try:
    # a part that passes the limit ends it); fewer: each one's parts dealt into groups
    share = 1 if len(kept) >= workers.size else workers.size
    for j, lows in kept:
        dealt = groups({c: int(going[j][c]) for c in lows}, share)
        low = [sum(lows[c] for c in g) for g in dealt]
        for g, mine in zip(dealt, low, strict=True):
            tasks.append((recipe, hyps, int(scored[j]), g, depth, ceiling - n - (sum(low) - mine)))
        owners.append((j, len(dealt)))
    tried = workers.map(try_parts, tasks)
    with _DRIVER:
        search.nodes += sum(t[2] for t in tried)
    at = 0
    for j, count in owners:
        got = tried[at:at + count]
        at += count
        if (tree := _joined(n, got)) is None:
            continue
        cand = (*tree, int(krank[j]), int(scored[j]))
        if tree[0] <= ceiling and (best is None or cand < best):
            best, plan = cand, _merged(got)
    if best is None:
        return None, {}
    tree = (best[0], best[1], best[3])
    return tree, {**plan, hyps.tobytes(): tree}


def _joined(n: int, got: list[tuple]) -> tuple[int, int] | None:
    """(total, worst) of a query at a set of n from its parts' task results ((total,
    worst, ...) or a failure each, first in each result), when every part was solved."""
    values = [g[0] for g in got]
    if not all(isinstance(v, tuple) for v in values):
        return None
    return n + sum(v[0] for v in values), 1 + max((v[1] for v in values), default=0)


def _merged(got: list[tuple]) -> dict[bytes, tuple]:
    """The solved trees of the parts' task results, as one plan."""
    return {k: v for _, plan, _ in got for k, v in (plan or {}).items()}


def least_depth_split(search: OptimalSearch, hyps: np.ndarray, workers: Workers,
                      recipe: Recipe) -> tuple[int, tuple, dict[bytes, tuple]]:
    """The least worst case at `hyps`, with its best tree and the solved trees."""
    d = max(1, int(search.lb_worst[len(hyps)]))
    while d <= len(hyps) + 1:
        tree, plan = split_solve(search, hyps, d, workers, recipe)
        if tree is not None:
            return d, tree, plan
        d += 1
    return d, None, {}


__all__ = ["groups", "least_depth_split", "solve_part", "split_solve", "try_parts"]

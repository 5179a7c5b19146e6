"""The optimal search's first level split over workers (evaluation/cluster.py).

At the root set S, the search takes the useful queries in its usual order. The
first query's parts (most of the work: its tree is usually the best) are solved
exactly, one task each, largest first; their total is a bound B. Every other query
whose lower bounds could beat or tie that tree is then one task: the serial search's
try, its parts in turn, each with the running limit, against B. A query whose tree
is as good as B is solved exactly, so the least (total, worst, K rank) wins, as in
the serial search. The winner's parts come back with their solved trees
(`OptimalSearch.plan`), so a whole evaluation after the root is read from them, not
searched again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.solver.evaluation.cluster import Recipe, Workers
from sleuth.solver.strategies.optimal import NO_TREE, OptimalSearch


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


def try_query(recipe: Recipe, hyps: np.ndarray, query: int, depth: int | None,
              limit: int) -> tuple[tuple[int, int] | None, dict[bytes, tuple], int]:
    """A worker's task: the best tree under one query at `hyps`, if its total is at most
    `limit` (the serial search's try, parts in turn with the running limit), with its
    solved trees; and the information sets this task searched."""
    search: OptimalSearch = recipe.build()[1].search
    before = search.nodes
    stab = None if search.symmetry is None else \
        search.symmetry.fixing(search.symmetry.stabiliser(hyps), query)
    row = search.codes[query, hyps]
    going = np.where(search.stops[query], 0, np.bincount(row, minlength=search.table.ncodes))
    got = search._try(hyps, row, going, depth, limit, stab)
    plan: dict[bytes, tuple] = {}
    if got is not None:
        child = None if depth is None else depth - 1
        for c in np.flatnonzero(going).tolist():
            plan.update(search.plan(hyps[row == c], child))
    return got, plan, search.nodes - before


def split_solve(search: OptimalSearch, hyps: np.ndarray, depth: int | None,
                workers: Workers, recipe: Recipe) -> tuple[tuple | None, dict[bytes, tuple]]:
    """The best tree at `hyps` within `depth` ((total, worst, query) or None when there is
    none), solved on the workers, and the solved trees it is made of."""
    if search.terminal(hyps):
        return (0, 0, -1), {}
    n = len(hyps)
    stab = None if search.symmetry is None else search.symmetry.stabiliser(hyps)
    order, lbq, lbw, krank, going, codes = search.ordered(hyps, depth, stab)
    if not order:
        return None, {}
    child = None if depth is None else depth - 1
    # The first query: its parts in parallel, largest first, each solved exactly.
    i = order[0]
    parts = sorted((hyps[codes[i] == c] for c in np.flatnonzero(going[i]).tolist()),
                   key=len, reverse=True)
    got = workers.map(solve_part, [(recipe, p, child, NO_TREE - 1) for p in parts])
    search.nodes += sum(g[2] for g in got)
    best: tuple | None = None
    plan: dict[bytes, tuple] = {}
    if all(isinstance(v, tuple) for v, _, _ in got):
        best = (n + sum(v[0] for v, _, _ in got), 1 + max((v[1] for v, _, _ in got),
                                                          default=0), int(krank[i]), i)
        plan = {k: v for _, part, _ in got for k, v in (part or {}).items()}
    # Every other query that could beat or tie it: one task each, limited by its total.
    rest = [j for j in order[1:] if best is None or (lbq[j], lbw[j], krank[j]) < best[:3]]
    ceiling = NO_TREE - 1 if best is None else best[0]
    tried = workers.map(try_query, [(recipe, hyps, j, depth, ceiling) for j in rest])
    search.nodes += sum(t[2] for t in tried)
    for j, (tree, part, _) in zip(rest, tried, strict=True):
        if tree is not None and (best is None or (*tree, int(krank[j]), j) < best):
            best, plan = (*tree, int(krank[j]), j), part
    if best is None:
        return None, {}
    tree = (best[0], best[1], best[3])
    return tree, {**plan, hyps.tobytes(): tree}


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


__all__ = ["least_depth_split", "solve_part", "split_solve", "try_query"]

"""The optimal search split over workers (a Pool: evaluation/cluster.py gives one), at its
first level and below.

At the root set S, the search takes the useful queries in its usual order. The
first query's parts (most of the work: its tree is usually the best) are solved
exactly, largest first, each as one task; a part of at least SPLIT secrets whose cost
is more than the workers' even share of the first level's (`_again`) is split the same
way at its own first level instead, so that one large part does not leave the other
workers idle. Their total is a bound B. Every other query that could beat or
tie that tree is then tried as the serial search tries it, part by part: raised to
its parts' floors on the driver (`OptimalSearch.raised`) and dropped when they pass
the best total so far; then its parts are tasks, largest first, each limited by the
best total so far less the query, its other parts' floors and the exact totals
already back (`_rest`). A query's parts go one at a time while other queries wait to
be raised (the first part usually decides), then side by side. A part past its limit
ends its query; a better tree lowers the bound of every task sent after it. A query
whose tree could tie the best is solved exactly, so the least (total, worst, K rank)
wins at every level, as in the serial search, whatever order the tasks end in. The
winner's parts come back with their solved trees (`OptimalSearch.plan`), so a whole
evaluation after the root is read from them, not searched again.

Where the split starts, the second query's largest part goes early, before the first
query's total is known (`_ahead`), limited by a tree's total known before any search
(`upper_bound`): it is sent once every worker has one of the first query's largest
parts, so the first worker to end one takes it. Sent after the total is known, it
starts late and runs alone at the end, the other worker idle; sent after all the first
query's parts, it still ends the split.

The workers take the tasks in the order they are sent, each the next as it becomes
free (evaluation/dispatch.py). Where `evaluate` splits from the prior, each worker's
first part is in line before the driver has built its own game (`open_part`): the
worker finds it itself, as `opening` finds the parts in any process that built the same
game, and the driver takes its result once it has checked that the part is the one it
would send.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from sleuth.solver.search.plain import NO_TREE, OptimalSearch
from sleuth.solver.search.pool import Pool, Recipe

SPLIT = 256  # a first query's part of fewer secrets is never split again
# A larger part is split again only when its cost is more than FAIR times the workers'
# even share of its level's, the cost of a part of n secrets taken as n ** COST. A part
# below that share keeps its whole search on one worker, with one table, and the parts
# balance as they are. The search time grows with n at a rate that differs from game to
# game (docs/solver.md measures two, near n^2 and n^9); the cube tells the two apart,
# splitting again the part that dominates its level and leaving whole the one that
# does not.
FAIR, COST = 1.0, 3
EXACT_BELOW = 8  # upper_bound solves the sets of at most this many secrets exactly
# ... with no symmetry known to map them onto themselves: finding a set's stabiliser
# costs more than a set this small takes to solve without it, to the same tree
# (the least K rank of an orbit is its first, which the search keeps)
_NO_SYMMETRY = np.zeros(0, dtype=np.int64)
# The driver splits a level's large parts in threads, each waiting on its own tasks, so
# their rounds overlap; the search's own structures are used by one thread at a time.
_DRIVER = threading.RLock()


def solve_part(recipe: Recipe, hyps: np.ndarray, depth: int | None,
               limit: int) -> tuple[Any, dict[bytes, tuple] | None, int]:
    """A worker's task: the part's (total, worst, query) and solved tree, if its total is
    at most `limit`; else a lower bound above it, and no tree; and the information sets
    this task searched."""
    with recipe.built() as (_, strategy):
        search: OptimalSearch = strategy.search
        before = search.nodes
        got = search.solve(hyps, depth, limit)
        plan = search.plan(hyps, depth) if isinstance(got, tuple) else None
        return got, plan, search.nodes - before


def _share(sizes: list[int], workers: int) -> float:
    """FAIR times the workers' even share of the cost of the parts of these sizes."""
    return FAIR * sum(n ** COST for n in sizes) / max(1, workers)


def _again(sizes: list[int], share: float) -> list[bool]:
    """Which of a level's parts (their sizes) are split again: those of at least SPLIT
    secrets whose cost passes `share`, the workers' share of the first level's cost
    where the split starts (`_share`; see FAIR). A part is split again to keep one
    task from outlasting a worker's share of the whole split, so a level below the first
    is measured against the first's share, not its own: another game's 1,440 part (see
    FAIR) is split again on 2 workers (54% of the first level's cost), but not its first
    query's 408 part, though that is 58% of its own level: split again, its 65 queries'
    tasks would be mostly round trips, and whole it is quicker."""
    return [n >= SPLIT and n ** COST > share for n in sizes]


def split_solve(search: OptimalSearch, hyps: np.ndarray, depth: int | None,
                workers: Pool, recipe: Recipe,
                share: float | None = None) -> tuple[tuple | None, dict[bytes, tuple]]:
    """The best tree at `hyps` within `depth` ((total, worst, query) or None when there is
    none), solved on the workers, and the solved trees it is made of. `share`: the
    workers' share of the first level's cost (`_again`), given below the level where the
    split starts; None there (the next query's largest part is sent ahead there)."""
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
    top = share is None
    parts, again, share = _first_level(search, hyps, i, going, scored, share, workers.size)
    whole = [(recipe, p, child, NO_TREE - 1)
             for p, a in zip(parts, again, strict=True) if not a]
    # where the split starts, the part sent ahead goes once every worker has one of
    # these (the largest), before the rest of them; the workers may have started those
    # already, as they built the game (`open_part`)
    head = workers.size if top else len(whole)
    opened = workers.take_opening() if top and depth is None else []
    small = _adopted(workers, opened, whole[:head])
    adopted = min(len(opened), len(small))
    with _DRIVER:
        early = _ahead(search, hyps, depth, workers, recipe, order, going, scored) if top \
            else None
    small += workers.submit(solve_part, whole[head:])
    large = [p for p, a in zip(parts, again, strict=True) if a]
    with ThreadPoolExecutor(max(1, len(large))) as pool:
        split = list(pool.map(
            lambda p: split_solve(search, p, child, workers, recipe, share), large))
    # (tree or None, its plan, no nodes: the split counts its own)
    got = [(*t, 0) for t in split] + _checked(workers, workers.results(small), whole,
                                              adopted)
    with _DRIVER:
        search.nodes += sum(g[2] for g in got)
    best: tuple | None = None
    plan: dict[bytes, tuple] = {}
    if (tree := _joined(n, got)) is not None:
        best, plan = (*tree, int(krank[i]), int(scored[i])), _merged(got)
    # Every other query that could beat or tie it: its parts as tasks, the bound shared.
    best, plan = _rest(search, hyps, depth, workers, recipe, stab,
                       (order[1:], lbq, lbw, krank, going, scored), best, plan, early)
    if best is None:
        return None, {}
    tree = (best[0], best[1], best[3])
    return tree, {**plan, hyps.tobytes(): tree}


def _first_level(search: OptimalSearch, hyps: np.ndarray, i: int, going: np.ndarray,
                 scored: np.ndarray, share: float | None,
                 workers: int) -> tuple[list[np.ndarray], list[bool], float]:
    """The going parts of the query at position i of `scored` (`ordered`), largest first;
    which of them are split again (`_again`); and the share they are measured against:
    `share`, or where the split starts (None) the workers' share of these parts."""
    row = search.table.row(int(scored[i]), hyps)
    parts = sorted((hyps[row == c] for c in np.flatnonzero(going[i]).tolist()),
                   key=len, reverse=True)
    sizes = [len(p) for p in parts]
    if share is None:
        share = _share(sizes, workers)
    return parts, _again(sizes, share), share


def opening(search: OptimalSearch, hyps: np.ndarray, workers: int) -> list[np.ndarray]:
    """The parts `split_solve` sends first where the split starts at `hyps` with no depth
    budget, in the order sent: the first query's parts not split again, largest first,
    one for each of `workers` (fewer when there are fewer). Every process that built the
    same game finds the same ones."""
    if search.terminal(hyps):
        return []
    stab = None if search.symmetry is None else search.symmetry.stabiliser(hyps)
    order, _, _, _, going, scored = search.ordered(hyps, None, stab)
    if not order:
        return []
    parts, again, _ = _first_level(search, hyps, order[0], going, scored, None, workers)
    return [p for p, a in zip(parts, again, strict=True) if not a][:workers]


def open_part(recipe: Recipe, k: int, workers: int) -> tuple[bytes, tuple] | None:
    """A worker's first task, sent as it starts building the game (`Optimal.opening`),
    before the driver has built its own and found the parts: the k-th part `opening`
    gives at the prior, solved as `solve_part` solves it, with the part's bytes for the
    driver to check that it is the one it sends (`_checked`). None where there is none
    or the search does not split. Without it the workers would wait, once built, for
    the driver's first parts (docs/solver.md)."""
    with recipe.built() as (_, strategy):
        hyps = strategy.split_root()
        parts = [] if hyps is None else opening(strategy.search, hyps, workers)
    if k >= len(parts):
        return None
    return parts[k].tobytes(), solve_part(recipe, parts[k], None, NO_TREE - 1)


def _adopted(workers: Pool, opened: list[Any], tasks: list[tuple]) -> list[Any]:
    """The futures of a level's first `tasks`: the opening's (`open_part`), one for
    each of the first tasks, the rest sent now; the opening's futures left over are
    cancelled."""
    workers.cancel(opened[len(tasks):])
    sent = iter(workers.submit(solve_part, tasks[len(opened):]))
    return [opened[k] if k < len(opened) else next(sent) for k in range(len(tasks))]


def _checked(workers: Pool, results: list[Any], tasks: list[tuple],
             adopted: int) -> list[tuple]:
    """`results` of `tasks` (`_adopted`), the first `adopted` from the opening: each
    with its part's bytes, checked against the task's part; the parts not the ones sent
    here (or none) are solved now, side by side, as if sent here."""
    out = list(results)
    wrong = [k for k in range(adopted)
             if out[k] is None or out[k][0] != tasks[k][1].tobytes()]
    for k in set(range(adopted)) - set(wrong):
        out[k] = out[k][1]
    again = workers.results(workers.submit(solve_part, [tasks[k] for k in wrong]))
    for k, got in zip(wrong, again, strict=True):
        out[k] = got
    return out


class _Early:
    """A part sent ahead (`_ahead`): query j's largest part, its bytes, its future."""

    def __init__(self, j: int, part: np.ndarray, future: Any) -> None:
        self.j, self.key, self.future = j, part.tobytes(), future


def upper_bound(search: OptimalSearch, hyps: np.ndarray) -> int | None:
    """A total no less than the search's least at `hyps` (under `--top` as well): that of
    the tree that asks, at every set below `hyps`, the first query the search tries there
    (with no depth budget), down to sets of at most EXACT_BELOW secrets, each of which is
    then solved by the search itself. Both are trees the search may build (the first
    query is among the first K). None where some set has no useful query. Most of such
    a tree's sets are small (most have one secret), and solving them exactly both
    tightens the bound and costs less than choosing their first queries one by one."""
    total, stack = 0, [hyps]
    stab = None if search.symmetry is None else _NO_SYMMETRY
    while stack:
        here = stack.pop()
        if search.terminal(here):
            continue
        if len(here) <= EXACT_BELOW:
            got = search.solve(here, None, NO_TREE - 1, stab)
            if not isinstance(got, tuple):
                return None
            total += got[0]
            continue
        order, _, _, _, going, scored = search.ordered(here, None, None)
        if not order:
            return None
        i = order[0]
        row = search.table.row(int(scored[i]), here)
        total += len(here)
        stack.extend(here[row == c] for c in np.flatnonzero(going[i]).tolist())
    return total


def _ahead(search: OptimalSearch, hyps: np.ndarray, depth: int | None, workers: Pool,
           recipe: Recipe, order: list[int], going: np.ndarray,
           scored: np.ndarray) -> _Early | None:
    """The second query's largest part, sent now, before the first query's total is known,
    so that the longest task of the other queries' round does not run alone at its end.
    Its limit is `upper_bound` less the query and its other parts' size bounds: no less
    than any limit `_rest` would give it (the best total is at most that bound, and a
    part's floor at least its size bound), so a result past it still ends the query, and
    a query that ties the best is still solved exactly. None when there is no such part,
    a depth budget, or the bound leaves it no room."""
    if depth is not None or len(order) < 2:
        return None
    ub = upper_bound(search, hyps)
    if ub is None:
        return None
    j = order[1]
    labels = sorted(np.flatnonzero(going[j]).tolist(), key=lambda c: -int(going[j, c]))
    lows = [int(search.lb_total[going[j, c]]) for c in labels]
    limit = ub - len(hyps) - (sum(lows) - lows[0])
    if limit < lows[0]:
        return None
    row = search.table.row(int(scored[j]), hyps)
    part = hyps[row == labels[0]]
    return _Early(j, part, workers.ahead(solve_part, recipe, part, None, limit))


class _Try:
    """One query tried at a set on the workers: its going parts, largest first, each a
    task; what is known of each part's least total (a floor, then the exact value)."""

    def __init__(self, j: int, raised: tuple) -> None:
        self.j = j
        self.parts: list[np.ndarray] = raised[1]
        self.low: list[int] = list(raised[3])
        self.trees: list[tuple | None] = [None] * len(self.parts)
        self.plans: list[dict[bytes, tuple]] = []
        self.sent = 0  # parts sent so far (in order)
        self.out = 0  # of them, those not back
        self.dead = False

    def ready(self) -> bool:
        """Whether its next part may go as the serial try would send it: all before it
        back exact."""
        return not self.dead and self.out == 0 and self.sent < len(self.parts)

    def limit(self, i: int, room: int) -> int:
        """Part i's limit when the query's parts may total at most `room`."""
        return room - (sum(self.low) - self.low[i])


def _rest(search: OptimalSearch, hyps: np.ndarray, depth: int | None, workers: Pool,
          recipe: Recipe, stab: np.ndarray | None, scored: tuple, best: tuple | None,
          plan: dict[bytes, tuple],
          early: _Early | None = None) -> tuple[tuple | None, dict[bytes, tuple]]:
    """The best of `best` (total, worst, K rank, query, or None) and every other query
    at `hyps` that could beat or tie it, with its plan. As in the serial search, each
    query in order is raised to its parts' floors against the best total so far
    (`OptimalSearch.raised`, on the driver) and dropped when they pass it; the parts of
    those kept are tasks, sent in that order while the workers have room, each limited
    by the best total so far less the query, the other parts' floors and the exact
    totals already back. A part that passes its limit ends its query (its queued parts
    are cancelled); a query whose parts are all back exact is a tree, and a better tree
    lowers the bound of every task sent after it and ends the queries it rules out.
    Every query that could tie the best is solved exactly, so the least (total, worst,
    K rank) wins, as in the serial search."""
    order, lbq, lbw, krank, going, queries = scored
    n, child = len(hyps), None if depth is None else depth - 1
    waiting = deque(order)  # queries not yet raised, in the search's order
    live: list[_Try] = []
    flow = workers.flow()
    owner: dict[Any, tuple[_Try, int]] = {}

    def ceiling() -> int:
        return NO_TREE - 1 if best is None else best[0]

    def beaten(j: int) -> bool:  # (a query at or past the best in order cannot win)
        return best is not None and (lbq[j], lbw[j], krank[j]) >= best[:3]

    def end(t: _Try) -> None:  # its parts still out are not waited for
        t.dead = True
        mine = [f for f, (o, _) in owner.items() if o is t]
        for f in mine:
            del owner[f]
        flow.cancel(mine)

    def refill() -> None:
        nonlocal early
        # a query's parts go one at a time, as the serial try sends them (the first that
        # passes its limit ends it), while other queries wait to be raised; once none
        # waits, the rest of the live queries' parts go side by side
        while flow.room():
            t = next((t for t in live if t.ready()), None)
            if t is None and waiting:
                j = waiting.popleft()
                if beaten(j):
                    waiting.clear()
                    continue
                q = int(queries[j])
                with _DRIVER:
                    fixing = None if stab is None else search.symmetry.fixing(stab, q)
                    raised = search.raised(hyps, q, going[j], depth, ceiling(), fixing,
                                           search.all_queries, None)
                if raised is not None:  # else its parts' floors pass the best: dropped
                    live.append(_Try(j, raised))
                continue
            t = t or next((t for t in live if not t.dead and t.sent < len(t.parts)), None)
            if t is None:
                return
            i, t.sent, t.out = t.sent, t.sent + 1, t.out + 1
            if early is not None and early.j == t.j and early.key == t.parts[i].tobytes():
                flow.adopt(early.future)  # sent ahead, with a limit no less than this one
                owner[early.future], early = (t, i), None
                continue
            owner[flow.send(solve_part, recipe, t.parts[i], child,
                            t.limit(i, ceiling() - n))] = (t, i)

    refill()
    for future, (got, part_plan, nodes) in flow.arrivals():
        t, i = owner.pop(future)
        t.out -= 1
        with _DRIVER:
            search.nodes += nodes
        if not t.dead:
            if not isinstance(got, tuple):  # past its limit: past the best at sending
                end(t)
            else:
                t.low[i], t.trees[i] = int(got[0]), got
                t.plans.append(part_plan or {})
                if n + sum(t.low) > ceiling():
                    end(t)
                elif all(tree is not None for tree in t.trees):
                    t.dead = True  # done
                    total = n + sum(tree[0] for tree in t.trees)
                    worst = 1 + max(tree[1] for tree in t.trees)
                    cand = (total, worst, int(krank[t.j]), int(queries[t.j]))
                    if best is None or cand < best:
                        best = cand
                        plan = {k: v for p in t.plans for k, v in p.items()}
                        for other in live:
                            if not other.dead and (beaten(other.j) or
                                                   n + sum(other.low) > ceiling()):
                                end(other)
        refill()
    if early is not None:  # its query was never tried: not wanted
        workers.cancel([early.future])
    return best, plan


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


def least_depth_split(search: OptimalSearch, hyps: np.ndarray, workers: Pool,
                      recipe: Recipe) -> tuple[int, tuple, dict[bytes, tuple]]:
    """The least worst case at `hyps`, with its best tree and the solved trees."""
    d = max(1, int(search.lb_worst[len(hyps)]))
    while d <= len(hyps) + 1:
        tree, plan = split_solve(search, hyps, d, workers, recipe)
        if tree is not None:
            return d, tree, plan
        d += 1
    return d, None, {}


__all__ = ["least_depth_split", "open_part", "opening", "solve_part", "split_solve",
           "upper_bound"]

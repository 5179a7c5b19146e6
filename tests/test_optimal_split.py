"""The optimal search split over workers (solver/search/split.py): every set
of its tree is the serial search's, whatever order the tasks end in, with the parts
split again, sent ahead or started by the workers themselves."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.distributed")


def assert_every_set_is_serial(serial, root, depth, plan):
    """Every set of the split's tree (from `root`, within `depth`) is in its plan with
    the serial search's (total, worst, query), and the plan holds nothing else."""
    from sleuth.solver.search.plain import NO_TREE

    stack, seen = [(root, depth)], 0  # every set of the tree, with its depth budget
    while stack:
        hyps, budget = stack.pop()
        if serial.terminal(hyps):
            continue
        got = plan[hyps.tobytes()]
        assert got == serial.solve(hyps, budget, NO_TREE - 1), len(hyps)
        seen += 1
        row = serial.table.row(got[2], hyps)
        stack += [(hyps[row == c], None if budget is None else budget - 1)
                  for c in np.unique(row).tolist() if not serial.stops[got[2], c]]
    assert seen == len(plan)


@pytest.mark.parametrize("depth, top", [(None, 0), (4, 0), (None, 1), (5, 1), (4, 1)])
def test_every_set_split_below_the_first_level_is_solved_as_the_serial_search_does(
        local_scheduler, monkeypatch, depth, top):
    """With every first query's part of at least 4 secrets split again at its own first
    level, each set in the plan the split returns has the serial search's (total,
    worst, query), within the depth given (4 is MM(4,4)'s least worst case). With
    `--top 1` only the first query is tried, so the tree is made of split sets only
    (and within 4 queries there is none, split or not)."""
    from sleuth.compiler import load_game
    from sleuth.solver.evaluation.cluster import Recipe, Workers
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.search import split as optimal_split
    from sleuth.solver.search.plain import NO_TREE, OptimalSearch
    from tests.conftest import ROOT

    spec, overrides = str(ROOT / "specs/mastermind.yaml"), {"pegs": 4, "colours": 4}
    recipe = Recipe(spec, tuple(f"{k}={v}" for k, v in overrides.items()), strategy="optimal",
                    options=(("top", top),))
    search = OptimalSearch(Candidates(load_game(spec, overrides), "any"), top)
    sizes = []
    real = optimal_split.split_solve

    def counted(search, hyps, *rest):
        sizes.append(len(hyps))
        return real(search, hyps, *rest)

    monkeypatch.setattr(optimal_split, "SPLIT", 4)
    monkeypatch.setattr(optimal_split, "FAIR", 0.0)  # every part of 4 or more split again
    monkeypatch.setattr(optimal_split, "split_solve", counted)
    root = np.arange(256, dtype=np.int64)
    with Workers(scheduler=local_scheduler) as workers:
        tree, plan = optimal_split.split_solve(search, root, depth, workers, recipe)
    assert len(sizes) > 3 and min(sizes) >= 4 and max(sizes) == 256
    serial = OptimalSearch(Candidates(load_game(spec, overrides), "any"), top)
    want = serial.solve(root, depth, NO_TREE - 1)
    assert tree == (want if isinstance(want, tuple) else None)
    if tree is None:
        assert (depth, top) == (4, 1) and plan == {}
        return
    assert_every_set_is_serial(serial, root, depth, plan)
    if top == 0:
        assert tree[0] == 905  # the published optimum


class _Arrivals:
    """An in-process stand-in for `Workers`: every task runs in this process, and the
    flow's results arrive in an order the test chooses (`pick` takes the outstanding
    tasks, oldest first, and returns the position of the one to finish next)."""

    def __init__(self, pick, size=2):
        self.pick, self.size, self.sent = pick, size, 0
        self.ahead_sent, self.adopted, self.dropped = [], [], []

    def submit(self, fn, items):
        return [fn(*item) for item in items]

    def each(self, fn, *args):
        self.warmed = [fn(*args) for _ in range(self.size)]
        return self.warmed

    def ahead(self, fn, *args):
        token = object()
        self.ahead_sent.append((token, fn, args))
        return token

    def cancel(self, tokens):
        self.dropped += tokens

    def results(self, done):
        return done

    def take_opening(self):
        taken, self.opening = getattr(self, "opening", []), []
        return taken

    def flow(self):
        return _Flow(self)


class _Flow:
    def __init__(self, pool):
        self.pool, self.out = pool, []

    def room(self):
        return len(self.out) < 2 * self.pool.size

    def send(self, fn, *args):
        token = object()
        self.out.append((token, fn, args))
        self.pool.sent += 1
        return token

    def adopt(self, token):
        self.out += [task for task in self.pool.ahead_sent if task[0] is token]
        self.pool.adopted.append(token)

    def cancel(self, tokens):
        self.out = [task for task in self.out if task[0] not in tokens]

    def arrivals(self):
        while self.out:
            token, fn, args = self.out.pop(self.pool.pick(len(self.out)))
            yield token, fn(*args)


@pytest.mark.parametrize("game, overrides, depth", [
    ("mastermind", {"pegs": 4, "colours": 4}, None),
    ("mastermind", {"pegs": 4, "colours": 4}, 4),
    ("mastermind", {"pegs": 3, "colours": 5}, None),
    ("bulls-and-cows", {"digits": 3}, None)])
@pytest.mark.parametrize("order", ["first", "last", "random"])
def test_the_split_is_the_serial_search_whatever_order_its_tasks_end_in(
        monkeypatch, game, overrides, depth, order):
    """The split's other queries go part by part, each limited by the best total so far,
    and a better tree ends the queries it rules out. Whatever order the parts' results
    come back in (the oldest first, the newest first, or at random), every set of the
    split's tree has the serial search's (total, worst, query): a query that ties the
    best is solved exactly and the least K rank wins, as in the serial search."""
    from sleuth.compiler import load_game
    from sleuth.solver.evaluation.cluster import Recipe
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.search import split as optimal_split
    from sleuth.solver.search.plain import NO_TREE, OptimalSearch
    from tests.conftest import ROOT

    spec = str(ROOT / f"specs/{game}.yaml")
    recipe = Recipe(spec, tuple(f"{k}={v}" for k, v in overrides.items()), strategy="optimal")
    rng = np.random.default_rng(7)
    pick = {"first": lambda k: 0, "last": lambda k: k - 1,
            "random": lambda k: int(rng.integers(k))}[order]
    pool = _Arrivals(pick)
    monkeypatch.setattr(optimal_split, "SPLIT", 16)
    monkeypatch.setattr(optimal_split, "FAIR", 0.0)
    search = OptimalSearch(Candidates(load_game(spec, overrides), "any"), 0)
    root = np.arange(search.game.hypotheses.size, dtype=np.int64)
    tree, plan = optimal_split.split_solve(search, root, depth, pool, recipe)
    serial = OptimalSearch(Candidates(load_game(spec, overrides), "any"), 0)
    assert tree == serial.solve(root, depth, NO_TREE - 1)
    assert_every_set_is_serial(serial, root, depth, plan)
    assert pool.sent > 20
    # the second query's largest part went ahead, once, and its result was used (on
    # Bulls and Cows with 3 digits the bound leaves it no room; under a depth budget,
    # none goes)
    sent_ahead = int(depth is None and game == "mastermind")
    assert len(pool.ahead_sent) == len(pool.adopted) == sent_ahead and not pool.dropped


def _opening_case():
    from sleuth.compiler import load_game
    from sleuth.solver.evaluation.cluster import Recipe
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.search.plain import NO_TREE, OptimalSearch
    from tests.conftest import ROOT

    spec, overrides = str(ROOT / "specs/mastermind.yaml"), {"pegs": 3, "colours": 5}
    recipe = Recipe(spec, tuple(f"{k}={v}" for k, v in overrides.items()), strategy="optimal")

    def search():
        return OptimalSearch(Candidates(load_game(spec, overrides), "any"), 0)

    serial = search()
    root = np.arange(serial.game.hypotheses.size, dtype=np.int64)
    return recipe, search(), serial, root, serial.solve(root, None, NO_TREE - 1)


def test_the_workers_start_the_first_parts_the_driver_sends(local_scheduler, monkeypatch):
    """`prepare(recipe, opening=True)` (as `evaluate` calls it) puts each worker's first
    part in line as the workers build the game (`open_part`): the parts the driver's
    split would send first, found in the worker from the prior. The driver takes them
    (one for each of the 2 workers, each checked to be its own part) and sends none of
    them again; the split's tree is the serial one."""
    from sleuth.solver.evaluation.cluster import Workers
    from sleuth.solver.search import split as optimal_split

    recipe, search, serial, root, want = _opening_case()
    matched, real = [], optimal_split._checked

    def spy(workers, results, tasks, adopted):
        matched.append([results[k] is not None and results[k][0] == tasks[k][1].tobytes()
                        for k in range(adopted)])
        return real(workers, results, tasks, adopted)

    monkeypatch.setattr(optimal_split, "_checked", spy)
    with Workers(scheduler=local_scheduler) as workers:
        workers.prepare(recipe, opening=True)
        assert len(workers.opening) == workers.size == 2
        tree, plan = optimal_split.split_solve(search, root, None, workers, recipe)
        assert workers.take_opening() == []  # taken once
    assert matched == [[True, True]]
    assert tree == want
    assert_every_set_is_serial(serial, root, None, plan)


@pytest.mark.parametrize("opening", ["other parts", "none", "more than the workers",
                                     "more workers than parts"])
def test_an_opening_that_is_not_the_drivers_is_solved_again(opening):
    """A worker's opening result that is not the part the driver sends there (another
    part, or none) is not used: the driver solves that part itself, and the tree is the
    serial one. Openings beyond the parts sent first are cancelled, and with more
    workers than parts the workers left without one have none."""
    from sleuth.solver.search import split as optimal_split

    recipe, search, serial, root, want = _opening_case()
    pool = _Arrivals(lambda k: 0, size=16 if opening == "more workers than parts" else 2)
    parts = optimal_split.opening(serial, root, pool.size)
    going = len(optimal_split.opening(serial, root, 1000))  # (MM(3,5): none split again)
    assert len(parts) == min(pool.size, going) and 2 < going < 16
    fake = [(p.tobytes(), ("wrong", None, 0)) for p in parts]
    opens = [optimal_split.open_part(recipe, k, pool.size) for k in range(pool.size)]
    pool.opening = {"other parts": fake[::-1], "none": [None, None],
                    "more than the workers": opens + ["spare"],
                    "more workers than parts": opens}[opening]
    tree, plan = optimal_split.split_solve(search, root, None, pool, recipe)
    assert tree == want
    assert_every_set_is_serial(serial, root, None, plan)
    assert pool.dropped == {"more than the workers": ["spare"],
                            "more workers than parts": opens[going:]}.get(opening, [])
    assert opens[going:] == [None] * (pool.size - going)


def test_a_part_below_the_first_level_is_split_again_by_the_first_levels_share(
        monkeypatch):
    """Below the level where the split starts, a part is split again only when its cost
    passes the workers' share of the first level's cost, not its own level's. MM(3,6)
    on 2 workers, parts of 8 secrets or more split: the first query's 63 part is split
    again (63^3 is more than half the first level's cost), but not that part's 18 part,
    though 18^3 is more than half of its own level's. The result is the serial one."""
    from sleuth.compiler import load_game
    from sleuth.solver.evaluation.cluster import Recipe
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.search import split as optimal_split
    from sleuth.solver.search.plain import NO_TREE, OptimalSearch
    from tests.conftest import ROOT

    spec, overrides = str(ROOT / "specs/mastermind.yaml"), {"pegs": 3, "colours": 6}
    recipe = Recipe(spec, ("pegs=3", "colours=6"), strategy="optimal")
    search = OptimalSearch(Candidates(load_game(spec, overrides), "any"), 0)
    real, levels = optimal_split._again, []

    def again(sizes, share):
        levels.append((sizes, share))
        return real(sizes, share)

    monkeypatch.setattr(optimal_split, "SPLIT", 8)
    monkeypatch.setattr(optimal_split, "_again", again)
    root = np.arange(216, dtype=np.int64)
    tree, plan = optimal_split.split_solve(search, root, None, _Arrivals(lambda k: 0), recipe)
    (first, share), (below, share_below) = levels
    assert share == share_below == sum(n ** 3 for n in first) / 2
    own = sum(n ** 3 for n in below) / 2
    assert max(first) == 63 and 18 in below and own < 18 ** 3 < share
    serial = OptimalSearch(Candidates(load_game(spec, overrides), "any"), 0)
    assert tree == serial.solve(root, None, NO_TREE - 1)
    assert_every_set_is_serial(serial, root, None, plan)


@pytest.mark.parametrize("game, overrides", [
    ("mastermind", {"pegs": 3, "colours": 3}), ("mastermind", {"pegs": 4, "colours": 4}),
    ("mastermind", {"pegs": 3, "colours": 5}), ("bulls-and-cows", {"digits": 3}),
    ("black-peg-mastermind", {"pegs": 3, "colours": 3}), ("counterfeit-coin", {})])
def test_the_bound_a_part_goes_ahead_with_lies_between_the_optimum_and_top_1(
        game, overrides, monkeypatch):
    """`upper_bound` is the total of a tree the search may build: its first query at
    every set, down to small sets, which it solves. So it is at least the optimum and at
    most what a `--top 1` search finds (the first query everywhere); with no small sets
    solved it is exactly the latter. Solving the small sets (with no symmetry known)
    leaves every set the search solves afterwards as a fresh search solves it."""
    from sleuth.compiler import load_game
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.search import split as optimal_split
    from sleuth.solver.search.plain import NO_TREE, OptimalSearch
    from tests.conftest import ROOT

    def search(top):
        return OptimalSearch(Candidates(load_game(str(ROOT / f"specs/{game}.yaml"),
                                                  overrides), "any"), top)

    best = search(0)
    root = np.arange(best.game.hypotheses.size, dtype=np.int64)
    bound = optimal_split.upper_bound(best, root)
    top1 = search(1).solve(root, None, NO_TREE - 1)[0]
    fresh = search(0)
    optimum = fresh.solve(root, None, NO_TREE - 1)
    assert optimum[0] <= bound <= top1
    assert best.solve(root, None, NO_TREE - 1) == optimum
    assert_every_set_is_serial(fresh, root, None, best.plan(root, None))
    monkeypatch.setattr(optimal_split, "EXACT_BELOW", 0)
    assert optimal_split.upper_bound(search(0), root) == top1


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
def test_a_part_is_split_again_only_when_it_is_more_than_the_workers_share(workers):
    """A first query's part of at least SPLIT secrets is split again when its cost (its
    size cubed) is more than the level's total cost over the workers: on one worker
    never, on many every large part. On 2 workers, Bulls and Cows' 1,440 part after 0123
    (84 s of the level's 113 s) is split again and MM(4,8)'s 976 part (8.6 s of 24 s)
    is not; a square would split neither."""
    from sleuth.solver.search import split as optimal_split

    firsts = {"MM(4,8)": [976, 936, 660, 500, 216, 204, 100, 36, 4],  # in part
              "Bulls and Cows": [1440, 1260, 720, 480, 360, 264, 216, 180, 72, 24, 9, 8, 6]}
    counts = {"MM(4,8)": {1: 0, 2: 0, 3: 2, 8: 3}, "Bulls and Cows": {1: 0, 2: 1, 3: 2, 8: 2}}
    for game, sizes in firsts.items():
        again = optimal_split._again(sizes, optimal_split._share(sizes, workers))
        total = sum(n ** 3 for n in sizes)
        assert again == [n >= optimal_split.SPLIT and n ** 3 * workers > total
                         for n in sizes]
        assert sum(again) == counts[game][workers]

"""Work split over Dask workers gives the serial result: the same values, the same trees."""

from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("dask.distributed")

from sleuth.solver.evaluation.cluster import LOOPBACK_HTTP  # noqa: E402
from sleuth.solver.interfaces.cli import main as sleuth  # noqa: E402

GAMES = [["mastermind", "--set", "pegs=3", "--set", "colours=4"],
         ["black-peg-mastermind", "--set", "pegs=3", "--set", "colours=3"]]


@pytest.fixture(scope="module")
def local_scheduler():
    """One local Dask cluster for the module, reached through --scheduler."""
    from dask.distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, host="127.0.0.1", silence_logs=50,
                           scheduler_kwargs=LOOPBACK_HTTP)
    yield cluster.scheduler_address
    cluster.close()


def tree_of(tmp_path, name, args):
    out = tmp_path / f"{name}.json"
    sleuth(["evaluate", *args, "--tree", str(out)])
    return json.loads(out.read_text()), (tmp_path / f"{name}.txt").read_text()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst", "minimax", "entropy"])
def test_split_evaluation_is_the_serial_one(tmp_path, capsys, local_scheduler, game, strategy):
    serial = tree_of(tmp_path, "serial", [*game, "--strategy", strategy])
    split = tree_of(tmp_path, "split", [*game, "--strategy", strategy,
                                        "--scheduler", local_scheduler])
    assert split == serial
    assert serial[0]["total"] > 0
    capsys.readouterr()


def test_local_workers_and_clear_errors(capsys):
    sleuth(["evaluate", "mastermind", "--set", "pegs=2", "--set", "colours=3", "--strategy",
            "optimal", "--workers", "2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert (data["total"], data["proven"]["total"]) == (21, 21)
    with pytest.raises(SystemExit) as stop:
        sleuth(["evaluate", "mastermind", "--strategy", "random", "--workers", "2"])
    assert stop.value.code == 1 and "random numbers" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        sleuth(["evaluate", "mastermind", "--workers", "2", "--scheduler", "tcp://x:1"])
    assert stop.value.code == 1 and "give one of them" in capsys.readouterr().err


@pytest.mark.slow
def test_split_evaluation_keeps_history_rules(tmp_path, capsys, local_scheduler):
    """Wordle's hard mode split one query down: the workers' subtrees start from the
    queries asked on the way, so they keep the rule (the trees are the serial ones)."""
    game = ["wordle", "--set", "hard=true", "--set", "answers_only=true", "--set", "guesses=10"]
    serial = tree_of(tmp_path, "serial", [*game, "--strategy", "most-parts"])
    split = tree_of(tmp_path, "split", [*game, "--strategy", "most-parts",
                                        "--scheduler", local_scheduler])
    assert split == serial
    capsys.readouterr()


def assert_every_set_is_serial(serial, root, depth, plan):
    """Every set of the split's tree (from `root`, within `depth`) is in its plan with
    the serial search's (total, worst, query), and the plan holds nothing else."""
    from sleuth.solver.strategies.optimal_search import NO_TREE

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
    from sleuth.solver.strategies import optimal_split
    from sleuth.solver.strategies.optimal_search import NO_TREE, OptimalSearch
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
    from sleuth.solver.strategies import optimal_split
    from sleuth.solver.strategies.optimal_search import NO_TREE, OptimalSearch
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
    from sleuth.solver.strategies.optimal_search import NO_TREE, OptimalSearch
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
    from sleuth.solver.strategies import optimal_split

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
    from sleuth.solver.strategies import optimal_split

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
    from sleuth.solver.strategies import optimal_split
    from sleuth.solver.strategies.optimal_search import NO_TREE, OptimalSearch
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
    from sleuth.solver.strategies import optimal_split
    from sleuth.solver.strategies.optimal_search import NO_TREE, OptimalSearch
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


def test_a_worker_builds_a_recipe_with_its_heap_set_up(local_scheduler):
    """In a worker's task the recipe's build knows it runs in a worker, and leaves
    NumPy's huge-page advice off (solver/evaluation/heap.py), whatever it was."""
    from dask.distributed import Client

    from sleuth.solver.evaluation import cluster
    from tests.conftest import ROOT

    recipe = cluster.Recipe(str(ROOT / "specs" / "mastermind.yaml"), ("pegs=2", "colours=3"),
                            strategy="minimax", seed=os.getpid())  # not built there yet

    def probe(recipe):
        from sleuth.solver.evaluation.heap import huge_page_switch

        huge_page_switch()(True)
        recipe.build()
        return cluster._in_worker(), huge_page_switch()(True)

    with Client(local_scheduler) as client:
        assert client.submit(probe, recipe, pure=False).result() == (True, False)


@pytest.mark.parametrize("preload", [True, False])
def test_a_worker_started_with_the_preload_has_imported_sleuth(preload):
    """`dask worker ADDR --preload sleuth.solver.evaluation.preload` (docs/solver.md)
    imports the modules of the split's tasks as the worker starts, before any task;
    without it they are not there until a task needs them."""
    import subprocess
    import sys

    from dask.distributed import Client, LocalCluster

    from sleuth.solver.evaluation.preload import MODULES

    with LocalCluster(n_workers=0, processes=True, dashboard_address=None,
                      host="127.0.0.1", silence_logs=50,
                      scheduler_kwargs=LOOPBACK_HTTP) as cluster:
        loads = ["--preload", "sleuth.solver.evaluation.preload"] if preload else []
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
             "--nworkers", "1", "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1",
             *loads], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with Client(cluster.scheduler_address) as client:
                client.wait_for_workers(1, timeout=60)
                # a builtin, so that nothing of Sleuth travels with the question
                found = client.run(eval, f"[m in __import__('sys').modules for m in {MODULES}]")
        finally:
            worker.terminate()
            worker.wait(timeout=60)
    assert list(found.values()) == [[preload] * len(MODULES)]


def test_tasks_start_in_the_order_they_are_sent(local_scheduler):
    """The workers take the tasks in the order sent, each the next as it becomes free,
    even while every worker is still busy with what `each` sent it (building its game):
    the split sends a level's parts largest first so that the longest start first. Left
    to Dask, the third and fourth of six started before the first two, and two tasks
    sent at once could both go to one worker while the other stayed idle."""
    from sleuth.solver.evaluation.cluster import Workers

    def hold():
        time.sleep(0.5)
        return os.getpid()

    def task(seconds):
        start = time.time()
        time.sleep(seconds)
        return start, os.getpid()

    with Workers(scheduler=local_scheduler) as workers:
        held = workers.each(hold)
        got = workers.results(workers.submit(task, [(s,) for s in
                                                    (0.4, 0.4, 0.2, 0.2, 0.1, 0.1)]))
        pids = [f.result() for f in held]
    assert len(set(pids)) == workers.size == 2
    started = [start for start, _ in got]
    late = [(i, j) for i in range(6) for j in range(i + 1, 6)
            if started[i] > started[j] + 0.05]
    assert late == []
    assert got[0][1] != got[1][1]  # the two longest, side by side


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
def test_a_part_is_split_again_only_when_it_is_more_than_the_workers_share(workers):
    """A first query's part of at least SPLIT secrets is split again when its cost (its
    size cubed) is more than the level's total cost over the workers: on one worker
    never, on many every large part. On 2 workers, Bulls and Cows' 1,440 part after 0123
    (84 s of the level's 113 s) is split again and MM(4,8)'s 976 part (8.6 s of 24 s)
    is not; a square would split neither."""
    from sleuth.solver.strategies import optimal_split

    firsts = {"MM(4,8)": [976, 936, 660, 500, 216, 204, 100, 36, 4],  # in part
              "Bulls and Cows": [1440, 1260, 720, 480, 360, 264, 216, 180, 72, 24, 9, 8, 6]}
    counts = {"MM(4,8)": {1: 0, 2: 0, 3: 2, 8: 3}, "Bulls and Cows": {1: 0, 2: 1, 3: 2, 8: 2}}
    for game, sizes in firsts.items():
        again = optimal_split._again(sizes, optimal_split._share(sizes, workers))
        total = sum(n ** 3 for n in sizes)
        assert again == [n >= optimal_split.SPLIT and n ** 3 * workers > total
                         for n in sizes]
        assert sum(again) == counts[game][workers]


@pytest.mark.parametrize("task", ["solve_part", "walk_part"])
def test_a_worker_with_several_threads_runs_its_tasks_one_at_a_time(monkeypatch, task):
    """What a worker process builds (a game, a strategy, a search and its table) is
    used by one task at a time: two tasks run in two threads of one worker (`dask
    worker` gives a worker one thread per core unless told otherwise) wait for each
    other. The search's kernel writes its table without the GIL, and two tasks at once
    gave the split a query the serial search does not choose."""
    from sleuth.solver.evaluation import evaluate
    from sleuth.solver.evaluation.cluster import Recipe
    from sleuth.solver.strategies import optimal_split

    inside, most, count = 0, 0, threading.Lock()

    def busy(result):  # a task's use of what the worker built, 50 ms long
        nonlocal inside, most
        with count:
            inside += 1
            most = max(most, inside)
        time.sleep(0.05)
        with count:
            inside -= 1
        return result

    class Belief:  # the walk's own objects, around the strategy it uses
        index = np.arange(3)

        def __init__(self, *args):
            pass

        @classmethod
        def prior(cls, game):
            return cls()

        def restrict(self, keep, what):
            return SimpleNamespace(index=self.index, logw=np.zeros(3))

    class Walker:
        def __init__(self, game, strategy, *args):
            self.strategy, self.lengths, self.nodes, self.record = strategy, {0: 1}, {}, False

        def walk(self, belief, rows, depth):
            self.strategy.search.solve(None, None, 0)

    search = SimpleNamespace(nodes=0, solve=lambda hyps, depth, limit: busy(limit + 1))
    monkeypatch.setattr(Recipe, "build", lambda self: (None, SimpleNamespace(search=search)))
    monkeypatch.setattr(evaluate, "Belief", Belief)
    monkeypatch.setattr(evaluate, "Stopper", lambda game: None)
    monkeypatch.setattr(evaluate, "_Walker", Walker)
    recipe = Recipe("any.yaml", strategy="optimal")
    run = {"solve_part": lambda: optimal_split.solve_part(recipe, np.arange(3), None, 5),
           "walk_part": lambda: evaluate.walk_part(recipe, np.arange(3), np.arange(1), 0,
                                                   False)}[task]
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda _: run(), range(4)))
    assert most == 1
    assert got == [(6, None, 0) if task == "solve_part" else ([1], None)] * 4


class _FakeClient:
    """A Dask client stand-in for the dispatcher: it records what is sent where, and
    the test ends each task by hand."""

    def __init__(self):
        self.sent, self.cancelled = [], []

    def submit(self, fn, *args, pure, workers, allow_other_workers):
        from concurrent.futures import Future

        future = Future()
        future.set_running_or_notify_cancel()
        self.sent.append((args[0], workers[0], allow_other_workers, future))
        return future

    def cancel(self, futures):
        self.cancelled += futures

    def end(self, name, error=None):
        future = next(f for n, _, _, f in self.sent if n == name)
        if error is None:
            future.set_result(name.upper())
        else:
            future.set_exception(error)


def test_the_dispatcher_sends_one_task_per_free_worker_in_line_order():
    """At most one task per worker is out, bound to that worker; each time one ends, the
    next in line goes to the worker it ran on. A task cancelled while it waits is never
    sent; one cancelled after it was sent is cancelled on the cluster and frees its
    worker. Errors reach the task's future; closing ends every future."""
    from concurrent.futures import CancelledError

    from sleuth.solver.evaluation.dispatch import Dispatcher

    client = _FakeClient()
    line = Dispatcher(client, ["w0", "w1"])
    handles = {n: line.put(str, n) for n in "abcdef"}

    def where():
        return [(n, w) for n, w, _, _ in client.sent]

    assert where() == [("a", "w0"), ("b", "w1")]
    assert not any(loose for _, _, loose, _ in client.sent)  # bound: no other worker
    client.end("b")
    assert handles["b"].result() == "B"
    assert where()[-1] == ("c", "w1")
    line.cancel([handles["d"]])  # waiting: never sent
    client.end("a")
    assert where()[-1] == ("e", "w0") and handles["d"].cancelled()
    line.cancel([handles["e"]])  # sent: cancelled on the cluster, w0 takes the next
    assert client.cancelled == [f for n, _, _, f in client.sent if n == "e"]
    assert where()[-1] == ("f", "w0")
    client.end("c", ValueError("no"))
    with pytest.raises(ValueError):
        handles["c"].result()
    g = line.put(str, "g")
    assert where()[-1] == ("g", "w1")
    h = line.put(str, "h")
    line.close()
    assert h.cancelled()
    for pending in (handles["f"], g):
        with pytest.raises(CancelledError):
            pending.result(timeout=1)
    assert [n for n, _ in where()] == list("abcefg")

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

pytestmark = pytest.mark.e2e  # the second tier: end to end

GAMES = [["mastermind", "--set", "pegs=3", "--set", "colours=4"],
         ["black-peg-mastermind", "--set", "pegs=3", "--set", "colours=3"]]


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
    imports the modules of the split's tasks as the worker starts, before any task, and
    makes the process's first compiled call (`preload.warm`); without it they are not
    there until a task needs them."""
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
                # whether the warm-up's compiled function has been called in the worker
                warmed = client.run(eval, "bool(getattr(getattr(__import__('sys').modules.get("
                                          "'sleuth.solver.evaluation.preload'), '_first', "
                                          "None), 'signatures', None))")
        finally:
            worker.terminate()
            worker.wait(timeout=60)
    assert list(found.values()) == [[preload] * len(MODULES)]
    assert list(warmed.values()) == [preload]


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


@pytest.mark.parametrize("task", ["solve_part", "walk_part"])
def test_a_worker_with_several_threads_runs_its_tasks_one_at_a_time(monkeypatch, task):
    """What a worker process builds (a game, a strategy, a search and its table) is
    used by one task at a time: two tasks run in two threads of one worker (`dask
    worker` gives a worker one thread per core unless told otherwise) wait for each
    other. The search's kernel writes its table without the GIL, and two tasks at once
    gave the split a query the serial search does not choose."""
    from sleuth.solver.evaluation import evaluate
    from sleuth.solver.evaluation.cluster import Recipe
    from sleuth.solver.search import split as optimal_split

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

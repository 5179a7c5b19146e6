"""Work split over Dask workers: a local cluster of worker processes (`--workers N`) or a
running scheduler (`--scheduler ADDRESS`), with the optional `cluster` extra.

A game holds compiled closures and caches that do not travel between processes, so
work travels as a `Recipe` (the spec, its settings and the strategy's) and each
worker process builds the game and the strategy once, then keeps them for every task
it is given: an exact search's table of solved information sets is shared by the
tasks one worker runs. Results come back in task order, so every caller gets the
same answer as a serial run.

What a worker builds is used by one task at a time (`Recipe.built`): a worker started
with several threads (`dask worker` gives one per core unless told `--nthreads 1`)
runs its tasks in turn, since the searches' tables and scratch arrays are written
by compiled code that runs without the GIL.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sleuth.compiler.api import Budget, Game, SleuthError, load_game, option, parse_overrides
from sleuth.solver.evaluation.dispatch import Dispatcher
from sleuth.solver.evaluation.heap import heap_as_usual, small_pages


@dataclass(frozen=True)
class Recipe:
    """How to build a game and a strategy again, in another process."""

    spec: str
    overrides: tuple[str, ...] = ()
    max_hypotheses: int = Budget.max_hypotheses
    memory_mb: int = Budget.memory_mb
    data_anywhere: bool = False
    strategy: str = "entropy"
    options: tuple[tuple[str, Any], ...] = ()
    guesses: str = "any"
    seed: int = 0

    @contextmanager
    def built(self) -> Iterator[tuple[Game, Any]]:
        """The game and the strategy (`build`), for one task at a time in this process:
        a task of another thread waits until this one leaves the block. Two tasks using
        one search at once corrupted its table: its compiled kernel writes the table
        and a scratch array of marks without holding the GIL."""
        with _IN_USE:
            yield self.build()

    def build(self) -> tuple[Game, Any]:
        """The game and the strategy, made once per process (one recipe at a time); a
        task uses them through `built`."""
        if self not in _BUILT:
            from sleuth.solver.infoset.queries import Candidates
            from sleuth.solver.strategies import make_strategy

            if _in_worker():  # the process is the worker's: its heap is set up for it
                heap_as_usual()
                small_pages()
            game = load_game(self.spec, parse_overrides(self.overrides),
                             Budget(max_hypotheses=self.max_hypotheses,
                                    memory_mb=self.memory_mb), self.data_anywhere)
            strategy = make_strategy(self.strategy, Candidates(game, self.guesses),
                                     self.seed, **dict(self.options))
            _BUILT.clear()
            _BUILT[self] = (game, strategy)
        return _BUILT[self]


def _in_worker() -> bool:
    """Whether this runs in a Dask worker's task (not in a caller's own process)."""
    try:
        from distributed import get_worker

        get_worker()
    except (ImportError, ValueError):
        return False
    return True


def _build(recipe: Recipe) -> None:
    """A worker's task: build the recipe (`Workers.prepare`)."""
    with recipe.built():
        pass


_BUILT: dict[Recipe, tuple[Game, Any]] = {}
_IN_USE = threading.RLock()  # held by the task using what this process built


# A local scheduler's HTTP routes (no dashboard) on loopback, on a free port.
LOOPBACK_HTTP = {"dashboard_address": "127.0.0.1:0"}
# A Dask worker samples its threads' stacks for the dashboard's profile, which slows the
# split's tasks measurably (docs/solver.md). Local workers start without it; a cluster's
# workers are started with DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False.
NO_PROFILER = {"distributed.worker.profile.enabled": False}


class Workers:
    """A Dask client: a local cluster of `workers` processes (one thread each), or the
    scheduler at `scheduler`. Use it as a context manager: leaving it closes both."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise SleuthError(f"{option('workers')} and {option('scheduler')} need Dask's "
                              "distributed scheduler",
                              hint="pip install -e '.[cluster]'") from None
        self.cluster = None
        if scheduler is not None:
            self.client = connect(scheduler)
        else:
            import dask

            # one core each: the compiled passes too (compiler/parallel.py); and no
            # sampling profiler in the workers (NO_PROFILER)
            with dask.config.set(NO_PROFILER):
                self.cluster = LocalCluster(n_workers=workers or 1, threads_per_worker=1,
                                            processes=True, dashboard_address=None,
                                            host="127.0.0.1", silence_logs=50,
                                            scheduler_kwargs=LOOPBACK_HTTP,
                                            env={"NUMBA_NUM_THREADS": "1"})
            self.client = Client(self.cluster)
        self.addresses = list(self.client.scheduler_info()["workers"])
        self.size = max(1, len(self.addresses))
        # the tasks wait here and go one per free worker, in the order sent (dispatch.py)
        self.line = Dispatcher(self.client, self.addresses)
        self.preparing: list[Any] = []  # the futures of `prepare`
        self.opening: list[Future] = []  # the strategy's first tasks (`prepare`)

    def map(self, fn: Callable[..., Any], items: Iterable[tuple],
            done: Callable[[int, Any], None] | None = None) -> list[Any]:
        """fn(*item) for every item, on the workers; the results in item order.
        `done(i, result)` hears each as it arrives."""
        return self.results(self.submit(fn, items), done)

    def submit(self, fn: Callable[..., Any], items: Iterable[tuple]) -> list[Future]:
        """fn(*item) for every item, in line for the workers (a worker takes the next task
        in the order sent as it becomes free): one future each, for `results` (the
        caller may send more work meanwhile)."""
        return [self.line.put(fn, *item) for item in items]

    def ahead(self, fn: Callable[..., Any], *args: Any) -> Future:
        """fn(*args), in line now (after the tasks sent so far, before those sent later);
        its future, for a flow made later to take (`Flow.adopt`), or `cancel`."""
        return self.line.put(fn, *args)

    def prepare(self, recipe: Recipe, opening: bool = False) -> None:
        """Every worker builds the recipe's game and strategy now, before its first task
        (and while the caller builds its own): the futures are kept until `close`, as a
        future dropped cancels its task. A build that fails is heard again by the task
        that builds the same recipe. With `opening`, the strategy's first tasks go in
        line now too (`Strategy.opening`: from the prior, as `evaluate` starts), for the
        strategy to take (`take_opening`)."""
        self.preparing += self.each(_build, recipe)
        if opening:
            from sleuth.solver.strategies import strategy_class

            self.opening = [self.line.put(fn, *args) for fn, args in
                            strategy_class(recipe.strategy).opening(recipe, self.size)]

    def take_opening(self) -> list[Future]:
        """The futures of the opening `prepare` sent, once (then none): their results are
        the strategy's to check and use."""
        taken, self.opening = self.opening, []
        return taken

    def each(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """fn(*args) once on every worker the line sends to, outside the line, before the
        tasks it is sent later (a worker building what its tasks need, say); the Dask
        futures, not waited for (keep them: a future dropped cancels its task)."""
        return [self.client.submit(fn, *args, pure=False, workers=[address],
                                   allow_other_workers=False)
                for address in self.addresses]

    def cancel(self, futures: list[Future]) -> None:
        """These tasks are not wanted: those not yet running never run."""
        self.line.cancel(futures)

    def results(self, futures: list[Future],
                done: Callable[[int, Any], None] | None = None) -> list[Any]:
        """The results of `submit`'s futures, in its order; `done(i, result)` hears each
        as it arrives. A task's error is raised here."""
        where = {f: i for i, f in enumerate(futures)}
        out: list[Any] = [None] * len(futures)
        for f in as_completed(futures):
            i = where[f]
            out[i] = f.result()
            if done is not None:
                done(i, out[i])
        return out

    def flow(self, window: int | None = None) -> Flow:
        """A stream of tasks sent one at a time (`Flow`), at most `window` of them out at
        once (default: two per worker, so that the next waits in line while the driver
        works out the one after)."""
        return Flow(self, window or 2 * self.size)

    def close(self) -> None:
        self.line.close()
        self.preparing.clear()
        self.opening.clear()
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Flow:
    """Tasks sent one at a time, each when its inputs are known (the caller's bound so
    far, say), and their results heard as they arrive, in any order. At most `window`
    are out at once: `room` says whether another may go. A task cancelled before it
    runs never runs; one cancelled while it runs finishes, unheard."""

    def __init__(self, workers: Workers, window: int):
        self.workers, self.window = workers, window
        self.out: set[Future] = set()
        self.arrived: queue.SimpleQueue[Future] = queue.SimpleQueue()

    def room(self) -> bool:
        return len(self.out) < self.window

    def send(self, fn: Callable[..., Any], *args: Any) -> Future:
        """fn(*args) on a worker; its future (the key `arrivals` hears it by)."""
        future = self.workers.line.put(fn, *args)
        self.adopt(future)
        return future

    def adopt(self, future: Future) -> None:
        """A task sent before this flow (`Workers.ahead`), heard here as if sent by it."""
        self.out.add(future)
        future.add_done_callback(self.arrived.put)

    def cancel(self, futures: list[Future]) -> None:
        """Stop waiting for these futures; those not yet running never run."""
        futures = [f for f in futures if f in self.out]
        self.out.difference_update(futures)
        self.workers.line.cancel(futures)

    def arrivals(self) -> Iterator[tuple[Future, Any]]:
        """(future, result) of each task sent and not cancelled, as it arrives, until none
        is out (tasks sent meanwhile included). A task's error is raised here."""
        while self.out:
            future = self.arrived.get()
            if future in self.out:
                self.out.discard(future)
                yield future, future.result()


def connect(scheduler: str) -> Any:
    """A client of the Dask scheduler at `scheduler`, or a clear error."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise SleuthError(f"{option('scheduler')} needs Dask's distributed scheduler",
                          hint="pip install -e '.[cluster]'") from None
    try:
        return Client(scheduler, timeout=30)
    except OSError as err:
        raise SleuthError(f"cannot reach the Dask scheduler at {scheduler}: {err}",
                          hint="start one with `dask scheduler` and workers with "
                               "`dask worker ADDR`") from None


__all__ = ["LOOPBACK_HTTP", "NO_PROFILER", "Flow", "Recipe", "Workers", "connect"]

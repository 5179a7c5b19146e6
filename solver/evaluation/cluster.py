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

import ctypes
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sleuth.compiler.api import Budget, Game, SleuthError, load_game, option, parse_overrides


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

            _heap_as_usual()
            game = load_game(self.spec, parse_overrides(self.overrides),
                             Budget(max_hypotheses=self.max_hypotheses,
                                    memory_mb=self.memory_mb), self.data_anywhere)
            strategy = make_strategy(self.strategy, Candidates(game, self.guesses),
                                     self.seed, **dict(self.options))
            _BUILT.clear()
            _BUILT[self] = (game, strategy)
        return _BUILT[self]


_BUILT: dict[Recipe, tuple[Game, Any]] = {}
_IN_USE = threading.RLock()  # held by the task using what this process built
# glibc's limits once its dynamic thresholds have grown (32 MiB: its largest mmap one)
_MMAP_THRESHOLD, _TRIM_THRESHOLD = 32 << 20, 64 << 20


def _heap_as_usual() -> None:
    """Undo, in a worker process, the `MALLOC_TRIM_THRESHOLD_` that Dask's nanny sets
    before starting it (`distributed.nanny.pre-spawn-environ`, 64 KiB). Setting it turns
    off glibc's dynamic thresholds, so every array of more than 128 KiB is mapped and
    unmapped afresh: the exact search ran 1.6x slower in a worker than alone
    (docs/solver.md, "The workers' heap"). Fixing both thresholds at the values the
    dynamic ones reach gives the usual speed, however the worker was started
    (`LocalCluster`, `dask worker`, a job queue). Nothing happens where the variable is
    unset or the C library is not glibc."""
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ or not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, _MMAP_THRESHOLD)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, _TRIM_THRESHOLD)  # M_TRIM_THRESHOLD
    except (OSError, AttributeError):  # not glibc: its own allocator, nothing to undo
        pass


# A local scheduler's HTTP routes (no dashboard) on loopback, on a free port.
LOOPBACK_HTTP = {"dashboard_address": "127.0.0.1:0"}


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
            # one core each: the compiled passes too (solver/infoset/threads.py)
            self.cluster = LocalCluster(n_workers=workers or 1, threads_per_worker=1,
                                        processes=True, dashboard_address=None,
                                        host="127.0.0.1", silence_logs=50,
                                        scheduler_kwargs=LOOPBACK_HTTP,
                                        env={"NUMBA_NUM_THREADS": "1"})
            self.client = Client(self.cluster)
        self.size = max(1, len(self.client.scheduler_info()["workers"]))

    def map(self, fn: Callable[..., Any], items: Iterable[tuple],
            done: Callable[[int, Any], None] | None = None) -> list[Any]:
        """fn(*item) for every item, on the workers; the results in item order.
        `done(i, result)` hears each as it arrives."""
        return self.results(self.submit(fn, items), done)

    def submit(self, fn: Callable[..., Any], items: Iterable[tuple]) -> list[Any]:
        """fn(*item) for every item, sent to the workers now: one future each, for
        `results` (the caller may send more work meanwhile)."""
        return [self.client.submit(fn, *item, pure=False) for item in items]

    def ahead(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(*args) on a worker, run before every task sent without it that has not
        started; its future (for `Flow.adopt`, or `cancel`)."""
        return self.client.submit(fn, *args, pure=False, priority=1)

    def cancel(self, futures: list[Any]) -> None:
        """These tasks are not wanted: those not yet running never run."""
        if futures:
            self.client.cancel(futures)

    def results(self, futures: list[Any],
                done: Callable[[int, Any], None] | None = None) -> list[Any]:
        """The results of `submit`'s futures, in its order; `done(i, result)` hears each
        as it arrives."""
        from dask.distributed import as_completed

        where = {f.key: i for i, f in enumerate(futures)}
        out: list[Any] = [None] * len(futures)
        for f in as_completed(futures):
            i = where[f.key]
            out[i] = f.result()
            if done is not None:
                done(i, out[i])
        return out

    def flow(self, window: int | None = None) -> Flow:
        """A stream of tasks sent one at a time (`Flow`), at most `window` of them out at
        once (default: two per worker, so that none waits on the driver)."""
        return Flow(self.client, window or 2 * self.size)

    def close(self) -> None:
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

    def __init__(self, client: Any, window: int):
        from dask.distributed import as_completed

        self.client, self.window = client, window
        self.out: set[Any] = set()
        self.arrived = as_completed([])

    def room(self) -> bool:
        return len(self.out) < self.window

    def send(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(*args) on a worker; its future (the key `arrivals` hears it by)."""
        future = self.client.submit(fn, *args, pure=False)
        self.out.add(future)
        self.arrived.add(future)
        return future

    def adopt(self, future: Any) -> None:
        """A task sent before this flow (`Workers.ahead`), heard here as if sent by it."""
        self.out.add(future)
        self.arrived.add(future)

    def cancel(self, futures: list[Any]) -> None:
        """Stop waiting for these futures; those not yet running never run."""
        futures = [f for f in futures if f in self.out]
        self.out.difference_update(futures)
        if futures:
            self.client.cancel(futures)

    def arrivals(self) -> Iterator[tuple[Any, Any]]:
        """(future, result) of each task sent and not cancelled, as it arrives, until none
        is out (tasks sent meanwhile included). A task's error is raised here."""
        for future in self.arrived:
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


__all__ = ["LOOPBACK_HTTP", "Flow", "Recipe", "Workers", "connect"]

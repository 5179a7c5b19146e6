"""Work split over Dask workers: a local cluster of worker processes (`--workers N`) or a
running scheduler (`--scheduler ADDRESS`), with the optional `cluster` extra.

A game holds compiled closures and caches that do not travel between processes, so
work travels as a `Recipe` (the spec, its settings and the strategy's) and each
worker process builds the game and the strategy once, then keeps them for every task
it is given: an exact search's table of solved information sets is shared by the
tasks one worker runs. Results come back in task order, so every caller gets the
same answer as a serial run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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

    def build(self) -> tuple[Game, Any]:
        """The game and the strategy, made once per process (one recipe at a time)."""
        if self not in _BUILT:
            from sleuth.solver.infoset.queries import Candidates
            from sleuth.solver.strategies import make_strategy

            game = load_game(self.spec, parse_overrides(self.overrides),
                             Budget(max_hypotheses=self.max_hypotheses,
                                    memory_mb=self.memory_mb), self.data_anywhere)
            strategy = make_strategy(self.strategy, Candidates(game, self.guesses),
                                     self.seed, **dict(self.options))
            _BUILT.clear()
            _BUILT[self] = (game, strategy)
        return _BUILT[self]


_BUILT: dict[Recipe, tuple[Game, Any]] = {}
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

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


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


__all__ = ["LOOPBACK_HTTP", "Recipe", "Workers", "connect"]

"""What a Dask worker loads as it starts, named by `dask worker ... --preload
sleuth.solver.evaluation.preload` (Dask imports the module in each worker process and
calls its `dask_setup`).

A worker started without it imports Sleuth when its first task arrives: the modules a
recipe's build and the split's tasks need (the compiler, NumPy's and numba's
Sleuth-side modules, the strategies), while the driver and the other workers build
their games on the same cores.
Preloaded, a worker imports them once when it starts, before any command, and a
command's split starts with the game's build itself. The build is not moved: it needs
the command's spec and settings (cluster.Recipe). docs/solver.md ("On several
machines") gives the command; benchmarks/dask_split.py --real starts its workers so.

A preloaded worker also makes its first call of a compiled function as it starts
(`warm`): numba sets up its typing and lowering tables at a process's first call,
whatever the function (more where SciPy is installed: numba imports it to look for
BLAS). Left to the build, that cost would come on top of each worker's first build.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# the modules whose functions run as tasks, and what their builds import
MODULES = (
    "sleuth.solver.evaluation.cluster",  # Recipe, the build of a game and strategy
    "sleuth.solver.evaluation.evaluate",  # walk_part: subtrees walked on the workers
    "sleuth.solver.strategies",  # every registered strategy (make_strategy)
    "sleuth.solver.search.split",  # solve_part: the optimal search's parts
)


def load() -> None:
    """Import MODULES in this process, and make its first compiled call (`warm`)."""
    import importlib

    for name in MODULES:
        importlib.import_module(name)
    warm()


@njit(cache=True)
def _first(x: np.ndarray) -> int:
    return x.shape[0]


def warm() -> None:
    """numba's set-up for a process's first call of a compiled function, done now: a call
    of a trivial one (its machine code loaded from numba's cache after the first run)."""
    _first(np.zeros(1, dtype=np.int64))


def dask_setup(worker: Any) -> None:
    """Dask's hook for a preload module, called once in each worker as it starts."""
    load()


__all__ = ["MODULES", "dask_setup", "load", "warm"]

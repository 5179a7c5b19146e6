"""What a Dask worker loads as it starts, named by `dask worker ... --preload
sleuth.solver.evaluation.preload` (Dask imports the module in each worker process and
calls its `dask_setup`).

A worker started without it imports Sleuth when its first task arrives: the modules a
recipe's build and the split's tasks need (the compiler, NumPy's and numba's
Sleuth-side modules, the strategies), 0.4 s of one core's time on this project's
machine, while the driver and the other workers build their games on the same cores.
Preloaded, a worker imports them once when it starts, before any command, and a
command's split starts with the game's build itself. The build is not moved: it needs
the command's spec and settings (cluster.Recipe). docs/solver.md ("On several
machines") gives the command; benchmarks/dask_split.py --real starts its workers so.
"""

from __future__ import annotations

from typing import Any

# the modules whose functions run as tasks, and what their builds import
MODULES = (
    "sleuth.solver.evaluation.cluster",  # Recipe, the build of a game and strategy
    "sleuth.solver.evaluation.evaluate",  # walk_part: subtrees walked on the workers
    "sleuth.solver.strategies",  # every registered strategy (make_strategy)
    "sleuth.solver.strategies.optimal_split",  # solve_part: the optimal search's parts
)


def load() -> None:
    """Import MODULES in this process."""
    import importlib

    for name in MODULES:
        importlib.import_module(name)


def dask_setup(worker: Any) -> None:
    """Dask's hook for a preload module, called once in each worker as it starts."""
    load()


__all__ = ["MODULES", "dask_setup", "load"]

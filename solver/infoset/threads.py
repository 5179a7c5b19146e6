"""How the exact searches' compiled passes (outcome_kernels.py) share the machine's cores.

A pass that reads at least SPLIT codes (set size x queries) is cut into one run of
queries per thread; below that, starting the threads costs more than they save (MM(4,6)'s
floors, about 14,000 codes each, gain nothing; MM(4,7)'s, about 38,000 on average, run
1.5x faster on 2 cores back to back, and the whole search 1.2x, since between passes the
second thread falls asleep and takes some 20-30 us to wake).

The threads are numba's, as many as `NUMBA_NUM_THREADS` says (by default one per core),
on its "safe" layer, Intel TBB (the `tbb` package): the searches run inside forked
children (compiler/guard.py, `evaluate --workers`) and in the web server's threads, and
only that layer is both fork-safe and thread-safe. Where it cannot load (no `tbb` wheel
for the platform), every pass runs on one core, with the same results: a pass's answer
never depends on how it was cut. A process that is one of several workers sharing the
machine (`sleuth bench --workers`, `sleuth atlas --workers`) calls `alone()`: its passes
then stay on one thread, as the workers already fill the cores (Dask's workers get the
same from `NUMBA_NUM_THREADS=1` in their environment, evaluation/cluster.py).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

SPLIT = 20_000  # codes read by one pass above which it is split over the threads

numba.config.THREADING_LAYER = "safe"
_usable: bool | None = None  # whether the safe layer loads here (probed on first need)
_alone = False  # this process is one of several workers: every pass on one thread


@njit(cache=True, parallel=True)
def _probe(x: np.ndarray) -> int:
    total = 0
    for i in prange(x.shape[0]):
        total += x[i]
    return total


def usable() -> bool:
    """Whether the fork- and thread-safe layer loads on this machine (asked once)."""
    global _usable
    if _usable is None:
        try:
            _probe(np.ones(2, dtype=np.int64))
            _usable = True
        except ValueError as error:  # numba: "No threading layer could be loaded"
            if "threading layer" not in str(error):
                raise
            _usable = False
    return _usable


def alone() -> None:
    """This process is one of several workers that share the cores: from now on its
    passes run on one thread each (a pool's initializer calls it in every worker)."""
    global _alone
    _alone = True


def pieces(work: int) -> int:
    """How many runs a pass reading `work` codes is cut into (1: not split)."""
    if work < SPLIT or _alone:
        return 1
    count = numba.get_num_threads()
    return count if count > 1 and usable() else 1


__all__ = ["SPLIT", "alone", "pieces", "usable"]

"""How a process that runs the searches sets up its heap: called by whatever owns the
process (the `sleuth` command, `cli.run`; a Dask worker building a recipe,
cluster.py), never by a library call inside someone else's process.

- `small_pages`: NumPy's huge-page advice off. On Linux with transparent huge pages
  set to `madvise` (the usual default), NumPy asks for huge pages on every array of
  4 MiB and more. A fresh huge page is zeroed, and when none is free the kernel
  compacts memory first, in the page fault, which makes large writes slow and
  erratic, most of all when several processes build at once (a Dask driver and its
  workers). docs/solver.md, "Huge pages", says more.
- `heap_as_usual`: glibc's dynamic thresholds back, in a Dask worker (below).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable

# glibc's limits once its dynamic thresholds have grown (32 MiB: its largest mmap one)
_MMAP_THRESHOLD, _TRIM_THRESHOLD = 32 << 20, 64 << 20
HUGE_PAGES_VARIABLE = "NUMPY_MADVISE_HUGEPAGE"  # NumPy's own switch, read at its import


def small_pages() -> bool:
    """Turn NumPy's huge-page advice off for the arrays made from now on, unless the
    user chose with NUMPY_MADVISE_HUGEPAGE (then their choice stands). Whether it was
    turned off here. NumPy documents the variable, read once at its import; the
    switch at run time (`_set_madvise_hugepage`) is not public, so where a NumPy lacks
    it nothing happens."""
    if HUGE_PAGES_VARIABLE in os.environ:
        return False
    switch = huge_page_switch()
    if switch is None:
        return False
    switch(False)
    return True


def huge_page_switch() -> Callable[[bool], bool] | None:
    """NumPy's run-time switch of its huge-page advice (on or off for the arrays made
    from then on; it returns the setting it replaced), or None where this NumPy lacks
    it. It is private, in `numpy._core` from NumPy 2 and `numpy.core` before."""
    import numpy as np

    core = getattr(np, "_core", None) or getattr(np, "core", None)
    return getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)


def heap_as_usual() -> None:
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


__all__ = ["HUGE_PAGES_VARIABLE", "heap_as_usual", "huge_page_switch", "small_pages"]

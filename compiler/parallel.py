"""The one runtime policy for compiled parallel code (numba's `parallel=True`).

Every kernel with a `prange` loop is declared with `@threaded(...)`, never with
`njit(parallel=True)`; every question about threads goes through this module.

The layer. The searches run in forked children (guard.py, `evaluate --workers`) and in
the web server's threads, so a kernel may run its loop on threads only on numba's
fork- and thread-safe layer, Intel TBB (the `tbb` package). Whether that layer loads is
decided once, on the first call of a threaded kernel or of `pieces`, never on import:

* the `tbb` wheel puts `libtbb.so.12` in the environment's own `lib/`, which the
  dynamic loader does not search (numba's `tbbpool` extension carries no RPATH), so a
  venv would never find it; the library is loaded from the path the wheel's own record
  gives, before numba looks for it;
* numba is then asked for its threads under the "safe" layer (or under the layer
  `NUMBA_THREADING_LAYER` names, where the user chose one).

Where no such layer loads, each threaded kernel runs its twin compiled without
`parallel` (each `prange` then a plain `range`): the same loop on one thread, with the
same results, since a pass's answer never depends on how its work was cut. `one_thread()`
forces that twin in a block (the tests run both modes), and `alone()` for the rest of
a process that is one of several workers sharing the cores.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

SPLIT = 20_000  # work (codes read) above which a pass is cut into one run per thread

_loads: bool | None = None  # whether a fork- and thread-safe layer loads (decided once)
_alone = False  # this process shares the cores with other workers: one thread each pass
_forced = 0  # one_thread() blocks open: the serial twins, as if no layer loaded


def _tbb_library() -> str | None:
    """The path of the TBB runtime the `tbb` wheel installed, or None."""
    from importlib import metadata

    name = {"win32": "tbb12.dll", "darwin": "libtbb.12.dylib"}.get(sys.platform,
                                                                   "libtbb.so.12")
    try:
        files = metadata.distribution("tbb").files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == name:
            path = os.fspath(file.locate())
            return path if os.path.exists(path) else None
    return None


def _preload_tbb() -> None:
    """Load the wheel's TBB runtime by its path, so that numba's `tbbpool` (which asks
    the loader for it by name) finds it already loaded."""
    path = _tbb_library()
    if path is None:
        return
    if sys.platform == "win32":
        os.add_dll_directory(os.path.dirname(path))
        return
    with contextlib.suppress(OSError):
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


def layer_loads() -> bool:
    """Whether a fork- and thread-safe threading layer loads here (decided once)."""
    global _loads
    if _loads is None:
        import numba

        if "NUMBA_THREADING_LAYER" not in os.environ:
            numba.config.THREADING_LAYER = "safe"
        _preload_tbb()
        try:
            numba.get_num_threads()  # numba starts its layer here, or says it cannot
            _loads = True
        except ValueError as error:  # "No threading layer could be loaded"
            if "threading layer" not in str(error):
                raise
            _loads = False
    return _loads


def threads_on() -> bool:
    """Whether threaded kernels run on threads now (else their one-thread twins)."""
    return not _forced and layer_loads()


def threads() -> int:
    """How many threads a pass may be cut over now (1: the one-thread twins)."""
    if _alone or not threads_on():
        return 1
    import numba

    return numba.get_num_threads()


def pieces(work: int) -> int:
    """How many runs a pass reading `work` codes is cut into (1: not split)."""
    return 1 if work < SPLIT else threads()


def alone() -> None:
    """This process is one of several workers that share the cores: from now on its
    passes run on one thread each (a pool's initializer calls it in every worker)."""
    global _alone
    _alone = True


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Within the block, every threaded kernel runs its one-thread twin, as where no
    safe layer loads (the tests run both modes with it)."""
    global _forced
    _forced += 1
    try:
        yield
    finally:
        _forced -= 1


def _twin(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A copy of `fn` under another qualified name, so that numba caches its one-thread
    compilation apart from the threaded one (numba's cache is keyed by name and line,
    not by the `parallel` flag)."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__module__ = fn.__module__
    copy.__qualname__ = fn.__qualname__ + "_one_thread"
    copy.__doc__ = fn.__doc__
    return copy


class Threaded:
    """A kernel with `prange` loops: compiled with `parallel=True` and run on the safe
    layer's threads where `threads_on()`, else its twin compiled without (each compiled
    on its first call)."""

    def __init__(self, fn: Callable[..., Any], options: dict[str, Any]):
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self.options = options
        self._threaded: Any = None
        self._serial: Any = None

    def dispatcher(self) -> Any:
        """The numba dispatcher a call runs now."""
        from numba import njit

        if threads_on():
            if self._threaded is None:
                self._threaded = njit(parallel=True, **self.options)(self.py_func)
            return self._threaded
        if self._serial is None:
            self._serial = njit(**self.options)(_twin(self.py_func))
        return self._serial

    def __call__(self, *args: Any) -> Any:
        return self.dispatcher()(*args)


def threaded(**options: Any) -> Callable[[Callable[..., Any]], Threaded]:
    """Declare a kernel with `prange` loops (`options` as for numba's njit, without
    `parallel`): see the module."""
    if "parallel" in options:
        raise TypeError("threaded kernels choose `parallel` themselves")

    def wrap(fn: Callable[..., Any]) -> Threaded:
        return Threaded(fn, options)

    return wrap


__all__ = ["SPLIT", "Threaded", "alone", "layer_loads", "one_thread", "pieces", "threaded",
           "threads", "threads_on"]

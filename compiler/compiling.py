"""Whether compiled code is being compiled now, for the interfaces to say so.

numba compiles a kernel on its first call where its on-disk cache has no copy for this
machine (the first run after an install or an upgrade), and that can take a minute
before any result. It announces each compile as an event (`numba:compile`), never for a
copy read from the cache; a listener counts the compiles in flight, so `compiling()`
answers at any moment (the web worksheet asks), and `on_first_compile(note)` has `note`
called once, as the first compile of the process starts (the command line prints a
line on stderr). The listener is registered once numba is imported: a command that
never runs compiled code does not pay for importing it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

_lock = threading.Lock()
_listening = False
_in_flight = 0  # compiles started and not ended (nested ones counted too)
_done = 0  # compiles ended in this process
_notes: list[Callable[[], None]] = []  # called at the next compile start, then dropped


def _after_fork() -> None:
    """In a forked child: a lock another thread of the parent held is free again."""
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _listen() -> None:
    """Register the event listener with numba (once)."""
    global _listening
    with _lock:
        if _listening:
            return
        from numba.core import event

        class Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                global _in_flight
                with _lock:
                    _in_flight += 1
                    notes = list(_notes)
                    _notes.clear()
                for note in notes:
                    note()

            def on_end(self, ev: Any) -> None:
                global _in_flight, _done
                with _lock:
                    _in_flight -= 1
                    _done += 1

        event.register("numba:compile", Listener())
        _listening = True


class _WhenImported(importlib.abc.MetaPathFinder):
    """Registers the listener right after numba's first import (then leaves sys.path's
    finders as they were)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "numba":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            _listen()

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _listen_when_imported() -> None:
    """Listen now if numba is imported, else as soon as it is."""
    if "numba" in sys.modules:
        _listen()
    elif not any(isinstance(f, _WhenImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenImported())


def compiling() -> bool:
    """Whether a kernel is being compiled now (in any thread of this process)."""
    _listen()
    return _in_flight > 0


def compiled() -> int:
    """How many compiles (kernels and the library code they use) this process made."""
    _listen()
    return _done


def on_first_compile(note: Callable[[], None]) -> None:
    """Call `note` once, as the next compile starts (not at all if none does)."""
    with _lock:
        _notes.append(note)
    _listen_when_imported()


__all__ = ["compiled", "compiling", "on_first_compile"]

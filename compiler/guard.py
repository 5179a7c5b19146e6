"""Steps that run in C libraries, run in a child process under a memory limit.

A C library that runs out of memory does not raise MemoryError: the SDD library
prints "calloc failed" and exits the process, after growing to whatever the
machine gives it. `limited(step, memory_mb, what, hint)` forks, caps the child's
address space at what it already maps plus `memory_mb`, runs `step()` there and
returns its (small, picklable) result; a step that builds something large
writes it to a file, which the parent reads back (compiler/symbolic.py). A
child that dies, or fails, becomes a BudgetError that names the step and the
budget, and the parent carries on.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import resource
import traceback
from collections.abc import Callable
from typing import Any

from sleuth.compiler.errors import BudgetError, SleuthError

STATUS = "/proc/self/status"


def mapped_bytes() -> int:
    """This process's address space (VmSize), or 0 where /proc is not there."""
    try:
        with open(STATUS, encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _child(step: Callable[[], Any], limit: int, conn: Any) -> None:
    # The library's own last words ("calloc failed in ...") are not for the user: the
    # parent reports the budget instead.
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        conn.send(("ok", step()))
    except SleuthError as e:
        conn.send(("error", e))
    except MemoryError:
        conn.send(("memory", None))
    except BaseException:  # noqa: BLE001 -- reported in the parent, with its text
        conn.send(("crash", traceback.format_exc(limit=-4)))
    finally:
        conn.close()
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers twice


def limited(step: Callable[[], Any], memory_mb: int, what: str, hint: str) -> Any:
    """step() in a forked child whose address space may grow by memory_mb MiB."""
    if os.name != "posix" or "fork" not in mp.get_all_start_methods():
        return step()  # no fork: run it here, unguarded
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    base = mapped_bytes()
    limit = base + memory_mb * 2**20 if base else 0
    proc = ctx.Process(target=_child, args=(step, limit, child), daemon=True)
    proc.start()
    child.close()
    try:
        kind, value = parent.recv()
    except EOFError:  # the child died: a C library's exit() or a signal
        kind, value = "memory", None
    except KeyboardInterrupt:
        proc.kill()
        raise
    finally:
        proc.join()
        parent.close()
    if kind == "ok":
        return value
    if kind == "error":
        raise value
    if kind == "memory":
        raise BudgetError(f"{what} needs more than the {memory_mb:,} MiB memory budget "
                          f"(exit status {proc.exitcode})", hint=hint)
    raise RuntimeError(f"{what} failed in its child process:\n{value}")


__all__ = ["limited", "mapped_bytes"]

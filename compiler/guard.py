"""Steps that run in C libraries, run in a child process under a memory limit.

A C library that runs out of memory does not raise MemoryError: the SDD library
prints "calloc failed" and exits the process, after growing to whatever the
machine gives it. `limited(step, memory_mb, what, hint)` forks, caps the child's
address space at what it already maps plus `memory_mb`, runs `step()` there and
returns its (small, picklable) result; a step that builds something large
writes it to a file, which the parent reads back (compiler/symbolic.py).
`in_child(step, timeout=...)` is the same fork with a wall-clock limit, for a
counter that may run for ever (compiler/cnf.py).

Each way a child can end is reported as what it is, never as another: a result;
a user error raised in the child (re-raised here); running out of the budget
(MemoryError, or a library's "alloc failed" as its last words: BudgetError);
the time limit (BudgetError); a crash, with the child's own message or its exit
status and last words (BackendError). The fork is os.fork, not
multiprocessing's Process, so the guard also works inside a daemonic process (a
multiprocessing.Pool worker), which multiprocessing forbids to have children.
"""

from __future__ import annotations

import _imp
import os
import pickle
import resource
import select
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from sleuth.compiler import parallel
from sleuth.compiler.errors import BackendError, BudgetError, SleuthError

STATUS = "/proc/self/status"
TICK = 1.0  # seconds between reports of a child still at work
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a child gets when its parent dies
MEMORY_WORDS = ("alloc", "memory", "bad_alloc")  # a C library's last words when it ran out


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


SLACK_MB = 768  # what a process holds besides its budget: interpreter, libraries, kernels
POLL = 0.1  # seconds between two readings of the resident memory


def resident_bytes() -> int:
    """This process's resident memory (RSS), or 0 where /proc is not there."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


@contextmanager
def resident_cap(budget_mb: int, what: str, hint: str) -> Iterator[None]:
    """Within the block, this process's resident memory stays under `budget_mb` plus
    SLACK_MB, or the block stops with a BudgetError saying `what` and `hint`.

    A thread reads the RSS every POLL seconds; past the cap it signals the main thread,
    whose handler raises the error there, at its next Python step (a compiled pass
    finishes first), and signals again while the memory stays above. The exact searches'
    tables grow by Python objects and arrays, so the cap holds within what a POLL's
    growth and one pass add. Outside the main thread (the web server's workers) the block
    runs uncapped: signals reach the main thread only."""
    if threading.current_thread() is not threading.main_thread() or not resident_bytes():
        yield
        return
    cap = (budget_mb + SLACK_MB) << 20
    over: list[int] = []
    stop = threading.Event()

    def handler(signum: int, frame: Any) -> None:
        if over:
            raise BudgetError(f"{what} grew to {over[-1] >> 20:,} MiB, past the "
                              f"{budget_mb:,} MiB budget (+{SLACK_MB} MiB for the "
                              f"interpreter and its libraries)", hint=hint)

    def watch() -> None:
        main = threading.main_thread().ident
        while not stop.wait(POLL):
            rss = resident_bytes()
            if rss > cap and main is not None:
                over.append(rss)
                signal.pthread_kill(main, signal.SIGUSR2)

    before = signal.signal(signal.SIGUSR2, handler)
    watcher = threading.Thread(target=watch, name="sleuth-memory-cap", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()
        signal.signal(signal.SIGUSR2, before)


Reporter = Callable[[str, float | None], None]
REPORTERS: list[Reporter] = []  # told (what, seconds so far) while a child works; None: done


def add_reporter(reporter: Reporter) -> None:
    """From now on `reporter(what, seconds)` hears every TICK seconds how long a guarded
    step has been at work (an interface shows it; the compiler prints nothing), and
    `reporter(what, None)` when it ends."""
    REPORTERS.append(reporter)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[None]:
    """add_reporter for the length of a block."""
    add_reporter(reporter)
    try:
        yield
    finally:
        REPORTERS.remove(reporter)


def _report(what: str, seconds: float | None) -> None:
    for reporter in list(REPORTERS):
        reporter(what, seconds)


@dataclass(frozen=True)
class Ending:
    """How a child ended: kind is ok | error | memory | crash | died | timeout."""

    kind: str
    value: Any = None
    status: str = ""  # "exit status N" or "signal NAME"
    last_words: str = ""  # the end of what the child wrote to stderr

    def ran_out(self) -> bool:
        """Whether a child that died said it could not allocate, or was killed for memory."""
        said = self.last_words.lower()
        return self.kind == "memory" or (self.kind == "died" and (
            any(w in said for w in MEMORY_WORDS) or self.status == "signal SIGKILL"))


def _run(step: Callable[[], Any], limit: int, out: int, quiet_stdout: bool,
         serial: bool) -> None:
    """The child's side: run step() under the address-space limit (its threaded kernels
    on one thread when `serial`: see `_forking`), send one pickled (kind, value) to
    `out`, and leave without running the parent's exit handlers."""
    try:
        if quiet_stdout:  # a library's progress lines are not the command's output
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            with parallel.one_thread() if serial else nullcontext():
                message: tuple[str, Any] = ("ok", step())
        except SleuthError as e:
            message = ("error", e)
        except MemoryError:
            message = ("memory", None)
        except BaseException as e:  # noqa: BLE001 -- sent to the parent as a crash, with its text
            text = "".join(traceback.format_exception_only(type(e), e)).strip()
            frame = traceback.extract_tb(e.__traceback__)[-1]
            message = ("crash", f"{text} (in {frame.name}, {os.path.basename(frame.filename)}"
                                f":{frame.lineno})")
        try:
            data = pickle.dumps(message)
        except Exception as e:  # noqa: BLE001 -- an unpicklable result is the step's bug
            data = pickle.dumps(("crash", f"the result could not be sent back: {e!r}"))
        with os.fdopen(out, "wb") as f:
            f.write(data)
    finally:
        os._exit(0)


def _die_with_parent() -> None:
    """In the child, on Linux: SIGKILL when the parent dies (a parent killed outright
    leaves no orphan to run on). Elsewhere nothing: the child ends at its next write."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _status(wait_status: int) -> str:
    if os.WIFSIGNALED(wait_status):
        return f"signal {signal.Signals(os.WTERMSIG(wait_status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(wait_status)}"


def in_child(step: Callable[[], Any], *, memory_mb: int | None = None,
             timeout: float | None = None, quiet_stdout: bool = False,
             what: str = "a step in a child process", hold: tuple[Any, ...] = (),
             started: Callable[[int], None] | None = None) -> Ending:
    """step() in a forked child (address space capped at what this process maps plus
    memory_mb MiB; killed after `timeout` seconds); how it ended. The reporters hear of
    `what` every TICK seconds while it works. The locks in `hold` are held across the
    fork (see `_forking`); `started(pid)` is told the child's pid (a caller that may
    give the step up kills it: the step then ends as "died", signal SIGKILL)."""
    base = mapped_bytes() if memory_mb is not None else 0
    limit = base + memory_mb * 2**20 if base and memory_mb is not None else 0
    serial = threading.current_thread() is not threading.main_thread()
    with tempfile.TemporaryFile() as err:
        read, write = os.pipe()
        with _forking(hold):
            pid = os.fork()
        if pid == 0:  # the child: it never returns into the parent's code
            try:
                _die_with_parent()
                os.close(read)
                os.dup2(err.fileno(), 2)  # its last words, kept for the parent
                _run(step, limit, write, quiet_stdout, serial)
            finally:
                os._exit(1)
        os.close(write)
        if started is not None:
            started(pid)
        data, timed_out, reported = bytearray(), False, False
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        try:
            while True:
                wait = TICK if deadline is None else \
                    max(0.0, min(TICK, deadline - time.monotonic()))
                if not select.select([read], [], [], wait)[0]:
                    if deadline is not None and time.monotonic() >= deadline:
                        timed_out = True
                        os.kill(pid, signal.SIGKILL)
                        break
                    _report(what, time.monotonic() - start)
                    reported = True
                    continue
                chunk = os.read(read, 1 << 16)
                if not chunk:
                    break
                data += chunk
        except BaseException:  # Ctrl-C (or anything else) here: the child goes too
            os.kill(pid, signal.SIGKILL)
            raise
        finally:
            os.close(read)
            _, wait_status = os.waitpid(pid, 0)
            if reported:
                _report(what, None)
        err.seek(0)
        last = err.read()[-2000:].decode("utf-8", "replace").strip()
    status = _status(wait_status)
    if timed_out:
        return Ending("timeout", status=status, last_words=last)
    if not data:
        return Ending("died", status=status, last_words=last)
    kind, value = pickle.loads(bytes(data))
    return Ending(kind, value, status, last)


@contextmanager
def _forking(hold: tuple[Any, ...]) -> Iterator[None]:
    """Around a fork: nothing the child may need is copied while another thread has it.

    Numba's compiler lock (where numba is loaded) and the locks in `hold` are held (a
    compile in flight would leave the child's compiler lock taken for ever), and so is
    the interpreter's import lock, and the fork waits (up to QUIET seconds, letting go
    of every lock between tries) until no other thread is inside an import: a module
    lock copied while taken leaves the child waiting on that import for ever. Between
    that look and the fork no other thread runs (the interpreter's switch interval is
    raised for the instant).

    Off the main thread, numba's TBB pool may not survive the fork and prints a warning
    saying so; the child then runs threaded kernels as their one-thread twins
    (parallel.one_thread, in `_run`), never on that pool, and the warning is kept off
    stderr for the instant of the fork."""
    give_up = time.monotonic() + QUIET
    while True:
        with ExitStack() as stack:
            compiler_lock = sys.modules.get("numba.core.compiler_lock")
            if compiler_lock is not None:
                stack.enter_context(compiler_lock.global_compiler_lock)
            for lock in hold:
                stack.enter_context(lock)
            _imp.acquire_lock()
            stack.callback(_imp.release_lock)
            stack.callback(sys.setswitchinterval, sys.getswitchinterval())
            sys.setswitchinterval(60.0)
            if not _importing() or time.monotonic() > give_up:
                stack.enter_context(_quiet_stderr())
                yield
                return
        time.sleep(0.005)


QUIET = 5.0  # seconds a fork waits for other threads' imports to end


def _importing() -> bool:
    """Whether a thread of this process is inside an import (holds a module's import
    lock; the forking thread never is), as CPython's importlib keeps them."""
    bootstrap = sys.modules.get("importlib._bootstrap")
    for ref in list(getattr(bootstrap, "_module_locks", {}).values()):
        lock = ref() if callable(ref) else ref
        if lock is None:
            continue
        inner = getattr(lock, "lock", None)
        if getattr(lock, "owner", None) is not None or (inner is not None and inner.locked()):
            return True
    return False


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Off the main thread, stderr goes nowhere for the block (see `_forking`)."""
    if threading.current_thread() is threading.main_thread():
        yield
        return
    saved = os.dup(2)
    quiet = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(quiet, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(quiet)


def limited(step: Callable[[], Any], memory_mb: int, what: str, hint: str) -> Any:
    """step() in a forked child whose address space may grow by memory_mb MiB."""
    if os.name != "posix":
        return step()  # no fork: run it here, unguarded
    end = in_child(step, memory_mb=memory_mb, what=what)
    if end.kind == "ok":
        return end.value
    if end.kind == "error":
        raise end.value
    if end.ran_out():
        raise BudgetError(f"{what} needs more than the {memory_mb:,} MiB memory budget "
                          f"({end.status})", hint=hint)
    raise crash(what, end)


def crash(what: str, end: Ending) -> BackendError:
    """The error for a child that crashed or died, with its own words."""
    if end.kind == "crash":
        return BackendError(f"{what} failed: {end.value}")
    words = f"; its last words: {end.last_words[-500:]}" if end.last_words else ""
    return BackendError(f"{what} died ({end.status}){words}")


__all__ = ["SLACK_MB", "Ending", "Reporter", "add_reporter", "crash", "in_child", "limited",
           "mapped_bytes", "resident_bytes", "resident_cap",
           "reporting"]

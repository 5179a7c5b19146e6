"""A child process's every ending is reported as what it is (compiler/guard.py): a crash with
its own message, a time-out as a time-out, running out of memory as the budget; and the
guard works inside a daemonic pool worker."""

from __future__ import annotations

import os
import sys
import time
from multiprocessing import get_context

import pytest

from sleuth.compiler import BudgetError
from sleuth.compiler.api import BackendError
from sleuth.compiler.cnf import projected_count
from sleuth.compiler.guard import in_child, limited
from sleuth.solver.interfaces.cli import main
from tests.conftest import alive

# (x1 or x2) and (not x1 or x3): 4 models over x1..x3; projected onto x1, x2: 3
CLAUSES, VARIABLES = [[1, 2], [-1, 3]], 3


def test_ganak_counts_in_its_child():
    assert projected_count(CLAUSES, VARIABLES, 3, timeout=30) == 4
    assert projected_count(CLAUSES, VARIABLES, 2, timeout=30) == 3


def test_a_ganak_import_error_is_reported_as_itself(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyganak", None)  # the child inherits it
    with pytest.raises(BackendError) as err:
        projected_count(CLAUSES, VARIABLES, 3, timeout=30)
    assert "ModuleNotFoundError" in err.value.message and "pyganak" in err.value.message
    assert "within" not in err.value.message


class SlowCounter:
    """A stand-in for pyganak.Counter that never finishes in time."""

    def new_vars(self, n): pass

    def add_clauses(self, clauses): pass

    def set_sampling_set(self, s): pass

    def count(self):
        time.sleep(30)


def test_a_ganak_timeout_is_reported_as_a_timeout(monkeypatch):
    import pyganak

    monkeypatch.setattr(pyganak, "Counter", SlowCounter)
    start = time.monotonic()
    with pytest.raises(BudgetError, match="no count within 1 s"):
        projected_count(CLAUSES, VARIABLES, 3, timeout=1.0)
    assert time.monotonic() - start < 10


def test_the_command_line_reports_a_ganak_crash_with_its_message(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyganak", None)
    with pytest.raises(SystemExit) as done:
        main(["info", "mastermind", "--set", "pegs=2", "--set", "colours=3",
              "--backend", "cnf"])
    err = capsys.readouterr().err
    assert done.value.code == 1 and "Traceback" not in err
    assert err.startswith("error: Ganak's projected count failed: ModuleNotFoundError")
    assert "within" not in err


def abort() -> None:
    import faulthandler

    faulthandler.disable()  # pytest's dump of the stack would go to the test's own stderr
    os.abort()


def test_a_child_that_dies_is_a_crash_not_the_memory_budget():
    end = in_child(abort, memory_mb=256)
    assert (end.kind, end.status) == ("died", "signal SIGABRT") and not end.ran_out()
    with pytest.raises(BackendError, match=r"died \(signal SIGABRT\)"):
        limited(abort, 256, "the step", hint="")


def test_running_out_of_memory_is_the_budget():
    with pytest.raises(BudgetError, match="needs more than the 64 MiB memory budget"):
        limited(lambda: bytearray(2**30), 64, "the step", hint="raise --memory-mb")


def test_a_python_error_in_the_child_is_a_crash_with_its_message():
    with pytest.raises(BackendError, match="ZeroDivisionError: integer division or modulo by zero"):
        limited(lambda: 1 // 0, 256, "the step", hint="")


def guarded_square(x: int) -> int:
    return limited(lambda: x * x, 256, "the step", hint="")


def test_the_guard_works_inside_a_daemonic_pool_worker():
    """multiprocessing forbids a daemonic process children; the guard forks by itself."""
    with get_context("fork").Pool(1) as pool:
        assert pool.map(guarded_square, [3, 4]) == [9, 16]
        assert pool.apply(projected_count, (CLAUSES, VARIABLES, 3, 30.0)) == 4


def test_a_child_dies_with_its_parent():
    """A parent killed outright (SIGKILL) leaves no child running on (PR_SET_PDEATHSIG)."""
    import subprocess

    code = ("from sleuth.compiler.guard import in_child; import time; "
            "in_child(lambda: time.sleep(30))")
    parent = subprocess.Popen([sys.executable, "-c", code])
    children: list[str] = []
    for _ in range(100):  # wait for the fork
        time.sleep(0.05)
        children = subprocess.run(["pgrep", "-P", str(parent.pid)], capture_output=True,
                                  text=True).stdout.split()
        if children:
            break
    parent.kill()
    parent.wait()
    time.sleep(0.5)
    assert children and not any(alive(c) for c in children)


def test_a_lock_held_across_the_fork_is_free_in_the_child():
    """`hold`: a lock another thread has when the step starts is waited for, so the child
    never gets a copy of it taken (it would wait on it for ever: here, until `timeout`)."""
    import threading

    lock = threading.Lock()
    taken, release = threading.Event(), threading.Event()

    def holder() -> None:
        with lock:
            taken.set()
            release.wait(5)

    other = threading.Thread(target=holder)
    other.start()
    taken.wait(5)
    threading.Timer(0.3, release.set).start()

    def step() -> str:
        with lock:
            return "took it"

    start = time.monotonic()
    end = in_child(step, timeout=5, hold=(lock,))
    other.join()
    assert (end.kind, end.value) == ("ok", "took it")
    assert time.monotonic() - start >= 0.25  # it waited for the other thread


def test_a_step_given_up_is_killed_by_its_pid():
    """`started(pid)`: the caller may kill the child; the step then ends as died, SIGKILL,
    at once rather than after its work."""
    import signal

    start = time.monotonic()
    end = in_child(lambda: time.sleep(30), started=lambda pid: os.kill(pid, signal.SIGKILL))
    assert (end.kind, end.status) == ("died", "signal SIGKILL")
    assert time.monotonic() - start < 5


def test_a_child_forked_off_the_main_thread_runs_threaded_kernels_on_one_thread():
    """A fork from a worker thread (the web server's) leaves numba's TBB pool unusable in
    the child: the child runs the one-thread twins; from the main thread it need not."""
    import threading

    from sleuth.compiler import parallel

    def threads() -> bool:
        return parallel.threads_on()

    assert in_child(threads).value == parallel.layer_loads()
    got: list = []
    worker = threading.Thread(target=lambda: got.append(in_child(threads)))
    worker.start()
    worker.join()
    assert got[0].value is False

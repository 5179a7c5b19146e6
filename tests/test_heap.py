"""The heap of a process that runs the searches (solver/evaluation/heap.py): glibc's
thresholds back in a Dask worker, and NumPy's huge-page advice off where Sleuth owns
the process (the `sleuth` command, a worker's build), never in a caller's process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sleuth.solver.evaluation import cluster, heap
from tests.conftest import ROOT

SPEC = str(ROOT / "specs" / "mastermind.yaml")
SWITCH = heap.huge_page_switch()


@pytest.fixture
def advice(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """NumPy's huge-page switch, watched: each value it is set to; the process's own
    setting is put back afterwards, and the user's variable is unset meanwhile."""
    monkeypatch.delenv(heap.HUGE_PAGES_VARIABLE, raising=False)
    calls: list[bool] = []
    before = SWITCH(True)
    SWITCH(before)
    monkeypatch.setattr(heap, "huge_page_switch",
                        lambda: lambda on: calls.append(bool(on)) or before)
    yield calls
    SWITCH(before)


def test_small_pages_turns_the_advice_off_unless_the_user_chose(advice, monkeypatch):
    assert heap.small_pages() is True
    assert advice == [False]
    monkeypatch.setenv(heap.HUGE_PAGES_VARIABLE, "1")
    assert heap.small_pages() is False
    assert advice == [False]


def test_the_sleuth_command_turns_it_off_and_the_cli_in_process_does_not(advice, capsys,
                                                                       monkeypatch):
    import gc

    from sleuth.solver.interfaces.cli import main, run

    monkeypatch.setattr(gc, "freeze", lambda: None)  # run() freezes: not in this process
    main(["check", SPEC])
    assert advice == []
    monkeypatch.setattr(sys, "argv", ["sleuth", "check", SPEC])
    run()
    assert "OK" in capsys.readouterr().out
    assert advice == [False]


def test_the_installed_command_runs_with_the_advice_off():
    """In a process of its own: NumPy's switch, set back on afterwards, returns the
    value the command left (off), and stays on where the user asked for it."""
    probe = ("import runpy, sys\n"
             "from sleuth.solver.evaluation.heap import huge_page_switch\n"
             f"sys.argv = ['sleuth', 'check', {SPEC!r}]\n"
             "runpy.run_module('sleuth', run_name='__main__')\n"
             "print('advice', huge_page_switch()(True))\n")
    env = {k: v for k, v in os.environ.items() if k != heap.HUGE_PAGES_VARIABLE}

    def left(extra: dict[str, str]) -> str:
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                             check=True, cwd=ROOT, env={**env, **extra}).stdout
        assert "OK" in out
        return out.rsplit("advice", 1)[1].strip()

    assert left({}) == "False"
    assert left({heap.HUGE_PAGES_VARIABLE: "1"}) == "True"


@pytest.mark.parametrize("in_worker", [False, True])
def test_a_recipe_built_in_a_worker_sets_the_heap_up_and_elsewhere_not(
        advice, monkeypatch, in_worker):
    heaps: list[bool] = []
    monkeypatch.setattr(cluster, "heap_as_usual", lambda: heaps.append(True))
    monkeypatch.setattr(cluster, "_in_worker", lambda: in_worker)
    monkeypatch.setattr(cluster, "_BUILT", {})
    recipe = cluster.Recipe(SPEC, ("pegs=2", "colours=3"), strategy="minimax")
    game, strategy = recipe.build()
    assert game.name and strategy.name == "minimax"
    assert (heaps, advice) == (([True], [False]) if in_worker else ([], []))


def test_in_worker_is_false_in_the_test_process():
    assert cluster._in_worker() is False


def test_a_worker_undoes_the_nannys_heap_setting(monkeypatch):
    """Dask's nanny sets MALLOC_TRIM_THRESHOLD_ in every worker it starts; building a
    recipe there sets glibc's two thresholds back to the values its dynamic ones
    reach, and leaves the heap alone where the variable is unset."""
    calls = []

    class Libc:
        def mallopt(self, option, value):
            calls.append((option, value))
            return 1

    monkeypatch.setattr(heap.ctypes, "CDLL", lambda name: Libc())
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    heap.heap_as_usual()
    assert calls == []
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    heap.heap_as_usual()
    expected = [(-3, 32 << 20), (-1, 64 << 20)] if heap.sys.platform.startswith("linux") \
        else []
    assert calls == expected

"""The `sleuth` process: its console script and `python -m sleuth` run one command in a
process of their own, and freeze what the imports made out of the garbage collector's
walks once the command is loaded; the CLI called in a longer process freezes nothing."""

from __future__ import annotations

import gc
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # the second tier: end to end

SPEC = str(ROOT / "specs" / "mastermind.yaml")


@pytest.fixture
def freezes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """gc.freeze's calls, each as whether the command's module was loaded by then."""
    calls: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(
        "sleuth.solver.interfaces.commands.inspect" in sys.modules))
    return calls


def test_the_cli_called_in_process_freezes_nothing(freezes, capsys):
    from sleuth.solver.interfaces.cli import main

    main(["check", SPEC])
    assert "OK" in capsys.readouterr().out
    assert freezes == []


def test_the_console_entry_freezes_once_the_command_is_loaded(freezes, capsys, monkeypatch):
    from sleuth.solver.interfaces.cli import run

    monkeypatch.setattr(sys, "argv", ["sleuth", "check", SPEC])
    run()
    assert "OK" in capsys.readouterr().out
    assert freezes == [True]


def test_the_installed_script_and_python_m_sleuth_are_the_console_entry():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["sleuth"] == "sleuth.solver.interfaces.cli:run"
    probe = ("import gc, runpy, sys\n"
             f"sys.argv = ['sleuth', 'check', {SPEC!r}]\n"
             "runpy.run_module('sleuth', run_name='__main__')\n"
             "print('frozen', gc.get_freeze_count())\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    frozen = int(out.rsplit("frozen", 1)[1])
    assert "OK" in out and frozen > 10_000  # (the imports' objects: about 100,000)

"""What issue 28's independent fuzz run still found, each now a result or a located error
with exit status 1 (never a traceback, a MemoryError or a 500)."""

from __future__ import annotations

import resource
import subprocess
import sys
import time

import pytest
from starlette.testclient import TestClient

from sleuth.compiler import SpecError
from sleuth.compiler.game import load_game_text
from sleuth.compiler.guard import in_child, reporting
from sleuth.solver.interfaces.web.app import create_app
from tests.test_hostile import RUNAWAY

SMALL = """\
game: Small
params: {big: 40, pegs: 2, colours: 3}
domains:
  Colour: {range: "1..colours"}
secret:
  code: {seq: Colour, len: pegs}
queries:
  guess:
    args: {g: {seq: Colour, len: pegs}}
    feedback:
      a: "EXPR"
"""


def capped() -> None:
    """A child with 6 GiB of address space: an allocation of the sizes these specs once
    asked for (1 TiB, 30 GiB, 769 GiB) fails at once instead of swapping the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))


def sleuth(tmp_path, expr: str, *args: str) -> subprocess.CompletedProcess:
    spec = tmp_path / "small.yaml"
    spec.write_text(SMALL.replace("EXPR", expr))
    return subprocess.run([sys.executable, "-m", "sleuth", *args[:1], str(spec), *args[1:]],
                          capture_output=True, text=True, timeout=300, preexec_fn=capped)


def test_a_feedback_with_a_vast_code_space_is_summarised(tmp_path):
    """'count([big, big], big) ** big' codes into 2**40 values: check allocated 1 TiB."""
    done = sleuth(tmp_path, "count([big, big], big) ** big", "check")
    assert done.returncode == 0, done.stderr
    assert "a: 1 value" in done.stdout  # 2**40 possible codes, one of them reached


@pytest.mark.parametrize("strategy", ["entropy", "minimax", "optimal", "lookahead"])
def test_strategies_on_a_vast_code_space_never_allocate_it(tmp_path, strategy):
    """prod(127 for q in Colour) + g[0] - code[0]: 3.3e10 codes. The strategies' tables
    are over the codes that occur (9 here), not every possible one (30 GiB, 769 GiB)."""
    done = sleuth(tmp_path, "prod(127 for q in Colour) * (g[0] + 3) - code[0]", "evaluate",
                  "--strategy", strategy, "--json")
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr
    assert done.returncode == 1  # g[0] - code[0] cannot tell code[1] apart: said so
    assert "indistinguishable" in done.stderr or "no sequence" in done.stderr


def test_a_vast_code_space_that_separates_is_solved(tmp_path):
    import json

    expr = "prod(127 for q in Colour) * (g[0] + 3) - 3 * code[0] - code[1]"
    done = sleuth(tmp_path, expr, "evaluate", "--strategy", "optimal", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["secrets"] == 9 and data["worst"] == 1  # one query tells all 9 apart


@pytest.mark.parametrize("expr, want", [
    ("[" * 50 + "1" + "]" * 50, 1),   # 50-deep nested list: numpy's 32-dimension limit
    ("(g, 'q')", 9),                  # a sequence and a string: an extra axis
    ("(g, (g[0], ('x', g)))", 9),     # nested tuples of sequences
])
def test_nested_feedback_values_code_as_the_interpreter_says(expr, want):
    g = load_game_text(SMALL.replace('a: "EXPR"', f"a: |-\n        {expr}"))
    space, coder = g.space("guess"), g.coder("guess")
    codes = g.feedback_matrix("guess", next(space.legal_ranks()))
    for r in range(space.size):
        for h in range(g.hypotheses.size):
            assert coder.decode(int(codes[r, h])) == g.reference_feedback(
                "guess", space.value(r), g.hypotheses.value(h))
    assert len(set(codes.ravel().tolist())) == want


def test_an_unknown_escape_in_a_string_is_a_located_error():
    """'\\q' was read with Python's warning (a SyntaxError in later Pythons)."""
    with pytest.raises(SpecError) as err:
        load_game_text(SMALL.replace('a: "EXPR"', "a: |-\n        (g, '\\q')"), "s.yaml")
    assert "bad escape" in err.value.message
    assert (err.value.loc.line, err.value.loc.col) == (12, 13)  # the string, in the block


def test_hostile_runaway_template_still_agrees():
    """The same fix through the hostile tests' template (a set secret, two-position g)."""
    g = load_game_text(RUNAWAY.replace("EXPR", "(g, ((x, 'a'), s))"), "f.yaml")
    space = g.space("q")
    codes = g.feedback_matrix("q", next(space.legal_ranks()))
    for r in range(space.size):
        for h in range(g.hypotheses.size):
            assert g.coder("q").decode(int(codes[r, h])) == g.reference_feedback(
                "q", space.value(r), g.hypotheses.value(h))


def test_a_table_without_an_index_is_a_located_error(tmp_path):
    (tmp_path / "one.csv").write_text("5\n")
    text = SMALL.replace("queries:", "data:\n  score: {file: one.csv, index: []}\nqueries:")
    with pytest.raises(SpecError) as err:
        load_game_text(text, str(tmp_path / "s.yaml"))
    assert "no index domain" in err.value.message and err.value.loc.line == 8


def test_a_deeply_nested_request_body_is_a_400(tmp_path):
    client = TestClient(create_app([], tmp_path), base_url="http://127.0.0.1:8000")
    body = b'{"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"  # an upload's size
    answer = client.post("/api/specs", content=body,
                         headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert "nested too deeply" in answer.json()["error"]["message"]


def test_a_long_guarded_step_is_reported_while_it_works(monkeypatch):
    import sleuth.compiler.guard as guard

    monkeypatch.setattr(guard, "TICK", 0.2)
    heard: list[tuple[str, float | None]] = []
    with reporting(lambda what, seconds: heard.append((what, seconds))):
        end = in_child(lambda: time.sleep(0.7) or 7, what="sleeping")
    assert end.kind == "ok" and end.value == 7
    ticks = [s for w, s in heard if s is not None]
    assert len(ticks) >= 2 and ticks == sorted(ticks) and ticks[0] >= 0.18
    assert heard[-1] == ("sleeping", None) and {w for w, _ in heard} == {"sleeping"}


def test_a_quick_guarded_step_is_not_reported():
    heard: list = []
    with reporting(lambda what, seconds: heard.append(seconds)):
        assert in_child(lambda: 3).value == 3
    assert heard == []


def test_rich_is_asked_about_stderr_only_when_it_may_be_a_terminal(monkeypatch):
    import io
    import json
    import os
    from pathlib import Path

    from sleuth.solver.interfaces.options import terminal_stderr

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    for name in ("TTY_COMPATIBLE", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert terminal_stderr() is None  # piped: no console
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich's own override: a terminal after all
    assert terminal_stderr().is_terminal
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setattr(sys, "stderr", Tty())
    assert terminal_stderr().is_terminal
    monkeypatch.setenv("TTY_COMPATIBLE", "0")  # a tty that rich is told is not one
    assert terminal_stderr() is None
    # a piped command never imports rich (its progress bar and waiting line stay unmade)
    code = ("import sys; from sleuth.solver.interfaces.cli import run; sys.argv = ['sleuth', "
            "'evaluate', 'specs/counterfeit-coin.yaml', '--json']\ntry: run()\nexcept SystemExit: "
            "pass\nprint('rich' in sys.modules, file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if k not in ("TTY_COMPATIBLE", "FORCE_COLOR")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).parent.parent, env=env, check=True)
    assert done.stderr.strip().splitlines()[-1] == "False"
    assert json.loads(done.stdout)["strategy"]


def test_the_command_line_says_once_that_a_step_is_slow_when_not_on_a_terminal():
    import io

    from rich.console import Console

    from sleuth.solver.interfaces.options import WaitingLine

    line, out = WaitingLine(), io.StringIO()
    line.console = Console(file=out, force_terminal=False, width=200)
    for seconds in (1.0, 2.0, 5.2, 6.1, None, 1.0):
        line("compiling the diagram", seconds)
    assert out.getvalue() == "compiling the diagram: 5 s so far (Ctrl-C stops it)\n"

"""`sleuth play`: scripted sessions, a crash midway, resuming from the session file.

The test plays the codemaker: it reads each suggestion the program prints,
scores it against a secret with a hand-written scorer, and types the
feedback back, as a person at a real board would.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console

from sleuth.compiler.game import load_game
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.play import Play
from sleuth.solver.interfaces.session import Session
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT

SPEC = ROOT / "specs" / "mastermind.yaml"
SUGGESTION = re.compile(r"suggested \([\w-]+\): guess g=\[([\d, ]+)\]")


def score(guess: tuple[int, ...], code: tuple[int, ...]) -> tuple[int, int]:
    black = sum(a == b for a, b in zip(guess, code, strict=True))
    return black, sum((Counter(guess) & Counter(code)).values()) - black


def start(session: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sleuth", "play", str(SPEC),
         "--strategy", "minimax", "--session", str(session)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        bufsize=1, cwd=ROOT, env={**os.environ, "COLUMNS": "200"})


def answer_suggestions(proc: subprocess.Popen, secret: tuple[int, ...], steps: int | None,
                       session: Path | None = None) -> list[str]:
    """Answer suggestions until `steps` were saved (None: until the game ends)."""
    seen = []
    answered = 0
    for line in proc.stdout:
        seen.append(line.rstrip())
        m = SUGGESTION.search(line)
        if m:
            guess = tuple(int(x) for x in m.group(1).split(","))
            black, white = score(guess, secret)
            proc.stdin.write(f"{black} {white}\n")
            proc.stdin.flush()
            answered += 1
            if steps is not None and answered == steps:
                wait_for_steps(session, steps)
                return seen
        if line.startswith("solved"):
            return seen
    return seen


def wait_for_steps(session: Path, steps: int, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if len(json.loads(session.read_text())["steps"]) >= steps:
                return
        except (FileNotFoundError, json.JSONDecodeError):
            pass  # an atomic save never shows half a file, but the file may not exist yet
        time.sleep(0.05)
    raise AssertionError(f"the session never reached {steps} steps")


@pytest.mark.slow
def test_kill_midway_and_resume(tmp_path):
    secret = (3, 6, 3, 2)
    session = tmp_path / "game.json"
    proc = start(session)
    answer_suggestions(proc, secret, steps=2, session=session)
    proc.send_signal(signal.SIGKILL)  # a crash: no chance to clean up
    proc.wait(timeout=30)
    saved = json.loads(session.read_text())
    assert len(saved["steps"]) == 2 and saved["game"] == "Mastermind"

    proc = start(session)
    out = answer_suggestions(proc, secret, steps=None)
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert any("resumed 2 steps" in line for line in out)
    assert any(line.startswith("solved") and "code = [3, 6, 3, 2]" in line for line in out)
    final = json.loads(session.read_text())["steps"]
    assert final[:2] == saved["steps"]
    assert final[-1]["feedback"] == {"black": 4, "white": 0}
    for step in final:
        assert tuple(step["feedback"].values()) == score(tuple(step["args"]["g"]), secret)
    assert len(final) <= 5  # Knuth's minimax never needs more than five guesses


def run_script(lines: list[str], session: Path | None = None, spec: Path = SPEC,
               strategy: str = "minimax") -> tuple[int, str]:
    game = load_game(spec)
    s = make_strategy(strategy, Candidates(game))
    console = Console(record=True, width=200, markup=False, highlight=False)
    play = Play(game, s, Session.open(session, game, str(spec)), console)
    feed = iter(lines)
    status = play.run(lambda prompt: next(feed, None))
    return status, console.export_text()


def test_undo_other_queries_and_bad_input(tmp_path):
    session = tmp_path / "s.json"
    status, out = run_script(["1 1", "undo", "undo", "play guess 1234", "9 0", "black=0 white=1",
                              "play guess 1234", "4 0", "frobnicate", "quit"], session)
    assert status == 0
    assert "undone: guess g=[1, 1, 2, 2] -> black=1 white=1" in out
    assert "nothing to undo" in out
    assert "feedback 'black' of 'guess' is one of 0..4, not 9" in out
    assert "inconsistent observations" in out  # 1234 cannot be the code after 0 black 1 white
    assert "frobnicate" in out
    steps = json.loads(session.read_text())["steps"]
    assert steps == [{"query": "guess", "args": {"g": [1, 2, 3, 4]},
                      "feedback": {"black": 0, "white": 1}}]


def test_end_of_input_keeps_the_session(tmp_path):
    session = tmp_path / "s.json"
    status, out = run_script(["0 0"], session)
    assert status == 0 and "input ended; session saved to" in out
    status, out = run_script(["show", "quit"], session)
    assert "resumed 1 step " in out and "code[0]" in out


def test_session_of_another_game_is_refused(tmp_path):
    session = tmp_path / "s.json"
    run_script(["0 0"], session)
    game = load_game(ROOT / "specs" / "mastermind.yaml", {"colours": 5})
    with pytest.raises(Exception, match="belongs to Mastermind"):
        Session.open(session, game, "x")


def test_responses_are_typed_as_answers():
    spec = ROOT / "specs" / "inkognito.yaml"
    script = ["play ambassador_question identity", "{ids: [Bubble, ZsaZsa], bds: []}",
              "play ambassador_question build", "{ids: [], bds: [fat, thin]}",
              "play ambassador_question build", "{ids: [], bds: [tall, thin]}",
              "play ambassador_question identity", "{ids: [Bubble, Fiddlebottom], bds: []}"]
    status, out = run_script(script, spec=spec, strategy="entropy")
    assert status == 0
    assert "solved in 4 queries: id = Bubble, bd = thin" in out


def test_json_lines_for_programs():
    game = load_game(SPEC)
    console = Console(record=True, width=10_000, markup=False, highlight=False)
    play = Play(game, make_strategy("minimax", Candidates(game)),
                Session.open(None, game, str(SPEC)), console, as_json=True)
    feed = iter(["1 1", "quit"])
    assert play.run(lambda prompt: next(feed, None)) == 0
    records = [json.loads(line) for line in console.export_text().splitlines() if line]
    assert records[0]["remaining"] == 1296
    assert records[1]["suggestion"] == {"query": "guess", "args": {"g": [1, 1, 2, 2]}}
    assert any(r.get("remaining") == 208 for r in records)


def test_a_solved_game_can_be_undone_and_reopened(tmp_path):
    """A wrong winning feedback: the session stays open; undo takes it back, and a solved
    session file reopens with undo available."""
    session = tmp_path / "s.json"
    status, out = run_script(["play guess 1234", "4 0", "play guess 1111", "undo", "quit"],
                             session)
    assert "solved in 1 query: code = [1, 2, 3, 4]" in out
    assert "the game is solved" in out  # 'play' refused while solved
    assert "undone: guess g=[1, 2, 3, 4] -> black=4 white=0" in out
    assert json.loads(session.read_text())["steps"] == []
    run_script(["play guess 1234", "4 0", "quit"], session)
    status, out = run_script(["undo", "play guess 1122", "1 1", "quit"], session)
    assert "resumed 1 step " in out and "solved in 1 query" in out
    steps = json.loads(session.read_text())["steps"]
    assert steps == [{"query": "guess", "args": {"g": [1, 1, 2, 2]},
                      "feedback": {"black": 1, "white": 1}}]


def test_help_lists_every_command_with_an_example_and_typos_show_what_can_occur():
    status, out = run_script(["help", "0 9", "quit"])
    for command in ("FEEDBACK", "play QUERY ARGS", "undo", "show", "help", "quit"):
        assert f"\n  {command} " in out
    assert "e.g. 'play guess g=[1, 1, 2, 2]'" in out
    assert re.search(r"e\.g\. '\d \d' or 'black=\d white=\d'", out)
    # white=9 is within its static bounds, but no code gives it: say what can occur
    assert "this query can still give black 0..4, white 0..4" in out


def test_play_has_line_editing_and_history(tmp_path):
    """In a terminal, arrow keys edit the line (readline): 'qit', two lefts, 'u' is 'quit'."""
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child: sleuth play in the terminal
        os.environ["HOME"] = str(tmp_path)
        os.execvp(sys.executable, [sys.executable, "-m", "sleuth", "play", "counterfeit-coin"])
    out = b""

    def drain(until: bytes, timeout: float = 30.0) -> None:
        nonlocal out
        end = time.time() + timeout
        while until not in out and time.time() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                out += chunk

    drain(b"-> ")
    os.write(fd, b"qit\x1b[D\x1b[Du\r")
    drain(b"bye")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and b"bye" in out
    assert (tmp_path / ".sleuth_history").read_text().splitlines()[-1] == "quit"

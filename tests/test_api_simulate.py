"""`sleuth.feedback` and `sleuth.simulate`: docs/api.md's simulation example runs as
written and agrees with `sleuth solve --json` and with a Mastermind scorer written
here; a response is drawn by its probabilities; errors name no command-line flag."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

import sleuth
from tests.conftest import ROOT


def marks(code: list[int], guess: list[int]) -> dict[str, int]:
    """Mastermind's black and white pegs, counted here."""
    black = sum(c == g for c, g in zip(code, guess, strict=True))
    common = sum((Counter(code) & Counter(guess)).values())
    return {"black": black, "white": common - black}


def cli(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "sleuth", *args, "--json"], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def simulation_example() -> str:
    text = (ROOT / "docs" / "api.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)[1]


@pytest.mark.slow
def test_the_simulation_example_runs_and_agrees(tmp_path):
    out = subprocess.run([sys.executable, "-c", simulation_example()], capture_output=True,
                         text=True, cwd=tmp_path, check=True).stdout.splitlines()
    assert out[0] == str(marks([1, 1, 2, 2], [1, 2, 3, 4]))
    solve = cli("solve", "mastermind", "--strategy", "minimax", "--secret", "code=3456")
    steps = [f"{s['args']['g']} {s['feedback']} {s['remaining']}" for s in solve["steps"]]
    assert out[1:1 + len(steps)] == steps
    assert out[1 + len(steps)] == f"{solve['solved']} {solve['queries']}"
    drawn = cli("solve", "mastermind", "--strategy", "entropy", "--random-secret", "--seed", "1")
    assert out[2 + len(steps)] == f"{drawn['secret']['code']} {drawn['queries']}"
    guess = [int(x) for x in re.findall(r"\d", out[3 + len(steps)].split("{")[0])]
    assert out[3 + len(steps)].endswith(str(marks([3, 4, 5, 6], guess)))


def test_feedback_is_the_spec_s_score():
    game = sleuth.load("mastermind")
    rng = np.random.default_rng(4)
    for _ in range(60):
        code, guess = rng.integers(1, 7, 4).tolist(), rng.integers(1, 7, 4).tolist()
        assert sleuth.feedback(game, {"code": code}, "guess", {"g": guess}) == marks(code, guess)


def test_simulate_is_solve():
    game = sleuth.load("mastermind")
    played = sleuth.simulate(game, "minimax", secret={"code": [6, 5, 1, 1]})
    solve = cli("solve", "mastermind", "--strategy", "minimax", "--secret", "code=6511")
    assert played == {k: v for k, v in solve.items() if k != "spec"}
    # every step's marks are the secret's, scored here, and the game ends on the code
    for step in played["steps"]:
        assert step["feedback"] == marks([6, 5, 1, 1], step["args"]["g"])
    assert played["solved"] and played["steps"][-1]["args"]["g"] == [6, 5, 1, 1]


def test_a_drawn_secret_follows_the_seed():
    game = sleuth.load("mastermind")
    one, again = sleuth.simulate(game, seed=3), sleuth.simulate(game, seed=3)
    assert one == again
    codes = {tuple(sleuth.simulate(game, "random", seed=s)["secret"]["code"]) for s in range(8)}
    assert len(codes) > 1


def test_a_response_is_drawn_by_its_probabilities():
    """Noisy Guess Who: the opponent lies one time in ten (its `lie` param)."""
    game = sleuth.load("noisy-guess-who")
    person = {"hair": "red", "eyes": "blue", "wears": "hat"}
    answers = [sleuth.feedback(game, person, "hair_is", {"colour": "red"}, seed=s)
               for s in range(2000)]
    assert set(answers) == {True, False}
    assert abs(answers.count(False) / len(answers) - 0.1) < 4 * (0.09 / len(answers)) ** 0.5
    assert sleuth.feedback(game, person, "hair_is", {"colour": "red"}, seed=5) == answers[5]


def test_sets_come_back_as_sorted_lists():
    """The coin: a weighing's pans are sets of coins."""
    game = sleuth.load("counterfeit-coin", coins=12)
    played = sleuth.simulate(game, "minimax", seed=2)
    json.dumps(played)  # JSON data throughout
    for step in played["steps"]:
        for pan in (step["args"]["left"], step["args"]["right"]):
            assert isinstance(pan, list) and pan == sorted(pan)
    first = sleuth.suggest(sleuth.belief(game), strategy="minimax")
    assert first.args == played["steps"][0]["args"]


@pytest.mark.parametrize("call, message", [
    (lambda g: sleuth.feedback(g, {"code": [1, 1, 2, 9]}, "guess", {"g": [1, 2, 3, 4]}),
     "the secret's code: 9 is outside 1..6"),
    (lambda g: sleuth.feedback(g, {"cod": [1, 1, 2, 2]}, "guess", {"g": [1, 2, 3, 4]}),
     "the secret has no variable 'cod'"),
    (lambda g: sleuth.feedback(g, {"code": [1, 1, 2, 2]}, "guess", {"g": [1, 2]}), "'g'"),
    (lambda g: sleuth.simulate(g, secret={}), "the secret needs a value for 'code'"),
    (lambda g: sleuth.load("mastermind", nosuch=3), "no parameter 'nosuch' to set"),
    (lambda g: sleuth.load("mastermind", pegs="four"), "parameter pegs set to 'four'"),
])
def test_api_errors_name_no_flag(call, message):
    game = sleuth.load("mastermind")
    with pytest.raises(sleuth.SleuthError) as err:
        call(game)
    text = str(err.value)
    assert message in text and "--" not in text

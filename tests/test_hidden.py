"""Hidden params (a param that is part of the secret, with a prior) and the `probability`
likelihood form, against posteriors computed by hand here."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sleuth.compiler import SpecError
from sleuth.compiler.errors import ObservationError
from sleuth.compiler.game import load_game_text
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.interfaces.cli import main as sleuth

# A coin of unknown bias b (hidden) flipped by an opponent who reports heads or tails
# truthfully; the secret proper is which of n doors holds the prize, and the opponent's
# "hint" points at the prize door with probability b, else at a uniform other door.
SPEC = """\
game: biased hints
params:
  n: 4
  b: {hidden: [0.25, 0.5, 0.9], prior: [1, 1, 2]}
secret:
  door: {range: "1..n"}
observations:
  hint:
    args: {}
    response:
      answer: {range: "1..n"}
      likelihood:
        probability: "if answer == door then b else (1.0 - b) / (n - 1)"
"""
VALUES, PRIOR = (0.25, 0.5, 0.9), np.array([1, 1, 2]) / 4


def hand_posterior(hints: list[int], n: int = 4) -> dict[tuple[int, float], float]:
    post = {}
    for door, (k, b) in itertools.product(range(1, n + 1), enumerate(VALUES)):
        w = PRIOR[k] / n
        for h in hints:
            w *= b if h == door else (1 - b) / (n - 1)
        post[door, b] = w
    total = sum(post.values())
    return {key: w / total for key, w in post.items()}


def posterior(belief: Belief) -> dict[tuple[int, float], float]:
    doors, labels = belief.values("door"), belief.values("b")
    return {(int(d), VALUES[int(k)]): float(p)
            for d, k, p in zip(doors, labels, belief.probabilities(), strict=True)}


def test_hidden_param_is_learned_by_bayes():
    game = load_game_text(SPEC)
    assert game.hypotheses.size == 12
    assert game.model.identify == ["door"]  # the hidden param is not part of the goal
    belief = Belief.prior(game)
    hints = [2, 2, 3, 2]
    for h in hints:
        belief = apply_event(belief, Event("hint", {}, answer=h))
    want = hand_posterior(hints)
    got = posterior(belief)
    for key, p in want.items():
        assert got[key] == pytest.approx(p, abs=1e-12)
    marg = belief.marginals()["b"]
    assert marg["0.9"] == pytest.approx(sum(p for (_, b), p in want.items() if b == 0.9))


def test_fixing_and_hiding_from_the_command_line(capsys, tmp_path):
    spec = tmp_path / "hints.yaml"
    spec.write_text(SPEC)
    sleuth(["check", str(spec)])
    out = capsys.readouterr().out
    assert "b: {0.25, 0.5, 0.9}" in out and "hypotheses   12" in out
    sleuth(["check", str(spec), "--set", "b=0.5"])
    assert "hypotheses   4" in capsys.readouterr().out
    sleuth(["check", str(spec), "--set", "b={hidden: [0.1, 0.2]}"])
    assert "hypotheses   8" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        sleuth(["check", str(spec), "--set", "n={hidden: [3, 4]}"])
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert "'n' is a hidden param" in err and "hints.yaml:" in err


@pytest.mark.parametrize("param, message", [
    ("{hidden: []}", "non-empty list of numbers"),
    ("{hidden: [a, b]}", "non-empty list of numbers"),
    ("{hidden: [1, 1]}", "must be different"),
    ("{hidden: [1, 2], prior: [1]}", "one weight >= 0 per value"),
    ("{hidden: [1, 2], prior: [0, 0]}", "not all 0"),
    ("{hidden: [1, 2], weights: [1, 1]}", "'weights'"),
])
def test_bad_hidden_params_are_located_errors(param, message):
    text = SPEC.replace("{hidden: [0.25, 0.5, 0.9], prior: [1, 1, 2]}", param)
    with pytest.raises(SpecError, match=message) as err:
        load_game_text(text, "bad.yaml")
    assert str(err.value).startswith("bad.yaml:")


def test_whole_numbers_stay_whole():
    with pytest.raises(SpecError, match="whole numbers"):
        load_game_text(SPEC, overrides={"n": {"hidden": [3.5, 4]}})


def test_probability_form_must_sum_to_one():
    short = SPEC.replace("(1.0 - b) / (n - 1)", "(1.0 - b) / n")
    belief = Belief.prior(load_game_text(short, "short.yaml"))
    with pytest.raises(ObservationError, match="sum to .*, not 1") as err:
        apply_event(belief, Event("hint", {}, answer=1))
    assert "leftover" in (err.value.hint or "")
    over = SPEC.replace("then b else", "then 2.0 * b else")
    with pytest.raises(ObservationError, match="exceeds 1"):
        apply_event(Belief.prior(load_game_text(over)), Event("hint", {}, answer=1))


def test_probability_form_with_a_tremble():
    text = SPEC.replace('        probability: "if answer == door then b else (1.0 - b) / (n - 1)"',
                        '        probability: "if answer == door then b else (1.0 - b) / (n - 1)"'
                        '\n      tremble: 0.1')
    belief = apply_event(Belief.prior(load_game_text(text)), Event("hint", {}, answer=3))
    want = {}
    for door, (k, b) in itertools.product(range(1, 5), enumerate(VALUES)):
        p = b if door == 3 else (1 - b) / 3
        want[door, b] = PRIOR[k] / 4 * (0.9 * p + 0.1 / 4)
    total = sum(want.values())
    got = posterior(belief)
    for key, w in want.items():
        assert got[key] == pytest.approx(w / total, abs=1e-12)


def test_symbolic_backend_agrees():
    """A hidden param is an enum variable of the secret: the decision diagram counts it,
    and its weighted marginals are the enumeration's (no refusal is accepted)."""
    from sleuth.solver.infoset.backends import prior_belief

    game = load_game_text(SPEC)
    enum = Belief.prior(game)
    sdd = prior_belief(game, "sdd")
    assert sdd.size == enum.size == 12
    assert set(sdd.marginals()["b"]) == set(enum.marginals()["b"])
    for v, p in enum.marginals()["b"].items():
        assert sdd.marginals()["b"][v] == pytest.approx(p, abs=1e-12)

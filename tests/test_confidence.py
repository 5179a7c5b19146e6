"""goal: {confidence: p} -- a game with noisy answers ends when the goal's most likely value
reaches posterior p (issue 15, D3), on specs/noisy-guess-who.yaml."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from click.testing import CliRunner

from sleuth.compiler.api import load_game, load_game_text
from sleuth.compiler.errors import SpecError
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import cli
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT

SPEC = (ROOT / "specs" / "noisy-guess-who.yaml").read_text()


def brute_posterior(belief: Belief, names: list[str]) -> tuple[dict, float]:
    """The goal's most likely value by summing hypothesis probabilities in Python."""
    mass: dict[tuple, float] = defaultdict(float)
    for h, p in zip(range(belief.size), belief.probabilities(), strict=True):
        value = belief.game.hypotheses.value(int(belief.index[h]))
        mass[tuple(value[n] for n in names)] += p
    best = max(mass, key=lambda k: mass[k])
    return dict(zip(names, best, strict=True)), mass[best]


def test_goal_posterior_equals_a_brute_force():
    game = load_game("noisy-guess-who")
    b = Belief.prior(game)
    rng = np.random.default_rng(3)
    for _ in range(6):
        query = ["hair_is", "eyes_are", "wears_item"][int(rng.integers(3))]
        arg = {"hair_is": ("colour", "red"), "eyes_are": ("colour", "blue"),
               "wears_item": ("item", "hat")}[query]
        b = apply_event(b, Event(query, {arg[0]: arg[1]}, answer=bool(rng.integers(2))))
        for names in (["hair", "eyes", "wears"], ["hair"], ["eyes", "wears"]):
            got, p = b.goal_posterior(names)
            _, q = brute_posterior(b, names)
            assert p == pytest.approx(q, abs=1e-12)
            # the value returned is a most likely one (ties may pick another than brute's)
            assert q == pytest.approx(
                sum(pp for h, pp in enumerate(b.probabilities())
                    if all(game.hypotheses.value(int(b.index[h]))[n] == got[n]
                           for n in names)), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_noisy_game_ends_at_the_first_confident_step(seed):
    game = load_game("noisy-guess-who")
    strategy = make_strategy("entropy", Candidates(game))
    secret = seed * 5 % game.hypotheses.size
    t = play_secret(game, strategy, secret, seed, max_steps=100)
    assert t.solved and t.posterior >= 0.95
    b = Belief.prior(game)
    posteriors = []
    for step in t.steps:
        b = apply_event(b, step.event)
        posteriors.append(brute_posterior(b, ["hair", "eyes", "wears"])[1])
    assert posteriors[-1] == pytest.approx(t.posterior, abs=1e-12)
    assert all(p < 0.95 for p in posteriors[:-1])  # not one step more than needed
    assert t.correct == (t.guess == {k: game.hypotheses.value(secret)[k] for k in t.guess})


def test_without_confidence_a_noisy_game_never_ends():
    game = load_game_text(SPEC.replace(", confidence: 0.95", ""), "nc.yaml")
    t = play_secret(game, make_strategy("entropy", Candidates(game)), 0, 0, max_steps=30)
    assert not t.solved and len(t.steps) == 30 and t.guess is None


@pytest.mark.parametrize(("goal", "message"), [
    ("{identify: [hair], confidence: 1.5}", "confidence must be a probability"),
    ("{identify: [hair], confidence: 0}", "confidence must be a probability"),
    ("{confidence: 0.9, stop_when: 'true'}", "either stop_when or confidence"),
])
def test_bad_confidence_goals(goal, message):
    text = SPEC.replace("{identify: [hair, eyes, wears], confidence: 0.95}", goal)
    with pytest.raises(SpecError, match=message):
        load_game_text(text, "bad.yaml")


def test_bench_reports_how_often_the_confident_guess_was_right():
    out = CliRunner().invoke(cli, ["bench", "noisy-guess-who", "--strategies", "entropy",
                                   "--trials", "12", "--json"], catch_exceptions=False)
    (row,) = json.loads(out.stdout)["summary"]
    assert row["solved"] == 12 and 0 <= row["correct"] <= 12
    assert 0.95 <= row["mean_posterior"] <= 1


def test_solve_prints_the_final_posterior():
    out = CliRunner().invoke(cli, ["solve", "noisy-guess-who", "--random-secret", "--seed",
                                   "1"], catch_exceptions=False)
    assert "final guess hair = " in out.stdout and "with posterior 0.9" in out.stdout

"""specs/liars-dice.yaml against a brute-force calculation written here.

The rolls are listed as ordered dice (6^d of them), so the multinomial prior
over face counts is a tally, not the spec's factorial formula; the bidding
likelihood is written out from its description (z-scores, the call rule, the
exp(-z / tau) raise weights normalised over every legal answer). The
simulator's bidding rule (examples/liars_dice.py) must give the same
distribution of raises as the spec's likelihood, hypothesis by hypothesis.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.compiler.likelihood import answer_matrix, answer_value
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.interfaces.cli import main as sleuth
from tests.conftest import ROOT

SPEC = ROOT / "specs" / "liars-dice.yaml"
FACES = ("one", "two", "three", "four", "five", "six")
DICE, HIDDEN, LAM, TAU = 3, 4, 1.0, 0.5
sys.path.insert(0, str(ROOT / "examples"))


def small_game():
    return load_game(SPEC, overrides={"dice": DICE, "hidden": HIDDEN})


def brute_prior() -> Counter:
    """Face counts of every ordered roll of DICE dice, with multiplicities."""
    return Counter(tuple(np.bincount(r, minlength=6)) for r in
                   itertools.product(range(6), repeat=DICE))


def z(c, q, f):
    held = c[f] + (c[0] if f else 0)
    p = 1 / 6 if f == 0 else 1 / 3
    return (q - held - 0.5 - HIDDEN * p) / math.sqrt(HIDDEN * p * (1 - p))


def beats(q, f, standing):
    return q > standing[0] or (q == standing[0] and f > standing[1])


def answer_probabilities(c, standing) -> dict:
    """P(answer | roll c, standing bid) by the bidding model, over every legal answer."""
    least = [standing[0] + (g <= standing[1]) for g in range(6)]
    must = z(c, *standing) > LAM or all(z(c, least[g], g) > LAM for g in range(6))
    w = {}
    if standing[0] > 0:
        w["call"] = 1.0 if must else 0.0
    for q in range(1, DICE + HIDDEN + 1):
        for f in range(6):
            if beats(q, f, standing):
                w[q, f] = 0.0 if must or z(c, q, f) > LAM else math.exp(-z(c, q, f) / TAU)
    total = sum(w.values())
    return {k: v / total for k, v in w.items()} if total else {k: 0.0 for k in w}


def turn(standing, answer) -> Event:
    bid = ({"quantity": 0, "face": "one"} if answer == "call"
           else {"quantity": answer[0], "face": FACES[answer[1]]})
    return Event("turn", {"standing": {"quantity": standing[0], "face": FACES[standing[1]]}},
                 answer={"call": answer == "call", "bid": bid})


def test_check_and_hypotheses(capsys):
    sleuth(["check", str(SPEC)])
    assert "OK" in capsys.readouterr().out
    g = small_game()
    prior = brute_prior()
    assert g.hypotheses.size == len(prior) == math.comb(DICE + 5, 5)
    rolls = [tuple(g.hypotheses.value(h)["roll"]) for h in range(g.hypotheses.size)]
    assert rolls == sorted(prior)  # canonical order: count sequences, lexicographic
    np.testing.assert_allclose(g.prior, [prior[r] / 6 ** DICE for r in rolls], rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_posterior_equals_brute_force(seed):
    g = small_game()
    rng = np.random.default_rng(seed)
    prior = brute_prior()
    rolls = sorted(prior)
    truth = rolls[int(rng.integers(len(rolls)))]
    post = {c: prior[c] / 6 ** DICE for c in rolls}
    belief = Belief.prior(g)
    standing = (0, 0)
    for _ in range(3):
        p = answer_probabilities(truth, standing)
        keys = [k for k in p if p[k] > 0]
        answer = keys[int(rng.choice(len(keys), p=[p[k] for k in keys]))]
        post = {c: w * answer_probabilities(c, standing)[answer] for c, w in post.items()}
        belief = apply_event(belief, turn(standing, answer))
        if answer == "call":
            break
        standing = answer
    total = sum(post.values())
    got = {tuple(g.hypotheses.value(h)["roll"]): p
           for h, p in zip(belief.index, belief.probabilities(), strict=True)}
    for c in rolls:
        assert got.get(c, 0.0) == pytest.approx(post[c] / total, abs=1e-12)
    moved = max(abs(post[c] / total - prior[c] / 6 ** DICE) for c in rolls)
    assert moved > 1e-3  # the bids did say something about the roll


@pytest.mark.parametrize("standing", [None, (2, 3), (4, 0), (5, 5)])
def test_simulator_bids_as_the_spec_says(standing):
    """The simulator's ZI bidder, fed the binomial view of HIDDEN unseen dice, raises or
    calls with exactly the spec's likelihood, for every roll."""
    import liars_dice as sim

    g = small_game()
    base = standing or (0, 0)
    args = {"standing": {"quantity": base[0], "face": FACES[base[1]]}}
    index = np.arange(g.hypotheses.size)
    ranks, table = answer_matrix(g, "turn", args, index)
    mean, sd = sim.binomial_view(HIDDEN)
    checked = 0
    for h in index:
        roll = np.array(g.hypotheses.value(h)["roll"])
        options = sim.choices(standing, sim.held(roll), mean, sd, DICE + HIDDEN)
        expected = {}
        if options is None:
            expected["call"] = 1.0
        else:
            for q, f, p in zip(*options, strict=True):
                expected[int(q), int(f)] = p
        spec = {}
        for k, r in enumerate(ranks):
            if table[k, h] > 0:
                a = answer_value(g, "turn", int(r))
                key = "call" if a["call"] else (a["bid"]["quantity"],
                                                FACES.index(a["bid"]["face"]))
                spec[key] = table[k, h]
        assert spec.keys() == expected.keys()
        for key, p in expected.items():
            assert spec[key] == pytest.approx(p, rel=1e-9)
        checked += 1
    assert checked == g.hypotheses.size


def test_symbolic_backend_agrees_on_the_multiset_prior():
    """The multiset is one one-hot group on the diagram; its weighted prior (the
    factorial expression, lowered into weight classes) must give enumeration's numbers."""
    from sleuth.solver.infoset.backends import prior_belief

    g = small_game()
    enum, sdd = Belief.prior(g), prior_belief(g, "sdd")
    assert sdd.size == enum.size == g.hypotheses.size
    assert sdd.entropy_bits() == pytest.approx(enum.entropy_bits(), abs=1e-9)
    for name, values in enum.marginals().items():
        for v, p in values.items():
            assert sdd.marginals()[name][v] == pytest.approx(p, abs=1e-12)


@pytest.mark.slow
def test_simulated_games_are_reproducible():
    """A few games of the simulator, EI and control, on spawned seeds: each game has one
    winner, and the same seed gives the same winners again (the kept likelihood tables,
    warm the second time, must not change a single decision)."""
    import liars_dice as sim

    first = sim.play_block(np.random.SeedSequence(5).spawn(3))
    again = sim.play_block(np.random.SeedSequence(5).spawn(3))
    assert first["ei"].sum() == first["zi"].sum() == 3
    for name in ("ei", "zi"):
        np.testing.assert_array_equal(first[name], again[name])


@pytest.mark.slow
def test_off_model_opponents_need_a_tremble_not_a_crash():
    """Opponents bidding with lambda 2 while EI assumes 1: without a tremble the first
    off-model bid is a clear error (the example prints it and exits 1); with tremble 0.01
    the games are played."""
    import liars_dice as sim

    from sleuth.solver.infoset.belief import InconsistentObservations

    seeds = np.random.SeedSequence(11).spawn(6)
    old = dict(sim.PLAY)
    try:
        sim.PLAY.update(opponent_lambda=2.0, tremble=0.0)
        sim.spec_for.cache_clear()
        with pytest.raises(InconsistentObservations, match="likelihood 0"):
            sim.play_block(seeds)
        sim.PLAY.update(tremble=0.01)
        sim.spec_for.cache_clear()
        wins = sim.play_block(seeds)
        assert wins["ei"].sum() == wins["zi"].sum() == 6
    finally:
        sim.PLAY.update(old)
        sim.spec_for.cache_clear()

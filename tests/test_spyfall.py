"""specs/spyfall.yaml and examples/spyfall.py against the Spyfall notes' formulas,
computed here by hand on small cases.

- the claim likelihood: the mixture S(j) Dir(C; beta gamma_spy)
  + (1 - S(j)) Dir(C; beta gamma_honest),
  with the Dirichlet density written with math.lgamma;
- the public spy update p e_j + (1 - p) alpha and the private one with alpha_bar;
- the game-ending rule and the Dynamic schedules;
- the running beliefs without a player's messages, against a replay through Sleuth.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import apply_event
from sleuth.solver.interfaces.cli import main as sleuth
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "examples"))
import spyfall as sim  # noqa: E402

SPEC = ROOT / "specs" / "spyfall.yaml"


def dirichlet_pdf(x, alpha) -> float:
    return math.exp(math.lgamma(sum(alpha)) - sum(math.lgamma(a) for a in alpha)
                    + sum((a - 1) * math.log(v) for a, v in zip(alpha, x, strict=True)))


def hand_likelihood(n, loc, claim, public, suspicion, beta, lam) -> float:
    honest = [beta * ((1 - lam) + lam * (i == loc)) for i in range(n)]
    spy = [beta * ((1 - lam) + lam * p) for p in public]
    return suspicion * dirichlet_pdf(claim, spy) + (1 - suspicion) * dirichlet_pdf(claim, honest)


@pytest.mark.parametrize("n, beta, lam, seed", [(8, 1.0, 0.5, 0), (3, 10.0, 0.2, 1),
                                                (5, 2.5, 0.0, 2)])
def test_claim_update_is_the_notes_mixture(n, beta, lam, seed):
    rng = np.random.default_rng(seed)
    game = load_game(SPEC, {"locations": n, "players": 4, "beta": beta, "lambda": lam})
    belief = Belief.prior(game)
    want = np.full(n, 1.0 / n)
    for t in range(4):
        public = sim.location_marginal(belief)
        claim = rng.dirichlet(np.full(n, 1.5))
        suspicion = float(rng.uniform())
        belief = apply_event(belief, sim.claim_event(t % 4, claim, public, suspicion))
        want = want * [hand_likelihood(n, loc, claim, public, suspicion, beta, lam)
                       for loc in range(n)]
        want /= want.sum()
        assert np.allclose(sim.location_marginal(belief), want, rtol=1e-9, atol=1e-12)
        honest, spy = sim.densities(game, t % 4, claim, public)
        assert np.allclose(honest, [hand_likelihood(n, loc, claim, public, 0.0, beta, lam)
                                    for loc in range(n)], rtol=1e-9)
        assert spy == pytest.approx(hand_likelihood(n, 0, claim, public, 1.0, beta, lam),
                                    rel=1e-9)


def test_the_notes_parameters_are_the_default():
    params = load_game(SPEC).model.params
    assert (params["beta"], params["lambda"]) == (1.0, 0.5)
    assert sim.VARIANTS["notes"] == {"beta": 1.0, "lambda": 0.5}
    assert sim.VARIANTS["tuned"] == {"beta": 10.0, "lambda": 0.2}


def test_public_spy_update_by_hand():
    S = np.array([0.1, 0.4, 0.3, 0.2])
    alpha = np.array([0.5, 0.0, 0.25, 0.25])  # speaker 1 accuses 0 most
    got = sim.public_spy_update(S, 1, alpha)
    p = 0.4  # S_{t-1}(j)
    assert got.tolist() == pytest.approx([0.6 * 0.5, p, 0.6 * 0.25, 0.6 * 0.25])
    assert got.sum() == pytest.approx(1.0)


def test_private_spy_update_by_hand():
    B = np.array([0.0, 0.5, 0.3, 0.2])  # player 0's belief: never itself
    alpha = np.array([0.6, 0.0, 0.3, 0.1])  # speaker 1 accuses player 0 most
    got = sim.private_spy_update(B, 0, 1, alpha)
    bar = np.array([0.0, 0.0, 0.75, 0.25])  # alpha with coordinate 0 zeroed, renormalised
    assert got.tolist() == pytest.approx((0.5 * np.eye(4)[1] + 0.5 * bar).tolist())
    assert got[0] == 0.0
    # an accusation of i alone leaves nothing: alpha_bar is uniform over the others but i
    got = sim.private_spy_update(B, 0, 1, np.eye(4)[0])
    assert got.tolist() == pytest.approx([0.0, 0.5 + 0.5 / 3, 0.5 / 3, 0.5 / 3])


def test_claim_update_of_a_private_spy_belief_is_bayes():
    B = np.array([0.0, 0.25, 0.5, 0.25])
    got = sim.claim_update(B, 2, spy_density=3.0, honest_density=1.5)
    want = np.array([0.0, 0.25 * 1.5, 0.5 * 3.0, 0.25 * 1.5])
    assert got.tolist() == pytest.approx((want / want.sum()).tolist())


def test_the_game_ending_rule():
    Q = np.array([[0.5, 0.5], [0.95, 0.05], [0.5, 0.5]])  # spy 1 is sure of location 0
    B = np.array([[0.0, 0.6, 0.4], [0.5, 0.0, 0.5], [0.3, 0.7, 0.0]])
    setup = sim.Setup(n=2, s=3, beta=1.0, lam=0.5)
    assert sim.end(setup, 1, 0, Q, B) == 0  # names the true location: spy wins
    assert sim.end(setup, 1, 1, Q, B) == 1
    Q[1] = [0.7, 0.3]
    # both non-spies suspect player 1, the spy: it then names location 0
    assert sim.end(setup, 1, 0, Q, B) == 2 and 2 in sim.SPY_WINS and 2 in sim.TIES
    assert sim.end(setup, 1, 1, Q, B) == 3 and 3 not in sim.SPY_WINS
    B[2] = [0.6, 0.4, 0.0]
    assert sim.end(setup, 1, 0, Q, B) is None  # no common top suspect: go on
    assert sim.voted_out(0, 1, 0, Q) == 4 and 4 in sim.SPY_WINS
    assert sim.voted_out(None, 1, 0, Q) == 5 and 5 in sim.SPY_WINS


def test_dynamic_schedule():
    setup = sim.Setup(n=4, s=3, beta=2.0, lam=0.4, raise_=0.5, lower=0.5)
    view = {"P": np.array([0.25, 0.25, 0.25, 0.25]), "S": np.array([0.2, 0.5, 0.3]), "N": 2}
    assert sim.dynamic(setup, view, 1) == (pytest.approx(0.4 + 0.5 * 0.6), 2.0)
    assert sim.dynamic(setup, view, 0) == (0.4, 2.0)
    view["P"] = np.array([0.1, 0.1, 0.7, 0.1])
    c = (0.7 - 0.25) / 0.75
    assert sim.dynamic(setup, view, 0)[1] == pytest.approx(2.0 * (1 - 0.5 * c))
    assert sim.flat(setup, view, 0) == (0.4, 2.0)


def test_gains_match_a_replay_without_the_player():
    """The running beliefs without player k, against Sleuth replaying every message but k's."""
    setup = sim.Setup(n=5, s=4, beta=1.0, lam=0.5)
    game = load_game(SPEC, {"locations": 5, "players": 4})
    for seed in np.random.SeedSequence(3).spawn(6):
        res = sim.play_game(game, setup, seed, sim.flat, record=True)
        final_p, final_s = res["trace"][-1]
        for (_, _, gain, _), (before, _), (after, _) in zip(res["ig"], res["trace"],
                                                            res["trace"][1:], strict=False):
            keep = after > 0  # IG_t = KL(P_t || P_t-1), in bits, by hand
            assert gain == pytest.approx(float(np.sum(after[keep] * np.log2(
                after[keep] / before[keep]))), abs=1e-12)
        for k, (is_spy, loc_gain, spy_gain) in enumerate(res["gains"]):
            assert is_spy == (k == res["spy"])
            belief, S = Belief.prior(game), np.full(4, 0.25)
            for j, claim, public, accusation in res["messages"]:
                if j == k:
                    continue
                belief = apply_event(belief, sim.claim_event(j, claim, public, S[j]))
                S = S[j] * np.eye(4)[j] + (1 - S[j]) * accusation
            assert loc_gain == pytest.approx(sim.kl_bits(final_p, sim.location_marginal(belief)),
                                             abs=1e-9)
            assert spy_gain == pytest.approx(sim.kl_bits(final_s, S), abs=1e-9)


class Recording:
    """A numpy Generator that keeps the alpha of every Dirichlet draw (the claims' means)."""

    def __init__(self, seed):
        self.gen, self.alphas = np.random.default_rng(seed), []

    def dirichlet(self, alpha):
        self.alphas.append(np.array(alpha, dtype=float))
        return self.gen.dirichlet(alpha)

    def __getattr__(self, name):
        return getattr(self.gen, name)


def hand_spy_view(n, s, spy, messages, beta, lam):
    """The notes' spy, by hand from the published messages: its location belief Q (every
    other speaker honest) and its private spy belief, updated as a non-spy's is (Bayes on a
    claim with the honest density averaged over Q, then the accusation rule), as they stand
    before each of its own turns."""
    Q = np.full(n, 1.0 / n)
    B = np.array([0.0 if k == spy else 1.0 / (s - 1) for k in range(s)])
    before_turns = []
    for j, claim, public, accusation in messages:
        if j == spy:
            before_turns.append((Q.copy(), B.copy()))
            continue
        honest = np.array([dirichlet_pdf(claim, [beta * ((1 - lam) + lam * (i == loc))
                                                 for i in range(n)]) for loc in range(n)])
        mimic = dirichlet_pdf(claim, [beta * ((1 - lam) + lam * p) for p in public])
        w = np.full(s, float(Q @ honest))
        w[j] = mimic
        B = B * w / (B * w).sum()
        Q = Q * honest / (Q * honest).sum()
        bar = np.array(accusation, dtype=float)
        bar[spy] = 0.0
        bar /= bar.sum()
        B = B[j] * np.eye(s)[j] + (1 - B[j]) * bar
    return before_turns


@pytest.mark.parametrize("beta, lam", [(1.0, 0.5), (10.0, 0.2)])
def test_the_spy_accuses_with_its_private_belief_and_claims_around_its_own(monkeypatch,
                                                                           beta, lam):
    """The notes: every player, the spy too, accuses with its private spy belief, and the
    spy's claim is drawn around its private location belief, not the public one."""
    n, s = 5, 4
    game = load_game(SPEC, {"locations": n, "players": s, "beta": beta, "lambda": lam})
    setup = sim.Setup(n=n, s=s, beta=beta, lam=lam)
    assert setup.spy == "notes"  # the default
    checked = 0
    for seed in np.random.SeedSequence(11).spawn(12):
        rng = Recording(seed)
        monkeypatch.setattr(sim.np.random, "default_rng", lambda _seed, rng=rng: rng)
        res = sim.play_game(game, setup, seed, sim.flat, record=True)
        spy, msgs = res["spy"], res["messages"]
        views = iter(hand_spy_view(n, s, spy, msgs, beta, lam))
        for t, (j, _, public, accusation) in enumerate(msgs):
            if j != spy:
                continue
            Q, B = next(views)
            assert np.allclose(accusation, B, rtol=1e-9, atol=1e-12)
            assert np.allclose(rng.alphas[t], beta * ((1 - lam) + lam * Q), rtol=1e-9)
            if not np.allclose(Q, public, atol=1e-3):
                checked += 1  # the private and the public belief differ here
    assert checked >= 3


def test_the_decoy_spy_is_the_previous_version(monkeypatch):
    """`--spy decoy`: the spy accuses with the public S less itself, its claims are drawn
    around the public P, and it keeps no private spy belief."""
    n, s, beta, lam = 5, 4, 1.0, 0.5
    game = load_game(SPEC, {"locations": n, "players": s})
    setup = sim.Setup(n=n, s=s, beta=beta, lam=lam, spy="decoy")
    seen = 0
    for seed in np.random.SeedSequence(5).spawn(8):
        rng = Recording(seed)
        monkeypatch.setattr(sim.np.random, "default_rng", lambda _seed, rng=rng: rng)
        res = sim.play_game(game, setup, seed, sim.flat, record=True)
        spy, S = res["spy"], np.full(s, 1.0 / s)
        for t, (j, _, public, accusation) in enumerate(res["messages"]):
            if j == spy:
                want = S.copy()
                want[spy] = 0.0
                assert np.allclose(accusation, want / want.sum(), rtol=1e-12)
                assert np.allclose(rng.alphas[t], beta * ((1 - lam) + lam * public))
                seen += 1
            S = S[j] * np.eye(s)[j] + (1 - S[j]) * accusation
    assert seen >= 3


def test_one_location_and_two_players_do_not_crash():
    game = load_game(SPEC, {"locations": 1})
    res = sim.play_game(game, sim.Setup(n=1, s=5, beta=1.0, lam=0.5),
                        np.random.SeedSequence(0), sim.dynamic)
    assert res["outcome"] == 0 and res["turns"] == 0  # the spy knows the only location
    game = load_game(SPEC, {"players": 2})
    for seed in np.random.SeedSequence(1).spawn(5):
        res = sim.play_game(game, sim.Setup(n=8, s=2, beta=1.0, lam=0.5), seed, sim.knowledge)
        assert 0 <= res["outcome"] < len(sim.OUTCOMES)


def test_check_one_location(capsys):
    sleuth(["check", str(SPEC), "--set", "locations=1"])
    assert "hypotheses   1" in capsys.readouterr().out


@pytest.mark.parametrize("args, status, text", [
    (["--games", "6", "--set", "locations=1"], 0, "spy named the location"),
    (["--games", "6", "--set", "lambda=0"], 0, "spy win rate"),
    (["--games", "1", "--variant", "tuned", "--workers", "1"], 0, "beta 10, lambda 0.2"),
    (["--games", "5", "--set", "players=1"], 1, "players must be at least 2"),
    (["--games", "5", "--set", "lambda=1"], 1, "lambda must lie in [0, 1)"),
    (["--games", "5", "--set", "beta=x"], 1, "not a number"),
])
def test_example_runs_and_refuses_cleanly(args, status, text):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "spyfall.py"), *args],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == status, out.stderr
    assert "Traceback" not in out.stderr
    assert text in out.stdout + out.stderr


def test_a_zero_probability_claim_is_refused_cleanly(tmp_path, capsys):
    """A claim with an entry of 0 (a Dirichlet sample has none; log 0 is not a number) is
    an illegal answer: exit status 1, the observation's location, no traceback."""
    obs = tmp_path / "claims.yaml"
    obs.write_text("- query: claim\n  args: {speaker: 0}\n  answer:\n"
                   "    claim: [0.0, 0.5, 0.5]\n    public: [0.3, 0.3, 0.4]\n"
                   "    suspicion: 0.2\n")
    with pytest.raises(SystemExit) as stop:
        sleuth(["belief", str(SPEC), "--observations", str(obs), "--set", "locations=3"])
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert "is not a legal answer to claim" in err and "claims.yaml:" in err

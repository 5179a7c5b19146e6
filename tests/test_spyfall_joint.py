"""specs/spyfall-joint.yaml against a brute-force posterior written here.

The hypotheses (location, spy) are listed by hand; the Dirichlet density of a
claim is computed with math.lgamma; prior x likelihoods over the n x s
hypotheses is normalised by hand and compared with Sleuth's posterior.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.compiler.interpret import evaluate
from sleuth.compiler.likelihood import answer_is_legal, answer_likelihood
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.interfaces.cli import main
from tests.conftest import ROOT

SPEC = ROOT / "specs" / "spyfall-joint.yaml"


def dirichlet_log_pdf(x: list[float], alpha: list[float]) -> float:
    return (math.lgamma(sum(alpha)) - sum(math.lgamma(a) for a in alpha)
            + sum((a - 1) * math.log(v) for a, v in zip(alpha, x, strict=True)))


def alpha(n: int, location: int, spy: int, speaker: int, public: list[float], beta: float,
          lam: float) -> list[float]:
    """The Dirichlet parameters of a claim, from the model's description (not the spec)."""
    target = public if speaker == spy else [float(i == location) for i in range(n)]
    return [beta * ((1 - lam) + lam * t) for t in target]


def brute_force(n: int, s: int, beta: float, lam: float,
                claims: list[tuple[int, list[float], list[float]]]) -> dict[tuple, float]:
    """P(location, spy | claims) with a uniform prior."""
    logw = {}
    for location, spy in itertools.product(range(n), range(s)):
        logw[location, spy] = sum(
            dirichlet_log_pdf(c, alpha(n, location, spy, j, p, beta, lam)) for j, c, p in claims)
    top = max(logw.values())
    w = {h: math.exp(v - top) for h, v in logw.items()}
    total = sum(w.values())
    return {h: v / total for h, v in w.items()}


def params(game) -> tuple[int, int, float, float]:
    p = game.model.params
    return int(p["locations"]), int(p["players"]), float(p["beta"]), float(p["lambda"])


def sleuth_posterior(game, claims) -> dict[tuple, float]:
    belief = Belief.prior(game)
    for j, c, p in claims:
        belief = apply_event(belief, Event("claim", {"speaker": j},
                                           answer={"claim": tuple(c), "public": tuple(p)}))
    out = dict.fromkeys(itertools.product(range(int(game.model.params["locations"])),
                                          range(int(game.model.params["players"]))), 0.0)
    for loc, spy, q in zip(belief.values("location"), belief.values("spy"),
                           belief.probabilities(), strict=True):
        out[int(loc), int(spy)] += float(q)
    return out


def marginals(post: dict[tuple, float], n: int, s: int) -> tuple[list[float], list[float]]:
    loc = [sum(post[i, j] for j in range(s)) for i in range(n)]
    spy = [sum(post[i, j] for i in range(n)) for j in range(s)]
    return loc, spy


@pytest.mark.parametrize("seed, overrides", [
    (0, {"locations": 4, "players": 3}),
    (1, {"locations": 4, "players": 3, "beta": 6.0, "lambda": 0.45}),
    (2, {"locations": 3, "players": 4, "beta": 15.0, "lambda": 0.1}),
])
def test_posterior_equals_brute_force(seed, overrides):
    g = load_game(SPEC, overrides)
    n, s, beta, lam = params(g)
    assert g.hypotheses.size == n * s
    rng = np.random.default_rng(seed)
    claims = []
    for _ in range(5):
        speaker = int(rng.integers(s))
        claim = [float(x) for x in rng.dirichlet(np.full(n, 3.0))]
        public = [float(x) for x in rng.dirichlet(np.full(n, 2.0))]
        claims.append((speaker, claim, public))
        want = brute_force(n, s, beta, lam, claims)
        got = sleuth_posterior(g, claims)
        for h in want:
            assert got[h] == pytest.approx(want[h], abs=1e-9), h
        for a, b in zip(marginals(got, n, s), marginals(want, n, s), strict=True):
            assert a == pytest.approx(b, abs=1e-9)


def test_kernel_likelihood_equals_interpreter_and_hand_density():
    """The vectorised likelihood, the reference interpreter and the density written here
    agree at random points (answers drawn from a Dirichlet: Real answers cannot be
    enumerated)."""
    g = load_game(SPEC, {"locations": 5, "players": 4, "lambda": 0.35})
    n, s, beta, lam = params(g)
    expr = g.model.action("claim").response.likelihood_expr
    everyone = np.arange(g.hypotheses.size)
    rng = np.random.default_rng(11)
    for _ in range(4):
        speaker = int(rng.integers(s))
        answer = {"claim": tuple(float(x) for x in rng.dirichlet(np.full(n, 2.0))),
                  "public": tuple(float(x) for x in rng.dirichlet(np.full(n, 2.0)))}
        kernel = answer_likelihood(g, "claim", {"speaker": speaker}, answer, everyone)
        for h in range(g.hypotheses.size):
            value = g.hypotheses.value(h)
            reference = evaluate(expr, {**value, "speaker": speaker, "answer": answer})
            by_hand = math.exp(dirichlet_log_pdf(list(answer["claim"]), alpha(
                n, value["location"], value["spy"], speaker, list(answer["public"]), beta,
                lam)))
            assert kernel[h] == pytest.approx(reference, rel=1e-12)
            assert reference == pytest.approx(by_hand, rel=1e-12)


def test_claims_concentrated_on_a_location_raise_it():
    """Claims that put most mass on location k raise P(location = k) above the prior, to
    the top, and more so for a listener who knows the speaker is not the spy."""
    g = load_game(SPEC, {"locations": 4, "players": 3})
    n, s, beta, lam = params(g)
    k = 2
    uniform = [1 / n] * n
    claim = [0.1, 0.1, 0.7, 0.1]
    claims = [(0, claim, uniform), (1, claim, uniform)]
    post = sleuth_posterior(g, claims)
    loc, _ = marginals(post, n, s)
    assert loc[k] > 1 / n and loc[k] == max(loc)
    assert loc[k] == pytest.approx(marginals(brute_force(n, s, beta, lam, claims), n, s)[0][k],
                                   abs=1e-9)
    # player 2 knows that neither speaker is the spy: its location belief is sharper
    private = [post[i, 2] / sum(post[m, 2] for m in range(n)) for i in range(n)]
    assert private[k] > loc[k]


def test_a_spy_mimicking_a_uniform_public_belief_says_nothing_about_the_location():
    """Given that the speaker is the spy and P is uniform, the claim's likelihood does not
    depend on the location: the location stays uniform, whatever the claim."""
    g = load_game(SPEC, {"locations": 4, "players": 3})
    n, s, _, _ = params(g)
    rng = np.random.default_rng(5)
    for speaker in range(s):
        claim = [float(x) for x in rng.dirichlet(np.full(n, 2.0))]
        post = sleuth_posterior(g, [(speaker, claim, [1 / n] * n)])
        given_spy = [post[i, speaker] for i in range(n)]
        assert sum(given_spy) > 0
        for v in given_spy:
            assert v / sum(given_spy) == pytest.approx(1 / n, abs=1e-12)
        # a non-spy's view, by contrast, leans towards the claim's largest entry
        other = (speaker + 1) % s
        honest = [post[i, other] / sum(post[m, other] for m in range(n)) for i in range(n)]
        assert int(np.argmax(honest)) == int(np.argmax(claim))


def test_a_perfectly_flat_claim_makes_the_speaker_suspect():
    """A flat claim (1/n each) with a uniform P: by symmetry the location stays uniform;
    the spy's Dirichlet (all alpha equal) gives it a higher density than an honest one
    (lgamma is convex), so P(spy = speaker) rises above 1/s."""
    g = load_game(SPEC, {"locations": 4, "players": 3})
    n, s, beta, lam = params(g)
    flat = [1 / n] * n
    post = sleuth_posterior(g, [(1, flat, flat)])
    loc, spy = marginals(post, n, s)
    assert loc == pytest.approx([1 / n] * n, abs=1e-12)
    assert spy[1] > 1 / s > spy[0]
    assert spy == pytest.approx(marginals(brute_force(n, s, beta, lam, [(1, flat, flat)]),
                                          n, s)[1], abs=1e-9)


def test_claims_need_positive_entries():
    g = load_game(SPEC, {"locations": 3, "players": 3})
    public = (1 / 3, 1 / 3, 1 / 3)
    assert answer_is_legal(g, "claim", {"speaker": 0}, {"claim": (0.2, 0.3, 0.5),
                                                        "public": public})
    assert not answer_is_legal(g, "claim", {"speaker": 0}, {"claim": (0.0, 0.5, 0.5),
                                                            "public": public})


def test_check_and_belief_cli(capsys, tmp_path):
    main(["check", str(SPEC), "--set", "locations=4", "--set", "players=3"])
    out = capsys.readouterr().out
    assert "OK" in out and "hypotheses   12" in out and "density" in out
    n, s, beta, lam = params(load_game(SPEC))
    claim = [0.6] + [0.4 / (n - 1)] * (n - 1)
    public = [1 / n] * n
    obs = tmp_path / "spyfall-observations.yaml"
    obs.write_text(f"- query: claim\n  args: {{speaker: 0}}\n"
                   f"  answer: {{claim: {claim}, public: {public}}}\n")
    main(["belief", str(SPEC), "--observations", str(obs)])
    out = capsys.readouterr().out
    assert "1 observation" in out and f"{n * s} hypotheses remain" in out
    # the most probable hypothesis is the brute-force one, with the same probability
    want = brute_force(n, s, beta, lam, [(0, claim, public)])
    best = max(want, key=want.get)
    line = next(x for x in out.splitlines() if "%  location = " in x)
    assert line.split("%")[0].strip() == f"{100 * want[best]:.2f}"
    assert line.strip().endswith(f"location = {best[0]}, spy = {best[1]}")

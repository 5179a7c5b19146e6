"""A response's tremble: off-model answers (issue 16, item 8, partly).

P(answer | h) = (1 - e) P_model(answer | h) + e / #legal answers. Checked against a
hand computation on a small spec, on both likelihood paths (the kept answer table
and the one-answer path), and the zero-evidence error with the belief unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest

import sleuth.compiler.likelihood as likelihood_module
from sleuth.compiler.api import load_game_text
from sleuth.compiler.errors import SpecError
from sleuth.solver.infoset.belief import Belief, InconsistentObservations
from sleuth.solver.infoset.observe import Event, apply_event

SPEC = """\
game: Tremble
params: {eps: 0.0}
domains:
  D: {range: "1..4"}
secret:
  x: D
observations:
  say:
    args: {}
    response:
      answer: D
      legal: "answer != 4"
      valid: "answer <= x + 1"
      likelihood: {weight: "if answer == x then 3.0 else 1.0"}
      tremble: eps
"""


def hand_posterior(answers: list[int], eps: float) -> np.ndarray:
    """Bayes by hand: the model picks among legal (1..3) and valid (<= x + 1) answers with
    weight 3 for the truth and 1 otherwise; off-model, uniformly among the 3 legal ones."""
    post = np.full(4, 0.25)
    for a in answers:
        lik = np.zeros(4)
        for x in range(1, 5):
            ok = [b for b in (1, 2, 3) if b <= x + 1]
            w = {b: 3.0 if b == x else 1.0 for b in ok}
            model = w.get(a, 0.0) / sum(w.values())
            lik[x - 1] = (1 - eps) * model + (eps / 3 if a in (1, 2, 3) else 0.0)
        post = post * lik
        post = post / post.sum()
    return post


@pytest.mark.parametrize("eps", [0.0, 0.05, 0.3])
@pytest.mark.parametrize("kept_table", [True, False])
def test_tremble_posterior_equals_a_hand_computation(eps, kept_table, monkeypatch):
    if not kept_table:  # the one-answer path, with its own normaliser and legal count
        monkeypatch.setattr(likelihood_module, "TABLE_BYTES", 0)
    game = load_game_text(SPEC, "t.yaml", overrides={"eps": eps})
    rng = np.random.default_rng(int(eps * 100))
    answers = [int(a) for a in rng.integers(1, 4, 5)]
    if eps == 0.0:
        answers = [1, 2, 1]  # possible under the model alone
    b = Belief.prior(game)
    for a in answers:
        b = apply_event(b, Event("say", {}, answer=a))
    got = np.zeros(4)
    for h, p in zip(b.index, b.probabilities(), strict=True):
        got[game.hypotheses.value(int(h))["x"] - 1] = p
    np.testing.assert_allclose(got, hand_posterior(answers, eps), atol=1e-12)


def test_an_answer_impossible_under_the_model_needs_a_tremble():
    """With answers valid only up to 1, 'say 3' has likelihood 0 under every hypothesis:
    without a tremble a clear error, the belief unchanged; with one, evidence."""
    strict = SPEC.replace('valid: "answer <= x + 1"', 'valid: "answer <= 1"')
    b = apply_event(Belief.prior(load_game_text(strict, "t.yaml")), Event("say", {}, answer=1))
    index, probabilities = b.index.copy(), b.probabilities().copy()
    with pytest.raises(InconsistentObservations) as e:
        apply_event(b, Event("say", {}, answer=3))
    assert "tremble" in e.value.hint and "the belief is unchanged" in e.value.hint
    np.testing.assert_array_equal(b.index, index)
    np.testing.assert_array_equal(b.probabilities(), probabilities)
    trembling = load_game_text(strict, "t.yaml", overrides={"eps": 0.01})
    after = apply_event(Belief.prior(trembling), Event("say", {}, answer=3))
    assert after.size == 4  # every x explains it equally: off-model, 0.01 / 3 each
    np.testing.assert_allclose(after.probabilities(), 0.25)


@pytest.mark.parametrize(("value", "message"), [
    ("1.0", r"probability in \[0, 1\)"), ("-0.1", r"probability in \[0, 1\)"),
    ("x", "unknown name 'x'"), ("true", "constant number"),
])
def test_bad_trembles_are_refused_at_their_location(value, message):
    with pytest.raises(SpecError, match=message) as e:
        load_game_text(SPEC.replace("tremble: eps", f"tremble: {value}"), "t.yaml")
    assert e.value.loc.line == 15

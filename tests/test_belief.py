"""Beliefs: Bayes updates for every likelihood form, marginals, entropy, errors.

The solver's vectorised path (kernels over whole answer domains) is checked
against a brute-force Bayes computed here with the reference interpreter,
one hypothesis and one answer at a time. The Inkognito worksheet of the
write-up the project started from must give its published marginals.
"""

from __future__ import annotations

import json
import math
import textwrap
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.compiler.domains import domain_values
from sleuth.compiler.errors import ObservationError
from sleuth.compiler.game import load_game_text
from sleuth.compiler.interpret import evaluate
from sleuth.compiler.likelihood import answer_matrix
from sleuth.solver.infoset.belief import Belief, InconsistentObservations
from sleuth.solver.infoset.observe import Event, apply_event, make_event
from sleuth.solver.interfaces.cli import cli, main
from sleuth.solver.interfaces.reading import read_observations
from tests.conftest import ROOT, game

INKOGNITO = ROOT / "specs" / "inkognito.yaml"
WORKSHEET = ROOT / "examples" / "inkognito-worksheet.yaml"


def run_json(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def run_main(args: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    return exit_info.value.code, capsys.readouterr().err


# ----------------------------------------------------------------------------- Inkognito

def test_worksheet_marginals():
    data = run_json("belief", str(INKOGNITO), "--observations", str(WORKSHEET))
    identity = data["marginals"]["id"]
    build = data["marginals"]["bd"]
    expected_id = {"Fiddlebottom": 1 / 2, "ZsaZsa": 1 / 4, "Bubble": 1 / 4, "AgentX": 0}
    expected_bd = {"tall": 0, "short": 0, "fat": 3 / 4, "thin": 1 / 4}
    assert identity.keys() == expected_id.keys() and build.keys() == expected_bd.keys()
    for got, want in ((identity, expected_id), (build, expected_bd)):
        for k, p in want.items():
            assert abs(got[k] - p) <= 1e-12, (k, got[k], p)
    assert data["hypotheses"] == 4
    assert data["entropy_bits"] == pytest.approx(2.0, abs=1e-12)
    # 9 hypotheses, then 5 (1/15 each where valid), 4, 4: information = entropy drop.
    gains = [s["information_bits"] for s in data["observations"]]
    assert gains == pytest.approx([math.log2(9 / 5), math.log2(5 / 4), 0.0], abs=1e-12)


def valid_answer_counts(action_name: str, topic: str) -> list[int]:
    """Legal and valid answers per hypothesis, counted with the interpreter."""
    g = game("inkognito")
    action = g.model.action(action_name)
    r = action.response
    answers = domain_values(r.answer.domain)
    counts = []
    for h in range(g.hypotheses.size):
        env = {**g.hypotheses.value(h), "topic": topic}
        n = 0
        for answer in answers:
            local = {**env, "answer": answer, **answer}
            if all(evaluate(c, local) for c in r.legal) and evaluate(r.valid, local):
                n += 1
        counts.append(n)
    return counts


@pytest.mark.parametrize("action, expected", [("player_question", Fraction(1, 15)),
                                              ("ambassador_question", Fraction(1, 3))])
@pytest.mark.parametrize("topic", ["identity", "build"])
def test_uniform_likelihood_is_computed(action, expected, topic):
    g = game("inkognito")
    index = np.arange(g.hypotheses.size)
    _, p = answer_matrix(g, action, {"topic": topic}, index)
    for h in range(g.hypotheses.size):
        nonzero = p[:, h][p[:, h] > 0]
        assert np.allclose(nonzero, float(expected), rtol=0, atol=1e-15)
        assert p[:, h].sum() == pytest.approx(1.0, abs=1e-12)
    # The same number, counted independently by the interpreter.
    assert valid_answer_counts(action, topic) == [expected.denominator] * g.hypotheses.size


def test_inconsistent_observation_leaves_belief_unchanged():
    g = game("inkognito")
    belief = Belief.prior(g)
    for event in read_observations(g, WORKSHEET):
        belief = apply_event(belief, event)
    index, logw = belief.index.copy(), belief.logw
    impossible = make_event(g, "ambassador_question", {"topic": "build"},
                            {"ids": [], "bds": ["tall", "short"]})
    with pytest.raises(InconsistentObservations) as err:
        apply_event(belief, impossible)
    assert "inconsistent observations" in str(err.value)
    assert "ambassador_question topic=build" in str(err.value)
    assert np.array_equal(belief.index, index) and belief.logw is logw
    assert belief.marginals()["id"]["Fiddlebottom"] == 0.5


def test_inconsistent_observation_file_names_it(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(WORKSHEET.read_text() + textwrap.dedent("""\
        - query: ambassador_question
          args: {topic: build}
          answer: {ids: [], bds: [tall, short]}
        """))
    code, err = run_main(["belief", str(INKOGNITO), "--observations", str(bad)], capsys)
    assert code == 1
    lines = WORKSHEET.read_text().count("\n")
    assert f"{bad}:{lines + 1}:3" in err and "inconsistent observations" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("entry, message", [
    ("{query: player_question, args: {topic: identity}, answer: {ids: [Fiddlebottom], "
     "bds: [fat]}}", "not a legal answer"),
    ("{query: player_questoin, args: {topic: identity}, answer: {ids: [], bds: []}}",
     "did you mean 'player_question'"),
    ("{query: player_question, args: {topic: colour}, answer: {ids: [], bds: []}}",
     "expected one of identity, build"),
    ("{query: player_question, args: {}, answer: {ids: [], bds: []}}",
     "needs argument 'topic'"),
    ("{query: player_question, args: {topic: build}, feedback: 3}", "not a feedback"),
    ("{query: player_question, args: {topic: build}, answer: {ids: [Nobody], bds: []}}",
     "expected one of Fiddlebottom"),
    ("{query: player_question, args: {topic: build}}", "exactly one of 'feedback'"),
])
def test_bad_observations_are_input_errors(tmp_path, capsys, entry, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"# comment\n- {entry}\n")
    code, err = run_main(["belief", str(INKOGNITO), "--observations", str(bad)], capsys)
    assert code == 1 and message in err and f"{bad}:2:" in err, err
    assert "Traceback" not in err


def test_deterministic_feedback_conditions_and_marginals_by_position():
    g = game("mastermind")
    event = make_event(g, "guess", {"g": [1, 1, 2, 2]}, {"black": 1, "white": 1})
    belief = apply_event(Belief.prior(g), event)
    survivors = [g.hypotheses.value(h)["code"] for h in range(g.hypotheses.size)
                 if g.reference_feedback("guess", {"g": (1, 1, 2, 2)},
                                         g.hypotheses.value(h)) == {"black": 1, "white": 1}]
    assert belief.size == len(survivors) and belief.uniform
    marginals = belief.marginals()
    for pos in range(4):
        for colour in range(1, 7):
            expected = sum(code[pos] == colour for code in survivors) / len(survivors)
            assert marginals[f"code[{pos}]"][colour] == pytest.approx(expected, abs=1e-12)
    assert belief.entropy_bits() == math.log2(len(survivors))
    assert belief.kl_bits(Belief.prior(g)) == pytest.approx(math.log2(1296 / len(survivors)))


# ----------------------------------------------------------------------------- Bayes, brute force

NOISY = textwrap.dedent("""\
    game: Noisy oracle
    params: {n: 6}
    domains:
      N: {range: "1..n"}
      Word: {enum: [low, mid, high]}
    secret: {x: N, lucky: Bool}
    prior: {weight: "x + (if lucky then 2 else 1)"}
    queries:
      ask:
        args: {t: N}
        response:
          answer: Word
          legal: "answer != mid or t > 1"
          valid: "lucky or answer != high"
          likelihood: {weight: "if (x < t) == (answer == low) then 3 else 1"}
      pick:
        args: {t: N}
        response:
          answer: {set: N, size: 2}
          valid: "x in answer or t in answer"
          likelihood: uniform
    observations:
      claim:
        args: {}
        response:
          answer: {seq: Real, len: 2}
          likelihood: {density: "dirichlet_pdf(answer, [1.0 + float(x), 2.0])"}
    """)


def noisy():
    return load_game_text(NOISY, "noisy.yaml")


def brute_posterior(g, events: list[Event]) -> np.ndarray:
    """Bayes over the hypothesis table, point by point with the interpreter."""
    post = g.prior.copy()
    for e in events:
        r = g.model.action(e.action).response
        answers = ([e.answer] if r.likelihood == "density"
                   else domain_values(r.answer.domain))
        for h in range(g.hypotheses.size):
            env = {**g.hypotheses.value(h), **e.args}

            def weight(answer, env=env, r=r):
                local = {**env, "answer": answer}
                if not all(evaluate(c, local) for c in r.legal):
                    return 0.0
                if r.valid is not None and not evaluate(r.valid, local):
                    return 0.0
                return 1.0 if r.likelihood_expr is None else evaluate(r.likelihood_expr, local)

            if r.likelihood == "density":
                lik = weight(e.answer)
            else:
                total = sum(weight(a) for a in answers)
                lik = weight(e.answer) / total if total else 0.0
            post[h] *= lik
        post /= post.sum()
    return post


def answers_of(g, action):
    return domain_values(g.model.action(action).response.answer.domain)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(data=st.data())
def test_bayes_matches_brute_force(data):
    g = noisy()
    events = []
    for _ in range(data.draw(st.integers(1, 4))):
        action = data.draw(st.sampled_from(["ask", "pick", "claim"]))
        if action == "claim":
            a = data.draw(st.floats(0.05, 0.95))
            events.append(make_event(g, "claim", {}, [a, 1 - a]))
            continue
        t = data.draw(st.integers(1, 6))
        legal = [a for a in answers_of(g, action)
                 if action != "ask" or a != "mid" or t > 1]
        answer = data.draw(st.sampled_from(legal))
        raw = sorted(answer) if isinstance(answer, frozenset) else answer
        events.append(make_event(g, action, {"t": t}, raw))
    belief = Belief.prior(g)
    try:
        for e in events:
            belief = apply_event(belief, e)
    except InconsistentObservations:
        assert brute_posterior_is_undefined(g, events)
        return
    expected = brute_posterior(g, events)
    got = np.zeros(g.hypotheses.size)
    got[belief.index] = belief.probabilities()
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-12)


def brute_posterior_is_undefined(g, events) -> bool:
    with np.errstate(invalid="ignore"):
        return bool(np.isnan(brute_posterior(g, events)).any())


def test_weighted_prior_and_kl():
    g = noisy()
    prior = Belief.prior(g)
    assert not prior.uniform
    expected = np.array([g.hypotheses.value(h)["x"] + (2 if g.hypotheses.value(h)["lucky"]
                                                       else 1) for h in range(12)], float)
    assert np.allclose(prior.probabilities(), expected / expected.sum())
    after = apply_event(prior, make_event(g, "ask", {"t": 4}, "high"))
    p, q = after.probabilities(), prior.probabilities()[after.index]
    assert after.kl_bits(prior) == pytest.approx(float((p * np.log2(p / q)).sum()))
    assert all(g.hypotheses.value(int(h))["lucky"] for h in after.index)


def test_observation_errors_from_text():
    g = noisy()
    with pytest.raises(ObservationError, match="not legal|not a legal answer"):
        make_event(g, "ask", {"t": 1}, "mid")
    with pytest.raises(ObservationError, match="has 3 elements"):
        make_event(g, "pick", {"t": 1}, [1, 2, 3])


def test_worksheet_file_is_in_examples():
    assert Path(WORKSHEET).exists()


def test_values_and_goal_classes_of_a_sequence_of_records():
    """A secret that is a sequence of records (a fleet of ships) has a column nested two
    deep; its goal classes are the distinct fleets, as the table's own values say."""
    from sleuth.solver.infoset.goals import goal_classes

    game = load_game_text("""
game: Fleet
domains:
  Pos: {range: "0..3"}
  Dir: {enum: [across, down]}
  Ship: {record: {at: Pos, dir: Dir}}
secret:
  fleet: {seq: Ship, len: 2}
  constraints: ["fleet[0].at < fleet[1].at"]
queries:
  fire:
    args: {c: Pos}
    feedback: "exists(fleet[i].at == c for i in 0..1)"
goal: {identify: [fleet]}
""")
    table = game.hypotheses
    belief = Belief(game, np.arange(table.size, dtype=np.int64))
    (first, second) = belief.values("fleet")
    assert len(first) == 2 and len(first[0]) == table.size  # (at, dir) per position
    shown = [repr(table.value(h)["fleet"]) for h in range(table.size)]
    classes = goal_classes(game)
    for a in range(table.size):
        for b in range(table.size):
            assert (classes[a] == classes[b]) == (shown[a] == shown[b])

"""The language features Black Box brought: bounded iteration (`iterate`), named values
shared by the feedback (`let`), tuples joined item by item, increasing sequences (k-subsets
of a large domain) and games that end when nothing more can be told apart
(`until_indistinguishable`). Each is checked through every evaluator it has: the
kernels, the reference interpreter, the boolean lowering (counts against enumeration)
and a plain Python version written here."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sleuth.compiler.api import SleuthError
from sleuth.compiler.errors import SpecError
from sleuth.compiler.game import load_game_text
from sleuth.compiler.ir import IntT, TupleT
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.backends import BELIEF_BACKENDS, ENUMERATED, prior_belief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from tests.conftest import counts_agree

GCD = """\
game: GCD guessing
about: Find the hidden number; the question q is answered with gcd(x, q).
params: {n: 40}
domains:
  Number: {range: "1..n"}
secret:
  x: Number
defs:
  "euclid(a, b)": "if b == 0 then (a, b) else (b, a % b)"
queries:
  ask:
    args: {q: Number}
    feedback: "iterate(euclid, (x, q), 2 * n)[0]"
"""


def every_pair(game, query: str) -> tuple[np.ndarray, list[dict], list[dict]]:
    """The kernels' feedback matrix, the hypotheses and the queries' arguments."""
    space = game.space(query)
    ranks = np.arange(space.size)
    codes = game.feedback_matrix(query, ranks)
    hyps = [game.hypotheses.value(h) for h in range(game.hypotheses.size)]
    return codes, hyps, [space.value(int(r)) for r in ranks]


def test_iterate_is_euclid_in_every_evaluator():
    game = load_game_text(GCD)
    codes, hyps, args = every_pair(game, "ask")
    coder = game.coder("ask")
    for q, a in enumerate(args):
        for h, hyp in enumerate(hyps):
            want = math.gcd(hyp["x"], a["q"])  # written here, independently
            assert coder.decode(int(codes[q, h]))["feedback"] == want
            if (q * 7 + h) % 11 == 0:
                assert game.reference_feedback("ask", a, hyp)["feedback"] == want


def test_iterate_stops_at_the_limit():
    """A limit too small for Euclid leaves the state where the last step put it, in both
    evaluators: iterate is exactly `limit` applications of the step."""
    game = load_game_text(GCD.replace("2 * n)", "1)"))
    codes, hyps, args = every_pair(game, "ask")
    for q, a in enumerate(args):
        for h, hyp in enumerate(hyps):
            want = a["q"]  # one step: (x, q) -> (q, x % q), q >= 1
            assert game.coder("ask").decode(int(codes[q, h]))["feedback"] == want
            assert game.reference_feedback("ask", a, hyp)["feedback"] == want


@pytest.mark.parametrize("backend", [b for b in BELIEF_BACKENDS if b != ENUMERATED])
def test_iterate_is_lowered_for_the_counting_backends(backend):
    game = load_game_text(GCD.replace("n: 40", "n: 12"))
    secret = {"x": 8}
    beliefs = [prior_belief(game, ENUMERATED), prior_belief(game, backend)]
    for q in (6, 4):
        args = {"q": q}
        event = Event("ask", args, feedback=game.reference_feedback("ask", args, secret))
        beliefs = [apply_event(b, event) for b in beliefs]
    enum, counted = beliefs
    assert enum.size == 2  # x = 4 and 8 (gcd 2 with 6, gcd 4 with 4)
    assert counts_agree(backend, counted.size, enum.size), (backend, counted.size)


COUNTER = """\
game: Counter
params: {n: 6, cap: 50}
domains: {Number: {range: "1..n"}}
secret: {x: Number}
defs:
  "up(k)": "STEP"
queries:
  ask:
    args: {q: Number}
    feedback: "iterate(up, 0, 200) + x * 0 + q * 0"
"""


def test_the_state_bounds_are_found_by_widening():
    """A clamped counter needs 50 rounds of plain joins; widening finds 0..50 at once."""
    game = load_game_text(COUNTER.replace("STEP", "min(k + 1, cap)"))
    node = game.model.queries[0].feedback[0][2]
    assert node.left.left.type == IntT(0, 50)
    codes, hyps, args = every_pair(game, "ask")
    assert {game.coder("ask").decode(int(c))["feedback"] for c in codes.ravel()} == {50}


def test_a_state_that_grows_without_bound_is_refused():
    with pytest.raises(SpecError, match="does not stay within fixed bounds") as err:
        load_game_text(COUNTER.replace("STEP", "k + 1"))
    assert "min(max(" in err.value.hint


@pytest.mark.parametrize("feedback, message", [
    ("iterate(nothing, 0, 3)", "iterate needs the name of a def"),
    ("iterate(euclid, x, 3)", "must be a tuple of 2 values"),
    ("iterate(euclid, (x, q), q)", "must be a constant number of steps"),
    ("iterate(euclid, (x, q), 10 ** 6)", "iterate may take 0 to 100,000 steps"),
    ("iterate(bad, (x, q), 3)", "the result of iterate must be a tuple of 2 values"),
])
def test_iterate_errors_are_located(feedback, message):
    text = GCD.replace('"iterate(euclid, (x, q), 2 * n)[0]"', f'"{feedback}"').replace(
        "defs:\n", 'defs:\n  "bad(a, b)": "a + b"\n')
    with pytest.raises(SpecError, match=message) as err:
        load_game_text(text, "gcd.yaml")
    assert err.value.loc is not None and err.value.loc.line > 1


def test_tuples_join_item_by_item():
    """Branches returning tuples of different bounds join into one tuple type; a string
    next to an enum label becomes the label."""
    text = GCD.replace('"iterate(euclid, (x, q), 2 * n)[0]"',
                       '"(if x < q then (x, \'low\', Kind.a) else (q + 100, \'high\', \'b\'))"'
                       ).replace("domains:\n", "domains:\n  Kind: {enum: [a, b]}\n")
    game = load_game_text(text)
    t = game.model.queries[0].feedback[0][2].type
    assert isinstance(t, TupleT) and t.items[0] == IntT(1, 140)
    for x, q in [(3, 9), (9, 3)]:
        want = (x, "low", "a") if x < q else (q + 100, "high", "b")
        got = game.reference_feedback("ask", {"q": q}, {"x": x})["feedback"]
        assert tuple(got) == want
        assert tuple(game.kernel_feedback("ask", {"q": q}, {"x": x})["feedback"]) == want


SHARED = """\
game: Shared value
params: {n: 9}
domains: {Number: {range: "1..n"}}
secret: {x: Number}
queries:
  ask:
    args: {q: Number}
    let:
      d: "abs(x - q)"
      far: "d > 3"
    feedback:
      near: "d <= 1"
      side: 'if far then "far" else if x < q then "left" else "right"'
"""


def test_let_values_are_shared_and_not_reported():
    game = load_game_text(SHARED)
    assert [name for name, _, _ in game.model.queries[0].feedback] == ["near", "side"]
    codes, hyps, args = every_pair(game, "ask")
    for q, a in enumerate(args):
        for h, hyp in enumerate(hyps):
            d = abs(hyp["x"] - a["q"])
            want = {"near": d <= 1, "side": "far" if d > 3 else
                    ("left" if hyp["x"] < a["q"] else "right")}
            assert game.coder("ask").decode(int(codes[q, h])) == want
            assert game.reference_feedback("ask", a, hyp) == want
    for backend in BELIEF_BACKENDS:
        if backend != ENUMERATED:
            belief = apply_event(prior_belief(game, backend), Event(
                "ask", {"q": 5}, feedback={"near": False, "side": "left"}))
            assert counts_agree(backend, belief.size, 2), (backend, belief.size)


@pytest.mark.parametrize("change, message", [
    (("    let:\n", "    let:\n      near: \"1\"\n"), "both a let and a feedback"),
    (("      near: \"d <= 1\"\n", "      near: \"e <= 1\"\n"), "unknown name 'e'"),
])
def test_let_errors(change, message):
    with pytest.raises(SpecError, match=message):
        load_game_text(SHARED.replace(*change))


TWINS = """\
game: Twins
params: {n: 6}
domains: {Number: {range: "1..n"}}
secret: {x: Number}
queries:
  ask:
    args: {q: {range: "1..3"}}
    feedback: "(x + 1) // 2 >= q"
goal: {identify: [x], until_indistinguishable: true}
"""


def test_a_game_ends_when_no_query_tells_the_rest_apart():
    """Numbers 2k - 1 and 2k answer every question alike: each game ends with a pair left,
    once the pair is known. q = 1 tells nothing; q = 2 or 3 sets one pair apart from the
    other two, so two secrets take one question and four take two."""
    game = load_game_text(TWINS)
    for name in ("entropy", "minimax", "most-parts", "optimal", "optimal-worst"):
        ev = evaluate_strategy(game, make_strategy(name, Candidates(game)), "twins")
        assert ev.histogram == {1: 2, 2: 4}, name
        for h, n in ev.lengths.items():
            t = play_secret(game, make_strategy(name, Candidates(game)), h)
            assert len(t.steps) == n and t.solved and t.left == 2


def test_without_the_goal_option_the_same_game_is_an_error():
    game = load_game_text(TWINS.replace(", until_indistinguishable: true", ""))
    with pytest.raises(SleuthError, match="does not split|no progress"):
        evaluate_strategy(game, make_strategy("entropy", Candidates(game)), "twins")


@pytest.mark.parametrize("goal, message", [
    ("{identify: [x], until_indistinguishable: 1}", "is true or false"),
    ("{stop_when: \"feedback\", until_indistinguishable: true}", "has stop_when or confidence"),
])
def test_until_indistinguishable_errors(goal, message):
    with pytest.raises(SpecError, match=message):
        load_game_text(TWINS.replace("{identify: [x], until_indistinguishable: true}", goal))


LOTTO = """\
game: Lotto
params: {n: 70, k: 3}
domains: {Ball: {range: "1..n"}}
secret:
  draw: {seq: Ball, len: k, increasing: true}
queries:
  ask:
    args: {b: Ball}
    feedback: "b in draw"
"""


def test_an_increasing_seq_lists_each_subset_once():
    game = load_game_text(LOTTO)
    want = list(itertools.combinations(range(1, 71), 3))  # more than a set's 62 elements
    assert game.hypotheses.size == len(want) == math.comb(70, 3)
    for i in (0, 1, 777, len(want) - 1):
        assert tuple(game.hypotheses.value(i)["draw"]) == want[i]


@pytest.mark.parametrize("domain, message", [
    ("{seq: Ball, len: k, increasing: false}", "increasing is true"),
    ("{seq: Ball, increasing: true}", "needs 'len'"),
    ("{seq: Ball, len: 71, increasing: true}", "an increasing seq has 1 to"),
    ("{seq: Ball, len: 0, increasing: true}", "an increasing seq has len 1 or more"),
])
def test_increasing_seq_errors(domain, message):
    with pytest.raises(SpecError, match=message):
        load_game_text(LOTTO.replace("{seq: Ball, len: k, increasing: true}", domain))

"""Turing Machine (specs/turing-machine.yaml) and `rounds:`, against computations written
here:

* the 48 criteria cards, transcribed again below from the rulebook's card explanations
  (as plain Python on the triangle t, square s and circle c), against the spec's `crit`
  def on all 125 codes, through a spec that reuses the def's text;
* the problems' hypotheses (criteria assignments that leave exactly one code and need
  every verifier) against a brute force over those cards;
* the least total of rounds, then of checks, against a memoised recursion that tries
  every proposal and verifier, opening a round or continuing one;
* the round count of `evaluate` against one made by hand from the tree's queries;
* a second use of `rounds:` (rounds of at most 2 questions, no shared argument), and the
  language's errors.
"""

from __future__ import annotations

import itertools
import json
from functools import cache

import numpy as np
import pytest
import yaml

from sleuth.compiler import SleuthError
from sleuth.compiler.game import load_game_text
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.infoset.rounds import RoundRule
from sleuth.solver.interfaces.cli import main
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT, game

CODES = list(itertools.product(range(1, 6), repeat=3))


def _cmp(u: int, v: int) -> list[bool]:
    return [u < v, u == v, u > v]


def _run(x: tuple[int, int, int], steps: tuple[int, ...]) -> int:
    """The longest run of consecutive numbers whose steps are all in `steps`."""
    best = 1
    for i in range(2):
        if x[i + 1] - x[i] in steps:
            best = max(best, 2)
    for d in steps:
        if x[1] - x[0] == d and x[2] - x[1] == d:
            best = 3
    return 0 if best == 1 else best


def card(n: int, x: tuple[int, int, int]) -> list[bool]:
    """Whether each criterion of card n holds for the code x (rulebook wording)."""
    t, s, c = x
    colours = (t, s, c)
    evens = sum(v % 2 == 0 for v in x)
    top = max(x.count(v) for v in x)
    pairs = ((t, s), (t, c), (s, c))
    table = {
        1: [t == 1, t > 1], 2: _cmp(t, 3), 3: _cmp(s, 3), 4: _cmp(s, 4),
        5: [t % 2 == 0, t % 2 == 1], 6: [s % 2 == 0, s % 2 == 1], 7: [c % 2 == 0, c % 2 == 1],
        8: [x.count(1) == k for k in range(4)], 9: [x.count(3) == k for k in range(4)],
        10: [x.count(4) == k for k in range(4)],
        11: _cmp(t, s), 12: _cmp(t, c), 13: _cmp(s, c),
        14: [t < s and t < c, s < t and s < c, c < t and c < s],
        15: [t > s and t > c, s > t and s > c, c > t and c > s],
        16: [evens > 3 - evens, evens < 3 - evens],
        17: [evens == k for k in range(4)],
        18: [sum(x) % 2 == 0, sum(x) % 2 == 1],
        19: _cmp(t + s, 6),
        20: [top == 3, top == 2, top == 1],
        21: [top != 2, top == 2],
        22: [t < s < c, t > s > c, not (t < s < c) and not (t > s > c)],
        23: _cmp(sum(x), 6),
        24: [_run(x, (1,)) == 3, _run(x, (1,)) == 2, _run(x, (1,)) == 0],
        25: [_run(x, (1, -1)) == 0, _run(x, (1, -1)) == 2, _run(x, (1, -1)) == 3],
        26: [v < 3 for v in colours], 27: [v < 4 for v in colours],
        28: [v == 1 for v in colours], 29: [v == 3 for v in colours],
        30: [v == 4 for v in colours], 31: [v > 1 for v in colours],
        32: [v > 3 for v in colours],
        33: [f(v) for v in colours for f in (lambda v: v % 2 == 0, lambda v: v % 2 == 1)],
        34: [v == min(x) for v in colours], 35: [v == max(x) for v in colours],
        36: [sum(x) % m == 0 for m in (3, 4, 5)],
        37: [a + b == 4 for a, b in pairs], 38: [a + b == 6 for a, b in pairs],
        39: [f(v) for v in colours for f in (lambda v: v == 1, lambda v: v > 1)],
        40: [r for v in colours for r in _cmp(v, 3)],
        41: [r for v in colours for r in _cmp(v, 4)],
        42: [r for i, v in enumerate(colours) for r in (
            all(v < w for j, w in enumerate(colours) if j != i),
            all(v > w for j, w in enumerate(colours) if j != i))],
        43: _cmp(t, s) + _cmp(t, c), 44: _cmp(s, t) + _cmp(s, c),
        45: [x.count(d) == k for d in (1, 3) for k in range(3)],
        46: [x.count(d) == k for d in (3, 4) for k in range(3)],
        47: [x.count(d) == k for d in (1, 4) for k in range(3)],
        48: [r for a, b in pairs for r in _cmp(a, b)],
    }
    return table[n]


@pytest.mark.slow
def test_every_card_criterion_equals_the_rulebook_transcription(tmp_path):
    """The spec's `crit` def (its own text, through the kernels) on every code, against
    card() above, for all 48 cards."""
    spec = yaml.safe_load((ROOT / "specs" / "turing-machine.yaml").read_text())
    wrong = []
    for n in range(1, 49):
        options = len(card(n, (1, 1, 1)))
        text = yaml.safe_dump({
            "game": "one card", "params": {"card": n},
            "domains": {"Digit": {"range": "1..5"}, "Code": {"seq": "Digit", "len": 3},
                        "Opt": {"range": f"0..{options - 1}"}},
            "defs": {k: v for k, v in spec["defs"].items() if k not in
                     ("card(v)", "others(skip, x)", "verdict(v, x)")},
            "secret": {"x": "Code"},
            "queries": {"criterion": {"args": {"k": "Opt"},
                                      "feedback": "crit(card, k, x)"}},
        }, sort_keys=False)
        g = load_game_text(text)
        candidates = Candidates(g)
        table = OutcomeTable(candidates)
        coder = g.coder("criterion")
        for qi, query in enumerate(table.queries):
            k = candidates.args(query)["k"]
            for h, x in enumerate(CODES):
                got = coder.decode(int(table.book[table.codes[qi, h]]))["feedback"]
                if got != card(n, x)[k]:
                    wrong.append((n, k, x, got))
    assert not wrong, wrong[:10]


PROBLEMS = {  # cards; the code (booklet problems 01 and 02, and an online problem)
    "booklet 01": ((4, 9, 11, 14), (2, 4, 1)),
    "booklet 02": ((3, 7, 10, 14), (4, 3, 5)),
    "online B52 O00 B": ((12, 16, 18, 19, 21), (3, 3, 4)),
}


def assignments(cards: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(criteria, code) for every assignment that leaves one code and needs every card."""
    passes = {n: [[card(n, x)[k] for x in CODES] for k in range(len(card(n, CODES[0])))]
              for n in cards}
    out = []
    for choice in itertools.product(*(range(len(passes[n])) for n in cards)):
        def left(skip: int, choice=choice) -> list[int]:
            return [i for i in range(len(CODES)) if all(
                passes[n][k][i] for j, (n, k) in enumerate(zip(cards, choice, strict=True))
                if j != skip)]
        codes = left(-1)
        if len(codes) == 1 and all(len(left(j)) > 1 for j in range(len(cards))):
            out.append((choice, CODES[codes[0]]))
    return out


def overrides(cards: tuple[int, ...]) -> dict[str, int]:
    return dict(zip("abcdef", list(cards) + [0] * (6 - len(cards)), strict=True))


@pytest.mark.parametrize("name", PROBLEMS)
def test_hypotheses_are_the_valid_assignments(name):
    cards, code = PROBLEMS[name]
    g = game("turing-machine", **overrides(cards))
    every = Belief(g, np.arange(g.hypotheses.size))
    got = set()
    for (values, _w) in every.top(g.hypotheses.size):
        criteria = tuple(values[f"v{v}"] for v in "abcdef"[:len(cards)])
        got.add((criteria, tuple(values["code"])))
    expected = set(assignments(cards))
    assert got == expected
    assert code in {c for _, c in expected}  # the published code is one of them


def least_rounds(cards: tuple[int, ...]) -> tuple[int, int]:
    """The least (total rounds, total checks) over the valid assignments, by a memoised
    recursion over (assignments left, round in progress): every proposal and verifier,
    opening a round (any time) or continuing one (same proposal, under 3 checks)."""
    hyps = assignments(cards)
    verdicts = {(p, v): [card(number, p)[hyps[h][0][v]] for h in range(len(hyps))]
                for p in CODES for v, number in enumerate(cards)}

    @cache
    def best(left: frozenset, state: tuple | None) -> tuple[int, int]:
        if len({hyps[h][1] for h in left}) == 1:
            return 0, 0
        n, out = len(left), None
        for p in CODES:
            for v in range(len(cards)):
                answer = verdicts[(p, v)]
                parts = [frozenset(h for h in left if answer[h] == a) for a in (True, False)]
                if not all(parts):
                    continue
                ways = [1]
                if state is not None and state[0] == p and state[1] < 3:
                    ways.append(0)
                for opened in ways:
                    after = (p, 1) if opened else (p, state[1] + 1)
                    got = [best(part, after) for part in parts]
                    value = (n * opened + sum(g[0] for g in got), n + sum(g[1] for g in got))
                    out = value if out is None else min(out, value)
        assert out is not None
        return out

    return best(frozenset(range(len(hyps))), None)


def evaluate_json(capsys, cards: tuple[int, ...], strategy: str, *more: str) -> dict:
    sets = [x for k, v in overrides(cards).items() for x in ("--set", f"{k}={v}")]
    main(["evaluate", str(ROOT / "specs" / "turing-machine.yaml"), "--strategy", strategy,
          "--json", *sets, *more])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", [n if n == "booklet 01" else
                                  pytest.param(n, marks=pytest.mark.slow) for n in PROBLEMS])
def test_optimal_rounds_then_checks_equal_the_brute_force(capsys, name):
    cards, _ = PROBLEMS[name]
    got = evaluate_json(capsys, cards, "optimal")
    assert (got["rounds"]["total"], got["total"]) == least_rounds(cards)
    assert got["proven"]["rounds"] == got["rounds"]["total"]


@pytest.mark.parametrize("cards, strategy", [
    (PROBLEMS["booklet 02"][0], "entropy"),
    # a generated problem (github.com/manurFR/turingmachine's README): optimal plays
    # rounds of 3 checks here
    pytest.param((7, 26, 31, 36, 42), "optimal", marks=pytest.mark.slow),
])
def test_rounds_of_the_tree_equal_a_count_by_hand(capsys, tmp_path, cards, strategy):
    """Every leaf's rounds in the written tree, counted from its queries by hand (a round
    opens when the proposal changes or after 3 checks), equal evaluate's figures."""
    tree_file = tmp_path / "tree.json"
    got = evaluate_json(capsys, cards, strategy, "--tree", str(tree_file))
    tree = json.loads(tree_file.read_text())
    rounds: list[int] = []

    def walk(node: dict, path: list) -> None:
        if "solved" in node:
            count, last, run = 0, None, 0
            for proposal in path:
                if proposal != last or run == 3:
                    count, last, run = count + 1, proposal, 0
                run += 1
            rounds.extend([count] * node["secrets"])
            return
        for branch in node["branches"]:
            walk(branch, path + [tuple(node["query"]["args"]["proposal"])])

    walk(tree["tree"], [])
    assert sum(rounds) == got["rounds"]["total"]
    assert max(rounds) == got["rounds"]["worst"]


TWO_A_ROUND = """\
game: Higher or lower, two questions a round
params: {n: 12}
domains:
  N: {range: "1..n"}
secret: {x: N}
queries:
  below:
    args: {t: N}
    feedback: "x < t"
rounds: {most: 2}
"""


def test_a_second_use_rounds_of_two_questions():
    """No shared argument: each round is at most 2 questions, so a game of d questions
    takes ceil(d / 2) rounds; the least total of rounds, then questions, by a recursion
    over intervals written here."""
    n = 12

    @cache
    def best(lo: int, hi: int, asked: int) -> tuple[int, int]:
        if lo == hi:
            return 0, 0
        size, out = hi - lo + 1, None
        for t in range(lo + 1, hi + 1):
            opened = 1 if asked % 2 == 0 else 0
            for ways in {opened, 1}:  # continue, or open a round anyway
                after = 1 if ways == 1 else asked + 1
                a, b = best(lo, t - 1, after), best(t, hi, after)
                value = (size * ways + a[0] + b[0], size + a[1] + b[1])
                out = value if out is None else min(out, value)
        return out

    g = load_game_text(TWO_A_ROUND)
    strategy = make_strategy("optimal", Candidates(g))
    result = evaluate_strategy(g, strategy, "two-a-round")
    assert (sum(result.rounds.values()), result.total) == best(1, n, 0)
    assert all(r == -(-result.lengths[h] // 2) for h, r in result.rounds.items())
    assert RoundRule(Candidates(g)).after([("below", 0)] * 5) == (3, ((), 1))


@pytest.mark.parametrize("rounds, message", [
    ("{share: [nosuch], most: 2}", "not an argument of query 'below'"),
    ("{most: 0}", "whole number >= 1"),
    ("{}", "needs 'share'"),
    ("{most: k}", "names 'k', which is not a param"),
])
def test_rounds_errors_are_located(rounds, message):
    text = TWO_A_ROUND.replace("rounds: {most: 2}", f"rounds: {rounds}")
    with pytest.raises(SleuthError) as err:
        load_game_text(text, "two.yaml")
    assert message in str(err.value)
    assert "two.yaml:10:" in str(err.value)


@pytest.mark.slow
def test_optimal_worst_takes_the_fewest_rounds_in_the_worst_game(capsys):
    cards = PROBLEMS["booklet 02"][0]
    worst = evaluate_json(capsys, cards, "optimal-worst")["rounds"]["worst_game"]
    expected = evaluate_json(capsys, cards, "optimal")["rounds"]["worst_game"]
    assert (worst["rounds"], worst["queries"]) <= (expected["rounds"], expected["queries"])


def test_each_solved_game_counts_the_rounds_evaluate_counts():
    """`solve`'s transcript (one game at a time, its rounds counted step by step) and
    `evaluate`'s tree (every secret at once, counted at the leaves) agree per secret."""
    from sleuth.solver.evaluation.transcript import play_secret

    g = game("turing-machine", **overrides(PROBLEMS["booklet 02"][0]))
    for name in ("optimal", "entropy"):
        strategy = make_strategy(name, Candidates(g))
        ev = evaluate_strategy(g, strategy, "tm")
        for h in range(g.hypotheses.size):
            t = play_secret(g, make_strategy(name, Candidates(g)), h)
            assert (t.round_count, len(t.steps)) == (ev.rounds[h], ev.lengths[h])
            assert t.rounds == sorted(t.rounds) and t.rounds[0] == 1

"""Games whose answers may lie (`lies:`), against computations written here.

* Ulam's game: the least worst case by Berlekamp's recursion over (how many numbers need
  no lie, how many one, ...) -- a question is how many of each it holds -- and, for one
  lie, Pelc's formula: the least q with n (q + 1) <= 2^q.
* Mastermind with a liar: a minimax over frozensets of (code, lies used), every guess
  tried, every score the liar may give followed.
* Each secret's reported length is replayed here: the secret's answers down the tree,
  the lie placed at every possible turn (or nowhere), the longest game kept.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from functools import cache

import pytest

from sleuth.compiler import SleuthError, load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import main as sleuth
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT

ULAM = ROOT / "specs" / "ulam.yaml"
LIAR_MM = ROOT / "specs" / "mastermind-lie.yaml"


def berlekamp(n: int, lies: int) -> int:
    """The least worst case of Ulam's game by recursion over lie-count profiles."""

    def child(state: tuple, take: tuple) -> tuple:
        # numbers in the set answer truthfully; the others need one more lie
        out = [0] * (lies + 1)
        for j in range(lies + 1):
            out[j] += take[j]
            if j + 1 <= lies:
                out[j + 1] += state[j] - take[j]
        return tuple(out)

    @cache
    def can(state: tuple, t: int) -> bool:
        if sum(state) <= 1:
            return True
        if t == 0:
            return False
        for take in itertools.product(*(range(a + 1) for a in state)):
            yes = child(state, take)
            no = child(state, tuple(a - x for a, x in zip(state, take, strict=True)))
            if yes != state and no != state and can(yes, t - 1) and can(no, t - 1):
                return True
        return False

    start = (n,) + (0,) * lies
    t = 0
    while not can(start, t):
        t += 1
    return t


def pelc(n: int) -> int:
    q = 0
    while n * (q + 1) > 2 ** q:
        q += 1
    return q


def least_worst(spec, **params) -> tuple[int, object]:
    game = load_game(spec, params)
    s = make_strategy("optimal-worst", Candidates(game))
    return s.search.least_depth(s.search.lies.root()), s


@pytest.mark.parametrize("n, lies", [(n, 1) for n in range(2, 11)] + [(16, 1)] +
                         [(n, 2) for n in range(2, 7)])
def test_ulam_equals_berlekamps_recursion(n, lies):
    depth, _ = least_worst(ULAM, n=n, lies=lies)
    assert depth == berlekamp(n, lies)
    if lies == 1 and n in (4, 8, 16):
        assert depth == pelc(n)


def test_ulam_sees_berlekamps_states_only():
    """Every number is interchangeable, so the search visits a handful of states: at
    most one per (numbers needing no lie, numbers needing one) and depth."""
    depth, s = least_worst(ULAM, n=16)
    assert len(set(s.search.lies.classes.tolist())) == 1
    assert s.search.nodes <= 17 * 17 * depth


def score(guess: tuple, code: tuple) -> tuple[int, int]:
    black = sum(g == c for g, c in zip(guess, code, strict=True))
    return black, sum((Counter(guess) & Counter(code)).values()) - black


def brute_liar_mastermind(pegs: int, colours: int, lies: int, off_by_one: bool) -> int:
    codes = list(itertools.product(range(1, colours + 1), repeat=pegs))
    answers = {g: sorted({score(g, c) for c in codes}) for g in codes}

    def may_say(truth: tuple, said: tuple) -> bool:
        if said == truth:
            return False
        return not off_by_one or abs(said[0] - truth[0]) + abs(said[1] - truth[1]) == 1

    @cache
    def can(state: frozenset, t: int) -> bool:
        if len({c for c, _ in state}) <= 1:
            return True
        if t == 0:
            return False
        for g in codes:
            kids = []
            for said in answers[g]:
                kid = frozenset({(c, k) for c, k in state if score(g, c) == said} |
                                {(c, k + 1) for c, k in state
                                 if k < lies and may_say(score(g, c), said)})
                if kid:
                    kids.append(kid)
            if any(kid == state for kid in kids):
                continue
            if all(can(kid, t - 1) for kid in kids):
                return True
        return False

    start = frozenset((c, 0) for c in codes)
    t = 0
    while not can(start, t):
        t += 1
    return t


@pytest.mark.parametrize("pegs, colours, off_by_one", [
    (2, 2, False), (2, 3, False), (3, 2, False), (3, 2, True), (2, 3, True), (3, 3, True),
    pytest.param(3, 3, False, marks=pytest.mark.slow)])  # MM(3,3): 20 s here, 44 s brute
def test_mastermind_with_a_liar_equals_the_brute_force(pegs, colours, off_by_one):
    depth, _ = least_worst(LIAR_MM, pegs=pegs, colours=colours, off_by_one=off_by_one)
    assert depth == brute_liar_mastermind(pegs, colours, 1, off_by_one)


def replay(game, tree: dict, secret: dict, lie_at: int | None) -> int:
    """The length of one game down a saved tree: the secret's true answers, except a
    lie at turn `lie_at` (the other answer of a yes-or-no question)."""
    node, turn = tree, 0
    while "solved" not in node:
        turn += 1
        args = node["query"]["args"]
        truth = game.reference_feedback(node["query"]["query"],
                                        {"s": frozenset(args["s"])}, secret)["feedback"]
        said = (not truth) if turn == lie_at else truth
        node = next(b for b in node["branches"] if b["feedback"]["feedback"] == said)
    assert node["solved"] == secret
    return turn


def test_each_secrets_length_is_its_longest_game(tmp_path, capsys):
    sleuth(["evaluate", str(ULAM), "--set", "n=6", "--strategy", "optimal-worst",
            "--tree", str(tmp_path / "u.json"), "--json"])
    report = json.loads(capsys.readouterr().out)
    doc = json.loads((tmp_path / "u.json").read_text())
    game = load_game(ULAM, {"n": 6})
    lengths = [max(replay(game, doc["tree"], {"x": x}, at) for at in [None, *range(1, 12)])
               for x in range(1, 7)]
    assert report["total"] == sum(lengths) and report["worst"] == max(lengths)
    assert report["worst"] == report["proven"]["worst"] == berlekamp(6, 1)
    sleuth(["verify-tree", str(tmp_path / "u.json"), str(ULAM), "--set", "n=6"])
    assert f"total {sum(lengths)}" in capsys.readouterr().out


def test_evaluation_walks_the_same_tree_as_the_search():
    game = load_game(ULAM, {"n": 5})
    s = make_strategy("optimal-worst", Candidates(game))
    ev = evaluate_strategy(game, s, "ulam")
    assert ev.worst == s.search.least_depth(s.search.lies.root()) == berlekamp(5, 1)


def test_strategies_that_trust_answers_refuse_a_liar():
    candidates = Candidates(load_game(ULAM, {"n": 4}))
    for name in ("entropy", "optimal", "lookahead", "random"):
        with pytest.raises(SleuthError, match="does not play against lies"):
            make_strategy(name, candidates)
def test_a_belief_keeps_every_number_the_liar_can_still_defend(tmp_path, capsys):
    """`belief` against a liar: after the answers, the numbers left are those whose true
    answers differ from the ones given at most `lies` times, counted here."""
    import random

    rng = random.Random(3)
    asks = [sorted(rng.sample(range(1, 9), rng.randint(1, 7))) for _ in range(4)]
    said = [rng.random() < 0.5 for _ in asks]
    obs = tmp_path / "obs.yaml"
    obs.write_text("".join(f"- query: ask\n  args: {{s: {s}}}\n  feedback: {str(a).lower()}\n"
                           for s, a in zip(asks, said, strict=True)))
    sleuth(["belief", str(ULAM), "--set", "n=8", "--observations", str(obs), "--json"])
    data = json.loads(capsys.readouterr().out)
    want = [x for x in range(1, 9)
            if sum((x in s) != a for s, a in zip(asks, said, strict=True)) <= 1]
    assert data["hypotheses"] == len(want)
    shown = {int(k) for k, p in data["marginals"]["x"].items() if p > 0}
    assert shown == set(want)


def test_play_against_a_liar_finishes_within_the_least_worst_case(capsys):
    """`play` with optimal-worst, answered for number 6 with the third answer a lie: the
    game ends with 6 known, within the proven worst case."""
    import re

    from rich.console import Console

    from sleuth.solver.interfaces.play import Play
    from sleuth.solver.interfaces.session import Session

    game = load_game(ULAM, {"n": 8})
    strategy = make_strategy("optimal-worst", Candidates(game))
    answers: list[bool] = []

    def read(prompt: str) -> str:
        m = re.match(r"ask s=\[([0-9, ]*)\] -> ", prompt)
        if m is None:
            return "quit"
        truth = 6 in {int(v) for v in m.group(1).split(",") if v.strip()}
        answers.append(truth)
        return str(truth != (len(answers) == 3)).lower()

    Play(game, strategy, Session.open(None, game, str(ULAM)), Console()).run(read)
    out = capsys.readouterr().out
    assert "x = 6" in out and "solved" in out
    assert 3 <= len(answers) <= berlekamp(8, 1)


def test_the_counting_backends_refuse_a_liar(tmp_path, capsys):
    obs = tmp_path / "obs.yaml"
    obs.write_text("- query: ask\n  args: {s: [1, 2]}\n  feedback: true\n")
    with pytest.raises(SystemExit) as stop:
        sleuth(["belief", str(ULAM), "--set", "n=4", "--backend", "sdd", "--observations",
                str(obs)])
    err = capsys.readouterr().err
    assert stop.value.code == 1 and "this game's answers may lie" in err and f"{obs}:1:3" in err


def test_a_liar_with_a_history_rule_is_refused_by_name(capsys):
    spec = ULAM.read_text().replace("    feedback: \"x in s\"",
                                    "    history: \"s != before.s\"\n    feedback: \"x in s\"")
    from sleuth.compiler.game import load_game_text

    game = load_game_text(spec, "ulam.yaml", {"n": 4})
    with pytest.raises(SleuthError, match="does not follow history rules or the turn"):
        make_strategy("optimal-worst", Candidates(game))

"""`evaluate --first Q`: the exact searches prove the best play that opens with Q
(`Strategy.opened`, `Strategy.proven_after`), checked against brute forces written
here and in test_optimal.py, on a game that stops when the secret is guessed
(Mastermind) and on one that ends when it is known (the counterfeit coin)."""

from __future__ import annotations

import itertools
import json
from functools import cache

import pytest

from sleuth.compiler import load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT
from tests.test_optimal import brute_coin, brute_mastermind, mastermind_parts


def brute_worst_first_after(pegs: int, colours: int, opener: tuple) -> tuple[int, int]:
    """The least (worst, total) over every strategy that asks `opener` first, by its own
    recursion: the least total of a set within a depth, over every guess."""
    codes = list(itertools.product(range(colours), repeat=pegs))

    @cache
    def within(secrets: frozenset, depth: int) -> int | None:
        if not secrets:
            return 0
        if depth == 0:
            return None
        best = None
        for guess in codes:
            going = mastermind_parts(pegs, guess, secrets)
            totals = None if going is None else [within(p, depth - 1) for p in going]
            if totals is not None and None not in totals:
                t = len(secrets) + sum(totals)
                best = t if best is None else min(best, t)
        return best

    going = mastermind_parts(pegs, opener, frozenset(codes))
    deepest = max(next(d for d in itertools.count() if within(p, d) is not None)
                  for p in going)
    return 1 + deepest, len(codes) + sum(within(p, deepest) for p in going)


@pytest.mark.parametrize("pegs, colours", [(2, 4), (3, 3)])
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_a_forced_opener_is_proven_against_brute_force(pegs, colours, strategy, capsys):
    """`evaluate --first Q` proves the best play that opens with Q: every opener's proof
    and tree are the brute force's least total then worst (or least worst then total)
    among strategies asking it first, and the least of those over all openers is the
    optimum."""
    from sleuth.solver.interfaces.cli import main as sleuth

    spec = str(ROOT / "specs" / "mastermind.yaml")
    sizes = ["--set", f"pegs={pegs}", "--set", f"colours={colours}"]
    worst_first = strategy == "optimal-worst"
    got = {}
    for opener in itertools.product(range(colours), repeat=pegs):
        text = "".join(str(c + 1) for c in opener)
        sleuth(["evaluate", spec, *sizes, "--strategy", strategy, "--first", text, "--json"])
        data = json.loads(capsys.readouterr().out)
        proof = data["proven"]
        if worst_first:
            want = brute_worst_first_after(pegs, colours, opener)[::-1]
        else:
            want = brute_mastermind(pegs, colours, False, opener)
        assert (data["total"], data["worst"]) == (proof["total"], proof["worst"]) == want
        assert proof["first"] == data["first_query"]
        got[opener] = want[::-1] if worst_first else want
    best = min(got.values())
    assert (best[::-1] if worst_first else best) == brute_mastermind(pegs, colours,
                                                                     worst_first)


@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_the_best_forced_opener_of_a_game_without_stop_is_the_optimum(strategy):
    """A game that ends when the coin is known (no `stop_when`: a part may be over after
    the opener alone): every weighing forced first gives a tree whose total and worst
    are the proof's, and the best of them is the brute force's optimum."""
    game = load_game(str(ROOT / "specs" / "counterfeit-coin.yaml"), {"coins": 4})
    worst_first = strategy == "optimal-worst"
    got = []
    for opener in make_strategy(strategy, Candidates(game, "any")).search.queries:
        chooser = make_strategy(strategy, Candidates(game, "any"))
        ev = evaluate_strategy(game, chooser, "coin", first=opener)
        proof = chooser.proven_after(Belief.prior(game), opener)
        assert (ev.total, ev.worst) == (proof["total"], proof["worst"])
        got.append((ev.worst, ev.total) if worst_first else (ev.total, ev.worst))
    best = min(got)
    assert (best[::-1] if worst_first else best) == brute_coin(4, worst_first)
    assert len(set(got)) > 1  # the openers differ


@pytest.mark.slow  # the brute force takes 8 s
def test_a_forced_opener_lets_a_shallow_part_trade_depth_for_total(capsys):
    """MM(4,3) opened with 1111 under the least worst case first: the deepest part needs
    4 more guesses, and a part whose own least depth is smaller has a lower total within
    those 4 (the brute force's 291 against 292 with each part at its own least depth,
    which the test's recursion gives when the deepest part's depth is not passed on)."""
    from sleuth.solver.interfaces.cli import main as sleuth

    want = brute_worst_first_after(4, 3, (0, 0, 0, 0))
    own = brute_mastermind(4, 3, True, (0, 0, 0, 0))[::-1]  # each part its own optimum
    assert want[0] == own[0] and want[1] < own[1]  # the case tells the two apart
    sleuth(["evaluate", "mastermind", "--set", "pegs=4", "--set", "colours=3",
            "--strategy", "optimal-worst", "--first", "1111", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert (data["worst"], data["total"]) == (data["proven"]["worst"],
                                              data["proven"]["total"]) == want

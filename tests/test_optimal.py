"""The optimal strategies against a plain exhaustive minimisation written here.

The games are rebuilt by hand (Mastermind's black and white pegs, the balance's three
outcomes), every query is tried at every information set (no bounds, no ordering), and
the least (total, worst case) -- or (worst case, total) -- is computed by memoised
recursion over frozensets of secrets. `sleuth evaluate --strategy optimal` must give the
same numbers, and its tree must reach them.
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache

import pytest

from sleuth.compiler import SleuthError, load_game
from sleuth.compiler.game import load_game_text
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT


def mastermind_feedback(guess: tuple, code: tuple) -> tuple[int, int]:
    black = sum(g == c for g, c in zip(guess, code, strict=True))
    common = sum((Counter(guess) & Counter(code)).values())
    return black, common - black


def brute_mastermind(pegs: int, colours: int, worst_first: bool) -> tuple[int, int]:
    codes = list(itertools.product(range(colours), repeat=pegs))

    @cache
    def cost(secrets: frozenset) -> tuple[int, int]:
        best = None
        for guess in codes:  # any query, possible secret or not
            parts: dict[tuple, list] = {}
            for s in secrets:
                parts.setdefault(mastermind_feedback(guess, s), []).append(s)
            going = [frozenset(p) for fb, p in parts.items() if fb != (pegs, 0)]
            if any(len(p) == len(secrets) for p in going):
                continue  # no progress
            total, worst = len(secrets), 1
            for p in going:
                t, w = cost(p)
                total, worst = total + t, max(worst, w + 1)
            best = min((best, (total, worst)) if best else [(total, worst)], key=order)
        return best

    def order(value: tuple[int, int]) -> tuple[int, int]:
        return (value[1], value[0]) if worst_first else value

    return cost(frozenset(codes))


def brute_coin(coins: int, worst_first: bool) -> tuple[int, int]:
    secrets = [(c, k) for c in range(1, coins + 1) for k in ("heavy", "light")]
    weighings = []
    for size in range(1, coins // 2 + 1):
        for left in itertools.combinations(range(1, coins + 1), size):
            rest = [c for c in range(1, coins + 1) if c not in left]
            for right in itertools.combinations(rest, size):
                weighings.append((frozenset(left), frozenset(right)))

    def outcome(w, s) -> str:
        left, right = w
        fake, kind = s
        if fake in left:
            return "left" if kind == "heavy" else "right"
        if fake in right:
            return "right" if kind == "heavy" else "left"
        return "balanced"

    @cache
    def cost(group: frozenset) -> tuple[int, int]:
        if len(group) == 1:
            return (0, 0)
        best = None
        for w in weighings:
            parts: dict[str, list] = {}
            for s in group:
                parts.setdefault(outcome(w, s), []).append(s)
            if len(parts) == 1:
                continue
            total, worst = len(group), 1
            for p in parts.values():
                t, d = cost(frozenset(p))
                total, worst = total + t, max(worst, d + 1)
            best = min((best, (total, worst)) if best else [(total, worst)], key=order)
        return best

    def order(value: tuple[int, int]) -> tuple[int, int]:
        return (value[1], value[0]) if worst_first else value

    return cost(frozenset(secrets))


def sleuth_value(spec: str, overrides: dict, strategy: str) -> tuple[int, int, tuple]:
    game = load_game(spec, overrides)
    s = make_strategy(strategy, Candidates(game, "any"))
    ev = evaluate_strategy(game, s, spec)
    return ev.total, ev.worst, s.value(Belief.prior(game))


CASES = [(2, 2), (2, 3), (2, 4), (3, 2), (3, 3)]


@pytest.mark.parametrize("pegs, colours", CASES)
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_mastermind_optimum_equals_brute_force(pegs, colours, strategy):
    want = brute_mastermind(pegs, colours, strategy == "optimal-worst")
    total, worst, proven = sleuth_value(str(ROOT / "specs" / "mastermind.yaml"),
                                        {"pegs": pegs, "colours": colours}, strategy)
    assert (total, worst) == want == proven


@pytest.mark.parametrize("coins", [3, 4, 5, 6])
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_coin_optimum_equals_brute_force(coins, strategy):
    want = brute_coin(coins, strategy == "optimal-worst")
    total, worst, proven = sleuth_value(str(ROOT / "specs" / "counterfeit-coin.yaml"),
                                        {"coins": coins}, strategy)
    assert (total, worst) == want == proven


def test_known_values():
    """The published optima this issue names: MM(3,2) 18, MM(3,3) 73, MM(2,6) 132, and the
    classic 12-coin answer, 3 weighings for every secret (72 in total)."""
    mm = str(ROOT / "specs" / "mastermind.yaml")
    assert sleuth_value(mm, {"pegs": 3, "colours": 2}, "optimal")[:2] == (18, 3)
    assert sleuth_value(mm, {"pegs": 3, "colours": 3}, "optimal")[0] == 73
    assert sleuth_value(mm, {"pegs": 2, "colours": 6}, "optimal")[0] == 132
    assert sleuth_value(str(ROOT / "specs" / "counterfeit-coin.yaml"), {},
                        "optimal")[:2] == (72, 3)


def test_optimal_beats_or_ties_every_heuristic():
    mm = str(ROOT / "specs" / "mastermind.yaml")
    game = load_game(mm, {"pegs": 3, "colours": 3})
    best = evaluate_strategy(game, make_strategy("optimal", Candidates(game, "any")), mm)
    for name in ("entropy", "minimax", "expected-size", "most-parts"):
        ev = evaluate_strategy(game, make_strategy(name, Candidates(game, "any")), mm)
        assert ev.total >= best.total


def test_random_answers_and_weights_are_refused():
    with pytest.raises(SleuthError, match="deterministic feedback"):
        make_strategy("optimal", Candidates(load_game(ROOT / "specs" / "inkognito.yaml")))
    text = (ROOT / "specs" / "higher-lower.yaml").read_text()
    weighted = text.replace("secret: {number: Number}",
                            "secret: {number: Number}\nprior: {weight: 'float(number)'}")
    with pytest.raises(SleuthError, match="uniform prior"):
        make_strategy("optimal", Candidates(load_game_text(weighted, overrides={"n": 7})))
    game = load_game_text(text, overrides={"n": 7})
    s = make_strategy("optimal", Candidates(game))
    ev = evaluate_strategy(game, s, "higher-lower")
    assert (ev.total, ev.worst) == (17, 3)  # binary search: 1 + 2 * 2 + 4 * 3

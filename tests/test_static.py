"""`--strategy static` (issue 31): the least non-adaptive plan (a separating set of queries,
found by SAT), checked against a brute force written here that tries every set of
queries of each size in turn, with feedback computed here (not by the spec)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from sleuth.compiler import SleuthError, load_game
from sleuth.compiler.game import load_game_text
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.evaluation.trees import verify_tree
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from sleuth.solver.strategies.static_search import canonical_partitions
from tests.conftest import ROOT

MM = str(ROOT / "specs" / "mastermind.yaml")
COIN = str(ROOT / "specs" / "counterfeit-coin.yaml")


def mastermind_rows(pegs: int, colours: int) -> tuple[list, list, list]:
    """(queries, secrets, feedback rows) of Mastermind, colours 1..colours."""
    codes = list(itertools.product(range(1, colours + 1), repeat=pegs))

    def feedback(g: tuple, c: tuple) -> tuple[int, int]:
        black = sum(a == b for a, b in zip(g, c, strict=True))
        return black, sum((Counter(g) & Counter(c)).values()) - black

    return codes, codes, [[feedback(g, c) for c in codes] for g in codes]


def coin_rows(coins: int) -> tuple[list, list, list]:
    """(weighings, secrets, feedback rows) of the coin: every two disjoint non-empty pans
    of equal size; a secret is (fake coin, heavy?)."""
    every = range(1, coins + 1)
    weighings = [(set(left), set(right)) for k in range(1, coins // 2 + 1)
                 for left in itertools.combinations(every, k)
                 for right in itertools.combinations(sorted(set(every) - set(left)), k)]
    secrets = [(c, heavy) for c in every for heavy in (True, False)]

    def feedback(w: tuple, s: tuple) -> str:
        left, right = w
        (c, heavy) = s
        if c in left:
            return "left" if heavy else "right"
        if c in right:
            return "right" if heavy else "left"
        return "balanced"

    return weighings, secrets, [[feedback(w, s) for s in secrets] for w in weighings]


def separates(rows: list, chosen: tuple) -> bool:
    signatures = [tuple(rows[q][s] for q in chosen) for s in range(len(rows[0]))]
    return len(set(signatures)) == len(signatures)


def least_by_brute_force(rows: list) -> int:
    for k in itertools.count():
        if any(separates(rows, chosen) for chosen in itertools.combinations(range(len(rows)),
                                                                             k)):
            return k
    raise AssertionError("unreachable")


def static_plan(spec: str, overrides: dict):
    game = load_game(spec, overrides)
    strategy = make_strategy("static", Candidates(game, "any"))
    return game, strategy


def plan_args(strategy) -> list:
    return [strategy.candidates.args(strategy.search.queries[q]) for q in strategy.plan.queries]


@pytest.mark.parametrize("pegs,colours", [(2, 2), (2, 3), (2, 4), (2, 5), (3, 2), (3, 3)])
def test_static_mastermind_is_the_brute_force_least(pegs: int, colours: int) -> None:
    queries, secrets, rows = mastermind_rows(pegs, colours)
    game, strategy = static_plan(MM, {"pegs": pegs, "colours": colours})
    plan = strategy.plan
    assert plan.least
    assert plan.size == least_by_brute_force(rows)
    chosen = tuple(queries.index(tuple(a["g"])) for a in plan_args(strategy))
    assert separates(rows, chosen)  # by the feedback computed here


@pytest.mark.parametrize("coins", [3, 4, 5])
def test_static_coin_is_the_brute_force_least(coins: int) -> None:
    weighings, secrets, rows = coin_rows(coins)
    game, strategy = static_plan(COIN, {"coins": coins})
    plan = strategy.plan
    assert plan.least and plan.size == least_by_brute_force(rows)
    chosen = tuple(weighings.index((set(a["left"]), set(a["right"])))
                   for a in plan_args(strategy))
    assert separates(rows, chosen)


def test_static_tree_is_verified_as_a_static_plan() -> None:
    """Played, the plan's tree passes verify-tree, which counts the distinct queries asked
    while a secret is unknown: the plan's size; a game never asks more than the plan
    (plus, with `stop_when`, the final guess)."""
    for spec, overrides, extra in ((COIN, {"coins": 5}, 0),
                                   (MM, {"pegs": 3, "colours": 3}, 1)):
        game, strategy = static_plan(spec, overrides)
        result = evaluate_strategy(game, strategy, spec, tree=True)
        got = verify_tree(game, {"tree": result.tree})
        assert got["queries_before_known"] == strategy.plan.size
        assert got["total"] == result.total and got["worst"] == result.worst
        assert result.worst <= strategy.plan.size + extra
    # an adaptive tree asks more distinct queries than the least static plan
    game = load_game(COIN, {"coins": 5})
    adaptive = evaluate_strategy(game, make_strategy("entropy", Candidates(game, "any")),
                                 COIN, tree=True)
    assert verify_tree(game, {"tree": adaptive.tree})["queries_before_known"] > \
        static_plan(COIN, {"coins": 5})[1].plan.size


def test_canonical_partitions_label_each_part_by_its_first_column() -> None:
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 4, size=(50, 9))
    canon = canonical_partitions(codes)
    for row, got in zip(codes.tolist(), canon.tolist(), strict=True):
        assert got == [row.index(v) for v in row]


def test_static_refuses_what_it_cannot_plan() -> None:
    random_answers = """
game: Noisy
params: {lie: 0.1}
domains: {N: {range: "1..4"}}
secret: {x: N}
queries:
  ask:
    args: {y: N}
    response:
      answer: Bool
      likelihood: {weight: "if answer == (x == y) then 1 - lie else lie"}
goal: {identify: [x]}
"""
    game = load_game_text(random_answers)
    with pytest.raises(SleuthError, match="deterministic feedback"):
        make_strategy("static", Candidates(game, "any"))
    inseparable = """
game: Inseparable
domains: {N: {range: "1..4"}}
secret: {x: N}
queries:
  ask:
    args: {y: N}
    feedback: "x >= 3 and y == 1"
goal: {identify: [x]}
"""
    game = load_game_text(inseparable)
    strategy = make_strategy("static", Candidates(game, "any"))
    with pytest.raises(SleuthError, match=r"tells the secrets \{'x': 1\} and \{'x': 2\} apart"):
        _ = strategy.plan
    game = load_game(str(ROOT / "specs" / "ulam.yaml"), {})
    with pytest.raises(SleuthError, match="lie"):
        make_strategy("static", Candidates(game, "any"))


@pytest.mark.slow
def test_static_coin_twelve_in_three_weighings() -> None:
    """Dyson: 12 coins in 3 weighings without waiting for an answer (and not in 2: 24
    secrets, 9 answers)."""
    weighings, secrets, rows = coin_rows(12)
    game, strategy = static_plan(COIN, {"coins": 12})
    assert strategy.plan.size == 3 and strategy.plan.least
    chosen = tuple(weighings.index((set(a["left"]), set(a["right"])))
                   for a in plan_args(strategy))
    assert separates(rows, chosen)
    result = evaluate_strategy(game, strategy, COIN, tree=True)
    assert verify_tree(game, {"tree": result.tree})["queries_before_known"] == 3

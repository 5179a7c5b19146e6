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
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.strategies import make_strategy
from sleuth.solver.strategies.static_search import canonical_partitions
from sleuth.solver.strategies.trees import verify_tree
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
    return [strategy.candidates.args(q) for q in strategy.plan.queries]


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


def unknowns_plan(spec: str, overrides: dict):
    game = load_game_text(spec) if spec.startswith("\n") else load_game(spec, overrides)
    return game, make_strategy("static", Candidates(game, "any"), plan_queries="unknowns")


@pytest.mark.parametrize("coins", [3, 4, 5])
def test_static_plan_with_queries_as_unknowns_is_the_least(coins: int) -> None:
    """The queries as the SAT problem's unknowns (compiler/query_plans.py) find a plan of
    the brute force's size, and it tells the secrets apart by the feedback written here."""
    weighings, secrets, rows = coin_rows(coins)
    game, strategy = unknowns_plan(COIN, {"coins": coins})
    assert strategy.plan.method == "unknowns" and strategy.plan.least
    assert strategy.plan.size == least_by_brute_force(rows)
    chosen = tuple(weighings.index((set(a["left"]), set(a["right"])))
                   for a in plan_args(strategy))
    assert separates(rows, chosen)


@pytest.mark.parametrize("pegs,colours", [(2, 3), (2, 4), (3, 2)])
def test_static_mastermind_unknowns_agrees_with_listed(pegs: int, colours: int) -> None:
    queries, secrets, rows = mastermind_rows(pegs, colours)
    _, strategy = unknowns_plan(MM, {"pegs": pegs, "colours": colours})
    assert strategy.plan.size == least_by_brute_force(rows)
    chosen = tuple(queries.index(tuple(a["g"])) for a in plan_args(strategy))
    assert separates(rows, chosen)


SETS = """
game: Two sets
domains: {N: {range: "1..5"}}
secret: {x: N}
queries:
  ask:
    args: {s: {set: N, size: 1..2}, t: {set: N, size: 1..2}}
    legal: ["not disjoint(s, t)"]
    feedback:
      either: "x in union(s, t)"
      both: "x in intersection(s, t)"
      many: "size(union(s, t)) + int(x in s)"
goal: {identify: [x]}
"""


def test_sets_as_unknowns_lower_union_intersection_size_and_disjoint() -> None:
    """The set builtins over unknowns (union, intersection, size, disjoint, membership)
    give the listed search's least plan, and the plan found obeys the legality and tells
    the secrets apart under the spec's own kernels (evaluated by the interpreter here)."""
    game = load_game_text(SETS)
    listed = make_strategy("static", Candidates(game, "any"), plan_queries="listed").plan
    _, strategy = unknowns_plan(SETS, {})
    plan = strategy.plan
    assert plan.size == listed.size
    args = plan_args(strategy)
    for a in args:
        assert set(a["s"]) & set(a["t"]) and 1 <= len(a["s"]) <= 2 and 1 <= len(a["t"]) <= 2

    def answer(a: dict, x: int) -> tuple:
        s, t = set(a["s"]), set(a["t"])
        return x in s | t, x in s & t, len(s | t) + int(x in s)

    signatures = {tuple(answer(a, x) for a in args) for x in range(1, 6)}
    assert len(signatures) == 5


def test_listed_plan_refused_when_queries_cannot_be_listed() -> None:
    game = load_game(COIN, {"coins": 39})
    with pytest.raises(SleuthError, match="too many queries to list"):
        make_strategy("static", Candidates(game, "any"), plan_queries="listed")


@pytest.mark.slow
def test_static_coin_thirty_nine_in_four_weighings() -> None:
    """Dyson: 39 coins in 4 weighings chosen in advance, among 3 x 10^17 weighings (the
    queries as unknowns); checked with the coin's feedback written here, and played and
    verified as a tree."""
    game, strategy = static_plan(COIN, {"coins": 39})
    plan = strategy.plan
    assert plan.method == "unknowns" and plan.size == 4 and plan.least
    args = plan_args(strategy)
    for a in args:
        assert len(a["left"]) == len(a["right"]) and not set(a["left"]) & set(a["right"])

    def answer(a: dict, coin: int, heavy: bool) -> str:
        if coin in a["left"]:
            return "left" if heavy else "right"
        if coin in a["right"]:
            return "right" if heavy else "left"
        return "balanced"

    signatures = {tuple(answer(a, c, h) for a in args) for c in range(1, 40)
                  for h in (True, False)}
    assert len(signatures) == 78
    result = evaluate_strategy(game, strategy, COIN, tree=True)
    got = verify_tree(game, {"tree": result.tree})
    assert got["queries_before_known"] == 4 and got["worst"] == 4


def assignment_of(value, arg) -> dict[int, bool]:
    """The unknowns' values (circuit variable -> bool) that spell the argument `arg`."""
    from sleuth.compiler.symvalues import Bits, Sym

    if isinstance(value, Bits):
        return {n: e in arg for e, n in value.items()}
    if isinstance(value, tuple):
        out = {}
        for v, a in zip(value, arg, strict=True):
            out.update(assignment_of(v, a))
        return out
    if isinstance(value, dict) and not isinstance(value, Sym):
        return {n: b for k in value for n, b in assignment_of(value[k], arg[k]).items()}
    return {n: v == arg for v, n in value.items()}


@pytest.mark.parametrize("spec,overrides", [(SETS, {}), (COIN, {"coins": 5}),
                                            (MM, {"pegs": 2, "colours": 3})])
def test_query_lowering_agrees_with_the_kernels(spec: str, overrides: dict) -> None:
    """Every listed query spelled in the unknowns: the lowered legality and feedback
    formulas, evaluated under that assignment, give what the game's kernels give."""
    from sleuth.compiler.api import PlanFormula, held_value

    game = load_game_text(spec) if spec.startswith("\n") else load_game(spec, overrides)
    action = game.model.queries[0]
    table = game.hypotheses
    hyps = [{v.name: held_value(v.domain.type, table.value(h)[v.name])
             for v in game.model.secret} for h in range(table.size)]
    formula = PlanFormula(game.model, action, 1, hyps)
    circuit = formula.low.circuit
    space = game.space(action.name)
    candidates = Candidates(game, "any")
    legal_ranks = set(candidates.blocks[0].ranks.tolist())
    coder = game.coder(action.name)
    names = [name for name, _, _ in action.feedback]
    for rank in range(space.size):
        args = candidates.args(Query(action.name, rank))
        var = {}
        for a in action.args:
            for node, b in assignment_of(formula.slots[0][a.name], args[a.name]).items():
                var[circuit.nodes[node][1]] = b

        def value(n: int, var: dict = var) -> bool:
            return circuit.value(n, lambda v: var.get(v, False))
        legal = all(value(f) for f in [*formula.low.facts, *formula.legal])
        assert legal == (rank in legal_ranks)
        if not legal:
            continue
        codes = game.feedback_matrix(action.name, np.array([rank]))[0]
        for h in range(table.size):
            want = coder.decode(int(codes[h]))
            want = tuple(want[name] for name in names)
            got = [t for t, f in formula.feedback(h, 0).items() if value(f)]
            assert got == [want]


def test_sat_budget_interrupts_a_long_call() -> None:
    """MM(4,5): ruling out 4 queries takes minutes; a 1 s budget stops inside a SAT call
    and says what is known."""
    import time

    from sleuth.compiler.api import BudgetError

    game = load_game(MM, {"pegs": 4, "colours": 5})
    strategy = make_strategy("static", Candidates(game, "any"), sat_budget=1.0)
    start = time.perf_counter()
    with pytest.raises(BudgetError, match=r"of \d queries .* within 1 s \(none of \d exists; "
                                          r"a greedy plan has \d+\)"):
        _ = strategy.plan
    assert time.perf_counter() - start < 60  # not the minutes of the whole proof

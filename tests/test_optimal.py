"""The optimal strategies against a plain exhaustive minimisation written here.

The games are rebuilt by hand (Mastermind's black and white pegs, the balance's three
outcomes), every query is tried at every information set (no bounds, no ordering), and
the least (total, worst case) -- or (worst case, total) -- is computed by memoised
recursion over frozensets of secrets. `sleuth evaluate --strategy optimal` must give the
same numbers, and its tree must reach them.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from functools import cache

import numpy as np
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


def mastermind_parts(pegs: int, guess: tuple, secrets: frozenset) -> list[frozenset] | None:
    """The parts of `secrets` that go on after `guess` (not the one it ends), or None
    when the guess makes no progress."""
    parts: dict[tuple, set] = {}
    for s in secrets:
        parts.setdefault(mastermind_feedback(guess, s), set()).add(s)
    going = [frozenset(p) for fb, p in parts.items() if fb != (pegs, 0)]
    return None if any(len(p) == len(secrets) for p in going) else going


def brute_mastermind(pegs: int, colours: int, worst_first: bool,
                     opener: tuple | None = None, consistent: bool = False) -> tuple[int, int]:
    """The least (total, worst), or (worst, total) first, over every strategy; with
    `opener`, over those that ask it first; `consistent`, over those that only ever
    guess a code still possible."""
    codes = list(itertools.product(range(colours), repeat=pegs))

    def after(guess: tuple, secrets: frozenset) -> tuple[int, int] | None:
        going = mastermind_parts(pegs, guess, secrets)
        if going is None:
            return None
        total, worst = len(secrets), 1
        for p in going:
            t, w = cost(p)
            total, worst = total + t, max(worst, w + 1)
        return total, worst

    @cache
    def cost(secrets: frozenset) -> tuple[int, int]:
        # the codes still possible, or any query, secret or not
        guesses = sorted(secrets) if consistent else codes
        trees = [after(guess, secrets) for guess in guesses]
        return min((t for t in trees if t is not None), key=order)

    def order(value: tuple[int, int]) -> tuple[int, int]:
        return (value[1], value[0]) if worst_first else value

    return cost(frozenset(codes)) if opener is None else after(opener, frozenset(codes))


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


def brute_coin_by_status(coins: int, worst_first: bool) -> tuple[int, int]:
    """The same exhaustive minimisation, over every weighing, on states counted by coin
    status: how many coins can still be only heavy, only light, either, or neither
    (genuine). Relabelling coins maps an information set to one of the same cost, so
    the counts are all that matters; a weighing is how many coins of each status go on
    each pan. Checked against brute_coin for small games, then used for 12 coins."""

    @cache
    def cost(h: int, lo: int, both: int) -> tuple[int, int]:
        n = h + lo + 2 * both
        if n <= 1:
            return (0, 0)
        genuine = coins - h - lo - both
        best = None
        counts = (h, lo, both, genuine)
        for left in itertools.product(*(range(c + 1) for c in counts)):
            size = sum(left)
            if not 1 <= size <= coins // 2:
                continue
            spare = [c - a for c, a in zip(counts, left, strict=True)]
            for right in itertools.product(*(range(c + 1) for c in spare)):
                if sum(right) != size:
                    continue
                (lh, ll, lb, _), (rh, rl, rb, _) = left, right
                parts = [(lh + lb, rl + rb, 0), (rh + rb, ll + lb, 0),
                         (h - lh - rh, lo - ll - rl, both - lb - rb)]
                sizes = [a + b + 2 * c for a, b, c in parts]
                if max(sizes) == n:
                    continue  # it splits nothing
                total, worst = n, 1
                for part, m in zip(parts, sizes, strict=True):
                    if m:
                        t, d = cost(*part)
                        total, worst = total + t, max(worst, d + 1)
                cand = (worst, total) if worst_first else (total, worst)
                best = cand if best is None else min(best, cand)
        return (best[1], best[0]) if worst_first else best

    return cost(0, 0, coins)


def sleuth_value(spec: str, overrides: dict, strategy: str,
                 guesses: str = "any") -> tuple[int, int, tuple]:
    game = load_game(spec, overrides)
    s = make_strategy(strategy, Candidates(game, guesses))
    ev = evaluate_strategy(game, s, spec)
    return ev.total, ev.worst, s.value(Belief.prior(game))


CASES = [(2, 2), (2, 3), (2, 4), (2, 6), (3, 2), (3, 3)]  # (2, 6): 132, worst 5


@pytest.mark.parametrize("pegs, colours", CASES)
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_mastermind_optimum_equals_brute_force(pegs, colours, strategy):
    want = brute_mastermind(pegs, colours, strategy == "optimal-worst")
    total, worst, proven = sleuth_value(str(ROOT / "specs" / "mastermind.yaml"),
                                        {"pegs": pegs, "colours": colours}, strategy)
    assert (total, worst) == want == proven


@pytest.mark.parametrize("pegs, colours", [(2, 5), (2, 6), (3, 3), (4, 3)])
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_the_optimum_over_consistent_guesses_equals_brute_force(pegs, colours, strategy):
    """`--guesses consistent`: every guess a code still possible, at every set. MM(2,5),
    MM(2,6) and MM(4,3) cost more so than with every guess allowed (worst 5 against 4;
    134 against 132; 247 against 246), MM(3,3) the same."""
    want = brute_mastermind(pegs, colours, strategy == "optimal-worst", consistent=True)
    total, worst, proven = sleuth_value(str(ROOT / "specs" / "mastermind.yaml"),
                                        {"pegs": pegs, "colours": colours}, strategy,
                                        "consistent")
    assert (total, worst) == want == proven


# Goddard's table of the least average number of guesses r(n, k), n pegs and k colours
# ("Mastermind revisited", 2004, as reproduced in Sebastian Pokutta's "Mastermind - five
# questions do suffice", 2011), every cell given there, to three decimals
GODDARD = {(2, 2): "2", (3, 2): "2.250", (4, 2): "2.750", (5, 2): "3.031", (6, 2): "3.500",
           (7, 2): "3.875", (2, 3): "2.333", (3, 3): "2.704", (4, 3): "3.037",
           (5, 3): "3.358", (2, 4): "2.813", (3, 4): "3.219", (4, 4): "3.535",
           (2, 5): "3.240", (3, 5): "3.608", (4, 5): "3.941"}


def test_goddards_table_of_optimal_averages():
    """Every cell of Goddard's table is Sleuth's proven optimum over the secrets, rounded
    half up to the table's places (docs/results.md)."""
    from decimal import ROUND_HALF_UP, Decimal

    mm = str(ROOT / "specs" / "mastermind.yaml")
    got = {}
    for (pegs, colours), printed in GODDARD.items():
        total = sleuth_value(mm, {"pegs": pegs, "colours": colours}, "optimal")[0]
        places = Decimal(1).scaleb(-len(printed.partition(".")[2]))
        got[pegs, colours] = str((Decimal(total) / colours ** pegs).quantize(
            places, rounding=ROUND_HALF_UP))
    assert got == GODDARD


def test_the_published_optimal_logical_strategies():
    """supermastermind/playonline ("Optimal strategy", optimal_strategy.html) publishes the
    best strategies that only guess possible codes (its "optimal logical strategy"): for
    3 pegs and 5 colours 455/5^3 (worst 5), for 4 pegs and 6 colours 5660/6^4 (worst 6;
    its MM(5,8) value is in docs/results.md)."""
    mm = str(ROOT / "specs" / "mastermind.yaml")
    got = [sleuth_value(mm, {"pegs": p, "colours": c}, "optimal", "consistent")[:2]
           for p, c in ((3, 5), (4, 6))]
    assert got == [(455, 5), (5660, 6)]


@pytest.mark.parametrize("coins", [3, 4, 5, 6])
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_coin_optimum_equals_brute_force(coins, strategy):
    want = brute_coin(coins, strategy == "optimal-worst")
    total, worst, proven = sleuth_value(str(ROOT / "specs" / "counterfeit-coin.yaml"),
                                        {"coins": coins}, strategy)
    assert (total, worst) == want == proven


@pytest.mark.parametrize("coins", [3, 4, 5])
@pytest.mark.parametrize("worst_first", [False, True])
def test_coin_by_status_is_the_plain_brute_force(coins, worst_first):
    assert brute_coin_by_status(coins, worst_first) == brute_coin(coins, worst_first)


@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_coin_12_optimum_equals_the_exhaustive_minimisation(strategy):
    want = brute_coin_by_status(12, strategy == "optimal-worst")
    total, worst, proven = sleuth_value(str(ROOT / "specs" / "counterfeit-coin.yaml"), {},
                                        strategy)
    assert (total, worst) == want == proven == (72, 3)


def test_nine_coins_exhaustive_ises_is_not_optimal():
    """docs/results.md (issue 29): at 9 coins entropy weighs every secret in 3 (54), while
    the optimum, by the exhaustive minimisation written here, is 52 (26/9 a game)."""
    spec = str(ROOT / "specs" / "counterfeit-coin.yaml")
    want = brute_coin_by_status(9, worst_first=False)
    assert sleuth_value(spec, {"coins": 9}, "optimal") == (*want, want)
    game = load_game(spec, {"coins": 9})
    ev = evaluate_strategy(game, make_strategy("entropy", Candidates(game, "any")), spec)
    assert (ev.total, ev.worst) == (54, 3) and want == (52, 3)


def test_known_values():
    """The optima issue 17 named: MM(3,2) 18, MM(3,3) 73, and the classic 12-coin answer,
    3 weighings for every secret (72 in total). (MM(2,6), 132, has no source at hand: it
    is checked against the brute force above, in CASES, instead.)"""
    mm = str(ROOT / "specs" / "mastermind.yaml")
    assert sleuth_value(mm, {"pegs": 3, "colours": 2}, "optimal")[:2] == (18, 3)
    assert sleuth_value(mm, {"pegs": 3, "colours": 3}, "optimal")[0] == 73
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


ASYMMETRIC = """\
game: Mastermind with a special colour
params: {pegs: 3, colours: 3}
domains:
  Colour: {range: "1..colours"}
secret:
  code: {seq: Colour, len: pegs}
queries:
  guess:
    args: {g: {seq: Colour, len: pegs}}
    feedback:
      black: "count(g[i] == code[i] for i in 0..pegs-1)"
      white: "sum(min(count(g, c), count(code, c)) for c in Colour) - black"
      ones: "count(code[i] == 1 and g[i] != 1 for i in 0..pegs-1) > 0"
goal: {identify: [code], stop_when: "black == pegs"}
"""


def search_of(game, strategy="optimal"):
    return make_strategy(strategy, Candidates(game, "any")).search


def test_symmetry_comes_from_the_compiled_game():
    mm = search_of(load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 3, "colours": 3}))
    assert mm.symmetry.size == 6 * 6  # 3! colour permutations x 3! position permutations
    odd = search_of(load_game_text(ASYMMETRIC))
    # colour 1 is special: no swap that moves it survives; 2 <-> 3 and the positions do
    assert odd.symmetry.generators == ["values 1 <-> 2", "positions 0 <-> 1",
                                       "positions 1 <-> 2"]
    assert odd.symmetry.size == 2 * 6


@pytest.mark.parametrize("text, overrides", [(ASYMMETRIC, {}),
                                             (None, {"pegs": 3, "colours": 3}),
                                             (None, {"pegs": 2, "colours": 4})])
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_symmetry_never_changes_a_value(text, overrides, strategy):
    """The same search with its symmetries removed proves the same values, and chooses
    the same first query (K within an orbit)."""
    game = (load_game_text(text) if text else
            load_game(ROOT / "specs" / "mastermind.yaml", overrides))
    with_sym = make_strategy(strategy, Candidates(game, "any"))
    plain = make_strategy(strategy, Candidates(game, "any"))
    plain.search.symmetry = None
    root = Belief.prior(game)
    assert with_sym.value(root) == plain.value(root)
    assert with_sym.choose(root) == plain.choose(root)
    assert with_sym.search.nodes <= plain.search.nodes


def test_trees_are_written_and_verified(tmp_path, capsys):
    from sleuth.solver.interfaces.cli import main as sleuth

    tree = tmp_path / "mm.json"
    sleuth(["evaluate", "mastermind", "--set", "pegs=3", "--set", "colours=3",
            "--strategy", "optimal", "--tree", str(tree)])
    assert "tree written" in capsys.readouterr().out
    assert (tmp_path / "mm.txt").read_text().startswith("guess g=[1, 1, 2]  (27 secrets)")
    sleuth(["verify-tree", str(tree), "mastermind", "--set", "pegs=3", "--set", "colours=3"])
    assert "total 73" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:  # the same tree does not fit another game
        sleuth(["verify-tree", str(tree), "mastermind", "--set", "pegs=3", "--set",
                "colours=4"])
    err = capsys.readouterr().err
    assert stop.value.code == 1 and "no branch for this feedback" in err
    assert "hint: the tree was written for another game: --set colours=3" in err
    doc = json.loads(tree.read_text())
    doc["total"] = 72  # a false claim
    tree.write_text(json.dumps(doc))
    with pytest.raises(SystemExit):
        sleuth(["verify-tree", str(tree), "mastermind", "--set", "pegs=3", "--set",
                "colours=3"])
    assert "the file claims" in capsys.readouterr().err


def test_a_wrong_solved_leaf_is_caught():
    from sleuth.solver.strategies.trees import verify_tree

    game = load_game(ROOT / "specs" / "counterfeit-coin.yaml", {"coins": 4})
    ev = evaluate_strategy(game, make_strategy("optimal", Candidates(game)), "coin", tree=True)
    assert verify_tree(game, {"tree": ev.tree})["total"] == ev.total
    leaf = ev.tree["branches"][0]
    while "solved" not in leaf:
        leaf = leaf["branches"][0]
    leaf["solved"]["kind"] = "heavy" if leaf["solved"]["kind"] == "light" else "light"
    with pytest.raises(SleuthError, match="'solved' says"):
        verify_tree(game, {"tree": ev.tree})


def test_info_reports_the_orbits(capsys):
    from sleuth.solver.interfaces.cli import main as sleuth

    sleuth(["info", "mastermind", "--set", "pegs=3", "--set", "colours=3", "--symmetry",
            "--json"])
    sym = json.loads(capsys.readouterr().out)["symmetry"]
    assert sym["group"] == 36
    # the root's 27 guesses fall in 3 orbits: AAA, AAB, ABC
    assert sym["levels"][0] == {"nodes": 1, "orbits": 3, "queries": 27}
    # The coin's secret is two variables: its coins' orbits come from the generator
    # (orbits.py): 1 against 1 and 2 against 2, standing for all 18 legal weighings.
    sleuth(["info", "counterfeit-coin", "--set", "coins=4", "--symmetry", "--json"])
    sym = json.loads(capsys.readouterr().out)["symmetry"]
    coin = load_game(ROOT / "specs" / "counterfeit-coin.yaml", {"coins": 4})
    assert sym["group"] == 24
    assert sym["levels"][0] == {"nodes": 1, "orbits": 2,
                                "queries": len(Candidates(coin).blocks[0].ranks)}
    sleuth(["info", "higher-lower", "--symmetry", "--json"])
    assert json.loads(capsys.readouterr().out)["symmetry"] is None


@pytest.mark.parametrize("strategy", ["optimal", "minimax"])
def test_a_saved_tree_plays_back(tmp_path, strategy):
    from sleuth.solver.strategies.trees import write_tree

    game = load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 3, "colours": 3})
    ev = evaluate_strategy(game, make_strategy(strategy, Candidates(game)), "mm", tree=True)
    path = tmp_path / "t.json"
    write_tree(ev.tree, path, {"total": ev.total})
    back = evaluate_strategy(game, make_strategy("tree", Candidates(game),
                                                 from_tree=str(path)), "mm")
    assert (back.total, back.worst, back.lengths) == (ev.total, ev.worst, ev.lengths)


def test_playback_refuses_a_tree_that_does_not_fit(tmp_path):
    from sleuth.solver.strategies.trees import write_tree

    small = load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 2, "colours": 3})
    ev = evaluate_strategy(small, make_strategy("optimal", Candidates(small)), "mm", tree=True)
    path = tmp_path / "t.json"
    write_tree(ev.tree, path, {})
    other = load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 2, "colours": 4})
    with pytest.raises(SleuthError):
        make_strategy("tree", Candidates(other), from_tree=str(path))
    with pytest.raises(SleuthError, match="needs from_tree=FILE"):
        make_strategy("tree", Candidates(small))


@pytest.mark.parametrize("document", [{}, [1, 2], {"tree": {"query": "guess"}},
                                      {"tree": {"query": {"query": "guess", "args": {}},
                                                "branches": [3]}}])
def test_a_file_that_is_not_a_tree_is_refused(document):
    from sleuth.solver.strategies.trees import verify_tree

    game = load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 2, "colours": 2})
    with pytest.raises(SleuthError, match="not a decision tree"):
        verify_tree(game, document)


@pytest.mark.parametrize("spec, overrides, symmetry", [
    ("mastermind.yaml", {"pegs": 3, "colours": 4}, True),
    ("mastermind.yaml", {"pegs": 4, "colours": 4}, False),
    ("bulls-and-cows.yaml", {"digits": 3}, True),
    ("higher-lower.yaml", {"n": 40}, False),
])
def test_a_settled_set_is_the_full_searchs_answer(spec, overrides, symmetry, monkeypatch):
    """`OptimalSearch.settled` answers a small set at once when one of its own secrets,
    asked first, meets both size bounds. With it and without it (every query scored and
    ordered) the solved tree is the same, set by set: value, worst case and query."""
    from sleuth.solver.search.plain import NO_TREE, OptimalSearch

    game = load_game(ROOT / "specs" / spec, overrides)
    everyone = np.arange(game.hypotheses.size, dtype=np.int64)

    def plan(search: OptimalSearch) -> dict:
        if not symmetry:
            search.symmetry = None
        search.solve(everyone, None, NO_TREE - 1)
        return search.plan(everyone, None)

    fired = []
    real = OptimalSearch.settled
    monkeypatch.setattr(OptimalSearch, "settled", lambda self, *a: fired.append(
        got := real(self, *a)) or got)
    # (the Python search alone: the compiled kernel would take these sets)
    fast = plan(OptimalSearch(Candidates(game), compiled=False))
    monkeypatch.setattr(OptimalSearch, "settled", lambda self, *a: None)
    full = plan(OptimalSearch(Candidates(game), compiled=False))
    assert fast == full
    assert sum(got is not None for got in fired) > 10  # the shortcut did answer sets


@pytest.mark.parametrize("name", ["mastermind-4-6-optimal.json", "mastermind-6-4-optimal.json",
                                  "mastermind-8-3-optimal.json", "mastermind-4-9-optimal.json",
                                  "mastermind-5-6-optimal.json",
                                  "bulls-and-cows-optimal.json"])
def test_a_published_optimal_tree_plays_as_it_claims(name):
    """docs/results.md publishes these trees as proven optima: each one, replayed secret
    by secret on the game built from its own parameters, reaches every secret with the
    total and worst case the file states, and that total is no less than the counting
    bound written here (at most 1 secret found by the first query, at most F more by the
    second, F^2 by the third, ..., F the feedbacks a query can give)."""
    from sleuth.solver.strategies.trees import verify_tree

    document = json.loads((ROOT / "docs" / "results" / name).read_text())
    game = load_game(ROOT / "specs" / f"{document['spec']}.yaml", document["params"])
    got = verify_tree(game, document)
    n = game.hypotheses.size
    assert got["secrets"] == n
    assert (got["total"], got["worst"]) == (document["total"], document["worst"])
    # the codes a query's feedback can take (the coder's mixed radix: an upper bound)
    f = max(game.coder(action.name).size for action in game.model.queries)
    left, depth, bound, width = n, 1, 0, 1
    while left > 0:
        found = min(left, width)
        bound += found * depth
        left -= found
        depth, width = depth + 1, width * f
    assert document["total"] >= bound


def test_a_tree_verified_from_rows_held_or_made_at_each_node_is_the_same(monkeypatch):
    """verify_tree computes the rows of the queries a tree asks in one pass per action;
    the walk that computes each node's codes on its own gives the same answer, node for
    node (tree_index), and the same error for a wrong branch."""
    from sleuth.solver.strategies import trees

    document = json.loads((ROOT / "docs" / "results" / "mastermind-4-6-optimal.json")
                          .read_text())
    game = load_game(ROOT / "specs" / "mastermind.yaml", document["params"])
    held = trees.verify_tree(game, document), trees.tree_index(game, document)
    monkeypatch.setattr(trees, "_rows_of", lambda game, tree: {})
    made = trees.verify_tree(game, document), trees.tree_index(game, document)
    assert held == made and held[0]["total"] == 5625
    broken = json.loads(json.dumps(document))
    broken["tree"]["branches"].pop()
    with pytest.raises(SleuthError) as err:
        trees.verify_tree(game, broken)
    monkeypatch.undo()
    with pytest.raises(SleuthError) as again:
        trees.verify_tree(game, broken)
    assert err.value.message == again.value.message

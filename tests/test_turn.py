"""`turn`, the query's place in the game, read by feedback and by legality, against a
brute force written here. Two uses:

* feedback: a tired codemaker, whose Mastermind scores show white pegs for the first
  `full` guesses only (black pegs always);
* legality: an opening rule, the first guess must use distinct colours.

The brute force minimises over (codes left, turn) by memoised recursion, every guess
the turn allows tried, the score computed by hand for that turn."""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache

import pytest

from sleuth.compiler import SleuthError
from sleuth.compiler.game import load_game_text
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import main
from sleuth.solver.strategies import make_strategy

SPEC = """\
game: Mastermind by turns
params: {pegs: 2, colours: 3, full: 1, opening: false}
domains:
  Colour: {range: "1..colours"}
secret:
  code: {seq: Colour, len: pegs}
queries:
  guess:
    args: {g: {seq: Colour, len: pegs}}
    legal: "not opening or turn > 1 or alldifferent(g)"
    feedback:
      black: "count(g[i] == code[i] for i in 0..pegs-1)"
      white: >-
        if turn <= full then sum(min(count(g, c), count(code, c)) for c in Colour) - black
        else 0
goal: {stop_when: "black == pegs", max_queries: 8}
"""


def score(guess: tuple, code: tuple, turn: int, full: int) -> tuple[int, int]:
    black = sum(g == c for g, c in zip(guess, code, strict=True))
    white = sum((Counter(guess) & Counter(code)).values()) - black
    return black, white if turn <= full else 0


def brute(pegs: int, colours: int, full: int, opening: bool,
          worst_first: bool) -> tuple[int, int]:
    codes = list(itertools.product(range(1, colours + 1), repeat=pegs))

    def order(v: tuple[int, int]) -> tuple[int, int]:
        return (v[1], v[0]) if worst_first else v

    @cache
    def cost(left: frozenset, turn: int) -> tuple[int, int] | None:
        if turn > 8:
            return None
        best = None
        for g in codes:
            if opening and turn == 1 and len(set(g)) < pegs:
                continue
            parts: dict = {}
            for c in left:
                parts.setdefault(score(g, c, turn, full), set()).add(c)
            going = [frozenset(p) for s, p in parts.items() if s != (pegs, 0)]
            if any(len(p) == len(left) for p in going):
                continue
            total, worst = len(left), 1
            for p in going:
                sub = cost(p, turn + 1)
                if sub is None:
                    break
                total, worst = total + sub[0], max(worst, sub[1] + 1)
            else:
                if best is None or order((total, worst)) < order(best):
                    best = (total, worst)
        return best

    return cost(frozenset(codes), 1)


def game_of(**params):
    return load_game_text(SPEC, "turns.yaml", params)


@pytest.mark.parametrize("full, opening", [(0, False), (1, False), (2, False), (1, True),
                                           (9, True)])
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_turn_games_equal_the_brute_force(full, opening, strategy):
    game = game_of(full=full, opening=opening)
    s = make_strategy(strategy, Candidates(game))
    ev = evaluate_strategy(game, s, "turns.yaml")
    want = brute(2, 3, full, opening, strategy == "optimal-worst")
    assert (ev.total, ev.worst) == want == s.value(Belief.prior(game))


def test_the_turn_changes_the_value():
    """Without white pegs the game is longer; with them throughout it is Mastermind."""
    totals = {full: brute(2, 3, full, False, False)[0] for full in (0, 1, 9)}
    assert totals[0] > totals[1] >= totals[9]


def test_heuristics_ask_only_this_turns_queries():
    game = game_of(full=1, opening=True)
    ev = evaluate_strategy(game, make_strategy("entropy", Candidates(game)), "turns.yaml",
                           tree=True)
    first = ev.tree["query"]["args"]
    assert first["turn"] == 1 and len(set(first["g"])) == 2

    def walk(node, depth):
        if "query" in node:
            assert node["query"]["args"]["turn"] == depth + 1
            for b in node["branches"]:
                walk(b, depth + 1)

    walk(ev.tree, 0)


def test_observations_are_read_at_their_turn(tmp_path, capsys):
    """The second guess is scored at turn 2, without white pegs: an observation of 0
    whites there is consistent with every code of no black, and 1 white impossible."""
    spec = tmp_path / "turns.yaml"
    spec.write_text(SPEC)
    obs = tmp_path / "obs.yaml"
    obs.write_text("- query: guess\n  args: {g: [1, 2]}\n  feedback: {black: 1, white: 0}\n"
                   "- query: guess\n  args: {g: [2, 1]}\n  feedback: {black: 0, white: 0}\n")
    main(["belief", str(spec), "--observations", str(obs), "--json"])
    import json

    left = json.loads(capsys.readouterr().out)["hypotheses"]
    codes = itertools.product(range(1, 4), repeat=2)
    assert left == sum(score((1, 2), c, 1, 1) == (1, 0) and score((2, 1), c, 2, 1) == (0, 0)
                       for c in codes)
    obs.write_text(obs.read_text().replace("{black: 0, white: 0}", "{black: 0, white: 1}"))
    with pytest.raises(SystemExit):
        main(["belief", str(spec), "--observations", str(obs)])
    assert "impossible for guess g=[2, 1]" in capsys.readouterr().err


def test_play_fills_in_the_turn(tmp_path, capsys, monkeypatch):
    import io

    spec = tmp_path / "turns.yaml"
    spec.write_text(SPEC.replace("opening: false", "opening: true"))
    monkeypatch.setattr("sys.stdin", io.StringIO("play guess 11\nplay guess 12\n1 0\n"
                                                 "play guess 11\n1 0\nquit\n"))
    with pytest.raises(SystemExit):
        main(["play", str(spec)])
    out = capsys.readouterr().out
    assert "guess g=[1, 1] is not legal" in out  # the opening rule at turn 1
    assert "recorded guess g=[1, 1] -> black=1 white=0" in out  # allowed at turn 2
    assert "turn=" not in out


def test_turn_outside_a_query_is_a_located_error():
    text = SPEC.replace("secret:\n", "secret:\n  constraints: [\"code[0] != turn\"]\n")
    with pytest.raises(SleuthError) as err:
        load_game_text(text, "turns.yaml")
    assert "turns.yaml:6:29:" in str(err.value) and "the query's place" in str(err.value.hint)


def test_a_random_lie_is_a_prior_over_its_turn(tmp_path, capsys):
    """specs/ulam-random.yaml: the expected number of questions `evaluate` reports is
    the prior-weighted mean, recomputed here by replaying every number with its lie at
    every turn (or none) down the saved tree, the answers computed by hand."""
    import json

    from tests.conftest import ROOT

    spec = ROOT / "specs" / "ulam-random.yaml"
    tree = tmp_path / "u.json"
    main(["evaluate", str(spec), "--strategy", "entropy", "--tree", str(tree), "--json"])
    data = json.loads(capsys.readouterr().out)
    doc = json.loads(tree.read_text())["tree"]
    n, q, horizon = 8, 0.1, 9

    def length(x: int, lie: int) -> int:
        node, asked = doc, 0
        while "query" in node:
            asked += 1
            args = node["query"]["args"]
            said = (x in args["s"]) != (args["turn"] == lie)
            node = next(b for b in node["branches"] if b["feedback"]["feedback"] == said)
        assert node["solved"] == {"x": x}
        return asked

    weight = {0: (1 - q) ** horizon, **{j: q * (1 - q) ** (j - 1) for j in range(1, 10)}}
    want = sum(weight[j] * length(x, j) for x in range(1, n + 1) for j in weight) / n
    assert data["expected"] == pytest.approx(want)
    assert data["secrets"] == n * (horizon + 1)  # hypotheses; the figure is per game


RANDOM_TURN = """\
game: Ulam's game, a lie at a uniformly random turn
params: {n: 4, horizon: 5}
domains: {Number: {range: "1..n"}}
secret: {x: Number, lie: {range: "0..horizon"}}
queries:
  ask:
    args: {s: {set: Number}}
    feedback: "(x in s) != (turn == lie)"
goal: {identify: [x], max_queries: horizon}
"""


def brute_random_turn(n: int, horizon: int, worst_first: bool) -> tuple[int, int] | None:
    """Least (total, worst) over the (number, lie's turn) hypotheses, every question
    tried at every (hypotheses left, turn), the game over when the number is known."""
    hyps = [(x, j) for x in range(1, n + 1) for j in range(horizon + 1)]
    subsets = [frozenset(c) for k in range(n + 1)
               for c in itertools.combinations(range(1, n + 1), k)]

    def order(v: tuple[int, int]) -> tuple[int, int]:
        return (v[1], v[0]) if worst_first else v

    @cache
    def cost(left: frozenset, turn: int) -> tuple[int, int] | None:
        if len({x for x, _ in left}) == 1:
            return (0, 0)
        if turn > horizon:
            return None
        best = None
        for s in subsets:
            parts: dict = {}
            for x, j in left:
                parts.setdefault((x in s) != (turn == j), set()).add((x, j))
            if len(parts) == 1 and all(len({x for x, _ in p}) > 1 for p in parts.values()) \
                    and frozenset(next(iter(parts.values()))) == left:
                sub = cost(left, turn + 1)  # nothing learnt, a turn spent
                subs = [sub]
            else:
                subs = [cost(frozenset(p), turn + 1) for p in parts.values()]
            if any(v is None for v in subs):
                continue
            total = len(left) + sum(v[0] for v in subs)
            worst = 1 + max(v[1] for v in subs)
            if best is None or order((total, worst)) < order(best):
                best = (total, worst)
        return best

    return cost(frozenset(hyps), 1)


@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_exact_searches_play_a_lie_placed_by_turn(strategy):
    """A lie written as its turn in the secret (a uniform prior over the turns and no
    lie): optimal and optimal-worst search it (the table keyed on the turn)."""
    game = load_game_text(RANDOM_TURN, "random-turn.yaml")
    s = make_strategy(strategy, Candidates(game))
    ev = evaluate_strategy(game, s, "random-turn.yaml")
    assert (ev.total, ev.worst) == brute_random_turn(4, 5, strategy == "optimal-worst")


def test_lookahead_plays_by_turns():
    """Lookahead's second query is one of the next turn's: on the tired codemaker it
    plays every code to the end, never better than the optimum."""
    game = game_of(full=1)
    look = evaluate_strategy(game, make_strategy("lookahead", Candidates(game)), "t.yaml")
    assert look.total >= brute(2, 3, 1, False, False)[0]


WAIT = """\
game: Answers from the second turn
params: {n: 4}
domains: {Number: {range: "1..n"}}
secret: {x: Number}
queries:
  ask:
    args: {s: {set: Number}}
    feedback: "turn >= 2 and x in s"
goal: {max_queries: 5}
"""


@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_a_query_that_tells_nothing_now_can_be_the_best_move(strategy):
    """The first answer is always `false`: the best tree spends turn 1 on any question
    and then halves the numbers -- the search must take a move that splits nothing."""
    game = load_game_text(WAIT, "wait.yaml")
    ev = evaluate_strategy(game, make_strategy(strategy, Candidates(game)), "wait.yaml")
    subsets = [frozenset(c) for k in range(5) for c in itertools.combinations(range(1, 5), k)]

    @cache
    def cost(left: frozenset, turn: int) -> tuple[int, int] | None:
        if len(left) == 1:
            return (0, 0)
        if turn > 5:
            return None
        best = None
        for s in subsets:
            parts: dict = {}
            for x in left:
                parts.setdefault(turn >= 2 and x in s, set()).add(x)
            subs = [cost(frozenset(p), turn + 1) for p in parts.values()]
            if None in subs:
                continue
            value = (len(left) + sum(v[0] for v in subs), 1 + max(v[1] for v in subs))
            key = (value[1], value[0]) if strategy == "optimal-worst" else value
            if best is None or key < ((best[1], best[0]) if strategy == "optimal-worst"
                                      else best):
                best = value
        return best

    assert (ev.total, ev.worst) == cost(frozenset(range(1, 5)), 1)
    assert ev.lengths and min(ev.lengths.values()) >= 2  # the first question tells nothing


def test_an_argument_named_turn_is_refused():
    """`turn` is the implicit argument's name (query text and forms leave it out), so a
    spec's own argument may not take it."""
    text = SPEC.replace("args: {g: {seq: Colour, len: pegs}}",
                        "args: {g: {seq: Colour, len: pegs}, turn: Colour}")
    with pytest.raises(SleuthError) as err:
        load_game_text(text, "turns.yaml")
    assert "turns.yaml:9:" in str(err.value) and "an argument named 'turn'" in str(err.value)

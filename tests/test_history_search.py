"""The exact searches under a `history` rule, against a brute force written here.

The game is Mastermind's hard mode: every guess must be consistent with every earlier
feedback (scored against the earlier guess, it gives the feedback that guess got). The
spec says so as a `history` rule; the brute force below knows instead that, Mastermind's
score being symmetric, the guesses that keep the rule are exactly the codes still
possible, and minimises over those by memoised recursion over frozensets of codes.
"""

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
from sleuth.solver.strategies import make_strategy

HARD = """
game: Mastermind, hard mode
params: {pegs: 2, colours: 3, hard: true, limit: 10}
domains:
  Colour: {range: "1..colours"}
defs:
  "blacks(a, b)": "count(a[i] == b[i] for i in 0..pegs-1)"
  "whites(a, b)": "sum(min(count(a, c), count(b, c)) for c in Colour) - blacks(a, b)"
secret:
  code: {seq: Colour, len: pegs}
queries:
  guess:
    args: {g: {seq: Colour, len: pegs}}
    history: >-
      not hard or (blacks(g, before.g) == before.black
      and whites(g, before.g) == before.white)
    feedback:
      black: "count(g[i] == code[i] for i in 0..pegs-1)"
      white: "sum(min(count(g, c), count(code, c)) for c in Colour) - black"
goal: {stop_when: "black == pegs", max_queries: limit}
"""


def score(guess: tuple, code: tuple) -> tuple[int, int]:
    black = sum(g == c for g, c in zip(guess, code, strict=True))
    return black, sum((Counter(guess) & Counter(code)).values()) - black


def brute_hard(pegs: int, colours: int, worst_first: bool, limit: int = 10,
               hard: bool = True) -> tuple[int, int] | None:
    codes = list(itertools.product(range(1, colours + 1), repeat=pegs))

    def order(value: tuple[int, int]) -> tuple[int, int]:
        return (value[1], value[0]) if worst_first else value

    @cache
    def cost(possible: frozenset, left: int) -> tuple[int, int] | None:
        """The best (total, worst) within `left` more guesses; None if none finishes."""
        if left == 0:
            return None
        best = None
        for guess in sorted(possible) if hard else codes:  # hard: the possible codes
            parts: dict[tuple, set] = {}
            for s in possible:
                parts.setdefault(score(guess, s), set()).add(s)
            if any(len(p) == len(possible) for fb, p in parts.items() if fb != (pegs, 0)):
                continue  # no progress (only a guess that cannot be the code makes none)
            total, worst = len(possible), 1
            for fb, part in parts.items():
                if fb != (pegs, 0):
                    sub = cost(frozenset(part), left - 1)
                    if sub is None:
                        break
                    total, worst = total + sub[0], max(worst, sub[1] + 1)
            else:
                if best is None or order((total, worst)) < order(best):
                    best = (total, worst)
        return best

    return cost(frozenset(codes), limit)


def solved(pegs: int, colours: int, strategy: str, hard: bool = True, limit: int = 10):
    game = load_game_text(HARD, overrides={"pegs": pegs, "colours": colours, "hard": hard,
                                           "limit": limit})
    s = make_strategy(strategy, Candidates(game, "any"))
    ev = evaluate_strategy(game, s, "hard.yaml")
    return ev, s.value(Belief.prior(game))


# at (2, 5) and (2, 6) the rule costs guesses; at (2, 3) and (3, 3) it does not
@pytest.mark.parametrize("pegs, colours", [(2, 3), (2, 5), (2, 6), (3, 3)])
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_hard_mode_optimum_equals_the_brute_force(pegs, colours, strategy):
    want = brute_hard(pegs, colours, strategy == "optimal-worst")
    ev, proven = solved(pegs, colours, strategy)
    assert (ev.total, ev.worst) == want == proven


def test_the_rule_bites_and_the_tree_keeps_it():
    """Hard mode costs more than the free game at MM(2,6) (134 guesses against 132),
    and the search's own value is the one its tree reaches when evaluated."""
    free, free_value = solved(2, 6, "optimal", hard=False)
    hard, hard_value = solved(2, 6, "optimal")
    assert hard.total > free.total
    assert (hard.total, hard.worst) == hard_value == brute_hard(2, 6, False)
    assert (free.total, free.worst) == free_value


@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_max_queries_bounds_the_search(strategy):
    """Hard MM(2,6) needs 6 guesses for some code: within 6 the optimum is the one
    without a bound, and within 5 no tree exists -- an error, not a deeper tree."""
    want = brute_hard(2, 6, strategy == "optimal-worst", 6)
    ev, proven = solved(2, 6, strategy, limit=6)
    assert (ev.total, ev.worst) == want == proven and ev.worst == 6
    assert brute_hard(2, 6, strategy == "optimal-worst", 5) is None
    with pytest.raises(SleuthError, match="within the 5 queries left"):
        solved(2, 6, strategy, limit=5)


def test_lookahead_scores_second_queries_the_rule_allows():
    """Two-step entropy scores at the root of hard MM(2,5): after each first guess, each
    part is scored by its best second guess among the codes still possible (what hard
    mode allows), computed here by hand."""
    import math

    import numpy as np

    game = load_game_text(HARD, overrides={"pegs": 2, "colours": 5})
    s = make_strategy("lookahead", Candidates(game, "any"))
    hyps = np.arange(game.hypotheses.size, dtype=np.int64)
    got = s.two_step(hyps, s.table.counts(hyps), s.rules.of_belief(Belief.prior(game)))
    codes = list(itertools.product(range(1, 6), repeat=2))  # canonical order

    def nlogn(sizes) -> float:
        return sum(n * math.log2(n) for n in sizes if n)

    for q, guess in enumerate(codes):
        parts: dict[tuple, list] = {}
        for secret in codes:
            parts.setdefault(score(guess, secret), []).append(secret)
        want = nlogn([len(p) for fb, p in parts.items() if fb == (2, 0)])
        for fb, part in parts.items():
            if fb != (2, 0):
                want += min(nlogn(Counter(score(g, x) for x in part).values())
                            for g in part)  # hard mode: a possible code next
        assert got[q] == pytest.approx(want)


def test_verify_tree_checks_the_rule(tmp_path, capsys):
    """A tree of the free game (MM(2,5), whose free optimum asks guesses hard mode
    forbids) verifies under hard: false and is refused under hard: true; the hard
    tree verifies."""
    from sleuth.solver.interfaces.cli import main as sleuth

    spec = tmp_path / "hard.yaml"
    spec.write_text(HARD)
    size = ["--set", "colours=5"]
    for hard in ("false", "true"):
        sleuth(["evaluate", str(spec), *size, "--set", f"hard={hard}", "--strategy",
                "optimal-worst", "--tree", str(tmp_path / f"{hard}.json")])
    sleuth(["verify-tree", str(tmp_path / "true.json"), str(spec), *size])
    sleuth(["verify-tree", str(tmp_path / "false.json"), str(spec), *size, "--set",
            "hard=false"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        sleuth(["verify-tree", str(tmp_path / "false.json"), str(spec), *size])
    assert stop.value.code == 1
    assert "breaks the action's history rule" in capsys.readouterr().err

"""The look-ahead strategy: depth 1 is each base strategy exactly; depth 2's scores are the
base statistic of the two-step partition, recomputed here by brute force."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sleuth.compiler import SleuthError, load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT

MM = ROOT / "specs" / "mastermind.yaml"


@pytest.mark.parametrize("score", ["entropy", "expected-size", "minimax", "most-parts"])
def test_depth_one_is_the_base_strategy(score):
    game = load_game(MM, {"pegs": 3, "colours": 4})
    look = evaluate_strategy(game, make_strategy("lookahead", Candidates(game), score=score,
                                                 depth=1), "mm")
    base = evaluate_strategy(game, make_strategy(score, Candidates(game)), "mm")
    assert (look.total, look.worst, look.first_query) == (base.total, base.worst,
                                                          base.first_query)


def brute_two_step(codes, stops, hyps, q, score):
    def stat(sizes):
        sizes = [n for n in sizes if n]
        if score == "entropy":
            return sum(n * np.log2(n) for n in sizes)
        if score == "expected-size":
            return sum(n * n for n in sizes)
        if score == "minimax":
            return max(sizes)
        return -len(sizes)

    parts: dict[int, list[int]] = {}
    for h in hyps:
        parts.setdefault(int(codes[q, h]), []).append(h)
    ended = [len(p) for c, p in parts.items() if stops[q, c]]
    values = [min(stat(Counter(codes[q2, p].tolist()).values()) for q2 in range(len(codes)))
              for c, p in parts.items() if not stops[q, c]]
    if score == "minimax":
        return max(([stat(ended)] if ended else []) + values)
    return (stat(ended) if ended else 0) + sum(values)


@pytest.mark.parametrize("score", ["entropy", "expected-size", "minimax", "most-parts"])
def test_depth_two_scores_by_brute_force(score):
    game = load_game(MM, {"pegs": 3, "colours": 3})
    s = make_strategy("lookahead", Candidates(game), score=score)
    rng = np.random.default_rng(1)
    for size in (27, 9, 4):
        hyps = np.sort(rng.choice(game.hypotheses.size, size, replace=False))
        got = s.two_step(hyps, s.table.counts(hyps))
        for q in np.flatnonzero(np.isfinite(got)).tolist():
            assert got[q] == pytest.approx(brute_two_step(s.table.codes, s.table.stops, hyps, q,
                                                           score))


def test_options_and_refusals():
    game = load_game(MM, {"pegs": 2, "colours": 3})
    with pytest.raises(SleuthError, match="one of entropy"):
        make_strategy("lookahead", Candidates(game), score="knuth")
    with pytest.raises(SleuthError, match="at most 2"):
        make_strategy("lookahead", Candidates(game), depth=3)
    with pytest.raises(SleuthError, match="deterministic feedback"):
        make_strategy("lookahead", Candidates(load_game(ROOT / "specs" / "inkognito.yaml")))

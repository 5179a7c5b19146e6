"""The exact searches' compiled loops (solver/infoset/outcome_kernels.py) against the
same quantities computed here in numpy, on random outcome tables with game-ending
feedback, and the per-set floor against a search: a floor never exceeds the proven
value."""

from __future__ import annotations

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.solver.infoset.outcome_kernels import least_bounds, part_sizes
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies.optimal_search import NO_TREE, OptimalSearch
from tests.conftest import ROOT


def numpy_scores(codes, hyps, stops, lb_total, lb_worst):
    q, c = stops.shape
    counts = np.zeros((q, c), dtype=np.int64)
    for i in range(q):
        counts[i] = np.bincount(codes[i, hyps], minlength=c)
    going = np.where(stops, 0, counts)
    lbq = len(hyps) + lb_total[going].sum(axis=1)
    lbw = 1 + lb_worst[going].max(axis=1)
    ends = (counts * stops).sum(axis=1) > 0
    return going, lbq, lbw, going.max(axis=1) < len(hyps), ends


@pytest.mark.parametrize("seed", range(6))
def test_kernels_match_numpy(seed):
    rng = np.random.default_rng(seed)
    nq, nh, nc = int(rng.integers(5, 40)), int(rng.integers(5, 60)), int(rng.integers(2, 9))
    codes = rng.integers(0, nc, size=(nq, nh)).astype(np.uint8)
    stops = rng.random((nq, nc)) < 0.2
    lb_total = np.cumsum(rng.integers(0, 4, size=nh + 1)).astype(np.int64)
    lb_worst = np.cumsum(rng.integers(0, 2, size=nh + 1)).astype(np.int64)
    lb_total[0] = lb_worst[0] = 0
    for _ in range(5):
        hyps = np.sort(rng.choice(nh, size=int(rng.integers(1, nh + 1)), replace=False))
        want = numpy_scores(codes, hyps, stops, lb_total, lb_worst)
        got = part_sizes(codes, hyps, stops, lb_total, lb_worst, np.arange(nq))
        for w, g in zip(want, got, strict=True):
            assert np.array_equal(w, g)
        allowed = rng.random(nq) < 0.7
        going, lbq, lbw, useful, _ = want
        ok = useful & allowed
        least = least_bounds(codes, hyps, stops, lb_total, lb_worst, np.arange(nq), allowed,
                             NO_TREE)
        n = len(hyps)
        if ok.any():  # never below the set's own size bounds
            assert least == (max(lbq[ok].min(), lb_total[n]), max(lbw[ok].min(), lb_worst[n]))
        else:
            assert least == (NO_TREE, NO_TREE)


@pytest.mark.parametrize("guesses", ["any", "consistent"])
def test_floor_never_exceeds_the_optimum(guesses):
    """Every floor the search keeps is at most the value the search proves for that set
    (each set solved again on its own, with no limit)."""
    game = load_game(ROOT / "specs/mastermind.yaml", {"pegs": 4, "colours": 4})
    search = OptimalSearch(Candidates(game, guesses))
    root = np.arange(game.hypotheses.size, dtype=np.int64)
    total = search.solve(root, None, NO_TREE - 1)[0]
    if guesses == "any":
        assert total == 905  # the published optimum
    assert len(search.floors) > 10
    fresh = OptimalSearch(Candidates(game, guesses))
    raised = 0
    for key, (low, deep) in search.floors.items():
        hyps = np.frombuffer(key, dtype=np.int64)
        got = fresh.solve(hyps, None, NO_TREE - 1)
        assert low <= got[0]
        assert deep <= fresh.least_depth(hyps)
        raised += low > search.lb_total[len(hyps)]
    assert raised > 0  # the floors do more than the size bounds somewhere

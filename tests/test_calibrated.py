"""The calibrated look-ahead (solver/strategies/calibrated.py): with every part costed
exactly it is the optimum, its part costs are the exact search's where small and the
fitted estimate's above, and on MM(4,6) it lands between the best one-step rule and the
optimum (slow)."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from sleuth.compiler import SleuthError, load_game
from sleuth.compiler.api import load_game_text
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from sleuth.solver.strategies.lookahead import least_by_k
from tests.conftest import ROOT

MM = ROOT / "specs" / "mastermind.yaml"


def total(game, name: str, **options) -> int:
    return evaluate_strategy(game, make_strategy(name, Candidates(game), **options),
                             "t").total


def brute_least_total(codes: np.ndarray, stops: np.ndarray, hyps: tuple[int, ...]) -> int:
    """Written here: the least total number of queries that finishes every secret of
    `hyps`, trying every query at every set (no bound, no symmetry)."""

    @cache
    def least(s: tuple[int, ...]) -> int:
        best = None
        for q in range(codes.shape[0]):
            row = codes[q, list(s)]
            if len(set(row.tolist())) == 1 and not stops[q, row[0]]:
                continue  # no progress
            cost = len(s)
            for c in set(row.tolist()):
                if not stops[q, c]:
                    cost += least(tuple(h for h, x in zip(s, row, strict=True) if x == c))
            best = cost if best is None else min(best, cost)
        return best

    return least(tuple(hyps))


def test_every_part_costed_exactly_is_the_optimum():
    """exact >= every set: each query is scored by its parts' exact totals, so each choice
    is an optimal one; MM(2,4) and MM(3,3) against `optimal`."""
    for pegs, colours in ((2, 4), (3, 3)):
        game = load_game(MM, {"pegs": pegs, "colours": colours})
        n = game.hypotheses.size
        best = total(game, "optimal")
        assert total(game, "calibrated", depth=1, exact=min(n, 64), samples=10) == best


def test_part_costs_are_exact_where_small_and_estimated_above():
    game = load_game(MM, {"pegs": 3, "colours": 3})
    s = make_strategy("calibrated", Candidates(game), exact=4, samples=40)
    t = s.table
    rng = np.random.default_rng(5)
    for _ in range(12):
        hyps = np.sort(rng.choice(game.hypotheses.size, size=int(rng.integers(1, 5)),
                                  replace=False))
        want = brute_least_total(t.codes, t.stops, tuple(hyps.tolist()))
        assert s.exact_cost(hyps) == want and s.part_cost(hyps) == want
    big = np.arange(20)
    counts = t.counts(big)
    second = np.where(t.stops, 0.0, s.estimate[counts]).sum(axis=1)
    going = np.where(t.stops, 0, counts)
    second[going.max(axis=1) == 20] = np.inf
    assert s.part_cost(big) == pytest.approx(20 + second.min())
    # the estimate: the mean exact total per size seen, the fit above, never below the
    # search's lower bound, and as deterministic as the seed
    for k, mean in s.per_size.items():
        assert s.estimate[k] == pytest.approx(max(mean, s.search.lb_total[k]))
    assert np.all(s.estimate >= s.search.lb_total[:len(s.estimate)])
    again = make_strategy("calibrated", Candidates(game), exact=4, samples=40)
    assert again.fit == s.fit and again.per_size == s.per_size


@pytest.mark.parametrize("depth", [1, 2])
def test_the_bound_skips_only_queries_that_cannot_win(depth, monkeypatch):
    """choose() scores queries in order of `least_costs` and stops once that bound passes
    the best score found, and leaves a query once its parts costed so far and the others'
    bounds pass it. The bound is below every query's score, a query is left only when
    its full score is past the cut, and the trees equal those of costing every query in
    full (the cut patched to infinity), on MM(3,4) and MM(4,4)."""
    for pegs, colours in ((3, 4), (4, 4)):
        game = load_game(MM, {"pegs": pegs, "colours": colours})
        s = make_strategy("calibrated", Candidates(game), depth=depth, exact=4, samples=40)
        t, rng, cuts = s.table, np.random.default_rng(pegs), 0
        for _ in range(6):
            hyps = np.sort(rng.choice(game.hypotheses.size, size=int(rng.integers(9, 60)),
                                      replace=False))
            going = np.where(t.stops, 0, t.counts(hyps))
            low, kept = s.least_costs(hyps, np.arange(len(t.queries))), {}
            useful = np.flatnonzero(going.max(axis=1) < len(hyps)).tolist()
            # the bound in one compiled pass: part_lows summed over the going parts,
            # inf where a query makes no progress
            assert np.flatnonzero(np.isfinite(low)).tolist() == useful
            assert low[useful] == pytest.approx(s.part_lows(going[useful]).sum(axis=1))
            full = {q: s.query_cost(q, hyps, kept, None) for q in useful}
            for q in useful:
                assert low[q] <= full[q] + 1e-9
            # a query left part-costed past a cut is one that scores above it in full
            best = min(full.values())
            for q in useful:
                got = s.query_cost(q, hyps, {}, None, s.cut(best))
                assert got == full[q] if full[q] <= s.cut(best) else got == np.inf
                cuts += got == np.inf
        assert cuts > 0
        fast = evaluate_strategy(game, s, "t", tree=True)
        monkeypatch.setattr(type(s), "cut", staticmethod(lambda best: np.inf))
        slow = evaluate_strategy(game, make_strategy(
            "calibrated", Candidates(game), depth=depth, exact=4, samples=40), "t", tree=True)
        monkeypatch.undo()
        assert fast.total == slow.total and fast.tree == slow.tree


@pytest.mark.parametrize("shortlist", [1, 3, 12])
def test_the_shortlist_costs_the_queries_of_least_bound_and_takes_the_best(shortlist,
                                                                           monkeypatch):
    """`shortlist` k: a decision costs at most k queries, the first k in order of
    `least_costs`, and chooses the least of their scores by rule K; 0 costs every query
    that can still win, the exact choice. Written here: the first k costed in full with
    no cut (and, for 0, every query that makes progress), then least_by_k, on sets of
    MM(4,4) where more than k queries can still win, so the shortlist binds."""
    game = load_game(MM, {"pegs": 4, "colours": 4})
    short, exact = (make_strategy("calibrated", Candidates(game), exact=4, samples=40,
                                  shortlist=k) for k in (shortlist, 0))
    t, rng, binds = short.table, np.random.default_rng(shortlist), 0
    calls = []
    cost = type(short).query_cost
    monkeypatch.setattr(type(short), "query_cost",
                        lambda self, *a, **k: calls.append(self) or cost(self, *a, **k))
    for _ in range(6):
        hyps = np.sort(rng.choice(game.hypotheses.size, size=int(rng.integers(20, 120)),
                                  replace=False))
        belief = Belief(game, hyps)
        scored = np.flatnonzero(t.symmetry.representatives(t.symmetry.stabiliser(hyps)))
        low = short.least_costs(hyps, scored)
        useful = np.flatnonzero(np.isfinite(low))
        first = scored[sorted(useful.tolist(), key=lambda k: low[k])[:shortlist]]
        some, every = np.full(len(t.queries), np.inf), np.full(len(t.queries), np.inf)
        for q in scored[useful].tolist():
            every[q] = cost(short, q, hyps, {}, None)
        some[first] = every[first]
        calls.clear()
        assert short.choose(belief) == least_by_k(short.candidates, belief, some)
        assert 0 < len(calls) <= shortlist
        assert exact.choose(belief) == least_by_k(exact.candidates, belief, every)
        binds += int((low <= short.cut(every.min())).sum() > shortlist)
    assert binds > 0


def test_the_second_split_bound_is_below_every_profile_of_part_sizes():
    """Depth 2's size bound on a part (`second_low`) is below n plus the least sum of the
    estimate over any sizes a second query's going parts could have: at most as many
    as the most codes that go on for any query of MM(4,4) (counted here on the whole
    set), summing to at least n - s (s: the most secrets one query ends the game for).
    Written here as a table of least sums over every profile of sizes; with the fitted
    (convex) estimate the bound comes within a query a secret of it at every size."""
    game = load_game(MM, {"pegs": 4, "colours": 4})
    s = make_strategy("calibrated", Candidates(game), exact=4, samples=40,
                      estimate_by="fit")
    t, top = s.table, game.hypotheses.size
    most = max(len({c for c in row.tolist() if not t.stops[q, c]})
               for q, row in enumerate(t.codes))
    least = np.zeros(top + 1)  # least[m]: m secrets in at most p parts, p = 1, 2, ...
    least[1:] = s.estimate[1:top + 1]
    for _ in range(most - 1):
        least = np.array([min(least[m - k] + s.estimate[k] for k in range(m + 1))
                          for m in range(top + 1)])
    ends = int(s.search.most_ended)
    n = np.arange(s.exact + 1, top + 1)
    profile = n + least[np.maximum(n - ends, 0)]
    assert (s.second_low[n] <= profile + 1e-9).all()
    assert (s.second_low[n] >= profile - n / 100 - 1).all()


def test_a_large_part_is_scored_on_one_query_per_orbit():
    """Depth 2 scores a part of at least SYMMETRIC secrets on one query per orbit of its
    stabiliser: the same cost as every query's second split, computed here."""
    game = load_game(MM, {"pegs": 4, "colours": 5})
    s = make_strategy("calibrated", Candidates(game), samples=20)
    t = s.table
    assert t.symmetry is not None
    for part in (np.arange(625), np.arange(300), np.arange(0, 625, 2)):
        counts = t.counts(part)
        second = np.where(t.stops, 0.0, s.estimate[counts]).sum(axis=1)
        second[np.where(t.stops, 0, counts).max(axis=1) == len(part)] = np.inf
        assert s.part_cost(part) == len(part) + second.min()


def test_the_fitted_estimate_is_the_curve_at_every_size():
    """`estimate_by="fit"`: E(n) = n (a + b log2 n) at every size, never below the size
    bound, from the same calibration as the default, which takes the mean where a size
    was solved."""
    game = load_game(MM, {"pegs": 3, "colours": 4})
    means = make_strategy("calibrated", Candidates(game), samples=40)
    fit = make_strategy("calibrated", Candidates(game), samples=40, estimate_by="fit")
    assert fit.fit == means.fit
    a, b = fit.fit
    n = np.arange(1, game.hypotheses.size + 1)
    curve = np.maximum(n * (a + b * np.log2(n)), fit.search.lb_total[1:])
    assert np.allclose(fit.estimate[1:], curve) and fit.estimate[0] == 0
    seen = [k for k in means.per_size if k > 0 and means.per_size[k] > means.search.lb_total[k]
            and not np.isclose(means.per_size[k], curve[k - 1])]
    assert seen and all(means.estimate[k] == pytest.approx(means.per_size[k]) for k in seen)


def test_options_and_refusals():
    game = load_game(MM, {"pegs": 2, "colours": 3})
    with pytest.raises(SleuthError, match="depth"):
        make_strategy("calibrated", Candidates(game), depth=3)
    liar = load_game(ROOT / "specs" / "noisy-guess-who.yaml")
    with pytest.raises(SleuthError):
        make_strategy("calibrated", Candidates(liar))


@pytest.mark.slow  # 4 s and 7 s
def test_mm46_between_the_best_one_step_rule_and_the_optimum():
    """MM(4,6): most-parts 5,668 is the best one-step rule, 5,625 the optimum."""
    game = load_game(MM)
    one, two = total(game, "calibrated", depth=1), total(game, "calibrated")
    assert 5625 <= two <= one <= 5650


def test_a_brute_force_of_the_test_agrees_with_the_optimal_search():
    """The brute force above against the exact search, on every set of up to 3 of
    MM(2,3)'s codes."""
    game = load_game(MM, {"pegs": 2, "colours": 3})
    s = make_strategy("calibrated", Candidates(game), samples=10)
    for k in (1, 2, 3):
        for hyps in itertools.combinations(range(game.hypotheses.size), k):
            assert s.exact_cost(np.array(hyps)) == brute_least_total(
                s.table.codes, s.table.stops, hyps)


@pytest.mark.parametrize("depth", [1, 2])
def test_the_games_max_queries_is_kept(depth):
    """MM(4,4): unbounded, calibrated's tree has worst case 5, though every secret can be
    found in 4 (optimal-worst proves it). With `max_queries: 4` in the goal it keeps to
    4, at no cost in total here."""
    free = load_game(MM, {"colours": 4})
    text = MM.read_text().replace('stop_when: "black == pegs"}',
                                  'stop_when: "black == pegs", max_queries: 4}')
    bounded = load_game_text(text, overrides={"colours": 4})
    least = evaluate_strategy(free, make_strategy("optimal-worst", Candidates(free)), "t")
    assert least.worst == 4
    loose = evaluate_strategy(free, make_strategy("calibrated", Candidates(free),
                                                  depth=depth), "t")
    kept = evaluate_strategy(bounded, make_strategy("calibrated", Candidates(bounded),
                                                    depth=depth), "t")
    assert loose.worst == 5 and kept.worst == 4
    assert kept.total == loose.total == 905

"""The per-set floor read by hypothesis (solver/infoset/column_kernels.py) against the
same least computed here in numpy over every query, on random tables that span several
blocks of queries, cut over threads; the size bounds' shape against the bounds it
writes; and the search with the column pass against the search without it: the same
floors, tree and count of sets."""

from __future__ import annotations

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.solver.infoset.column_kernels import (
    BLOCK,
    BY_CODE,
    MAX_KNOTS,
    MAX_SET,
    ColumnFloors,
    Shape,
    _alike,
    _scores,
    distinct_by_columns,
)
from sleuth.solver.infoset.outcome_kernels import distinct_rows
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.bounds import external, fill
from sleuth.solver.search.plain import NO_TREE, OptimalSearch
from tests.conftest import ROOT


def fill_bounds(size: int, branches: int) -> tuple[np.ndarray, np.ndarray]:
    pairs = [(0, 0)] + [fill(n, branches) for n in range(1, size + 1)]
    return (np.array([p[0] for p in pairs], dtype=np.int64),
            np.array([p[1] for p in pairs], dtype=np.int64))


@pytest.mark.parametrize("branches", [1, 2, 3, 5, 13, 40])
def test_the_shape_writes_the_size_bounds_back(branches):
    lb_total, lb_worst = fill_bounds(400, branches)
    shape = Shape.of(lb_total, lb_worst)
    knots_needed = int(np.count_nonzero(np.diff(np.diff(lb_total[1:MAX_SET + 1]))))
    if knots_needed > MAX_KNOTS:  # one branch: the slope changes at every size
        assert shape is None
        return
    assert shape is not None and len(shape.knots) == knots_needed
    k = np.arange(MAX_SET + 1)
    again = shape.a * k + shape.b * (k > 0)
    for knot, gain in zip(shape.knots, shape.gains, strict=True):
        again = again + gain * np.maximum(0, k - knot)
    assert np.array_equal(again, lb_total[:MAX_SET + 1])


def test_no_shape_where_the_depth_bound_falls_or_the_total_is_not_piecewise():
    lb_total, lb_worst = fill_bounds(300, 13)
    falls = lb_worst.copy()
    falls[20] = falls[19] - 1
    assert Shape.of(lb_total, falls) is None
    # leaves of the external bound in pairs (alike = 2): its slope changes too often
    pairs = np.array([0, 0] + [2 * external(n // 2, 3)[0] for n in range(2, 301)])
    assert Shape.of(pairs, np.zeros(301, dtype=np.int64)) is None


def numpy_least(codes, hyps, stops, lb_total, lb_worst, allowed):
    q, c = stops.shape
    counts = np.stack([np.bincount(codes[i, hyps], minlength=c) for i in range(q)])
    going = np.where(stops, 0, counts)
    lbq = len(hyps) + lb_total[going].sum(axis=1)
    lbw = 1 + lb_worst[going].max(axis=1)
    ok = allowed & (going.max(axis=1) < len(hyps))
    n = len(hyps)
    if not ok.any():
        return NO_TREE, NO_TREE
    return max(int(lbq[ok].min()), int(lb_total[n])), max(int(lbw[ok].min()),
                                                          int(lb_worst[n]))


@pytest.mark.parametrize("seed", range(6))
def test_the_column_pass_matches_numpy(seed, thread_mode):
    """Over tables of up to three blocks of queries and sets of up to MAX_SET, one
    thread or cut in 2 and 3 runs: the least over every allowed useful query."""
    rng = np.random.default_rng(seed)
    nq = int(rng.integers(BLOCK // 2, 3 * BLOCK))
    nh = int(rng.integers(40, 320))
    # counted code by code (up to BY_CODE codes), or each at its code
    nc = int(rng.integers(3, 15)) if seed % 2 else int(rng.integers(BY_CODE + 1, 60))
    weights = 1.0 / np.arange(1, nc) ** 2  # parts of every size, large to one
    codes = rng.choice(nc - 1, size=(nq, nh), p=weights / weights.sum()).astype(np.uint8)
    codes[: nq // 3, : nh // 2] = 0  # some queries lump most of a set together
    # the last code is each query's own secret, where the game ends at most queries
    codes[np.arange(nq), rng.integers(0, nh, size=nq)] = nc - 1
    stops = np.zeros((nq, nc), dtype=bool)
    stops[:, -1] = rng.random(nq) < 0.8
    # admissible bounds (as many branches as codes), so the least is often above them
    lb_total, lb_worst = fill_bounds(nh, nc)
    floors = ColumnFloors.make(np.ascontiguousarray(codes.T), stops, lb_total, lb_worst)
    assert floors is not None
    above = 0
    for _ in range(6):
        n = int(rng.integers(2, min(nh, MAX_SET) + 1))
        hyps = np.sort(rng.choice(nh, size=n, replace=False)).astype(np.int64)
        allowed = rng.random(nq) < 0.8
        want = numpy_least(codes, hyps, stops, lb_total, lb_worst, allowed)
        above += want[0] > lb_total[n]
        for pieces in (1, 2, 3):
            assert floors.least(hyps, allowed, NO_TREE, pieces) == want
    assert above >= 3  # the queries' bounds decide, not the set's own
    # with only queries that lump the whole set together allowed, none is useful
    hyps = np.arange(min(nh // 2, MAX_SET), dtype=np.int64)
    counts = np.stack([np.bincount(codes[i, hyps], minlength=nc) for i in range(nq)])
    lumps = np.where(stops, 0, counts).max(axis=1) == len(hyps)
    assert lumps.any()
    want = numpy_least(codes, hyps, stops, lb_total, lb_worst, lumps)
    assert want == (NO_TREE, NO_TREE)
    assert floors.least(hyps, lumps, NO_TREE, 1) == want
    none = np.zeros(nq, dtype=bool)
    assert floors.least(np.arange(5, dtype=np.int64), none, NO_TREE, 1) == (NO_TREE, NO_TREE)


def numpy_scores(codes, hyps, stops, lb_total, lb_worst):
    """Every query's (lbq, lbw, useful, ends) at `hyps`, from its part sizes."""
    q, c = stops.shape
    counts = np.stack([np.bincount(codes[i, hyps], minlength=c) for i in range(q)])
    going = np.where(stops, 0, counts)
    return (len(hyps) + lb_total[going].sum(axis=1), 1 + lb_worst[going].max(axis=1),
            going.max(axis=1) < len(hyps), np.where(stops, counts, 0).sum(axis=1) > 0)


@pytest.mark.parametrize("seed", range(6))
def test_each_querys_bounds_read_by_column_match_numpy(seed):
    """The exact search's per-query scores read by column (`_scores`: every query of
    the table counted, those asked for returned), against numpy, over tables of up to
    three blocks, few codes (counted code by code) or many, sets of 1 to MAX_SET."""
    rng = np.random.default_rng(100 + seed)
    nq, nh = int(rng.integers(BLOCK // 2, 3 * BLOCK)), int(rng.integers(40, 320))
    nc = int(rng.integers(3, 15)) if seed % 2 else int(rng.integers(BY_CODE + 1, 60))
    weights = 1.0 / np.arange(1, nc) ** 2
    codes = rng.choice(nc - 1, size=(nq, nh), p=weights / weights.sum()).astype(np.uint8)
    codes[: nq // 3, : nh // 2] = 0
    codes[np.arange(nq), rng.integers(0, nh, size=nq)] = nc - 1
    stops = np.zeros((nq, nc), dtype=bool)
    stops[:, -1] = rng.random(nq) < 0.8
    lb_total, lb_worst = fill_bounds(nh, nc)
    floors = ColumnFloors.make(np.ascontiguousarray(codes.T), stops, lb_total, lb_worst)
    s = floors.shape
    seen = set()
    for n in [1, 2, *rng.integers(3, min(nh, MAX_SET) + 1, size=5).tolist()]:
        hyps = np.sort(rng.choice(nh, size=n, replace=False)).astype(np.int64)
        cand = np.sort(rng.choice(nq, size=int(rng.integers(1, nq + 1)), replace=False))
        got = _scores(floors.columns, hyps, floors.going, s.a, s.b, s.knots, s.gains,
                      lb_worst, cand, 0)
        want = numpy_scores(codes, hyps, stops, lb_total, lb_worst)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g, w[cand])
        seen |= {(bool(u), bool(e)) for u, e in zip(got[2], got[3], strict=True)}
    # (useful, ends) as each query is: a query that lumps the set ends it for no secret
    assert seen == {(True, True), (True, False), (False, False)}


def test_a_set_some_query_meets_the_size_bounds_for():
    """The pass may end at the first block where a query meets the set's size bounds:
    a query that parts a set of 12 into singletons (and ends one) is found in the
    last block, the others lumping the set."""
    nq, nh = 3 * BLOCK, 40
    codes = np.zeros((nq, nh), dtype=np.uint8)
    codes[-1] = np.arange(nh) % 14
    stops = np.zeros((nq, 14), dtype=bool)
    stops[:, 0] = True
    lb_total, lb_worst = fill_bounds(nh, 13)
    floors = ColumnFloors.make(np.ascontiguousarray(codes.T), stops, lb_total, lb_worst)
    hyps = np.arange(12, dtype=np.int64)
    want = numpy_least(codes, hyps, stops, lb_total, lb_worst, np.ones(nq, dtype=bool))
    assert want == (int(lb_total[12]), int(lb_worst[12]))
    assert floors.least(hyps, np.ones(nq, dtype=bool), NO_TREE, 1) == want


@pytest.mark.parametrize("seed", range(4))
def test_distinct_queries_hashed_by_column_are_those_hashed_by_row(seed, thread_mode):
    """Few codes, so many queries repeat a row at a set; some rows equal in codes
    differ in where the game ends; every query hashed, those of `active` kept."""
    rng = np.random.default_rng(50 + seed)
    nq, nh, nc = int(rng.integers(300, 3000)), int(rng.integers(5, 60)), 3
    codes = rng.integers(0, nc, size=(nq, nh)).astype(np.uint8)
    stops = rng.random((nq, nc)) < 0.1
    columns = np.ascontiguousarray(codes.T)
    for _ in range(4):
        hyps = np.sort(rng.choice(nh, size=int(rng.integers(1, 9)), replace=False))
        active = np.sort(rng.choice(nq, size=int(rng.integers(1, nq + 1)), replace=False))
        want = distinct_rows(codes, hyps, stops, active, 1)
        assert len(want) < len(active)
        for pieces in (1, 2, 3):
            got = distinct_by_columns(columns, hyps, stops, active, pieces)
            assert np.array_equal(got, want)


def test_rows_sharing_a_hash_are_told_apart():
    """`_alike` pairs queries by hash alone, then compares each pair by column. Given one
    hash for every query, it reports that some pair differs (the caller then compares
    row by row); given each row's own number (its codes and game ends at the set) as
    its hash, it keeps distinct_rows' queries."""
    rng = np.random.default_rng(7)
    nq, nh, nc = 200, 20, 3
    codes = rng.integers(0, nc, size=(nq, nh)).astype(np.uint8)
    stops = rng.random((nq, nc)) < 0.1
    columns = np.ascontiguousarray(codes.T)
    hyps = np.sort(rng.choice(nh, size=5, replace=False))
    active = np.arange(nq)
    want = distinct_rows(codes, hyps, stops, active, 1)
    assert 1 < len(want) < nq
    whole, _ = _alike(hyps, active, np.zeros(nq, dtype=np.uint32), columns, stops.T)
    assert not whole
    rows = [tuple(codes[q, hyps]) + tuple(stops[q, codes[q, hyps]]) for q in active]
    number = {row: i for i, row in enumerate(dict.fromkeys(rows))}
    keys = np.array([number[row] for row in rows], dtype=np.uint32)
    whole, kept = _alike(hyps, active, keys, columns, stops.T)
    assert whole
    assert np.array_equal(active[kept], want)


@pytest.mark.parametrize("spec, overrides, guesses", [
    ("mastermind.yaml", {"pegs": 4, "colours": 4}, "any"),
    ("mastermind.yaml", {"pegs": 4, "colours": 4}, "consistent"),
    ("bulls-and-cows.yaml", {"digits": 3}, "any"),
])
def test_the_search_is_the_same_with_and_without_columns(spec, overrides, guesses):
    """The column pass is taken at some sets, and every set's floor, the proven value and
    the count of sets searched equal those of the row-wise pass alone."""
    game = load_game(ROOT / "specs" / spec, overrides)
    root = np.arange(game.hypotheses.size, dtype=np.int64)
    rows = OptimalSearch(Candidates(game, guesses), compiled=False)  # (the Python passes)
    rows.column_floors = None
    by_rows = rows.solve(root, None, NO_TREE - 1)
    both = OptimalSearch(Candidates(game, guesses), compiled=False)
    assert both.column_floors is not None
    taken = []
    least = both.column_floors.least
    both.column_floors.least = lambda *a, **k: taken.append(1) or least(*a, **k)
    assert both.solve(root, None, NO_TREE - 1) == by_rows
    assert len(taken) > 10
    assert both.floors == rows.floors and both.nodes == rows.nodes

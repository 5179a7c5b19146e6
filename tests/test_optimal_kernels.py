"""The exact searches' compiled loops (solver/infoset/outcome_kernels.py) against the
same quantities computed here in numpy, on random outcome tables with game-ending
feedback, each pass cut over threads against the same pass on one; a fork after a
split pass (the layer is fork-safe); and the per-set floor against a search: a floor
never exceeds the proven value."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.compiler.api import parallel
from sleuth.solver.infoset.outcome_kernels import (
    COLUMN_BLOCK,
    codes_met,
    column_sums,
    distinct_rows,
    going_sums,
    least_bounds,
    least_bounds_serial,
    least_bounds_split,
    marked_counts,
    part_sizes,
)
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.plain import NO_TREE, OptimalSearch
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
    codes[0], stops[0, 0] = 0, False  # a query that parts no set
    lb_total = np.cumsum(rng.integers(0, 4, size=nh + 1)).astype(np.int64)
    lb_worst = np.cumsum(rng.integers(0, 2, size=nh + 1)).astype(np.int64)
    lb_total[0] = lb_worst[0] = 0
    for _ in range(5):
        hyps = np.sort(rng.choice(nh, size=int(rng.integers(1, nh + 1)), replace=False))
        n = len(hyps)
        want = numpy_scores(codes, hyps, stops, lb_total, lb_worst)
        got = part_sizes(codes, hyps, stops, lb_total, lb_worst, np.arange(nq))
        for w, g in zip(want, got, strict=True):
            assert np.array_equal(w, g)
        allowed = rng.random(nq) < 0.7
        going, lbq, lbw, useful, _ = want
        ok = useful & allowed
        least = least_bounds(codes, hyps, stops, lb_total, lb_worst, np.arange(nq), allowed,
                             NO_TREE)
        if ok.any():  # never below the set's own size bounds
            assert least == (max(lbq[ok].min(), lb_total[n]), max(lbw[ok].min(), lb_worst[n]))
        else:
            assert least == (NO_TREE, NO_TREE)
        # going_sums: a float cost summed over each useful query's going parts, inf for
        # the others (the whole set's part costs nothing: a query that makes no progress
        # would score least, were it counted)
        cost = np.concatenate([[0.0], rng.random(nh) * 10])
        cost[n] = 0.0
        sums = np.where(useful, np.where(going > 0, cost[going], 0.0).sum(axis=1), np.inf)
        assert going_sums(codes, hyps, stops, cost, np.arange(nq)) == pytest.approx(sums)


@pytest.mark.parametrize("guesses", ["any", "consistent"])
def test_floor_never_exceeds_the_optimum(guesses):
    """Every floor the search keeps is at most the value the search proves for that set
    (each set solved again on its own, with no limit)."""
    game = load_game(ROOT / "specs/mastermind.yaml", {"pegs": 4, "colours": 4})
    search = OptimalSearch(Candidates(game, guesses), compiled=False)  # its floors kept
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


def numpy_distinct(codes, hyps, stops):
    """The queries whose (code, ends) row at `hyps` no earlier query has."""
    seen, kept = set(), []
    for q in range(len(codes)):
        row = tuple((int(c), bool(stops[q, c])) for c in codes[q, hyps])
        if row not in seen:
            seen.add(row)
            kept.append(q)
    return np.array(kept, dtype=np.int64)


@pytest.mark.parametrize("seed", range(4))
def test_split_passes_equal_one_thread(seed, thread_mode):
    """Each pass cut into 2, 3 and 7 runs of queries (as the threads take them) gives what
    it gives uncut and what numpy gives, including where one run stops early at the size
    bounds and another does not."""
    rng = np.random.default_rng(100 + seed)
    nq, nh, nc = int(rng.integers(20, 90)), int(rng.integers(10, 80)), int(rng.integers(2, 7))
    # few codes: many queries repeat a row, so distinct_rows has work
    codes = rng.integers(0, nc, size=(nq, nh)).astype(np.uint8)
    stops = rng.random((nq, nc)) < 0.2
    lb_total = np.concatenate([[0], np.cumsum(rng.integers(1, 4, size=nh))]).astype(np.int64)
    lb_worst = np.concatenate([[0], np.cumsum(rng.integers(0, 2, size=nh))]).astype(np.int64)
    for _ in range(6):
        hyps = np.sort(rng.choice(nh, size=int(rng.integers(2, nh + 1)), replace=False))
        active = np.sort(rng.choice(nq, size=int(rng.integers(1, nq + 1)), replace=False))
        allowed = rng.random(nq) < 0.8
        one = least_bounds_serial(codes, hyps, stops, lb_total, lb_worst, active, allowed,
                                  NO_TREE)
        whole = part_sizes(codes, hyps, stops, lb_total, lb_worst, active, 1)
        want = numpy_scores(codes[active], hyps, stops[active], lb_total, lb_worst)
        for w, g in zip(want, whole, strict=True):
            assert np.array_equal(w, g)
        kept = numpy_distinct(codes[active], hyps, stops[active])
        cost = np.concatenate([[0.0], rng.random(nh) * 10])
        sums = np.where(want[3], np.where(want[0] > 0, cost[want[0]], 0.0).sum(axis=1),
                        np.inf)
        lone = going_sums(codes, hyps, stops, cost, active, 1)
        assert lone == pytest.approx(sums)
        # read by hypothesis (each one's codes on every query, rows `hyps` of them),
        # the queries asked picked out, in code order
        columns = np.ascontiguousarray(codes.T)
        assert column_sums(columns, hyps, active, stops, cost, 1) == pytest.approx(lone)
        for pieces in (2, 3, 7):
            assert np.array_equal(going_sums(codes, hyps, stops, cost, active, pieces), lone)
            assert np.array_equal(column_sums(columns, hyps, active, stops, cost, pieces),
                                  column_sums(columns, hyps, active, stops, cost, 1))
            assert least_bounds_split(codes, hyps, stops, lb_total, lb_worst, active,
                                      allowed, NO_TREE, pieces) == one
            cut = part_sizes(codes, hyps, stops, lb_total, lb_worst, active, pieces)
            for w, g in zip(whole, cut, strict=True):
                assert np.array_equal(w, g)
            assert np.array_equal(distinct_rows(codes, hyps, stops, active, pieces),
                                  active[kept])


def test_column_sums_over_several_blocks_of_queries(thread_mode):
    """column_sums counts COLUMN_BLOCK queries side by side: over 2.5 blocks (cut into
    runs that start mid-block) it sums as going_sums does query by query."""
    rng = np.random.default_rng(11)
    nq, nh, nc = int(2.5 * COLUMN_BLOCK), 40, 9
    codes = rng.integers(0, nc, size=(nq, nh)).astype(np.uint8)
    stops = rng.random((nq, nc)) < 0.2
    codes[7], stops[7, 0] = 0, False  # a query that parts no set
    cost = np.concatenate([[0.0], rng.random(nh) * 10])
    for n in (1, 2, 17, nh):
        hyps = np.sort(rng.choice(nh, size=n, replace=False))
        want = going_sums(codes, hyps, stops, cost, np.arange(nq), 1)
        assert want[7] == np.inf
        columns = np.ascontiguousarray(codes.T)
        for pieces in (1, 2, 3):
            assert column_sums(columns, hyps, np.arange(nq), stops, cost,
                               pieces) == pytest.approx(want)


def test_a_pass_is_split_only_above_split(thread_mode):
    import numba

    assert parallel.pieces(parallel.SPLIT - 1) == 1
    assert parallel.pieces(parallel.SPLIT) == (numba.get_num_threads()
                                               if thread_mode == "threads" else 1)


def _pieces_of_a_large_pass() -> int:
    return parallel.pieces(parallel.SPLIT * 10)


def test_pool_workers_keep_their_passes_to_one_thread():
    """Workers that share the cores between them (`sleuth bench --workers`, `sleuth atlas
    --workers`) split no pass; the process that started them still does."""
    from multiprocessing import get_context

    from sleuth.solver.evaluation.bench import start_worker
    from sleuth.solver.interfaces.atlas import worker_pool

    whole = parallel.threads()
    with get_context("fork").Pool(1, initializer=start_worker) as pool:
        assert pool.apply(_pieces_of_a_large_pass) == 1
    with worker_pool(1) as pool:
        assert pool.submit(_pieces_of_a_large_pass).result() == 1
    with get_context("fork").Pool(1) as pool:  # without the initializer: the whole machine
        assert pool.apply(_pieces_of_a_large_pass) == whole
    assert _pieces_of_a_large_pass() == whole


FORKED = """
import os, sys
import numpy as np
from sleuth.solver.infoset.outcome_kernels import least_bounds_split
rng = np.random.default_rng(0)
codes = rng.integers(0, 5, size=(400, 300)).astype(np.uint8)
stops = np.zeros((400, 5), dtype=bool)
lb = np.arange(301, dtype=np.int64)
args = (codes, np.arange(300), stops, lb, lb, np.arange(400), np.ones(400, dtype=bool), 1 << 60, 2)
first = least_bounds_split(*args)
pid = os.fork()
if pid == 0:
    os._exit(0 if least_bounds_split(*args) == first else 3)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not parallel.layer_loads(),
                    reason="no fork- and thread-safe layer (tbb)")
def test_a_forked_child_runs_split_passes():
    """The searches run in forked children (compiler/guard.py, evaluate --workers): a
    child forked after a split pass runs one too (GNU OpenMP's layer would hang here)."""
    done = subprocess.run([sys.executable, "-c", FORKED], timeout=120, cwd=ROOT)
    assert done.returncode == 0


@pytest.mark.parametrize("order", ["F", "C"])
def test_the_codes_each_query_gives_and_the_secrets_it_ends_match_numpy(order):
    """codes_met and marked_counts (the outcome table's stops, the kernel's `applies`)
    against numpy fancy indexing, on a table stored by column (as built) or by row."""
    rng = np.random.default_rng(7)
    nq, nh, nc = 300, 500, 40
    codes = rng.integers(0, nc - 5, size=(nq, nh))
    codes[::2, 0], codes[1::2, -1] = nc - 2, nc - 1  # codes met once, first or last
    codes = np.asarray(codes, dtype=np.uint8, order=order)
    marks = rng.random((nq, nc)) < 0.3
    marks[:, nc - 2:] = True
    met = np.zeros((nq, nc), dtype=bool)
    met[np.arange(nq)[:, None], codes] = True
    assert np.array_equal(codes_met(codes, nc), met)
    assert not met[:, nc - 5:nc - 2].any() and met[:, nc - 2:].sum() == nq
    want = marks[np.arange(nq)[:, None], codes].sum(axis=1)
    assert np.array_equal(marked_counts(codes, marks), want)
    assert want.min() < want.max()

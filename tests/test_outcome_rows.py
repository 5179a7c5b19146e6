"""The exact searches without a dense table (solver/infoset/outcome_rows.py).

Cross-checks: a search made on demand finds the dense search's tree, node for node; on
5 pegs and 8 colours the root is scored on its 7 orbits, against a scorer written here,
without any array the size of the whole matrix; a game with nothing to make codes on
demand from still refuses, with the budget in the message.
"""

from __future__ import annotations

import re
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from sleuth.compiler.api import Budget, BudgetError, load_game
from sleuth.solver.infoset.outcome_rows import OutcomeRows
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.plain import NO_TREE, OptimalSearch

SPECS = Path(__file__).resolve().parent.parent / "specs"


def score(guess: np.ndarray, codes: np.ndarray, colours: int) -> tuple[np.ndarray, ...]:
    """Black and white pegs of one guess (colours 1..colours) against many codes."""
    black = (codes == guess).sum(axis=1)
    common = sum(np.minimum((codes == c).sum(axis=1), int((guess == c).sum()))
                 for c in range(1, colours + 1))
    return black, common - black


def searches(params: dict, mb: int) -> tuple[OptimalSearch, OptimalSearch]:
    spec = SPECS / "mastermind.yaml"
    small = OptimalSearch(Candidates(load_game(spec, params, Budget(memory_mb=mb))))
    # the dense table's Python search: the compiled kernel (search/compiled.py) needs a
    # dense table, and the on-demand one is compared with the search it replaces
    dense = OptimalSearch(Candidates(load_game(spec, params)), compiled=False)
    return small, dense


@pytest.mark.parametrize("params, kept", [({"pegs": 4, "colours": 5}, "CodeMatrix"),
                                          ({}, "RowCache")])
def test_codes_made_on_demand_give_the_dense_search_tree(params, kept):
    """At 1 MiB the dense table (int64) does not fit: 4 x 5 keeps every code by
    hypothesis in one byte, 4 x 6 only some rows (made from one per orbit). Both prove
    the dense search's optimum with the same tree and the same number of sets."""
    small, dense = searches(params, 1)
    assert isinstance(small.table, OutcomeRows) and isinstance(dense.table, OutcomeTable)
    assert type(small.table.cache).__name__ == kept
    everyone = np.arange(dense.game.hypotheses.size, dtype=np.int64)
    assert np.array_equal(small.lb_total, dense.lb_total)
    assert np.array_equal(small.lb_worst, dense.lb_worst)
    got = small.solve(everyone, None, NO_TREE - 1)
    want = dense.solve(everyone, None, NO_TREE - 1)
    assert got == want and small.nodes == dense.nodes
    assert small.plan(everyone, None) == dense.plan(everyone, None)


def test_codes_on_demand_agree_with_the_dense_table_on_random_sets():
    small, dense = searches({}, 1)
    rng = np.random.default_rng(3)
    columns = 0
    for n in (5, 200, 900, 1296):
        hyps = np.sort(rng.choice(1296, n, replace=False)).astype(np.int64)
        active = np.sort(rng.choice(1296, 300, replace=False)).astype(np.int64)
        for got, want in zip(small.table.part_sizes(hyps, small.lb_total, small.lb_worst,
                                                    active),
                             dense.table.part_sizes(hyps, dense.lb_total, dense.lb_worst,
                                                    active), strict=True):
            # labels are the codes' places in the book: compare the sizes per real code
            if got.ndim == 2:
                got = np.stack([np.bincount(small.table.book, weights=row,
                                            minlength=dense.table.ncodes) for row in got])
            assert np.array_equal(got, want)
        # a superset of the queries that part the set as no earlier one does (all of
        # `active` for these sizes, or under --top)
        assert set(dense.table.distinct(hyps, active).tolist()) <= \
            set(small.table.distinct(hyps, active).tolist())
        assert np.array_equal(small.table.distinct(hyps, active, top=1), active)
        ok = np.ones(1296, dtype=bool)
        assert small.table.least_bounds(hyps, small.lb_total, small.lb_worst, active, ok,
                                        NO_TREE) == \
            dense.table.least_bounds(hyps, dense.lb_total, dense.lb_worst, active, ok,
                                     NO_TREE)
        cost = np.sqrt(np.arange(1297.0)) * np.log2(np.arange(1297.0) + 2)
        # (read by hypothesis from the row cache for the sets it holds, 5 and 200 here,
        # summed in code order; computed by query for the others)
        assert small.table.going_sums(hyps, cost, active) == \
            pytest.approx(dense.table.going_sums(hyps, cost, active))
        columns += small.table.cache.cut(hyps, active, 1296) is not None
    assert columns == 2
    # the most codes that go on for one query on the whole set, counted here: the dense
    # table's is that, the one made on demand at least that (its codes that occur, less
    # the fewest that end the game for a query)
    t = dense.table
    most = max(len(set(np.unique(t.codes[q]).tolist()) - set(np.flatnonzero(t.stops[q])
                                                             .tolist()))
               for q in range(len(t.queries)))
    assert t.most_going == most and small.table.most_going >= most


def test_a_set_of_9_to_64_lists_the_dense_tables_distinct_queries():
    """There the pass pays (DISTINCT); 20 codes that share their first pegs are parted
    alike by many of the 1,296 queries."""
    small, dense = searches({}, 1)
    everyone = small.all_queries
    for n in (20, 64):
        hyps = np.arange(n, dtype=np.int64)
        want = dense.table.distinct(hyps, everyone)
        assert len(want) < len(everyone)
        assert np.array_equal(small.table.distinct(hyps, everyone), want)
    assert np.array_equal(small.table.distinct(np.arange(8), everyone), everyone)


def test_five_pegs_eight_colours_is_searched_from_its_orbits():
    """32,768 x 32,768 codes would take 8 GiB as a dense table; the search is set up and
    scores its root on one query per orbit (7) with far less, and each orbit's parts
    are those a scorer written here counts."""
    game = load_game(SPECS / "mastermind.yaml", {"pegs": 5, "colours": 8})
    tracemalloc.start()
    try:
        search = OptimalSearch(Candidates(game))
        everyone = np.arange(game.hypotheses.size, dtype=np.int64)
        stab = search.symmetry.stabiliser(everyone)
        order, lbq, lbw, krank, going, tried = search.ordered(everyone, None, stab)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(search.table, OutcomeRows)
    assert peak < game.budget.memory_bytes, peak  # 512 MiB: half the table in bytes
    assert len(tried) == 7 and sorted(order) == list(range(7))
    codes = np.stack([(everyone // 8 ** (4 - i)) % 8 + 1 for i in range(5)], axis=1)
    for i, q in enumerate(tried.tolist()):
        black, white = score(codes[q], codes, 8)
        want = sorted(np.unique(black * 10 + white, return_counts=True)[1].tolist())
        stopped = int((black == 5).sum())
        got = sorted(going[i][going[i] > 0].tolist() + [stopped] * (stopped > 0))
        assert got == want, q


def test_a_game_with_nothing_to_make_codes_from_refuses():
    """Wordle's words have no symmetry and its codes do not fit 16 MiB: refused, with the
    budget in the message."""
    game = load_game(SPECS / "wordle.yaml", {}, Budget(memory_mb=16))
    with pytest.raises(BudgetError, match="over the 16 MiB budget"):
        OptimalSearch(Candidates(game))


def test_the_least_worst_case_made_on_demand_is_the_dense_one():
    """optimal-worst's search: the least depth, then the least total within it."""
    small, dense = searches({"pegs": 4, "colours": 5}, 1)
    everyone = np.arange(dense.game.hypotheses.size, dtype=np.int64)
    depth = small.least_depth(everyone)
    assert depth == dense.least_depth(everyone)
    assert small.solve(everyone, depth, NO_TREE - 1) == dense.solve(everyone, depth,
                                                                    NO_TREE - 1)
    assert small.plan(everyone, depth) == dense.plan(everyone, depth)


# `stop_when` reads the query's argument here (the table reads it query by query)
STOP_ON_ARG = """
game: Guess within reach
params: {n: 9}
domains: {Number: {range: "1..n"}}
secret: {number: Number}
queries:
  guess: {args: {x: Number}, feedback: 'if number == x then "hit" else if number < x then
    "lower" else "higher"'}
goal: {identify: [number], stop_when: 'feedback == "hit" or (feedback == "higher" and x == n - 1)'}
"""


# the feedback alone, and guesses 0 and n + 1 never give the code that ends the game
STOP_ON_FEEDBACK = STOP_ON_ARG.replace(' or (feedback == "higher" and x == n - 1)', "").replace(
    'Number: {range: "1..n"}', 'Number: {range: "1..n"}, Guess: {range: "0..n+1"}').replace(
    "args: {x: Number}", "args: {x: Guess}")


@pytest.mark.parametrize("text, params", [(None, {"pegs": 3, "colours": 4}),
                                          (STOP_ON_FEEDBACK, {}), (STOP_ON_ARG, {})])
def test_the_stop_table_is_the_stopper_read_cell_by_cell(text, params):
    from sleuth.compiler.api import load_game_text

    game = load_game_text(text) if text else load_game(SPECS / "mastermind.yaml", params)
    candidates = Candidates(game)
    table = OutcomeTable(candidates)
    expected = np.zeros_like(table.stops)
    for i, query in enumerate(table.queries):
        for c in set(table.codes[i].tolist()):  # the codes the query gives, and no other
            expected[i, c] = candidates.stops(query, int(table.book[c]))
    assert expected.any() and not expected.all(axis=1).any()
    assert np.array_equal(table.stops, expected)


def test_the_dense_table_is_kept_one_byte_a_code_and_never_widened_by_the_search():
    """The dense table is kept in its narrowest type (`small`), and the optimal search
    builds and solves without the int64 copy (`codes`, made only when something asks
    for it: MM(4,8) 134 MB and 0.3 s of every build). What it reads from the narrow
    table -- rows, part sizes -- is what the int64 table and a count written here give."""
    game = load_game(SPECS / "mastermind.yaml", {"pegs": 3, "colours": 4})
    search = OptimalSearch(Candidates(game))
    table = search.table
    assert table.small.dtype == np.uint8
    root = np.arange(game.hypotheses.size, dtype=np.int64)
    assert search.solve(root, None, NO_TREE - 1)[0] > 0
    assert "codes" not in vars(table)
    wide = table.codes
    assert wide.dtype == np.int64 and np.array_equal(wide, table.small)
    hyps = np.arange(0, game.hypotheses.size, 3, dtype=np.int64)
    for q in (0, 5, len(table.queries) - 1):
        row = table.row(q, hyps)
        assert row.dtype == np.int64 and np.array_equal(row, wide[q, hyps])
        assert np.array_equal(table.counts(hyps)[q], np.bincount(row, minlength=table.ncodes))


def test_a_search_made_on_demand_says_so_with_the_budget_that_gives_the_table(capsys):
    """A command's optimal search whose dense table is over the budget prints a note on
    stderr with the least budget that holds the table: at that budget the table is
    dense and nothing is printed, and at one MiB less the codes are still made on
    demand."""
    from sleuth.solver.interfaces.options import make_from_options

    def made(mb: int):
        game = load_game(SPECS / "mastermind.yaml", {"pegs": 4, "colours": 5},
                         Budget(memory_mb=mb))
        return make_from_options(game, {"strategy": "optimal", "guesses": "any", "seed": 0})

    strategy = made(1)
    err = " ".join(capsys.readouterr().err.split())  # (the console wraps long lines)
    assert isinstance(strategy.search.table, OutcomeRows)
    assert err.startswith("note: the dense table") and "over the 1 MiB budget" in err
    enough = int(re.search(r"(?:--memory-mb|memory_mb) (\d+) or more", err).group(1))
    assert isinstance(made(enough).search.table, OutcomeTable)
    assert capsys.readouterr().err == ""
    assert isinstance(made(enough - 1).search.table, OutcomeRows)
    assert "note:" in capsys.readouterr().err

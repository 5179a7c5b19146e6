"""The optimal search's compiled kernel (solver/search/compiled.py) against the
Python search it stands in for: the same solved tree, set by set (value, worst case and
query), with and without symmetry, under a depth budget, with consistent guesses; the
games it refuses; and a bound it cannot meet reported as a lower bound."""

from __future__ import annotations

import numpy as np
import pytest

from sleuth.compiler.api import load_game, load_game_text
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.compiled import SMALL, CompiledSearch
from sleuth.solver.search.plain import NO_TREE, OptimalSearch
from sleuth.solver.search.table import SetTable
from tests.conftest import ROOT

GAMES = [
    ("mastermind.yaml", {"pegs": 3, "colours": 4}),  # a listed group: every set compiled
    ("mastermind.yaml", {"pegs": 4, "colours": 4}),
    ("bulls-and-cows.yaml", {"digits": 3}),  # transpositions: sets of up to SMALL
]


def plans(spec: str, overrides: dict, guesses: str = "any", symmetry: bool = True,
          depth: int | None = None) -> tuple[dict, dict, OptimalSearch]:
    """The tree the Python search solves from the whole set, and the one the search with
    the kernel solves, each as sorted hypotheses' bytes -> (total, worst, query)."""
    game = load_game(ROOT / "specs" / spec, overrides)
    everyone = np.arange(game.hypotheses.size, dtype=np.int64)
    out = []
    for compiled in (False, True):
        search = OptimalSearch(Candidates(game, guesses), compiled=compiled)
        if not symmetry:
            search.symmetry = None
        got = search.solve(everyone, depth, NO_TREE - 1)
        assert isinstance(got, tuple)
        out.append((search.plan(everyone, depth), search))
    (python, _), (kernel, search) = out
    return python, kernel, search


@pytest.mark.parametrize("spec, overrides", GAMES)
def test_the_kernel_solves_the_python_searchs_tree(spec, overrides):
    python, kernel, search = plans(spec, overrides)
    assert search.compiled is not None and search.compiled.nodes > 10  # it did the work
    assert kernel == python


@pytest.mark.parametrize("spec, overrides", GAMES[:2])
def test_without_symmetry_the_tree_is_the_same(spec, overrides):
    """Every query scored rather than one per orbit: the same tree (K within an orbit)."""
    python, kernel, _ = plans(spec, overrides, symmetry=False)
    assert kernel == python


def test_consistent_guesses_and_a_depth_budget():
    """Only possible secrets asked, and the least total within a worst case of 4 (MM(4,4)
    needs 4 at least): the budget is kept by every part."""
    for guesses, depth in (("consistent", None), ("any", 4), ("consistent", 5)):
        python, kernel, _ = plans("mastermind.yaml", {"pegs": 4, "colours": 4}, guesses,
                                  depth=depth)
        assert kernel == python, (guesses, depth)
        if depth is not None:
            assert max(worst for _, worst, _ in kernel.values()) <= depth


def test_a_bound_it_cannot_meet_gives_a_lower_bound():
    """Asked for a tree of total at most one less than the optimum, the kernel reports a
    bound above that; asked for the optimum, the tree."""
    game = load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 3, "colours": 3})
    everyone = np.arange(game.hypotheses.size, dtype=np.int64)
    best = OptimalSearch(Candidates(game), compiled=False).solve(everyone, None, NO_TREE - 1)
    search = OptimalSearch(Candidates(game))
    low = search.solve(everyone, None, best[0] - 1)
    assert not isinstance(low, tuple) and low >= best[0]
    assert search.solve(everyone, None, best[0]) == best


def test_a_table_that_grows_keeps_the_answers():
    """A kernel table of a few slots and a small arena grows between calls; what it
    kept stays found, and the answers do not change."""
    game = load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 4, "colours": 4})
    everyone = np.arange(game.hypotheses.size, dtype=np.int64)
    want = OptimalSearch(Candidates(game), compiled=False)
    small = OptimalSearch(Candidates(game))
    table = small.compiled.solved = SetTable(slots=8, arena=16)
    assert small.solve(everyone, None, NO_TREE - 1) == want.solve(everyone, None,
                                                                  NO_TREE - 1)
    assert len(table.keys) > 8 and len(table.arena) > 16 and not table.full
    assert small.plan(everyone, None) == want.plan(everyone, None)


def test_every_set_kept_is_found_after_the_table_grows():
    """Sets kept one by one in a table of a few slots and a small arena, grown whenever
    it is full (as CompiledSearch.solve does): every set is then found with the value
    kept for it, as a dict of the same sets says, and a set never kept is not."""
    from sleuth.solver.search.table import keep, set_hash

    rng = np.random.default_rng(7)
    table, want = SetTable(slots=8, arena=16), {}
    grown = 0
    while len(want) < 300:
        hyps = np.unique(rng.integers(0, 5_000, size=int(rng.integers(1, 40))))
        depth = int(rng.integers(-1, 4))
        value = int(rng.integers(0, 10_000))
        keep(*table.arrays(), hyps, depth, np.uint64(set_hash(hyps, depth)), value, 3, 7)
        while table.full:  # not kept: grow, then keep it again
            table.grow(len(hyps))
            grown += 1
            keep(*table.arrays(), hyps, depth, np.uint64(set_hash(hyps, depth)), value, 3, 7)
        want[hyps.tobytes(), depth] = value
    assert grown >= 5
    for (key, depth), value in want.items():
        assert table.known(np.frombuffer(key, dtype=np.int64).copy(), depth) == (value, 3, 7)
    assert table.known(np.array([5_001, 5_002]), 0) == (0, 0, -1)


# A guess ends the game when the secret is one above it: at most one secret per query,
# but never the one the query names (the kernel's K order and orbit argument need that).
OFF_BY_ONE = """
game: Off by one
params: {n: 12}
domains:
  Number: {range: "1..n"}
secret: {number: Number}
queries:
  guess:
    args: {x: Number}
    feedback: 'if number == x + 1 then "next" else if number <= x then "lower" else "higher"'
goal: {identify: [number], stop_when: 'feedback == "next"'}
"""


@pytest.mark.parametrize("text, overrides, applies", [
    (None, {"pegs": 3, "colours": 3}, True),
    (OFF_BY_ONE, {}, False),
])
def test_where_the_kernel_applies(text, overrides, applies):
    game = (load_game_text(text) if text else
            load_game(ROOT / "specs" / "mastermind.yaml", overrides))
    search = OptimalSearch(Candidates(game))
    assert (search.compiled is not None) == applies
    assert CompiledSearch.applies(OptimalSearch(Candidates(game), top=3)) is False


def test_transpositions_give_only_small_sets(monkeypatch):
    import sleuth.solver.infoset.symmetry as symmetry

    monkeypatch.setattr(symmetry, "LIMIT", 5)  # (fewer than its 11 generators)
    game = load_game(ROOT / "specs" / "bulls-and-cows.yaml", {"digits": 3})
    search = OptimalSearch(Candidates(game))
    assert type(search.symmetry).__name__ == "Transpositions"
    assert search.compiled.takes(SMALL) and not search.compiled.takes(SMALL + 1)
    search.symmetry = None  # then every set: the Python search has no symmetry either
    assert search.compiled.takes(game.hypotheses.size)


CACHED = """
import numpy as np
from sleuth.compiler.api import load_game
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.plain import NO_TREE, OptimalSearch
game = load_game("mastermind", {"pegs": 3, "colours": 3})
search = OptimalSearch(Candidates(game))
hyps = np.frombuffer(np.arange(game.hypotheses.size, dtype=np.int64).tobytes(), np.int64)
print(search.compiled.solve(hyps, None, NO_TREE - 1, None, None))
"""


@pytest.mark.slow
def test_a_read_only_set_runs_again_from_numbas_cache(tmp_path):
    """A read-only set (np.frombuffer of a memo key) once compiled a second `_solve`
    that called the first, and the next process crashed (SIGSEGV) loading the pair
    from numba's cache: the kernel now takes one array type. Two processes sharing a
    fresh cache: the first compiles, the second loads."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", CACHED], env=env, capture_output=True,
                           text=True, timeout=900) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stdout.startswith("(")


def test_the_kernel_searches_the_python_searchs_sets_node_for_node():
    """With a listed group (MM(4,6): 17,280 symmetries, every set in the kernel) both
    searches count the same sets. The kernel once kept a set at the empty slot it found
    on entry, which a set solved below it may have taken since: that set's entry was
    lost and it was searched again (5,859 sets against 5,858)."""
    game = load_game(ROOT / "specs" / "mastermind.yaml", {})
    root = np.arange(game.hypotheses.size, dtype=np.int64)
    compiled, python = OptimalSearch(Candidates(game)), OptimalSearch(Candidates(game),
                                                                      compiled=False)
    assert compiled.compiled is not None
    assert compiled.solve(root, None, NO_TREE - 1) == python.solve(root, None, NO_TREE - 1)
    assert compiled.nodes == python.nodes

"""Symmetries proved from the expressions, and what the heuristics do with them.

Every claim is cross-checked on an independent path: a proved transposition on the
feedback matrix computed by the kernels, the matrix filled from orbits against the
kernels, and every heuristic's whole evaluation with its symmetry and shortcut
switched off.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sleuth.compiler.api import Budget, load_game, load_game_text
from sleuth.compiler.invariance import positions_interchangeable, values_interchangeable
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.codes import FEW_POSITIONS, count_columns, count_parts, cut_rows
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.infoset.symmetry import links, orbit_matrix, transpositions
from sleuth.solver.strategies import make_strategy

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"

GAME = """\
game: Probe
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
      extra: "%s"
goal: {identify: [code], stop_when: "black == pegs"}
"""


def verdicts(text: str) -> tuple[bool, bool]:
    game = load_game_text(text)
    action, secret = game.model.queries[0], game.model.secret[0]
    variables = [(secret.name, secret.domain)] + [(a.name, a.domain) for a in action.args]
    return (values_interchangeable(action, variables, secret.domain.elem),
            positions_interchangeable(action, variables, secret.domain.length))


@pytest.mark.parametrize("extra, values, positions", [
    ("sum(min(count(g, c), count(code, c)) for c in Colour)", True, True),
    ("count(g[i] == code[j] for i in 0..pegs-1 for j in 0..pegs-1 if i != j)", True, True),
    ("exists(g[i] in code for i in 0..pegs-1)", True, True),
    ("alldifferent(g) and len(code) == 3", True, True),
    # a constant colour, an ordering, arithmetic: not every colour plays the same part
    ("count(code[i] == 1 for i in 0..pegs-1)", False, True),
    ("count(g[i] < code[i] for i in 0..pegs-1)", False, True),
    ("sum(code[i] for i in 0..pegs-1)", False, True),
    ("first(c for c in Colour if count(code, c) > 0, 0)", False, True),
    # a named position, a position's number, part of the positions, an ordered read
    ("g[0] == code[0]", True, False),
    ("count(g[i] == code[i] and i > 0 for i in 0..pegs-1)", True, False),
    ("count(g[i] == code[i] for i in 0..pegs-2)", True, False),
    ("first(g[i] == code[i] for i in 0..pegs-1, false)", True, False),
    ("count(g[i] == code[(i + 1) % pegs] for i in 0..pegs-1)", True, False),
])
def test_what_the_expressions_prove(extra, values, positions):
    assert verdicts(GAME % extra) == (values, positions)


@pytest.mark.parametrize("name, proved", [
    ("mastermind", {"Colour"}), ("black-peg-mastermind", {"Colour"}),
    ("bulls-and-cows", {"Digit"}), ("counterfeit-coin", {"Coin"}),
    ("higher-lower", set()), ("hotter-colder", set()), ("treasure-hunt", {"Cell"}),
    ("clue", set()),
])
def test_bundled_specs(name, proved):
    """Values are proved interchangeable exactly where the game treats them alike (a
    coin's kind is not: heavy and light answer differently)."""
    game = load_game(SPECS / f"{name}.yaml")
    found = set()
    for action in game.model.queries:
        variables = [(v.name, v.domain) for v in game.model.secret] + \
            [(a.name, a.domain) for a in action.args]
        domains = {d.name: d for _, dom in variables for d in (dom, dom.elem)
                   if d is not None and d.name}
        found |= {n for n, d in domains.items() if values_interchangeable(action, variables, d)}
    assert found == proved


SMALL = [("mastermind", {"pegs": 3, "colours": 4}), ("mastermind", {"pegs": 2, "colours": 5}),
         ("black-peg-mastermind", {"pegs": 3, "colours": 3}),
         ("bulls-and-cows", {"digits": 3})]


@pytest.mark.parametrize("name, params", SMALL)
def test_proved_transpositions_hold_on_the_compiled_matrix(name, params):
    game = load_game(SPECS / f"{name}.yaml", params)
    block = Candidates(game).blocks[0]
    codes = game.feedback_matrix(block.action.name, block.ranks)
    group = transpositions(game, block.ranks)
    assert group is not None and len(group.names) >= 2
    for h, q in zip(group.hyps, group.queries, strict=True):
        assert np.array_equal(codes[np.ix_(q, h)], codes)
    tree = links(group)
    filled = orbit_matrix(tree, codes[:, tree.firsts].T)
    assert np.array_equal(filled, codes.T)


def test_the_table_and_the_orbit_matrix_share_one_transposition_group():
    from sleuth.solver.infoset.outcomes import OutcomeTable
    from sleuth.solver.infoset.symmetry import _generators

    game = load_game(SPECS / "mastermind.yaml", {"colours": 4})
    candidates = Candidates(game)
    table = OutcomeTable(candidates)  # its detect() and the orbit matrix both ask
    block = candidates.blocks[0]
    kept = transpositions(game, block.ranks, _generators(game, table.codes, block.ranks))
    assert kept is transpositions(game, block.ranks)
    again = load_game(SPECS / "mastermind.yaml", {"colours": 4})  # computed afresh
    fresh = transpositions(again, block.ranks)
    assert fresh is not kept and fresh.names == kept.names and fresh.size == kept.size
    assert np.array_equal(fresh.hyps, kept.hyps) and np.array_equal(fresh.queries,
                                                                    kept.queries)
    fewer = transpositions(game, block.ranks, _generators(game, None, block.ranks)[:1])
    assert fewer is not kept and fewer.names == ["values 0 <-> 1"]


def test_no_spurious_transposition_where_one_colour_differs():
    text = GAME % "count(code[i] == 1 and g[i] != 1 for i in 0..pegs-1) > 0"
    game = load_game_text(text)
    block = Candidates(game).blocks[0]
    group = transpositions(game, block.ranks)
    assert sorted(group.names) == ["positions 0 <-> 1", "positions 0 <-> 2",
                                   "positions 1 <-> 2"]  # no colour: 1 is special


HEURISTICS = ["entropy", "minimax", "expected-size", "most-parts"]


def lengths(game, strategy: str, guesses: str, fast: bool) -> tuple[dict, dict]:
    s = make_strategy(strategy, Candidates(game, guesses, symmetry=fast))
    if not fast:
        s.even_split_best = False
    ev = evaluate_strategy(game, s, "probe", tree=True)
    return ev.lengths, ev.tree


@pytest.mark.parametrize("name, params", SMALL + [("probe", {})])
@pytest.mark.parametrize("guesses", ["any", "consistent"])
def test_symmetry_and_shortcut_never_change_a_heuristic(name, params, guesses):
    """The whole decision tree of every heuristic is the same with orbits, the matrix
    from orbits and the possible-secret shortcut, as without any of them."""
    def fresh():  # a new game each time: no matrix or orbits kept from the other run
        if name == "probe":
            return load_game_text(GAME % "sum(min(count(g, c), count(code, c)) for c in Colour)")
        return load_game(SPECS / f"{name}.yaml", params)

    for strategy in HEURISTICS:
        fast = lengths(fresh(), strategy, guesses, True)
        assert fast == lengths(fresh(), strategy, guesses, False), strategy


def test_a_matrix_filled_from_orbits_without_a_full_kernel_pass():
    """MM(4,5) under a budget that keeps its matrix: the part counts of a set through
    the kept matrix equal the kernels' (the orbits' first rows are all it computed)."""
    game = load_game(SPECS / "mastermind.yaml", {"pegs": 4, "colours": 5}, Budget(memory_mb=64))
    c = Candidates(game)
    block = c.blocks[0]
    rng = np.random.default_rng(3)
    index = np.sort(rng.choice(game.hypotheses.size, 40, replace=False))
    positions = np.sort(rng.choice(len(block.ranks), 200, replace=False))
    got = c.codes(block, positions, game, index)
    assert game.memo.get(("matrix", "guess"), lambda: None) is not None
    assert np.array_equal(got, game.feedback_matrix("guess", block.ranks[positions], index))


@pytest.mark.parametrize("n, queries", [(5, 40), (70, 30), (200, 9)])
def test_column_counts_agree_with_row_counts(n, queries):
    rng = np.random.default_rng(n)
    labels = rng.integers(0, 7, size=(n, queries)).astype(np.uint8)
    weights = rng.random(n)
    assert np.array_equal(count_columns(labels, 7, None), count_parts(labels.T, 7, None))
    assert np.allclose(count_columns(labels, 7, weights), count_parts(labels.T, 7, weights))


@pytest.mark.parametrize("name, params", [("mastermind", {"pegs": 3, "colours": 3}),
                                          ("black-peg-mastermind", {"pegs": 3, "colours": 3})])
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst"])
def test_exact_search_with_transpositions_is_the_listed_groups(monkeypatch, name, params,
                                                                strategy):
    """A group over LIMIT elements is kept as transpositions; the search proves the same
    values and chooses the same queries as with the group listed, and as with none."""
    import sleuth.solver.infoset.symmetry as symmetry
    from sleuth.solver.infoset.belief import Belief

    def solved(limit: int | None):
        monkeypatch.setattr(symmetry, "LIMIT", limit or symmetry.LIMIT)
        game = load_game(SPECS / f"{name}.yaml", params)
        s = make_strategy(strategy, Candidates(game, "any"))
        if limit is None:
            s.search.symmetry = None
        kind = type(s.search.symmetry).__name__
        return kind, evaluate_strategy(game, s, name, tree=True).tree, s.value(Belief.prior(game))

    listed, small, none = solved(10**9), solved(2), solved(None)
    assert (listed[0], small[0], none[0]) == ("Symmetry", "Transpositions", "NoneType")
    assert listed[1:] == small[1:] == none[1:]


def test_rows_made_on_demand_under_a_small_budget():
    """MM(4,6) at 1 MiB: no full matrix fits, rows are made from one per orbit and kept
    up to the budget (least recently used out). Random requests agree with the kernels,
    and a whole evaluation is the one without any symmetry."""
    game = load_game(SPECS / "mastermind.yaml", {}, Budget(memory_mb=1))
    c = Candidates(game)
    block = c.blocks[0]
    rng = np.random.default_rng(5)
    for _ in range(60):
        index = np.sort(rng.choice(1296, int(rng.integers(1, 200)), replace=False))
        positions = np.sort(rng.choice(1296, 40, replace=False))
        assert np.array_equal(c.codes(block, positions, game, index),
                              game.feedback_matrix("guess", block.ranks[positions], index))
    kept = game.memo.get(("matrix", "guess"), lambda: None)
    assert type(kept).__name__ == "RowCache" and kept.capacity < 1296
    fast = lengths(game, "minimax", "any", True)
    assert fast == lengths(load_game(SPECS / "mastermind.yaml"), "minimax", "any", False)


def test_a_large_game_reports_its_orbits(capsys):
    from sleuth.solver.interfaces.cli import main as sleuth

    mm58 = ["mastermind", "--set", "pegs=5", "--set", "colours=8"]
    sleuth(["info", *mm58, "--symmetry", "--json"])
    sym = __import__("json").loads(capsys.readouterr().out)["symmetry"]
    assert sym["group"] == 40320 * 120  # 8! colours x 5! positions
    assert sym["levels"][0] == {"nodes": 1, "orbits": 7, "queries": 32768}


def test_positions_swapped_with_values_fix_the_sets_after_a_query(monkeypatch):
    """After (0, 1, 2) in 3-digit Bulls and Cows, swapping positions i, j together with
    digits i, j maps each part onto itself while neither swap alone does: the
    stabiliser holds such products (each a symmetry of the matrix), there are fewer
    query orbits than with the plain swaps, and the part's proven optimum and chosen
    query are those of the search with no symmetry."""
    import sleuth.solver.infoset.symmetry as symmetry
    from sleuth.solver.search.plain import NO_TREE, OptimalSearch

    monkeypatch.setattr(symmetry, "LIMIT", 5)  # (fewer than its 11 generators)
    game = load_game(SPECS / "bulls-and-cows.yaml", {"digits": 3})
    search = OptimalSearch(Candidates(game, "any"))
    group = search.symmetry
    assert type(group).__name__ == "Transpositions"
    first = search.queries.index(next(q for q in search.queries
                                      if search.candidates.args(q)["g"] == (0, 1, 2)))
    codes = search.table.codes
    fewer = 0
    for code in np.unique(codes[first]).tolist():
        part = np.flatnonzero(codes[first] == code).astype(np.int64)
        if len(part) < 20 or search.stops[first, code]:
            continue
        stab = group.stabiliser(part)
        both = [k for k in stab.tolist() if not group.swaps[k]]
        assert both, code
        for k in both:
            h, q = group.hyps[k], group.queries[k]
            assert np.array_equal(np.sort(h[part]), part)
            assert np.array_equal(codes[np.ix_(q, h)], codes)
        plain = stab[group.swaps[stab]]
        fewer += group.representatives(stab).sum() < group.representatives(plain).sum()
        if len(part) <= 21:
            with_symmetry = search.solve(part, None, NO_TREE - 1)
            bare = OptimalSearch(Candidates(game, "any"))
            bare.symmetry = None
            assert bare.solve(part, None, NO_TREE - 1) == with_symmetry
    assert fewer >= 3  # (with no digit of 0, 1, 2 in the secret, plain swaps fix the set)


def plain_closure(hyps: list[np.ndarray], queries: list[np.ndarray]) -> set[bytes]:
    """Every composition of the generators, one at a time (a set of byte strings)."""
    ident = (np.arange(len(hyps[0])), np.arange(len(queries[0])))
    seen = {ident[0].tobytes() + ident[1].tobytes()}
    frontier = [ident]
    while frontier:
        nxt = []
        for h, q in frontier:
            for gh, gq in zip(hyps, queries, strict=True):
                image = (gh[h], gq[q])
                key = image[0].tobytes() + image[1].tobytes()
                if key not in seen:
                    seen.add(key)
                    nxt.append(image)
        frontier = nxt
    return seen


@pytest.mark.parametrize("params, relabel", [
    ({"pegs": 3, "colours": 3}, False), ({"pegs": 4, "colours": 4}, False),
    ({"pegs": 2, "colours": 6}, False),
    # the queries numbered otherwise than the hypotheses: their images are listed apart
    ({"pegs": 3, "colours": 3}, True)])
def test_the_listed_group_is_every_composition(params, relabel):
    from sleuth.solver.infoset.closure import closure
    from sleuth.solver.infoset.symmetry import _generators

    game = load_game(SPECS / "mastermind.yaml", params)
    block = Candidates(game).blocks[0]
    found = _generators(game, None, block.ranks)
    gens = ([g.hyps.astype(np.int64) for g in found], [g.queries.astype(np.int64) for g in found])
    if relabel:  # query x is now label[x]: g acts as label . g . label^-1
        label = np.random.default_rng(1).permutation(len(gens[1][0]))
        back = np.argsort(label)
        gens = (gens[0], [label[g[back]] for g in gens[1]])
        assert not all(np.array_equal(h, q) for h, q in zip(*gens, strict=True))
    got_h, got_q = closure(*gens, transpositions(game, block.ranks, found).size)
    got = {h.astype(np.int64).tobytes() + q.astype(np.int64).tobytes()
           for h, q in zip(got_h, got_q, strict=True)}
    assert len(got) == len(got_h)  # no element twice
    assert got == plain_closure(*gens)


def test_elements_alike_on_the_probe_are_told_apart_in_full():
    """Swapping two hypotheses the probe does not look at: the first pass sees one
    element, fewer than the group's order, so the closure is made again in full."""
    from sleuth.solver.infoset.closure import PROBE, closure

    n = 4 * PROBE
    probed = set(np.linspace(0, n - 1, PROBE).astype(int).tolist())
    a, b = [i for i in range(n) if i not in probed][:2]
    swap = np.arange(n)
    swap[[a, b]] = swap[[b, a]]
    same = np.arange(5)
    got_h, _ = closure([swap], [same], 2)
    assert sorted(map(tuple, got_h.tolist())) == sorted([tuple(range(n)), tuple(swap)])


@pytest.mark.parametrize("size", [2, 63, 64, 65, 129, 200])
def test_a_query_is_first_of_its_orbit_when_no_symmetry_maps_it_lower(size):
    """`representatives` reads the symmetries' query images a block at a time: a query
    is first of its orbit under `stab` (with the identity) when no symmetry of `stab`
    maps it to a lower one, checked here query by query and symmetry by symmetry: for
    random subsets that end inside, at and past a block, and for one symmetry alone
    after `size - 1` identities, so that it is read in the first, last or a middle
    block."""
    from sleuth.solver.search.plain import OptimalSearch

    search = OptimalSearch(Candidates(load_game(SPECS / "mastermind.yaml",
                                                {"pegs": 4, "colours": 5}), "any"))
    group = search.symmetry  # (619 symmetries listed)
    images = group.queries
    ident = int(np.flatnonzero((images == np.arange(images.shape[1])).all(1))[0])
    others = np.delete(np.arange(len(images)), ident)
    rng = np.random.default_rng(size)

    def brute(stab):
        return [all(int(images[g, q]) >= q for g in stab.tolist())
                for q in range(images.shape[1])]

    some = np.append(rng.choice(others, size - 1, replace=False), ident)
    lone = np.append(np.full(size - 1, ident), others[size])
    for stab in (some, lone):
        got = group.representatives(stab.astype(np.int64))
        assert got.tolist() == brute(stab)
        assert 0 < got.sum() < images.shape[1]


@pytest.mark.parametrize("positions", [0, 1, 7, FEW_POSITIONS, FEW_POSITIONS + 1, 400])
def test_cut_rows_is_the_plain_two_step_gather_on_both_of_its_paths(positions):
    rng = np.random.default_rng(positions)
    array = rng.integers(0, 100, size=(300, 500)).astype(np.int16)
    for n in (0, 1, 37, 300):
        rows = rng.choice(300, size=n, replace=False)
        where = rng.choice(500, size=positions, replace=positions > 500)
        got = cut_rows(array, rows, where)
        assert got.shape == (n, positions) and got.dtype == array.dtype
        assert np.array_equal(got, array[rows][:, where])

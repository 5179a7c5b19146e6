"""Queries generated one per orbit (solver/infoset/orbits.py), for argument spaces too
large to list: the counterfeit coin with 39 coins.

Each piece is checked on an independent path: the combinatorial subset ranks against
the listed canonical order, the value blocks against hypothesis-by-hypothesis swaps,
the generated queries against the listed legal queries reduced to orbits by brute
force over every permutation within the blocks, and whole evaluations against the
listed queries (generation forced on games small enough to list).
"""

from __future__ import annotations

import itertools
from math import comb
from pathlib import Path

import numpy as np
import pytest

from sleuth.compiler.api import SleuthError, domain_size, load_game, load_game_text, rank_of
from sleuth.compiler.domains import _subset_table, _unrank_subsets, subset_ranks
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset import queries
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.orbits import generated_levels, generator, value_blocks
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import main
from sleuth.solver.strategies import make_strategy
from sleuth.solver.strategies.trees import tree_index

ROOT = Path(__file__).resolve().parent.parent
COIN = ROOT / "specs" / "counterfeit-coin.yaml"
HEURISTICS = ["minimax", "entropy", "expected-size", "most-parts"]
# A prior that sets coin 1 apart and weighs the kinds: blocks follow the weights too.
WEIGHTED = COIN.read_text().replace(
    "goal:", 'prior: {weight: "(if fake == 1 then 3 else 1) * (if kind == heavy then 2 else 1)"}'
             "\ngoal:")


@pytest.mark.parametrize("n, sizes", [(5, (0, 5)), (6, (1, 3)), (10, (2, 4)), (8, (3, 3))])
def test_subset_ranks_invert_the_canonical_order(n, sizes):
    table = _subset_table(n, sizes)
    assert np.array_equal(subset_ranks(n, sizes, table), np.arange(len(table)))


def test_subset_ranks_of_a_space_too_large_to_list():
    ranks = np.array([0, 5, 10**9, 2 * 10**11, sum(comb(39, k) for k in range(1, 20)) - 1])
    assert np.array_equal(subset_ranks(39, (1, 19), _unrank_subsets(39, (1, 19), ranks)), ranks)


def test_query_ranks_beyond_64_bits_round_trip():
    game = load_game(COIN, {"coins": 39})
    space = game.space("weigh")
    assert space.size > 2**63
    for rank in (0, 12345678901234567890123, space.size - 1):
        values = space.value(rank)
        assert space.rank(values) == rank
    big = space.rank({"left": frozenset(range(20, 39)), "right": frozenset(range(1, 20))})
    assert big > 2**63 and space.value(big)["right"] == frozenset(range(1, 20))


def _belief_sets(game):
    """Information sets of the coin game: the root and after a few weighings."""
    fake, kind = game.hypotheses.columns
    n = int(fake.max())
    yield np.arange(game.hypotheses.size)
    yield np.flatnonzero(fake > 2)  # balanced 1, 2 against others
    yield np.flatnonzero(((fake <= 2) & (kind == 0)) | ((fake >= 3) & (fake <= 4) & (kind == 1)))
    yield np.flatnonzero((fake == 1) | ((fake == n) & (kind == 1)))


def _swap_fixes(game, index, weights, a, b):
    """Hypothesis by hypothesis: swapping coins a and b (values) maps the set onto itself."""
    table = game.hypotheses
    before = {}
    for i, w in zip(index.tolist(), weights, strict=True):
        h = table.value(i)
        before[(h["fake"], h["kind"])] = w
    after = {({a: b, b: a}.get(f, f), k): w for (f, k), w in before.items()}
    return after.keys() == before.keys() and all(
        np.isclose(after[key], before[key]) for key in before)


@pytest.mark.parametrize("text", ["plain", "weighted"])
def test_value_blocks_match_swaps_checked_one_hypothesis_at_a_time(text):
    game = load_game(COIN, {"coins": 6}) if text == "plain" else \
        load_game_text(WEIGHTED, overrides={"coins": 6})
    domain = game.model.secret[0].domain
    for index in _belief_sets(game):
        weights = game.prior[index]
        blocks = value_blocks(game, index, None if text == "plain" else weights, domain)
        label = {int(v): b for b, block in enumerate(blocks) for v in block}
        for a, b in itertools.combinations(range(6), 2):
            assert (label[a] == label[b]) == _swap_fixes(game, index, weights, a + 1, b + 1)


def _brute_orbit_firsts(game, blocks):
    """Every legal query, listed; the least rank of each one's orbit under every
    permutation of the coins within the blocks; the orbits' first ranks and sizes."""
    space = game.space("weigh")
    legal = np.concatenate(list(space.legal_ranks()))
    left, right = space.columns(legal)
    n = domain_size(game.model.secret[0].domain)
    sizes = space.domains[0].sizes
    least = legal.copy()
    for choice in itertools.product(*[itertools.permutations(b.tolist()) for b in blocks]):
        image = np.arange(n)
        for block, mapped in zip(blocks, choice, strict=True):
            image[block] = mapped
        moved = []
        for masks in (left, right):
            out = np.zeros(len(masks), dtype=np.int64)
            for c in range(n):
                out |= ((masks.astype(np.int64) >> c) & 1) << image[c]
            moved.append(subset_ranks(n, sizes, out))
        least = np.minimum(least, moved[0] * domain_size(space.domains[1]) + moved[1])
    firsts, counts = np.unique(least, return_counts=True)
    return firsts.tolist(), counts.tolist(), len(legal)


@pytest.mark.parametrize("coins", [4, 5, 6])
def test_generated_queries_are_the_first_of_each_orbit(coins):
    game = load_game(COIN, {"coins": coins})
    gen = generator(game, game.model.queries[0])
    assert gen is not None and gen.domain.name == "Coin"
    for index in _belief_sets(game):
        blocks = value_blocks(game, index, None, gen.domain)
        ranks, sizes = gen.orbits(blocks, sizes=True)
        firsts, brute_sizes, legal = _brute_orbit_firsts(game, blocks)
        assert ranks.tolist() == firsts
        assert sizes.tolist() == brute_sizes and sum(sizes) == legal


def _play_all(game, strategy, force):
    queries.ENUMERATE_QUERIES = 0 if force else 5 * 10**7
    try:
        candidates = Candidates(game)
        assert bool(candidates.generators) == force
        ev = evaluate_strategy(game, make_strategy(strategy, candidates), "x", tree=True)
    finally:
        queries.ENUMERATE_QUERIES = 5 * 10**7
    return ev.lengths, ev.tree


@pytest.mark.parametrize("strategy", HEURISTICS)
@pytest.mark.parametrize("coins, text", [(9, "plain"), (12, "plain"), (7, "weighted"),
                                         (10, "weighted")])
def test_generated_queries_play_as_the_listed_ones(strategy, coins, text):
    make = (lambda: load_game(COIN, {"coins": coins})) if text == "plain" else \
        (lambda: load_game_text(WEIGHTED, overrides={"coins": coins}))
    listed = _play_all(make(), strategy, force=False)
    generated = _play_all(make(), strategy, force=True)
    assert listed[0] == generated[0]
    assert listed[1] == generated[1]  # the whole tree: every query chosen, tie-break K too


def test_coin_39_takes_four_weighings():
    game = load_game(COIN, {"coins": 39})
    candidates = Candidates(game)
    assert "weigh" in candidates.generators
    ev = evaluate_strategy(game, make_strategy("minimax", candidates), "x", tree=True)
    assert len(ev.lengths) == 78
    # Three weighings have 27 outcomes, fewer than 78 secrets: four is the least possible.
    assert max(ev.lengths.values()) == 4 and min(ev.lengths.values()) == 4
    import json

    document = json.loads(json.dumps({"spec": str(COIN), "params": {"coins": 39},
                                      "tree": ev.tree}))
    assert len(tree_index(game, document)) > 1  # the tree checks out when replayed


def test_coin_39_orbits_per_level():
    levels = generated_levels(load_game(COIN, {"coins": 39}))
    assert levels is not None
    first, second = levels["levels"]
    # k coins against k, k = 1..19, are the root orbits; their sizes add up to the legal
    # weighings: sum over k of C(39, k) C(39 - k, k).
    assert first["orbits"] == 19
    assert first["queries"] == sum(comb(39, k) * comb(39 - k, k) for k in range(1, 20))
    assert second["nodes"] == 19 * 3


@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst", "random", "ismcts",
                                      "ises-sampled", "lookahead"])
def test_strategies_that_need_a_list_refuse_clearly(strategy):
    candidates = Candidates(load_game(COIN, {"coins": 39}))
    with pytest.raises(SleuthError, match="one per orbit") as err:
        make_strategy(strategy, candidates)
    assert "minimax" in err.value.hint


def test_cli_refusal_exits_1(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", str(COIN), "--set", "coins=39", "--strategy", "optimal"])
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert "one per orbit" in err and "Traceback" not in err


def test_rank_of_sets_matches_listing():
    game = load_game(COIN, {"coins": 6})
    d = game.model.queries[0].args[0].domain
    for r, mask in enumerate(_subset_table(6, d.sizes).tolist()):
        assert rank_of(d, {c + 1 for c in range(6) if mask >> c & 1}) == r


def test_no_generator_for_a_spec_whose_values_are_not_interchangeable():
    text = COIN.read_text().replace('"balanced"', '(if 1 in left then "left" else "balanced")')
    game = load_game_text(text, overrides={"coins": 6})
    assert generator(game, game.model.queries[0]) is None


def test_the_root_block_is_generated_one_query_per_orbit():
    game = load_game(COIN, {"coins": 39})
    candidates = Candidates(game)
    root = Belief.prior(game)
    (block,) = candidates.blocks_for(root)
    assert len(block.ranks) == 19 and not block.listed

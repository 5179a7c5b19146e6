"""The symmetries the exact searches list (solver/infoset/stabilisers.py): the
generators and each root query's stabiliser, checked against the whole group listed one
composition at a time, and the searches that use them against the searches without."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_symmetry import plain_closure

from sleuth.compiler.api import load_game
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.infoset.stabilisers import root_listing
from sleuth.solver.infoset.symmetry import _generators, transpositions

SPECS = Path(__file__).resolve().parent.parent / "specs"


def group_of(name: str, params: dict, relabel: bool):
    """The game's adjacent transpositions (hypotheses, queries), every transposition and
    product the game knows (rows of both), and the group's order; `relabel`: the queries
    numbered otherwise than the hypotheses."""
    game = load_game(SPECS / f"{name}.yaml", params)
    block = Candidates(game).blocks[0]
    found = _generators(game, None, block.ranks)
    group = transpositions(game, block.ranks, found)
    gens_h = [g.hyps.astype(np.int64) for g in found]
    gens_q = [g.queries.astype(np.int64) for g in found]
    known_h, known_q = group.hyps.astype(np.int64), group.queries.astype(np.int64)
    if relabel:  # query x is now label[x]: g acts as label . g . label^-1
        label = np.random.default_rng(1).permutation(len(gens_q[0]))
        back = np.argsort(label)
        gens_q = [label[g[back]] for g in gens_q]
        known_q = label[known_q[:, back]]
    return (gens_h, gens_q), (known_h, known_q), group.size


CASES = [("mastermind", {"pegs": 3, "colours": 3}, False),
         ("mastermind", {"pegs": 4, "colours": 3}, False),  # 0011: fixers fall short
         ("mastermind", {"pegs": 2, "colours": 5}, False),
         ("black-peg-mastermind", {"pegs": 3, "colours": 3}, False),
         ("mastermind", {"pegs": 3, "colours": 3}, True)]


@pytest.mark.parametrize("name, params, relabel", CASES)
@pytest.mark.parametrize("fixers", [True, False])  # False: by Schreier's lemma alone
def test_the_listing_is_the_generators_and_each_root_querys_stabiliser(name, params,
                                                                       relabel, fixers):
    gens, known, order = group_of(name, params, relabel)
    nh, nq = len(gens[0][0]), len(gens[1][0])
    whole = plain_closure(*gens)  # every element: hypotheses' images, then queries'
    assert len(whole) == order
    elements = [(np.frombuffer(e[:8 * nh], dtype=np.int64),
                 np.frombuffer(e[8 * nh:], dtype=np.int64)) for e in whole]
    images = np.stack([q for _, q in elements])
    expect_firsts = images.min(axis=0) == np.arange(nq)
    if not fixers:
        known = (np.zeros((0, nh), np.int64), np.zeros((0, nq), np.int64))
    got_h, got_q, firsts = root_listing(*gens, order, known, limit=10**6)
    assert np.array_equal(firsts, expect_firsts)
    listed = [h.astype(np.int64).tobytes() + q.astype(np.int64).tobytes()
              for h, q in zip(got_h, got_q, strict=True)]
    assert len(set(listed)) == len(listed)  # no element twice
    assert set(listed) <= whole
    assert listed[0] == np.arange(nh).tobytes() + np.arange(nq).tobytes()
    for h, q in zip(*gens, strict=True):
        assert h.tobytes() + q.tobytes() in listed
    for r in np.flatnonzero(firsts).tolist():
        fixing = {e for e, (_, q) in zip(whole, elements, strict=True) if q[r] == r}
        assert {e for e, q in zip(listed, got_q, strict=True) if q[r] == r} == fixing
    # less room: the smaller stabilisers in full, the largest cut; no room for the
    # generators: none
    sizes = sorted((sum(q[r] == r for _, q in elements), r)
                   for r in np.flatnonzero(firsts).tolist())
    room = len(listed) - 2
    cut_h, cut_q, cut_firsts = root_listing(*gens, order, known, limit=room)
    assert len(cut_h) <= room and np.array_equal(cut_firsts, firsts)
    cut = [h.astype(np.int64).tobytes() + q.astype(np.int64).tobytes()
           for h, q in zip(cut_h, cut_q, strict=True)]
    assert set(cut) <= set(listed)
    for h, q in zip(*gens, strict=True):
        assert h.tobytes() + q.tobytes() in cut
    for _, r in sizes[:-1]:
        assert sum(q[r] == r for q in cut_q) == sum(q[r] == r for _, q in elements)
    assert root_listing(*gens, order, known, limit=len(gens[0])) is None


def test_the_search_over_the_listing_is_the_search_without_symmetry():
    """MM(4,3) and MM(3,5): the proven values and the trees with the listed symmetries
    are those with none (the kernel inherits them part by part)."""
    from sleuth.solver.evaluation.evaluate import evaluate_strategy
    from sleuth.solver.strategies import make_strategy

    for name, params in (("mastermind", {"pegs": 4, "colours": 3}),
                         ("mastermind", {"pegs": 3, "colours": 5})):
        got = []
        for keep in (True, False):
            game = load_game(SPECS / f"{name}.yaml", params)
            strategy = make_strategy("optimal", Candidates(game, "any"))
            assert type(strategy.search.symmetry).__name__ == "Symmetry"
            if not keep:
                strategy.search.symmetry = None
            ev = evaluate_strategy(game, strategy, name, tree=True)
            got.append((ev.total, ev.worst, ev.tree))
        assert got[0] == got[1]

"""The approximate backend (ApproxMC counts, UniGen samples) against exact counts.

Counts must lie within the stated tolerance of the exact count (the decision
diagram's); every sampled hypothesis must satisfy the constraints and every
observation, checked by the kernels; a listing (SAT enumeration) must equal
the enumerated hypotheses exactly.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sleuth.solver.infoset.backends import prior_belief
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.observe import Event, apply_event
from tests.conftest import counts_agree, game


def score(guess: tuple[int, ...], code: tuple[int, ...]) -> dict[str, int]:
    black = sum(a == b for a, b in zip(guess, code, strict=True))
    return {"black": black, "white": sum((Counter(guess) & Counter(code)).values()) - black}


def three_guesses(pegs: int, colours: int, seed: int) -> list[Event]:
    """A seeded secret and three random guesses, as benchmarks/symbolic.py draws them."""
    rng = np.random.default_rng(seed)
    secret = tuple(int(x) for x in rng.integers(1, colours + 1, pegs))
    guesses = [tuple(int(x) for x in rng.integers(1, colours + 1, pegs)) for _ in range(3)]
    return [Event("guess", {"g": g}, feedback=score(g, secret)) for g in guesses]


def within(estimate: int, exact: int) -> bool:
    return counts_agree("approx", estimate, exact)


def observed(g, backend: str, events: list[Event]):
    belief = prior_belief(g, backend)
    for e in events:
        belief = apply_event(belief, e)
    return belief


@pytest.mark.parametrize("seed", [0, 1])
def test_counts_samples_and_listing_on_small_mastermind(seed):
    g = game("mastermind", pegs=4, colours=5)
    events = three_guesses(4, 5, seed)
    enum, approx = observed(g, "enum", events), observed(g, "approx", events)
    assert within(approx.size, enum.size)
    ranks = np.array(approx.sample_ranks(40, seed=seed), dtype=np.int64)
    assert enum.contains(np.sort(ranks)).all()  # every sample is a possible secret
    listed = approx.listing(limit=10_000)
    assert np.array_equal(listed.game.hypotheses.ranks, g.hypotheses.ranks[enum.index])


@pytest.mark.slow
def test_mm810_after_three_guesses_within_epsilon_and_samples_from_it():
    """10^8 codes: the approximate count lies within its tolerance of the diagram's exact
    count, and UniGen's samples all satisfy the three feedbacks."""
    g = game("mastermind", pegs=8, colours=10)
    events = three_guesses(8, 10, seed=1)  # 116,997 codes: too many to list
    exact = observed(g, "sdd", events)
    approx = CountedBelief(g, "approx", exact.facts)  # one estimate, of the final count
    exact = exact.size
    assert within(approx.size, exact), (approx.size, exact)
    ranks = np.array(sorted(approx.sample_ranks(12, seed=3)), dtype=np.int64)
    assert approx.contains(ranks).all()


def test_the_default_policy_never_picks_approx():
    """approx is only ever asked for (docs/symbolic.md: no bundled game needs it); without
    --backend every spec, however large its params, gets enum or an exact counter: the
    diagram, or the factored counter for Battleship's board."""
    from sleuth.compiler.api import bundled_specs, load_game
    from sleuth.solver.infoset.backends import DEFAULT_COUNTER, ENUMERATED, choose_backend

    assert DEFAULT_COUNTER == "sdd"
    games = [load_game(path) for path in bundled_specs()]
    games.append(game("mastermind", pegs=20, colours=20))  # 10^26 codes
    chosen = {g.name: choose_backend(g, None) for g in games}
    assert set(chosen.values()) <= {ENUMERATED, DEFAULT_COUNTER, "factored"}
    assert chosen["Mastermind"] == DEFAULT_COUNTER  # the large one above
    assert chosen["Battleship"] == "factored"

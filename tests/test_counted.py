"""Strategies and commands on counted beliefs (the symbolic backend) against enumeration.

Independent paths: the SDD sampler and model lister against brute force over
a small formula; exact evaluation with every partition computed by model
counting against the enumerated evaluation; listed beliefs and kernel
membership against the enumerated table; and whole games on the command
line, re-counted by the enumerated backend step by step.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner
from pysdd.sdd import SddManager, Vtree
from rich.console import Console

from sleuth.compiler import Budget, load_game
from sleuth.compiler.sdd import DiagramSampler
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import cli
from sleuth.solver.interfaces.play import Play
from sleuth.solver.interfaces.session import Session
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT

MASTERMIND = ROOT / "specs" / "mastermind.yaml"


def score(guess: tuple[int, ...], code: tuple[int, ...]) -> dict[str, int]:
    black = sum(a == b for a, b in zip(guess, code, strict=True))
    return {"black": black, "white": sum((Counter(guess) & Counter(code)).values()) - black}


# ----------------------------------------------------------------------------- the sampler

@pytest.mark.parametrize("vtree_type", ["right", "balanced"])
def test_sampler_and_lister_against_brute_force(vtree_type):
    """(a and b) or (c and not d) over five variables, e unmentioned: its 14 models by
    brute force; the lister finds exactly them and samples hit each about equally."""
    manager = SddManager.from_vtree(Vtree(var_count=5, var_order=[1, 2, 3, 4, 5],
                                          vtree_type=vtree_type))
    a, b, c, d, _ = (manager.literal(i) for i in range(1, 6))
    formula = (a & b) | (c & ~d)
    brute = {sum(1 << i for i in range(5) if bits[i])
             for bits in itertools.product([0, 1], repeat=5)
             if (bits[0] and bits[1]) or (bits[2] and not bits[3])}
    sampler = DiagramSampler(manager)
    assert len(brute) == 14
    assert sorted(sampler.models(formula, 100)) == sorted(brute)
    assert sampler.models(formula, 13) is None
    drawn = Counter(sampler.sample(formula, 14_000, seed=1))
    assert set(drawn) == brute
    assert all(abs(n - 1000) < 150 for n in drawn.values()), drawn


def test_samples_are_uniform_over_a_conditioned_belief():
    """MM(3,3) after 112 -> (1, 0): every sample is a surviving code, and a chi-square
    statistic over 20,000 samples stays below a bound a biased sampler would exceed."""
    g = load_game(MASTERMIND, {"pegs": 3, "colours": 3})
    event = Event("guess", {"g": (1, 1, 2)}, feedback={"black": 1, "white": 0})
    enum = apply_event(Belief.prior(g), event)
    counted = apply_event(CountedBelief.prior(g), event)
    ranks = counted.space.sample_ranks(counted.diagram, 20_000, seed=3)
    alive = set(g.hypotheses.ranks[enum.index].tolist())
    assert set(ranks) == alive
    expected = len(ranks) / len(alive)
    chi2 = sum((n - expected) ** 2 / expected for n in Counter(ranks).values())
    dof = len(alive) - 1
    assert chi2 < dof + 6 * (2 * dof) ** 0.5


def test_sampled_belief_weights_are_draw_counts():
    """A sampled belief weighs each distinct hypothesis by how often it was drawn: with
    many draws from 27 equally likely codes, every weight is near 1/27."""
    g = load_game(MASTERMIND, {"pegs": 3, "colours": 3})
    counted = CountedBelief.prior(g)
    small = counted.sampled(200, seed=5)
    assert small.size <= 27 and set(small.game.hypotheses.ranks) <= set(range(27))
    assert small.game.transient and small.probabilities().sum() == pytest.approx(1.0)
    large = counted.sampled(27_000, seed=5)
    assert large.size == 27
    p = large.probabilities()
    assert np.abs(p - 1 / 27).max() < 0.006  # ~5 standard deviations
    assert np.ptp(p) > 0  # multiplicities of random draws, not a uniform 1/27


# ----------------------------------------------------------------------------- listing

@pytest.mark.parametrize("guesses", [[(1, 1, 2, 2)], [(1, 2, 3, 4), (3, 3, 5, 6)]])
def test_listed_and_contains_equal_enumeration(guesses):
    """After observations: the listed table holds exactly the enumerated survivors, and
    kernel membership over all 1296 codes agrees with them."""
    g = load_game(MASTERMIND)
    secret = (3, 5, 2, 6)
    enum, counted = Belief.prior(g), CountedBelief.prior(g, list_limit=0)
    for guess in guesses:
        event = Event("guess", {"g": guess}, feedback=score(guess, secret))
        enum, counted = apply_event(enum, event), apply_event(counted, event)
    survivors = g.hypotheses.ranks[enum.index]
    assert counted.size == enum.size
    assert np.array_equal(counted.contains(g.hypotheses.ranks), np.isin(g.hypotheses.ranks,
                                                                         survivors))
    listed = counted.listed(limit=10**6)
    assert np.array_equal(listed.game.hypotheses.ranks, survivors)
    expected = enum.marginals()
    for var, dist in listed.marginals().items():
        assert dist == pytest.approx(expected[var], abs=1e-12), var


# ----------------------------------------------------------------------------- evaluation

CASES = [("mastermind", {"pegs": 3, "colours": 3}, "any"),
         ("mastermind", {"pegs": 3, "colours": 3}, "consistent"),
         ("mastermind", {"pegs": 2, "colours": 5}, "consistent"),
         ("higher-lower", {"n": 15}, "any")]


@pytest.mark.parametrize("spec,params,guesses", CASES)
@pytest.mark.parametrize("strategy", ["minimax", "entropy", "expected-size", "most-parts"])
def test_counted_evaluation_equals_enumeration(spec, params, guesses, strategy):
    """Every partition by model counting (nothing listed: list_limit 0 and an enumeration
    budget of one hypothesis), tie-break K by kernel membership: the same game tree."""
    path = ROOT / "specs" / f"{spec}.yaml"
    enum = load_game(path, params)
    counted = load_game(path, params, Budget(max_hypotheses=1))
    a = evaluate_strategy(enum, make_strategy(strategy, Candidates(enum, guesses)), spec)
    root = CountedBelief.prior(counted, "sdd", list_limit=0)
    b = evaluate_strategy(counted, make_strategy(strategy, Candidates(counted, guesses)), spec,
                          secrets=root.size, root=root)
    assert (b.secrets, b.total, b.worst, b.histogram, b.first_query) == \
        (a.secrets, a.total, a.worst, a.histogram, a.first_query)


def test_counted_scoring_refuses_too_many_queries():
    g = load_game(MASTERMIND, {"pegs": 4, "colours": 8}, Budget(max_hypotheses=1))
    root = CountedBelief.prior(g, list_limit=0)
    with pytest.raises(Exception, match="ises-sampled"):
        make_strategy("entropy", Candidates(g)).choose(root)


# ----------------------------------------------------------------------------- commands

def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_solve_mm68_on_sdd_recounted_by_enumeration():
    """ises-sampled on MM(6,8) from the diagram: solved, and every step's count equals the
    enumerated backend's after the same feedback."""
    data = run("solve", str(MASTERMIND), "--set", "pegs=6", "--set", "colours=8",
               "--backend", "sdd", "--strategy", "ises-sampled", "--secret", "code=435261")
    assert data["backend"] == "sdd" and data["solved"]
    assert data["steps"][-1]["feedback"] == {"black": 6, "white": 0}
    g = load_game(MASTERMIND, {"pegs": 6, "colours": 8})
    belief = Belief.prior(g)
    for step in data["steps"]:
        guess = tuple(step["args"]["g"])
        assert step["feedback"] == score(guess, (4, 3, 5, 2, 6, 1))
        belief = apply_event(belief, Event("guess", {"g": guess}, feedback=step["feedback"]))
        assert step["remaining"] == belief.size


@pytest.mark.slow
def test_evaluate_mm68_sample_on_sdd():
    data = run("evaluate", str(MASTERMIND), "--set", "pegs=6", "--set", "colours=8",
               "--backend", "sdd", "--secrets", "3", "--strategy", "ises-sampled")
    assert data["backend"] == "sdd" and data["secrets"] == 3
    assert sum(data["histogram"].values()) == 3 and 4 <= data["worst"] <= 10


def test_evaluate_all_secrets_needs_a_sample_on_sdd():
    """ises-sampled keeps the 262,144 codes counted (an exhaustive strategy would list them
    within the enumeration budget and evaluate them all, as enum does)."""
    result = CliRunner().invoke(cli, ["evaluate", str(MASTERMIND), "--set", "pegs=6",
                                      "--set", "colours=8", "--backend", "sdd",
                                      "--strategy", "ises-sampled"])
    assert result.exit_code == 1 and "--secrets" in str(result.exception)


def test_play_on_sdd_reaches_the_code():
    """The play loop on a counted belief, typed feedback scored here."""
    g = load_game(MASTERMIND, {"pegs": 6, "colours": 8})
    secret = (8, 1, 1, 4, 7, 2)
    strategy = make_strategy("ises-sampled", Candidates(g), seed=2)
    console = Console(file=open("/dev/null", "w"), width=200)  # noqa: SIM115
    state = Play(g, strategy, Session.open(None, g, "mm"), console, as_json=True,
                 root=CountedBelief.prior(g))

    def read(prompt: str) -> str:
        if prompt.startswith("solved"):  # the game stays open for undo: leave it
            return "quit"
        guess = tuple(int(x) for x in prompt.split("[")[1].split("]")[0].split(","))
        f = score(guess, secret)
        return f"{f['black']} {f['white']}"

    assert state.run(read) == 0 and state.solved
    assert state.events[-1].feedback == {"black": 6, "white": 0}
    assert isinstance(state.beliefs[0], CountedBelief) and state.beliefs[-1].size == 1


# ----------------------------------------------------------------------------- weighted priors

def weighted_specs():
    from tests.test_belief import NOISY
    from tests.test_strategies import WEIGHTED

    return {"weighted-guess": WEIGHTED, "noisy-oracle": NOISY}


@pytest.mark.parametrize("name", ["weighted-guess", "noisy-oracle"])
def test_weighted_prior_counted_equals_enumerated(name):
    """A {weight: ...} prior lowered into weight classes: hypotheses, entropy and marginals
    from the diagram equal the enumerated prior's."""
    from sleuth.compiler.game import load_game_text

    g = load_game_text(weighted_specs()[name], f"{name}.yaml")
    enum, counted = Belief.prior(g), CountedBelief.prior(g)
    assert not counted.uniform and counted.size == enum.size
    assert counted.entropy_bits() == pytest.approx(enum.entropy_bits(), abs=1e-12)
    expected = enum.marginals()
    for var, dist in counted.marginals().items():
        assert dist == pytest.approx(expected[var], abs=1e-12), var
    draws = Counter(counted.sample_ranks(30_000, seed=4))
    p = dict(zip(g.hypotheses.ranks[enum.index].tolist(), enum.probabilities(), strict=True))
    assert set(draws) == set(p)
    for rank, n in draws.items():  # within 5 standard deviations of the prior
        sd = (30_000 * p[rank] * (1 - p[rank])) ** 0.5
        assert abs(n - 30_000 * p[rank]) < 5 * sd + 1, rank


@pytest.mark.parametrize("strategy", ["minimax", "entropy", "expected-size", "most-parts"])
def test_weighted_counted_evaluation_equals_enumeration(strategy):
    """Probability masses by weighted model counts, nothing listed: the same tree and the
    same prior-weighted expected length."""
    from sleuth.compiler.game import load_game_text

    text = weighted_specs()["weighted-guess"]
    enum = load_game_text(text, "w.yaml")
    counted = load_game_text(text, "w.yaml", budget=Budget(max_hypotheses=1))
    a = evaluate_strategy(enum, make_strategy(strategy, Candidates(enum)), "w")
    root = CountedBelief.prior(counted, list_limit=0)
    b = evaluate_strategy(counted, make_strategy(strategy, Candidates(counted)), "w",
                          secrets=root.size, root=root)
    assert (b.total, b.histogram, b.first_query) == (a.total, a.histogram, a.first_query)
    assert b.to_json()["expected"] == pytest.approx(a.to_json()["expected"], abs=1e-12)


@pytest.mark.slow
def test_mm610_after_three_guesses_every_backend_agrees():
    """10^6 codes, three seeded random guesses: the diagram's count and marginals equal the
    enumerated backend's, and Ganak's projected count of the clauses equals both."""
    rng = np.random.default_rng(11)
    secret = tuple(int(x) for x in rng.integers(1, 11, 6))
    g = load_game(MASTERMIND, {"pegs": 6, "colours": 10})
    enum, sdd = Belief.prior(g), CountedBelief.prior(g)
    for _ in range(3):
        guess = tuple(int(x) for x in rng.integers(1, 11, 6))
        event = Event("guess", {"g": guess}, feedback=score(guess, secret))
        enum, sdd = apply_event(enum, event), apply_event(sdd, event)
    cnf = CountedBelief(g, "cnf", sdd.facts)
    assert sdd.size == enum.size == cnf.size > 1
    expected = enum.marginals()
    for var, dist in sdd.marginals().items():
        assert dist == pytest.approx(expected[var], abs=1e-12), var

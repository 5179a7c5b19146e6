"""The boolean lowering and its decision diagrams against enumeration.

Two independent paths: the lowering's formulas, evaluated under the one-hot
assignment of a hypothesis, must agree with the reference interpreter on
that hypothesis; and diagram model counts after random observations must
equal the enumerated backend's counts and marginals.
"""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.compiler.boolean import Lowering, Sym
from sleuth.compiler.sdd import DiagramBuilder, count
from sleuth.solver.infoset.backends import (
    BELIEF_BACKENDS,
    DEFAULT_COUNTER,
    ENUMERATED,
    prior_belief,
)
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.interfaces.cli import cli
from tests.conftest import ROOT, counts_agree, game

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True)
LOWERABLE = ["mastermind", "black-peg-mastermind", "bulls-and-cows", "counterfeit-coin",
             "higher-lower", "hotter-colder", "treasure-hunt", "inkognito"]


@cache
def legal_ranks(name: str, query: str, overrides: tuple = ()) -> np.ndarray:
    return np.concatenate(list(game(name, **dict(overrides)).space(query).legal_ranks()))[:3000]


def assignment(low: Lowering, hypothesis: dict) -> set[int]:
    """The true variables of a hypothesis's one-hot encoding."""
    true = set()

    def walk(encoded, value):
        if isinstance(encoded, Sym):
            true.add(low.circuit.nodes[encoded[value]][1])
        elif isinstance(encoded, tuple):
            for e, v in zip(encoded, value, strict=True):
                walk(e, v)
        else:
            for k in encoded:
                walk(encoded[k], value[k])

    for name, encoded in low.secret.items():
        walk(encoded, hypothesis[name])
    return true


@pytest.mark.parametrize("name", LOWERABLE)
@SETTINGS
@given(data=st.data())
def test_formulas_agree_with_the_interpreter(name, data):
    g = game(name)
    low = Lowering(g.model)
    h = g.hypotheses.value(data.draw(st.integers(0, g.hypotheses.size - 1)))
    true = assignment(low, h)
    value = lambda f: low.circuit.value(f, lambda v: v in true)  # noqa: E731
    assert all(value(f) for f in low.one_hot())
    assert all(value(f) for f in low.constraints())
    for action in g.model.queries:
        if action.feedback is None:
            continue
        space = g.space(action.name)
        legal = legal_ranks(name, action.name)
        args = space.value(int(data.draw(st.sampled_from(list(legal)))))
        expected = g.reference_feedback(action.name, args, h)
        outcomes = low.feedback_values(action.name, args)
        holding = [k for k, f in outcomes.items() if value(f)]
        assert holding == [tuple(expected.values())]
        assert value(low.feedback_fact(action.name, args, expected))


@pytest.mark.parametrize("name, overrides", [("mastermind", {}), ("bulls-and-cows", {}),
                                             ("counterfeit-coin", {}),
                                             ("mastermind", {"pegs": 5, "colours": 3})])
@SETTINGS
@given(data=st.data())
def test_diagram_counts_equal_enumeration(name, overrides, data):
    g = game(name, **overrides)
    low = Lowering(g.model)
    build = DiagramBuilder(low)
    diagram = build(low.circuit.conj(*low.one_hot(), *low.constraints()))
    belief = Belief.prior(g)
    assert count(diagram) == belief.size == g.hypotheses.size
    secret = g.hypotheses.value(data.draw(st.integers(0, g.hypotheses.size - 1)))
    query = g.model.queries[0]
    space = g.space(query.name)
    legal = legal_ranks(name, query.name, tuple(sorted(overrides.items())))
    for _ in range(data.draw(st.integers(1, 3))):
        args = space.value(int(data.draw(st.sampled_from(list(legal)))))
        feedback = g.reference_feedback(query.name, args, secret)
        belief = apply_event(belief, Event(query.name, args, feedback=feedback))
        diagram = build.conjoin(diagram, build(low.feedback_fact(query.name, args, feedback)))
        assert count(diagram) == belief.size
    marginals = belief.marginals()
    for group in low.groups:
        for value, var in zip(group.values, group.literals, strict=True):
            p = count(build.conjoin(diagram, build.literal(var))) / count(diagram)
            assert p == pytest.approx(marginals[group.name][value], abs=1e-12)


# ----------------------------------------------------------------------------- export

def ganak_count_of_dimacs(text: str) -> int:
    """Count a DIMACS file with its 'c p show' projection, read here independently."""
    from pyganak import Counter

    counter = Counter()
    show: list[int] = []
    for line in text.splitlines():
        if line.startswith("c p show"):
            show = [int(x) for x in line.split()[3:-1]]
        elif line.startswith("p cnf"):
            counter.new_vars(int(line.split()[2]))
        elif line and not line.startswith("c"):
            counter.add_clause([int(x) for x in line.split()[:-1]])
    counter.set_sampling_set(show)
    return counter.count()


@pytest.mark.parametrize("spec, observations", [
    ("mastermind", "- {query: guess, args: {g: 1122}, feedback: {black: 1, white: 1}}\n"
                   "- {query: guess, args: {g: 1344}, feedback: {black: 0, white: 2}}\n"),
    ("counterfeit-coin", "- {query: weigh, args: {left: [1, 2, 3], right: [4, 5, 6]}, "
                         "feedback: balanced}\n"),
    ("bulls-and-cows", ""),
])
@pytest.mark.slow
def test_dimacs_export_counted_by_ganak_equals_sleuth(tmp_path, spec, observations):
    obs = tmp_path / "obs.yaml"
    obs.write_text(observations or "[]\n")
    path = str(ROOT / "specs" / f"{spec}.yaml")
    runner = CliRunner()
    dimacs = runner.invoke(cli, ["compile", path, "--to", "dimacs", "--observations", str(obs)],
                           catch_exceptions=False).output
    belief = json.loads(runner.invoke(cli, ["belief", path, "--observations", str(obs),
                                            "--json"], catch_exceptions=False).output)
    compiled = json.loads(runner.invoke(cli, ["compile", path, "--to", "json",
                                              "--observations", str(obs)],
                                        catch_exceptions=False).output)
    conditioned = json.loads(runner.invoke(cli, ["info", path, "--observations", str(obs),
                                                 "--backend", "sdd", "--json"],
                                           catch_exceptions=False).output)
    assert ganak_count_of_dimacs(dimacs) == conditioned["hypotheses"] == \
        belief["hypotheses"] == compiled["hypotheses"]
    info = json.loads(runner.invoke(cli, ["info", path, "--backend", "cnf", "--json"],
                                    catch_exceptions=False).output)
    assert info["hypotheses"] == game(spec).hypotheses.size
    assert info["backend_size"]["counted_by"] == "ganak"


def test_backend_is_chosen_by_size():
    runner = CliRunner()
    path = str(ROOT / "specs" / "mastermind.yaml")
    big = json.loads(runner.invoke(cli, ["info", path, "--set", "pegs=8", "--set", "colours=10",
                                         "--json"], catch_exceptions=False).output)
    assert big["backend"] == "sdd" and big["hypotheses"] == 10**8
    small = json.loads(runner.invoke(cli, ["info", path, "--json"]).output)
    assert small["backend"] == "enum"
    forced = json.loads(runner.invoke(cli, ["info", path, "--json", "--max-hypotheses", "100"])
                        .output)
    assert forced["backend"] == "sdd" and forced["hypotheses"] == 1296


# Every backend on a small size of every spec with deterministic feedback: small enough
# that each Ganak and ApproxMC call is quick, large enough to have structure (constraints,
# sets of coins, all-different digits, a grid).
SMALL = {"mastermind": {"pegs": 3, "colours": 4}, "black-peg-mastermind": {"pegs": 3, "colours": 3},
         "bulls-and-cows": {"digits": 3}, "counterfeit-coin": {"coins": 6},
         "higher-lower": {"n": 20}, "hotter-colder": {"w": 5, "h": 4}, "treasure-hunt": {"n": 6}}


@pytest.mark.parametrize("name", SMALL)
@settings(max_examples=3, deadline=None, derandomize=True)
@given(data=st.data())
def test_every_backend_agrees(name, data):
    """Counts, marginals and listings after random observations on every registered
    backend: enum, sdd (weighted model count marginals), cnf (Ganak, projected), and
    approx (ApproxMC within its stated tolerance; its listing is exact)."""
    g = game(name, **SMALL[name])
    secret = g.hypotheses.value(data.draw(st.integers(0, g.hypotheses.size - 1)))
    beliefs = [prior_belief(g, b) for b in BELIEF_BACKENDS]
    query = g.model.queries[0]
    for _ in range(data.draw(st.integers(0, 2))):
        args = g.space(query.name).value(int(data.draw(st.sampled_from(
            list(legal_ranks(name, query.name, tuple(SMALL[name].items())))))))
        event = Event(query.name, args, feedback=g.reference_feedback(query.name, args, secret))
        beliefs = [apply_event(b, event) for b in beliefs]
    by_name = dict(zip(BELIEF_BACKENDS, beliefs, strict=True))
    enum = by_name.pop(ENUMERATED)
    expected = enum.marginals()
    for backend, counted in by_name.items():
        counter = counted.counter
        if counter.exact:
            assert counted.size == enum.size, backend
        else:
            assert counts_agree(backend, counted.size, enum.size), backend
        listed = counted.listing(limit=max(enum.size, counted.size))
        assert np.array_equal(listed.game.hypotheses.ranks, g.hypotheses.ranks[enum.index]), \
            backend
        if backend == DEFAULT_COUNTER:  # every marginal from one weighted count pass
            for var, dist in counted.marginals().items():
                for value, p in dist.items():
                    assert p == pytest.approx(expected[var][value], abs=1e-12), (backend, var)
        elif counter.exact:  # one count per value: the first group's
            first = counted.space.lowering.groups[0]
            for value, node in list(zip(first.values, first.nodes, strict=True))[:8]:
                assert counted.count_with(node) / counted.size == pytest.approx(
                    expected[first.name][value], abs=1e-12), (backend, first.name, value)

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
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.interfaces.cli import cli
from tests.conftest import ROOT, game

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True)
LOWERABLE = ["mastermind", "black-peg-mastermind", "bulls-and-cows", "counterfeit-coin",
             "higher-lower", "treasure-hunt", "inkognito"]


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


DETERMINISTIC = ["mastermind", "black-peg-mastermind", "bulls-and-cows", "counterfeit-coin",
                 "higher-lower", "treasure-hunt"]


@pytest.mark.parametrize("name", DETERMINISTIC)
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_every_backend_agrees(name, data):
    """Counts and marginals after random observations: enum, sdd (weighted model count
    marginals) and cnf (Ganak, projected) on every enumerable spec with feedback."""
    g = game(name)
    secret = g.hypotheses.value(data.draw(st.integers(0, g.hypotheses.size - 1)))
    beliefs = [Belief.prior(g), CountedBelief.prior(g, "sdd")]
    query = g.model.queries[0]
    for _ in range(data.draw(st.integers(0, 2))):
        args = g.space(query.name).value(int(data.draw(st.sampled_from(
            list(legal_ranks(name, query.name))))))
        event = Event(query.name, args, feedback=g.reference_feedback(query.name, args, secret))
        beliefs = [apply_event(b, event) for b in beliefs]
    enum, sdd = beliefs
    cnf = CountedBelief(g, "cnf", sdd.facts)
    assert enum.size == sdd.size == cnf.size
    expected = enum.marginals()
    for var, dist in sdd.marginals().items():
        for value, p in dist.items():
            assert p == pytest.approx(expected[var][value], abs=1e-12), (var, value)
    first = sdd.space.lowering.groups[0]  # cnf marginals: one Ganak count per value
    if len(first.values) <= 12:
        for value, node in zip(first.values, first.nodes, strict=True):
            assert cnf.count_with(node) / cnf.size == pytest.approx(
                expected[first.name][value], abs=1e-12), (first.name, value)
    listed = sdd.listed(limit=enum.size)  # the diagram's models, listed
    assert np.array_equal(listed.game.hypotheses.ranks, g.hypotheses.ranks[enum.index])

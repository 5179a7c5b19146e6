"""Vectorised kernels vs the reference interpreter, on every shipped spec.

Two independent paths evaluate the same typed IR: `compiler.vectorise`
(numpy, whole blocks, caching, mixed-radix codes) and `compiler.interpret`
(plain Python, one point at a time). Property tests draw random hypotheses
and random legal queries (and, for responses, random answers) and demand
identical values. Mastermind is also checked against a scorer written here.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.compiler import ir
from sleuth.compiler.check import CheckedAction
from sleuth.compiler.domains import domain_values, from_python, to_python
from sleuth.compiler.enumerate import shaped
from sleuth.compiler.interpret import evaluate
from sleuth.compiler.vectorise import Ctx
from tests.conftest import SPECS, enumerable, game, sampled_hypotheses

SPEC_NAMES = [p.stem for p in SPECS]
HEAVY = {"clue", "turing-machine"}  # seconds per example: the slow tier
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)


@cache
def legal_ranks(name: str, query: str) -> np.ndarray:
    return np.concatenate(list(game(name).space(query).legal_ranks()))


def feedback_queries(name: str) -> list[str]:
    return [a.name for a in game(name).actions() if a.feedback is not None]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in HEAVY
                                  else n for n in SPEC_NAMES])
@SETTINGS
@given(data=st.data())
def test_feedback_kernel_equals_interpreter(name, data):
    g = game(name)
    if not enumerable(name):  # hypotheses sampled from the decision diagram
        for query in feedback_queries(name):
            legal = legal_ranks(name, query)
            args = g.space(query).value(int(data.draw(st.sampled_from(list(legal[:5000])))))
            h = data.draw(st.sampled_from(sampled_hypotheses(name)))
            assert g.kernel_feedback(query, args, h) == g.reference_feedback(query, args, h)
        return
    for query in feedback_queries(name):
        legal = legal_ranks(name, query)
        rows = data.draw(st.lists(st.sampled_from(list(legal[:5000])), min_size=1, max_size=6))
        hyps = data.draw(st.lists(st.integers(0, g.hypotheses.size - 1), min_size=1,
                                  max_size=6))
        codes = g.feedback_matrix(query, np.array(rows), np.array(hyps))
        coder = g.coder(query)
        for i, r in enumerate(rows):
            args = g.space(query).value(r)
            for j, h in enumerate(hyps):
                expected = g.reference_feedback(query, args, g.hypotheses.value(h))
                assert coder.decode(codes[i, j]) == expected
                assert coder.encode(expected) == codes[i, j]


def kernel_point(g, node: ir.Node, variables: dict[str, Any], values: dict[str, Any]) -> Any:
    """One point evaluated through the vectorised kernel (1 x 1 block)."""
    strings = g.model.strings
    env = {}
    for name, t in variables.items():
        encoded = from_python(t, values[name], strings)
        env[name] = shaped(_column(encoded), "hyp")
    out = g.compiler(node)(Ctx(env))
    return to_python(node.type, _first(out), 0, strings)


def _column(v):
    return tuple(_column(x) for x in v) if isinstance(v, tuple) else np.asarray([v])


def _first(v):
    return tuple(_first(x) for x in v) if isinstance(v, tuple) else np.asarray(v).reshape(-1)


def action_expressions(action: CheckedAction) -> list[ir.Node]:
    out = list(action.legal)
    if action.response is not None:
        r = action.response
        out += list(r.legal) + [e for e in (r.valid, r.likelihood_expr) if e is not None]
    return out


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in HEAVY
                                  else n for n in SPEC_NAMES])
@SETTINGS
@given(data=st.data())
def test_every_expression_kernel_equals_interpreter(name, data):
    """legal, constraints, and response legal/valid/likelihood, point by point."""
    g = game(name)
    model = g.model
    secret_types = {v.name: v.domain.type for v in model.secret}
    h = (g.hypotheses.value(data.draw(st.integers(0, g.hypotheses.size - 1)))
         if enumerable(name) else data.draw(st.sampled_from(sampled_hypotheses(name))))
    for c in model.constraints:
        assert kernel_point(g, c, secret_types, h) == evaluate(c, h) is True
    for action in g.actions():
        space = g.space(action.name)
        args = space.value(data.draw(st.integers(0, space.size - 1)))
        variables = {**secret_types, **{a.name: a.domain.type for a in action.args}}
        values = {**h, **args}
        if action.response is not None:
            answer = action.response.answer
            variables["answer"] = answer.domain.type
            values["answer"] = (
                data.draw(st.sampled_from(answer_values(name, action.name)))
                if answer.domain.type.finite else
                continuous_value(answer.domain, np.random.default_rng(data.draw(st.integers(
                    0, 2**32 - 1)))))
        for node in action_expressions(action):
            got, expected = kernel_point(g, node, variables, values), evaluate(node, values)
            assert got == expected or (isinstance(expected, float) and math.isclose(
                got, expected, rel_tol=1e-9, abs_tol=1e-300)), node.text


def continuous_value(d, rng: np.random.Generator) -> Any:
    """A value of a domain with Real parts: each sequence of reals a point of the simplex
    (what a density over probability vectors is evaluated at)."""
    if d.kind == "record":
        return {n: continuous_value(f, rng) for n, f in d.fields}
    if d.kind == "seq" and not d.elem.type.finite:
        return tuple(float(x) for x in rng.dirichlet(np.ones(d.length)))
    if d.kind == "seq":
        return tuple(continuous_value(d.elem, rng) for _ in range(d.length))
    if d.type.finite:
        values = domain_values(d)
        return values[int(rng.integers(len(values)))]
    return float(rng.random())


@cache
def answer_values(name: str, action: str) -> list[Any]:
    return domain_values(game(name).model.action(action).response.answer.domain)


# ----------------------------------------------------------------------------- Mastermind

def score(guess: tuple[int, ...], code: tuple[int, ...]) -> tuple[int, int]:
    """Black and white pegs, the textbook way."""
    black = sum(a == b for a, b in zip(guess, code, strict=True))
    common = sum((Counter(guess) & Counter(code)).values())
    return black, common - black


@pytest.mark.parametrize("pegs, colours", [(4, 6), (5, 8), (3, 3), (2, 9)])
@SETTINGS
@given(data=st.data())
def test_mastermind_kernel_equals_hand_written_scorer(pegs, colours, data):
    g = game("mastermind", pegs=pegs, colours=colours)
    n = g.hypotheses.size
    assert n == colours ** pegs
    rows = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=8))
    hyps = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=8))
    codes = g.feedback_matrix("guess", np.array(rows), np.array(hyps))
    coder = g.coder("guess")
    for i, r in enumerate(rows):
        guess = g.space("guess").value(r)["g"]
        for j, h in enumerate(hyps):
            fb = coder.decode(codes[i, j])
            assert (fb["black"], fb["white"]) == score(guess, g.hypotheses.value(h)["code"])


def test_mastermind_full_matrix_equals_scorer():
    g = game("mastermind")
    matrix = g.feedback_matrix("guess", np.arange(1296))
    coder = g.coder("guess")
    codes = [g.hypotheses.value(h)["code"] for h in range(1296)]
    decoded = {c: tuple(coder.decode(c).values()) for c in np.unique(matrix)}
    for i in range(0, 1296, 37):
        assert [decoded[c] for c in matrix[i]] == [score(codes[i], code) for code in codes]


def test_hypotheses_are_in_canonical_order():
    g = game("bulls-and-cows")
    first = [g.hypotheses.value(i)["code"] for i in range(3)]
    assert first == [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 2, 5)]
    assert g.hypotheses.value(g.hypotheses.size - 1)["code"] == (9, 8, 7, 6)


def test_query_ranks_round_trip():
    g = game("counterfeit-coin")
    space = g.space("weigh")
    for r in [0, 1, 2508, 2509, 123456, space.size - 1]:
        assert space.rank(space.value(r)) == r
    first = space.value(0)
    assert first == {"left": frozenset({1}), "right": frozenset({1})}


def test_true_at_is_numpys_flatnonzero():
    from sleuth.solver.infoset.outcome_kernels import true_at

    rng = np.random.default_rng(5)
    for n, p in ((0, 0.5), (1, 1.0), (1, 0.0), (50, 0.0), (50, 1.0), (1000, 0.3)):
        mask = rng.random(n) < p
        got = true_at(mask)
        assert got.dtype == np.int64 and np.array_equal(got, np.flatnonzero(mask))

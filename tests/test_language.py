"""Every construct of the language, through both evaluators.

A synthetic spec uses each domain kind, defs, a data table, a prior, queries
with feedback, responses with each likelihood form, and an observation. Every
typed expression in it is evaluated at random points by the vectorised
kernel and by the reference interpreter, which must agree. Points are drawn
from the full argument domains (not only legal ones) to reach more branches.
"""

from __future__ import annotations

import itertools
import math
import textwrap
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.compiler import ir
from sleuth.compiler.domains import domain_values, from_python, to_python
from sleuth.compiler.enumerate import shaped
from sleuth.compiler.errors import EvaluationError
from sleuth.compiler.game import load_game
from sleuth.compiler.interpret import evaluate
from sleuth.compiler.vectorise import Ctx

SPEC = textwrap.dedent("""\
    game: Features
    params: {n: 4, scale: 2.5, name: hi, flag: true}
    domains:
      Small: {range: "0..n-1"}
      Kind: {enum: [red, green, blue]}
      Word: {from: words.txt}
      Pair: {record: {p: Small, q: Bool}}
      Bag: {set: Small, size: "1..2"}
    data:
      score: {file: score.csv, index: [Kind, Small]}
    secret:
      a: Small
      k: Kind
      s: Bag
      r: Pair
      w: Word
      constraints: ["a != r.p or r.q", "size(s) >= 1"]
    prior: {weight: "1 + a + score[k][a] + (if r.q then 2 else 0)"}
    defs:
      sq(x): "x * x"
      dist(x, y): "abs(x - y)"
      near(x): "dist(x, a) <= 1"
      twice(x): "sq(x) + sq(x) - x * x"
    queries:
      probe:
        args: {x: Small, t: {set: Small}, c: Kind, v: {seq: Small, len: 3},
               mb: {multiset: Kind, size: 2}}
        legal: ["size(t) <= 3"]
        feedback:
          hit: "a == x"
          side: 'if a < x then "left" else if a > x then "right" else "here"'
          common: "size(intersection(s, t))"
          either: "size(union(s, t)) - size(t)"
          inside: "count(e in s for e in t)"
          firstin: "first(e for e in t if e in s, -1)"
          lowest: "min(e for e in s if e >= x, n)"
          highest: "max(v[i] for i in 0..2 if v[i] != a, -1)"
          span: "sum(j for j in a..x)"
          colours: "count(kk == k for kk in Kind)"
          arith: "(a * 3 + x) // 2 - (a - x) % 3 + dist(a, x) ** 2 + twice(x)"
          same: "(a, k) == (x, c) or v == [a, a, a]"
          nested: "count(i < j for i in s for j in t if i != j)"
          logic: "not (near(x) and k != c) or exists(v[i] == a for i in 0..2)"
          all: "forall(e in t for e in s) and alldifferent(v)"
          pick: "v[a] + v[x] * int(r.q)"
          word: "w == fire or w in [ice, mud]"
          tab: "score[c][x] - score[k][a]"
          rangein: "x in a..a+1 and x not in 3..n"
          kcode: "if k == red then c else green"
          counted: "count(v, a) + len(v)"
          flags: "flag and r.q"
          name: "name == 'hi'"
          onehots: "sum(onehot(k, Kind)) + onehot(x, Small)[a]"
          pw: "(x + 1) ** 2 - abs(-3)"
          bag: "mb[k] + factorial(a) + count(mb[kk] > 0 for kk in Kind)"
          lg: "lgamma(float(x) + 0.5) - lgamma(float(mb[c] + 1)) > 0.25"
    observations:
      told:
        args: {c: Kind}
        response:
          answer: {record: {kk: Kind, m: Small}}
          legal: "kk != c or m > 0"
          valid: "kk == k or m == a"
          likelihood: {weight: "1 + m * sqrt(float(a + 1)) + (if kk == k then scale else 0.5)"}
      claim:
        args: {c: Kind}
        response:
          answer: {seq: Real, len: 3}
          likelihood:
            density: >-
              dirichlet_pdf(answer, [1.0 + float(k == red), 2, 1.5]) * exp(-a / 4)
              + log(1 + a) / 2
""")


@pytest.fixture(scope="module")
def features(tmp_path_factory):
    root = tmp_path_factory.mktemp("features")
    (root / "words.txt").write_text("fire\nice\n\nmud\nsand\n")
    rows = [f"{k},{i},{(i * 3 + j) % 5}" for j, k in enumerate(["red", "green", "blue"])
            for i in range(4)]
    (root / "score.csv").write_text("# kind,small,score\n" + "\n".join(rows) + "\n")
    (root / "features.yaml").write_text(SPEC)
    return load_game(root / "features.yaml")


def test_features_spec_loads(features):
    m = features.model
    assert [v.name for v in m.secret] == ["a", "k", "s", "r", "w"]
    assert len(m.queries[0].feedback) == 27
    n = features.hypotheses.size
    brute = 0
    for a in range(4):
        for s in [frozenset({i}) for i in range(4)] + [frozenset({i, j}) for i in range(4)
                                                       for j in range(i + 1, 4)]:
            for p in range(4):
                for q in (False, True):
                    brute += (a != p or q) and len(s) >= 1
    assert n == brute * 3 * 4  # Kind and Word are unconstrained
    assert features.prior.sum() == pytest.approx(1.0)


@cache
def expressions(game) -> list[tuple[str, ir.Node]]:
    m = game.model
    out = [("constraint", c) for c in m.constraints] + [("prior", m.prior)]
    for a in m.queries + m.observations:
        out += [(a.name, c) for c in a.legal]
        out += [(a.name, node) for _, _, node in a.feedback or []]
        if a.response is not None:
            r = a.response
            out += [(a.name, e) for e in [*r.legal, r.valid, r.likelihood_expr] if e is not None]
    return out


def point_kernel(game, node: ir.Node, types: dict[str, Any], values: dict[str, Any]) -> Any:
    strings = game.model.strings
    env = {}
    for name, t in types.items():
        env[name] = shaped(_column(from_python(t, values[name], strings)), "row")
    return to_python(node.type, _first(game.compiler(node)(Ctx(env))), 0, strings)


def _column(v):
    return tuple(_column(x) for x in v) if isinstance(v, tuple) else np.asarray([v])


def _first(v):
    return tuple(_first(x) for x in v) if isinstance(v, tuple) else np.asarray(v).reshape(-1)


def same(x: Any, y: Any) -> bool:
    if isinstance(x, float) or isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) or (x == y)
    return x == y


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data())
def test_kernel_equals_interpreter_on_every_construct(features, data):
    g = features
    m = g.model
    types = {v.name: v.domain.type for v in m.secret}
    values = g.hypotheses.value(data.draw(st.integers(0, g.hypotheses.size - 1)))
    for action in m.queries + m.observations:
        for arg in action.args:
            types[arg.name] = arg.domain.type
            values[arg.name] = data.draw(st.sampled_from(domain_values(arg.domain)))
    checked = 0
    for where, node in expressions(g):
        local_types, local_values = dict(types), dict(values)
        action = next((a for a in m.queries + m.observations if a.name == where), None)
        if action is not None and action.response is not None:
            answer = action.response.answer
            local_types["answer"] = answer.domain.type
            if answer.domain.type.finite:
                local_values["answer"] = data.draw(st.sampled_from(domain_values(answer.domain)))
            else:
                cut = sorted(data.draw(st.lists(st.floats(0, 1), min_size=2, max_size=2)))
                local_values["answer"] = (cut[0], cut[1] - cut[0], 1 - cut[1])
        try:
            if action is not None and action.feedback is not None:
                for _, uid, comp in action.feedback:  # earlier components, as locals
                    if comp is node:
                        break
                    local_values[uid] = evaluate(comp, local_values)
                    local_types[uid] = comp.type
            expected = evaluate(node, local_values)
        except EvaluationError:
            continue
        got = point_kernel(g, node, local_types, local_values)
        assert same(got, expected), (node.text, got, expected)
        checked += 1
    assert checked >= 15


def test_feedback_matrix_equals_interpreter_on_features(features):
    g = features
    space = g.space("probe")
    ranks = np.array([r for r in range(0, space.size, 997)])
    ranks = ranks[space.legal_mask(ranks)]
    hyps = np.arange(0, g.hypotheses.size, 41)
    codes = g.feedback_matrix("probe", ranks, hyps)
    coder = g.coder("probe")
    compared = 0
    for i, r in enumerate(ranks):
        args = space.value(r)
        for j, h in enumerate(hyps):
            try:
                expected = g.reference_feedback("probe", args, g.hypotheses.value(h))
            except EvaluationError:
                continue
            assert coder.decode(codes[i, j]) == expected
            compared += 1
    assert compared >= codes.size // 2 and compared >= 1000  # the rest: evaluation errors


def test_interpreter_raises_evaluation_errors():
    from sleuth.compiler.game import load_game_text

    g = load_game_text(textwrap.dedent("""\
        game: T
        domains: {D: {range: "0..2"}}
        secret: {a: D}
        queries:
          q:
            args: {x: D}
            feedback:
              d: "10 // x"
              m: "min(i for i in 0..a if i > 5)"
        """), "t.yaml")
    with pytest.raises(EvaluationError, match="division by zero") as err:
        g.reference_feedback("q", {"x": 0}, {"a": 1})
    assert (err.value.loc.line, err.value.loc.col) == (8, 11)
    with pytest.raises(EvaluationError, match="min of nothing"):
        g.reference_feedback("q", {"x": 1}, {"a": 1})


# ----------------------------------------------------------------------------- indexed sequences

INDEXED = """\
game: Indexed
params: {first: a}
domains:
  Card: {enum: [a, b, c]}
  Holder: {enum: [env, p1, p2]}
secret:
  owner: {seq: Holder, index: Card}
  constraints:
    - "count(owner[x] == env for x in Card) == 1"
    - "owner[first] != p2"
queries:
  ask:
    args: {x: Card}
    feedback: {who: "owner[x]", pos: "int(x)"}
"""


def test_sequences_indexed_by_an_enum():
    from sleuth.compiler.game import load_game_text

    g = load_game_text(INDEXED, "indexed.yaml")
    assert g.model.secret[0].domain.describe() == "seq of Holder (by Card)"
    for h in range(g.hypotheses.size):
        hyp = g.hypotheses.value(h)
        for x, pos in (("a", 0), ("b", 1), ("c", 2)):
            expected = {"who": hyp["owner"][pos], "pos": pos}
            assert g.reference_feedback("ask", {"x": x}, hyp) == expected
            assert g.kernel_feedback("ask", {"x": x}, hyp) == expected
    assert all(g.hypotheses.value(h)["owner"][0] != "p2" for h in range(g.hypotheses.size))


@pytest.mark.parametrize("bad, message", [
    ('owner[0]', "indexed by Card, not int"),
    ('owner[env]', "indexed by Card, not Holder"),
    ("owner['zz']", "'zz' is not a label of Card"),
])
def test_indexed_sequences_refuse_other_indices(bad, message):
    from sleuth.compiler.errors import SpecError
    from sleuth.compiler.game import load_game_text

    with pytest.raises(SpecError, match=message):
        load_game_text(INDEXED.replace('"owner[x]"', f'"{bad}"'), "indexed.yaml")


# ----------------------------------------------------------------------------- multisets

def test_multisets_are_count_sequences():
    from sleuth.compiler.domains import domain_size, domain_values
    from sleuth.compiler.enumerate import rank_of
    from sleuth.compiler.errors import SpecError
    from sleuth.compiler.game import load_game_text
    from sleuth.compiler.values import coerce

    text = textwrap.dedent("""\
        game: Bag
        domains: {Kind: {enum: [x, y, z]}}
        secret: {bag: {multiset: Kind, size: 3}}
        queries:
          ask:
            args: {k: Kind}
            feedback: "bag[k]"
        """)
    g = load_game_text(text, "bag.yaml")
    d = g.model.secret[0].domain
    brute = sorted({tuple(combo.count(k) for k in "xyz")
                    for combo in itertools.product("xyz", repeat=3)})
    assert domain_size(d) == len(brute) == 10
    assert domain_values(d) == brute
    assert [rank_of(d, v) for v in brute] == list(range(10))
    assert coerce(d, {"x": 2, "z": 1}) == (2, 0, 1) == coerce(d, [2, 0, 1])
    with pytest.raises(ValueError, match="holds 2 elements"):
        coerce(d, {"x": 2})
    for h in range(g.hypotheses.size):
        bag = g.hypotheses.value(h)["bag"]
        assert g.kernel_feedback("ask", {"k": "y"}, g.hypotheses.value(h)) == {"feedback": bag[1]}
    with pytest.raises(SpecError, match="needs 'size'"):
        load_game_text(text.replace(", size: 3", ""), "bag.yaml")
    with pytest.raises(SpecError, match="factorial"):
        load_game_text(text.replace('"bag[k]"', '"factorial(bag[k] - 1)"'), "bag.yaml")

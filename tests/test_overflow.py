"""Kernel == interpreter at extreme constants: no silent wrong answer.

The vectorised kernels compute in fixed-width numpy numbers, the reference
interpreter in Python's. Expressions are generated over a small spec from
operators and constants chosen to reach the edges (2**62, int8/int16/int32
bounds, 1e19, 1e308, ...). For each, the spec either is refused with a clear
error at the expression (its static bounds leave the 64-bit range) or the
kernel's feedback equals the interpreter's at every hypothesis and query --
except where the interpreter itself raises (division by zero, ...), where the
kernel substitutes a harmless value (docs/spec-language.md).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sleuth.compiler import SleuthError, SpecError
from sleuth.compiler.errors import EvaluationError
from sleuth.compiler.game import load_game_text

SPEC = """\
game: Extremes
params: {big: 4611686018427387904}
domains:
  D: {range: "0..5"}
secret:
  x: {range: "2..3"}
  y: {range: "127..128"}
  code: {seq: D, len: 2}
queries:
  q:
    args: {g: D}
    feedback: |-
      if (LEFT) < (RIGHT) then 1 else 0
"""

INTS = [0, 1, 2, 3, 7, 62, 63, 64, 127, 128, 255, 256, 32767, 32768, 65535, 2**31 - 1,
        2**31, 2**32, 2**53 + 1, 10**18, 2**62 - 1, 2**62]
FLOATS = ["0.5", "2.0", "1e19", "-1e19", "9.2e18", "1e308", "1e-300", "4.611686018427388e18"]
LEAVES = st.one_of(
    st.sampled_from(["x", "y", "-y", "g", "code[0]", "code[1]", "big", "-big"]),
    st.sampled_from(INTS).map(str),
    st.sampled_from(FLOATS),
)


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%", "**", "/"]), inner)
    return st.one_of(
        binary.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda e: f"-({e})"),
        st.tuples(st.sampled_from(["abs", "int", "float"]), inner).map(
            lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(inner, inner, inner).map(lambda t: f"(if {t[0]} > g then {t[1]} else {t[2]})"),
        inner.map(lambda e: f"sum({e} for i in 0..1)"),
        inner.map(lambda e: f"prod(code[i] + {e} for i in 0..1)"),
    )


EXPRESSIONS = st.recursive(LEAVES, _extend, max_leaves=6)
PROPERTY = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def kernel_matches_interpreter(left: str, right: str) -> int:
    """Compare every (query, hypothesis) point; the number of points compared."""
    text = SPEC.replace("LEFT", left).replace("RIGHT", right)
    try:
        g = load_game_text(text, "extremes.yaml")
    except SpecError as e:
        assert e.loc is not None and e.loc.file == "extremes.yaml", str(e)
        return 0
    ranks = np.arange(g.space("q").size)
    codes = g.feedback_matrix("q", ranks)
    coder = g.coder("q")
    compared = 0
    for r in ranks:
        args = g.space("q").value(int(r))
        for h in range(g.hypotheses.size):
            try:
                expected = g.reference_feedback("q", args, g.hypotheses.value(h))
            except EvaluationError:
                continue
            got = coder.decode(int(codes[r, h]))
            assert got == expected, (text, args, g.hypotheses.value(h))
            compared += 1
    return compared


@PROPERTY
@given(left=EXPRESSIONS, right=EXPRESSIONS)
@example(left="x ** 64", right="0")
@example(left="code[0]", right="int(1e19)")
def test_kernel_equals_interpreter_at_extreme_constants(left, right):
    kernel_matches_interpreter(left, right)


@pytest.mark.slow
@settings(PROPERTY, max_examples=800)
@given(left=EXPRESSIONS, right=EXPRESSIONS)
def test_kernel_equals_interpreter_at_extreme_constants_long(left, right):
    kernel_matches_interpreter(left, right)


# The two wrong answers the fuzzing found: the kernel said 0 where the interpreter said 1.

@pytest.mark.parametrize(("left", "right", "where"), [
    ("0", "x ** 64", "'x ** 64' can reach"),
    ("code[0]", "int(1e19)", "'int(1e19)' can reach"),
    ("0", "big + big", "'big + big' can reach"),
    ("0", "prod(x for i in 0..63)", "'prod(x for i in 0..63)' can reach"),
])
def test_values_beyond_int64_are_refused_at_the_expression(left, right, where):
    with pytest.raises(SpecError) as e:
        load_game_text(SPEC.replace("LEFT", left).replace("RIGHT", right), "extremes.yaml")
    assert where in e.value.message
    assert e.value.loc.file == "extremes.yaml" and e.value.loc.line == 13
    assert "float(...)" in e.value.hint


@pytest.mark.parametrize(("left", "right"), [
    ("code[0]", "int(1e18 * x)"),        # dynamic: saturates at 2**62 in both
    ("-(1e30)", "int(-1e30 * x)"),
    ("abs(g - 128)", "126"),             # 128 is no int8, the operand's dtype
    ("0 ** big", "1"),                   # an exponent wider than its result
    ("2**62 - 1", "2.0 ** 62"),          # an int meets a float as a double
    ("10.0 ** (400 + g)", "1e308"),      # overflow is infinite, not an exception
    ("(0 - 8.0) ** 0.5", "1"),           # NaN, not a complex number
    ("(big - 1) / 3", "big / 3"),        # int / int in doubles
])
def test_edge_cases_agree(left, right):
    assert kernel_matches_interpreter(left, right) > 0


def test_generator_reaches_both_outcomes():
    """Not a test that cannot fail: the strategy yields refused and compared cases."""
    outcomes = set()
    for left, right in [("x ** 64", "0"), ("x * big", "g"), ("code[0] * 2", "g + 1")]:
        try:
            outcomes.add(kernel_matches_interpreter(left, right) > 0)
        except SleuthError:
            outcomes.add("error")
    assert outcomes == {False, True}

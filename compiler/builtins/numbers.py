"""Numeric builtins: abs, sqrt, exp, log, lgamma, factorial, int, float, dirichlet_pdf."""

from __future__ import annotations

import math
from functools import reduce
from typing import Any

import numpy as np

from sleuth.compiler import ir
from sleuth.compiler.arrays import dtype_of
from sleuth.compiler.builtins.record import Builtin, arity
from sleuth.compiler.errors import EvaluationError, SpecError
from sleuth.compiler.ir import BoolT, EnumT, FloatT, IntT, SeqT, int_type
from sleuth.compiler.typerules import need_number

MAX_FACTORIAL = 20  # 20! is the largest factorial an int64 holds


# -- abs

def _abs_type(typer, node):
    arity(node, 1)
    need_number(node.args[0], "abs()")
    t = node.args[0].type
    if isinstance(t, IntT):
        lo = 0 if t.lo <= 0 <= t.hi else min(abs(t.lo), abs(t.hi))
        return IntT(lo, max(abs(t.lo), abs(t.hi)))
    return FloatT()


def _abs_kernel(compiler, node, args):
    dt = dtype_of(node.type)
    return lambda ctx: np.abs(np.asarray(args[0](ctx), dtype=dt))  # abs(-128) needs int16


ABS = Builtin("abs", _abs_type, lambda node, v: abs(v[0]), _abs_kernel,
              examples=("abs(x - y)", "abs(s[0] - s[1]) + x"))


# -- sqrt, exp, log, lgamma: one float argument, a float result

def _float_type(typer, node):
    arity(node, 1)
    need_number(node.args[0], f"{node.func}()")
    return FloatT()


def _float_kernel(ufunc):
    def kernel(compiler, node, args):
        def unary_float(ctx):
            with np.errstate(all="ignore"):
                return ufunc(np.asarray(args[0](ctx), dtype=np.float64))
        return unary_float
    return kernel


def _sqrt(node, v):
    if v[0] < 0:
        raise EvaluationError(f"square root of a negative number in '{node.text}'", node.loc)
    return math.sqrt(v[0])


def _exp(node, v):
    try:
        return math.exp(v[0])
    except OverflowError:
        return math.inf


def _log(node, v):
    if v[0] < 0:
        raise EvaluationError(f"log of a negative number in '{node.text}'", node.loc)
    return math.log(v[0]) if v[0] > 0 else -math.inf


def _lgamma(node, v):
    if v[0] <= 0 and float(v[0]).is_integer():
        raise EvaluationError(f"lgamma at a pole ({v[0]}) in '{node.text}'", node.loc)
    return math.lgamma(v[0])


_lgamma_each = np.frompyfunc(math.lgamma, 1, 1)


def lgamma_array(x: np.ndarray) -> np.ndarray:
    """log |Γ(x)| elementwise (numpy has no ufunc for it); inf at the poles."""
    poles = (x <= 0) & (x == np.floor(x))
    out = np.asarray(_lgamma_each(np.where(poles, 1.0, x)), dtype=np.float64)  # 0-d too
    return np.where(poles, np.inf, out)


SQRT = Builtin("sqrt", _float_type, _sqrt, _float_kernel(np.sqrt),
               examples=("sqrt(x) > 1.5", "sqrt(x * y) < 2"))
EXP = Builtin("exp", _float_type, _exp, _float_kernel(np.exp),
              examples=("exp(x) < 7.5", "exp(y - x) > 1"))
LOG = Builtin("log", _float_type, _log, _float_kernel(np.log),
              examples=("log(x + 1) > 1", "log(x) < 0.5"))
LGAMMA = Builtin("lgamma", _float_type, _lgamma, _float_kernel(lgamma_array),
                 examples=("lgamma(x + 1) > 0.5", "lgamma(s[0] + 0.5) < 1"))


# -- factorial

def _factorial_type(typer, node):
    arity(node, 1)
    t = node.args[0].type
    if not isinstance(t, IntT) or t.lo < 0 or t.hi > MAX_FACTORIAL:
        raise SpecError(f"factorial() needs an integer in 0..{MAX_FACTORIAL}, not {t.show()}",
                        node.args[0].loc, hint="for larger numbers use exp() of a sum of log()s")
    return IntT(math.factorial(t.lo), math.factorial(t.hi))


def _factorial_kernel(compiler, node, args):
    hi = node.args[0].type.hi  # static bounds: every factorial in the table fits dt
    table = np.array([math.factorial(k) for k in range(hi + 1)], dtype=dtype_of(node.type))
    return lambda ctx: table[np.clip(args[0](ctx), 0, hi)]


FACTORIAL = Builtin("factorial", _factorial_type, lambda node, v: math.factorial(v[0]),
                    _factorial_kernel, examples=("factorial(x) + y", "factorial(s[1])"))


# -- int, float

def _int_type(typer, node):
    arity(node, 1)
    t = node.args[0].type
    if isinstance(t, BoolT):
        return IntT(0, 1)
    if isinstance(t, IntT):
        return t
    if isinstance(t, FloatT):
        arg = node.args[0]
        if isinstance(arg, ir.Const) and math.isfinite(arg.value):  # int(1e19): known now
            return int_type(int(arg.value), int(arg.value))
        return IntT(-ir.INT_LIMIT, ir.INT_LIMIT)  # saturates there: see _int_scalar
    if isinstance(t, EnumT):
        return IntT(0, len(t.values) - 1)  # the label's 0-based position
    raise SpecError(f"int() needs a number, a truth value or an enum value, not {t.show()}",
                    node.args[0].loc)


def _int_scalar(node, v):
    t = node.args[0].type
    if isinstance(t, FloatT):  # truncation, saturating at the integer range's ends
        if math.isnan(v[0]):
            raise EvaluationError(f"int() of NaN in '{node.text}'", node.loc)
        return int(min(max(v[0], -ir.INT_LIMIT), ir.INT_LIMIT))
    return t.values.index(v[0]) if isinstance(t, EnumT) else int(v[0])


def _int_kernel(compiler, node, args):
    if isinstance(node.args[0].type, FloatT):
        limit = float(ir.INT_LIMIT)

        def int_of_float(ctx):  # NaN (an error for the interpreter) becomes 0
            x = np.nan_to_num(np.asarray(args[0](ctx), dtype=np.float64), nan=0.0)
            return np.trunc(np.clip(x, -limit, limit)).astype(np.int64)

        return int_of_float
    dt = dtype_of(node.type)
    return lambda ctx: np.asarray(args[0](ctx)).astype(dt)


def _float_of_type(typer, node):
    arity(node, 1)
    if not isinstance(node.args[0].type, IntT | FloatT | BoolT):
        raise SpecError(f"float() needs a number, not {node.args[0].type.show()}",
                        node.args[0].loc)
    return FloatT()


INT = Builtin("int", _int_type, _int_scalar, _int_kernel,
              examples=("int(c) + x", "int(x == y)", "int(sqrt(x * 3)) > 1"))
FLOAT = Builtin("float", _float_of_type, lambda node, v: float(v[0]),
                lambda compiler, node, args: (
                    lambda ctx: np.asarray(args[0](ctx), dtype=np.float64)),
                examples=("float(x) / 2 > y", "float(x == 1) + 0.5 > 1"))


# -- dirichlet_pdf

def _dirichlet_type(typer, node):
    arity(node, 2)
    lengths = []
    for a in node.args:
        if not isinstance(a.type, SeqT) or not isinstance(a.type.elem, IntT | FloatT):
            raise SpecError(f"dirichlet_pdf(x, alpha) needs sequences of numbers, not "
                            f"{a.type.show()}", a.loc)
        lengths.append(a.type.length)
    if lengths[0] != lengths[1]:
        raise SpecError(f"dirichlet_pdf: x has {lengths[0]} parts, alpha {lengths[1]}",
                        node.loc)
    return FloatT()


def dirichlet_pdf(x: tuple[float, ...], alpha: tuple[float, ...]) -> float:
    """Density of the Dirichlet distribution with parameters alpha at the point x."""
    if any(a <= 0 for a in alpha):
        return 0.0
    if any(v < 0 for v in x) or abs(sum(x) - 1.0) > 1e-9:
        return 0.0
    log_norm = math.lgamma(sum(alpha)) - sum(math.lgamma(a) for a in alpha)
    total = 0.0
    for v, a in zip(x, alpha, strict=True):
        if v == 0:
            if a < 1:
                return math.inf
            if a > 1:
                return 0.0
            continue
        total += (a - 1) * math.log(v)
    return math.exp(log_norm + total)


def dirichlet_pdf_array(x: tuple, alpha: tuple) -> np.ndarray:
    xs = [np.asarray(v, dtype=np.float64) for v in x]
    alphas = [np.asarray(a, dtype=np.float64) for a in alpha]
    lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
    with np.errstate(all="ignore"):
        total_alpha = sum(alphas)
        log_norm = lgamma(total_alpha) - sum(lgamma(np.maximum(a, 1e-300)) for a in alphas)
        log_body = sum(np.where((v == 0) & (a == 1), 0.0, (a - 1) * np.log(v))
                       for v, a in zip(xs, alphas, strict=True))
        out = np.exp(log_norm + log_body)
        ok = reduce(np.logical_and, [a > 0 for a in alphas] + [v >= 0 for v in xs])
        ok = np.logical_and(ok, np.abs(sum(xs) - 1.0) <= 1e-9)
        return np.where(ok, out, 0.0)


def _dirichlet_kernel(compiler: Any, node: ir.Call, args: list) -> Any:
    return lambda ctx: dirichlet_pdf_array(args[0](ctx), args[1](ctx))


DIRICHLET_PDF = Builtin(
    "dirichlet_pdf", _dirichlet_type, lambda node, v: dirichlet_pdf(v[0], v[1]),
    _dirichlet_kernel,
    examples=("dirichlet_pdf([0.25, 0.75], [float(x) + 1, 2.0]) > 1",
              "dirichlet_pdf([0.5, 0.5], [float(s[0]) + 0.5, float(s[1]) + 0.5]) < 1.2"))

ENTRIES = (ABS, SQRT, EXP, LOG, LGAMMA, FACTORIAL, INT, FLOAT, DIRICHLET_PDF)

__all__ = ["ENTRIES", "dirichlet_pdf", "lgamma_array"]

"""Builtins over sequences and numbers: count(xs, v), size / len, alldifferent, onehot,
min / max (of numbers, or of a sequence), and sum, prod, exists, forall, first of a
sequence (the aggregates of builtins/aggregates.py over its items)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from sleuth.compiler import ir
from sleuth.compiler.arrays import accumulate, all_of, dtype_of, equal, wide_dtype
from sleuth.compiler.builtins.aggregates import AGGREGATES, Fold, is_nan
from sleuth.compiler.builtins.record import Builtin, arity
from sleuth.compiler.domains import domain_size, universe_size
from sleuth.compiler.errors import SpecError
from sleuth.compiler.ir import BoolT, DomainT, EnumT, FloatT, IntT, RangeT, SeqT, SetT, StrT
from sleuth.compiler.symvalues import Bits
from sleuth.compiler.typerules import (
    as_label,
    compatible,
    element_type,
    need,
    need_number,
    static_length,
    typed,
)

TRUE = 1  # the circuit's true node


# -- count(xs, v)

def _count_type(typer, node):
    if len(node.args) == 1:
        raise SpecError("count() needs a 'for' clause or two arguments", node.loc,
                        hint="count(x == 1 for x in xs), or count(xs, value)")
    arity(node, 2)
    xs = node.args[0]
    elem = element_type(xs)
    if not isinstance(xs.type, SeqT) or elem is None:
        raise SpecError(f"count(xs, v) needs a sequence, not {xs.type.show()}", xs.loc)
    probe = typed(ir.Const(node.loc, None), elem, xs)
    node.args[1], _ = typer.unify_pair(node.args[1], probe, "count(xs, v)")
    return IntT(0, xs.type.length)


def _count_kernel(compiler, node, args):
    et, dt = node.args[0].type.elem, dtype_of(node.type)
    xs, v = args

    def count(ctx):
        value = v(ctx)
        acc = None
        for e in xs(ctx):
            acc = accumulate(acc, equal(et, e, value), np.add, dt)
        return acc if acc is not None else dt.type(0)

    return count


def _count_lower(lowering, node, args):
    if not isinstance(args[0], tuple):
        return NotImplemented
    return lowering.fold_count([lowering.structured_equal(x, args[1], node) for x in args[0]])


COUNT = Builtin("count", _count_type, lambda node, v: sum(1 for x in v[0] if x == v[1]),
                _count_kernel, _count_lower,
                examples=("count(s, x)", "count(s, y) + count(s, 0)"), relabel="invariant")


# -- size / len

def _size_type(typer, node):
    arity(node, 1)
    t = node.args[0].type
    if isinstance(t, SetT):
        return IntT(0, universe_size(t.elem))
    if isinstance(t, SeqT):
        return IntT(t.length, t.length)
    if isinstance(t, RangeT | DomainT):
        return IntT(0, static_length(node.args[0]))
    raise SpecError(f"{node.func}() needs a set or sequence, not {t.show()}", node.args[0].loc)


def _size_kernel(compiler, node, args):
    t, dt = node.args[0].type, dtype_of(node.type)
    if isinstance(t, SetT):
        return lambda ctx: np.bitwise_count(args[0](ctx)).astype(dt)
    if isinstance(t, SeqT):
        return lambda ctx: t.length
    if isinstance(t, RangeT):
        def range_size(ctx):
            r = args[0](ctx)
            return np.maximum(np.subtract(r.hi, r.lo, dtype=np.int64) + 1, 0)
        return range_size
    n = domain_size(node.args[0].ref[1])
    return lambda ctx: n


def _size_lower(lowering, node, args):
    if isinstance(args[0], Bits):  # a set as unknowns: how many of its elements hold
        return lowering.fold_count(list(args[0].values()))
    return len(args[0]) if isinstance(args[0], tuple) else NotImplemented


def _size_scalar(node, v):
    if isinstance(node.args[0].type, DomainT):  # the value is the Domain itself
        return domain_size(v[0])
    return len(v[0])


SIZE = Builtin("size", _size_type, _size_scalar, _size_kernel, _size_lower,
               examples=("size(t) + x", "size(s) * x", "size(0..x)", "size(N) + x"),
               relabel="invariant")
LEN = Builtin("len", _size_type, _size_scalar, _size_kernel, _size_lower,
              examples=("len(t) > x", "len(s) + y"), relabel="invariant")


# -- alldifferent

def _alldifferent_type(typer, node):
    arity(node, 1)
    if not isinstance(node.args[0].type, SeqT):
        raise SpecError(f"alldifferent() needs a sequence, not {node.args[0].type.show()}",
                        node.args[0].loc)
    return BoolT()


def _alldifferent_kernel(compiler, node, args):
    et = node.args[0].type.elem

    def alldifferent(ctx):
        xs = args[0](ctx)
        return all_of([np.logical_not(equal(et, xs[i], xs[j]))
                       for i in range(len(xs)) for j in range(i + 1, len(xs))])

    return alldifferent


def _alldifferent_lower(lowering, node, args):
    if not isinstance(args[0], tuple):
        return NotImplemented
    c = lowering.circuit
    return lowering.boolean(c.conj(*(c.neg(lowering.structured_equal(a, b, node))
                                     for a, b in itertools.combinations(args[0], 2))))


ALLDIFFERENT = Builtin("alldifferent", _alldifferent_type,
                       lambda node, v: len(set(v[0])) == len(v[0]), _alldifferent_kernel,
                       _alldifferent_lower,
                       examples=("alldifferent(s)", "alldifferent([x, y, s[0]])"),
                       relabel="invariant")


# -- onehot(v, D)

def _onehot_type(typer, node):
    arity(node, 2)
    domain = node.args[1].type
    if not isinstance(domain, DomainT) or not isinstance(domain.elem, IntT | EnumT):
        raise SpecError("onehot(v, D) needs a range or enum domain D", node.args[1].loc)
    elem = domain.elem
    if isinstance(elem, EnumT) and isinstance(node.args[0].type, StrT):
        node.args[0] = as_label(node.args[0], elem)
    if not compatible(node.args[0].type, elem):
        raise SpecError(f"type mismatch: onehot of {node.args[0].type.show()} over "
                        f"{elem.show()}", node.args[0].loc)
    return SeqT(IntT(0, 1), universe_size(elem))


def _universe(t: IntT | EnumT) -> list:
    return list(range(t.lo, t.hi + 1)) if isinstance(t, IntT) else list(t.values)


def _onehot_kernel(compiler, node, args):
    et = node.args[1].type.elem
    codes = list(range(et.lo, et.hi + 1)) if isinstance(et, IntT) else list(range(len(et.values)))
    return lambda ctx: tuple(np.equal(args[0](ctx), c).astype(np.int8) for c in codes)


ONEHOT = Builtin("onehot", _onehot_type,
                 lambda node, v: tuple(int(u == v[0]) for u in _universe(node.args[1].type.elem)),
                 _onehot_kernel, examples=("onehot(x, N)[y]", "sum(onehot(c, Col)) + x"))


# -- min / max of numbers, and the aggregates of a sequence

def _reduce_type(typer, node):
    f, args = node.func, node.args
    if f in ("min", "max") and len(args) >= 2:
        for a in args:
            need_number(a, f"{f}()")
        types = [a.type for a in args]
        if all(isinstance(t, IntT) for t in types):
            pick = min if f == "min" else max
            return IntT(pick(t.lo for t in types), pick(t.hi for t in types))
        return FloatT()
    arity(node, 1)
    t = args[0].type
    if not isinstance(t, SeqT) or t.length == 0:
        raise SpecError(f"{f}() needs a non-empty sequence (or a 'for' clause), not "
                        f"{t.show()}", args[0].loc)
    e = t.elem
    if f in ("exists", "forall"):
        need(typed(ir.Const(node.loc, None), e, args[0]), BoolT,
             f"{f}() needs a sequence of true/false values")
        return BoolT()
    if f == "first":
        return e
    if not isinstance(e, IntT | FloatT):
        raise SpecError(f"{f}() needs numbers, not {e.show()}", args[0].loc)
    if f in ("sum", "prod"):
        return AGGREGATES[f].bounds(e, t.length)
    return e


def _reduce_scalar(node, v):
    if node.func in ("min", "max") and len(v) >= 2:
        if any(is_nan(x) for x in v):
            return math.nan  # as numpy's minimum/maximum (Python's min/max: order-dependent)
        return min(v) if node.func == "min" else max(v)
    return AGGREGATES[node.func].scalar(list(v[0]), [], node)


def _reduce_kernel(compiler, node, args):
    f, dt = node.func, dtype_of(node.type)
    if f in ("min", "max"):
        ufunc = np.minimum if f == "min" else np.maximum
        if len(args) >= 2:
            wide = wide_dtype(node, *node.args)  # min(x, 128) with x an int8: not in int8

            def nary(ctx):
                out = np.asarray(args[0](ctx), dtype=wide)
                for g in args[1:]:
                    out = ufunc(out, np.asarray(g(ctx), dtype=wide))
                return out.astype(dt, copy=False)
            return nary
        if isinstance(node.args[0].type.elem, IntT | FloatT):
            def fast(ctx):
                items = args[0](ctx)
                out = np.asarray(items[0]).astype(dt)
                for e in items[1:]:
                    out = ufunc(out, e)
                return out
            return fast
    aggregator = AGGREGATES[f]

    def reduce(ctx):
        fold = Fold(aggregator, node.type, dt)
        for e in args[0](ctx):
            fold.add(e, None)
        return fold.result(None)

    return reduce


def _reduce_lower(lowering, node, args):
    if len(args) != 1 or not isinstance(args[0], tuple):
        return NotImplemented
    return AGGREGATES[node.func].lower(lowering, [(TRUE, x) for x in args[0]], [], node)


def _reduction(name: str, examples: tuple[str, ...], relabel: str = "order-free") -> Builtin:
    return Builtin(name, _reduce_type, _reduce_scalar, _reduce_kernel, _reduce_lower,
                   examples=examples, relabel=relabel)


MIN = _reduction("min", ("min(x, y)", "min(s)", "min(s[0], y, 2)"))
MAX = _reduction("max", ("max(x, y) + max(s)", "max(s[0] - x, -1)"))
SUM = _reduction("sum", ("sum(s)", "sum([x, y, s[1]])"))
PROD = _reduction("prod", ("prod(s)", "prod([x - 1, y])"))
EXISTS = _reduction("exists", ("exists([s[0] == y, x == 0])",))
FORALL = _reduction("forall", ("forall([s[0] <= x, s[1] >= y])",))
FIRST = _reduction("first", ("first(s) + x", "first([c, c])"), relabel="")

ENTRIES = (COUNT, SIZE, LEN, ALLDIFFERENT, ONEHOT, MIN, MAX, SUM, PROD, EXISTS, FORALL, FIRST)

__all__ = ["ENTRIES"]

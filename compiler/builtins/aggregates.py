"""Aggregates: count, sum, prod, exists, forall, min, max, first.

Each is one class holding all four of its meanings, so that they sit side by side:

    type(typer, node, n)          the type of `agg(body for ... , default?)` over n items
    scalar(values, default, node) the reference meaning (the interpreter)
    add(fold, value, mask) and result(fold, default)
                                  the vectorised meaning: one masked step per iteration
    lower(lowering, items, default, node)
                                  the boolean meaning: a dynamic programme over guarded items

They serve the generator form `sum(x for x in xs)` and the one-argument builtins
over a sequence, `sum(xs)` (builtins/sequences.py).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from sleuth.compiler import ir
from sleuth.compiler.arrays import accumulate, select, zero
from sleuth.compiler.errors import EvaluationError, SpecError
from sleuth.compiler.ir import BoolT, FloatT, IntT, Type, int_type
from sleuth.compiler.typerules import need, need_number

if TYPE_CHECKING:
    from sleuth.compiler.boolean import Lowering
    from sleuth.compiler.infer import Typer


class Fold:
    """Running state of one aggregate over a block, under masks (the vectorised form)."""

    def __init__(self, aggregator: Aggregator, t: Type, dt: np.dtype):
        self.aggregator, self.type, self.dt = aggregator, t, dt
        self.acc: Any = None
        self.seen: Any = False

    def add(self, value: Any, mask: Any) -> None:
        self.aggregator.add(self, value, mask)

    def result(self, default: Any) -> Any:
        out = self.aggregator.result(self, default)
        if isinstance(self.type, IntT) and not isinstance(out, tuple):
            return np.asarray(out).astype(self.dt, copy=False)
        return out


def is_nan(x: Any) -> bool:
    """min/max meeting a NaN give NaN, as numpy's minimum/maximum do (Python's min/max
    would depend on the order of the arguments)."""
    return isinstance(x, float) and math.isnan(x)


class Aggregator:
    name: ClassVar[str] = ""
    takes_default: ClassVar[bool] = False  # min, max, first: one default after the generator
    order_free: ClassVar[bool] = True  # the result ignores the order of the loop's items
    examples: ClassVar[tuple[str, ...]] = ()  # cross-checked by tests/test_builtins.py

    def type(self, typer: Typer, node: ir.Generator, n: int) -> Type:
        raise NotImplementedError

    def scalar(self, values: list[Any], default: list[Any], node: ir.Node) -> Any:
        raise NotImplementedError

    def add(self, fold: Fold, value: Any, mask: Any) -> None:
        raise NotImplementedError

    def result(self, fold: Fold, default: Any) -> Any:
        raise NotImplementedError

    def lower(self, lowering: Lowering, items: list[tuple[int, Any]], default: list[Any],
              node: ir.Node) -> Any:
        raise NotImplementedError


class Count(Aggregator):
    name = "count"
    examples = ("count(s[i] == y for i in 0..1)", "count(v in t for v in s)",
                "count(v == x for v in N if v in u)")

    def type(self, typer, node, n):
        need(node.body, BoolT, "count(...) counts conditions: its body must be true or false")
        return IntT(0, n)

    def scalar(self, values, default, node):
        return sum(1 for v in values if v)

    def add(self, fold, value, mask):
        term = value if mask is None else np.logical_and(mask, value)
        fold.acc = accumulate(fold.acc, term, np.add, fold.dt)

    def result(self, fold, default):
        return fold.dt.type(0) if fold.acc is None else fold.acc

    def lower(self, lowering, items, default, node):
        c = lowering.circuit
        return lowering.fold_count([c.conj(g, lowering.truth(v)) for g, v in items])


class _Quantifier(Aggregator):
    """exists / forall: a disjunction / conjunction."""

    def type(self, typer, node, n):
        need(node.body, BoolT, f"{self.name}(...) needs a true-or-false body")
        return BoolT()


class Exists(_Quantifier):
    name = "exists"
    examples = ("exists(s[i] == y for i in 0..1)", "exists(v > x for v in N if v != y)")

    def scalar(self, values, default, node):
        return any(values)

    def add(self, fold, value, mask):
        term = value if mask is None else np.logical_and(mask, value)
        fold.acc = term if fold.acc is None else np.logical_or(fold.acc, term)

    def result(self, fold, default):
        return np.False_ if fold.acc is None else fold.acc

    def lower(self, lowering, items, default, node):
        c = lowering.circuit
        return lowering.boolean(c.disj(*(c.conj(g, lowering.truth(v)) for g, v in items)))


class Forall(_Quantifier):
    name = "forall"
    examples = ("forall(s[i] >= x for i in 0..1)", "forall(v in t for v in s)")

    def scalar(self, values, default, node):
        return all(values)

    def add(self, fold, value, mask):
        term = value if mask is None else np.logical_or(np.logical_not(mask), value)
        fold.acc = term if fold.acc is None else np.logical_and(fold.acc, term)

    def result(self, fold, default):
        return np.True_ if fold.acc is None else fold.acc

    def lower(self, lowering, items, default, node):
        c = lowering.circuit
        return lowering.boolean(c.conj(*(c.disj(c.neg(g), lowering.truth(v))
                                         for g, v in items)))


class _Arithmetic(Aggregator):
    """sum / prod: an addition or multiplication folded one item at a time."""

    unit: ClassVar[int] = 0
    op: ClassVar[str] = "+"
    ufunc: ClassVar[Any] = np.add

    def type(self, typer, node, n):
        need_number(node.body, f"{self.name}(...)")
        return self.bounds(node.body.type, n)

    def bounds(self, t: Type, n: int) -> Type:
        raise NotImplementedError

    def add(self, fold, value, mask):
        if mask is not None:
            value = np.where(mask, value, self.unit)
        fold.acc = accumulate(fold.acc, value, self.ufunc, fold.dt)

    def result(self, fold, default):
        return fold.dt.type(self.unit) if fold.acc is None else fold.acc

    def lower(self, lowering, items, default, node):
        from sleuth.compiler.interpret import arithmetic

        if lowering.any_structured(v for _, v in items):
            raise lowering.refuse(node, f"{self.name} over sequences or records")
        unit: Any = self.unit
        if node.type is not None and not isinstance(node.type, IntT):
            unit = float(unit)
        total: Any = lowering.constant(unit)
        for g, v in items:
            term = lowering.guarded(g, v, unit)
            total = lowering.split(lambda a, b: arithmetic(self.op, a, b, node), [total, term],
                                   node)
        return total


class Sum(_Arithmetic):
    name, unit, op, ufunc = "sum", 0, "+", np.add
    examples = ("sum(s[i] for i in 0..1 if s[i] > y)", "sum(v * y for v in s)")

    def bounds(self, t, n):
        if isinstance(t, IntT):
            return int_type(min(0, n * t.lo), max(0, n * t.hi))
        return FloatT()

    def scalar(self, values, default, node):
        return sum(values, 0.0 if isinstance(node.type, FloatT) else 0)


class Prod(_Arithmetic):
    name, unit, op, ufunc = "prod", 1, "*", np.multiply
    examples = ("prod(s[i] + 1 for i in 0..1)", "prod(v for v in N if v != x)")

    def bounds(self, t, n):
        if isinstance(t, IntT):
            m = max(abs(t.lo), abs(t.hi), 1) ** n
            return int_type(-m if t.lo < 0 else 0, m)
        return FloatT()

    def scalar(self, values, default, node):
        return math.prod(values, start=1.0 if isinstance(node.type, FloatT) else 1)


class _Selection(Aggregator):
    """min / max / first: one of the items, or the default when there is none."""

    takes_default = True

    def type(self, typer, node, n):
        if self.name != "first":
            need_number(node.body, f"{self.name}(...)")
        if n == 0 and not node.extra:
            raise SpecError(f"{self.name}(...) runs over nothing here (an empty range or "
                            "domain), and has no default", node.loc,
                            hint=f"give a default: {self.name}(... for ..., default)")
        t = node.body.type
        if node.extra:
            if self.name != "first":
                need_number(node.extra[0], f"the default of {self.name}(...)")
            _, node.extra[0], t = typer.join(node.body, node.extra[0], node)
        return t

    def pick(self, acc: Any, x: Any) -> Any:
        raise NotImplementedError

    def scalar(self, values, default, node):
        if not values:
            if default:
                return default[0]
            raise EvaluationError(f"{self.name} of nothing in '{node.text}'", node.loc,
                                  hint=f"give a default: {self.name}(... for ..., default)")
        out = values[0]
        for v in values[1:]:
            out = self.pick(out, v)
        return out

    def result(self, fold, default):
        if fold.acc is None:
            return default if default is not None else zero(fold.type)
        if default is not None:
            return select(fold.type, fold.seen, fold.acc, default)
        return fold.acc

    def lower(self, lowering, items, default, node):
        if lowering.any_structured(v for _, v in items):
            raise lowering.refuse(node, f"{self.name} over sequences or records")
        state: Any = lowering.constant(None)  # the aggregate so far; None before any item
        for g, v in items:
            term = lowering.guarded(g, v, None)
            state = lowering.split(
                lambda acc, x: acc if x is None else (x if acc is None else self.pick(acc, x)),
                [state, term], node)
        if default and lowering.is_symbolic(default[0]):
            return lowering.split(lambda acc, d: acc if acc is not None else d,
                                  [state, default[0]], node)
        return lowering.split(
            lambda acc: acc if acc is not None else self.scalar([], default, node), [state],
            node)


class _Extremum(_Selection):
    ufunc: ClassVar[Any] = np.minimum

    def add(self, fold, value, mask):
        if fold.acc is None:
            fold.acc, fold.seen = value, (True if mask is None else mask)
            return
        best = self.ufunc(fold.acc, value)
        if fold.seen is not True:
            best = select(fold.type, fold.seen, best, value)
        if mask is None:
            fold.acc, fold.seen = best, True
        else:
            fold.acc = select(fold.type, mask, best, fold.acc)
            fold.seen = True if fold.seen is True else np.logical_or(fold.seen, mask)


class Min(_Extremum):
    name, ufunc = "min", np.minimum
    examples = ("min(s[i] for i in 0..1 if s[i] > y, -1)", "min(abs(v - x) for v in t, 7)")

    def pick(self, acc, x):
        return math.nan if is_nan(acc) or is_nan(x) else min(acc, x)


class Max(_Extremum):
    name, ufunc = "max", np.maximum
    examples = ("max(s[i] for i in 0..1 if s[i] != x, 9)", "max(s[i] - y for i in 0..1)")

    def pick(self, acc, x):
        return math.nan if is_nan(acc) or is_nan(x) else max(acc, x)


class First(_Selection):
    name = "first"
    order_free = False
    examples = ("first(s[i] for i in 0..1 if s[i] > y, 0)", "first(v for v in s)")

    def pick(self, acc, x):
        return acc

    def add(self, fold, value, mask):
        if fold.acc is None:
            fold.acc = value
            fold.seen = True if mask is None else mask
            return
        take = np.logical_not(fold.seen) if mask is None else \
            np.logical_and(np.logical_not(fold.seen), mask)
        fold.acc = select(fold.type, take, value, fold.acc)
        fold.seen = np.logical_or(fold.seen, True if mask is None else mask)


AGGREGATES: dict[str, Aggregator] = {a.name: a for a in (
    Count(), Sum(), Prod(), Exists(), Forall(), Min(), Max(), First())}


__all__ = ["AGGREGATES", "Aggregator", "Fold"]

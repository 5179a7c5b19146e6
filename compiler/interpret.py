"""The reference interpreter: typed IR evaluated in plain Python, one point at a time.

It is deliberately straightforward -- no numpy, no caching, no broadcasting --
so it can serve as the oracle the vectorised kernels are tested against.

Values: int, bool, float; enum labels and strings as `str`; sets as
`frozenset`; sequences and tuples as `tuple`; records as `dict`; a domain name
as its `Domain`; a data table (or a partly indexed one) as `TableView`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.builtins import AGGREGATES, BUILTINS
from sleuth.compiler.domains import domain_values, member
from sleuth.compiler.errors import EvaluationError
from sleuth.compiler.ir import EnumT, FloatT, IntT, SetT


@dataclass(frozen=True)
class TableView:
    table: Any  # check.Table
    prefix: tuple[int, ...]


def evaluate(node: ir.Node, env: dict[str, Any]) -> Any:
    """Value of a typed expression; env maps secret/argument/local ids to values."""
    return _EVAL[type(node)](node, env)


def _const(node: ir.Const, env):
    return node.value


def _name(node: ir.Name, env):
    kind, key = node.ref
    if kind == "domain":
        return key
    if kind == "table":
        return TableView(key, ())
    return env[key]


def _unary(node: ir.Unary, env):
    v = evaluate(node.operand, env)
    return (not v) if node.op == "not" else -v


def _binary(node: ir.Binary, env):
    op = node.op
    if op == "and":
        return evaluate(node.left, env) and evaluate(node.right, env)
    if op == "or":
        return evaluate(node.left, env) or evaluate(node.right, env)
    a = evaluate(node.left, env)
    b = evaluate(node.right, env)
    if op in ("in", "not in"):
        inside = contains(b, a)
        return inside if op == "in" else not inside
    if op in ("<", "<=", ">", ">=") and isinstance(node.left.type, EnumT):
        labels = node.left.type.values
        a, b = labels.index(a), labels.index(b)
    if isinstance(node.left.type, FloatT) != isinstance(node.right.type, FloatT) \
            and op in ("==", "!=", "<", "<=", ">", ">="):
        a, b = float(a), float(b)  # an int meets a float as a double, as in numpy
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    return arithmetic(op, a, b, node)


def arithmetic(op: str, a: Any, b: Any, node: ir.Node) -> Any:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "//", "%") and b == 0:
        raise EvaluationError(f"division by zero in '{node.text}'", node.loc)
    if op == "/":
        return float(a) / float(b)  # doubles, as numpy divides (Python's int / is exact)
    if op == "//":
        return a // b
    if op == "%":
        return a % b
    if op == "**":
        if isinstance(node.type, FloatT):
            try:
                out = float(a) ** float(b)
                return math.nan if isinstance(out, complex) else out  # (-8) ** 0.5
            except ZeroDivisionError:
                raise EvaluationError(f"zero to a negative power in '{node.text}'",
                                      node.loc) from None
            except OverflowError:  # IEEE: too large is infinite, as numpy computes it
                return math.inf if a > 0 or float(b) % 2 == 0 else -math.inf
        return a ** b
    raise AssertionError(op)


def contains(container: Any, x: Any) -> bool:
    """Whether x is in a range, set, sequence or domain."""
    if isinstance(container, range | frozenset | tuple):
        return x in container
    return member(container, x)  # a Domain


def _ifexpr(node: ir.IfExpr, env):
    return evaluate(node.then if evaluate(node.cond, env) else node.other, env)


def _rangeexpr(node: ir.RangeExpr, env):
    return range(evaluate(node.lo, env), evaluate(node.hi, env) + 1)


def _index(node: ir.Index, env):
    target = evaluate(node.target, env)
    i = evaluate(node.index, env)
    if isinstance(target, TableView):
        dim = target.table.index[len(target.prefix)].type
        pos = i - dim.lo if isinstance(dim, IntT) else (
            dim.values.index(i) if isinstance(dim, EnumT) else int(i))
        view = TableView(target.table, target.prefix + (pos,))
        if len(view.prefix) == len(target.table.index):
            v = target.table.values[view.prefix]
            return int(v) if isinstance(node.type, IntT) else float(v)
        return view
    if not 0 <= i < len(target):
        raise EvaluationError(f"index {i} is out of range 0..{len(target) - 1} in "
                              f"'{node.text}'", node.loc)
    return target[i]


def _field(node: ir.Field, env):
    return evaluate(node.target, env)[node.name]


def _tupleexpr(node, env):
    return tuple(evaluate(x, env) for x in node.items)


def _let(node: ir.Let, env):
    inner = dict(env)
    for uid, expr in node.bindings:
        inner[uid] = evaluate(expr, inner)
    return evaluate(node.body, inner)


def _iterate(node: ir.Iterate, env):
    state = evaluate(node.init, env)
    for _ in range(node.steps):
        nxt = evaluate(node.body, bind_state(node.names, state, env))
        if nxt == state:
            break  # a final state: every later step gives it again
        state = nxt
    return state


def bind_state(names: list[str], state: Any, env: dict[str, Any]) -> dict[str, Any]:
    """The scope of an iteration's step: the state bound to its parameters (a tuple state
    unpacked into several)."""
    inner = dict(env)
    if len(names) == 1:
        inner[names[0]] = state
    else:
        inner.update(zip(names, state, strict=True))
    return inner


def iterate(node: ir.Node, value: Any) -> list[Any]:
    """The elements of an iterable value, in canonical order."""
    if isinstance(value, range | tuple):
        return list(value)
    if isinstance(value, frozenset):
        t = node.type
        assert isinstance(t, SetT)
        from sleuth.compiler.domains import set_elements

        return [e for e in set_elements(t) if e in value]
    return domain_values(value)


def _generator(node: ir.Generator, env):
    results = []  # body values where the filter holds, in order

    def walk(k: int, scope: dict[str, Any]) -> None:
        if k == len(node.loops):
            if node.cond is None or evaluate(node.cond, scope):
                results.append(evaluate(node.body, scope))
            return
        loop = node.loops[k]
        for item in iterate(loop.iterable, evaluate(loop.iterable, scope)):
            inner = dict(scope)
            if len(loop.names) == 1:
                inner[loop.names[0]] = item
            else:
                for uid, part in zip(loop.names, item, strict=True):
                    inner[uid] = part
            walk(k + 1, inner)

    walk(0, env)
    default = [evaluate(x, env) for x in node.extra]
    return aggregate(node.func, results, default, node)


def aggregate(func: str, values: list[Any], default: list[Any], node: ir.Node) -> Any:
    """An aggregate's reference meaning over the values (builtins/aggregates.py)."""
    return AGGREGATES[func].scalar(values, default, node)


def _call(node: ir.Call, env):
    return BUILTINS[node.func].scalar(node, [evaluate(a, env) for a in node.args])


_EVAL = {
    ir.Const: _const,
    ir.Name: _name,
    ir.Unary: _unary,
    ir.Binary: _binary,
    ir.IfExpr: _ifexpr,
    ir.RangeExpr: _rangeexpr,
    ir.Index: _index,
    ir.Field: _field,
    ir.TupleExpr: _tupleexpr,
    ir.ListExpr: _tupleexpr,
    ir.Call: _call,
    ir.Generator: _generator,
    ir.Let: _let,
    ir.Iterate: _iterate,
}

__all__ = ["TableView", "aggregate", "evaluate", "iterate"]

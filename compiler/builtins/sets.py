"""Builtins over sets (int64 bitmasks in the kernels, frozensets in the interpreter):
disjoint, union, intersection."""

from __future__ import annotations

import numpy as np

from sleuth.compiler.builtins.record import Builtin, arity
from sleuth.compiler.circuit import FALSE, TRUE
from sleuth.compiler.errors import SpecError
from sleuth.compiler.ir import BoolT, SetT
from sleuth.compiler.symvalues import Bits


def _set_type(typer, node):
    arity(node, 2)
    for a in node.args:
        if not isinstance(a.type, SetT):
            raise SpecError(f"{node.func}() needs sets, not {a.type.show()}", a.loc)
    a, b = node.args[0].type, node.args[1].type
    if a != b:
        raise SpecError(f"type mismatch: {node.func}() of {a.show()} and {b.show()}", node.loc)
    return BoolT() if node.func == "disjoint" else a


def _bitwise(ufunc, then=None):
    def kernel(compiler, node, args):
        if then is None:
            return lambda ctx: ufunc(args[0](ctx), args[1](ctx))
        return lambda ctx: then(ufunc(args[0](ctx), args[1](ctx)))
    return kernel


def _lower(combine, result):
    """The lowering over sets as unknowns (query_plans.py): per element, `combine` the two
    operands' formulas; `result` makes the value from the per-element formulas."""
    def lower(lowering, node, args):
        if not any(isinstance(a, Bits) for a in args):
            return NotImplemented
        c = lowering.circuit
        universe = next(a for a in args if isinstance(a, Bits))

        def formula(a, e):
            return a.get(e, FALSE) if isinstance(a, Bits) else (TRUE if e in a else FALSE)

        per = {e: combine(c, formula(args[0], e), formula(args[1], e)) for e in universe}
        return result(lowering, per)
    return lower


def _both(c, x, y):
    return c.conj(x, y)


def _either(c, x, y):
    return c.disj(x, y)


def _none_shared(lowering, per):
    c = lowering.circuit
    return lowering.boolean(c.conj(*(c.neg(f) for f in per.values())))


def _as_bits(lowering, per):
    return Bits(per)


DISJOINT = Builtin("disjoint", _set_type, lambda node, v: not (v[0] & v[1]),
                   _bitwise(np.bitwise_and, lambda m: np.equal(m, 0)),
                   lower=_lower(_both, _none_shared),
                   examples=("disjoint(t, u) and x > 1", "int(disjoint(t, u)) + x"),
                   relabel="invariant")
UNION = Builtin("union", _set_type, lambda node, v: v[0] | v[1], _bitwise(np.bitwise_or),
                lower=_lower(_either, _as_bits),
                examples=("size(union(t, u)) + x", "x in union(t, u)"), relabel="covariant")
INTERSECTION = Builtin("intersection", _set_type, lambda node, v: v[0] & v[1],
                       _bitwise(np.bitwise_and), lower=_lower(_both, _as_bits),
                       examples=("x in intersection(t, u)", "size(intersection(t, u)) > y"),
                       relabel="covariant")

ENTRIES = (DISJOINT, UNION, INTERSECTION)

__all__ = ["ENTRIES"]

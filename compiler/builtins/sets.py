"""Builtins over sets (int64 bitmasks in the kernels, frozensets in the interpreter):
disjoint, union, intersection."""

from __future__ import annotations

import numpy as np

from sleuth.compiler.builtins.record import Builtin, arity
from sleuth.compiler.errors import SpecError
from sleuth.compiler.ir import BoolT, SetT


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


DISJOINT = Builtin("disjoint", _set_type, lambda node, v: not (v[0] & v[1]),
                   _bitwise(np.bitwise_and, lambda m: np.equal(m, 0)),
                   examples=("disjoint(t, u) and x > 1", "int(disjoint(t, u)) + x"),
                   relabel="invariant")
UNION = Builtin("union", _set_type, lambda node, v: v[0] | v[1], _bitwise(np.bitwise_or),
                examples=("size(union(t, u)) + x", "x in union(t, u)"), relabel="covariant")
INTERSECTION = Builtin("intersection", _set_type, lambda node, v: v[0] & v[1],
                       _bitwise(np.bitwise_and),
                       examples=("x in intersection(t, u)", "size(intersection(t, u)) > y"),
                       relabel="covariant")

ENTRIES = (DISJOINT, UNION, INTERSECTION)

__all__ = ["ENTRIES"]

"""Type rules the type checker and the builtins share: what a node must be, how
strings become enum labels, which types are compatible, how large an iterable is.
"""

from __future__ import annotations

from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.domains import domain_size, universe_size
from sleuth.compiler.errors import SpecError, did_you_mean
from sleuth.compiler.ir import (
    BoolT,
    DomainT,
    EnumT,
    FloatT,
    IntT,
    RangeT,
    RecordT,
    SeqT,
    SetT,
    StrT,
    TupleT,
    Type,
    UnionT,
    int_type,
)


def typed(node: ir.Node, t: Type, like: ir.Node) -> ir.Node:
    node.type = t
    node.text = like.text
    return node


def need(node: ir.Node, kind: type, message: str) -> None:
    if not isinstance(node.type, kind):
        raise SpecError(f"type mismatch: {message}; '{node.text}' is {node.type.show()}",
                        node.loc)


def need_number(node: ir.Node, what: str) -> None:
    if isinstance(node.type, BoolT):
        raise SpecError(f"type mismatch: {what} needs numbers, and '{node.text}' is true/false",
                        node.loc, hint="use int(...) or count(...) to turn truths into numbers")
    if not isinstance(node.type, IntT | FloatT):
        raise SpecError(f"type mismatch: {what} needs numbers, and '{node.text}' is "
                        f"{node.type.show()}", node.loc)


def as_position(node: ir.Node, enum: EnumT) -> ir.Node:
    """A label of `enum` used as a sequence index: int(label), its position."""
    node = as_label(node, enum)
    if not isinstance(node.type, EnumT) or node.type != enum:
        raise SpecError(f"this sequence is indexed by {enum.show()}, not "
                        f"{node.type.show()}", node.loc,
                        hint=f"labels: {', '.join(enum.values)}")
    call = ir.Call(node.loc, "int", [node])
    call.type, call.deps, call.text = IntT(0, len(enum.values) - 1), node.deps, node.text
    return call


def as_label(node: ir.Node, enum: EnumT) -> ir.Node:
    """A string expression used where an enum value is expected."""
    if not isinstance(node.type, StrT):
        return node
    bad = sorted(node.type.values - set(enum.values))
    if bad:
        raise SpecError(f"'{bad[0]}' is not a label of {enum.name}", node.loc,
                        hint=did_you_mean(bad[0], enum.values) or
                        f"labels: {', '.join(enum.values)}")
    if isinstance(node, ir.Const):
        node.type = enum
        return node
    if isinstance(node, ir.IfExpr):
        node.then, node.other = as_label(node.then, enum), as_label(node.other, enum)
        node.type = enum
        return node
    raise SpecError(f"'{node.text}' is a string; compare it with strings, not {enum.name} "
                    "values", node.loc)


def compatible(a: Type, b: Type) -> bool:
    if isinstance(a, IntT | FloatT) and isinstance(b, IntT | FloatT):
        return True
    if isinstance(a, StrT) and isinstance(b, StrT):
        return True
    if isinstance(a, SeqT) and isinstance(b, SeqT):
        return a.length == b.length and compatible(a.elem, b.elem)
    if isinstance(a, TupleT) and isinstance(b, TupleT):
        return len(a.items) == len(b.items) and all(
            compatible(x, y) for x, y in zip(a.items, b.items, strict=True))
    if isinstance(a, SetT) and isinstance(b, SetT):
        return a.elem == b.elem
    if isinstance(a, RecordT) and isinstance(b, RecordT):
        return [n for n, _ in a.fields] == [n for n, _ in b.fields] and all(
            compatible(x, y) for (_, x), (_, y) in zip(a.fields, b.fields, strict=True))
    return type(a) is type(b) and (not isinstance(a, EnumT) or a == b)


def element_type(node: ir.Node) -> Type | None:
    t = node.type
    if isinstance(t, RangeT):
        return t.elem
    if isinstance(t, DomainT):
        return t.elem if t.elem.finite else None
    if isinstance(t, SetT | SeqT):
        return t.elem
    return None


def static_length(node: ir.Node) -> int:
    """An upper bound on the number of elements of an iterable."""
    t = node.type
    if isinstance(t, RangeT):
        return max(0, t.elem.hi - t.elem.lo + 1)
    if isinstance(t, DomainT):
        d = node.ref[1] if isinstance(node, ir.Name) and node.ref else None
        return domain_size(d) if d is not None else 0
    if isinstance(t, SetT):
        return universe_size(t.elem)
    if isinstance(t, SeqT):
        return t.length
    return 0


def arith_type(op: str, x: ir.Node, y: ir.Node) -> Type:
    a, b = x.type, y.type
    if op == "/" or not (isinstance(a, IntT) and isinstance(b, IntT)):
        return FloatT()
    if op == "+":
        return int_type(a.lo + b.lo, a.hi + b.hi)
    if op == "-":
        return int_type(a.lo - b.hi, a.hi - b.lo)
    if op == "*":
        corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
        return int_type(min(corners), max(corners))
    if op == "%":
        m = max(abs(b.lo), abs(b.hi))
        if b.lo > 0:
            return int_type(0, b.hi - 1)
        return int_type(-m, m)
    if op == "//":
        m = max(abs(a.lo), abs(a.hi))
        if b.lo > 0 and a.lo >= 0:
            return int_type(a.lo // b.hi, a.hi // b.lo)
        return int_type(-m, m)
    if op == "**":
        if b.lo < 0:
            return FloatT()
        if max(abs(a.lo), abs(a.hi)) >= 2 and b.hi > 62:  # 2**63 at least: no int64 holds it
            raise ir.IntOverflow(max(abs(a.lo), abs(a.hi)) ** min(b.hi, 4096))
        if a.lo >= 0:
            corners = [base ** e for base in (a.lo, a.hi) for e in (b.lo, b.hi)]
            return int_type(min(corners), max(corners))
        m = max(abs(a.lo), abs(a.hi), 1) ** b.hi
        return int_type(-m, m)
    raise AssertionError(op)


def const_type(v: Any) -> Type:
    """The type of a Python constant (a literal or a param's value)."""
    if isinstance(v, bool):
        return BoolT()
    if isinstance(v, int):
        return int_type(v, v)
    if isinstance(v, float):
        return FloatT()
    return StrT(frozenset({str(v)}))


def unify_pair(x: ir.Node, y: ir.Node, what: str) -> tuple[ir.Node, ir.Node]:
    """Make x and y comparable (coercing string constants to enum labels, and a label or
    an integer to a union's form)."""
    a, b = x.type, y.type
    if isinstance(a, UnionT) or isinstance(b, UnionT):
        union = a if isinstance(a, UnionT) else b
        return as_union(x, union, what), as_union(y, union, what)
    if isinstance(a, EnumT) and isinstance(b, StrT):
        return x, as_label(y, a)
    if isinstance(b, EnumT) and isinstance(a, StrT):
        return as_label(x, b), y
    if compatible(a, b):
        return x, y
    raise SpecError(f"type mismatch: {what} compares {a.show()} with {b.show()}", x.loc,
                    hint=f"'{x.text}' is {a.show()}; '{y.text}' is {b.show()}")


def union_of(a: Type, b: Type) -> UnionT | None:
    """The union of a label type and an integer type (or unions), None for others."""
    parts = (a, b)
    if not all(isinstance(t, StrT | IntT | UnionT) for t in parts) or not (
            any(isinstance(t, StrT | UnionT) for t in parts) and
            any(isinstance(t, IntT | UnionT) for t in parts)):
        return None
    labels: set[str] = set()
    bounds = []
    for t in parts:
        if isinstance(t, StrT):
            labels |= t.values
        elif isinstance(t, UnionT):
            labels |= set(t.labels)
            bounds.append((t.lo, t.hi))
        else:
            bounds.append((t.lo, t.hi))
    return UnionT(tuple(sorted(labels)), min(lo for lo, _ in bounds),
                  max(hi for _, hi in bounds))


def as_union(node: ir.Node, union: UnionT, what: str = "") -> ir.Node:
    """A label, an integer or a union expression in the form of `union`: string
    constants become the integers that hold them (so both branches of an `if` are
    integers in the kernels); an integer must lie within the union's range."""
    t = node.type
    if t == union:
        return node
    if isinstance(t, IntT):
        if t.lo < union.lo or t.hi > union.hi:
            raise SpecError(f"{node.text!r} ranges over {t.lo}..{t.hi}, beyond the "
                            f"{union.lo}..{union.hi} of {union.show()}", node.loc,
                            hint="compare a label-or-number with numbers in its range")
        return node
    if isinstance(node, ir.Const) and isinstance(t, StrT):
        if node.value not in union.labels:
            raise SpecError(f"'{node.value}' is not a label of {union.show()}", node.loc,
                            hint=did_you_mean(str(node.value), list(union.labels))
                            or f"its labels: {', '.join(union.labels)}")
        node.value, node.type = union.encode(node.value), union
        return node
    if isinstance(node, ir.IfExpr):
        node.then = as_union(node.then, union, what)
        node.other = as_union(node.other, union, what)
        node.type = union
        return node
    raise SpecError(f"'{node.text}' is {t.show()}, and cannot take the form of "
                    f"{union.show()}{' in ' + what if what else ''}", node.loc,
                    hint="write the labels as string constants in the branches of an `if`")


def join(x: ir.Node, y: ir.Node, where: ir.Node) -> tuple[ir.Node, ir.Node, Type]:
    """The common type of two alternatives (branches of if, items of a list)."""
    a, b = x.type, y.type
    union = union_of(a, b)
    if union is not None:
        return as_union(x, union), as_union(y, union), union
    if isinstance(a, IntT) and isinstance(b, IntT):
        return x, y, IntT(min(a.lo, b.lo), max(a.hi, b.hi))
    if isinstance(a, IntT | FloatT) and isinstance(b, IntT | FloatT):
        return x, y, FloatT()
    if isinstance(a, StrT) and isinstance(b, StrT):
        return x, y, StrT(a.values | b.values)
    if isinstance(a, EnumT) and isinstance(b, StrT):
        return x, as_label(y, a), a
    if isinstance(b, EnumT) and isinstance(a, StrT):
        return as_label(x, b), y, b
    if isinstance(a, SetT) and isinstance(b, SetT) and a.elem == b.elem:
        return x, y, a
    if a == b:
        return x, y, a
    if isinstance(a, TupleT) and isinstance(b, TupleT) and len(a.items) == len(b.items):
        items = tuple(_join_part(x, y, k, ta, tb, where)
                      for k, (ta, tb) in enumerate(zip(a.items, b.items, strict=True)))
        return x, y, TupleT(items)
    if isinstance(a, SeqT) and isinstance(b, SeqT) and (a.length, a.index) == (b.length,
                                                                               b.index):
        elems = [_join_part(x, y, k, a.elem, b.elem, where) for k in range(a.length)]
        elem = elems[0]
        for e in elems[1:]:
            elem = join(typed(ir.Const(where.loc, None), elem, where),
                        typed(ir.Const(where.loc, None), e, where), where)[2]
        return x, y, SeqT(elem, a.length, a.index)
    raise SpecError(f"type mismatch: the alternatives are {a.show()} and {b.show()}",
                    where.loc, hint="both branches must have the same kind of value")


def _join_part(x: ir.Node, y: ir.Node, k: int, a: Type, b: Type, where: ir.Node) -> Type:
    """The common type of part k of two tuples or sequences (items of literal ones are
    joined as nodes, so a string item next to an enum item becomes its label; a part of
    any other expression keeps its encoding, so it must already have the common type's
    kind)."""
    xs = x.items if isinstance(x, ir.TupleExpr | ir.ListExpr) else None
    ys = y.items if isinstance(y, ir.TupleExpr | ir.ListExpr) else None
    px = xs[k] if xs is not None else typed(ir.Const(x.loc, None), a, x)
    py = ys[k] if ys is not None else typed(ir.Const(y.loc, None), b, y)
    jx, jy, t = join(px, py, where)
    for items, old, new, whole in ((xs, px, jx, x), (ys, py, jy, y)):
        if items is not None:
            items[k] = new
            whole.type = (TupleT(tuple(i.type for i in items)) if isinstance(whole.type, TupleT)
                          else whole.type)
        elif new.type != old.type:
            raise SpecError(f"type mismatch: part {k} of '{whole.text}' is "
                            f"{old.type.show()}, and the other alternative's is "
                            f"{py.type.show() if old is px else px.type.show()}", whole.loc,
                            hint="write the labels as labels (Kind.heavy), not strings")
    return t


__all__ = ["arith_type", "as_label", "as_position", "compatible", "const_type", "element_type",
           "join", "need", "need_number", "static_length", "typed", "unify_pair"]

"""Type inference: every node of resolved IR gets a type, static bounds and dependencies.

Integers carry an interval (`IntT(lo, hi)`) computed by interval arithmetic;
the kernels choose dtypes and feedback radices from it. `deps` records the
axes a node varies along -- `ir.ROW` (query arguments or answers), `ir.HYP`
(the secret) and the ids of enclosing loop variables -- so kernels evaluate
each node at the smallest shape and cache what does not vary with the rows.
String literals compared with enum values become labels of that enum here.
"""

from __future__ import annotations

import math
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
    TableT,
    TupleT,
    Type,
    int_type,
)

Env = dict[str, tuple[Type, frozenset[str]]]
MAX_UNROLL = 100_000  # generator iterations (static bound) a kernel may unroll
AGGREGATES = ("count", "sum", "min", "max", "prod", "exists", "forall", "first")
BUILTINS = ("count", "size", "len", "disjoint", "alldifferent", "abs", "sqrt", "exp", "log",
            "min", "max", "sum", "prod", "exists", "forall", "first", "union", "intersection",
            "int", "float", "onehot", "dirichlet_pdf", "factorial", "lgamma")
MAX_FACTORIAL = 20  # 20! is the largest factorial an int64 holds


# ----------------------------------------------------------------------------- types

class Typer:
    """Infers every node's type, static integer bounds and dependencies.

    Runs on resolved IR: `env` maps each variable id (secret variable,
    argument, answer, local) to its type and dependencies.
    """

    def __init__(self, strings: set[str]):
        self.strings = strings  # every string literal seen: the game's string table

    def boolean(self, node: ir.Node, env: Env, what: str) -> ir.Node:
        out = self.check(node, env)
        if not isinstance(out.type, BoolT):
            raise SpecError(f"{what} must be true or false, not {out.type.show()}", out.loc,
                            hint="use a comparison, e.g. 'x == 1'")
        return out

    def check(self, node: ir.Node, env: Env) -> ir.Node:
        method = getattr(self, "_" + type(node).__name__.lower())
        out = method(node, env)
        if not out.text:
            out.text = node.text
        if out.type is None:
            raise AssertionError(f"untyped {out}")
        return out

    # -- leaves

    def _const(self, node: ir.Const, env: Env) -> ir.Node:
        if node.type is None:  # enum labels arrive typed from name resolution
            node.type = const_type(node.value)
        if isinstance(node.type, StrT):
            self.strings.add(node.value)
        return node

    def _name(self, node: ir.Name, env: Env) -> ir.Node:
        kind, key = node.ref
        if kind == "domain":
            node.type = DomainT(key.describe(), key.type)
        elif kind == "table":
            node.type = key.type
        else:
            node.type, node.deps = env[key]
        return node

    # -- operators

    def _unary(self, node: ir.Unary, env: Env) -> ir.Node:
        node.operand = self.check(node.operand, env)
        t = node.operand.type
        if node.op == "not":
            _need(node.operand, BoolT, "'not' needs true or false")
            node.type = BoolT()
        else:
            _need_number(node.operand, "'-'")
            node.type = int_type(-t.hi, -t.lo) if isinstance(t, IntT) else FloatT()
        node.deps = node.operand.deps
        return node

    def _binary(self, node: ir.Binary, env: Env) -> ir.Node:
        node.left = self.check(node.left, env)
        node.right = self.check(node.right, env)
        a, b = node.left.type, node.right.type
        op = node.op
        node.deps = node.left.deps | node.right.deps
        if op in ("and", "or"):
            _need(node.left, BoolT, f"'{op}' needs true or false on both sides")
            _need(node.right, BoolT, f"'{op}' needs true or false on both sides")
            node.type = BoolT()
        elif op in ("==", "!="):
            node.left, node.right = self.unify_pair(node.left, node.right, f"'{op}'")
            node.type = BoolT()
        elif op in ("<", "<=", ">", ">="):
            if isinstance(a, EnumT) or isinstance(b, EnumT):
                node.left, node.right = self.unify_pair(node.left, node.right, f"'{op}'")
            else:
                _need_number(node.left, f"'{op}'")
                _need_number(node.right, f"'{op}'")
            node.type = BoolT()
        elif op in ("in", "not in"):
            elem = _element_type(node.right)
            if elem is None:
                raise SpecError(f"'{op}' needs a set, range, sequence or domain on its right, "
                                f"not {b.show()}", node.right.loc)
            probe = _typed(ir.Const(node.right.loc, None), elem, node.right)
            node.left, _ = self.unify_pair(node.left, probe, f"'{op}'")
            node.type = BoolT()
        else:
            _need_number(node.left, f"'{op}'")
            _need_number(node.right, f"'{op}'")
            node.type = _arith_type(op, node.left, node.right)
        return node

    def unify_pair(self, x: ir.Node, y: ir.Node, what: str) -> tuple[ir.Node, ir.Node]:
        """Make x and y comparable (coercing string constants to enum labels)."""
        a, b = x.type, y.type
        if isinstance(a, EnumT) and isinstance(b, StrT):
            return x, _as_label(y, a)
        if isinstance(b, EnumT) and isinstance(a, StrT):
            return _as_label(x, b), y
        if _compatible(a, b):
            return x, y
        raise SpecError(f"type mismatch: {what} compares {a.show()} with {b.show()}", x.loc,
                        hint=f"'{x.text}' is {a.show()}; '{y.text}' is {b.show()}")

    def _ifexpr(self, node: ir.IfExpr, env: Env) -> ir.Node:
        node.cond = self.boolean(node.cond, env, "the condition of 'if'")
        node.then = self.check(node.then, env)
        node.other = self.check(node.other, env)
        node.then, node.other, node.type = self.join(node.then, node.other, node)
        node.deps = node.cond.deps | node.then.deps | node.other.deps
        return node

    def join(self, x: ir.Node, y: ir.Node, where: ir.Node) -> tuple[ir.Node, ir.Node, Type]:
        """The common type of two alternatives (branches of if, items of a list)."""
        a, b = x.type, y.type
        if isinstance(a, IntT) and isinstance(b, IntT):
            return x, y, IntT(min(a.lo, b.lo), max(a.hi, b.hi))
        if isinstance(a, IntT | FloatT) and isinstance(b, IntT | FloatT):
            return x, y, FloatT()
        if isinstance(a, StrT) and isinstance(b, StrT):
            return x, y, StrT(a.values | b.values)
        if isinstance(a, EnumT) and isinstance(b, StrT):
            return x, _as_label(y, a), a
        if isinstance(b, EnumT) and isinstance(a, StrT):
            return _as_label(x, b), y, b
        if isinstance(a, SetT) and isinstance(b, SetT) and a.elem == b.elem:
            return x, y, a
        if a == b:
            return x, y, a
        raise SpecError(f"type mismatch: the alternatives are {a.show()} and {b.show()}",
                        where.loc, hint="both branches must have the same kind of value")

    def _rangeexpr(self, node: ir.RangeExpr, env: Env) -> ir.Node:
        node.lo = self.check(node.lo, env)
        node.hi = self.check(node.hi, env)
        for end in (node.lo, node.hi):
            if not isinstance(end.type, IntT):
                raise SpecError(f"range bounds must be integers, not {end.type.show()}",
                                end.loc)
        node.type = RangeT(IntT(node.lo.type.lo, node.hi.type.hi))
        node.deps = node.lo.deps | node.hi.deps
        return node

    def _index(self, node: ir.Index, env: Env) -> ir.Node:
        node.target = self.check(node.target, env)
        node.index = self.check(node.index, env)
        t = node.target.type
        node.deps = node.target.deps | node.index.deps
        if isinstance(t, TableT):
            dim = t.index[0]
            if isinstance(dim, EnumT) and isinstance(node.index.type, StrT):
                node.index = _as_label(node.index, dim)
            if not _compatible(dim, node.index.type):
                raise SpecError(f"table '{t.name}' is indexed by {dim.show()}, not "
                                f"{node.index.type.show()}", node.index.loc)
            node.type = TableT(t.name, t.index[1:], t.value) if len(t.index) > 1 else t.value
            return node
        if isinstance(t, SeqT) and t.index is not None:
            node.index = _as_position(node.index, t.index)
        if not isinstance(node.index.type, IntT):
            raise SpecError(f"an index must be an integer, not {node.index.type.show()}",
                            node.index.loc,
                            hint="a sequence declared {seq: D, index: E} is indexed by E's "
                                 "labels" if isinstance(t, SeqT) else None)
        if isinstance(t, SeqT):
            node.type = t.elem
            lo, hi = node.index.type.lo, node.index.type.hi
            if hi < 0 or lo >= t.length:
                raise SpecError(f"index {node.index.text} is out of range 0..{t.length - 1}",
                                node.index.loc, hint="sequences are indexed from 0")
            return node
        if isinstance(t, TupleT):
            if node.index.type.lo != node.index.type.hi or not \
                    0 <= node.index.type.lo < len(t.items):
                raise SpecError("a tuple needs a constant index in range", node.index.loc)
            node.type = t.items[node.index.type.lo]
            return node
        raise SpecError(f"cannot index {t.show()}", node.target.loc,
                        hint="only sequences, tuples and data tables are indexed")

    def _field(self, node: ir.Field, env: Env) -> ir.Node:
        node.target = self.check(node.target, env)
        t = node.target.type
        if not isinstance(t, RecordT):
            raise SpecError(f"'{node.target.text}' is {t.show()}, which has no fields",
                            node.loc)
        ft = t.field(node.name)
        if ft is None:
            raise SpecError(f"no field '{node.name}' in {t.show()}", node.loc,
                            hint=did_you_mean(node.name, [n for n, _ in t.fields]))
        node.type = ft
        node.deps = node.target.deps
        return node

    def _tupleexpr(self, node: ir.TupleExpr, env: Env) -> ir.Node:
        node.items = [self.check(x, env) for x in node.items]
        node.type = TupleT(tuple(x.type for x in node.items))
        node.deps = frozenset().union(*(x.deps for x in node.items))
        return node

    def _listexpr(self, node: ir.ListExpr, env: Env) -> ir.Node:
        items = [self.check(x, env) for x in node.items]
        if not items:
            raise SpecError("an empty list has no element type", node.loc)
        elem = items[0].type
        for k in range(1, len(items)):
            probe = _typed(ir.Const(node.loc, None), elem, node)
            _, items[k], elem = self.join(probe, items[k], items[k])
        items = [_as_label(x, elem) if isinstance(elem, EnumT) and isinstance(x.type, StrT)
                 else x for x in items]
        node.items = items
        node.type = SeqT(elem, len(items))
        node.deps = frozenset().union(*(x.deps for x in items))
        return node

    def _let(self, node: ir.Let, env: Env) -> ir.Node:
        inner = dict(env)
        for k, (uid, expr) in enumerate(node.bindings):
            typed = self.check(expr, inner)
            node.bindings[k] = (uid, typed)
            inner[uid] = (typed.type, typed.deps)
        node.body = self.check(node.body, inner)
        node.type, node.deps = node.body.type, node.body.deps
        return node

    # -- calls

    def _call(self, node: ir.Call, env: Env) -> ir.Node:
        node.args = [self.check(a, env) for a in node.args]
        node.deps = frozenset().union(*(a.deps for a in node.args))
        node.type = builtin_type(self, node)
        return node

    def _generator(self, node: ir.Generator, env: Env) -> ir.Node:
        if node.func not in AGGREGATES:
            raise SpecError(f"'{node.func}' cannot take a 'for' clause", node.loc,
                            hint="aggregates: " + ", ".join(AGGREGATES))
        max_extra = 1 if node.func in ("min", "max", "first") else 0
        if len(node.extra) > max_extra:
            raise SpecError(f"{node.func}(... for ...) takes "
                            f"{'one default value' if max_extra else 'no further arguments'}"
                            f" after the generator", node.extra[0].loc)
        inner = dict(env)
        iterations = 1
        loop_uids = set()
        for loop in node.loops:
            loop.iterable = self.check(loop.iterable, inner)
            elem = _element_type(loop.iterable)
            if elem is None:
                raise SpecError(f"cannot iterate over {loop.iterable.type.show()}",
                                loop.iterable.loc,
                                hint="iterate a range a..b, a domain, a set or a sequence")
            iterations *= _static_length(loop.iterable)
            if iterations > MAX_UNROLL:
                raise SpecError(f"this generator runs over {iterations:,} combinations, more "
                                f"than the {MAX_UNROLL:,} the compiler unrolls",
                                loop.iterable.loc,
                                hint="iterate a smaller range or domain (static bounds count)")
            dynamic = isinstance(loop.iterable.type, SeqT)
            names = loop.names
            if len(names) == 1:
                elem_types = [elem]
            elif isinstance(elem, TupleT) and len(elem.items) == len(names):
                elem_types = list(elem.items)
            elif isinstance(elem, SeqT) and elem.length == len(names):
                elem_types = [elem.elem] * len(names)
            else:
                raise SpecError(f"cannot unpack {elem.show()} into {len(names)} names",
                                loop.iterable.loc)
            for uid, et in zip(names, elem_types, strict=True):
                deps = frozenset({uid}) | (loop.iterable.deps if dynamic else frozenset())
                inner[uid] = (et, deps)
                loop_uids.add(uid)
        if node.cond is not None:
            node.cond = self.boolean(node.cond, inner, "the 'if' filter")
        node.body = self.check(node.body, inner)
        node.extra = [self.check(x, env) for x in node.extra]
        node.type = self.aggregate_type(node, iterations)
        deps = frozenset().union(*(x.deps for x in ir.children(node)))
        node.deps = deps - loop_uids
        return node

    def aggregate_type(self, node: ir.Generator, n: int) -> Type:
        body, f = node.body, node.func
        if f == "count":
            _need(body, BoolT, "count(...) counts conditions: its body must be true or false")
            return IntT(0, n)
        if f in ("exists", "forall"):
            _need(body, BoolT, f"{f}(...) needs a true-or-false body")
            return BoolT()
        if f == "first":
            if node.extra:
                _, node.extra[0], t = self.join(body, node.extra[0], node)
                return t
            return body.type
        _need_number(body, f"{f}(...)")
        t = body.type
        if f == "sum":
            if isinstance(t, IntT):
                return int_type(min(0, n * t.lo), max(0, n * t.hi))
            return FloatT()
        if f == "prod":
            if isinstance(t, IntT):
                m = max(abs(t.lo), abs(t.hi), 1) ** n
                return int_type(-m if t.lo < 0 else 0, m)
            return FloatT()
        if node.extra:
            _need_number(node.extra[0], f"the default of {f}(...)")
            _, node.extra[0], t = self.join(body, node.extra[0], node)
        return t


# ----------------------------------------------------------------------------- builtins

def builtin_type(typer: Typer, node: ir.Call) -> Type:
    """Check a builtin call's arguments; return its type."""
    f, args = node.func, node.args
    types = [a.type for a in args]

    def arity(*allowed: int) -> None:
        if len(args) not in allowed:
            want = " or ".join(str(k) for k in allowed)
            raise SpecError(f"{f}() takes {want} argument{'s' if allowed != (1,) else ''}, "
                            f"given {len(args)}", node.loc)

    if f == "count":
        if len(args) == 1:
            raise SpecError("count() needs a 'for' clause or two arguments", node.loc,
                            hint="count(x == 1 for x in xs), or count(xs, value)")
        arity(2)
        elem = _element_type(args[0])
        if not isinstance(types[0], SeqT) or elem is None:
            raise SpecError(f"count(xs, v) needs a sequence, not {types[0].show()}",
                            args[0].loc)
        probe = _typed(ir.Const(node.loc, None), elem, args[0])
        args[1], _ = typer.unify_pair(args[1], probe, "count(xs, v)")
        return IntT(0, types[0].length)
    if f in ("size", "len"):
        arity(1)
        t = types[0]
        if isinstance(t, SetT):
            return IntT(0, universe_size(t.elem))
        if isinstance(t, SeqT):
            return IntT(t.length, t.length)
        if isinstance(t, RangeT | DomainT):
            n = _static_length(args[0])
            return IntT(0, n)
        raise SpecError(f"{f}() needs a set or sequence, not {t.show()}", args[0].loc)
    if f in ("disjoint", "union", "intersection"):
        arity(2)
        for a in args:
            if not isinstance(a.type, SetT):
                raise SpecError(f"{f}() needs sets, not {a.type.show()}", a.loc)
        if types[0] != types[1]:
            raise SpecError(f"type mismatch: {f}() of {types[0].show()} and {types[1].show()}",
                            node.loc)
        return BoolT() if f == "disjoint" else types[0]
    if f == "alldifferent":
        arity(1)
        if not isinstance(types[0], SeqT):
            raise SpecError(f"alldifferent() needs a sequence, not {types[0].show()}",
                            args[0].loc)
        return BoolT()
    if f == "abs":
        arity(1)
        _need_number(args[0], "abs()")
        t = types[0]
        if isinstance(t, IntT):
            lo = 0 if t.lo <= 0 <= t.hi else min(abs(t.lo), abs(t.hi))
            return IntT(lo, max(abs(t.lo), abs(t.hi)))
        return FloatT()
    if f in ("sqrt", "exp", "log", "lgamma"):
        arity(1)
        _need_number(args[0], f"{f}()")
        return FloatT()
    if f == "factorial":
        arity(1)
        t = types[0]
        if not isinstance(t, IntT) or t.lo < 0 or t.hi > MAX_FACTORIAL:
            raise SpecError(f"factorial() needs an integer in 0..{MAX_FACTORIAL}, not "
                            f"{t.show()}", args[0].loc,
                            hint="for larger numbers use exp() of a sum of log()s")
        return IntT(math.factorial(t.lo), math.factorial(t.hi))
    if f in ("min", "max") and len(args) >= 2:
        for a in args:
            _need_number(a, f"{f}()")
        if all(isinstance(t, IntT) for t in types):
            pick = min if f == "min" else max
            return IntT(pick(t.lo for t in types), pick(t.hi for t in types))
        return FloatT()
    if f in ("min", "max", "sum", "prod", "exists", "forall", "first"):
        arity(1)
        t = types[0]
        if not isinstance(t, SeqT) or t.length == 0:
            raise SpecError(f"{f}() needs a non-empty sequence (or a 'for' clause), "
                            f"not {t.show()}", args[0].loc)
        e = t.elem
        if f in ("exists", "forall"):
            _need(_typed(ir.Const(node.loc, None), e, args[0]), BoolT,
                  f"{f}() needs a sequence of true/false values")
            return BoolT()
        if f == "first":
            return e
        if not isinstance(e, IntT | FloatT):
            raise SpecError(f"{f}() needs numbers, not {e.show()}", args[0].loc)
        if f == "sum":
            return int_type(t.length * e.lo, t.length * e.hi) if isinstance(e, IntT) \
                else FloatT()
        if f == "prod":
            if isinstance(e, IntT):
                m = max(abs(e.lo), abs(e.hi), 1) ** t.length
                return int_type(-m if e.lo < 0 else 0, m)
            return FloatT()
        return e
    if f == "int":
        arity(1)
        t = types[0]
        if isinstance(t, BoolT):
            return IntT(0, 1)
        if isinstance(t, IntT):
            return t
        if isinstance(t, FloatT):
            return int_type(-ir.INT_LIMIT, ir.INT_LIMIT)
        if isinstance(t, EnumT):
            return IntT(0, len(t.values) - 1)  # the label's 0-based position
        raise SpecError(f"int() needs a number, a truth value or an enum value, not "
                        f"{t.show()}", args[0].loc)
    if f == "float":
        arity(1)
        if not isinstance(types[0], IntT | FloatT | BoolT):
            raise SpecError(f"float() needs a number, not {types[0].show()}", args[0].loc)
        return FloatT()
    if f == "onehot":
        arity(2)
        if not isinstance(types[1], DomainT) or not isinstance(types[1].elem, IntT | EnumT):
            raise SpecError("onehot(v, D) needs a range or enum domain D", args[1].loc)
        elem = types[1].elem
        if isinstance(elem, EnumT) and isinstance(types[0], StrT):
            args[0] = _as_label(args[0], elem)
        if not _compatible(args[0].type, elem):
            raise SpecError(f"type mismatch: onehot of {args[0].type.show()} over "
                            f"{elem.show()}", args[0].loc)
        return SeqT(IntT(0, 1), universe_size(elem))
    if f == "dirichlet_pdf":
        arity(2)
        lengths = []
        for a in args:
            if not isinstance(a.type, SeqT) or not isinstance(a.type.elem, IntT | FloatT):
                raise SpecError(f"dirichlet_pdf(x, alpha) needs sequences of numbers, not "
                                f"{a.type.show()}", a.loc)
            lengths.append(a.type.length)
        if lengths[0] != lengths[1]:
            raise SpecError(f"dirichlet_pdf: x has {lengths[0]} parts, alpha {lengths[1]}",
                            node.loc)
        return FloatT()
    raise AssertionError(f)


# ----------------------------------------------------------------------------- helpers

def _typed(node: ir.Node, t: Type, like: ir.Node) -> ir.Node:
    node.type = t
    node.text = like.text
    return node


def _need(node: ir.Node, kind: type, message: str) -> None:
    if not isinstance(node.type, kind):
        raise SpecError(f"type mismatch: {message}; '{node.text}' is {node.type.show()}",
                        node.loc)


def _need_number(node: ir.Node, what: str) -> None:
    if isinstance(node.type, BoolT):
        raise SpecError(f"type mismatch: {what} needs numbers, and '{node.text}' is true/false",
                        node.loc, hint="use int(...) or count(...) to turn truths into numbers")
    if not isinstance(node.type, IntT | FloatT):
        raise SpecError(f"type mismatch: {what} needs numbers, and '{node.text}' is "
                        f"{node.type.show()}", node.loc)


def _as_position(node: ir.Node, enum: EnumT) -> ir.Node:
    """A label of `enum` used as a sequence index: int(label), its position."""
    node = _as_label(node, enum)
    if not isinstance(node.type, EnumT) or node.type != enum:
        raise SpecError(f"this sequence is indexed by {enum.show()}, not "
                        f"{node.type.show()}", node.loc,
                        hint=f"labels: {', '.join(enum.values)}")
    call = ir.Call(node.loc, "int", [node])
    call.type, call.deps, call.text = IntT(0, len(enum.values) - 1), node.deps, node.text
    return call


def _as_label(node: ir.Node, enum: EnumT) -> ir.Node:
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
        node.then, node.other = _as_label(node.then, enum), _as_label(node.other, enum)
        node.type = enum
        return node
    raise SpecError(f"'{node.text}' is a string; compare it with strings, not {enum.name} "
                    "values", node.loc)


def _compatible(a: Type, b: Type) -> bool:
    if isinstance(a, IntT | FloatT) and isinstance(b, IntT | FloatT):
        return True
    if isinstance(a, StrT) and isinstance(b, StrT):
        return True
    if isinstance(a, SeqT) and isinstance(b, SeqT):
        return a.length == b.length and _compatible(a.elem, b.elem)
    if isinstance(a, TupleT) and isinstance(b, TupleT):
        return len(a.items) == len(b.items) and all(
            _compatible(x, y) for x, y in zip(a.items, b.items, strict=True))
    if isinstance(a, SetT) and isinstance(b, SetT):
        return a.elem == b.elem
    if isinstance(a, RecordT) and isinstance(b, RecordT):
        return [n for n, _ in a.fields] == [n for n, _ in b.fields] and all(
            _compatible(x, y) for (_, x), (_, y) in zip(a.fields, b.fields, strict=True))
    return type(a) is type(b) and (not isinstance(a, EnumT) or a == b)


def _element_type(node: ir.Node) -> Type | None:
    t = node.type
    if isinstance(t, RangeT):
        return t.elem
    if isinstance(t, DomainT):
        return t.elem if t.elem.finite else None
    if isinstance(t, SetT | SeqT):
        return t.elem
    return None


def _static_length(node: ir.Node) -> int:
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


def _arith_type(op: str, x: ir.Node, y: ir.Node) -> Type:
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
        if b.hi > 62:
            return int_type(-ir.INT_LIMIT, ir.INT_LIMIT)
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


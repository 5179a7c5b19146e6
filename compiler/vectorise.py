"""Vectorised kernels: typed IR compiled to closures over numpy arrays.

A value is evaluated for a block of rows (query arguments, or answers) against
a block of hypotheses at once. Row-dependent inputs have shape (R, 1),
hypothesis-dependent ones (1, H), constants are Python scalars; numpy's
broadcasting then evaluates every subexpression at the smallest shape its
dependencies need. Sequences, tuples and records are Python tuples of arrays.

Generators are unrolled in Python over their static iteration space (a set is
iterated over its element universe with a membership mask, a range with
dynamic ends over its static bounds with a mask). Subexpressions that do not
depend on the rows are cached per hypothesis block, keyed by the iteration
of the loops they depend on: in `min(count(g, c), count(code, c))`, the
secret's colour counts are computed once, not once per row block.

Integers use the smallest dtype their static bounds allow. Where the reference
interpreter raises (division by zero, index out of range, `min` of nothing
without a default) the kernel substitutes a harmless value instead, because
it evaluates both branches of every `if`; see docs/spec-language.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sleuth.compiler import ir
from sleuth.compiler.arrays import (
    all_of,
    any_of,
    cast,
    dtype_of,
    element,
    equal,
    select,
    wide_dtype,
)
from sleuth.compiler.builtins import AGGREGATES, BUILTINS, Fold
from sleuth.compiler.domains import (
    Domain,
    domain_size,
    listed_codes,
    row_codes,
    universe_size,
    unrank,
)
from sleuth.compiler.ir import (
    HYP,
    ROW,
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
    Type,
    UnionT,
)
from sleuth.compiler.iteration import iterate_kernel
from sleuth.compiler.visitor import Visitor

Fn = Callable[["Ctx"], Any]


@dataclass
class RangeVal:
    lo: Any
    hi: Any


@dataclass
class Ctx:
    """What one evaluation sees: variable values, loop positions, the block cache."""

    env: dict[str, Any]
    it: dict[str, int] = field(default_factory=dict)
    cache: dict[tuple, Any] = field(default_factory=dict)


class Compiler(Visitor):
    """Compiles typed IR nodes (once each) into closures `fn(ctx) -> value`."""

    def __init__(self, strings: tuple[str, ...]):
        self.strings = strings
        self.compiled: dict[int, Fn] = {}

    def __call__(self, node: ir.Node) -> Fn:
        fn = self.compiled.get(id(node))
        if fn is None:
            method = self.handler(node)
            if method is None:
                raise TypeError(f"no kernel for {type(node).__name__}")
            fn = method(node)
            if _cacheable(node):
                fn = _cached(node, fn)
            self.compiled[id(node)] = fn
        return fn

    # -- leaves

    def _const(self, node: ir.Const) -> Fn:
        value = encode_const(node.type, node.value, self.strings)
        return lambda ctx: value

    def _name(self, node: ir.Name) -> Fn:
        kind, key = node.ref
        if kind in ("domain", "table"):
            return lambda ctx: key
        return lambda ctx: ctx.env[key]

    # -- operators

    def _unary(self, node: ir.Unary) -> Fn:
        f = self(node.operand)
        if node.op == "not":
            return lambda ctx: np.logical_not(f(ctx))
        dt = dtype_of(node.type)
        return lambda ctx: np.negative(f(ctx), dtype=dt)

    def _binary(self, node: ir.Binary) -> Fn:
        a, b, op = self(node.left), self(node.right), node.op
        if op == "and":
            return lambda ctx: np.logical_and(a(ctx), b(ctx))
        if op == "or":
            return lambda ctx: np.logical_or(a(ctx), b(ctx))
        if op in ("==", "!="):
            t = node.left.type
            if op == "==":
                return lambda ctx: equal(t, a(ctx), b(ctx))

            def unequal(ctx):
                x, y = a(ctx), b(ctx)
                if isinstance(x, tuple):
                    return np.logical_not(equal(t, x, y))
                return np.not_equal(x, y)  # one pass, not two

            return unequal
        if op in ("<", "<=", ">", ">="):
            ufunc = {"<": np.less, "<=": np.less_equal, ">": np.greater,
                     ">=": np.greater_equal}[op]
            return lambda ctx: ufunc(a(ctx), b(ctx))
        if op in ("in", "not in"):
            test = self.membership(node.left, node.right)
            if op == "in":
                return test
            return lambda ctx: np.logical_not(test(ctx))
        return self.arithmetic(node, a, b)

    def arithmetic(self, node: ir.Binary, a: Fn, b: Fn) -> Fn:
        op, dt = node.op, wide_dtype(node, node.left, node.right)
        rt = node.right.type
        may_be_zero = not isinstance(rt, IntT) or rt.lo <= 0 <= rt.hi
        if op in ("+", "-", "*"):
            ufunc = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
            if dt.kind == "f":
                def float_op(ctx):  # inf * 0 is NaN, as in the interpreter: no warning
                    with np.errstate(all="ignore"):
                        return ufunc(a(ctx), b(ctx), dtype=dt)
                return float_op
            return lambda ctx: ufunc(a(ctx), b(ctx), dtype=dt)
        if op in ("/", "//", "%"):
            ufunc = {"/": np.true_divide, "//": np.floor_divide, "%": np.remainder}[op]

            def divide(ctx):
                x, y = a(ctx), b(ctx)
                if may_be_zero:
                    y = np.where(np.equal(y, 0), 1, y)
                with np.errstate(all="ignore"):  # inf % 2 is NaN, as in the interpreter
                    return ufunc(x, y, dtype=dt)

            return divide
        if isinstance(node.type, FloatT):
            def fpow(ctx):
                x = np.asarray(a(ctx), dtype=np.float64)
                y = np.asarray(b(ctx), dtype=np.float64)
                with np.errstate(all="ignore"):
                    return np.power(x, y)
            return fpow
        return lambda ctx: np.power(a(ctx), b(ctx), dtype=dt)

    def membership(self, x_node: ir.Node, coll_node: ir.Node) -> Fn:
        x = self(x_node)
        t = coll_node.type
        if isinstance(t, SetT):
            s = self(coll_node)
            offset = t.elem.lo if isinstance(t.elem, IntT) else 0
            n = universe_size(t.elem)
            xt = x_node.type
            checked = isinstance(xt, IntT) and (xt.lo < offset or xt.hi >= offset + n)

            def in_set(ctx):
                pos = np.subtract(x(ctx), offset, dtype=np.int64)
                if checked:
                    inside = (pos >= 0) & (pos < n)
                    bits = np.right_shift(s(ctx), np.clip(pos, 0, n - 1)) & 1
                    return inside & bits.astype(bool)
                return (np.right_shift(s(ctx), pos) & 1).astype(bool)

            return in_set
        if isinstance(t, RangeT):
            r = self(coll_node)

            def in_range(ctx):
                v, rng = x(ctx), r(ctx)
                return np.logical_and(np.greater_equal(v, rng.lo), np.less_equal(v, rng.hi))

            return in_range
        if isinstance(t, SeqT):
            xs = self(coll_node)
            et = t.elem
            return lambda ctx: any_of([equal(et, x(ctx), e) for e in xs(ctx)])
        assert isinstance(t, DomainT)
        d = coll_node.ref[1]
        return lambda ctx: member_mask(d, x(ctx))

    def _ifexpr(self, node: ir.IfExpr) -> Fn:
        c, a, b, t = self(node.cond), self(node.then), self(node.other), node.type

        def run(ctx):
            cond = c(ctx)
            if np.ndim(cond) == 0:  # one condition for the whole block (a def's constant
                # argument, a loop variable): only the branch taken, in t's dtype
                return cast(t, (a if bool(cond) else b)(ctx))
            return select(t, cond, a(ctx), b(ctx))

        return run

    def _rangeexpr(self, node: ir.RangeExpr) -> Fn:
        lo, hi = self(node.lo), self(node.hi)
        return lambda ctx: RangeVal(lo(ctx), hi(ctx))

    def _index(self, node: ir.Index) -> Fn:
        if isinstance(node.target.type, TableT):
            return self.table_lookup(node)
        target, t = self(node.target), node.target.type
        it = node.index.type
        if it.lo == it.hi:
            k = it.lo
            return lambda ctx: target(ctx)[k]
        index = self(node.index)
        n = t.length if isinstance(t, SeqT) else len(t.items)

        def pick(ctx):
            items, i = target(ctx), index(ctx)
            if np.ndim(i) == 0:  # one index for the whole block, e.g. a loop variable
                item = items[int(i)] if 0 <= int(i) < n else items[0]
                return cast(node.type, item)  # the node's dtype, as below
            out = items[0]
            for k in range(max(it.lo, 1), min(it.hi, n - 1) + 1):
                out = select(node.type, np.equal(i, k), items[k], out)
            return out

        return pick

    def table_lookup(self, node: ir.Index) -> Fn:
        chain: list[ir.Node] = []
        target: ir.Node = node
        while isinstance(target, ir.Index):
            chain.append(target.index)
            target = target.target
        chain.reverse()
        table = target.ref[1]
        if len(chain) != len(table.index):
            raise AssertionError("partial table index")  # check.py only allows full ones
        fns = [self(i) for i in chain]
        offsets = [d.type.lo if isinstance(d.type, IntT) else 0 for d in table.index]
        sizes = [universe_size(d.type) for d in table.index]
        values = table.values

        def lookup(ctx):
            pos = tuple(np.clip(np.subtract(f(ctx), off, dtype=np.int64), 0, n - 1)
                        for f, off, n in zip(fns, offsets, sizes, strict=True))
            return values[np.broadcast_arrays(*pos)] if pos else values

        return lookup

    def _field(self, node: ir.Field) -> Fn:
        target = self(node.target)
        t = node.target.type
        assert isinstance(t, RecordT)
        k = [n for n, _ in t.fields].index(node.name)
        return lambda ctx: target(ctx)[k]

    def _tupleexpr(self, node: ir.TupleExpr) -> Fn:
        items = [self(x) for x in node.items]
        return lambda ctx: tuple(f(ctx) for f in items)

    _listexpr = _tupleexpr

    def _let(self, node: ir.Let) -> Fn:
        bindings = [(uid, self(e)) for uid, e in node.bindings]
        body = self(node.body)

        def let(ctx):
            for uid, f in bindings:
                ctx.env[uid] = f(ctx)
            return body(ctx)

        return let

    def _iterate(self, node: ir.Iterate) -> Fn:
        return iterate_kernel(self, node, lambda env, it: Ctx(env, it))

    # -- calls

    def _call(self, node: ir.Call) -> Fn:
        return BUILTINS[node.func].kernel(self, node, [self(a) for a in node.args])

    def _generator(self, node: ir.Generator) -> Fn:
        sources = [loop_source(self, lp) for lp in node.loops]
        body = self(node.body)
        cond = self(node.cond) if node.cond is not None else None
        extra = [self(x) for x in node.extra]
        t, dt = node.type, dtype_of(node.type)
        aggregator = AGGREGATES[node.func]

        def walk(ctx: Ctx, state: Fold, k: int, mask: Any) -> None:
            # A function of the compiled node, not a closure made per call: a nested
            # recursive closure is a reference cycle, which kept every block's arrays
            # (the context, the fold) alive until the garbage collector ran, far past
            # the memory a partition count is meant to stay within.
            if k == len(sources):
                m = mask
                if cond is not None:
                    c = cond(ctx)
                    m = c if m is None else np.logical_and(m, c)
                state.add(body(ctx), m)
                return
            for mk in sources[k](ctx):
                walk(ctx, state, k + 1, mk if mask is None else (
                    mask if mk is None else np.logical_and(mask, mk)))

        def generate(ctx):
            state = Fold(aggregator, t, dt)
            walk(ctx, state, 0, None)
            return state.result(extra[0](ctx) if extra else None)

        return generate


# ----------------------------------------------------------------------------- loops

def loop_source(compile: Compiler, loop: ir.Loop) -> Callable[[Ctx], Any]:
    """A generator function: binds the loop names per iteration, yields the mask."""
    it = loop.iterable
    t = it.type
    names = loop.names
    values = compile(it)

    def bind(ctx, k, value):
        ctx.it[names[0]] = k
        if len(names) == 1:
            ctx.env[names[0]] = value
        else:
            for uid, part in zip(names, value, strict=True):
                ctx.env[uid] = part
                ctx.it[uid] = k

    if isinstance(t, SeqT):
        def over_seq(ctx):
            for k, v in enumerate(values(ctx)):
                bind(ctx, k, v)
                yield None
        return over_seq
    if isinstance(t, SetT):
        offset = t.elem.lo if isinstance(t.elem, IntT) else 0
        n = universe_size(t.elem)

        def over_set(ctx):
            s = values(ctx)
            for b in range(n):
                bind(ctx, b, b + offset)
                yield (np.right_shift(s, b) & 1).astype(bool)
        return over_set
    if isinstance(t, RangeT):
        static_lo, static_hi = t.elem.lo, t.elem.hi

        def over_range(ctx):
            r = values(ctx)
            if np.ndim(r.lo) == 0 and np.ndim(r.hi) == 0:
                for k, v in enumerate(range(int(r.lo), int(r.hi) + 1)):
                    bind(ctx, k, v)
                    yield None
                return
            for k, v in enumerate(range(static_lo, static_hi + 1)):
                bind(ctx, k, v)
                yield np.logical_and(np.less_equal(r.lo, v), np.greater_equal(r.hi, v))
        return over_range
    assert isinstance(t, DomainT)
    d: Domain = it.ref[1]
    encoded = unrank(d, np.arange(domain_size(d), dtype=np.int64))
    elems = [element(encoded, k) for k in range(domain_size(d))]

    def over_domain(ctx):
        for k, v in enumerate(elems):
            bind(ctx, k, v)
            yield None
    return over_domain


# ----------------------------------------------------------------------------- helpers

def member_mask(d: Domain, encoded: Any) -> Any:
    """domains.member() for values in kernel encoding: a boolean array (or numpy bool)."""
    t = d.type
    if d.kind == "multiset":
        total = sum(np.asarray(c, dtype=np.int64) for c in encoded)
        return np.equal(total, d.total) & all_of([np.greater_equal(c, 0) for c in encoded])
    if d.listed is not None:
        lo = d.elem.type.lo if isinstance(d.elem.type, IntT) else 0
        ranks = np.stack(np.broadcast_arrays(*[np.asarray(v, dtype=np.int64) - lo
                                               for v in encoded]), axis=-1)
        codes = row_codes(d, ranks.reshape(-1, d.length)).reshape(ranks.shape[:-1])
        elements = all_of([member_mask(d.elem, v) for v in encoded])  # codes need ranks in range
        return np.logical_and(elements, np.isin(codes, listed_codes(d)))
    if d.kind == "seq":
        return all_of([member_mask(d.elem, v) for v in encoded])
    if d.kind == "set":
        size = np.bitwise_count(np.asarray(encoded, dtype=np.int64))
        return (size >= d.sizes[0]) & (size <= d.sizes[1])  # bits only name universe elements
    if d.kind == "record":
        return all_of([member_mask(f, v) for (_, f), v in zip(d.fields, encoded, strict=True)])
    if isinstance(t, IntT):
        return np.greater_equal(encoded, t.lo) & np.less_equal(encoded, t.hi)
    return np.True_  # enum codes and booleans are always in range


def _cacheable(node: ir.Node) -> bool:
    return (HYP in node.deps and ROW not in node.deps
            and not isinstance(node, ir.Name | ir.Const | ir.Let))


def _cached(node: ir.Node, fn: Fn) -> Fn:
    loops = tuple(sorted(d for d in node.deps if d not in (ROW, HYP)))
    nid = id(node)

    def cached(ctx):
        key = (nid, *(ctx.it[d] for d in loops))
        value = ctx.cache.get(key)
        if value is None:
            value = ctx.cache[key] = fn(ctx)
        return value

    return cached


def encode_const(t: Type, value: Any, strings: tuple[str, ...]) -> Any:
    """A constant in kernel encoding, as a Python scalar (weak in numpy's casting)."""
    if isinstance(t, EnumT):
        return t.values.index(value)
    if isinstance(t, StrT):
        return strings.index(value)
    if isinstance(t, BoolT):
        return bool(value)
    if isinstance(t, FloatT):
        return float(value)
    if isinstance(t, IntT | UnionT):
        return int(t.encode(value) if isinstance(t, UnionT) else value)
    raise TypeError(f"no constant encoding for {t.show()}")


__all__ = ["Compiler", "Ctx", "RangeVal", "encode_const", "equal", "select"]

"""Type inference: every node of resolved IR gets a type, static bounds and dependencies.

Integers carry an interval (`IntT(lo, hi)`) computed by interval arithmetic;
the kernels choose dtypes and feedback radices from it. `deps` records the
axes a node varies along -- `ir.ROW` (query arguments or answers), `ir.HYP`
(the secret) and the ids of enclosing loop variables -- so kernels evaluate
each node at the smallest shape and cache what does not vary with the rows.
String literals compared with enum values become labels of that enum here.
"""

from __future__ import annotations

from sleuth.compiler import ir
from sleuth.compiler.builtins import AGGREGATES, BUILTINS
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
from sleuth.compiler.typerules import (
    arith_type,
    as_label,
    as_position,
    compatible,
    const_type,
    element_type,
    join,
    need,
    need_number,
    static_length,
    typed,
    unify_pair,
)
from sleuth.compiler.visitor import Visitor

Env = dict[str, tuple[Type, frozenset[str]]]
MAX_UNROLL = 100_000  # generator iterations (static bound) a kernel may unroll
STATE_ROUNDS = 40  # passes over an iterate's step to find bounds that hold at every step
WIDEN_AFTER = 6  # passes after which the state's growing integer bounds jump to +-WIDE
WIDE = 2**40


# ----------------------------------------------------------------------------- types

class Typer(Visitor):
    """Infers every node's type, static integer bounds and dependencies.

    Runs on resolved IR: `env` maps each variable id (secret variable,
    argument, answer, local) to its type and dependencies.
    """

    def __init__(self, strings: set[str]):
        self.strings = strings  # every string literal seen: the game's string table

    unify_pair = staticmethod(unify_pair)  # typerules.py: the builtins' type rules use them
    join = staticmethod(join)

    def boolean(self, node: ir.Node, env: Env, what: str) -> ir.Node:
        out = self.check(node, env)
        if not isinstance(out.type, BoolT):
            raise SpecError(f"{what} must be true or false, not {out.type.show()}", out.loc,
                            hint="use a comparison, e.g. 'x == 1'")
        return out

    def check(self, node: ir.Node, env: Env) -> ir.Node:
        method = self.handler(node)
        if method is None:
            raise TypeError(f"no type rule for {type(node).__name__}")
        try:
            out = method(node, env)
        except ir.IntOverflow as e:  # raised by this node's own bounds: its children passed
            raise SpecError(
                f"'{node.text}' can reach {ir.magnitude(e.bound)}, beyond the integers Sleuth "
                f"computes with (at most 2**62 in size)", node.loc,
                hint="narrow the bounds it is computed from, or compute in floats: "
                     "float(...)") from None
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
            need(node.operand, BoolT, "'not' needs true or false")
            node.type = BoolT()
        else:
            need_number(node.operand, "'-'")
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
            need(node.left, BoolT, f"'{op}' needs true or false on both sides")
            need(node.right, BoolT, f"'{op}' needs true or false on both sides")
            node.type = BoolT()
        elif op in ("==", "!="):
            node.left, node.right = self.unify_pair(node.left, node.right, f"'{op}'")
            node.type = BoolT()
        elif op in ("<", "<=", ">", ">="):
            if isinstance(a, EnumT) or isinstance(b, EnumT):
                node.left, node.right = self.unify_pair(node.left, node.right, f"'{op}'")
            else:
                need_number(node.left, f"'{op}'")
                need_number(node.right, f"'{op}'")
            node.type = BoolT()
        elif op in ("in", "not in"):
            elem = element_type(node.right)
            if elem is None:
                raise SpecError(f"'{op}' needs a set, range, sequence or domain on its right, "
                                f"not {b.show()}", node.right.loc)
            if isinstance(a, FloatT) and isinstance(b, SetT):
                raise SpecError(f"'{op}' tests a float against the integer elements of "
                                f"{b.show()}", node.left.loc,
                                hint="round it first: int(...)")
            probe = typed(ir.Const(node.right.loc, None), elem, node.right)
            node.left, _ = self.unify_pair(node.left, probe, f"'{op}'")
            node.type = BoolT()
        else:
            need_number(node.left, f"'{op}'")
            need_number(node.right, f"'{op}'")
            node.type = arith_type(op, node.left, node.right)
        return node

    def _ifexpr(self, node: ir.IfExpr, env: Env) -> ir.Node:
        node.cond = self.boolean(node.cond, env, "the condition of 'if'")
        node.then = self.check(node.then, env)
        node.other = self.check(node.other, env)
        node.then, node.other, node.type = self.join(node.then, node.other, node)
        node.deps = node.cond.deps | node.then.deps | node.other.deps
        return node

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
                node.index = as_label(node.index, dim)
            if not compatible(dim, node.index.type):
                raise SpecError(f"table '{t.name}' is indexed by {dim.show()}, not "
                                f"{node.index.type.show()}", node.index.loc)
            node.type = TableT(t.name, t.index[1:], t.value) if len(t.index) > 1 else t.value
            return node
        if isinstance(t, SeqT) and t.index is not None:
            node.index = as_position(node.index, t.index)
        if not isinstance(node.index.type, IntT):
            raise SpecError(f"an index must be an integer, not {node.index.type.show()}",
                            node.index.loc,
                            hint="a sequence declared {seq: D, index: E} is indexed by E's "
                                 "labels" if isinstance(t, SeqT) else None)
        if isinstance(t, SeqT):
            node.type = t.elem
            lo, hi = node.index.type.lo, node.index.type.hi
            if lo <= hi and (hi < 0 or lo >= t.length):  # (lo > hi: a loop over nothing)
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
            probe = typed(ir.Const(node.loc, None), elem, node)
            _, items[k], elem = self.join(probe, items[k], items[k])
        items = [as_label(x, elem) if isinstance(elem, EnumT) and isinstance(x.type, StrT)
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

    # -- iteration

    def _iterate(self, node: ir.Iterate, env: Env) -> ir.Node:
        """The state's type is the least one that holds at every step: the start's, joined
        with the step's result over the state so far, until nothing changes (integer bounds
        that keep growing jump to +-2**40, and the passes after that narrow them again)."""
        node.init = self.check(node.init, env)
        node.limit = self.check(node.limit, env)
        lim = node.limit.type
        if not isinstance(lim, IntT) or lim.lo != lim.hi or node.limit.deps:
            raise SpecError("the limit of iterate must be a constant number of steps",
                            node.limit.loc, hint="a number or an expression of params, "
                                                 "e.g. 4 * n * n")
        node.steps = lim.lo
        if not 0 <= node.steps <= MAX_UNROLL:
            raise SpecError(f"iterate may take 0 to {MAX_UNROLL:,} steps, not {node.steps:,}",
                            node.limit.loc, hint="every step is evaluated in turn")
        template, names = node.body, node.names
        start = node.init.type
        self.state_parts(node, start, "start")
        state, deps = start, node.init.deps
        widened = False
        for rounds in range(STATE_ROUNDS):
            inner = dict(env)
            for uid, t in zip(names, self.state_parts(node, state, "state"), strict=True):
                inner[uid] = (t, deps | {uid})
            try:
                body = self.check(ir.clone(template), inner)
            except SpecError:
                if not widened:
                    raise
                break  # the widened bounds overflow: they do not settle
            self.state_parts(node, body.type, "result")
            probe = typed(ir.Const(node.loc, None), start, node.init)
            _, body, joined = self.join(probe, body, node)
            new_deps = node.init.deps | (body.deps - set(names))
            if joined == state and new_deps == deps:
                node.body, node.type, node.deps = body, state, deps
                if nested_unroll(node) > MAX_UNROLL:
                    raise SpecError(f"this iteration evaluates the generators in its step "
                                    f"{nested_unroll(node):,} times, more than the "
                                    f"{MAX_UNROLL:,} the compiler unrolls", node.loc,
                                    hint="fewer steps, or smaller generators in the step")
                return node
            if rounds + 1 >= WIDEN_AFTER and not widened:
                joined, widened = widen(state, joined), True
            state, deps = joined, new_deps
        raise SpecError(f"the state of iterate({node.step}, ...) does not stay within fixed "
                        f"bounds: after {rounds + 1} steps it is {state.show()}", node.loc,
                        hint="keep each number of the state in a range the checker can "
                             "see, e.g. min(max(x + dx, 0), n)")

    def state_parts(self, node: ir.Iterate, t: Type, what: str) -> list[Type]:
        """The types the step's parameters take for a state (or start, or result) of type t."""
        k = len(node.names)
        if k == 1:
            return [t]
        if isinstance(t, TupleT) and len(t.items) == k:
            return list(t.items)
        where = {"start": node.init.loc, "state": node.loc, "result": node.loc}[what]
        raise SpecError(f"the step '{node.step}' takes {k} parameters, so the {what} of "
                        f"iterate must be a tuple of {k} values, not {t.show()}", where,
                        hint=f"e.g. {node.step}(...) returns ({', '.join(['...'] * k)})")

    # -- calls

    def _call(self, node: ir.Call, env: Env) -> ir.Node:
        node.args = [self.check(a, env) for a in node.args]
        node.deps = frozenset().union(*(a.deps for a in node.args))
        node.type = BUILTINS[node.func].type(self, node)
        return node

    def _generator(self, node: ir.Generator, env: Env) -> ir.Node:
        if node.func not in AGGREGATES:
            raise SpecError(f"'{node.func}' cannot take a 'for' clause", node.loc,
                            hint="aggregates: " + ", ".join(AGGREGATES))
        aggregator = AGGREGATES[node.func]
        max_extra = 1 if aggregator.takes_default else 0
        if len(node.extra) > max_extra:
            raise SpecError(f"{node.func}(... for ...) takes "
                            f"{'one default value' if max_extra else 'no further arguments'}"
                            f" after the generator", node.extra[0].loc)
        inner = dict(env)
        iterations = 1
        loop_uids = set()
        for loop in node.loops:
            loop.iterable = self.check(loop.iterable, inner)
            elem = element_type(loop.iterable)
            if elem is None:
                raise SpecError(f"cannot iterate over {loop.iterable.type.show()}",
                                loop.iterable.loc,
                                hint="iterate a range a..b, a domain, a set or a sequence")
            iterations *= static_length(loop.iterable)
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
        node.unroll = iterations * max(1, nested_unroll(node.body) + nested_unroll(node.cond))
        if node.unroll > MAX_UNROLL:  # every unrolled step is Python work, in both meanings
            raise SpecError(f"this generator evaluates its body {node.unroll:,} times, with the "
                            f"generators nested in it: more than the {MAX_UNROLL:,} the "
                            f"compiler unrolls", node.loc,
                            hint="iterate smaller ranges, or count in closed form "
                                 "(e.g. n * (n - 1) // 2)")
        node.type = aggregator.type(self, node, iterations)
        deps = frozenset().union(*(x.deps for x in ir.children(node)))
        node.deps = deps - loop_uids
        return node


def widen(old: Type, new: Type) -> Type:
    """`new` with every integer bound that grew since `old` moved out to +-WIDE."""
    if isinstance(old, IntT) and isinstance(new, IntT):
        return IntT(-WIDE if new.lo < old.lo else new.lo, WIDE if new.hi > old.hi else new.hi)
    if isinstance(old, TupleT) and isinstance(new, TupleT):
        return TupleT(tuple(widen(a, b) for a, b in zip(old.items, new.items, strict=True)))
    if isinstance(old, SeqT) and isinstance(new, SeqT):
        return SeqT(widen(old.elem, new.elem), new.length, new.index)
    return new


def nested_unroll(node: ir.Node | None) -> int:
    """Body evaluations of the outermost generators and iterations within node (0 when
    there are none)."""
    if node is None:
        return 0
    if isinstance(node, ir.Generator):
        return node.unroll
    if isinstance(node, ir.Iterate):
        return node.steps * max(1, nested_unroll(node.body))
    return sum(nested_unroll(c) for c in ir.children(node))

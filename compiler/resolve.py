"""Name resolution: every name in parsed IR is bound to what it means.

Params become constants, enum labels become typed constants (a label of
several enums must be qualified: `Kind.heavy`), `true`/`false` become
booleans, and secret variables, arguments, answers, loop variables and def
parameters become references by a unique id. Calls to defs are inlined as
`Let` nodes with fresh ids for the parameters, so the same def called twice
never shares state; a def reached again while it is being inlined is
recursion, and is refused with the call chain.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.builtins import BUILTINS
from sleuth.compiler.errors import SpecError, did_you_mean
from sleuth.compiler.hidden import value_of
from sleuth.compiler.ir import EnumT, Type
from sleuth.compiler.spec import Def
from sleuth.compiler.visitor import Visitor


@dataclass(frozen=True)
class Binding:
    """What a name means in a scope (type and deps feed the type pass)."""

    kind: str  # param | hidden | enum | domain | table | secret | arg | answer | local
    type: Type | None
    deps: frozenset[str] = frozenset()
    uid: str = ""
    value: Any = None  # param value, enum types, Domain, Table, or a record answer's field


Scope = dict[str, Binding]


class Resolver(Visitor):
    """Resolves names and inlines defs, returning IR whose every Name has a `ref`."""

    def __init__(self, defs: dict[str, Def]):
        self.defs = defs
        self.counter = itertools.count()
        self.inlining: list[str] = []

    def fresh(self, name: str) -> str:
        return f"{name}#{next(self.counter)}"

    def resolve(self, node: ir.Node, scope: Scope) -> ir.Node:
        method = self.handler(node)
        out = method(node, scope) if method else self._children(node, scope)
        if not out.text:
            out.text = node.text
        return out

    def _children(self, node: ir.Node, scope: Scope) -> ir.Node:
        match node:
            case ir.Unary():
                node.operand = self.resolve(node.operand, scope)
            case ir.Binary():
                node.left = self.resolve(node.left, scope)
                node.right = self.resolve(node.right, scope)
            case ir.IfExpr():
                node.cond = self.resolve(node.cond, scope)
                node.then = self.resolve(node.then, scope)
                node.other = self.resolve(node.other, scope)
            case ir.RangeExpr():
                node.lo = self.resolve(node.lo, scope)
                node.hi = self.resolve(node.hi, scope)
            case ir.Index():
                node.target = self.resolve(node.target, scope)
                node.index = self.resolve(node.index, scope)
            case ir.TupleExpr() | ir.ListExpr():
                node.items = [self.resolve(x, scope) for x in node.items]
        return node

    def _name(self, node: ir.Name, scope: Scope) -> ir.Node:
        if node.name in ("true", "false"):
            return _like(ir.Const(node.loc, node.name == "true"), node)
        b = scope.get(node.name)
        if b is None:
            hint = did_you_mean(node.name, list(scope) + list(self.defs))
            if node.name == "turn":  # rules.TURN: an implicit argument of the queries
                hint = ("`turn`, the query's place in the game, is read by a query's legal, "
                        "let, feedback and history only (a def takes it as a parameter)")
            elif hint is None and node.name.isidentifier():
                hint = (f"a string needs quotes: \"{node.name}\" (or, if '{node.name}' should "
                        f"be an enum label, add it to the enum)")
            raise SpecError(f"unknown name '{node.name}'", node.loc, hint=hint)
        if b.kind == "param":
            return _like(ir.Const(node.loc, b.value), node)
        if b.kind == "hidden":
            if not b.deps:
                raise SpecError(f"'{node.name}' is a hidden param (part of the secret): it "
                                "cannot size or fix anything", node.loc,
                                hint="hidden params enter constraints, the prior, feedback "
                                     "and likelihoods; give a constant here")
            hidden, enum = b.value
            return _like(value_of(node.name, hidden, enum, node.loc), node)
        if b.kind == "enum":
            if len(b.value) > 1:
                options = " or ".join(f"'{e.name}.{node.name}'" for e in b.value)
                raise SpecError(f"'{node.name}' is a label of several enums", node.loc,
                                hint=f"qualify it: {options}")
            return _label(node, b.value[0], node.name)
        if b.kind == "answer" and b.value is not None:  # a field of a record answer
            whole = ir.Name(node.loc, "answer", ("answer", "answer"))
            return _like(ir.Field(node.loc, _like(whole, node), b.value), node)
        node.ref = (b.kind, b.value if b.kind in ("domain", "table") else b.uid)
        return node

    def _field(self, node: ir.Field, scope: Scope) -> ir.Node:
        target = node.target
        if isinstance(target, ir.Name) and target.name in scope \
                and scope[target.name].kind == "domain":
            d = scope[target.name].value
            if isinstance(d.type, EnumT):
                if node.name not in d.type.values:
                    raise SpecError(f"'{node.name}' is not a label of {d.type.name}", node.loc,
                                    hint=did_you_mean(node.name, d.type.values))
                return _label(node, d.type, node.name)
        node.target = self.resolve(target, scope)
        return node

    def _call(self, node: ir.Call, scope: Scope) -> ir.Node:
        if node.func in self.defs:
            return self.inline(node, scope)
        if node.func not in BUILTINS:
            hint = did_you_mean(node.func, list(BUILTINS) + list(self.defs))
            if node.func == "range":
                hint = "a range is written a..b (both ends included), e.g. 'for i in 0..n-1'"
            raise SpecError(f"unknown function '{node.func}'", node.loc, hint=hint)
        node.args = [self.resolve(a, scope) for a in node.args]
        return node

    def inline(self, node: ir.Call, scope: Scope) -> ir.Node:
        d = self.defs[node.func]
        if len(node.args) != len(d.params):
            raise SpecError(f"'{d.name}' takes {len(d.params)} argument"
                            f"{'' if len(d.params) == 1 else 's'}, given {len(node.args)}",
                            node.loc, hint=f"{d.name}({', '.join(d.params)})")
        if d.name in self.inlining:
            chain = " -> ".join(self.inlining[self.inlining.index(d.name):] + [d.name])
            raise SpecError(f"recursion in defs: {chain}", node.loc,
                            hint="defs cannot call themselves, directly or indirectly")
        args = [self.resolve(a, scope) for a in node.args]
        # A def sees the global names and its own parameters, not the caller's locals.
        inner = {k: b for k, b in scope.items() if b.kind not in ("arg", "answer", "local")}
        bindings = []
        for p, a in zip(d.params, args, strict=True):
            uid = self.fresh(p)
            inner[p] = Binding("local", None, uid=uid)
            bindings.append((uid, a))
        self.inlining.append(d.name)
        try:
            body = self.resolve(copy.deepcopy(d.body), inner)
        finally:
            self.inlining.pop()
        return _like(ir.Let(node.loc, bindings, body), node)

    def _iterate(self, node: ir.Iterate, scope: Scope) -> ir.Node:
        """The step def's body, resolved over fresh ids for its parameters (the state); the
        start and the limit in the caller's scope."""
        d = self.defs.get(node.step)
        if d is None:
            hint = did_you_mean(node.step, list(self.defs))
            raise SpecError(f"iterate needs the name of a def as its step, not '{node.step}'",
                            node.loc, hint=hint or "declare the step under defs, e.g. "
                            "\"move(r, c)\": \"(r + 1, c)\", then iterate(move, (0, 0), 10)")
        if not d.params:
            raise SpecError(f"the step '{d.name}' of iterate takes no parameters: it has no "
                            "state to update", node.loc,
                            hint=f"give it the state as parameters: {d.name}(x) or "
                                 f"{d.name}(a, b, ...) for a tuple")
        if d.name in self.inlining:
            chain = " -> ".join(self.inlining[self.inlining.index(d.name):] + [d.name])
            raise SpecError(f"recursion in defs: {chain}", node.loc,
                            hint="defs cannot call themselves, directly or indirectly")
        node.init = self.resolve(node.init, scope)
        node.limit = self.resolve(node.limit, scope)
        inner = {k: b for k, b in scope.items() if b.kind not in ("arg", "answer", "local")}
        node.names = []
        for p in d.params:
            uid = self.fresh(p)
            inner[p] = Binding("local", None, uid=uid)
            node.names.append(uid)
        self.inlining.append(d.name)
        try:
            node.body = self.resolve(copy.deepcopy(d.body), inner)
        finally:
            self.inlining.pop()
        return node

    def _generator(self, node: ir.Generator, scope: Scope) -> ir.Node:
        inner = dict(scope)
        for loop in node.loops:
            loop.iterable = self.resolve(loop.iterable, inner)
            uids = []
            for name in loop.names:
                uid = self.fresh(name)
                inner[name] = Binding("local", None, uid=uid)
                uids.append(uid)
            loop.names = uids
        if node.cond is not None:
            node.cond = self.resolve(node.cond, inner)
        node.body = self.resolve(node.body, inner)
        node.extra = [self.resolve(x, scope) for x in node.extra]
        return node


def _like(node: ir.Node, original: ir.Node) -> ir.Node:
    node.text = original.text
    return node


def _label(original: ir.Node, enum: EnumT, label: str) -> ir.Node:
    out = _like(ir.Const(original.loc, label), original)
    out.type = enum
    return out

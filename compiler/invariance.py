"""Invariance: which relabellings leave a query's feedback unchanged, derived from its
expressions.

Two passes, one per kind of relabelling, each a sufficient (never a necessary)
condition: when a pass says yes the feedback is unchanged for every secret and
every query; when it says no, nothing is claimed.

    ValuePass     every permutation of a domain's values, applied at once to every
                  secret variable and query argument of that domain (scalars,
                  sequence elements, set members). It holds when those values are
                  only compared for equality (==, !=, in, and builtins declared
                  "invariant"), loops over the whole domain aggregate without regard
                  to order, and no value of the domain is written as a constant,
                  ordered, added or used as an index.
    PositionPass  every permutation of the positions of the sequence variables of
                  one length, applied to all of them at once. It holds when a position
                  is only a loop variable over all positions (0..len-1) that indexes
                  those sequences or is compared with another such variable for
                  (in)equality, the loop aggregates without regard to order, and a
                  whole sequence is only passed to order-free builtins.

Each pass gives every sub-expression a kind and fails (None) on any form it does
not know; the builtins declare their part in the registry (`Builtin.relabel`,
`Aggregator.order_free`), so no builtin is named here.
"""

from __future__ import annotations

from collections.abc import Iterable

from sleuth.compiler import ir
from sleuth.compiler.builtins import AGGREGATES, BUILTINS
from sleuth.compiler.domains import Domain
from sleuth.compiler.errors import EvaluationError
from sleuth.compiler.interpret import evaluate

# Kinds. A value unchanged by the relabelling, one relabelled value, a collection of
# relabelled values (sequence or set), the whole relabelled domain (a loop's iterable).
INV, LABEL, LABELS, DOMAIN = "inv", "label", "labels", "domain"
# Position kinds: a sequence whose positions are permuted, a loop variable over them.
SEQ, POS = "seq", "pos"
EQUALITY = ("==", "!=")


class _Pass:
    """Gives each node a kind (None: the pass cannot vouch for it); locals by uid."""

    def __init__(self, names: dict[str, str]):
        self.names = names  # secret/argument variable name -> kind
        self.local: dict[str, str | None] = {}

    def kinds(self, exprs: Iterable[tuple[str, ir.Node]]) -> bool:
        """Whether every expression (bound to its local id, so later ones can use it) is
        unchanged by the relabelling."""
        for uid, node in exprs:
            kind = self.kind(node)
            if kind != INV:
                return False
            self.local[uid] = INV
        return True

    def kind(self, node: ir.Node) -> str | None:
        match node:
            case ir.Const():
                return INV
            case ir.Name(ref=(("param" | "table"), _)):
                return INV
            case ir.Name(ref=(("secret" | "arg" | "answer"), var)):
                return self.names.get(var, INV)
            case ir.Name(ref=("local", uid)):
                return self.local.get(uid)
            case ir.Name(ref=("domain", domain)):
                return self.domain(domain)
            case ir.Let(bindings=bindings, body=body):
                for uid, e in bindings:
                    self.local[uid] = self.kind(e)
                return self.kind(body)
            case ir.IfExpr(cond=c, then=t, other=o):
                a, b = self.kind(t), self.kind(o)
                return a if self.kind(c) == INV and a == b else None
            case ir.Generator():
                return self.generator(node)
            case ir.Iterate(init=init, names=names, body=body):
                # vouched for only when the state never holds a relabelled value
                if self.kind(init) != INV:
                    return None
                self.local.update(dict.fromkeys(names, INV))
                return INV if self.kind(body) == INV else None
            case ir.Call(func=func, args=args):
                return self.call(BUILTINS[func].relabel if func in BUILTINS else "",
                                 [self.kind(a) for a in args])
        return self.other(node, [self.kind(c) for c in ir.children(node)])

    def domain(self, domain: Domain) -> str | None:
        return INV

    def generator(self, node: ir.Generator) -> str | None:
        raise NotImplementedError

    def call(self, relabel: str, kinds: list[str | None]) -> str | None:
        raise NotImplementedError

    def other(self, node: ir.Node, kinds: list[str | None]) -> str | None:
        raise NotImplementedError


class ValuePass(_Pass):
    """Kinds under a permutation of the values of one domain (see the module's text)."""

    def __init__(self, names: dict[str, str], domain: Domain):
        super().__init__(names)
        self.relabelled = domain

    def domain(self, domain: Domain) -> str | None:
        return DOMAIN if domain == self.relabelled else INV

    def generator(self, node: ir.Generator) -> str | None:
        aggregate = AGGREGATES[node.func]
        for loop in node.loops:
            it = self.kind(loop.iterable)
            if it == DOMAIN and not aggregate.order_free:
                return None  # the domain's order changes under the permutation
            if it not in (INV, DOMAIN, LABELS):
                return None
            for name in loop.names:
                self.local[name] = INV if it == INV else LABEL
        parts = [node.body] + ([node.cond] if node.cond is not None else []) + node.extra
        return INV if all(self.kind(p) == INV for p in parts) else None

    def call(self, relabel: str, kinds: list[str | None]) -> str | None:
        if all(k == INV for k in kinds):
            return INV  # a pure function of unchanged values
        if None in kinds or INV in kinds or relabel not in ("invariant", "covariant"):
            return None
        return INV if relabel == "invariant" else LABELS

    def other(self, node: ir.Node, kinds: list[str | None]) -> str | None:
        if None in kinds:
            return None
        if all(k == INV for k in kinds):
            return INV
        match node:
            case ir.Binary(op=op) if op in EQUALITY and kinds[0] == kinds[1]:
                return INV if kinds[0] in (LABEL, LABELS) else None
            case ir.Binary(op=("in" | "notin")) if kinds == [LABEL, LABELS]:
                return INV
            case ir.Index() if kinds == [LABELS, INV]:
                return LABEL  # a sequence's element: its position is not relabelled
            case ir.ListExpr() | ir.TupleExpr() if all(k == LABEL for k in kinds):
                return LABELS
        return None


class PositionPass(_Pass):
    """Kinds under one permutation of the positions of the sequences of length `length`."""

    def __init__(self, names: dict[str, str], length: int):
        super().__init__(names)
        self.length = length

    def generator(self, node: ir.Generator) -> str | None:
        aggregate = AGGREGATES[node.func]
        for loop in node.loops:
            it = self.kind(loop.iterable)
            if it == SEQ or self.all_positions(loop.iterable):
                if not aggregate.order_free:
                    return None
                var = INV if it == SEQ else POS  # an element of a sequence: order is free
            elif it == INV:
                var = INV
            else:
                return None
            for name in loop.names:
                self.local[name] = var
        parts = [node.body] + ([node.cond] if node.cond is not None else []) + node.extra
        return INV if all(self.kind(p) == INV for p in parts) else None

    def all_positions(self, node: ir.Node) -> bool:
        """A constant range 0..length-1."""
        if not isinstance(node, ir.RangeExpr) or node.lo.deps or node.hi.deps:
            return False
        try:
            return (evaluate(node.lo, {}), evaluate(node.hi, {})) == (0, self.length - 1)
        except EvaluationError:  # not a constant after all: no claim
            return False

    def call(self, relabel: str, kinds: list[str | None]) -> str | None:
        if None in kinds or POS in kinds:
            return None
        if SEQ in kinds and relabel not in ("invariant", "order-free"):
            return None
        return INV

    def other(self, node: ir.Node, kinds: list[str | None]) -> str | None:
        if None in kinds:
            return None
        match node:
            case ir.Index() if kinds == [SEQ, POS]:
                return INV  # the same element before and after, read at the image position
            case ir.Binary(op=op) if op in EQUALITY and kinds in ([POS, POS], [SEQ, SEQ]):
                return INV
            case ir.Binary(op=("in" | "notin")) if kinds == [INV, SEQ]:
                return INV
        return INV if all(k == INV for k in kinds) else None


def _exprs(action) -> list[tuple[str, ir.Node]]:
    out = [(uid, e) for _, uid, e in action.evaluated()]
    if action.stop_when is not None:
        out.append(("<stop>", action.stop_when))
    return out


def values_interchangeable(action, variables: list[tuple[str, Domain]], domain: Domain) -> bool:
    """Whether every permutation of `domain`'s values, applied to every listed variable
    (secret variables and the action's arguments) that holds values of it, leaves the
    action's feedback and stop condition unchanged."""
    names = _value_names(variables, domain)
    if names is None or action.feedback is None:
        return False
    return ValuePass(names, domain).kinds(_exprs(action))


def legality_interchangeable(action, domain: Domain) -> bool:
    """Whether every permutation of `domain`'s values, applied to the action's arguments
    that hold values of it, leaves the action's legality unchanged (so which argument
    tuples are legal depends only on how many values play each part)."""
    names = _value_names([(a.name, a.domain) for a in action.args], domain)
    return names is not None and ValuePass(names, domain).kinds(
        (f"<legal {i}>", e) for i, e in enumerate(action.legal))


def _value_names(variables: list[tuple[str, Domain]], domain: Domain) -> dict[str, str] | None:
    """Each variable holding values of `domain`: one value (LABEL) or a sequence or set of
    them (LABELS); None when the domain is unnamed or a value is held otherwise."""
    if domain.name is None:
        return None
    names = {}
    for name, d in variables:
        if d == domain:
            names[name] = LABEL
        elif d.kind in ("seq", "set") and d.elem == domain:
            names[name] = LABELS
        elif _mentions(d, domain):
            return None  # held inside a record or multiset: not analysed
    return names


def positions_interchangeable(action, variables: list[tuple[str, Domain]], length: int) -> bool:
    """Whether every permutation of positions, applied to every listed sequence variable
    of that length, leaves the action's feedback and stop condition unchanged."""
    if action.feedback is None:
        return False
    names = {name: SEQ for name, d in variables
             if d.kind == "seq" and d.length == length and d.type.index is None}
    return PositionPass(names, length).kinds(_exprs(action))


def _mentions(d: Domain, target: Domain) -> bool:
    if d == target:
        return True
    return (d.elem is not None and _mentions(d.elem, target)) or any(
        _mentions(f, target) for _, f in d.fields)


__all__ = ["PositionPass", "ValuePass", "legality_interchangeable", "positions_interchangeable",
           "values_interchangeable"]

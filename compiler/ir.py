"""The typed expression IR and its static types.

Nodes are built untyped by `parse.py`; `check.py` resolves names (filling
`Name.ref`), inlines defs, and fills every node's `type` and `deps`.
`deps` is the set of evaluation axes a node's value varies along:
ROW (query arguments / answers), HYP (secret variables), and the names of
enclosing loop variables. Kernels use it to evaluate each node at the smallest
shape and to cache row-independent work across query batches.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from sleuth.compiler.errors import Loc

ROW = "<row>"
HYP = "<hyp>"


# ----------------------------------------------------------------------------- types

class Type:
    """A static type. Finite types can be enumerated and encoded as integers."""

    finite = True

    def show(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class IntT(Type):
    lo: int
    hi: int

    def show(self) -> str:
        return f"int {self.lo}..{self.hi}"


@dataclass(frozen=True)
class BoolT(Type):
    def show(self) -> str:
        return "bool"


@dataclass(frozen=True)
class FloatT(Type):
    finite = False

    def show(self) -> str:
        return "float"


@dataclass(frozen=True)
class EnumT(Type):
    name: str
    values: tuple[str, ...]

    def show(self) -> str:
        return self.name


@dataclass(frozen=True)
class StrT(Type):
    """String literals; the set of possible values is known statically."""

    values: frozenset[str]

    def show(self) -> str:
        return "string"


@dataclass(frozen=True)
class UnionT(Type):
    """A label or an integer (`if mine then "mine" else count(...)`), held as one
    integer: an integer as itself, the k-th label (sorted) as hi + 1 + k."""

    labels: tuple[str, ...]  # sorted
    lo: int
    hi: int

    def show(self) -> str:
        return " | ".join([*(repr(x) for x in self.labels), f"int {self.lo}..{self.hi}"])

    def encode(self, value: Any) -> int:
        """The integer a plain value (a label or an int) is held as."""
        return self.hi + 1 + self.labels.index(value) if isinstance(value, str) else value

    def decode(self, held: int) -> Any:
        """The plain value an integer stands for."""
        return held if held <= self.hi else self.labels[held - self.hi - 1]


@dataclass(frozen=True)
class SeqT(Type):
    elem: Type
    length: int
    index: EnumT | None = None  # positions named by an enum's labels: s[label]

    @property
    def finite(self) -> bool:  # type: ignore[override]
        return self.elem.finite

    def show(self) -> str:
        if self.index is not None:
            return f"seq of {self.elem.show()} (by {self.index.show()})"
        return f"seq of {self.elem.show()} (len {self.length})"


@dataclass(frozen=True)
class SetT(Type):
    elem: Type  # IntT or EnumT: the universe of possible elements

    def show(self) -> str:
        return f"set of {self.elem.show()}"


@dataclass(frozen=True)
class RecordT(Type):
    fields: tuple[tuple[str, Type], ...]

    @property
    def finite(self) -> bool:  # type: ignore[override]
        return all(t.finite for _, t in self.fields)

    def field(self, name: str) -> Type | None:
        return dict(self.fields).get(name)

    def show(self) -> str:
        return "record {" + ", ".join(f"{n}: {t.show()}" for n, t in self.fields) + "}"


@dataclass(frozen=True)
class TupleT(Type):
    items: tuple[Type, ...]

    @property
    def finite(self) -> bool:  # type: ignore[override]
        return all(t.finite for t in self.items)

    def show(self) -> str:
        return "(" + ", ".join(t.show() for t in self.items) + ")"


@dataclass(frozen=True)
class RangeT(Type):
    """An integer range a..b used as an iterable; elements lie in elem's bounds."""

    elem: IntT

    def show(self) -> str:
        return f"range {self.elem.lo}..{self.elem.hi}"


@dataclass(frozen=True)
class DomainT(Type):
    """A domain name used as a value (an iterable, or the argument of onehot)."""

    name: str
    elem: Type

    def show(self) -> str:
        return f"domain {self.name}"


@dataclass(frozen=True)
class TableT(Type):
    """A data table indexed by finite types, holding numbers."""

    name: str
    index: tuple[Type, ...]
    value: Type

    def show(self) -> str:
        return f"table {self.name}"


INT_LIMIT = 2**62  # integers are computed in int64; this margin keeps every step exact


class IntOverflow(ArithmeticError):
    """An integer interval that leaves +-INT_LIMIT. The typer reports it as a SpecError at
    the node whose bounds overflowed (infer.Typer.check)."""

    def __init__(self, bound: int):
        super().__init__(bound)
        self.bound = bound


def int_type(lo: int, hi: int) -> IntT:
    """The integer type with bounds lo..hi; IntOverflow when they leave +-INT_LIMIT."""
    lo, hi = int(lo), int(hi)
    if lo < -INT_LIMIT:
        raise IntOverflow(lo)
    if hi > INT_LIMIT:
        raise IntOverflow(hi)
    return IntT(lo, hi)


def magnitude(v: int) -> str:
    """An integer for a message: exact when short, else as a power of two (never fails,
    whatever its size)."""
    if abs(v) < 10**18:
        return f"{v:,}"
    return f"{'-' if v < 0 else ''}about 2**{abs(v).bit_length() - 1}"


def component_types(t: Type) -> list[Type]:
    """The types of a sequence's, tuple's or record's parts, in order."""
    if isinstance(t, SeqT):
        return [t.elem] * t.length
    if isinstance(t, TupleT):
        return list(t.items)
    if isinstance(t, RecordT):
        return [x for _, x in t.fields]
    raise TypeError(f"{t.show()} has no parts")


def position_name(t: SeqT, i: int) -> str:
    """How position i of a sequence is written: its index label, or the number."""
    return t.index.values[i] if t.index is not None else str(i)


# ----------------------------------------------------------------------------- nodes

@dataclass(eq=False)
class Node:
    loc: Loc
    type: Type | None = field(default=None, init=False, repr=False)
    deps: frozenset[str] = field(default=frozenset(), init=False, repr=False)
    text: str = field(default="", init=False, repr=False)  # source text, for messages


@dataclass(eq=False)
class Const(Node):
    value: Any  # Python value in interpreter encoding (int/float/bool/str/tuple/frozenset)


@dataclass(eq=False)
class Name(Node):
    name: str
    # Set by check: what the name refers to.
    # ("param", value) | ("secret", var) | ("arg", var) | ("answer", var)
    # | ("local", var) (loop, let, def parameter, feedback component) | ("domain", name)
    # | ("table", name)
    ref: tuple[str, Any] | None = None


@dataclass(eq=False)
class Unary(Node):
    op: str  # "-" | "not"
    operand: Node


@dataclass(eq=False)
class Binary(Node):
    op: str  # + - * / // % ** and or == != < <= > >= in notin
    left: Node
    right: Node


@dataclass(eq=False)
class IfExpr(Node):
    cond: Node
    then: Node
    other: Node


@dataclass(eq=False)
class RangeExpr(Node):
    lo: Node
    hi: Node


@dataclass(eq=False)
class Index(Node):
    target: Node
    index: Node


@dataclass(eq=False)
class Field(Node):
    target: Node
    name: str


@dataclass(eq=False)
class TupleExpr(Node):
    items: list[Node]


@dataclass(eq=False)
class ListExpr(Node):
    items: list[Node]


@dataclass(eq=False)
class Call(Node):
    func: str
    args: list[Node]


@dataclass(eq=False)
class Loop:
    """One `for names in iterable` clause of a generator."""

    names: list[str]
    iterable: Node


@dataclass(eq=False)
class Generator(Node):
    """agg(body for v in it ... if cond, extra...): count/sum/min/max/prod/exists/forall/first."""

    func: str
    body: Node
    loops: list[Loop]
    cond: Node | None
    extra: list[Node]
    unroll: int = 1  # body evaluations, counting the generators nested in it (infer.py)


@dataclass(eq=False)
class Let(Node):
    """Bindings evaluated once, in order, then the body (def calls inline to this)."""

    bindings: list[tuple[str, Node]]
    body: Node


@dataclass(eq=False)
class Iterate(Node):
    """iterate(step, init, limit): the def `step` applied to a state at most `limit` times
    (a constant), starting from `init`. The state is bound to the def's parameters (a
    tuple state is unpacked into them, one parameter per item) and the def returns the
    next state. A state the step maps to itself is final: the iteration stops there, which
    gives the same value as going on to the limit."""

    step: str  # the def's name, for messages
    init: Node
    limit: Node
    names: list[str] = field(default_factory=list)  # the def's parameters (unique ids)
    body: Node | None = None  # the def's body, over `names` (filled by name resolution)
    steps: int = 0  # the limit's value (filled by the type pass)


def clone(node: Node) -> Node:
    """A copy of an expression tree whose nodes can be typed afresh; what its names refer
    to (domains, tables) is shared, not copied."""
    memo: dict[int, Any] = {}
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Name) and n.ref is not None:
            memo[id(n.ref)] = n.ref
        stack.extend(children(n))
    return copy.deepcopy(node, memo)


def children(node: Node) -> list[Node]:
    """The direct sub-expressions of a node, in evaluation order."""
    match node:
        case Unary(operand=o):
            return [o]
        case Binary(left=a, right=b):
            return [a, b]
        case IfExpr(cond=c, then=t, other=o):
            return [c, t, o]
        case RangeExpr(lo=a, hi=b):
            return [a, b]
        case Index(target=t, index=i):
            return [t, i]
        case Field(target=t):
            return [t]
        case TupleExpr(items=items) | ListExpr(items=items):
            return list(items)
        case Call(args=args):
            return list(args)
        case Generator():
            out = [lp.iterable for lp in node.loops] + [node.body]
            if node.cond is not None:
                out.append(node.cond)
            return out + list(node.extra)
        case Let(bindings=b, body=body):
            return [e for _, e in b] + [body]
        case Iterate(init=init, limit=limit, body=body):
            return [init, limit] + ([body] if body is not None else [])
    return []

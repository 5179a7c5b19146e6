"""Boolean lowering: the secret, its constraints and feedback facts as propositional logic.

Every finite scalar of the secret (a variable, each position of a sequence,
each field of a record) becomes a one-hot group of boolean variables, in
declaration order (a sequence of card owners is therefore card-major). An
expression is lowered to a *symbolic value*: a mapping from each value it
can take to the formula under which it takes it (mutually exclusive given
the one-hot groups). Formulas live in one hash-consed DAG (`Circuit`), from
which the targets are built: a CNF (Tseitin) and a decision diagram.

The lowering mirrors the reference interpreter so that the two cannot
disagree on semantics: an operator over symbolic operands is evaluated by
the interpreter on every combination of their values (a case split, guarded
by a size limit), while the aggregates that would explode that way are
built by dynamic programming: `count` and `sum` fold one addition at a time
(a cardinality constraint is the DP table, not a CNF encoding), `exists` /
`forall` are a disjunction / conjunction. Subexpressions that do not depend
on the secret are simply evaluated. What cannot be lowered (a set-valued
secret, a loop over a secret-dependent collection, a combination that fails
to evaluate, too many combinations) is refused with a SpecError naming the
expression and its location.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.builtins import AGGREGATES, BUILTINS
from sleuth.compiler.check import Model, Var
from sleuth.compiler.domains import Domain, domain_values
from sleuth.compiler.errors import EvaluationError, SpecError
from sleuth.compiler.interpret import arithmetic, contains, evaluate, iterate
from sleuth.compiler.ir import HYP, EnumT, RecordT, SeqT, position_name

FALSE, TRUE = 0, 1
MAX_CASES = 200_000  # combinations one case split may enumerate


# ----------------------------------------------------------------------------- formulas

class Circuit:
    """A hash-consed DAG of formulas: node 0 is false, 1 true; then variables and gates.

    Nodes are ("var", i) with i >= 1, ("not", a), ("and", children), ("or", children).
    """

    def __init__(self) -> None:
        self.nodes: list[tuple] = [("false",), ("true",)]
        self.ids: dict[tuple, int] = {}
        self.variables = 0

    def _add(self, key: tuple) -> int:
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.nodes)
            self.nodes.append(key)
        return found

    def new_var(self) -> int:
        self.variables += 1
        return self._add(("var", self.variables))

    def neg(self, a: int) -> int:
        if a <= TRUE:
            return 1 - a
        node = self.nodes[a]
        return node[1] if node[0] == "not" else self._add(("not", a))

    def conj(self, *xs: int) -> int:
        return self._gate("and", xs, absorbing=FALSE, neutral=TRUE)

    def disj(self, *xs: int) -> int:
        return self._gate("or", xs, absorbing=TRUE, neutral=FALSE)

    def _gate(self, op: str, xs: tuple[int, ...] | list[int], absorbing: int,
              neutral: int) -> int:
        children: set[int] = set()
        for x in xs:
            if x == absorbing:
                return absorbing
            if x == neutral:
                continue
            node = self.nodes[x]
            if node[0] == op:
                children.update(node[1])
            else:
                children.add(x)
        if any(self.neg(c) in children for c in children if c > TRUE):
            return absorbing
        if not children:
            return neutral
        if len(children) == 1:
            return next(iter(children))
        return self._add((op, tuple(sorted(children))))

    def value(self, root: int, assignment: Callable[[int], bool]) -> bool:
        """The formula's truth under an assignment of its variables (for tests)."""
        memo: dict[int, bool] = {FALSE: False, TRUE: True}

        def walk(n: int) -> bool:
            if n not in memo:
                node = self.nodes[n]
                if node[0] == "var":
                    memo[n] = assignment(node[1])
                elif node[0] == "not":
                    memo[n] = not walk(node[1])
                elif node[0] == "and":
                    memo[n] = all(walk(c) for c in node[1])
                else:
                    memo[n] = any(walk(c) for c in node[1])
            return memo[n]

        return walk(root)

    def size(self, roots: list[int]) -> int:
        """Number of gates reachable from the roots."""
        seen, stack = set(), list(roots)
        while stack:
            n = stack.pop()
            if n in seen or n <= TRUE:
                continue
            seen.add(n)
            node = self.nodes[n]
            if node[0] == "not":
                stack.append(node[1])
            elif node[0] in ("and", "or"):
                stack.extend(node[1])
        return len(seen)


# ----------------------------------------------------------------------------- symbolic values

class Sym(dict):
    """value -> formula under which an expression takes that value."""


class Packed(tuple):
    """A secret sequence held by one group of its own (a multiset's counts)."""


def lift(value: Any) -> Sym:
    return Sym({value: TRUE})


@dataclass
class Group:
    """A one-hot group: the boolean variables (one per value) of one finite scalar."""

    name: str  # "code[3]", "r.f", "x"
    values: list[Any]
    literals: list[int]  # circuit variable numbers (1-based), one per value
    nodes: list[int]  # the circuit nodes of those variables
    parts: tuple[str, ...] = ()  # a multiset's group: the names of its counts


class Lowering:
    """A model's secret as one-hot groups, and its expressions as symbolic values."""

    def __init__(self, model: Model):
        self.model = model
        self.circuit = Circuit()
        self.groups: list[Group] = []
        self._group_of: dict[int, int] = {}
        self.secret: dict[str, Any] = {v.name: self._encode(v.name, v.domain, v)
                                       for v in model.secret}

    # -- the secret

    def _encode(self, name: str, d: Domain, var: Var) -> Any:
        t = d.type
        if d.kind == "multiset":
            return self._encode_multiset(name, d)
        if isinstance(t, SeqT):
            return tuple(self._encode(f"{name}[{position_name(t, i)}]", d.elem, var)
                         for i in range(d.length))
        if isinstance(t, RecordT):
            return {f: self._encode(f"{name}.{f}", fd, var) for f, fd in d.fields}
        if d.kind == "set" or not t.finite:
            raise SpecError(f"the symbolic backend cannot encode secret variable '{var.name}' "
                            f"({d.describe()}) yet", var.loc,
                            hint="finite scalars, sequences and records of them are supported")
        values = domain_values(d)
        nodes = [self.circuit.new_var() for _ in values]
        literals = [self.circuit.nodes[n][1] for n in nodes]
        self.groups.append(Group(name, values, literals, nodes))
        sym = Sym(zip(values, nodes, strict=True))
        self._group_of[id(sym)] = len(self.groups) - 1
        return sym

    def _encode_multiset(self, name: str, d: Domain) -> Packed:
        """One group over the whole count sequences (the counts are not independent);
        each count is a symbolic value over that group's variables."""
        values = domain_values(d)
        nodes = [self.circuit.new_var() for _ in values]
        literals = [self.circuit.nodes[n][1] for n in nodes]
        parts = tuple(f"{name}[{position_name(d.type, i)}]" for i in range(d.length))
        self.groups.append(Group(name, values, literals, nodes, parts))
        counts = []
        for i in range(d.length):
            by_count: dict[int, list[int]] = {}
            for v, n in zip(values, nodes, strict=True):
                by_count.setdefault(v[i], []).append(n)
            counts.append(Sym({c: self.circuit.disj(*ns) for c, ns in by_count.items()}))
        packed = Packed(counts)
        self._group_of[id(packed)] = len(self.groups) - 1
        return packed

    def decode(self, chosen: list[Any]) -> dict[str, Any]:
        """A hypothesis (plain values per secret variable) from one value per group."""
        def walk(encoded: Any) -> Any:
            if isinstance(encoded, Sym | Packed):
                return chosen[self._group_of[id(encoded)]]
            if isinstance(encoded, tuple):
                return tuple(walk(e) for e in encoded)
            return {k: walk(e) for k, e in encoded.items()}

        return {name: walk(encoded) for name, encoded in self.secret.items()}

    def by_part(self, marginals: dict[str, dict[Any, float]]) -> dict[str, dict[Any, float]]:
        """Group marginals with each multiset's spread over its counts, as the enumerated
        backend reports them (one distribution per count, `roll[six]`)."""
        out = {}
        for g in self.groups:
            if not g.parts:
                out[g.name] = marginals[g.name]
                continue
            for i, part in enumerate(g.parts):
                dist: dict[Any, float] = {}
                for v, p in marginals[g.name].items():
                    dist[v[i]] = dist.get(v[i], 0.0) + p
                out[part] = dict(sorted(dist.items()))
        return out

    def one_hot(self) -> list[int]:
        """Exactly one variable of each group is true (a DP count, linear in the group)."""
        return [self.fold_count(g.nodes[::-1], cap=2).get(1, FALSE) for g in self.groups]

    def constraints(self) -> list[int]:
        return [self.truth(self.lower(n, {})) for n in self.model.constraints]

    def feedback_fact(self, query: str, args: dict[str, Any], feedback: dict[str, Any]) -> int:
        """The formula 'query(args) gives this feedback'."""
        action = self.model.action(query)
        env: dict[str, Any] = dict(args)
        conds = []
        for name, uid, node in action.feedback or []:
            value = self.lower(node, env)
            env[uid] = value
            conds.append(self.equals(value, feedback[name]))
        return self.circuit.conj(*conds)

    def feedback_values(self, query: str, args: dict[str, Any]) -> dict[tuple, int]:
        """Every feedback (as a tuple of component values) with the formula giving it."""
        action = self.model.action(query)
        results: dict[tuple, int] = {(): TRUE}
        env: dict[str, Any] = dict(args)
        for _, uid, node in action.feedback or []:
            value = self.lower(node, env)
            env[uid] = value
            sym = as_sym(value)
            nxt: dict[tuple, list[int]] = {}
            for key, cond in results.items():
                for v, f in sym.items():
                    both = self.circuit.conj(cond, f)
                    if both != FALSE:
                        nxt.setdefault(key + (v,), []).append(both)
            results = {k: self.circuit.disj(*fs) for k, fs in nxt.items()}
        return results

    # -- expressions

    def lower(self, node: ir.Node, env: dict[str, Any]) -> Any:
        """Concrete value if `node` does not depend on the secret, else a symbolic value."""
        if HYP not in node.deps:
            return self._concrete(node, env)
        by_value = self._by_value(node, env)
        if by_value is not None:
            return by_value
        handler = getattr(self, "_" + type(node).__name__.lower(), None)
        if handler is None:
            raise self.refuse(node, "this construct")
        return handler(node, env)

    def _by_value(self, node: ir.Node, env: dict[str, Any]) -> Sym | None:
        """A scalar-valued node that reads one secret variable held by a single group (a
        scalar, or a multiset's counts) and nothing symbolic from its scope, evaluated by
        the interpreter once per value of the group. A multinomial weight over a hand of
        dice is then a handful of classes, each a disjunction of hands, rather than a case
        split per count. None when that does not apply (or a value fails to evaluate:
        the case split then reports it as usual)."""
        if not isinstance(node.type, SCALAR_TYPES) or isinstance(node, ir.Name):
            return None
        names = secret_names(node)
        if len(names) != 1:
            return None
        (name,) = names
        group = self._group_of.get(id(self.secret[name]))
        if group is None or any(_symbolic(v) for v in env.values()):
            return None
        g = self.groups[group]
        by_result: dict[Any, list[int]] = {}
        try:
            for v, n in zip(g.values, g.nodes, strict=True):
                by_result.setdefault(evaluate(node, {**env, name: v}), []).append(n)
        except EvaluationError:
            return None
        return Sym({r: self.circuit.disj(*ns) for r, ns in by_result.items()})

    def _concrete(self, node: ir.Node, env: dict[str, Any]) -> Any:
        try:
            return evaluate(node, env)
        except EvaluationError as err:
            raise SpecError(f"cannot lower '{node.text}': {err.message}", node.loc) from None

    def refuse(self, node: ir.Node, what: str) -> SpecError:
        return SpecError(f"the symbolic backend cannot lower {what} in '{node.text}'", node.loc,
                         hint="use the enumerated backend (--backend enum) for this spec")

    def truth(self, value: Any) -> int:
        """A boolean value (concrete or symbolic) as a formula."""
        if isinstance(value, Sym):
            return value.get(True, FALSE)
        return TRUE if value else FALSE

    def boolean(self, formula: int) -> Sym:
        return Sym({k: f for k, f in ((True, formula), (False, self.circuit.neg(formula)))
                    if f != FALSE})

    def equals(self, value: Any, target: Any) -> int:
        """Formula for value == target (target concrete)."""
        if isinstance(value, tuple):
            return self.circuit.conj(*(self.equals(v, t) for v, t in zip(value, target,
                                                                         strict=True)))
        if isinstance(value, dict) and not isinstance(value, Sym):
            return self.circuit.conj(*(self.equals(value[k], target[k]) for k in value))
        if isinstance(value, Sym):
            return value.get(target, FALSE)
        return TRUE if value == target else FALSE

    def split(self, fn: Callable[..., Any], values: list[Any], node: ir.Node) -> Sym:
        """Case split: fn over every combination of the operands' values."""
        syms = [as_sym(v) for v in values]
        cases = 1
        for s in syms:
            cases *= len(s)
        if cases > MAX_CASES:
            raise self.refuse(node, f"an operation over {cases:,} value combinations")
        c = self.circuit
        out: dict[Any, list[int]] = {}
        for combo in itertools.product(*(s.items() for s in syms)):
            cond = c.conj(*(f for _, f in combo))
            if cond == FALSE:
                continue
            try:
                result = fn(*(v for v, _ in combo))
            except EvaluationError as err:
                raise SpecError(f"cannot lower '{node.text}': it fails for some secrets "
                                f"({err.message})", node.loc) from None
            out.setdefault(result, []).append(cond)
        return Sym({v: c.disj(*fs) for v, fs in out.items()})

    # -- node kinds (only reached for secret-dependent nodes)

    def _name(self, node: ir.Name, env):
        kind, key = node.ref
        if kind == "secret":
            return self.secret[key]
        if key in env:
            return env[key]
        raise self.refuse(node, f"the name '{node.name}'")

    def _unary(self, node: ir.Unary, env):
        v = self.lower(node.operand, env)
        if node.op == "not":
            return self.boolean(self.circuit.neg(self.truth(v)))
        return self.split(lambda x: -x, [v], node)

    def _binary(self, node: ir.Binary, env):
        op, c = node.op, self.circuit
        a = self.lower(node.left, env)
        if op in ("and", "or"):
            b = self.lower(node.right, env)
            gate = c.conj if op == "and" else c.disj
            return self.boolean(gate(self.truth(a), self.truth(b)))
        b = self.lower(node.right, env)
        if op in ("==", "!=") and (is_structured(a) or is_structured(b)):
            same = self.structured_equal(a, b, node)
            return self.boolean(same if op == "==" else c.neg(same))
        if op in ("in", "not in"):
            inside = self.member(a, b, node)
            return self.boolean(inside if op == "in" else c.neg(inside))
        labels = node.left.type.values if isinstance(node.left.type, EnumT) else None

        def apply(x, y):
            if labels is not None and op in ("<", "<=", ">", ">="):
                x, y = labels.index(x), labels.index(y)
            return compare(op, x, y) if op in COMPARISONS else arithmetic(op, x, y, node)

        return self.split(apply, [a, b], node)

    def structured_equal(self, a: Any, b: Any, node: ir.Node) -> int:
        if isinstance(a, tuple) or isinstance(b, tuple):
            if len(a) != len(b):
                return FALSE
            return self.circuit.conj(*(self.structured_equal(x, y, node)
                                       for x, y in zip(a, b, strict=True)))
        if isinstance(a, dict) and not isinstance(a, Sym):
            return self.circuit.conj(*(self.structured_equal(a[k], b[k], node) for k in a))
        return self.truth(self.split(lambda x, y: x == y, [a, b], node))

    def member(self, x: Any, container: Any, node: ir.Node) -> int:
        c = self.circuit
        if isinstance(container, tuple):
            return c.disj(*(self.structured_equal(x, e, node) for e in container))
        if isinstance(container, Sym | dict):
            raise self.refuse(node, "membership in a secret-dependent collection")
        return c.disj(*(f for v, f in as_sym(x).items()
                        if contains(container, v)))

    def _ifexpr(self, node: ir.IfExpr, env):
        cond = self.truth(self.lower(node.cond, env))
        c = self.circuit
        then = self.lower(node.then, env) if cond != FALSE else None
        other = self.lower(node.other, env) if cond != TRUE else None
        if then is None or other is None:
            return then if other is None else other
        if is_structured(then) or is_structured(other):
            raise self.refuse(node, "a conditional choosing between sequences or records")
        out: dict[Any, list[int]] = {}
        for branch, guard in ((then, cond), (other, c.neg(cond))):
            for v, f in as_sym(branch).items():
                both = c.conj(guard, f)
                if both != FALSE:
                    out.setdefault(v, []).append(both)
        return Sym({v: c.disj(*fs) for v, fs in out.items()})

    def _index(self, node: ir.Index, env):
        target = self.lower(node.target, env)
        i = self.lower(node.index, env)
        if not isinstance(i, Sym):
            if not isinstance(target, tuple):
                raise self.refuse(node, "indexing this value")
            if not 0 <= i < len(target):
                raise SpecError(f"index {i} is out of range in '{node.text}'", node.loc)
            return target[i]
        if not isinstance(target, tuple):
            raise self.refuse(node, "a secret-dependent index into this value")
        c = self.circuit
        out: dict[Any, list[int]] = {}
        for k, fk in i.items():
            if not 0 <= k < len(target):
                raise SpecError(f"index {k} can be out of range in '{node.text}'", node.loc)
            element = target[k]
            if is_structured(element):
                raise self.refuse(node, "a secret-dependent index into nested values")
            for v, f in as_sym(element).items():
                both = c.conj(fk, f)
                if both != FALSE:
                    out.setdefault(v, []).append(both)
        return Sym({v: c.disj(*fs) for v, fs in out.items()})

    def _field(self, node: ir.Field, env):
        target = self.lower(node.target, env)
        if isinstance(target, dict) and not isinstance(target, Sym):
            return target[node.name]
        raise self.refuse(node, "this field access")

    def _tupleexpr(self, node, env):
        return tuple(self.lower(x, env) for x in node.items)

    _listexpr = _tupleexpr

    def _let(self, node: ir.Let, env):
        inner = dict(env)
        for uid, expr in node.bindings:
            inner[uid] = self.lower(expr, inner)
        return self.lower(node.body, inner)

    def _call(self, node: ir.Call, env):
        args = [self.lower(a, env) for a in node.args]
        lower = BUILTINS[node.func].lower
        out = NotImplemented if lower is None else lower(self, node, args)
        return self.split_call(node, args) if out is NotImplemented else out

    def split_call(self, node: ir.Call, args: list[Any]) -> Sym:
        """A builtin over symbolic scalars: its scalar meaning on every combination of the
        arguments' values (a case split)."""
        if any(is_structured(a) for a in args):
            raise self.refuse(node, f"{node.func}() of a secret-dependent sequence or record")
        call = ir.Call(node.loc, node.func, [ir.Const(a.loc, None) for a in node.args])
        call.type, call.text = node.type, node.text
        for const, a in zip(call.args, node.args, strict=True):
            const.type = a.type

        def apply(*values):
            for const, v in zip(call.args, values, strict=True):
                const.value = v
            return evaluate(call, {})

        return self.split(apply, args, node)

    def _generator(self, node: ir.Generator, env):
        items: list[tuple[int, Any]] = []  # (guard formula, body value) per iteration

        def walk(k: int, scope: dict[str, Any]) -> None:
            if k == len(node.loops):
                guard = TRUE if node.cond is None else self.truth(self.lower(node.cond, scope))
                if guard != FALSE:
                    items.append((guard, self.lower(node.body, scope)))
                return
            loop = node.loops[k]
            if HYP in loop.iterable.deps:
                raise self.refuse(node, "a loop over a secret-dependent collection")
            iterable = self._concrete(loop.iterable, scope)
            for item in iterate(loop.iterable, iterable):
                inner = dict(scope)
                if len(loop.names) == 1:
                    inner[loop.names[0]] = item
                else:
                    inner.update(zip(loop.names, item, strict=True))
                walk(k + 1, inner)

        walk(0, env)
        default = [self.lower(x, env) for x in node.extra]
        return AGGREGATES[node.func].lower(self, items, default, node)

    # -- what the aggregates' dynamic programmes are built from (builtins/aggregates.py)

    @staticmethod
    def constant(value: Any) -> Sym:
        return lift(value)

    @staticmethod
    def is_symbolic(value: Any) -> bool:
        return isinstance(value, Sym)

    @staticmethod
    def any_structured(values: Any) -> bool:
        return any(is_structured(v) for v in values)

    def guarded(self, guard: int, value: Any, otherwise: Any) -> Sym:
        """`value` where guard holds, else `otherwise`."""
        if guard == TRUE:
            return as_sym(value)
        c = self.circuit
        out: dict[Any, list[int]] = {otherwise: [c.neg(guard)]}
        for v, f in as_sym(value).items():
            out.setdefault(v, []).append(c.conj(guard, f))
        return Sym({v: c.disj(*fs) for v, fs in out.items() if c.disj(*fs) != FALSE})

    def fold_count(self, bits: list[int], cap: int | None = None) -> Sym:
        """How many of the formulas hold: the DP table of a cardinality constraint. With
        `cap`, counts from cap up share one state (meaning "cap or more"), so the table
        stays cap + 1 wide: exactly-one over n variables is linear in n, not quadratic."""
        c = self.circuit
        table: dict[int, int] = {0: TRUE}
        for b in bits:
            if b == FALSE:
                continue
            nb = c.neg(b)
            nxt: dict[int, list[int]] = {}
            for k, f in table.items():
                nxt.setdefault(k, []).append(c.conj(f, nb))
                up = k + 1 if cap is None else min(k + 1, cap)
                nxt.setdefault(up, []).append(c.conj(f, b))
            table = {k: g for k, fs in nxt.items() if (g := c.disj(*fs)) != FALSE}
        return Sym(table)


COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


SCALAR_TYPES = (ir.IntT, ir.BoolT, ir.FloatT, ir.EnumT, ir.StrT)


@cache
def secret_names(node: ir.Node) -> frozenset[str]:
    """The secret variables an expression reads (kept per node: lowering asks again for
    every subexpression on its way down)."""
    if isinstance(node, ir.Name) and node.ref is not None and node.ref[0] == "secret":
        return frozenset({node.ref[1]})
    return frozenset().union(*(secret_names(c) for c in ir.children(node)))


def _symbolic(value: Any) -> bool:
    if isinstance(value, Sym):
        return True
    if isinstance(value, tuple):
        return any(_symbolic(v) for v in value)
    if isinstance(value, dict):
        return any(_symbolic(v) for v in value.values())
    return False


def compare(op: str, a: Any, b: Any) -> bool:
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
            ">=": a >= b}[op]


def as_sym(value: Any) -> Sym:
    return value if isinstance(value, Sym) else lift(value)


def is_structured(value: Any) -> bool:
    return isinstance(value, tuple) or (isinstance(value, dict) and not isinstance(value, Sym))


__all__ = ["FALSE", "TRUE", "Circuit", "Group", "Lowering", "Sym"]

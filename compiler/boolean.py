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

from functools import cache
from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.builtins import AGGREGATES, BUILTINS
from sleuth.compiler.check import Model
from sleuth.compiler.circuit import FALSE, TRUE, Circuit
from sleuth.compiler.domains import held_value, plain
from sleuth.compiler.encoding import Group, OneHotSecret
from sleuth.compiler.errors import EvaluationError, SpecError, option
from sleuth.compiler.interpret import arithmetic, bind_state, contains, evaluate, iterate
from sleuth.compiler.ir import HYP, EnumT
from sleuth.compiler.memo import Memo
from sleuth.compiler.symvalues import (
    COMPARISONS,
    Sym,
    SymbolicAlgebra,
    as_sym,
    compare,
    has_symbolic,
    is_structured,
)
from sleuth.compiler.visitor import Visitor


class Lowering(SymbolicAlgebra, Visitor):
    """A model's secret as one-hot groups (encoding.py), and its expressions as symbolic
    values (one pass over the typed IR, a method per node kind)."""

    def __init__(self, model: Model):
        super().__init__()
        self.model = model
        self.encoding = OneHotSecret(model, self)
        self.groups: list[Group] = self.encoding.groups
        self.secret: dict[str, Any] = self.encoding.secret
        self.decode = self.encoding.decode
        self.by_part = self.encoding.by_part
        self.one_hot = self.encoding.one_hot
        self.memo = Memo()

    # -- the facts

    def constraints(self) -> list[int]:
        return [self.truth(self.lower(n, {})) for n in self.model.constraints]

    def feedback_fact(self, query: str, args: dict[str, Any], feedback: dict[str, Any]) -> int:
        """The formula 'query(args) gives this feedback' (lowered once)."""
        key = ("fact", query, repr((sorted(args.items()), sorted(feedback.items()))))
        return self.memo.get(key, lambda: self._feedback_fact(query, args, feedback))

    def _feedback_fact(self, query: str, args: dict[str, Any], feedback: dict[str, Any]
                       ) -> int:
        action = self.model.action(query)
        env: dict[str, Any] = dict(args)
        for _, uid, node in action.lets:
            env[uid] = self.lower(node, env)
        conds = []
        for name, uid, node in action.feedback or []:
            value = self.lower(node, env)
            env[uid] = value
            conds.append(self.equals(value, held_value(node.type, feedback[name])))
        return self.circuit.conj(*conds)

    def feedback_values(self, query: str, args: dict[str, Any]) -> dict[tuple, int]:
        """Every feedback (as a tuple of component values) with the formula giving it
        (lowered once per query: the circuit keeps its formulas)."""
        key = ("feedback_values", query, repr(sorted(args.items())))
        return self.memo.get(key, lambda: self._feedback_values(query, args))

    def _feedback_values(self, query: str, args: dict[str, Any]) -> dict[tuple, int]:
        action = self.model.action(query)
        results: dict[tuple, int] = {(): TRUE}
        env: dict[str, Any] = dict(args)
        for _, uid, node in action.lets:
            env[uid] = self.lower(node, env)
        for _, uid, node in action.feedback or []:
            value = self.lower(node, env)
            env[uid] = value
            sym = as_sym(value)
            nxt: dict[tuple, list[int]] = {}
            for key, cond in results.items():
                for v, f in sym.items():
                    both = self.circuit.conj(cond, f)
                    if both != FALSE:
                        nxt.setdefault(key + (plain(node.type, v),), []).append(both)
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
        handler = self.handler(node)
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
        g = self.encoding.group_of(self.secret[name])
        if g is None or any(has_symbolic(v) for v in env.values()):
            return None
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
                         hint=f'use the enumerated backend ({option("backend", "enum")}) for this '
                              'spec')

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

    def _iterate(self, node: ir.Iterate, env):
        """Unrolled: the state is lowered step by step (the steps after one that changes no
        symbolic value are skipped: they give it again)."""
        state = self.lower(node.init, env)
        for _ in range(node.steps):
            nxt = self.lower(node.body, bind_state(node.names, state, env))
            if nxt == state:
                break
            state = nxt
        return state

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

SCALAR_TYPES = (ir.IntT, ir.BoolT, ir.FloatT, ir.EnumT, ir.StrT, ir.UnionT)


@cache
def secret_names(node: ir.Node) -> frozenset[str]:
    """The secret variables an expression reads (kept per node: lowering asks again for
    every subexpression on its way down)."""
    if isinstance(node, ir.Name) and node.ref is not None and node.ref[0] == "secret":
        return frozenset({node.ref[1]})
    return frozenset().union(*(secret_names(c) for c in ir.children(node)))


__all__ = ["FALSE", "TRUE", "Circuit", "Group", "Lowering", "Sym"]

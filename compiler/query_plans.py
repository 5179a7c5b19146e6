"""Queries as unknowns: a non-adaptive plan of k queries as one boolean formula, for a SAT
solver, when the queries are too many to list (two set-valued arguments over a universe
of 39 give 3 x 10^17 legal queries).

The lowering of compiler/boolean.py is turned around: the secret is concrete (one
hypothesis at a time, bound in the environment) and the k queries' arguments are
the unknowns. A finite scalar argument is a one-hot group (exactly one value), as a
secret's is; a set argument is one boolean per element of its universe (`Bits`),
its size kept in the domain's range by a cardinality table. Each query's legality
is lowered with its arguments symbolic; for each hypothesis each query's feedback
is a symbolic value over them, so "some query answers h and h' differently" is a
formula, and a plan is a model of those formulas over the pairs to tell apart.
"""

from __future__ import annotations

from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.boolean import FALSE, TRUE, Lowering
from sleuth.compiler.check import CheckedAction, Model
from sleuth.compiler.domains import Domain, domain_size, domain_values, plain, set_elements
from sleuth.compiler.encoding import MAX_GROUP_VALUES, Group
from sleuth.compiler.errors import SpecError
from sleuth.compiler.ir import ROW
from sleuth.compiler.symvalues import Bits, Sym, SymbolicAlgebra, as_sym


class QueryLowering(Lowering):
    """Expressions over symbolic query arguments and a concrete secret."""

    def __init__(self, model: Model):
        SymbolicAlgebra.__init__(self)
        self.model = model
        self.groups: list[Group] = []
        self.facts: list[int] = []  # the arguments' domains (a set's size range)

    def lower(self, node: ir.Node, env: dict[str, Any]) -> Any:
        if ROW not in node.deps:  # the secret is concrete: only the arguments vary
            return self._concrete(node, env)
        handler = self.handler(node)
        if handler is None:
            raise self.refuse(node, "this construct")
        return handler(node, env)

    def _name(self, node: ir.Name, env):
        key = node.ref[1]
        if key in env:
            return env[key]
        raise self.refuse(node, f"the name '{node.name}'")

    def refuse(self, node: ir.Node, what: str) -> SpecError:
        return SpecError(f"a plan with the queries as unknowns cannot lower {what} in "
                         f"'{node.text}'", node.loc,
                         hint="a static plan over queries this many is built for finite "
                              "scalar, sequence, record and set arguments")

    def member(self, x: Any, container: Any, node: ir.Node) -> int:
        if isinstance(container, Bits):
            c = self.circuit
            return c.disj(*(c.conj(f, container.get(v, FALSE)) for v, f in as_sym(x).items()))
        return super().member(x, container, node)

    # -- the unknowns

    def encode(self, name: str, d: Domain) -> Any:
        """Fresh variables for one argument of one query of the plan."""
        if d.kind == "set":
            bits = Bits((e, self.circuit.new_var()) for e in set_elements(d.type))
            lo, hi = d.sizes
            size = self.fold_count(list(bits.values()), cap=hi + 1)
            self.facts.append(self.circuit.disj(*(f for k, f in size.items() if lo <= k <= hi)))
            return bits
        if d.kind == "seq":
            return tuple(self.encode(f"{name}[{i}]", d.elem) for i in range(d.length))
        if d.kind == "record":
            return {f: self.encode(f"{name}.{f}", fd) for f, fd in d.fields}
        if d.kind != "scalar" or not d.type.finite or domain_size(d) > MAX_GROUP_VALUES:
            raise SpecError(f"a plan with the queries as unknowns cannot encode the argument "
                            f"'{name}' ({d.describe()})")
        values = domain_values(d)
        nodes = [self.circuit.new_var() for _ in values]
        self.groups.append(Group(name, values, [self.circuit.nodes[n][1] for n in nodes],
                                 nodes))
        return Sym(zip(values, nodes, strict=True))

    def decode(self, value: Any, true: set[int]) -> Any:
        """An argument's value in a model (the true variables' numbers)."""
        if isinstance(value, Bits):
            return frozenset(e for e, n in value.items() if self.circuit.nodes[n][1] in true)
        if isinstance(value, tuple):
            return tuple(self.decode(v, true) for v in value)
        if isinstance(value, dict) and not isinstance(value, Sym):
            return {k: self.decode(v, true) for k, v in value.items()}
        return next(v for v, n in value.items() if self.circuit.nodes[n][1] in true)


class PlanFormula:
    """k queries of one action as unknowns: their legality, and per hypothesis their
    feedback, as formulas over one circuit; `apart(h, h')` the formula that some query
    of the plan answers the two differently."""

    def __init__(self, model: Model, action: CheckedAction, k: int,
                 hypotheses: list[dict[str, Any]]):
        self.action = action
        self.low = QueryLowering(model)
        self.slots = [{a.name: self.low.encode(f"{a.name}#{j}", a.domain) for a in action.args}
                      for j in range(k)]
        self.legal = [self.low.truth(self.low.lower(expr, dict(slot)))
                      for slot in self.slots for expr in action.legal]
        self.hypotheses = hypotheses  # held values, one dict per hypothesis
        self._feedback: dict[tuple[int, int], dict[tuple, int]] = {}

    def feedback(self, h: int, j: int) -> dict[tuple, int]:
        """Query j's feedback on hypothesis h: each possible feedback with its formula."""
        key = (h, j)
        if key not in self._feedback:
            low, c = self.low, self.low.circuit
            env: dict[str, Any] = {**self.hypotheses[h], **self.slots[j]}
            for _, uid, node in self.action.lets:
                env[uid] = low.lower(node, env)
            results: dict[tuple, int] = {(): TRUE}
            for _, uid, node in self.action.feedback or []:
                value = low.lower(node, env)
                env[uid] = value
                nxt: dict[tuple, list[int]] = {}
                for prefix, cond in results.items():
                    for v, f in as_sym(value).items():
                        both = c.conj(cond, f)
                        if both != FALSE:
                            nxt.setdefault(prefix + (plain(node.type, v),), []).append(both)
                results = {t: c.disj(*fs) for t, fs in nxt.items()}
            self._feedback[key] = results
        return self._feedback[key]

    def apart(self, h: int, g: int) -> int:
        """Some query of the plan answers hypotheses h and g differently."""
        c = self.low.circuit
        differ = []
        for j in range(len(self.slots)):
            a, b = self.feedback(h, j), self.feedback(g, j)
            same = c.disj(*(c.conj(f, b[t]) for t, f in a.items() if t in b))
            differ.append(c.neg(same))
        return c.disj(*differ)

    def builder(self) -> Any:
        """A cnf.ClauseBuilder holding the arguments' domains and the legality; assert more
        formulas on it (`apart`) and take the clauses it adds."""
        from sleuth.compiler.cnf import ClauseBuilder  # python-sat, loaded on first use

        builder = ClauseBuilder(self.low)
        for f in [*self.low.facts, *self.legal]:
            builder.assert_formula(f)
        return builder

    def decode(self, model: list[int]) -> list[dict[str, Any]]:
        """The plan's k queries' arguments in a SAT model."""
        true = {v for v in model if v > 0}
        return [{name: self.low.decode(v, true) for name, v in slot.items()}
                for slot in self.slots]


__all__ = ["PlanFormula", "QueryLowering"]

"""The secret as one-hot groups of boolean variables.

Every finite scalar of the secret (a variable, each position of a sequence,
each field of a record) becomes a group of boolean variables, one per value,
in declaration order (a sequence of card owners is therefore card-major); a
multiset is one group over its whole count sequences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sleuth.compiler.check import Model, Var
from sleuth.compiler.circuit import FALSE
from sleuth.compiler.domains import Domain, domain_size, domain_values
from sleuth.compiler.errors import BudgetError, SpecError, option
from sleuth.compiler.ir import RecordT, SeqT, position_name
from sleuth.compiler.symvalues import Packed, Sym, SymbolicAlgebra


@dataclass
class Group:
    """A one-hot group: the boolean variables (one per value) of one finite scalar."""

    name: str  # "code[3]", "r.f", "x"
    values: list[Any]
    literals: list[int]  # circuit variable numbers (1-based), one per value
    nodes: list[int]  # the circuit nodes of those variables
    parts: tuple[str, ...] = ()  # a multiset's group: the names of its counts


MAX_GROUP_VALUES = 100_000  # values of one secret scalar the one-hot encoding takes
MAX_VARIABLES = 10_000  # boolean variables of the whole secret: its diagram's build grows
#                         faster than linearly, so more is refused before the build
#                         starts, not after it has run for long


class OneHotSecret:
    """A model's secret encoded as one-hot groups over the algebra's circuit."""

    def __init__(self, model: Model, algebra: SymbolicAlgebra):
        self.algebra = algebra
        self.circuit = algebra.circuit
        self.groups: list[Group] = []
        self._group_of: dict[int, int] = {}
        self.variables = 0  # boolean variables made so far
        self.secret: dict[str, Any] = {v.name: self._encode(v.name, v.domain, v)
                                       for v in model.secret}

    def group_of(self, encoded: Any) -> Group | None:
        """The group holding a secret variable's encoding alone (a scalar, a multiset)."""
        k = self._group_of.get(id(encoded))
        return None if k is None else self.groups[k]

    def _encode(self, name: str, d: Domain, var: Var) -> Any:
        t = d.type
        if d.kind == "multiset":
            return self._encode_multiset(name, d)
        if d.listed is not None:
            raise SpecError(f"the symbolic backend cannot encode secret variable '{var.name}' "
                            f"({d.describe()}): its values are a list, not every sequence",
                            var.loc, hint=f'use {option("backend", "enum")}')
        if isinstance(t, SeqT):
            return tuple(self._encode(f"{name}[{position_name(t, i)}]", d.elem, var)
                         for i in range(d.length))
        if isinstance(t, RecordT):
            return {f: self._encode(f"{name}.{f}", fd, var) for f, fd in d.fields}
        if d.kind == "set" or not t.finite:
            raise SpecError(f"the symbolic backend cannot encode secret variable '{var.name}' "
                            f"({d.describe()}) yet", var.loc,
                            hint="finite scalars, sequences and records of them are supported")
        if domain_size(d) > MAX_GROUP_VALUES:
            raise SpecError(f"the symbolic backends encode '{name}' with one boolean variable "
                            f"per value: {domain_size(d):,} values is more than the "
                            f"{MAX_GROUP_VALUES:,} they take", var.loc,
                            hint="narrow its domain (the params)")
        self._add_variables(domain_size(d), var)
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
        self._add_variables(domain_size(d), None)
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

    def _add_variables(self, count: int, var: Var | None) -> None:
        """Count `count` more variables, refusing a secret over MAX_VARIABLES in all."""
        self.variables += count
        if self.variables > MAX_VARIABLES:
            raise BudgetError(f"the symbolic backends encode the secret with one boolean "
                              f"variable per value of each part: more than "
                              f"{MAX_VARIABLES:,} variables", None if var is None else var.loc,
                              hint="narrow its domains (the params)")

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
        return [self.algebra.fold_count(g.nodes[::-1], cap=2).get(1, FALSE)
                for g in self.groups]


__all__ = ["Group", "OneHotSecret"]

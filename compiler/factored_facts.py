"""Formulas of the boolean lowering read part by part, for the factored counter.

A secret's *parts* are its variables (a piece on a board, a code peg); a part's values
are its domain's ranks. Each circuit variable is "group g takes its k-th value", and
every group belongs to one part, so a formula that reads one part only is a mask over
that part's values, tabulated here (`PartTables.mask`). A formula over several parts is
put in conjunctive form over such masks (`PartTables.clauses`): a list of clauses, each
a disjunction {part: allowed values}. A clause over one part narrows that part's values;
a clause over several is kept as a clause (compiler/factored_kernel.py counts those by
signatures).

"No piece holds this cell" reads every piece, but it is a conjunction of one mask per
piece; "some piece holds it" is one clause over all of them. A formula whose conjunctive
form would need more than MAX_CLAUSES clauses is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.circuit import FALSE, TRUE
from sleuth.compiler.domains import Domain, component_ranks, domain_size
from sleuth.compiler.errors import SleuthError, option
from sleuth.compiler.symvalues import Packed, Sym

MAX_CLAUSES = 64  # clauses of one formula's conjunctive form (and of one belief's facts)

Clause = dict[int, np.ndarray]  # part -> its values (bool over the part's domain) allowed


def leaf_ranks(d: Domain, ranks: np.ndarray) -> list[np.ndarray]:
    """The rank of each scalar of a value (a sequence's positions, a record's fields, in
    the order the one-hot encoding numbers their groups) at each of the given ranks."""
    components = component_ranks(d, ranks)
    if components is None:
        return [ranks]
    return [x for sub, r in components for x in leaf_ranks(sub, r)]


class PartTables:
    """Each circuit variable's truth over the values of the part it belongs to."""

    def __init__(self, lowering: Any, parts: list[str], domains: list[Domain]):
        self.circuit = lowering.circuit
        self.sizes = [domain_size(d) for d in domains]
        self.literal: dict[int, tuple[int, np.ndarray, int]] = {}  # var -> (part, ranks, k)
        # per part, its one-hot groups, each with its value's index at every part value
        self.leaves: list[list[tuple[Any, np.ndarray]]] = []
        for p, (name, d) in enumerate(zip(parts, domains, strict=True)):
            groups = self._groups(lowering.encoding, lowering.secret[name], name)
            leaves = leaf_ranks(d, np.arange(self.sizes[p], dtype=np.int64))
            self.leaves.append(list(zip(groups, leaves, strict=True)))
            for g, ranks in self.leaves[-1]:
                for k, lit in enumerate(g.literals):
                    self.literal[lit] = (p, ranks, k)
        self._support: dict[int, frozenset[int]] = {}

    @staticmethod
    def _groups(encoding: Any, encoded: Any, name: str) -> list[Any]:
        if isinstance(encoded, Packed):
            raise SleuthError(f"the factored backend conditions on secret parts of scalars, "
                              f"sequences and records; '{name}' is a multiset",
                              hint=f'use {option("backend", "sdd")}')
        if isinstance(encoded, Sym):
            return [encoding.group_of(encoded)]
        items = encoded if isinstance(encoded, tuple) else encoded.values()
        return [g for e in items for g in PartTables._groups(encoding, e, name)]

    def support(self, node: int) -> frozenset[int]:
        """The parts a formula reads."""
        found = self._support.get(node)
        if found is None:
            kind, *rest = self.circuit.nodes[node]
            if kind == "var":
                found = frozenset({self.literal[rest[0]][0]})
            elif kind == "not":
                found = self.support(rest[0])
            elif kind in ("and", "or"):
                found = frozenset().union(*(self.support(c) for c in rest[0]))
            else:
                found = frozenset()
            self._support[node] = found
        return found

    def mask(self, node: int, part: int) -> np.ndarray:
        """A formula reading `part` only, as its truth at each of the part's values."""
        memo: dict[int, np.ndarray] = {}

        def walk(n: int) -> np.ndarray:
            if n not in memo:
                kind, *rest = self.circuit.nodes[n]
                if kind == "var":
                    _, ranks, k = self.literal[rest[0]]
                    memo[n] = ranks == k
                elif kind == "not":
                    memo[n] = ~walk(rest[0])
                elif kind == "and":
                    memo[n] = np.logical_and.reduce([walk(c) for c in rest[0]])
                elif kind == "or":
                    memo[n] = np.logical_or.reduce([walk(c) for c in rest[0]])
                else:
                    memo[n] = np.full(self.sizes[part], kind == "true")
            return memo[n]

        return walk(node)

    def clauses(self, node: int, positive: bool = True) -> list[Clause]:
        """The formula (or its negation) as clauses over part masks; [] is true, and a
        clause with no part is false."""
        support = self.support(node)
        if node in (TRUE, FALSE) or not support:
            holds = (node == TRUE) == positive
            return [] if holds else [{}]
        if len(support) == 1:
            part = next(iter(support))
            m = self.mask(node, part)
            m = m if positive else ~m
            return [] if m.all() else [{part: m} if m.any() else {}]
        kind, *rest = self.circuit.nodes[node]
        if kind == "not":
            return self.clauses(rest[0], not positive)
        if (kind == "and") == positive:
            out = [c for child in rest[0] for c in self.clauses(child, positive)]
            return self._bounded(out)
        product: list[Clause] = [{}]  # a disjunction: distribute over its children's forms
        for child in rest[0]:
            form = self.clauses(child, positive)
            if not form:
                return []
            product = self._bounded([merged for a in product for b in form
                                     if (merged := _either(a, b)) is not None])
            if not product:
                return []
        return product

    @staticmethod
    def _bounded(form: list[Clause]) -> list[Clause]:
        if len(form) > MAX_CLAUSES:
            raise SleuthError(f"the factored backend keeps a fact as at most {MAX_CLAUSES} "
                              f"clauses over the secret's parts; this one needs more",
                              hint=f'use {option("backend", "sdd")}')
        return form


def _either(a: Clause, b: Clause) -> Clause | None:
    """The disjunction of two clauses; None when it always holds."""
    out = dict(a)
    for part, m in b.items():
        out[part] = out[part] | m if part in out else m
        if out[part].all():
            return None
    return out


__all__ = ["MAX_CLAUSES", "Clause", "PartTables", "leaf_ranks"]

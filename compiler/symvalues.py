"""Symbolic values: what an expression over the secret lowers to, and their algebra.

A symbolic value (`Sym`) maps each value an expression can take to the circuit
formula under which it takes it (mutually exclusive given the one-hot groups).
`SymbolicAlgebra` builds them: truth values, equality, the case split (an
operation evaluated on every combination of its operands' values, guarded by a
size limit), guards, and the dynamic programme of a count.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.circuit import FALSE, TRUE, Circuit
from sleuth.compiler.errors import EvaluationError, SpecError, option

MAX_CASES = 200_000  # combinations one case split may enumerate


class Sym(dict):
    """value -> formula under which an expression takes that value."""


class Bits(dict):
    """A set-valued unknown: each element of its universe -> the formula under which the
    set holds it (compiler/query_plans.py: a query argument as an unknown)."""


class Packed(tuple):
    """A secret sequence held by one group of its own (a multiset's counts)."""


def lift(value: Any) -> Sym:
    return Sym({value: TRUE})


COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def has_symbolic(value: Any) -> bool:
    if isinstance(value, Sym):
        return True
    if isinstance(value, tuple):
        return any(has_symbolic(v) for v in value)
    if isinstance(value, dict):
        return any(has_symbolic(v) for v in value.values())
    return False


def compare(op: str, a: Any, b: Any) -> bool:
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
            ">=": a >= b}[op]


def as_sym(value: Any) -> Sym:
    return value if isinstance(value, Sym) else lift(value)


def is_structured(value: Any) -> bool:
    return isinstance(value, tuple) or (isinstance(value, dict) and not isinstance(value, Sym))


class SymbolicAlgebra:
    """Operations on symbolic values over one circuit."""

    def __init__(self) -> None:
        self.circuit = Circuit()

    def refuse(self, node: ir.Node, what: str) -> SpecError:
        return SpecError(f"the symbolic backend cannot lower {what} in '{node.text}'", node.loc,
                         hint=f'use the enumerated backend ({option("backend", "enum")}) for this '
                              'spec')

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

    def structured_equal(self, a: Any, b: Any, node: ir.Node) -> int:
        if isinstance(a, tuple) or isinstance(b, tuple):
            if len(a) != len(b):
                return FALSE
            return self.circuit.conj(*(self.structured_equal(x, y, node)
                                       for x, y in zip(a, b, strict=True)))
        if isinstance(a, dict) and not isinstance(a, Sym):
            return self.circuit.conj(*(self.structured_equal(a[k], b[k], node) for k in a))
        return self.truth(self.split(lambda x, y: x == y, [a, b], node))

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


__all__ = ["MAX_CASES", "Bits", "Packed", "Sym", "SymbolicAlgebra", "as_sym", "compare",
           "has_symbolic", "is_structured", "lift"]

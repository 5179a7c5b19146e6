"""Counted beliefs: an information set kept as facts and counted, never listed.

For hypothesis spaces too large to enumerate (a Clue deal, Mastermind with
8 pegs), a `CountedBelief` holds the spec's constraints and every observed
feedback as formulas of the boolean lowering. With the `sdd` backend they
are conjoined into one decision diagram and counts are model counts of it
(under one more literal, for marginals); with `cnf` every count is a fresh
Ganak call on the clauses, projected onto the secret (slow, but an
independent check). Beliefs are uniform over the hypotheses they keep and
immutable, like the enumerated ones; a fact that no hypothesis satisfies
raises "inconsistent observations" and changes nothing.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

from pysdd.sdd import SddNode

from compiler.errors import Loc, ObservationError
from compiler.game import Game
from compiler.sdd import count as diagram_count
from solver.belief import InconsistentObservations

GANAK_SECONDS = 120.0
LISTABLE = 64  # beliefs this small can list their hypotheses (for `top`)


class CountedBelief:
    """Hypotheses satisfying the constraints and `facts`, counted by `backend`."""

    uniform = True

    def __init__(self, game: Game, backend: str = "sdd", facts: tuple[int, ...] = (),
                 diagram: SddNode | None = None):
        if backend not in ("sdd", "cnf"):
            raise ValueError(backend)
        self.game = game
        self.backend = backend
        self.space = game.symbolic
        self.facts = facts
        self._diagram = diagram

    @classmethod
    def prior(cls, game: Game, backend: str = "sdd") -> CountedBelief:
        return cls(game, backend)

    # -- counting

    @property
    def diagram(self) -> SddNode:
        if self._diagram is None:
            self._diagram = self.space.condition(self.space.base, *self.facts)
        return self._diagram

    def count_with(self, *formulas: int) -> int:
        """Hypotheses of this belief that also satisfy the formulas."""
        if self.backend == "sdd":
            d = self.diagram if not formulas else self.space.condition(self.diagram, *formulas)
            return diagram_count(d)
        from compiler.cnf import projected_count

        cnf = self.space.clauses(*self.facts, *formulas)
        n = projected_count(cnf.clauses, cnf.top, cnf.secret_vars, GANAK_SECONDS)
        if n is None:
            raise ObservationError(f"Ganak gave no count within {GANAK_SECONDS:.0f} s",
                                   hint="use --backend sdd")
        return n

    @cached_property
    def size(self) -> int:
        return self.count_with()

    def entropy_bits(self) -> float:
        return math.log2(self.size)

    def kl_bits(self, before: CountedBelief) -> float:
        """KL(self || before) for uniform beliefs, self a restriction of before."""
        return math.log2(before.size / self.size)

    # -- updates

    def condition(self, formula: int, what: str, loc: Loc | None = None) -> CountedBelief:
        diagram = None
        if self.backend == "sdd":
            diagram = self.space.condition(self.diagram, formula)
        after = CountedBelief(self.game, self.backend, self.facts + (formula,), diagram)
        if after.size == 0:
            raise InconsistentObservations(
                f"inconsistent observations: no remaining hypothesis gives {what}", loc,
                hint="check the values typed; the belief is unchanged")
        return after

    # -- what is known

    def marginals(self) -> dict[str, dict[Any, float]]:
        """P(value) of every one-hot group: with sdd, every literal's probability from one
        weighted-model-count pass (derivatives); with cnf, one Ganak count per value."""
        groups = self.space.lowering.groups
        if self.backend == "sdd":
            return self.space.marginals(self.diagram)
        total = self.size
        return {g.name: {v: self.count_with(node) / total
                         for v, node in zip(g.values, g.nodes, strict=True)} for g in groups}

    def determined(self, names: list[str]) -> bool:
        groups = [g for g in self.space.lowering.groups
                  if g.name.split("[")[0].split(".")[0] in names]
        return all(sum(1 for node in g.nodes if self.count_with(node)) == 1 for g in groups)

    def top(self, k: int) -> list[tuple[dict[str, Any], float]]:
        """The hypotheses, when there are at most LISTABLE of them (all equally likely)."""
        if self.size > LISTABLE or k == 0:
            return []
        found: list[list[Any]] = []
        groups = self.space.lowering.groups

        def walk(i: int, chosen: list[Any], extra: tuple[int, ...]) -> None:
            if i == len(groups):
                found.append(list(chosen))
                return
            for v, node in zip(groups[i].values, groups[i].nodes, strict=True):
                if self.count_with(*extra, node):
                    walk(i + 1, chosen + [v], extra + (node,))

        walk(0, [], ())
        p = 1.0 / self.size
        return [(self.space.lowering.decode(c), p) for c in found[:k]]


__all__ = ["CountedBelief"]

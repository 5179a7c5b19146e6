"""`--backend factored`: the spec's constraints as factors over the secret's parts, counted
by conditioning on all parts but two and summing those two as matrix products
(compiler/factored.py). No decision diagram: it counts secrets whose parts all meet one
another (ships on a board, all-different codes) where a diagram grows too large. It
counts the constraints' hypotheses only: conditioning on observations is not built,
and it says so (use sdd for beliefs)."""

from __future__ import annotations

from typing import Any

from sleuth.compiler.counters.base import Counter
from sleuth.compiler.errors import SleuthError


class FactoredCounter(Counter):
    name = "factored"
    conditions = False
    help = "constraints as factors over the secret's parts (exact count, no observations)"

    def start(self) -> Any:
        from sleuth.compiler.factored import FactorGraph

        if not hasattr(self, "_graph"):
            self._graph = FactorGraph(self.space.model)
        return self._graph

    def conjoin(self, state: Any, *formulas: int) -> Any:
        if formulas:
            raise SleuthError("the factored backend counts the spec's constraints only; it "
                              "cannot condition on observations (or on a value) yet",
                              hint="use --backend sdd (or cnf) for beliefs after queries")
        return state

    def count(self, state: Any) -> int:
        return state.count()

    def describe(self, state: Any) -> dict[str, Any]:
        return state.describe()


__all__ = ["FactoredCounter"]

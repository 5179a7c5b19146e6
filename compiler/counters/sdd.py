"""`--backend sdd`: a sentential decision diagram (pysdd) compiled once and conditioned.

Counting, marginals (one weighted-model-count pass and its derivatives),
exact uniform sampling and listing all read the diagram's structure.
"""

from __future__ import annotations

from typing import Any

from sleuth.compiler.counters.base import Counter


class DiagramCounter(Counter):
    name = "sdd"
    automatic = 1  # any spec: after the counters that suit a shape, when none does
    help = "decision diagram (exact counts, marginals, sampling)"

    def start(self) -> Any:
        return self.space.base

    def conjoin(self, state: Any, *formulas: int) -> Any:
        return self.space.condition(state, *formulas) if formulas else state

    def count(self, state: Any) -> int:
        return self.space.count(state)

    def describe(self, state: Any) -> dict[str, Any]:
        return {"variables": self.space.variables, "diagram_nodes": state.size()}

    def marginals(self, state: Any) -> dict[str, dict[Any, float]]:
        return self.space.marginals(state)

    def sample_ranks(self, state: Any, k: int, seed: int) -> list[int]:
        return self.space.sample_ranks(state, k, seed)

    def list_ranks(self, state: Any, limit: int) -> list[int] | None:
        return self.space.list_ranks(state, limit)


__all__ = ["DiagramCounter"]

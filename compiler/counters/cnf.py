"""`--backend cnf`: the facts as clauses, each count a fresh Ganak call (pyganak),
projected onto the secret. Slow, but independent of the diagram: a check on it.
Sampling and listing, which Ganak does not offer, go through the decision diagram."""

from __future__ import annotations

from typing import Any

from sleuth.compiler.counters.base import Counter

GANAK_SECONDS = 120.0


class GanakCounter(Counter):
    name = "cnf"
    help = "clauses counted by Ganak (exact, projected; independent of the diagram)"

    def start(self) -> tuple[int, ...]:
        return ()

    def conjoin(self, state: tuple[int, ...], *formulas: int) -> tuple[int, ...]:
        return state + formulas

    def count(self, state: tuple[int, ...]) -> int:
        from sleuth.compiler.cnf import projected_count

        cnf = self.space.clauses(*state)
        return projected_count(cnf.clauses, cnf.top, cnf.secret_vars, GANAK_SECONDS)

    def _diagram(self, state: tuple[int, ...]) -> Any:
        return self.space.condition(self.space.base, *state)

    def satisfiable(self, state: tuple[int, ...]) -> bool:
        from sleuth.compiler.cnf import satisfiable

        return satisfiable(self.space.clauses(*state).clauses)

    def describe(self, state: tuple[int, ...]) -> dict[str, Any]:
        cnf = self.space.clauses(*state)
        return {"variables": cnf.top, "secret_variables": cnf.secret_vars,
                "clauses": len(cnf.clauses), "counted_by": "ganak"}

    def sample_ranks(self, state: tuple[int, ...], k: int, seed: int) -> list[int]:
        return self.space.sample_ranks(self._diagram(state), k, seed)

    def list_ranks(self, state: tuple[int, ...], limit: int) -> list[int] | None:
        return self.space.list_ranks(self._diagram(state), limit)


__all__ = ["GanakCounter"]

"""`--backend approx`: approximate counting with ApproxMC and near-uniform sampling with
UniGen, on the spec's clauses, for spaces that neither enumeration nor a decision
diagram can hold.

Guarantee (ApproxMC, Chakraborty, Meel & Vardi): with probability at least
1 - delta the estimate c satisfies count / (1 + epsilon) <= c <= (1 + epsilon) count;
defaults epsilon = 0.8, delta = 0.2, as ApproxMC's own. UniGen draws samples
whose probabilities lie within a factor (1 + epsilon) of uniform. Both are
seeded, so a run is reproducible. Counts are projected onto the secret's
one-hot variables. Listing (when an information set is small enough for the
kernels) enumerates the models with a SAT solver and blocking clauses, exactly.
"""

from __future__ import annotations

from typing import Any

from sleuth.compiler.counters.base import Counter

EPSILON = 0.8
DELTA = 0.2
SEED = 1


class ApproxCounter(Counter):
    name = "approx"
    exact = False
    help = "ApproxMC counts and UniGen samples (approximate, (epsilon, delta) guarantees)"

    def __init__(self, space: Any, epsilon: float = EPSILON, delta: float = DELTA,
                 seed: int = SEED):
        super().__init__(space)
        self.epsilon, self.delta, self.seed = epsilon, delta, seed
        self._counts: dict[tuple[int, ...], tuple[int, int]] = {}  # (cells, hashes) per state

    @staticmethod
    def supported() -> bool:
        try:
            import pyapproxmc  # noqa: F401
            import pyunigen  # noqa: F401
        except ImportError:
            return False
        return True

    @property
    def guarantee(self) -> str:
        return (f"within a factor {1 + self.epsilon:g} of the exact count with probability "
                f">= {1 - self.delta:g} (ApproxMC, epsilon {self.epsilon:g}, delta "
                f"{self.delta:g})")

    def start(self) -> tuple[int, ...]:
        return ()

    def conjoin(self, state: tuple[int, ...], *formulas: int) -> tuple[int, ...]:
        return state + formulas

    def count(self, state: tuple[int, ...]) -> int:
        cells, hashes = self._estimate(state)
        return cells * 2**hashes

    def _estimate(self, state: tuple[int, ...]) -> tuple[int, int]:
        """ApproxMC's (cells, hashes): the count is cells * 2**hashes (kept per state)."""
        if state not in self._counts:
            import pyapproxmc

            cnf = self.space.clauses(*state)
            counter = pyapproxmc.Counter(seed=self.seed, epsilon=self.epsilon, delta=self.delta)
            counter.add_clauses(cnf.clauses)
            cells, hashes = counter.count(list(range(1, cnf.secret_vars + 1)))
            self._counts[state] = (int(cells), int(hashes))
        return self._counts[state]

    def satisfiable(self, state: tuple[int, ...]) -> bool:
        from sleuth.compiler.cnf import satisfiable

        return satisfiable(self.space.clauses(*state).clauses)

    def describe(self, state: tuple[int, ...]) -> dict[str, Any]:
        cnf = self.space.clauses(*state)
        return {"variables": cnf.top, "secret_variables": cnf.secret_vars,
                "clauses": len(cnf.clauses), "counted_by": "approxmc", "guarantee": self.guarantee}

    def sample_ranks(self, state: tuple[int, ...], k: int, seed: int) -> list[int]:
        import pyunigen

        cnf = self.space.clauses(*state)
        sampler = pyunigen.Sampler(seed=seed % (2**31 - 1) + 1, epsilon=self.epsilon,
                                   delta=self.delta)
        for clause in cnf.clauses:
            sampler.add_clause(clause)
        # UniGen needs the count: ApproxMC's is reused, given as (cells, hashes) -- the order
        # UniGen returns it in (its docstring says the reverse; that order never finishes).
        _, _, samples = sampler.sample(num=k, sampling_set=list(range(1, cnf.secret_vars + 1)),
                                       cell_hash_count=self._estimate(state))
        return self.space.ranks([_mask(s) for s in samples])

    def list_ranks(self, state: tuple[int, ...], limit: int) -> list[int] | None:
        from pysat.solvers import Solver

        cnf = self.space.clauses(*state)
        n = cnf.secret_vars
        models: list[int] = []
        with Solver(name="cadical153", bootstrap_with=cnf.clauses) as solver:
            while solver.solve():
                true = [lit for lit in solver.get_model()[:n] if lit > 0]
                models.append(_mask(true))
                if len(models) > limit:
                    return None
                solver.add_clause([-lit for lit in true])  # one value per group: block it
        return sorted(self.space.ranks(models))


def _mask(literals: list[int]) -> int:
    """A model as the bitmask of its true variables (variable v is bit v - 1)."""
    out = 0
    for lit in literals:
        if lit > 0:
            out |= 1 << (lit - 1)
    return out


__all__ = ["ApproxCounter"]

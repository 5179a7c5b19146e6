"""`static`: a non-adaptive plan. The least set of queries whose answers tell every secret
apart, all chosen before any answer (static_search.py: among the listed queries, or with
the queries as unknowns, static_unknowns.py).

Played, the plan is asked in its order (canonical for listed queries), and a game
ends as soon as its goal is reached; a plan query that can no longer tell the
hypotheses left apart is skipped (its answer is known). When one hypothesis is left
and the game still waits for a feedback that ends it (`stop_when`, as a code that
must be guessed), the strategy asks the query that ends it, as `optimal` would. The
plan's size is the static number (the usual count: the questions, not the final
guess).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.strategies.base import ListedStrategy, Option
from sleuth.solver.strategies.static_search import METHODS, StaticPlan, StaticSearch


class Static(ListedStrategy):
    """The fewest queries chosen before any answer that identify every secret (SAT)."""

    name = "static"
    follows_history = False
    orbit_queries = True  # queries too many to list: the plan takes them as unknowns
    sat_budget = Option(float, None, "seconds the SAT search may take before it gives up "
                                 "(default: no limit)", minimum=0, open_min=True,
                    optional=True)
    plan_queries = Option(str, "auto", "choose the plan among the listed queries, or with "
                                       "the queries' arguments as the SAT problem's unknowns "
                                       "(auto: listed when they can be listed)",
                          choices=METHODS)

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        self.search = StaticSearch(candidates, self.plan_queries)
        self._plan: StaticPlan | None = None
        self._finisher: Any = None

    @property
    def plan(self) -> StaticPlan:
        """The least plan, searched for on first use."""
        if self._plan is None:
            self._plan = self.search.solve(self.sat_budget)
        return self._plan

    def choose(self, belief: AnyBelief) -> Query:
        belief = self.prepared(belief)
        if belief.size > 1:
            asked = {(a, r) for a, r, _ in belief.history}
            game = self.candidates.game
            for query in self.plan.queries:  # the next query that still tells something
                if (query.action, query.rank) in asked:
                    continue
                rank = np.array([query.rank], dtype=object if query.rank >= 1 << 63
                                else np.int64)
                if len(np.unique(game.feedback_matrix(query.action, rank,
                                                      belief.index))) > 1:
                    return query
        if self._finisher is None:
            from sleuth.solver.strategies.optimal import Optimal

            self._finisher = Optimal(self.candidates, self.seed)
        return self._finisher.choose(belief)

    def proven(self, belief: AnyBelief) -> dict[str, Any]:
        plan = self.plan
        return {"total": None, "worst": None, "top": 0, "static": plan.size,
                "least": plan.least,
                "queries": [self.candidates.shown(q) for q in plan.queries],
                "method": plan.method,
                "seconds": round(plan.seconds, 3), "sat_calls": plan.sat_calls,
                "pairs": plan.pairs, "variables": plan.variables,
                "orbit_clause": plan.orbit_clause,
                "proofs": {str(k): round(s, 3) for k, s in plan.proofs.items()},
                "statement": (f"static plan of {plan.size} queries, chosen before any "
                              f"answer: proven least (no plan of {plan.size - 1} tells "
                              f"every secret apart; SAT, {plan.sat_calls} calls, "
                              f"{plan.pairs:,} pair clauses, {plan.seconds:.2f} s)")}



__all__ = ["Static"]

"""A static plan with the queries as the SAT problem's unknowns: for games whose queries
are too many to list (pairs of sets over 39 elements: 3 x 10^17), or on request.

k queries of the game's one action are encoded by the compiler (compiler/query_plans.py,
through compiler.api.PlanFormula): their arguments as boolean variables, their
legality, and per hypothesis their feedback as formulas over those variables. The
pairs of hypotheses to tell apart are added lazily, as in the listed search: solve,
read the plan's queries from the model, compute their answers with the game's own
feedback kernels (not the formulas), add a clause "some query answers them
differently" for the pairs they leave together, solve again. UNSAT at k proves that
no plan of k exists; k counts up from the counting bound (each query has at most as
many answers as the feedback codes its queries reach, or as its code space when they are
too many to scan). The k queries are interchangeable, so the
search needs no other symmetry to find a plan; proving that none exists at k can be
slow where the counting bound does not already prove it.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sleuth.compiler.api import PlanFormula, SleuthError, held_value, option
from sleuth.solver.infoset.queries import Query
from sleuth.solver.infoset.reachable import reachable_codes

MAX_PLAN = 64  # queries a plan may have before the search gives up


def solve_unknowns(search: Any, budget: float | None) -> Any:
    """The least static plan of `search` (a StaticSearch), its queries as unknowns."""
    from pysat.solvers import Solver

    from sleuth.solver.strategies.static_search import (
        StaticPlan,
        out_of_time,
        sat_solver,
        solve_within,
    )

    start = time.perf_counter()
    deadline = None if budget is None else start + budget
    game = search.game
    if len(search.actions) != 1:
        raise SleuthError("a static plan with the queries as unknowns takes one kind of "
                          f"query; this spec has {len(search.actions)}",
                          hint=f'list the queries (narrow the params with {option("set")})')
    action = search.actions[0]
    table = game.hypotheses
    hyps = [_held(game, table.value(h)) for h in range(table.size)]
    codes = reachable_codes(game, action)  # None: too many queries to scan
    most = game.coder(action.name).size if codes is None else len(codes)
    plan = StaticPlan([], False, search.counting_bound(most), 0.0, method="unknowns")
    if plan.lower == 0:
        plan.least, plan.seconds = True, time.perf_counter() - start
        return plan
    space = game.space(action.name)
    k = plan.lower
    while k <= MAX_PLAN:
        formula = PlanFormula(game.model, action, k, hyps)
        builder = formula.builder()
        solver = Solver(name=sat_solver(budget), bootstrap_with=builder.clauses)
        added = len(builder.clauses)
        proved_at = time.perf_counter()
        try:
            while True:
                plan.sat_calls += 1
                found = solve_within(solver, [], deadline)
                if found is None:
                    raise out_of_time(budget, k)
                if not found:
                    plan.proofs[k] = time.perf_counter() - proved_at
                    break
                queries = [Query(action.name, space.rank(args))
                           for args in formula.decode(solver.get_model())]
                ranks = np.array([q.rank for q in queries], dtype=object)
                pairs = search.unseparated(game.feedback_matrix(action.name, ranks))
                if not pairs:
                    plan.queries, plan.least, plan.lower = queries, True, k
                    plan.variables = builder.top
                    plan.seconds = time.perf_counter() - start
                    return plan
                for h, g in pairs:
                    builder.assert_formula(formula.apart(h, g))
                plan.pairs += len(pairs)
                for clause in builder.clauses[added:]:
                    solver.add_clause(clause)
                added = len(builder.clauses)
        finally:
            solver.delete()
        k += 1
    raise SleuthError(f"no static plan of at most {MAX_PLAN} queries tells every secret apart")


def _held(game: Any, value: dict[str, Any]) -> dict[str, Any]:
    """A hypothesis's values as the interpreter holds them."""
    return {v.name: held_value(v.domain.type, value[v.name]) for v in game.model.secret}


__all__ = ["solve_unknowns"]

"""Non-adaptive ("static") plans: the fewest queries, all chosen before any answer, whose
answers tell every secret apart (a separating set), found and proven with a SAT solver.

A plan S is a set of queries such that any two hypotheses with different goal values
get a different answer from some query of S. One boolean x_q per query says q is in
S; each pair of hypotheses to separate is one clause (the queries that answer them
differently, at least one chosen); a totalizer bounds |S| <= k. There are far too
many pairs to list (n^2 / 2), so they are added lazily: solve, find the pairs the
chosen set leaves together, add their clauses, solve again. UNSAT at k proves that
no plan of k queries exists, so the first k that is satisfiable, counting up from a
lower bound, is the least.

Symmetry breaking, each step sound:
* queries that part the hypotheses alike (the same partition, whatever the labels)
  are one variable, and a query that parts nothing is none;
* under the game's symmetry group (infoset/symmetry.py), a plan's image is a plan,
  and any plan maps onto one containing the first query of some orbit: one clause
  asks for such a query.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sleuth.compiler.api import BudgetError, SleuthError, option, show_value
from sleuth.solver.infoset.goals import goal_classes
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.search.refusals import require_exact

SAT_SOLVER = "cadical153"
INTERRUPTIBLE = "glucose4"  # under a time budget: CaDiCaL cannot be interrupted


def sat_solver(budget: float | None) -> str:
    """The SAT solver to use: CaDiCaL, or Glucose when a budget must interrupt a call."""
    return SAT_SOLVER if budget is None else INTERRUPTIBLE


@dataclass
class StaticPlan:
    """A separating set of queries, and how it was found."""

    queries: list[Query]  # in canonical order (listed), or in the solver's (unknowns)
    least: bool  # proven: no plan with one query fewer exists
    lower: int  # the largest k proven impossible, plus one (== len(queries) when least)
    seconds: float
    sat_calls: int = 0
    pairs: int = 0  # separation clauses the solver needed
    variables: int = 0  # distinct useful queries it chose among
    orbit_clause: int = 0  # queries in the symmetry clause (0: no symmetry used)
    method: str = "listed"  # chosen among listed queries, or the queries as unknowns
    proofs: dict[int, float] = field(default_factory=dict)  # k -> seconds to prove no plan

    @property
    def size(self) -> int:
        return len(self.queries)


def canonical_partitions(codes: np.ndarray) -> np.ndarray:
    """Each row's partition of the columns, labelled by the first column of each part:
    two rows part the columns alike exactly when their canonical rows are equal."""
    order = np.argsort(codes, axis=1, kind="stable")
    ordered = np.take_along_axis(codes, order, axis=1)
    starts = np.ones(codes.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    # the first column of each run (stable sort: the least index of its code)
    first = np.maximum.accumulate(np.where(starts, np.arange(codes.shape[1]), 0), axis=1)
    lead = np.take_along_axis(order, first, axis=1)
    out = np.empty_like(order)
    np.put_along_axis(out, order, lead, axis=1)
    return out


METHODS = ("auto", "listed", "unknowns")


def solve_within(solver: Any, assumptions: list[int], deadline: float | None) -> bool | None:
    """The SAT solver's answer, or None when the deadline passes first (the solver is
    interrupted from a timer thread: a single call can run for hours)."""
    if deadline is None:
        return solver.solve(assumptions=assumptions)
    left = deadline - time.perf_counter()
    if left <= 0:
        return None
    timer = threading.Timer(left, solver.interrupt)
    timer.start()
    try:
        return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        timer.cancel()
        solver.clear_interrupt()


def out_of_time(budget: float | None, k: int, known: str = "") -> BudgetError:
    return BudgetError(f"no static plan of {k} queries was found or ruled out within "
                       f"{budget:g} s (none of {k - 1} exists{known})",
                       hint=f'raise {option("sat_budget")}, or narrow the params ({option("set")})')


class StaticSearch:
    """The least separating set of one game's queries over its listed hypotheses: chosen
    among the listed queries, or (queries too many to list, or `method="unknowns"`) with
    the queries' arguments as the SAT problem's unknowns (static_unknowns.py)."""

    def __init__(self, candidates: Candidates, method: str = "auto"):
        game = candidates.game
        model = game.model
        self.actions = [b.action for b in candidates.blocks] + \
            [g.action for g in candidates.generators.values()]
        if model.lies is not None:
            raise SleuthError("a static plan needs answers that tell the truth; this spec's "
                              "answers may lie (`lies:`)", hint="use optimal-worst")
        require_exact("a static plan needs", model, self.actions,
                      "no set of queries is sure to tell secrets apart under random "
                      "answers: use entropy, or bench a heuristic")
        if model.until_indistinguishable:
            raise SleuthError("a static plan for a goal that also ends when no query can tell "
                              "the rest apart (`until_indistinguishable`) is not built yet: "
                              "only pairs with different goal values are separated",
                              hint="use optimal or a heuristic strategy")
        if candidates.history_rules or any(a.timed for a in self.actions):
            raise SleuthError("a static plan asks queries in any order; this spec's legal "
                              "queries depend on the history or the turn",
                              hint="use optimal or a heuristic strategy")
        self.game = game
        self.classes = goal_classes(game)
        self.method = "unknowns" if method == "unknowns" or candidates.generators else "listed"
        if method == "listed" and candidates.generators:
            raise SleuthError(f"'{next(iter(candidates.generators))}' has too many queries "
                              "to list", hint=f'{option("plan_queries", "auto")} (the default) '
                                              'takes the '
                                              "queries as unknowns when they cannot be listed")
        if self.method == "listed":
            self.table = OutcomeTable(candidates)
            self.queries = self.table.queries

    def solve(self, budget: float | None = None) -> StaticPlan:
        """The least plan (proven), or a BudgetError after `budget` seconds."""
        if self.method == "unknowns":
            from sleuth.solver.strategies.static_unknowns import solve_unknowns

            return solve_unknowns(self, budget)
        plan = self._solve_listed(budget)
        plan.queries = [self.queries[q] for q in plan.queries]
        return plan

    def _solve_listed(self, budget: float | None) -> StaticPlan:
        from pysat.card import ITotalizer
        from pysat.solvers import Solver

        start = time.perf_counter()
        deadline = None if budget is None else start + budget
        codes = self.table.codes
        canon = canonical_partitions(codes)
        useful = np.flatnonzero(canon.max(axis=1) > 0)
        _, keep, inverse = np.unique(canon[useful], axis=0, return_index=True,
                                     return_inverse=True)
        rank = np.argsort(np.argsort(keep))  # variables in canonical order of their query
        distinct = useful[np.sort(keep)]  # the first query of each partition
        var_of = np.full(len(self.queries), -1, dtype=np.int64)  # query -> its variable
        var_of[useful] = rank[np.asarray(inverse).ravel()]
        self._check_separable(codes)
        most = int(max(len(np.unique(row)) for row in codes[distinct])) if len(distinct) else 1
        plan = StaticPlan([], False, self.counting_bound(most), 0.0, variables=len(distinct))
        if plan.lower == 0:
            plan.least, plan.seconds = True, time.perf_counter() - start
            return plan
        sub = codes[distinct]
        n = len(distinct)
        greedy = self._greedy(sub)  # an upper bound: the SAT search tries fewer
        if len(greedy) <= plan.lower:
            plan.queries, plan.least = distinct[greedy].tolist(), True
            plan.seconds = time.perf_counter() - start
            return plan
        # (a totalizer's size grows with its bound times the variables: bound it by the
        # greedy plan's size, not by the number of queries)
        total = ITotalizer(lits=list(range(1, n + 1)), ubound=len(greedy))
        solver = Solver(name=sat_solver(budget), bootstrap_with=total.cnf.clauses)
        try:
            orbit = self._orbit_clause(var_of)
            if orbit:
                solver.add_clause(orbit)
                plan.orbit_clause = len(orbit)
            k, proved_at = plan.lower, time.perf_counter()
            while k < len(greedy):
                plan.sat_calls += 1
                found = solve_within(solver, [-total.rhs[k]], deadline)  # rhs[k]: > k
                if found is None:
                    raise out_of_time(budget, k, f"; a greedy plan has {len(greedy)}")
                if not found:
                    plan.proofs[k] = time.perf_counter() - proved_at
                    k, proved_at = k + 1, time.perf_counter()
                    continue
                model = solver.get_model()
                chosen = np.array([v - 1 for v in model[:n] if v > 0], dtype=np.int64)
                clauses = self.unseparated(sub[chosen])
                if not clauses:
                    plan.queries = distinct[chosen].tolist()
                    plan.least = True
                    plan.lower = k
                    break
                for s, t in clauses:
                    solver.add_clause((np.flatnonzero(sub[:, s] != sub[:, t]) + 1).tolist())
                plan.pairs += len(clauses)
            else:  # no plan smaller than the greedy one
                plan.queries, plan.least, plan.lower = distinct[greedy].tolist(), True, k
        finally:
            solver.delete()
            total.delete()
        plan.seconds = time.perf_counter() - start
        return plan

    def _check_separable(self, codes: np.ndarray) -> None:
        """A SleuthError naming two secrets that every query answers alike, when two
        such have different goal values: no plan exists."""
        for s, t in self.unseparated(codes, limit=1):
            table = self.game.hypotheses
            shown = [{k: show_value(v) for k, v in table.value(h).items()} for h in (s, t)]
            raise SleuthError(f"no set of queries tells the secrets {shown[0]} and "
                              f"{shown[1]} apart (every query answers them alike), so no "
                              "static plan exists",
                              hint="the goal asks for more than the queries can tell")

    def unseparated(self, rows: np.ndarray, limit: int | None = None) -> list[tuple[int, int]]:
        """Pairs of hypotheses with different goal values that queries answer alike (their
        codes `rows`, a row per query): for each group of equal answers, each class's first
        member with the next class's (enough to rule this set out, and a few more like
        it)."""
        if len(rows):
            _, group = np.unique(rows.T, axis=0, return_inverse=True)
            group = np.asarray(group).ravel()
        else:
            group = np.zeros(len(self.classes), dtype=np.int64)
        order = np.lexsort((self.classes, group))
        g, c = group[order], self.classes[order]
        firsts = np.ones(len(order), dtype=bool)  # the first member of each (group, class)
        firsts[1:] = (g[1:] != g[:-1]) | (c[1:] != c[:-1])
        members = order[firsts]
        same_group = g[firsts][1:] == g[firsts][:-1]
        pairs = [(int(members[i]), int(members[i + 1])) for i in np.flatnonzero(same_group)]
        return pairs if limit is None else pairs[:limit]

    def _greedy(self, codes: np.ndarray) -> list[int]:
        """A plan chosen greedily: each next query the one that leaves the most groups of
        equal answers (ties: the first), until each group holds one goal class."""
        group = np.zeros(codes.shape[1], dtype=np.int64)
        chosen: list[int] = []
        width = int(codes.max()) + 1
        while self._unseparated_groups(group):
            keys = np.sort(group[None, :] * width + codes, axis=1)
            parts = 1 + (keys[:, 1:] != keys[:, :-1]).sum(axis=1)
            q = int(np.argmax(parts))
            chosen.append(q)
            _, group = np.unique(group * width + codes[q], return_inverse=True)
            group = np.asarray(group).ravel().astype(np.int64)
        return chosen

    def _unseparated_groups(self, group: np.ndarray) -> bool:
        """Whether some group of equal answers holds two goal classes."""
        pairs = np.unique(np.stack([group, self.classes]), axis=1)
        return len(np.unique(pairs[0])) < pairs.shape[1]

    def counting_bound(self, most: int) -> int:
        """The least k for which k queries of at most `most` answers each could give as
        many answer combinations as there are goal classes."""
        classes = int(self.classes.max()) + 1 if len(self.classes) else 0
        if classes <= 1:
            return 0
        most = max(2, most)
        return max(1, math.ceil(math.log(classes) / math.log(most) - 1e-9))

    def _orbit_clause(self, var_of: np.ndarray) -> list[int]:
        """The variables of the queries that are first in their orbit under the game's
        symmetries (some plan holds one); empty when no symmetry is known."""
        group = self.table.symmetry
        if group is None:
            return []
        every = np.arange(group.hyps.shape[0])
        firsts = np.flatnonzero(group.representatives(every))
        vs = np.unique(var_of[firsts])
        vs = vs[vs >= 0]
        return (vs + 1).tolist() if len(vs) < int((var_of >= 0).sum()) else []


__all__ = ["INTERRUPTIBLE", "METHODS", "SAT_SOLVER", "StaticPlan", "StaticSearch",
           "canonical_partitions"]

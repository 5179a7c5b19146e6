"""The optimal strategies: `optimal` (the least total, then the least worst case) and
`optimal-worst` (the least worst case, then the least total), proven by the search in
optimal_search.py (optimal_lies.py against lies)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError, said
from sleuth.solver.infoset.goals import goal_reached
from sleuth.solver.infoset.history import Mask
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.strategies.base import ListedStrategy, Option
from sleuth.solver.strategies.optimal_cover import CoverSearch
from sleuth.solver.strategies.optimal_lies import make_lie_search
from sleuth.solver.strategies.optimal_rounds import RoundSearch
from sleuth.solver.strategies.optimal_search import NO_TREE, OptimalSearch

# Searches for games scored otherwise than by one query a secret: each applies to the
# games it names (its `applies`), and the first that applies is used.
SCORED_SEARCHES: tuple[Any, ...] = (RoundSearch, CoverSearch)


class Optimal(ListedStrategy):
    """The least expected number of queries (then the least worst case), proven."""

    name = "optimal"
    worst_first = False
    top = Option(int, 0, "try only the first K queries of each information set, in the "
                         "search's order (by lower bound, then rule K): the best strategy "
                         "that asks only those, an upper bound on the optimum (0: every "
                         "query, the proven optimum)", minimum=0)

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        self.lie_search: Any = None
        self.scored: Any = None  # a search of a game scored otherwise (rounds, a cover)
        self.search: OptimalSearch | None = None  # the search of every other game
        if candidates.game.model.lies is not None:
            self.lie_search = make_lie_search(candidates, self.worst_first, self.top)
            return
        for kind in SCORED_SEARCHES:
            if kind.applies(candidates):
                self.scored = kind(candidates, self.worst_first, self.top)
                return
        self.search = OptimalSearch(candidates, self.top)
        self.budgets: dict[Any, int] = {}  # worst first: a set's depth budget
        self.plan: dict[bytes, tuple] = {}  # trees solved on workers: set -> (total, worst, q)
        self.workers: Any = None
        self.recipe: Any = None

    def notes(self) -> list[str]:
        """The search table's note, where it made codes on demand (outcomes.py)."""
        note = None if self.search is None else self.search.table.note
        return [] if note is None else [note]

    def share(self, workers: Any, recipe: Any) -> bool:
        """Split the search's first level over the workers (optimal_split.py); not under
        a history rule, whose sets carry the queries allowed."""
        if not self._splits():
            return False
        self.workers, self.recipe = workers, recipe
        return True

    def _splits(self) -> bool:
        return self.scored is None and self.lie_search is None and self.search.rules is None

    @classmethod
    def opening(cls, recipe: Any, workers: int) -> list[tuple[Callable[..., Any], tuple]]:
        """Each worker's first part of the split from the prior (optimal_split.open_part),
        worked out in the worker as it builds; not under the least worst case first,
        whose split starts from a depth budget."""
        if cls.worst_first:
            return []
        from sleuth.solver.strategies.optimal_split import open_part

        return [(open_part, (recipe, k, workers)) for k in range(workers)]

    def split_root(self) -> np.ndarray | None:
        """The hypotheses the split starts at when `evaluate` plays every secret from the
        prior (as `value` sorts them), or None when this search does not split."""
        if not self._splits():
            return None
        from sleuth.solver.infoset.backends import ENUMERATED, prior_belief

        listed = self.prepared(prior_belief(self.candidates.game, ENUMERATED))
        return np.sort(listed.index).astype(np.int64)

    def value(self, belief: AnyBelief) -> tuple[int, int]:
        """The proven (total, worst case) from this belief."""
        self._no_lies()
        belief = self.prepared(belief)
        hyps = np.sort(belief.index).astype(np.int64)
        got = self._solve(hyps, self.allowed(belief), len(belief.history))
        return got[0], got[1]

    def proven(self, belief: AnyBelief) -> dict[str, Any]:
        if self.lie_search is not None:
            from sleuth.solver.strategies.optimal_lies import proven

            search = self.lie_search
            return proven(search, search.least_depth(search.lies.root()), self.top)
        if self.scored is not None:
            value, _, hyps = self._scored(belief)
            return self.scored.proven(hyps, value)
        return self._claim(*self.value(belief))

    def _claim(self, total: int, worst: int) -> dict[str, Any]:
        """What the search proves: a (total, worst) and the order it minimises them in."""
        order = "worst case, then total" if self.worst_first else "total, then worst case"
        return {"total": total, "worst": worst, "order": order,
                "nodes": self.search.nodes, "top": self.top}

    def opened(self, belief: AnyBelief, query: Query) -> None:
        """`query` is forced first at `belief`. Under the least worst case first, every
        part's depth budget becomes the deepest part's least depth, as when the search
        chooses a query itself: a part that is not the deepest may then trade depth for
        total (its own least depth would forbid that)."""
        if self.worst_first and self.scored is None and self.lie_search is None \
                and self.workers is None:
            self._budget(self._parts_after(belief, query))

    def _budget(self, parts: list[AnyBelief]) -> None:
        """Give every part the deepest part's least depth as its depth budget."""
        keys = []
        for part in parts:
            hyps, allowed = np.sort(part.index).astype(np.int64), self.allowed(part)
            key = self.search.key(hyps, None, allowed)
            if key not in self.budgets:
                self.budgets[key] = self.search.least_depth(hyps, allowed)
            keys.append(key)
        deepest = max((self.budgets[k] for k in keys), default=0)
        self.budgets.update(dict.fromkeys(keys, deepest))

    def proven_after(self, belief: AnyBelief, query: Query) -> dict[str, Any] | None:
        """The best play after `query` (forced first): the query once for every secret,
        plus each part's proven optimum, the parts being independent -- under the least
        worst case first, each part's least total within the deepest part's least depth
        (`opened`). None for games scored otherwise (rounds, a cover goal), with lies,
        or the least worst case split over workers (whose parts keep their own depth)."""
        if self.scored is not None or self.lie_search is not None or (
                self.worst_first and self.workers is not None):
            return None
        parts = self._parts_after(belief, query)
        if self.worst_first:
            self._budget(parts)
        total, worst = self.prepared(belief).size, 1
        for part in parts:
            got = self.value(part)
            total += got[0]
            worst = max(worst, 1 + got[1])
        return {**self._claim(total, worst), "first": self.candidates.shown(query)}

    def _parts_after(self, belief: AnyBelief, query: Query) -> list[AnyBelief]:
        """The beliefs after `query` at `belief`, one per feedback, but those that end
        the game."""
        belief = self.prepared(belief)
        branch = belief.branch(query, self.candidates)
        codes = branch.codes(self.candidates.game.hypotheses.ranks[belief.index])
        return [self.prepared(branch.child(c)) for c in np.unique(codes).tolist()
                if not self.candidates.stops(query, c)]

    def _no_lies(self) -> None:
        if self.lie_search is not None:
            raise SleuthError("against lies only the worst case is proven",
                              hint=said("sleuth evaluate SPEC --strategy optimal-worst",
                                        'sleuth.evaluate(game, strategy="optimal-worst")'))

    def choose(self, belief: AnyBelief) -> Query:
        if self.lie_search is not None:  # the belief's lie state, and the least worst case
            search, state = self.lie_search, self.prepared(belief).lie_state()
            return search.lies.queries[search.choose(state, search.least_depth(state))]
        if self.scored is not None:
            _, q, _ = self._scored(belief)
            if q < 0:
                raise SleuthError("the goal is already reached: there is nothing to ask")
            return self.scored.queries[q]
        belief = self.prepared(belief)
        hyps = np.sort(belief.index).astype(np.int64)
        if not self.search.stop_game and goal_reached(belief, self.candidates.game):
            raise SleuthError("the goal is already reached: there is nothing to ask")
        allowed = self.allowed(belief)
        total, worst, q = self._solve(hyps, allowed, len(belief.history))
        if self.worst_first and hyps.tobytes() not in self.plan:
            # the children's depth budget, for the calls that follow
            depth = self.budgets[self.search.key(hyps, None, allowed)]
            row, stops = self.search.table.row(q, hyps), self.search.stops[q]
            for c in np.unique(row).tolist():
                if not stops[c]:
                    after = self.search.allowed_after(allowed, q, c)
                    self.budgets[self.search.key(hyps[row == c], None, after)] = depth - 1
        return self.search.queries[q]

    def _scored(self, belief: AnyBelief) -> tuple:
        """(value, query, hypotheses) of the scored search at this belief (a round in
        progress read from its history)."""
        search = self.scored
        assert search is not None
        belief = self.prepared(belief)
        hyps = np.sort(belief.index).astype(np.int64)
        value, q = search.solve(hyps, search.state_of(belief.history))
        return value, q, hyps

    def allowed(self, belief: AnyBelief) -> Mask:
        """The queries the history rules allow after the belief's history (None: all)."""
        rules = self.search.rules
        return None if rules is None else rules.of_belief(belief)

    def _solve(self, hyps: np.ndarray, allowed: Mask = None, asked: int = 0) -> tuple:
        """(total, worst, query) at `hyps` after `asked` queries (the goal's `max_queries`
        bounds the rest of the game: the best tree within it)."""
        planned = self.plan.get(hyps.tobytes())
        if planned is not None:
            return planned
        if self.workers is not None:
            from sleuth.solver.strategies.optimal_split import least_depth_split, split_solve

            if self.worst_first:
                _, got, plan = least_depth_split(self.search, hyps, self.workers, self.recipe)
            else:
                got, plan = split_solve(self.search, hyps, None, self.workers, self.recipe)
            if got is None:
                raise SleuthError("no sequence of queries finishes every secret",
                                  hint="these hypotheses may be indistinguishable")
            self.plan.update(plan)
            return got
        limit = self.game_limit(len(hyps), asked)
        depth = limit
        if self.worst_first:
            key = self.search.key(hyps, None, allowed)
            depth = self.budgets.get(key)
            if depth is None:
                depth = self.budgets[key] = self.search.least_depth(hyps, allowed)
            if limit is not None and depth > limit:
                depth = NO_TREE  # (reported below)
        got = NO_TREE if depth == NO_TREE else self.search.solve(hyps, depth, NO_TREE - 1,
                                                                 allowed=allowed)
        if not isinstance(got, tuple):
            within = "" if limit is None else f" within the {limit} queries left"
            raise SleuthError(f"no sequence of queries finishes every secret{within}",
                              hint="these hypotheses may be indistinguishable" if limit is
                              None else "the goal's max_queries bounds a game's length")
        return got

    def game_limit(self, n: int, asked: int) -> int | None:
        """The queries a game may still ask after `asked` (the goal's `max_queries`); None
        when no bound can bind a set of n (no useful tree is deeper than n + 1)."""
        bound = self.candidates.game.model.max_queries
        if bound is None or bound - asked > n + 1:
            return None
        return bound - asked


class OptimalWorst(Optimal):
    """The least worst case (then the least expected number of queries), proven."""

    name = "optimal-worst"
    worst_first = True
    # Against an adversary who lies only the worst case is defined per information set: a
    # secret's length is the longest the lies can make it, and the total of those is not
    # a sum over a query's parts (a secret lies in several), so `optimal` refuses.
    handles_lies = True


__all__ = ["NO_TREE", "Optimal", "OptimalSearch", "OptimalWorst"]

"""The exact searches as the optimal strategies play them: one protocol, `Engine`.

An engine is one kind of exact search bound to one game: it says whether it applies to
the game (`applies`), chooses the query its proven tree asks at a belief (`choose`),
says what it proves from a belief (`proven`: the value and the order it minimises;
`value`: the (total, worst) pair where that is the value), and
may plan the parts after a forced opener (`opened`, `proven_after`) or split its first
level over workers (`share`, `split_root`). `optimal` and `optimal-worst` take the first
registered engine that applies (solver/search/__init__.py, `ENGINES`): a game with lies,
a game in rounds, a game with a cover goal, and every other game, in that order.

Underneath, each engine's set search answers one question: the best value of a set of
secrets within a limit, or a bound above the limit. The plain search (plain.py, with its
compiled twin compiled.py) does so by total and depth; the cover and round searches by
their own values (misses; rounds then queries); the lie search by depth alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from sleuth.compiler.api import SleuthError, said
from sleuth.solver.infoset.goals import goal_reached
from sleuth.solver.infoset.history import Mask
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.search.bounds import NO_TREE
from sleuth.solver.search.cover import CoverSearch
from sleuth.solver.search.lies import make_lie_search, proven_against_lies
from sleuth.solver.search.plain import OptimalSearch
from sleuth.solver.search.rounds import RoundSearch

Prepared = Callable[[AnyBelief], AnyBelief]  # a belief in the listed form the search reads


class Engine:
    """One exact search bound to one game (the protocol; the module's docstring).

    Parameters
    ----------
    candidates
        The game's queries.
    worst_first
        Minimise the worst case first (`optimal-worst`), else the total.
    top
        Try only the first `top` queries of each set (0: every query).
    prepared
        The strategy's `prepared`: a belief as the listed hypotheses the search reads.
    """

    name: ClassVar[str] = ""
    search: Any  # the set search underneath (its nodes, table, symmetry)

    def __init__(self, candidates: Candidates, worst_first: bool, top: int,
                 prepared: Prepared):
        self.candidates, self.worst_first, self.top = candidates, worst_first, top
        self.prepared = prepared

    @staticmethod
    def applies(candidates: Candidates) -> bool:
        """Whether this engine searches the game."""
        raise NotImplementedError

    def choose(self, belief: AnyBelief) -> Query:
        """The query the proven tree asks at `belief`."""
        raise NotImplementedError

    def proven(self, belief: AnyBelief) -> dict[str, Any]:
        """What the search proves from `belief` (the JSON `proven` object)."""
        raise NotImplementedError

    def value(self, belief: AnyBelief) -> tuple[int, int]:
        """The proven (total, worst case) from `belief`, where the search's value is
        that pair."""
        raise SleuthError(f"the {self.name} search does not prove a (total, worst case) "
                          "pair", hint="read what it proves: `proven`")

    def opened(self, belief: AnyBelief, query: Query) -> None:
        """`query` is forced first at `belief` (nothing to plan here)."""

    def proven_after(self, belief: AnyBelief, query: Query) -> dict[str, Any] | None:
        """The proven play after a forced first `query`; None where the proof does not
        add up part by part."""
        return None

    def notes(self) -> list[str]:
        """What a user should know before the search runs (none here)."""
        return []

    def share(self, workers: Any, recipe: Any) -> bool:
        """Split the search over `workers`; False: this engine does not split."""
        return False

    def split_root(self) -> np.ndarray | None:
        """The hypotheses a split starts at (None: this engine does not split)."""
        return None


class PlainEngine(Engine):
    """Every game not named by another engine: the least (total, worst) or (worst,
    total) by the branch and bound of plain.py, with depth budgets under the least worst
    case first, and its first level split over workers (split.py)."""

    name = "plain"

    def __init__(self, candidates: Candidates, worst_first: bool, top: int,
                 prepared: Prepared):
        super().__init__(candidates, worst_first, top, prepared)
        self.search = OptimalSearch(candidates, top)
        self.budgets: dict[Any, int] = {}  # worst first: a set's depth budget
        self.plan: dict[bytes, tuple] = {}  # trees solved on workers: set -> (total, worst, q)
        self.workers: Any = None
        self.recipe: Any = None

    @staticmethod
    def applies(candidates: Candidates) -> bool:
        return True

    def notes(self) -> list[str]:
        """The search table's note, where it made codes on demand (outcomes.py)."""
        note = self.search.table.note
        return [] if note is None else [note]

    def share(self, workers: Any, recipe: Any) -> bool:
        """Split the search's first level over the workers (split.py); not under a
        history rule, whose sets carry the queries allowed."""
        if self.search.rules is not None:
            return False
        self.workers, self.recipe = workers, recipe
        return True

    def split_root(self) -> np.ndarray | None:
        """The hypotheses the split starts at when `evaluate` plays every secret from the
        prior (as `value` sorts them), or None under a history rule."""
        if self.search.rules is not None:
            return None
        from sleuth.solver.infoset.backends import ENUMERATED, prior_belief

        listed = self.prepared(prior_belief(self.candidates.game, ENUMERATED))
        return np.sort(listed.index).astype(np.int64)

    def value(self, belief: AnyBelief) -> tuple[int, int]:
        """The proven (total, worst case) from `belief`."""
        belief = self.prepared(belief)
        hyps = np.sort(belief.index).astype(np.int64)
        got = self._solve(hyps, self.allowed(belief), len(belief.history))
        return got[0], got[1]

    def proven(self, belief: AnyBelief) -> dict[str, Any]:
        return self._claim(*self.value(belief))

    def _claim(self, total: int, worst: int) -> dict[str, Any]:
        """What the search proves: a (total, worst) and the order it minimises them in."""
        order = "worst case, then total" if self.worst_first else "total, then worst case"
        return {"total": total, "worst": worst, "order": order,
                "nodes": self.search.nodes, "top": self.top}

    def opened(self, belief: AnyBelief, query: Query) -> None:
        """Under the least worst case first, every part's depth budget becomes the
        deepest part's least depth, as when the search chooses a query itself: a part
        that is not the deepest may then trade depth for total (its own least depth
        would forbid that)."""
        if self.worst_first and self.workers is None:
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
        """The query once for every secret, plus each part's proven optimum, the parts
        being independent -- under the least worst case first, each part's least total
        within the deepest part's least depth (`opened`). None when the least worst case
        is split over workers (whose parts keep their own depth)."""
        if self.worst_first and self.workers is not None:
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

    def choose(self, belief: AnyBelief) -> Query:
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
            from sleuth.solver.search.split import least_depth_split, split_solve

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


class ScoredEngine(Engine):
    """A game scored otherwise than by one query a secret: its search's `solve(hyps,
    state)` gives (value, query) at a set and the state its history leaves (a round in
    progress), and `proven(hyps, value)` what that proves."""

    kind: ClassVar[Any] = None  # the search class

    def __init__(self, candidates: Candidates, worst_first: bool, top: int,
                 prepared: Prepared):
        super().__init__(candidates, worst_first, top, prepared)
        self.search = self.kind(candidates, worst_first, top)

    @classmethod
    def applies(cls, candidates: Candidates) -> bool:
        return bool(cls.kind.applies(candidates))

    def _scored(self, belief: AnyBelief) -> tuple:
        """(value, query, hypotheses) at this belief (a round in progress read from its
        history)."""
        belief = self.prepared(belief)
        hyps = np.sort(belief.index).astype(np.int64)
        value, q = self.search.solve(hyps, self.search.state_of(belief.history))
        return value, q, hyps

    def choose(self, belief: AnyBelief) -> Query:
        _, q, _ = self._scored(belief)
        if q < 0:
            raise SleuthError("the goal is already reached: there is nothing to ask")
        return self.search.queries[q]

    def proven(self, belief: AnyBelief) -> dict[str, Any]:
        value, _, hyps = self._scored(belief)
        return self.search.proven(hyps, value)


class RoundEngine(ScoredEngine):
    """A game played in rounds (rounds.py)."""

    name = "rounds"
    kind = RoundSearch


class CoverEngine(ScoredEngine):
    """A game with a cover goal (cover.py)."""

    name = "cover"
    kind = CoverSearch


class LieEngine(Engine):
    """A game whose answers may lie: the least worst case over lie states (lies.py)."""

    name = "lies"

    def __init__(self, candidates: Candidates, worst_first: bool, top: int,
                 prepared: Prepared):
        super().__init__(candidates, worst_first, top, prepared)
        self.search = make_lie_search(candidates, worst_first, top)

    @staticmethod
    def applies(candidates: Candidates) -> bool:
        return candidates.game.model.lies is not None

    @property
    def lie_search(self) -> Any:
        """The search over lie states, which evaluation/lying.py walks."""
        return self.search

    def choose(self, belief: AnyBelief) -> Query:
        """The belief's lie state, and the least worst case."""
        search, state = self.search, self.prepared(belief).lie_state()
        return search.lies.queries[search.choose(state, search.least_depth(state))]

    def value(self, belief: AnyBelief) -> tuple[int, int]:
        raise SleuthError("against lies only the worst case is proven",
                          hint=said("sleuth evaluate SPEC --strategy optimal-worst",
                                    'sleuth.evaluate(game, strategy="optimal-worst")'))

    def proven(self, belief: AnyBelief) -> dict[str, Any]:
        search = self.search
        return proven_against_lies(search, search.least_depth(search.lies.root()), self.top)


__all__ = ["CoverEngine", "Engine", "LieEngine", "PlainEngine", "RoundEngine",
           "ScoredEngine"]

"""The exact search for a game played in rounds (the spec's `rounds:`): the least total
of rounds over all secrets, then of queries (`optimal`), or the least worst game, a
(rounds, queries) pair compared rounds first (`optimal-worst`); the prior is uniform, so
totals are expected values times the number of secrets.

A round's queries share some arguments, so what a query costs depends on the round in
progress. The search has two kinds of information set:

    F(S)          a round must open: any useful query, at (1 round, 1 query) a secret;
    G(S, k, n)    the round with shared values k has asked n queries: continue it with a
                  query that keeps k, at (0, 1) a secret, while n < most; or open a new
                  one, which is F(S).

F does not depend on a round in progress, so every G shares it. A useful query splits
S (or ends the game for part of it); queries of one round key that split S alike have
the same value, and only the first is tried. The tie-break is rule K: among equal values
the first query in canonical order. Uniform prior, deterministic feedback; no history
rules, `max_queries` or `until_indistinguishable` (refused by name).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.solver.infoset.goals import goal_classes
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import Candidates, Query, has_stop
from sleuth.solver.infoset.rounds import RoundRule
from sleuth.solver.search.refusals import require_optimal

Value = tuple[int, int, int, int]  # (rounds total, queries total, worst rounds, its queries)
ZERO: Value = (0, 0, 0, 0)


class RoundSearch:
    """Depth-first search with a transposition table over F and G sets (above)."""

    def __init__(self, candidates: Candidates, worst_first: bool = False, top: int = 0):
        game = candidates.game
        require_optimal(candidates, "the search by rounds", top,
                        (("until_indistinguishable", game.model.until_indistinguishable),))
        self.candidates = candidates
        self.worst_first = worst_first
        table = OutcomeTable(candidates)
        self.queries: list[Query] = table.queries
        self.codes, self.stops = table.codes, table.stops
        self.stop_game = has_stop(game)
        self.rule = RoundRule(candidates)
        ids: dict[Any, int] = {}
        self.key_of = np.array([ids.setdefault(self.rule.key(q.action, q.rank), len(ids))
                                for q in self.queries], dtype=np.int64)
        self.key_id = ids  # a round key -> its id
        self.by_key = [np.flatnonzero(self.key_of == k) for k in range(len(ids))]
        self.goal = goal_classes(game)
        self.most = self.rule.most
        self.memo: dict[Any, tuple[Value, int]] = {}
        self.nodes = 0

    # -- values

    def rank(self, v: Value) -> tuple[int, int, int, int]:
        """The order values are compared in."""
        return (v[2], v[3], v[0], v[1]) if self.worst_first else v

    def done(self, hyps: np.ndarray) -> bool:
        if self.stop_game:
            return len(hyps) == 0
        return bool((self.goal[hyps] == self.goal[hyps[0]]).all())

    def solve(self, hyps: np.ndarray, state: tuple[int, int] | None = None) \
            -> tuple[Value, int]:
        """(value, query) of the hypotheses `hyps` (sorted indices) with the round `state`
        in progress ((key id, queries asked in it), None: a round must open); query -1
        when the game is over."""
        if self.done(hyps):
            return ZERO, -1
        if state is not None and self.most is not None and state[1] >= self.most:
            state = None
        memo_key = (hyps.tobytes(), state)
        got = self.memo.get(memo_key)
        if got is not None:
            return got
        self.nodes += 1
        if state is None:
            got = self._best(hyps, np.arange(len(self.queries)), 1, None)
        else:
            fresh = self.solve(hyps, None)
            kept = self._best(hyps, self.by_key[state[0]], 0, state)
            got = fresh if kept is None or (self.rank(fresh[0]), fresh[1]) <= (
                self.rank(kept[0]), kept[1]) else kept
        assert got is not None, "a round can always open"
        self.memo[memo_key] = got
        return got

    def _best(self, hyps: np.ndarray, options: np.ndarray, opened: int,
              state: tuple[int, int] | None) -> tuple[Value, int] | None:
        """The best of the useful queries among `options`: each opens a round (opened 1)
        or continues the one at `state`."""
        rows = self.codes[np.ix_(options, hyps)]
        splits = rows.min(axis=1) != rows.max(axis=1)
        if self.stop_game:
            splits |= self.stops[options, rows[:, 0]]
        n = len(hyps)
        best: tuple[tuple, Value, int] | None = None
        seen: set[tuple] = set()
        for i in np.flatnonzero(splits).tolist():
            q = int(options[i])
            labels, inverse = np.unique(rows[i], return_inverse=True)
            ends = self.stops[q, labels] if self.stop_game else np.zeros(len(labels), bool)
            signature = (inverse.tobytes(), ends.tobytes(), int(self.key_of[q]))
            if signature in seen:
                continue
            seen.add(signature)
            after = (int(self.key_of[q]), 1) if opened else (state[0], state[1] + 1)
            rounds, asked, worst = n * opened, n, (0, 0)
            for j in range(len(labels)):
                if ends[j]:
                    continue
                child, _ = self.solve(hyps[inverse == j], after)
                rounds, asked = rounds + child[0], asked + child[1]
                worst = max(worst, (child[2], child[3]))
            value = (rounds, asked, worst[0] + opened, worst[1] + 1)
            candidate = (self.rank(value), q)
            if best is None or candidate < best[0]:
                best = (candidate, value, q)
        return None if best is None else (best[1], best[2])

    # -- the strategy's view

    def state_of(self, history: tuple) -> tuple[int, int] | None:
        """The search's round state after a belief's history."""
        _, state = self.rule.of_history(history)
        if state is None:
            return None
        return self.key_id[state[0]], state[1]

    @staticmethod
    def applies(candidates: Candidates) -> bool:
        return RoundRule.applies(candidates)

    def proven(self, hyps: np.ndarray, value: Value) -> dict[str, Any]:
        order = ("worst game (rounds, then queries), then total rounds and queries"
                 if self.worst_first else "total rounds, then total queries, then the "
                 "worst game")
        return {"rounds": value[0], "total": value[1], "worst": None,
                "worst_game": {"rounds": value[2], "queries": value[3]},
                "order": order, "nodes": self.nodes, "top": 0}


__all__ = ["RoundSearch"]

"""Rounds (the spec's `rounds:`): which queries of a game share a round, and how many
rounds a sequence of queries takes.

A round is a run of consecutive queries that give the `share` arguments the same
values, at most `most` of them. A query continues the round when it can (same shared
values, room left), since a player who may continue a round never gains by opening a
new one; so the rounds of a game follow from its queries, and every count here is that
greedy one. A game with rounds is scored by rounds, then by queries.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from sleuth.solver.infoset.queries import Candidates, Query

State = tuple[Hashable, int] | None  # (the round's shared values, its queries so far)


def _hashable(value: Any) -> Hashable:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, set | frozenset):
        return tuple(sorted(_hashable(v) for v in value))
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


class RoundRule:
    """A game's `rounds:` over its queries."""

    def __init__(self, candidates: Candidates):
        rounds = candidates.game.model.rounds
        if rounds is None:
            raise ValueError("the game declares no rounds")
        self.candidates = candidates
        self.share, self.most = rounds.share, rounds.most
        self._keys: dict[tuple[str, int], Hashable] = {}

    @staticmethod
    def applies(candidates: Candidates) -> bool:
        return candidates.game.model.rounds is not None

    def key(self, action: str, rank: int) -> Hashable:
        """The values a query gives the shared arguments (what a round keeps)."""
        got = self._keys.get((action, rank))
        if got is None:
            args = self.candidates.args(Query(action, rank))
            got = self._keys[(action, rank)] = tuple(_hashable(args[n]) for n in self.share)
        return got

    def continues(self, state: State, key: Hashable) -> bool:
        """Whether a query with shared values `key` continues the round at `state`."""
        return state is not None and state[0] == key and (
            self.most is None or state[1] < self.most)

    def step(self, state: State, key: Hashable) -> tuple[int, State]:
        """(1 if the query opens a round else 0, the state after it)."""
        if self.continues(state, key):
            assert state is not None
            return 0, (key, state[1] + 1)
        return 1, (key, 1)

    def after(self, queries: Iterable[tuple[str, int]]) -> tuple[int, State]:
        """(rounds, state) after the queries (action, rank), in order."""
        rounds, state = 0, None
        for action, rank in queries:
            opened, state = self.step(state, self.key(action, rank))
            rounds += opened
        return rounds, state

    def of_history(self, history: Iterable[tuple[str, int, int]]) -> tuple[int, State]:
        """(rounds, state) after a belief's history (action, rank, feedback code)."""
        return self.after((a, r) for a, r, _ in history)


__all__ = ["RoundRule", "State"]

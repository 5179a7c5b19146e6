"""What an information set carries besides its hypotheses when the game's rules read the
course of the game: the queries its `history` rules still allow, and the turn (for an
action that reads `turn`, whose queries are listed once per turn: an implicit argument).

A history rule is checked against each earlier query of its action alone, so the
queries allowed after a history are the intersection of one mask per earlier (query,
feedback) pair -- the whole of the history any later choice depends on. With `turn`,
only the queries of the next position may be asked. The exact searches (optimal,
optimal-worst, lookahead) therefore key their tables on (the hypotheses left, this
`Allowed`): two histories that leave the same hypotheses, allow the same queries and
stand at the same turn have the same future -- the key is exact, not a summary.

Masks are boolean arrays over the table's queries (`OutcomeTable.queries`, canonical
order). `None` stands for "every query, whatever the turn": games with neither rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import AnyBelief, Candidates, turn_of


@dataclass(frozen=True)
class Allowed:
    """The queries a set may ask: those the history rules allow (`rules`, None for all)
    at this `turn` (1-based), and their intersection, `mask` (None: every query)."""

    rules: np.ndarray | None
    turn: int
    mask: np.ndarray | None
    key: bytes


Mask = Allowed | None


class HistoryMasks:
    """Per (query, feedback code) pair, the table's queries that keep every history rule
    against it; per turn, the queries of that turn. Kept once computed."""

    def __init__(self, candidates: Candidates, table: OutcomeTable):
        self.game = candidates.game
        self.table = table
        self.spans: dict[str, list[tuple[int, np.ndarray]]] = {}  # action -> (offset, ranks)
        turns: list[np.ndarray] = []
        offset = 0
        self.timed = False  # some action reads `turn`
        for block in candidates.blocks:
            if block.action.history:
                self.spans.setdefault(block.action.name, []).append((offset, block.ranks))
            turns.append(turn_of(self.game, block))
            self.timed |= block.action.timed
            offset += len(block.ranks)
        self.size = offset
        self.turns = np.concatenate(turns) if turns else np.zeros(0, dtype=np.int64)
        self._after: dict[tuple[str, int, int], np.ndarray | None] = {}  # packed bits
        self._rules: dict[tuple[str, int], Any] = {}  # (action, span offset) -> its rule

    @staticmethod
    def applies(candidates: Candidates) -> bool:
        """Whether any listed query has a history rule or reads the turn (then the
        searches carry an `Allowed`)."""
        return bool(candidates.history_rules) or any(b.action.timed for b in candidates.blocks)

    def of_pair(self, action: str, rank: int, code: int) -> np.ndarray | None:
        """The queries that keep the rules against one earlier query (argument rank, real
        feedback code); None when no rule reads this action."""
        key = (action, rank, code)
        if key not in self._after:
            spans = self.spans.get(action)
            mask = None
            if spans:
                mask = np.ones(self.size, dtype=bool)
                for offset, ranks in spans:
                    mask[offset:offset + len(ranks)] = self._rule(action, offset, ranks)(
                        [(rank, code)])
            # kept a bit a query: a search may make hundreds of thousands
            self._after[key] = None if mask is None else np.packbits(mask)
        packed = self._after[key]
        return None if packed is None else \
            np.unpackbits(packed, count=self.size).view(bool)

    def _rule(self, action: str, offset: int, ranks: np.ndarray) -> Any:
        """The action's history rule over one span of the table's queries (made once)."""
        key = (action, offset)
        if key not in self._rules:
            self._rules[key] = self.game.history_rule(action, ranks)
        return self._rules[key]

    def make(self, rules: np.ndarray | None, turn: int) -> Allowed:
        mask = rules
        if self.timed:  # this turn's queries (0: a query that reads no turn)
            now = (self.turns == turn) | (self.turns == 0)
            mask = now if mask is None else mask & now
        key = (b"" if rules is None else np.packbits(rules).tobytes()) + \
            (turn.to_bytes(4, "little") if self.timed else b"")
        return Allowed(rules, turn, mask, key)

    def after(self, allowed: Mask, q: int, label: int) -> Allowed:
        """What may be asked after table query `q` read the code labelled `label`."""
        query = self.table.queries[q]
        more = self.of_pair(query.action, query.rank, int(self.table.book[label]))
        rules = None if allowed is None else allowed.rules
        if more is not None:
            rules = more if rules is None else rules & more
        return self.make(rules, (1 if allowed is None else allowed.turn) + 1)

    def of_belief(self, belief: AnyBelief) -> Allowed:
        """What may be asked after the queries a belief records (its `history`)."""
        rules: np.ndarray | None = None
        for action, rank, code in belief.history:
            more = self.of_pair(action, int(rank), int(code))
            if more is not None:
                rules = more if rules is None else rules & more
        return self.make(rules, len(belief.history) + 1)

    @staticmethod
    def key(allowed: Mask) -> Any:
        """A hashable exact form (None for every query)."""
        return None if allowed is None else allowed.key


def mask_of(allowed: Mask) -> np.ndarray | None:
    """The boolean mask of what may be asked (None: every query)."""
    return None if allowed is None else allowed.mask


__all__ = ["Allowed", "HistoryMasks", "Mask", "mask_of"]

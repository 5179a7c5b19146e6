"""The queries a game's `history` rules still allow, over the exact searches' outcome
table: what an information set carries besides its hypotheses when a rule reads the
queries asked before.

A history rule is checked against each earlier query of its action alone, so the
queries allowed after a history are the intersection of one mask per earlier (query,
feedback) pair -- the whole of the history any later choice depends on. The exact
searches (optimal, optimal-worst, lookahead) therefore key their tables on (the
hypotheses left, this mask): two histories that leave the same hypotheses and allow
the same queries have the same future, and the mask is exact, not a summary.

Masks are boolean arrays over the table's queries (`OutcomeTable.queries`, canonical
order); `None` stands for "every query", the state before any rule bites.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import AnyBelief, Candidates

Mask = np.ndarray | None


class HistoryMasks:
    """Per (query, feedback code) pair, the table's queries that keep every history rule
    against it; kept once computed."""

    def __init__(self, candidates: Candidates, table: OutcomeTable):
        self.game = candidates.game
        self.table = table
        self.spans: dict[str, list[tuple[int, np.ndarray]]] = {}  # action -> (offset, ranks)
        offset = 0
        for block in candidates.blocks:
            if block.action.history:
                self.spans.setdefault(block.action.name, []).append((offset, block.ranks))
            offset += len(block.ranks)
        self.size = offset
        self._after: dict[tuple[str, int, int], np.ndarray | None] = {}

    @staticmethod
    def applies(candidates: Candidates) -> bool:
        """Whether any listed query has a history rule (then the searches carry masks)."""
        return bool(candidates.history_rules)

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
                    mask[offset:offset + len(ranks)] = self.game.history_allows(
                        action, ranks, [(rank, code)])
            self._after[key] = mask
        return self._after[key]

    def after(self, allowed: Mask, q: int, label: int) -> Mask:
        """The mask after asking table query `q` and reading the code labelled `label`."""
        query = self.table.queries[q]
        more = self.of_pair(query.action, query.rank, int(self.table.book[label]))
        if more is None:
            return allowed
        return more if allowed is None else allowed & more

    def of_belief(self, belief: AnyBelief) -> Mask:
        """The mask after the queries a belief records (its `history`)."""
        allowed: Mask = None
        for action, rank, code in belief.history:
            more = self.of_pair(action, int(rank), int(code))
            if more is not None:
                allowed = more if allowed is None else allowed & more
        return allowed

    @staticmethod
    def key(allowed: Mask) -> Any:
        """A hashable exact form of a mask (None for every query)."""
        return None if allowed is None else np.packbits(allowed).tobytes()


__all__ = ["HistoryMasks", "Mask"]

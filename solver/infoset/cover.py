"""A goal with `cover` (goal: {cover: expr}): a secret's game ends once every query the
condition holds for, on that secret, has been asked: a search game that ends when every
hidden cell has been hit, a clearing game when every safe cell is open.

The condition reads a query's arguments and feedback, so for each listed query and
hypothesis it is one boolean (the cover table). The player learns the cover as the game
goes: once the hypotheses left agree on it (the cover is *settled*), the queries of it
not asked yet are forced, and each is one more query; before that the strategy
chooses. Queries are listed. On a belief too large to list (a counted one), each
query's chance of being in the cover is the mass of its feedback values the condition
holds for, counted (`chances`), and the cover is settled when every chance is 0 or 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import Game, interpret
from sleuth.solver.infoset.answers import feedback_chances, feedback_dict
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.queries import Candidates, Query

ROWS = 64  # queries whose feedback codes are tabulated at a time


class Cover:
    """The cover table of a game (every listed query x every hypothesis)."""

    def __init__(self, game: Game):
        if game.model.cover is None:
            raise ValueError("the game's goal has no cover")
        self.game = game
        self.candidates = game.memo.get(("candidates",), lambda: Candidates(game))
        self.queries: list[Query] = [Query(block.action.name, int(rank))
                                     for block in self.candidates.blocks
                                     for rank in block.ranks.tolist()]
        self.position = {(q.action, q.rank): i for i, q in enumerate(self.queries)}
        self._table: np.ndarray | None = None

    @property
    def table(self) -> np.ndarray:
        """Whether the cover holds each query (rows) on each hypothesis (columns)."""
        if self._table is None:
            rows = []
            for block in self.candidates.blocks:
                for position, rank in enumerate(block.ranks.tolist()):
                    if position % ROWS == 0:  # the feedback codes of ROWS queries at a time
                        codes = self.game.feedback_matrix(
                            block.action.name, block.ranks[position:position + ROWS])
                    query = Query(block.action.name, int(rank))
                    row = np.asarray(codes[position % ROWS]).ravel()
                    holds = np.zeros(int(row.max()) + 1 if len(row) else 1, dtype=bool)
                    for c in np.flatnonzero(np.bincount(row)).tolist():  # codes present
                        holds[c] = self.holds(query, c)
                    rows.append(holds[row])
            self._table = np.array(rows, dtype=bool).reshape(len(self.queries),
                                                             self.game.hypotheses.size)
        return self._table

    @staticmethod
    def of(game: Game) -> Cover:
        """The game's cover table, built once."""
        return game.memo.get(("cover",), lambda: Cover(game))

    def holds(self, query: Query, code: int) -> bool:
        """Whether the cover condition holds for a query whose feedback has this code."""
        return self.holds_for(query, self.game.coder(query.action).decode(code))

    def holds_for(self, query: Query, feedback: dict[str, Any]) -> bool:
        """Whether the cover condition holds for a query giving this feedback."""
        node = self.game.model.cover[query.action]
        env = dict(self.game.space(query.action).value(query.rank))
        for name, uid, _ in self.game.model.action(query.action).feedback or []:
            env[uid] = feedback[name]
        return bool(interpret(node, env))

    def chances(self, belief: InformationSet) -> np.ndarray:
        """Each query's probability of being in the cover: the listed hypotheses' mass
        whose cover holds it, or, on a counted belief too large to list, the mass of the
        feedback values the condition holds for (one count each, or one pass for all)."""
        listed = belief.listing()
        if listed is not None:
            return Cover.of(listed.game).table[:, listed.index] @ listed.probabilities()
        out = np.zeros(len(self.queries))
        for query, chances in feedback_chances(belief, self.candidates):
            out[self.position[(query.action, query.rank)]] = sum(
                p for key, p in chances.items()
                if self.holds_for(query, feedback_dict(self.game, query.action, key)))
        return out

    def settled(self, belief: InformationSet) -> bool:
        """Whether the hypotheses left agree on the cover."""
        listed = belief.listing()
        if listed is None:
            p = self.chances(belief)
            return bool(np.all((p < 1e-12) | (p > 1 - 1e-12)))
        cols = Cover.of(listed.game).table[:, listed.index]
        return bool((cols == cols[:, :1]).all())

    def forced(self, belief: InformationSet) -> list[Query]:
        """The queries of a settled cover not asked yet, in canonical order."""
        listed = belief.listing()
        held = self.chances(belief) > 1 - 1e-12 if listed is None else \
            Cover.of(listed.game).table[:, listed.index[0]]
        asked = {self.position.get((a, r)) for a, r, _ in belief.history}
        return [q for i, q in enumerate(self.queries) if held[i] and i not in asked]

    def lengths(self, index: np.ndarray) -> np.ndarray:
        """How many queries each hypothesis's cover holds."""
        return self.table[:, index].sum(axis=0)


__all__ = ["Cover"]

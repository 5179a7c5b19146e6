"""A goal with `cover` (goal: {cover: expr}): a secret's game ends once every query the
condition holds for, on that secret, has been asked: a search game that ends when every
hidden cell has been hit, a clearing game when every safe cell is open.

The condition reads a query's arguments and feedback, so for each listed query and
hypothesis it is one boolean (the cover table). The player learns the cover as the game
goes: once the hypotheses left agree on it (the cover is *settled*), the queries of it
not asked yet are forced, and each is one more query; before that the strategy
chooses. Queries are listed, so the hypotheses must be too.
"""

from __future__ import annotations

import numpy as np

from sleuth.compiler.api import Game, SleuthError, interpret
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.queries import Candidates, Query


class Cover:
    """The cover table of a game (every listed query x every hypothesis)."""

    def __init__(self, game: Game):
        if game.model.cover is None:
            raise ValueError("the game's goal has no cover")
        self.game = game
        candidates = game.memo.get(("candidates",), lambda: Candidates(game))
        everyone = np.arange(game.hypotheses.size, dtype=np.int64)
        self.queries: list[Query] = []
        rows = []
        for block in candidates.blocks:
            codes = candidates.codes(block, np.arange(len(block.ranks)), game, everyone)
            for position, rank in enumerate(block.ranks.tolist()):
                query = Query(block.action.name, int(rank))
                row = codes[position]
                values, inverse = np.unique(row, return_inverse=True)
                holds = np.array([self.holds(query, int(c)) for c in values.tolist()])
                rows.append(holds[inverse.ravel()])
                self.queries.append(query)
        self.table = np.array(rows, dtype=bool).reshape(len(self.queries), len(everyone))
        self.position = {(q.action, q.rank): i for i, q in enumerate(self.queries)}

    @staticmethod
    def of(game: Game) -> Cover:
        """The game's cover table, built once."""
        return game.memo.get(("cover",), lambda: Cover(game))

    def holds(self, query: Query, code: int) -> bool:
        """Whether the cover condition holds for a query whose feedback has this code."""
        node = self.game.model.cover[query.action]
        env = dict(self.game.space(query.action).value(query.rank))
        feedback = self.game.coder(query.action).decode(code)
        for name, uid, _ in self.game.model.action(query.action).feedback or []:
            env[uid] = feedback[name]
        return bool(interpret(node, env))

    def _index(self, belief: InformationSet) -> np.ndarray:
        listed = belief.listing()
        if listed is None:
            raise SleuthError("a goal with cover needs the hypotheses listed",
                              hint="use the enumerated backend (a smaller game, or "
                                   "--max-hypotheses)")
        return np.asarray(listed.index, dtype=np.int64)

    def settled(self, belief: InformationSet) -> bool:
        """Whether the hypotheses left agree on the cover."""
        cols = self.table[:, self._index(belief)]
        return bool((cols == cols[:, :1]).all())

    def forced(self, belief: InformationSet) -> list[Query]:
        """The queries of a settled cover not asked yet, in canonical order."""
        index = self._index(belief)
        asked = {self.position.get((a, r)) for a, r, _ in belief.history}
        return [q for i, q in enumerate(self.queries)
                if self.table[i, index[0]] and i not in asked]

    def lengths(self, index: np.ndarray) -> np.ndarray:
        """How many queries each hypothesis's cover holds."""
        return self.table[:, index].sum(axis=0)


__all__ = ["Cover"]

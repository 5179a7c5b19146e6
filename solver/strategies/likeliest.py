"""`likeliest`: for a game with a cover goal (goal: {cover}), ask the query not asked yet
that is most likely to be one the goal needs -- "fire at the cell most likely to be a
target", the probability-density rule of search games (docs/results.md cites its
source). The probability is the belief's mass of the hypotheses whose cover holds the
query; ties by rule K (the first query in canonical order).
"""

from __future__ import annotations

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.cover import Cover
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.strategies.base import Strategy


class Likeliest(Strategy):
    """The unasked query most likely to be in the cover."""

    name = "likeliest"

    def __init__(self, candidates: Candidates, seed: int = 0, **options: object):
        super().__init__(candidates, seed, **options)
        if candidates.game.model.cover is None:
            raise SleuthError("likeliest asks the query most likely to be one the goal's "
                              "cover needs; this spec's goal has no cover",
                              hint="a goal like cover: 'feedback == \"hit\"'")

    def prepared(self, belief: AnyBelief) -> AnyBelief:
        return belief.settled()

    def chances(self, belief: AnyBelief) -> np.ndarray:
        """Each query's probability of being in the cover (asked ones: -1)."""
        cover = Cover.of(self.candidates.game)
        p = cover.chances(self.prepared(belief))
        for action, rank, _ in belief.history:
            at = cover.position.get((action, rank))
            if at is not None:
                p[at] = -1.0
        return p

    def choose(self, belief: AnyBelief) -> Query:
        p = self.chances(belief)
        best = np.flatnonzero(p >= p.max() - 1e-12)  # near-ties: rule K, the first
        return Cover.of(self.candidates.game).queries[int(best[0])]


__all__ = ["Likeliest"]

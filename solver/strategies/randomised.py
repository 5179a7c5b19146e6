"""The random baselines: any allowed query, or any possible secret (seeded).

Each draw comes from a generator seeded by the strategy's seed and the queries and
feedback so far, so the strategy is a function of the game so far: the tree that
`evaluate` walks, in whatever order, is the one a game per secret plays.
"""

from __future__ import annotations

import hashlib

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.queries import AnyBelief, Query
from sleuth.solver.strategies.base import Strategy


class RandomQuery(Strategy):
    """A uniformly random allowed query (seeded)."""

    name = "random"
    deterministic = False
    consistent_only = False

    def rng(self, belief: AnyBelief) -> np.random.Generator:
        """The generator of the draw at this point of a game: seed and history."""
        digest = hashlib.blake2b(repr(belief.history).encode(), digest_size=8).digest()
        return np.random.default_rng([self.seed, int.from_bytes(digest, "little")])

    def choose(self, belief: AnyBelief) -> Query:
        belief = self.prepared(belief)
        options = []
        for b in self.candidates.blocks:
            pos = self.candidates.allowed(b, belief)
            if self.consistent_only:
                pos = pos[self.candidates.possible(b, belief, pos)]
            options.append((b, pos))
        total = sum(len(p) for _, p in options)
        if total == 0:
            raise SleuthError("no allowed query is a possible secret",
                              hint="random-consistent needs a query that can be a secret")
        k = int(self.rng(belief).integers(total))
        for b, pos in options:
            if k < len(pos):
                return Query(b.action.name, int(b.ranks[pos[k]]))
            k -= len(pos)
        raise AssertionError("k is below the total")


class RandomConsistent(RandomQuery):
    """A uniformly random query among those that are still possible secrets."""

    name = "random-consistent"
    consistent_only = True
    needs_secret_like = True

"""The random baselines: any allowed query, or any possible secret (seeded)."""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.strategies.base import Strategy


class RandomQuery(Strategy):
    """A uniformly random allowed query (seeded)."""

    name = "random"
    deterministic = False
    consistent_only = False

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        self.rng = np.random.default_rng(seed)

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
        k = int(self.rng.integers(total))
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

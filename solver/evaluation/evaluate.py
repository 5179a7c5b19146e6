"""Exact evaluation of a strategy over every secret, by recursion over partitions.

The strategy is asked once per information set, not once per secret: the
root belief is split by the chosen query's feedback, and each part is solved
recursively. A secret's game length is the depth at which it finishes,
counted by the convention of DESIGN §3: with `stop_when`, up to and
including the query whose feedback satisfies it; otherwise until the goal
variables have a single possible value. With `--secrets N` the same tree is
walked only where the N sampled secrets go.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from sleuth.compiler.api import Game, SleuthError, show_value
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query, Stopper, has_stop
from sleuth.solver.strategies import Strategy

MAX_DEPTH = 1000


@dataclass
class Evaluation:
    """Game lengths of every evaluated secret under one strategy."""

    spec: str
    strategy: str
    guesses: str
    lengths: dict[int, int]  # hypothesis index -> queries used
    first_query: dict[str, Any]
    seconds: float
    weights: dict[int, float] = field(default_factory=dict)  # prior, when not uniform

    @property
    def secrets(self) -> int:
        return len(self.lengths)

    @property
    def total(self) -> int:
        return sum(self.lengths.values())

    @property
    def worst(self) -> int:
        return max(self.lengths.values())

    @property
    def average(self) -> Fraction:
        return Fraction(self.total, self.secrets)

    @property
    def histogram(self) -> dict[int, int]:
        return dict(sorted(Counter(self.lengths.values()).items()))

    def to_json(self) -> dict[str, Any]:
        out = {
            "spec": self.spec, "strategy": self.strategy, "guesses": self.guesses,
            "secrets": self.secrets, "total": self.total, "average": float(self.average),
            "average_fraction": str(self.average), "worst": self.worst,
            "histogram": {str(k): v for k, v in self.histogram.items()},
            "first_query": self.first_query, "seconds": round(self.seconds, 4),
        }
        if self.weights:
            w = sum(self.weights.values())
            out["expected"] = sum(self.weights[h] * n for h, n in self.lengths.items()) / w
        return out


Observer = Callable[[int, float, np.ndarray], None]


def evaluate_strategy(game: Game, strategy: Strategy, spec: str, secrets: int | None = None,
                      seed: int = 0, progress: Callable[[int], None] | None = None,
                      root: AnyBelief | None = None,
                      observer: Observer | None = None) -> Evaluation:
    """Play every secret (or `secrets` of them, seeded) against `strategy`, as one tree.
    `root` is the starting belief (default: the enumerated prior; a CountedBelief
    evaluates on the symbolic backend). `observer(depth, entropy_bits, keys)` hears the
    information set's entropy after `depth` queries for the secrets (keys as in
    `Evaluation.lengths`) whose games reach it, down to the query that ends each."""
    start = time.perf_counter()
    root = strategy.prepared(Belief.prior(game) if root is None else root)
    if isinstance(root, CountedBelief):
        if secrets is None:
            raise SleuthError(f"the symbolic backend cannot play all {root.size:,} secrets",
                              hint="evaluate a seeded sample with --secrets N")
        ranks = _distinct_samples(root, min(secrets, root.size), seed)
        keys = np.arange(len(ranks), dtype=np.int64)
    else:
        index = root.index
        if secrets is not None and secrets < root.size:
            rng = np.random.default_rng(seed)
            index = np.sort(rng.choice(root.index, size=secrets, replace=False))
        ranks, keys = root.game.hypotheses.ranks[index], index
    relay = None if observer is None else (
        lambda depth, bits, targets: observer(depth, bits, keys[targets]))
    walker = _Walker(game, strategy, Stopper(game), progress, ranks, relay)
    first = walker.walk(root, np.arange(len(ranks), dtype=np.int64), 0)
    lengths = {int(keys[t]): n for t, n in walker.lengths.items()}
    c = strategy.candidates
    weights = {} if game.model.prior is None else _prior_weights(root, ranks, keys)
    return Evaluation(spec, strategy.name, c.guesses, lengths,
                      _query_json(c, first) if first else {}, time.perf_counter() - start,
                      weights)


def _prior_weights(root: AnyBelief, ranks: np.ndarray, keys: np.ndarray) -> dict[int, float]:
    """Prior weight of each evaluated secret (normalised over them when counted)."""
    if not isinstance(root, CountedBelief):
        return {int(h): float(root.game.prior[h]) for h in keys}
    table = root.game.restricted(np.unique(ranks))
    where = np.searchsorted(table.hypotheses.ranks, ranks)
    return {int(k): float(table.prior[i]) for k, i in zip(keys, where, strict=True)}


def _distinct_samples(belief: CountedBelief, n: int, seed: int) -> np.ndarray:
    """n distinct hypotheses (product ranks), uniformly: exact samples from the diagram
    with duplicates rejected."""
    rng = np.random.default_rng(seed)
    found: dict[int, None] = {}
    while len(found) < n:
        for r in belief.space.sample_ranks(belief.diagram, 2 * (n - len(found)),
                                           int(rng.integers(2**63))):
            found.setdefault(r)
            if len(found) == n:
                break
    return np.array(list(found), dtype=np.int64)


def _query_json(c: Candidates, q: Query) -> dict[str, Any]:
    return {"query": q.action, "args": {k: show_value(v) for k, v in c.args(q).items()}}


class _Walker:
    """The recursion; targets are ids into `ranks` (the secrets' product ranks), found in
    whichever game a node's belief lists (the game, or a restricted one)."""

    def __init__(self, game: Game, strategy: Strategy, stops: Stopper,
                 progress: Callable[[int], None] | None, ranks: np.ndarray,
                 observer: Observer | None = None):
        self.game = game
        self.observer = observer
        self.strategy = strategy
        self.stops = stops
        self.progress = progress
        self.stop_game = has_stop(game)
        self.ranks = ranks
        self.lengths: dict[int, int] = {}
        self._targets: Game | None = None  # the targets as a table, for counted nodes

    def finish(self, targets: np.ndarray, depth: int) -> None:
        for t in targets.tolist():
            self.lengths[t] = depth
        if self.progress:
            self.progress(len(targets))

    def walk(self, belief: AnyBelief, targets: np.ndarray, depth: int) -> Query | None:
        """Solve the subtree at `belief` for `targets`; returns the query chosen here."""
        belief = self.strategy.prepared(belief)
        if self.observer:
            self.observer(depth, belief.entropy_bits(), targets)
        if not self.stop_game and belief.determined(self.game.model.identify):
            self.finish(targets, depth)
            return None
        if depth >= MAX_DEPTH or (self.game.model.max_queries is not None
                                  and depth >= self.game.model.max_queries):
            raise SleuthError(
                f"{len(targets)} secrets are still unsolved after {depth} queries "
                f"(strategy {self.strategy.name})",
                hint="the strategy may be unable to separate the remaining hypotheses")
        query = self.strategy.choose(belief)
        if self.game.model.action(query.action).feedback is None:
            raise SleuthError(
                f"the strategy chose '{query.action}', whose answer is random; exact "
                "evaluation enumerates deterministic feedback only",
                hint="use `sleuth solve --seed` to simulate games with random answers")
        if isinstance(belief, CountedBelief):
            target_codes = self.target_codes(query, targets)
            children = ((code, lambda code=code: self.counted_child(belief, query, code))
                        for code in np.unique(target_codes).tolist())
        else:
            codes = self.strategy.candidates.query_codes(query, belief)
            where = np.searchsorted(belief.game.hypotheses.ranks, self.ranks[targets])
            target_codes = codes[np.searchsorted(belief.index, where)]
            children = ((code, lambda code=code: self.listed_child(belief, codes, code))
                        for code in np.unique(target_codes).tolist())
        for code, child in children:
            mine = targets[target_codes == code]
            if self.stop_game and self.stops(query, code):
                if self.observer:
                    self.observer(depth + 1, child().entropy_bits(), mine)
                self.finish(mine, depth + 1)
                continue
            after = child()
            if after.size == belief.size and self.strategy.deterministic:
                raise SleuthError(
                    f"strategy {self.strategy.name} makes no progress: "
                    f"{query.action} {self.strategy.candidates.args(query)} does not split "
                    f"{belief.size} remaining hypotheses",
                    hint="these hypotheses may be indistinguishable by any query")
            self.walk(after, mine, depth + 1)
        return query

    @staticmethod
    def listed_child(belief: Belief, codes: np.ndarray, code: int) -> Belief:
        return belief.restrict(codes == code, "feedback")

    def counted_child(self, belief: CountedBelief, query: Query, code: int) -> CountedBelief:
        feedback = self.game.coder(query.action).decode(code)
        args = self.strategy.candidates.args(query)
        return belief.condition(belief.space.fact(query.action, args, feedback), "feedback",
                                observed=(query.action, query.rank, code))

    def target_codes(self, query: Query, targets: np.ndarray) -> np.ndarray:
        """Feedback codes of a query on the targets, by the kernels on their own table."""
        if self._targets is None:
            self._targets = self.game.restricted(np.unique(self.ranks))
        where = np.searchsorted(self._targets.hypotheses.ranks, self.ranks[targets])
        return self._targets.feedback_matrix(query.action, np.array([query.rank]), where)[0]


__all__ = ["Evaluation", "Stopper", "evaluate_strategy", "has_stop"]

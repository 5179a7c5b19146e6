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

from compiler import ir
from compiler.domains import show_value
from compiler.errors import SleuthError
from compiler.game import Game
from compiler.interpret import evaluate as interpret
from solver.belief import Belief
from solver.queries import Candidates, Query
from solver.strategies import Strategy

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


class Stopper:
    """Whether a query's feedback (by code) satisfies the goal's `stop_when`."""

    def __init__(self, game: Game):
        self.game = game
        self.cache: dict[tuple[str, int, int], bool] = {}

    def __call__(self, query: Query, code: int) -> bool:
        action = self.game.model.action(query.action)
        if action.stop_when is None:
            return False
        rank = query.rank if _uses_args(action.stop_when) else -1
        key = (query.action, rank, code)
        if key not in self.cache:
            env = dict(self.game.space(query.action).value(rank)) if rank >= 0 else {}
            feedback = self.game.coder(query.action).decode(code)
            for name, uid, _ in action.feedback or []:
                env[uid] = feedback[name]
            self.cache[key] = bool(interpret(action.stop_when, env))
        return self.cache[key]


def _uses_args(node: ir.Node) -> bool:
    if isinstance(node, ir.Name) and node.ref is not None and node.ref[0] == "arg":
        return True
    return any(_uses_args(c) for c in ir.children(node))


def has_stop(game: Game) -> bool:
    return any(q.stop_when is not None for q in game.model.queries)


def evaluate_strategy(game: Game, strategy: Strategy, spec: str, secrets: int | None = None,
                      seed: int = 0,
                      progress: Callable[[int], None] | None = None) -> Evaluation:
    """Play every secret (or `secrets` of them, seeded) against `strategy`, as one tree."""
    start = time.perf_counter()
    root = Belief.prior(game)
    targets = root.index
    if secrets is not None and secrets < root.size:
        rng = np.random.default_rng(seed)
        targets = np.sort(rng.choice(root.index, size=secrets, replace=False))
    walker = _Walker(game, strategy, Stopper(game), progress)
    first = walker.walk(root, targets, 0)
    c = strategy.candidates
    weights = {} if game.model.prior is None else {
        int(h): float(game.prior[h]) for h in walker.lengths}
    return Evaluation(spec, strategy.name, c.guesses, walker.lengths,
                      _query_json(c, first) if first else {}, time.perf_counter() - start,
                      weights)


def _query_json(c: Candidates, q: Query) -> dict[str, Any]:
    return {"query": q.action, "args": {k: show_value(v) for k, v in c.args(q).items()}}


class _Walker:
    def __init__(self, game: Game, strategy: Strategy, stops: Stopper,
                 progress: Callable[[int], None] | None):
        self.game = game
        self.strategy = strategy
        self.stops = stops
        self.progress = progress
        self.stop_game = has_stop(game)
        self.lengths: dict[int, int] = {}

    def finish(self, targets: np.ndarray, depth: int) -> None:
        for h in targets.tolist():
            self.lengths[h] = depth
        if self.progress:
            self.progress(len(targets))

    def walk(self, belief: Belief, targets: np.ndarray, depth: int) -> Query | None:
        """Solve the subtree at `belief` for `targets`; returns the query chosen here."""
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
        codes = self.strategy.candidates.query_codes(query, belief.index)
        target_codes = codes[np.searchsorted(belief.index, targets)]
        for code in np.unique(target_codes).tolist():
            mine = targets[target_codes == code]
            if self.stop_game and self.stops(query, code):
                self.finish(mine, depth + 1)
                continue
            keep = codes == code
            if keep.all() and self.strategy.deterministic:
                raise SleuthError(
                    f"strategy {self.strategy.name} makes no progress: "
                    f"{query.action} {self.strategy.candidates.args(query)} does not split "
                    f"{belief.size} remaining hypotheses",
                    hint="these hypotheses may be indistinguishable by any query")
            self.walk(belief.restrict(keep, "feedback"), mine, depth + 1)
        return query


__all__ = ["Evaluation", "Stopper", "evaluate_strategy", "has_stop"]

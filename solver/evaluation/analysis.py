"""Design analysis: is a deduction game interesting? Measured by entropy.

Meng & Lucas (2024) call a deduction game interesting when (1) first moves
are not equivalent: some reduce the entropy of the information set far more
than others ("spatial"), and (2) the outcome of the best move stays
uncertain: the entropy left after it varies across secrets ("temporal").
This module computes, for any compiled game:

* the first-move profile: every legal first query, grouped by its partition
  of the hypotheses (sorted part sizes), with the expected entropy after it,
  the largest part and the number of parts;
* entropy per round: for every secret (or a seeded sample), the entropy of
  the information set after each query of a strategy's game against it, from
  the same single tree exact evaluation walks; bands (min, mean, max) per
  round over the secrets still in play;
* the distribution of game lengths;
* two numbers to compare games by:
  spatial  = standard deviation, over all legal first queries, of the
             expected entropy after the query (bits; 0 when all first moves
             are equivalent);
  temporal = mean over rounds of the standard deviation, across the secrets
             still in play after the round, of the entropy left (bits; 0 for
             binary search, where every secret loses the same bit).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sleuth.compiler.api import BudgetError, Game, SleuthError, option, show_value
from sleuth.solver.evaluation.evaluate import Evaluation, evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.strategies import Strategy

SAMPLE_ABOVE = 2_000  # games with more secrets are analysed on a seeded sample by default
SAMPLE_SIZE = 500


@dataclass
class MoveClass:
    """First queries that split the hypotheses the same way (same sorted part sizes)."""

    parts_sizes: tuple[float, ...]  # descending: counts (uniform prior) or probabilities
    queries: int  # how many legal first queries have this partition
    example: dict[str, Any]  # the first of them in canonical order
    expected_entropy: float  # bits left, on average, after asking it
    largest: float
    parts: int

    def to_json(self) -> dict[str, Any]:
        sizes = [int(x) if float(x).is_integer() else x for x in self.parts_sizes]
        return {"example": self.example, "queries": self.queries,
                "expected_entropy_bits": self.expected_entropy,
                "largest_part": sizes[0], "parts": self.parts, "partition": sizes}


@dataclass
class Round:
    """Entropy left after `round` queries, over the secrets still in play after it."""

    round: int
    in_play: int
    minimum: float
    mean: float
    maximum: float
    spread: float  # standard deviation


@dataclass
class Analysis:
    game: str
    spec: str
    strategy: str
    hypotheses: int
    entropy_bits: float
    first_moves: list[MoveClass]
    first_move_queries: int
    spatial: float
    rounds: list[Round]
    temporal: float
    evaluation: Evaluation
    trajectories: dict[int, list[float]] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        ev = self.evaluation
        return {
            "game": self.game, "spec": self.spec, "strategy": self.strategy,
            "hypotheses": self.hypotheses, "entropy_bits": self.entropy_bits,
            "first_moves": {"queries": self.first_move_queries,
                            "classes": [c.to_json() for c in self.first_moves]},
            "spatial_interest_bits": self.spatial,
            "temporal_interest_bits": self.temporal,
            "entropy_per_round": [vars(r) for r in self.rounds],
            "lengths": {"secrets": ev.secrets, "average": float(ev.average),
                        "average_fraction": str(ev.average), "worst": ev.worst,
                        "histogram": {str(k): v for k, v in ev.histogram.items()}},
        }


def first_move_profile(candidates: Candidates, root: Belief) -> tuple[list[MoveClass], int,
                                                                       float]:
    """Every legal first query with deterministic feedback, grouped by partition; the
    classes best first (least expected entropy), the number of queries, and the spatial
    interest (standard deviation of expected entropy over all those queries)."""
    h0 = root.entropy_bits()
    classes: dict[tuple, MoveClass] = {}
    per_query: list[float] = []
    counts: list[int] = []  # queries each scored one stands for (its orbit, if generated)
    for block in candidates.blocks_for(root):
        if not block.deterministic or not len(block.ranks):
            continue
        positions = np.arange(len(block.ranks))
        parts = candidates.parts(block, positions, root)
        many = candidates.orbit_sizes(block, root)
        for pos, row in zip(positions.tolist(), parts, strict=True):
            key, after = partition_key(row, root.uniform, h0)
            per_query.append(after)
            counts.append(1 if many is None else int(many[pos]))
            if key not in classes:
                query = Query(block.action.name, int(block.ranks[pos]))
                classes[key] = MoveClass(
                    key, 0, {"query": query.action, "args": {
                        k: show_value(v) for k, v in candidates.args(query).items()}},
                    after, key[0], len(key))
            classes[key].queries += counts[-1]
    ordered = sorted(classes.values(), key=lambda c: c.expected_entropy)
    if not per_query:
        return ordered, 0, 0.0
    if min(per_query) == max(per_query):  # every first move alike: exactly 0 (a weighted
        return ordered, sum(counts), 0.0  # mean of equal values can be off by 1e-16)
    weights = np.array(counts, dtype=float)
    mean = np.average(per_query, weights=weights)
    spread = float(np.sqrt(np.average((np.array(per_query) - mean) ** 2, weights=weights)))
    return ordered, sum(counts), spread


def partition_key(row: np.ndarray, uniform: bool, h0: float) -> tuple[tuple, float]:
    """A partition's sorted part sizes and the expected entropy left after it: with n
    equally likely hypotheses, sum c log2 c / n; with weights, H(prior) - H(feedback)."""
    nonzero = row[row > 0]
    if uniform:
        counts = sorted((int(c) for c in nonzero), reverse=True)
        n = sum(counts)
        return tuple(counts), sum(c * math.log2(c) for c in counts) / n
    p = np.sort(nonzero / nonzero.sum())[::-1]
    return tuple(round(float(x), 12) for x in p), h0 + float((p * np.log2(p)).sum())


def entropy_rounds(game: Game, strategy: Strategy, spec: str, root: AnyBelief,
                   secrets: int | None, seed: int,
                   progress: Callable[[int], None] | None = None
                   ) -> tuple[Evaluation, dict[int, list[float]]]:
    """The strategy's game against every secret (or a seeded sample), with the entropy of
    the information set after each query: trajectories[secret][r] after r queries."""
    trajectories: dict[int, list[float]] = {}

    def hear(depth: int, bits: float, keys: np.ndarray) -> None:
        for k in keys.tolist():
            t = trajectories.setdefault(k, [])
            t.extend([math.nan] * (depth + 1 - len(t)))
            t[depth] = bits

    evaluation = evaluate_strategy(game, strategy, spec, secrets, seed, progress, root, hear)
    return evaluation, trajectories


def round_bands(trajectories: dict[int, list[float]], lengths: dict[int, int]) -> list[Round]:
    """Per round r: the entropy after r queries over the secrets still in play after it
    (games longer than r); round 0 is every secret before the first query."""
    out = []
    for r in range(max(lengths.values()) + 1):
        values = np.array([t[r] for k, t in trajectories.items()
                           if lengths[k] > r or r == 0])
        if not len(values):
            break
        lo, hi = float(values.min()), float(values.max())
        spread = 0.0 if lo == hi else float(values.std())  # np.std of equal values: ~1e-16
        out.append(Round(r, len(values), lo, float(values.mean()), hi, spread))
    return out


def temporal_interest(rounds: list[Round]) -> float:
    """Mean spread of the entropy left across the secrets in play, over rounds 1.. with at
    least two secrets in play."""
    spreads = [r.spread for r in rounds if r.round >= 1 and r.in_play >= 2]
    return float(np.mean(spreads)) if spreads else 0.0


def analyse(game: Game, strategy: Strategy, spec: str, root: AnyBelief | None = None,
            secrets: int | None = None, seed: int = 0,
            progress: Callable[[str, int, int], None] | None = None) -> Analysis:
    """The whole analysis of one game under one strategy. `progress(stage, done, total)`
    hears how far it is: the first moves, then the games."""
    if root is None:
        try:
            root = Belief.prior(game)
        except BudgetError as err:
            raise SleuthError(f"the analysis scores every first query against every "
                              f"hypothesis, so it lists them: {err.message}",
                              hint=f'narrow the params ({option("set")}), or raise '
                                   f'{option("max_hypotheses")}'
                              ) from None
    prepared = strategy.prepared(root)
    root = prepared.listing()
    if root is None:
        raise SleuthError(f"the first-move profile scores every query on listed hypotheses; "
                          f"this game has {prepared.size:,}",
                          hint=f'raise {option("max_hypotheses")}, or narrow the params '
                               f'({option("set")})')
    if progress:
        progress("scoring every first move", 0, 1)
    classes, n_queries, spatial = first_move_profile(strategy.candidates, root)
    if secrets is None and root.size > SAMPLE_ABOVE:
        secrets = SAMPLE_SIZE
    total = min(secrets or root.size, root.size)
    done = 0

    def games(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress("playing every secret", done, total)

    games(0)
    evaluation, trajectories = entropy_rounds(game, strategy, spec, root, secrets, seed, games)
    rounds = round_bands(trajectories, evaluation.lengths)
    return Analysis(game.name, spec, strategy.name, root.size, root.entropy_bits(), classes,
                    n_queries, spatial, rounds, temporal_interest(rounds), evaluation,
                    trajectories)


__all__ = ["Analysis", "MoveClass", "Round", "analyse", "first_move_profile",
           "round_bands", "temporal_interest"]

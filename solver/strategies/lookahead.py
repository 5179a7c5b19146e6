"""Look-ahead: a query scored by the best score one more query can reach after it.

    lookahead --depth 2 --score entropy|expected-size|minimax|most-parts

At depth 2, query q splits the information set S into parts; each part that
goes on (not ended by q's feedback) is split again by the best query for that
part alone, and q's score is the base score of the two-step partition of S.
The base scores are the partition statistics of the classic strategies, in a
form that adds up (or takes the maximum) over parts:

    entropy        sum of n log2 n over the final parts (the expected entropy
                   left, times |S|; least is best)
    expected-size  sum of n^2 (Irving)
    minimax        the largest final part (Knuth; a maximum, not a sum)
    most-parts     minus the number of final parts (Kooi)

so the best second query of each part is chosen on that part alone. Depth 1 is
the base strategy itself. Ties: rule K. Uniform beliefs and deterministic
feedback only. Where the game has symmetries (solver/infoset/symmetry.py),
only one query per orbit of the information set's stabiliser is scored.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.history import HistoryMasks, Mask, mask_of
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.strategies.base import ListedStrategy, Option, Scored, pick_by_k

SCORES = ("entropy", "expected-size", "minimax", "most-parts")


def statistic(counts: np.ndarray, score: str) -> np.ndarray:
    """The base score of each row of part sizes (rows: queries)."""
    if score == "entropy":
        safe = np.where(counts > 0, counts, 1)
        return (counts * np.log2(safe)).sum(axis=1)
    if score == "expected-size":
        return (counts * counts).sum(axis=1).astype(float)
    if score == "minimax":
        return counts.max(axis=1).astype(float)
    return -(counts > 0).sum(axis=1).astype(float)


def require_uniform(candidates: Candidates, name: str) -> None:
    """The look-aheads' refusal: a uniform prior and deterministic feedback only."""
    if candidates.game.model.prior is not None or any(not b.deterministic
                                                      for b in candidates.blocks):
        raise SleuthError(f"{name} needs a uniform prior and deterministic feedback",
                          hint="use entropy")


def least_by_k(candidates: Candidates, belief: AnyBelief, scores: np.ndarray) -> Query:
    """The allowed query of least score (one score per query of the candidates' blocks,
    in order; inf: not scored), ties by rule K."""
    offset, scored = 0, []
    for block in candidates.blocks:
        allowed = candidates.allowed(block, belief)
        s = scores[offset + allowed]
        keep = np.isfinite(s)
        scored.append(Scored(block, allowed[keep], s[keep], None))
        offset += len(block.ranks)
    scored = [s for s in scored if len(s.positions)]
    if not scored:
        raise SleuthError(f"no allowed query splits the {belief.size:,} hypotheses left "
                          "(every query's score is infinite)",
                          hint="these hypotheses may be indistinguishable by any query")
    best = min(float(s.scores.min()) for s in scored)
    tol = 1e-9 * max(1.0, abs(best))
    tied = [Scored(s.block, s.positions[t], s.scores[t], None) for s in scored
            if len(t := np.flatnonzero(s.scores <= best + tol))]
    return pick_by_k(candidates, tied, belief)


class Lookahead(ListedStrategy):
    name = "lookahead"
    depth = Option(int, 2, "queries looked ahead (1: the base score itself)", minimum=1,
                   maximum=2)
    score = Option(str, "entropy", "the base score the look-ahead minimises",
                   choices=SCORES)

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        require_uniform(candidates, self.name)
        self.table = OutcomeTable(candidates)
        self.symmetry = self.table.symmetry
        # under a `history` rule the second query is one the rule allows after the first
        self.rules = HistoryMasks(candidates, self.table) if HistoryMasks.applies(
            candidates) else None
        if self.rules is not None:
            self.symmetry = None

    def choose(self, belief: AnyBelief) -> Query:
        belief = self.prepared(belief)
        hyps = np.sort(belief.index).astype(np.int64)
        counts = self.table.counts(hyps)
        first = statistic(counts, self.score)
        allowed = None if self.rules is None else self.rules.of_belief(belief)
        scores = first if self.depth == 1 else self.two_step(hyps, counts, allowed)
        return least_by_k(self.candidates, belief, scores)

    def two_step(self, hyps: np.ndarray, counts: np.ndarray,
                 allowed: Mask = None) -> np.ndarray:
        """Each query's score after the best second query in each of its parts (inf for
        queries skipped as symmetric to an earlier one, or that make no progress, or
        that the history rules forbid: `allowed`, None for all)."""
        t = self.table
        n, q = len(hyps), len(t.queries)
        going = np.where(t.stops, 0, counts)
        useful = going.max(axis=1) < n
        if self.symmetry is not None:
            useful &= self.symmetry.representatives(self.symmetry.stabiliser(hyps))
        if mask_of(allowed) is not None:
            useful &= mask_of(allowed)
        out = np.full(q, np.inf)
        best_of: dict[Any, float] = {}
        for i in np.flatnonzero(useful).tolist():
            row = t.row(i, hyps)
            values = []
            for c in np.flatnonzero(going[i]).tolist():
                part = hyps[row == c]
                after = None if self.rules is None else self.rules.after(allowed, i, c)
                key = (part.tobytes(), HistoryMasks.key(after))
                if key not in best_of:
                    second = statistic(t.counts(part), self.score)
                    ok = mask_of(after)
                    best_of[key] = float(second.min() if ok is None else
                                         second[ok].min(initial=np.inf))
                values.append(best_of[key])
            ended = np.where(t.stops[i], counts[i], 0)[None, :]  # parts that end stay whole
            first = float(statistic(ended, self.score)[0])
            out[i] = max([first, *values]) if self.score == "minimax" else first + sum(values)
        return out


__all__ = ["SCORES", "Lookahead", "least_by_k", "require_uniform", "statistic"]

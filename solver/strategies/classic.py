"""The classic partition-scoring strategies: ISES (entropy), Knuth, Irving and Kooi.

    entropy        ISES, exhaustive: maximise the expected information gain
    minimax        Knuth: minimise the largest part
    expected-size  Irving: minimise the sum of squared part sizes
    most-parts     Kooi: maximise the number of non-empty parts

With a uniform belief, partition scores are integers (largest part, Σ n²,
number of parts) and compare exactly; entropy compares Σ n log n in floating
point and settles near-ties exactly, by comparing Π n^n as integers. With
weights (non-uniform priors, Bayes updates) scores are floats and ties are
equal to 1e-12 (relative). For a `response` query the parts are its possible
answers: entropy is the mutual information between answer and hypothesis;
the others use, per answer, the hypotheses that remain possible after it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from sleuth.solver.strategies.base import ScoringStrategy

ENTROPY_TIE = 1e-9  # near-ties of Σ n log n, then settled exactly
TABLE = 1 << 22  # the largest count c log2 c is looked up for
EXACT_BITS = 1 << 22  # near-ties are settled exactly while Π c^c has at most these bits


# Partition scores are on the scale of hypothesis counts: weighted parts (probability
# masses) and answer tables are scaled by n, so queries of both kinds compare.

class Minimax(ScoringStrategy):
    name = "minimax"
    exact = True
    even_split_best = True

    def score_parts(self, parts, uniform, n):
        return parts.max(axis=1) if uniform else parts.max(axis=1) * n

    def score_answers(self, p, w, n):
        return float(max(((p > 0) @ w) * n))


class ExpectedSize(ScoringStrategy):
    name = "expected-size"
    exact = True
    even_split_best = True

    def score_parts(self, parts, uniform, n):
        return (parts * parts).sum(axis=1) if uniform else (parts * parts).sum(axis=1) * n * n

    def score_answers(self, p, w, n):
        predictive = p @ w
        support = (p > 0) @ w
        return float((predictive * support).sum() * n * n)


class MostParts(ScoringStrategy):
    name = "most-parts"
    exact = True
    even_split_best = True

    def score_parts(self, parts, uniform, n):
        return -(parts > 0).sum(axis=1)

    def score_answers(self, p, w, n):
        return -float(((p @ w) > 0).sum())


class Entropy(ScoringStrategy):
    """ISES: the query whose outcome carries the most expected information (bits)."""

    name = "entropy"
    even_split_best = True

    def score_parts(self, parts, uniform, n):
        if uniform:
            # Expected gain log2 n - Σ c log2 c / n, negated (lower is better).
            return nlogn(parts).sum(axis=1) / n - math.log2(n)
        return -_entropy_rows(parts)

    def score_answers(self, p, w, n):
        return -mutual_information(p, w)

    def tolerance(self, scored, best):
        return ENTROPY_TIE * max(1.0, abs(best))

    def refine(self, tied):
        """Among near-ties with integer partitions, keep the exactly best (least Π c^c)."""
        exact = [(s, t) for s, t in tied if s.parts is not None]
        if not exact or len(exact) < len(tied):
            return tied
        rows = [np.sort(s.parts[t], axis=1)[:, ::-1] for s, t in exact]
        if max(float(nlogn(r).sum(axis=1).max()) for r in rows) > EXACT_BITS:
            return tied  # products too large to multiply out: K decides the near-tie
        width = max(r.shape[1] for r in rows)
        rows = [np.pad(r, ((0, 0), (0, width - r.shape[1]))) for r in rows]
        first = rows[0][0]
        if all((r == first).all() for r in rows):
            return tied  # one multiset of part sizes: an exact tie
        keys = {}
        for r in rows:
            for x in map(tuple, r.tolist()):
                if x not in keys:
                    keys[x] = _power_product(x)
        least = min(keys.values())
        return [(s, t[[keys[tuple(x)] == least for x in r.tolist()]])
                for (s, t), r in zip(exact, rows, strict=True)]


def nlogn(counts: np.ndarray) -> np.ndarray:
    """c log2 c elementwise for integer counts (0 for 0): by table lookup up to TABLE
    entries; computed directly for the counts of a space too large to list (a counted
    belief's parts reach billions, and a table of them would not fit)."""
    top = int(counts.max()) if counts.size else 0
    if top >= TABLE:
        c = np.asarray(counts, dtype=np.float64)
        return np.where(c > 0, c * np.log2(np.maximum(c, 1)), 0.0)
    return _nlogn_table(max(1024, 1 << top.bit_length()))[counts]


@lru_cache(maxsize=8)
def _nlogn_table(size: int) -> np.ndarray:
    c = np.arange(size, dtype=np.float64)
    return np.where(c > 0, c * np.log2(np.maximum(c, 1)), 0.0)


def _entropy_rows(masses: np.ndarray) -> np.ndarray:
    total = masses.sum(axis=1, keepdims=True)
    p = np.divide(masses, total, out=np.zeros_like(masses, dtype=float), where=total > 0)
    return -np.where(p > 0, p * np.log2(np.where(p > 0, p, 1)), 0.0).sum(axis=1)


def _power_product(counts: tuple[int, ...]) -> int:
    out = 1
    for c in counts:
        if c > 1:
            out *= c ** c
    return out


def mutual_information(p: np.ndarray, w: np.ndarray) -> float:
    """I(hypothesis; answer) in bits, for P(answer | h) = p[:, h] and prior weights w."""
    predictive = p @ w
    h_answer = -float(np.sum(np.where(predictive > 0, predictive * np.log2(
        np.where(predictive > 0, predictive, 1)), 0.0)))
    cond = -np.sum(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1)), 0.0), axis=0)
    return h_answer - float(cond @ w)

"""A calibrated look-ahead: a query scored by the queries its parts still need, exactly
where a part is small and by an estimate fitted to exact solves where it is large.

    calibrated --depth 1|2 --exact N --samples M --shortlist K

The one-step rules score a partition by a statistic of its part sizes (entropy, the
largest part, the number of parts), which is not the number of queries still to come;
a two-step look-ahead that minimises such a statistic is no better an estimate
(docs/solver.md). This strategy costs a part in queries:

    cost(P) = 0                      P ends the game (the secret was asked)
            = E*(P)                  |P| <= exact: the least total of an optimal tree for
                                     P, solved by the exact search (search/plain.py)
            = E(|P|)                 else: the estimate of that total for a part of |P|

E is calibrated on the game itself, before play: `samples` sets are drawn as the
parts one and two random queries make of every secret (seeded), each of at most
CALIBRATE secrets is solved exactly, and the mean total per size n is kept for the
sizes seen; above them E(n) = n (a + b log2 n), fitted by least squares to every solve
(the queries still needed per secret grow as the log of the part, at a rate the
game's branching sets). E never falls below the search's lower bound for n.

Depth 1 scores a query by the sum of its parts' costs; depth 2 costs each part that
is larger than `exact` as its size (one more query each) plus the least depth-1 score
a second query reaches on it, with every part of that second split costed by E of its
size. Least is best; ties by rule K. Uniform beliefs and deterministic feedback only;
one query per orbit where the game has symmetries.

A decision costs queries in the order of a lower bound on their score taken from part
sizes alone (`least_costs`), and stops once that bound passes the best score found; a
query whose parts costed so far, with the others' bounds, pass it is left there. That
choice is the one of costing every query (docs/solver.md). It costs at most `shortlist`
queries, the first in that order: where more could still win, the best of those is
taken, which need not be the exact choice (0: no limit). The exact choice usually lies
among the first few dozen; past them, nearly all of a large decision's work goes to
showing that thousands of others cannot win.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.search.plain import NO_TREE, OptimalSearch
from sleuth.solver.strategies.base import ListedStrategy, Option
from sleuth.solver.strategies.lookahead import least_by_k, require_uniform

CALIBRATE = 48  # the largest set solved exactly to calibrate the estimate
SYMMETRIC = 256  # depth 2 scores a part this large on one query per orbit of its symmetries
LATE = 1e9  # the cost of a secret the game's max_queries leaves unfinished


class Calibrated(ListedStrategy):
    name = "calibrated"
    depth = Option(int, 2, "queries looked ahead (1: each part costed at once)", minimum=1,
                   maximum=2)
    exact = Option(int, 8, "parts of at most this many secrets are costed by the exact "
                   "search", minimum=1, maximum=64)
    samples = Option(int, 200, "sets solved exactly to calibrate the estimate", minimum=10)
    estimate_by = Option(str, "means", "E(n) where sizes were solved: their mean total "
                         "(means), or the fitted curve at every size (fit)",
                         choices=("means", "fit"))
    shortlist = Option(int, 256, "queries costed at most a decision, those of least lower "
                       "bound first (0: every one that can still win, the exact choice)",
                       minimum=0)

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        require_uniform(candidates, self.name)
        self.search = OptimalSearch(candidates)  # its memo keeps every exact solve
        self.table = self.search.table
        # the calibration's sets (up to CALIBRATE secrets) are searched with the game's
        # symmetries: a stabiliser cuts the queries tried, by far the larger cost there.
        # The parts costed at each decision (up to `exact`) are searched without: there a
        # stabiliser costs more than it saves.
        self.fit, self.per_size = self._calibrate(seed)
        self.search.symmetry = None
        self.estimate = self._estimates(candidates.game.hypotheses.size)
        self.second_low = self._second_bounds(candidates.game.hypotheses.size)

    # -- calibration

    def _calibrate(self, seed: int) -> tuple[tuple[float, float], dict[int, float]]:
        """(a, b) of E(n) = n (a + b log2 n), and the mean exact total per size seen."""
        rng = np.random.default_rng([seed, 0xCA1])
        t, everyone = self.table, np.arange(self.candidates.game.hypotheses.size)
        sets: dict[bytes, np.ndarray] = {}
        tries = 0
        while len(sets) < self.samples and tries < 50 * self.samples:
            tries += 1
            hyps = everyone
            for _ in range(int(rng.integers(1, 4))):  # one to three random queries deep
                q = int(rng.integers(len(t.queries)))
                row = t.row(q, hyps)
                going = [c for c in np.unique(row).tolist() if not t.stops[q, c]]
                if not going:
                    break
                hyps = hyps[row == going[int(rng.integers(len(going)))]]
                if len(hyps) <= CALIBRATE:
                    break
            if 1 <= len(hyps) <= CALIBRATE:
                sets.setdefault(hyps.tobytes(), hyps)
        sizes, totals = [], []
        for hyps in sets.values():
            sizes.append(len(hyps))
            totals.append(self.exact_cost(hyps))
        if len(set(sizes)) < 2:
            raise SleuthError("calibrated found too few small sets to fit its estimate",
                              hint="use entropy, or more samples")
        n, e = np.array(sizes, dtype=float), np.array(totals, dtype=float)
        a, b = np.linalg.lstsq(np.stack([np.ones_like(n), np.log2(n)], axis=1), e / n,
                               rcond=None)[0]
        per_size = {int(k): float(e[n == k].mean()) for k in np.unique(n)}
        return (float(a), float(b)), per_size

    def _estimates(self, size: int) -> np.ndarray:
        """E(n) for n = 0..size: the mean of the exact solves where sizes were seen, the
        fit above them, never below the search's lower bound."""
        n = np.arange(size + 1, dtype=float)
        a, b = self.fit
        out = n * (a + b * np.log2(np.maximum(n, 1)))
        if self.estimate_by == "means":
            for k, mean in self.per_size.items():
                out[k] = mean
        out[0] = 0.0
        return np.maximum(out, self.search.lb_total[:size + 1].astype(float))

    def _second_bounds(self, size: int) -> np.ndarray:
        """For n = 0..size: a lower bound on depth 2's cost of a part of n secrets, n plus
        the least sum of the estimate over a second split's going parts. Those are at
        most B, the most codes that go on for one query at the whole set (the table's
        `most_going`), and hold at least n - s secrets, s the most that one query ends
        the game for at the whole set. Below the estimate lies its convex
        minorant H (H(0) = 0), and by Jensen's inequality any B sizes summing to S give
        at least B H(S / B) (with H convex and H(0) = 0 that falls as B grows). Never
        below the search's size bound."""
        n = np.arange(size + 1, dtype=float)
        hull = [0]  # the lower convex hull of (k, estimate[k]), left to right
        for k in range(1, size + 1):
            while len(hull) >= 2:
                a, b = hull[-2], hull[-1]
                if (self.estimate[b] - self.estimate[a]) * (k - a) >= \
                        (self.estimate[k] - self.estimate[a]) * (b - a):
                    hull.pop()
                else:
                    break
            hull.append(k)
        codes = max(1, self.table.most_going)
        spread = np.maximum(n - self.search.most_ended, 0) / codes
        low = n + codes * np.interp(spread, hull, self.estimate[hull])
        return np.maximum(np.floor(low * (1 - 1e-9)), self.search.lb_total[:size + 1])

    def exact_cost(self, hyps: np.ndarray, depth: int | None = None) -> float:
        """The least total of an optimal tree for the set within `depth` queries (None: no
        limit; the search's memo keeps it); LATE a secret when no tree is that shallow."""
        got = self.search.solve(np.sort(hyps), depth, NO_TREE - 1)
        if not isinstance(got, tuple) and depth is not None:
            return LATE * len(hyps)
        if not isinstance(got, tuple):
            raise SleuthError("no sequence of queries finishes a set of secrets",
                              hint="these hypotheses may be indistinguishable")
        return int(got[0])

    # -- scoring

    def part_cost(self, part: np.ndarray, left: int | None = None) -> float:
        """A part that goes on: exact when small, else (depth 2) one more query each and
        the best second split, or (depth 1) the estimate for its size. `left`: the
        queries the game still allows after this one (the goal's max_queries; None: no
        limit): a part that no tree finishes within them costs LATE a secret."""
        if len(part) <= self.exact:
            return float(self.exact_cost(part, left))
        if left is not None and self.search.lb_worst[len(part)] > left:
            return LATE * len(part)
        if self.depth == 1:
            return float(self.estimate[len(part)])
        t, queries = self.table, np.arange(len(self.table.queries))
        if t.symmetry is not None and len(part) >= SYMMETRIC:  # one query per orbit
            queries = np.flatnonzero(t.symmetry.representatives(t.symmetry.stabiliser(part)))
        # the least estimate a second query's going parts sum to, in one compiled pass
        # (outcome_kernels.going_sums; inf: no progress)
        return len(part) + float(t.going_sums(part, self.estimate, queries).min())

    def part_lows(self, going: np.ndarray) -> np.ndarray:
        """Per part size (any shape; 0: no part): a lower bound on the part's cost from its
        size alone: the search's size bound for a part costed exactly or by a second
        split (depth 2), the estimate itself for one costed by it (depth 1)."""
        large = self.estimate if self.depth == 1 else self.second_low
        low = np.where(going <= self.exact, self.search.lb_total[going], large[going])
        return np.where(going > 0, low, 0.0)

    def least_costs(self, hyps: np.ndarray, queries: np.ndarray) -> np.ndarray:
        """Per query of `queries`: a lower bound on the sum of its parts' costs at `hyps`
        (`part_lows` summed over its going parts), inf where it makes no progress."""
        return self.table.going_sums(hyps, self.part_lows(np.arange(len(hyps) + 1)), queries)

    @staticmethod
    def cut(best: float) -> float:
        """The score past which a query cannot win against `best`, with room for
        least_by_k's tolerance on ties."""
        return best + 1e-6 * max(1.0, abs(best))

    def choose(self, belief: AnyBelief) -> Query:
        belief = self.prepared(belief)
        hyps = np.sort(belief.index).astype(np.int64)
        t = self.table
        scored = np.arange(len(t.queries))  # one query per orbit: the others score alike
        if t.symmetry is not None:
            scored = np.flatnonzero(t.symmetry.representatives(t.symmetry.stabiliser(hyps)))
        scores = np.full(len(t.queries), np.inf)
        kept: dict[bytes, float] = {}
        bound = self.candidates.game.model.max_queries
        left = None if bound is None else bound - len(belief.history) - 1
        # branch and bound: queries in order of a lower bound on their score (least_costs,
        # inf for a query that makes no progress); once it passes the best score found
        # (with room for least_by_k's tolerance on ties), no later query can reach it, so
        # those are left unscored
        low = self.least_costs(hyps, scored)
        best = np.inf
        order = sorted(np.flatnonzero(np.isfinite(low)).tolist(), key=lambda k: low[k])
        for tried, k in enumerate(order):
            bar = self.cut(best)
            if low[k] > bar or tried == (self.shortlist or -1):  # shortlist 0: no limit
                break
            i = int(scored[k])
            scores[i] = total = self.query_cost(i, hyps, kept, left, bar)
            best = min(best, total)
        return least_by_k(self.candidates, belief, scores)

    def query_cost(self, q: int, hyps: np.ndarray, kept: dict, left: int | None,
                   cut: float = np.inf) -> float:
        """Query q's score at `hyps`: the sum of the costs of its parts that go on, each
        part costed once per decision (`kept`). With `cut`: the parts are costed those
        already kept first, then the largest, and once the costs so far plus the other
        parts' `part_lows` pass `cut` the query cannot win: inf, the rest left uncosted.
        A score is always summed in code order, so a query costed in full scores as it
        would without `cut`."""
        t = self.table
        row = t.row(q, hyps)
        going = np.where(t.stops[q], 0, np.bincount(row, minlength=t.ncodes))
        codes = np.flatnonzero(going)
        parts = [hyps[row == c] for c in codes.tolist()]
        keys = [part.tobytes() for part in parts]

        def cost(i: int) -> float:
            if keys[i] not in kept:  # m secrets never need more than m queries
                n = len(parts[i])
                kept[keys[i]] = self.part_cost(parts[i], None if left is None or left >= n
                                               else left)
            return kept[keys[i]]

        if cut < np.inf:
            lows = self.part_lows(going[codes])
            running = float(lows.sum())
            for i in sorted(range(len(codes)), key=lambda i: (keys[i] not in kept,
                                                               -len(parts[i]))):
                running += cost(i) - float(lows[i])
                if running > cut:
                    return np.inf
        total = 0.0
        for i in range(len(codes)):
            total += cost(i)
        return total


__all__ = ["CALIBRATE", "Calibrated"]

"""Meng & Lucas' sampled ISES (Algorithm 1 of the ISES paper) under a wall-clock budget."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.strategies.base import FixedWork, Option, Scored
from sleuth.solver.strategies.classic import Entropy

SCORING_SHARE = 0.85  # of a budget spent scoring; the rest picks and returns
SAMPLING_SHARE = 0.4  # of it at most spent drawing states from a decision diagram
FIRST_BATCH = 16


class ISESSampled(FixedWork, Entropy):
    """Meng & Lucas' sampled ISES as their Algorithm 1: sampled queries, each scored by
    the average entropy of the information set it leaves, over sampled states.

    Per decision: draw m states from the belief (by weight, with replacement), shuffle
    the allowed queries and keep the first n. For each query and each sampled state,
    simulate the feedback the state gives, update a copy of the information set by it,
    and add that posterior set's entropy; the query with the least average wins (ties by
    K). Queries are scored batch after batch until they run out or the wall-clock
    budget is spent (the first batch is always scored). The posterior sets are exact:
    every hypothesis of the set is scored, so a query costs what it costs exhaustive
    ISES, and sampling saves queries, not hypotheses. On a belief too large to list
    (the symbolic backends) the posterior sets are estimated on the sampled states: the
    partition variant below. Seeded: with a budget that is not reached the choice is
    reproducible; with `iterations` (the number of sampled queries scored, the clock not
    consulted) it always is.
    """

    orbit_queries = False  # it draws queries uniformly from the whole list

    name = "ises-sampled"
    deterministic = False
    posterior = True  # Algorithm 1: exact posterior sets; False: the sample's partition

    states = Option(int, 1000, "states sampled per decision (m)", minimum=1)
    queries = Option(int, None, "queries sampled per decision (n; default: all)", minimum=1,
                     optional=True)
    budget = Option(float, 0.1, "seconds per decision", minimum=0, open_min=True)
    # iterations, schedule (FixedWork): here, sampled queries scored

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        self.rng = np.random.default_rng(seed)
        self.last_scored = 0  # queries scored in the last decision (for benchmarks)
        self.last_states = 0  # states sampled for it
        self._fixed: int | None = None  # this decision's fixed work (None: the clock)
        self._full: Belief | None = None  # Algorithm 1: the listed set being decided
        self._states = np.zeros(0, dtype=np.int64)  # its sampled states (positions)

    def prepared(self, belief: AnyBelief) -> AnyBelief:
        return belief.settled()  # listed only up to its list_limit: states are sampled

    def decision_pairs(self, belief: AnyBelief) -> int | None:
        return None  # a sample of states, scored until the budget is spent

    def work(self) -> dict[str, int]:
        return {"states": self.last_states, "queries": self.last_scored}

    def choose(self, belief: AnyBelief) -> Query:
        start = time.perf_counter()
        self._fixed = self.fixed_work(belief)
        belief = self.prepared(belief)
        self.last_scored = self.last_states = 0
        if belief.size == 1:
            return super().choose(belief)  # every query ties: K decides, no scoring needed
        sample = self.sample_states(belief, start)
        self.last_states = len(self._states) if sample is self._full else sample.size
        order = [(b, self.rng.permutation(self.candidates.allowed(b, belief)))
                 for b in self.candidates.blocks]
        pool = [(b, p) for b, p in order if len(p)]
        if self.queries is not None:
            pool = self._limit(pool, self.queries)
        if self._fixed is not None:  # fixed work: this many queries, whatever the clock
            pool = self._limit(pool, self._fixed)
        scored: list[Scored] = []
        deadline = start + SCORING_SHARE * self.budget if self._fixed is None \
            else float("inf")
        per_query, done = 0.0, 0
        for block, positions in pool:
            lo, batches, batch = 0, 0, FIRST_BATCH
            while lo < len(positions):
                if done and time.perf_counter() >= deadline:
                    break
                if batches < 2:
                    # Two small batches per block: the first also pays for setting up (the
                    # block's feedback matrix over the states), the second measures the rate.
                    batch = FIRST_BATCH
                elif deadline == float("inf"):  # fixed iterations: no clock to fit
                    batch = 4 * batch
                else:  # sized to end before the deadline, growing at most 4x a batch
                    batch = min(4 * batch, int(0.8 * (deadline - time.perf_counter())
                                               / max(per_query, 1e-9)))
                    if batch < 1:
                        break
                chunk = np.sort(positions[lo:lo + batch])
                t0 = time.perf_counter()
                scored.append(self.score_block(block, chunk, sample))
                if batches:  # the slowest rate seen after the block's setup batch
                    per_query = max(per_query, (time.perf_counter() - t0) / len(chunk))
                lo += len(chunk)
                done += len(chunk)
                batches += 1
            if done and time.perf_counter() >= deadline:
                break
        self.last_scored = done
        return self.pick(scored, belief)

    def sample_states(self, belief: AnyBelief, start: float) -> Belief:
        """The states to score against. Algorithm 1 on a listed belief: m drawn by weight
        with replacement (positions in the belief, kept for `score_block`). Otherwise, as
        a belief: all of them when there are at most m; else m drawn by weight without
        replacement (listed), or drawn from the counter with replacement, within
        SAMPLING_SHARE of the budget (counted)."""
        listed = belief.listing() if self.posterior else None
        self._full = listed
        if listed is not None:
            p = None if listed.uniform else listed.probabilities()
            self._states = self.rng.choice(listed.size, size=self.states, replace=True, p=p)
            return listed
        deadline = None if self._fixed is not None else start + SAMPLING_SHARE * self.budget
        return belief.draw(self.states, self.rng, deadline=deadline)

    def score_block(self, block, positions, belief):
        """Algorithm 1's scores (the average posterior entropy over the sampled states) on a
        listed belief; the sample's partition entropy otherwise."""
        if self._full is None or belief is not self._full or \
                not block.deterministic or not len(positions):
            return super().score_block(block, positions, belief)
        # A matrix kept already, else the kernels directly: setting one up costs more than
        # any batch size bounds, and a decision has a wall-clock budget.
        codes = self.candidates.kept_codes(block, positions, belief.game, belief.index)
        if codes is None:
            codes = belief.game.feedback_matrix(block.action.name, block.ranks[positions],
                                                belief.index)
        # minus the set's own entropy: the expected gain negated, the scale of the other
        # scores (a response query's, scored exactly)
        bits = posterior_entropy(codes, belief, self._states) - belief.entropy_bits()
        return Scored(block, positions, bits, None)

    def _limit(self, pool, n):
        out, left = [], n
        for b, p in pool:
            if left <= 0:
                break
            out.append((b, p[:left]))
            left -= len(p[:left])
        return out

    def pick(self, scored, belief):
        return super().pick(self._merged(scored), belief)

    def _merged(self, scored: list[Scored]) -> list[Scored]:
        """Shuffled batches back into one canonical-order group per block (for K)."""
        out = []
        for block in self.candidates.blocks:
            mine = [s for s in scored if s.block is block]
            if not mine:
                continue
            positions = np.concatenate([s.positions for s in mine])
            scores = np.concatenate([s.scores for s in mine])
            parts = None
            if all(s.parts is not None for s in mine):
                width = max(s.parts.shape[1] for s in mine)
                parts = np.concatenate([np.pad(s.parts, ((0, 0), (0, width - s.parts.shape[1])))
                                        for s in mine])
            order = np.argsort(positions, kind="stable")
            out.append(Scored(block, positions[order], scores[order],
                              None if parts is None else parts[order]))
        return out


class ISESSampledPartition(ISESSampled):
    """Sampled ISES by the sample's partition, a named variant: m states drawn by weight without
    replacement (all of them when there are at most m), and each sampled query scored
    by the entropy of its partition of those states, not of the whole set."""

    name = "ises-sampled-partition"
    posterior = False


def posterior_entropy(codes: np.ndarray, belief: Belief, states: np.ndarray) -> np.ndarray:
    """Per query (rows of `codes`, the feedback on every hypothesis of `belief`): the
    average, over the sampled `states` (positions in the belief), of the entropy (bits)
    of the set the state's feedback leaves: log2 of its size when uniform, else
    log2 M - sum p log2 p / M over its hypotheses, M their mass."""
    q, n = codes.shape
    _, labels = np.unique(codes, return_inverse=True)
    k = int(labels.max()) + 1 if labels.size else 1
    flat = (labels.reshape(q, n) + np.arange(q)[:, None] * k).ravel()
    if belief.uniform:
        size = np.bincount(flat, minlength=q * k).astype(np.float64)
        bits = np.log2(np.maximum(size, 1))
    else:
        p = np.tile(belief.probabilities(), q)
        mass = np.bincount(flat, weights=p, minlength=q * k)
        plogp = np.bincount(flat, weights=p * np.log2(np.maximum(p, 1e-300)), minlength=q * k)
        with np.errstate(divide="ignore", invalid="ignore"):
            bits = np.where(mass > 0, np.log2(np.maximum(mass, 1e-300)) - plogp / mass, 0.0)
    at = flat.reshape(q, n)[:, states]  # each sampled state's part, per query
    return bits[at].mean(axis=1)


__all__ = ["ISESSampled", "ISESSampledPartition", "posterior_entropy"]

"""Strategies: each chooses the next query for an information set.

Scoring strategies score every allowed query by its outcome partition and
take the best, with tie-break K (DESIGN §3): among equal scores prefer a
query that is still a possible secret, then the first in canonical order.

    entropy        ISES, exhaustive: maximise the expected information gain
    minimax        Knuth: minimise the largest part
    expected-size  Irving: minimise the sum of squared part sizes
    most-parts     Kooi: maximise the number of non-empty parts
    ises-sampled   Meng & Lucas' sampled ISES: m states and n queries sampled,
                   scored in batches until a wall-clock budget is spent
    ismcts         SO-ISMCTS, the baseline: determinised tree search, UCB1
    random, random-consistent

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
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from compiler.errors import SleuthError
from solver.belief import Belief
from solver.counted import CountedBelief, settle
from solver.queries import AnyBelief, Block, Candidates, Query, has_stop

FLOAT_TIE = 1e-12
SCORING_SHARE = 0.85  # of an ises-sampled budget spent scoring; the rest picks and returns
SAMPLING_SHARE = 0.4  # of it at most spent drawing states from a decision diagram
FIRST_BATCH = 16
ENTROPY_TIE = 1e-9  # near-ties of Σ n log n, then settled exactly


class Strategy:
    """Chooses the next query for a belief (subclasses say how)."""

    name = ""
    deterministic = True  # the same belief always gets the same query

    def __init__(self, candidates: Candidates, seed: int = 0):
        self.candidates = candidates
        self.seed = seed

    def choose(self, belief: AnyBelief) -> Query:
        raise NotImplementedError

    def prepared(self, belief: AnyBelief) -> AnyBelief:
        """The belief in the form this strategy works on: a counted belief small enough
        to list becomes an enumerated one."""
        return settle(belief)


# ----------------------------------------------------------------------------- scoring

@dataclass
class Scored:
    """Scores (lower is better) of some queries of one block."""

    block: Block
    positions: np.ndarray
    scores: np.ndarray
    parts: np.ndarray | None  # integer partitions, when exact refinement applies


class ScoringStrategy(Strategy):
    """Score every allowed query, keep the best; ties by K."""

    exact = False  # whether scores of uniform partitions are already exact integers

    def prepared(self, belief: AnyBelief) -> AnyBelief:
        # Exhaustive scoring lists a counted belief whenever the enumeration budget allows:
        # the kernels score far faster than one model count per query and feedback.
        if isinstance(belief, CountedBelief):
            return settle(belief, max(self.candidates.game.budget.max_hypotheses,
                                      belief.list_limit))
        return belief

    def choose(self, belief: AnyBelief) -> Query:
        belief = self.prepared(belief)
        if belief.size == 1:
            # Every query has one outcome: all scores tie and K decides.
            scored = [Scored(b, pos, np.zeros(len(pos)), None) for b in self.candidates.blocks
                      if len(pos := self.candidates.allowed(b, belief))]
            return pick_by_k(self.candidates, scored, belief)
        scored = [self.score_block(b, self.candidates.allowed(b, belief), belief)
                  for b in self.candidates.blocks]
        return self.pick([s for s in scored if len(s.positions)], belief)

    def score_block(self, block: Block, positions: np.ndarray, belief: AnyBelief) -> Scored:
        """Scores of the block's queries at `positions` against `belief` (the information
        set itself, or a sample of it)."""
        if not len(positions):
            return Scored(block, positions, np.zeros(0), None)
        if block.deterministic:
            parts = self.candidates.parts(block, positions, belief)
            return Scored(block, positions, self.score_parts(parts, belief.uniform, belief.size),
                          parts if belief.uniform else None)
        if isinstance(belief, CountedBelief):
            raise SleuthError(f"'{block.action.name}' has random answers, which are scored on "
                              f"listed hypotheses; this information set has {belief.size:,}",
                              hint="use --strategy ises-sampled, or the enumerated backend")
        w = belief.probabilities()
        scores = np.array([self.score_answers(self.candidates.answer_table(block, int(p), belief),
                                              w, belief.size) for p in positions])
        return Scored(block, positions, scores, None)

    def score_parts(self, parts: np.ndarray, uniform: bool, n: int) -> np.ndarray:
        raise NotImplementedError

    def score_answers(self, p: np.ndarray, w: np.ndarray, n: int) -> float:
        raise NotImplementedError

    def pick(self, scored: list[Scored], belief: AnyBelief) -> Query:
        if not scored:
            raise SleuthError("no legal query is allowed here",
                              hint="with --guesses consistent, a query must be a possible "
                                   "secret")
        best = min(float(s.scores.min()) for s in scored)
        tol = self.tolerance(scored, best)
        tied = [(s, np.flatnonzero(s.scores <= best + tol)) for s in scored]
        tied = self.refine([(s, t) for s, t in tied if len(t)])
        return pick_by_k(self.candidates, [
            Scored(s.block, s.positions[t], s.scores[t], None) for s, t in tied], belief)

    def tolerance(self, scored: list[Scored], best: float) -> float:
        if self.exact and all(s.parts is not None for s in scored):
            return 0.0
        return FLOAT_TIE * max(1.0, abs(best))

    def refine(self, tied: list[tuple[Scored, np.ndarray]]) -> list[tuple[Scored, np.ndarray]]:
        return tied


# Partition scores are on the scale of hypothesis counts: weighted parts (probability
# masses) and answer tables are scaled by n, so queries of both kinds compare.

class Minimax(ScoringStrategy):
    name = "minimax"
    exact = True

    def score_parts(self, parts, uniform, n):
        return parts.max(axis=1) if uniform else parts.max(axis=1) * n

    def score_answers(self, p, w, n):
        return float(max(((p > 0) @ w) * n))


class ExpectedSize(ScoringStrategy):
    name = "expected-size"
    exact = True

    def score_parts(self, parts, uniform, n):
        return (parts * parts).sum(axis=1) if uniform else (parts * parts).sum(axis=1) * n * n

    def score_answers(self, p, w, n):
        predictive = p @ w
        support = (p > 0) @ w
        return float((predictive * support).sum() * n * n)


class MostParts(ScoringStrategy):
    name = "most-parts"
    exact = True

    def score_parts(self, parts, uniform, n):
        return -(parts > 0).sum(axis=1)

    def score_answers(self, p, w, n):
        return -float(((p @ w) > 0).sum())


class Entropy(ScoringStrategy):
    """ISES: the query whose outcome carries the most expected information (bits)."""

    name = "entropy"

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


def pick_by_k(candidates: Candidates, tied: list[Scored], belief: AnyBelief) -> Query:
    """Tie-break K: the first possible secret in canonical order (in a spec whose queries
    cannot be secrets: the first query that can end the game), else the first query."""
    for prefer in (True, False):
        for s in tied:
            pos = s.positions
            if prefer:
                pos = pos[candidates.preferred(s.block, belief, pos)]
            if len(pos):
                return Query(s.block.action.name, int(s.block.ranks[pos[0]]))
    raise AssertionError("a tie group cannot be empty")


def nlogn(counts: np.ndarray) -> np.ndarray:
    """c log2 c elementwise for integer counts (0 for 0), by table lookup."""
    top = int(counts.max()) if counts.size else 0
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


# ----------------------------------------------------------------------------- sampled ISES

class ISESSampled(Entropy):
    """Meng & Lucas' sampled ISES: score sampled queries against sampled states.

    Per decision: draw m states from the belief (by weight, without
    replacement; all of them when there are at most m), shuffle the allowed
    queries and keep the first n, and score them by the entropy of their
    partition of the sampled states, batch after batch, until the queries run
    out or the wall-clock budget is spent (the first batch is always scored).
    Seeded: with a budget that is not reached the choice is reproducible.
    """

    name = "ises-sampled"
    deterministic = False

    def __init__(self, candidates: Candidates, seed: int = 0, states: int = 1000,
                 queries: int | None = None, budget: float = 0.1):
        super().__init__(candidates, seed)
        self.rng = np.random.default_rng(seed)
        self.states = states
        self.queries = queries
        self.budget = budget
        self.last_scored = 0  # queries scored in the last decision (for benchmarks)

    def prepared(self, belief: AnyBelief) -> AnyBelief:
        return settle(belief)  # listed only up to its list_limit: states are sampled

    def choose(self, belief: AnyBelief) -> Query:
        start = time.perf_counter()
        belief = self.prepared(belief)
        if belief.size == 1:
            self.last_scored = 0
            return super().choose(belief)  # every query ties: K decides, no scoring needed
        sample = self.sample_states(belief, start)
        order = [(b, self.rng.permutation(self.candidates.allowed(b, belief)))
                 for b in self.candidates.blocks]
        pool = [(b, p) for b, p in order if len(p)]
        if self.queries is not None:
            pool = self._limit(pool, self.queries)
        scored: list[Scored] = []
        deadline = start + SCORING_SHARE * self.budget
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
        """The states to score against, as a belief: all of them when there are at most m;
        else m drawn by weight without replacement (enumerated), or drawn uniformly from
        the diagram with replacement, within SAMPLING_SHARE of the budget (counted)."""
        if isinstance(belief, CountedBelief):
            return belief.sampled(self.states, int(self.rng.integers(2**63)),
                                  deadline=start + SAMPLING_SHARE * self.budget)
        if belief.size <= self.states:
            return belief
        p = None if belief.uniform else belief.probabilities()
        chosen = self.rng.choice(belief.size, size=self.states, replace=False, p=p)
        return Belief(belief.game, belief.index[np.sort(chosen)])

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


# ----------------------------------------------------------------------------- random

class RandomQuery(Strategy):
    """A uniformly random allowed query (seeded)."""

    name = "random"
    deterministic = False
    consistent_only = False

    def __init__(self, candidates: Candidates, seed: int = 0):
        super().__init__(candidates, seed)
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


# ----------------------------------------------------------------------------- SO-ISMCTS

class _Edge:
    __slots__ = ("visits", "reward", "children")

    def __init__(self) -> None:
        self.visits, self.reward = 0, 0.0
        self.children: dict[int, _Node] = {}  # feedback code -> information set


class _Node:
    """An information set of the search tree: its belief and the queries tried from it."""

    __slots__ = ("belief", "visits", "order", "edges")

    def __init__(self, belief: Belief) -> None:
        self.belief = belief
        self.visits = 0
        self.order: np.ndarray | None = None  # the allowed queries, in a random order
        self.edges: dict[int, _Edge] = {}  # index into `order` -> statistics


class ISMCTS(Strategy):
    """Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012), the
    baseline of Meng & Lucas' experiments.

    Each iteration determinises: one secret is drawn from the belief (by weight), and
    the tree is descended with it: UCB1 selects a query among those expanded at a node
    (progressive widening: ceil(2 sqrt(visits)) of its allowed queries, in a random
    order), the secret's feedback picks the child information set, and one new query
    is expanded per iteration. From there a rollout plays random queries (random
    possible secrets, where queries can be secrets) until the game ends or 50 queries
    pass. The reward is 1 / (queries from the root to the end), 0 when unfinished.
    Iterations run until 85 % of the wall-clock budget (or a fixed number of them, for
    reproducible runs); the most visited query is played (ties by K). Seeded.
    """

    name = "ismcts"
    deterministic = False
    ROLLOUT_CAP = 50

    def __init__(self, candidates: Candidates, seed: int = 0, budget: float = 0.1,
                 exploration: float = 0.7, states: int = 1000, iterations: int | None = None):
        super().__init__(candidates, seed)
        self.rng = np.random.default_rng(seed)
        self.budget = budget
        self.iterations = iterations  # a fixed count instead of the clock: reproducible
        self.exploration = exploration
        self.states = states
        self.stop_game = has_stop(candidates.game)
        self.identify = candidates.game.model.identify
        self.pool = [(b, p) for b in candidates.blocks if b.deterministic
                     for p in range(len(b.ranks))]
        self.secret_blocks = [b for b in candidates.blocks if b.secret_like and b.deterministic]
        self.last_iterations = 0

    def choose(self, belief: AnyBelief) -> Query:
        start = time.perf_counter()
        belief = self.prepared(belief)
        if isinstance(belief, CountedBelief):  # determinisations drawn from the diagram
            belief = belief.sampled(self.states, int(self.rng.integers(2**63)),
                                    deadline=start + SAMPLING_SHARE * self.budget)
        root = _Node(belief)
        self._expand(root)
        if not root.order:
            raise SleuthError("ismcts searches over queries with deterministic feedback; none "
                              "is allowed here",
                              hint="use entropy or ises-sampled for queries with random answers")
        if belief.size == 1 or len(root.order) == 1:
            return self._best(range(len(root.order)), root)
        iterations = 0
        while not iterations or (
                iterations < self.iterations if self.iterations is not None
                else time.perf_counter() < start + SCORING_SHARE * self.budget):
            self._iterate(root)
            iterations += 1
        self.last_iterations = iterations
        most = max(e.visits for e in root.edges.values())
        return self._best([i for i, e in root.edges.items() if e.visits == most], root)

    def _best(self, tied: Iterable[int], root: _Node) -> Query:
        """Among the root's queries at these indices, the one K prefers."""
        by_block: dict[int, list[int]] = {}
        for i in tied:
            block, pos = root.order[i]
            by_block.setdefault(id(block), []).append(pos)
        scored = [Scored(b, np.array(sorted(by_block[id(b)])), np.zeros(len(by_block[id(b)])),
                         None) for b in self.candidates.blocks if id(b) in by_block]
        return pick_by_k(self.candidates, scored, root.belief)

    def _expand(self, node: _Node) -> None:
        if node.order is None:
            allowed = [(b, p) for b in self.candidates.blocks if b.deterministic
                       for p in self.candidates.allowed(b, node.belief).tolist()]
            node.order = [allowed[i] for i in self.rng.permutation(len(allowed))]

    def _query(self, block: Block, pos: int) -> Query:
        return Query(block.action.name, int(block.ranks[pos]))

    def _iterate(self, root: _Node) -> None:
        b = root.belief
        secret = int(b.index[self.rng.choice(b.size, p=None if b.uniform
                                             else b.probabilities())])
        node, path, steps, finished = root, [], 0, False
        while True:
            if not self.stop_game and node.belief.determined(self.identify):
                finished = True
                break
            self._expand(node)
            width = min(len(node.order), math.ceil(2 * math.sqrt(node.visits + 1)))
            new = next((i for i in range(width) if i not in node.edges), None)
            i = new if new is not None else self._ucb(node, width)
            edge = node.edges.setdefault(i, _Edge())
            path.append((node, edge))
            query = self._query(*node.order[i])
            codes = self.candidates.query_codes(query, node.belief)
            code = int(codes[np.searchsorted(node.belief.index, secret)])
            steps += 1
            if self.stop_game and self.candidates.stops(query, code):
                finished = True
                break
            child = edge.children.get(code)
            if child is None:
                child = edge.children[code] = _Node(node.belief.restrict(codes == code, "fb"))
            node = child
            if new is not None:
                break
        if not finished:
            more = self._rollout(node.belief, secret)
            finished, steps = more is not None, steps + (more or 0)
        reward = 1.0 / steps if finished and steps else 0.0
        for n, e in path:
            n.visits += 1
            e.visits += 1
            e.reward += reward

    def _ucb(self, node: _Node, width: int) -> int:
        log_n = math.log(max(node.visits, 1))
        best, best_i = -math.inf, 0
        for i in range(width):
            e = node.edges[i]
            value = e.reward / e.visits + self.exploration * math.sqrt(log_n / e.visits)
            if value > best:
                best, best_i = value, i
        return best_i

    def _rollout(self, belief: Belief, secret: int) -> int | None:
        """Queries a random policy needs to finish against `secret` (None: over the cap)."""
        for steps in range(1, self.ROLLOUT_CAP + 1):
            if not self.stop_game and belief.determined(self.identify):
                return steps - 1
            query = None
            if self.secret_blocks:  # a random possible secret, asked as a query
                rank = int(belief.game.hypotheses.ranks[belief.index[
                    self.rng.integers(belief.size)]])
                for b in self.secret_blocks:
                    pos = int(np.searchsorted(b.ranks, rank))
                    if pos < len(b.ranks) and b.ranks[pos] == rank:
                        query = Query(b.action.name, rank)
                        break
            if query is None:
                block, pos = self.pool[int(self.rng.integers(len(self.pool)))]
                query = self._query(block, pos)
            codes = self.candidates.query_codes(query, belief)
            code = int(codes[np.searchsorted(belief.index, secret)])
            if self.stop_game and self.candidates.stops(query, code):
                return steps
            belief = belief.restrict(codes == code, "fb")
        return None


STRATEGIES: dict[str, type[Strategy]] = {
    s.name: s for s in (Entropy, ISESSampled, Minimax, ExpectedSize, MostParts, RandomQuery,
                        RandomConsistent, ISMCTS)}


def make_strategy(name: str, candidates: Candidates, seed: int = 0, **options) -> Strategy:
    """A strategy by name (options: states, queries, budget for ises-sampled)."""
    if name not in STRATEGIES:
        from compiler.errors import did_you_mean

        raise SleuthError(f"unknown strategy '{name}'",
                          hint=did_you_mean(name, STRATEGIES)
                          or f"one of {', '.join(STRATEGIES)}")
    cls = STRATEGIES[name]
    if cls is ISESSampled:
        return ISESSampled(candidates, seed, **options)
    if cls is ISMCTS:
        return ISMCTS(candidates, seed, **{k: v for k, v in options.items()
                                           if k in ("budget", "states", "iterations")})
    if name == "random-consistent" and not candidates.any_secret_like:
        raise SleuthError("random-consistent needs a query that can be a secret (arguments "
                          "with the secret variables' domains); this spec has none",
                          hint="use random")
    return cls(candidates, seed)


__all__ = ["ISMCTS", "STRATEGIES", "Entropy", "ExpectedSize", "ISESSampled", "Minimax",
           "MostParts",
           "RandomConsistent", "RandomQuery", "Strategy", "make_strategy",
           "mutual_information"]

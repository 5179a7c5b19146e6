"""SO-ISMCTS, the baseline of Meng & Lucas' experiments."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.goals import goal_reached
from sleuth.solver.infoset.queries import AnyBelief, Block, Candidates, Query, has_stop
from sleuth.solver.strategies.base import FixedWork, Option, Scored, Strategy, pick_by_k
from sleuth.solver.strategies.sampled import SAMPLING_SHARE, SCORING_SHARE


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


class ISMCTS(FixedWork, Strategy):
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

    follows_history = False  # its searches ask queries the history rule may forbid

    name = "ismcts"
    deterministic = False
    ROLLOUT_CAP = 50

    budget = Option(float, 0.1, "seconds per decision", minimum=0, open_min=True)
    states = Option(int, 1000, "determinisations drawn from a counted belief", minimum=1)
    exploration = Option(float, 0.7, "UCB1 exploration constant", minimum=0)

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        self.rng = np.random.default_rng(seed)
        self.stop_game = has_stop(candidates.game)
        self.game = candidates.game
        self.pool = [(b, p) for b in candidates.blocks if b.deterministic
                     for p in range(len(b.ranks))]
        self.secret_blocks = [b for b in candidates.blocks if b.secret_like and b.deterministic]
        self.last_iterations = self.last_states = 0

    def work(self) -> dict[str, int]:
        return {"iterations": self.last_iterations, "states": self.last_states}

    def choose(self, belief: AnyBelief) -> Query:
        start = time.perf_counter()
        self.last_iterations = 0
        fixed = self.fixed_work(belief)
        belief = self.prepared(belief)
        # a listed belief itself; a counted one, determinisations drawn from the counter
        belief = belief.determinisations(self.states, self.rng, deadline=None if (
            fixed is not None) else start + SAMPLING_SHARE * self.budget)
        self.last_states = belief.size
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
                iterations < fixed if fixed is not None
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
            if not self.stop_game and goal_reached(node.belief, self.game):
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
            if not self.stop_game and goal_reached(belief, self.game):
                return steps - 1
            query = None
            if self.secret_blocks:  # a random possible secret, asked as a query
                rank = int(belief.game.hypotheses.ranks[belief.index[
                    self.rng.integers(belief.size)]])
                for b in self.secret_blocks:
                    pos = int(b.positions_of(np.array([rank]))[0])
                    if pos >= 0:
                        query = self._query(b, pos)
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

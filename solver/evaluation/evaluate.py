"""Exact evaluation of a strategy over every secret, by recursion over partitions.

The strategy is asked once per information set, not once per secret: the
root belief is split by the chosen query's feedback, and each part is solved
recursively. A secret's game length is the depth at which it finishes,
counted by the convention of design §3: with `stop_when`, up to and
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

from sleuth.compiler.api import TURN, Game, SleuthError, option, said, show_value
from sleuth.solver.evaluation.cluster import Recipe, Workers
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.cover import Cover
from sleuth.solver.infoset.goals import goal_reached
from sleuth.solver.infoset.queries import AnyBelief, Query, Stopper, has_stop
from sleuth.solver.infoset.rounds import RoundRule
from sleuth.solver.strategies import Strategy
from sleuth.solver.wording import counted

MAX_DEPTH = 1000
SPLIT_DEPTH = 1  # with workers, the subtrees this many queries down are walked on them
DEFERRED = "deferred"  # a tree entry's mark while its subtree is with a worker


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
    tree: dict[str, Any] | None = None  # the decision tree, when asked for (trees.py)
    rounds: dict[int, int] = field(default_factory=dict)  # rounds used (a game in rounds)

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
        if self.rounds:  # scored by rounds first; the worst game is the most rounds, then
            games = [(self.rounds[h], n) for h, n in self.lengths.items()]  # queries
            total = sum(self.rounds.values())
            out["rounds"] = {"total": total, "average": total / self.secrets,
                             "average_fraction": str(Fraction(total, self.secrets)),
                             "worst": max(self.rounds.values()),
                             "worst_game": dict(zip(("rounds", "queries"), max(games),
                                                    strict=True)),
                             "histogram": {str(k): v for k, v in sorted(
                                 Counter(self.rounds.values()).items())}}
        if self.weights:
            w = sum(self.weights.values())
            out["expected"] = sum(self.weights[h] * n for h, n in self.lengths.items()) / w
        return out


Observer = Callable[[int, float, np.ndarray], None]


def evaluate_strategy(game: Game, strategy: Strategy, spec: str, secrets: int | None = None,
                      seed: int = 0, progress: Callable[[int], None] | None = None,
                      root: AnyBelief | None = None,
                      observer: Observer | None = None, tree: bool = False,
                      workers: Workers | None = None,
                      recipe: Recipe | None = None,
                      first: Query | None = None) -> Evaluation:
    """Play every secret (or `secrets` of them, seeded) against `strategy`, as one tree.
    `root` is the starting belief (default: the enumerated prior; a CountedBelief
    evaluates on the symbolic backend). `observer(depth, entropy_bits, keys)` hears the
    information set's entropy after `depth` queries for the secrets (keys as in
    `Evaluation.lengths`) whose games reach it, down to the query that ends each.
    With `workers` (and the `recipe` that builds this game and strategy again), the
    strategy's own search is split over them if it can (`Strategy.share`); otherwise
    the subtrees SPLIT_DEPTH queries down are walked on the workers. The result is the
    serial one. `first`, when given, is the first query (an opener forced on the
    strategy, which chooses every later one)."""
    if game.model.lies is not None:  # the answers may lie: a tree of lie states
        from sleuth.solver.evaluation.lying import evaluate_with_lies

        if secrets is not None or first is not None or workers is not None:
            raise SleuthError("a game with lies is evaluated whole, on one core",
                              hint=f'drop {option("secrets")}, {option("first")} and '
                                   f'{option("workers")}')
        return evaluate_with_lies(game, strategy, spec, tree, progress)
    start = time.perf_counter()
    root = strategy.prepared(Belief.prior(game) if root is None else root)
    ranks, keys = root.secrets(secrets, seed)
    relay = None if observer is None else (
        lambda depth, bits, targets: observer(depth, bits, keys[targets]))
    walker = _Walker(game, strategy, Stopper(game), progress, ranks, relay)
    walker.record = tree
    walker.first = first
    if workers is not None:
        if game.model.rounds is not None:
            raise SleuthError("a game in rounds is evaluated on one core (its rounds follow "
                              "each whole game)", hint='drop '
                                                       f'{option("workers")}/{option("scheduler")}')
        if recipe is None or observer is not None or root.listing() is not root:
            raise SleuthError("a split evaluation needs the enumerated backend and a recipe, "
                              "and no observer", hint='drop '
                                                      f'{option("workers")}/{option("scheduler")}')
        if not strategy.share(workers, recipe):
            if not strategy.deterministic:
                raise SleuthError(f"{strategy.name} draws random numbers as it plays: split "
                                  "over workers its choices would differ from a serial run",
                                  hint=f'drop {option("workers")}/{option("scheduler")} for this '
                                       'strategy')
            walker.split = SPLIT_DEPTH
    first = walker.walk(root, np.arange(len(ranks), dtype=np.int64), 0)
    if walker.deferred:
        walker.run_deferred(workers, recipe)
    lengths = {int(keys[t]): n for t, n in walker.lengths.items()}
    c = strategy.candidates
    weights = {} if game.model.prior is None else {
        int(k): float(w) for k, w in zip(keys, root.prior_weights(ranks), strict=True)}
    rounds = {int(keys[t]): n for t, n in walker.rounds.items()}
    return Evaluation(spec, strategy.name, c.guesses, lengths,
                      c.shown(first) if first else {}, time.perf_counter() - start,
                      weights, walker.nodes.get(0) if tree else None, rounds)


def _distinct(codes: np.ndarray) -> list[int]:
    """The distinct codes, ascending. A set is faster than np.unique below a thousand (one
    code: 0.2 us against 1.7 us; a node of the walk has a few secrets most often)."""
    return sorted(set(codes.tolist())) if len(codes) <= 1024 else np.unique(codes).tolist()


def _goal_json(game: Game, belief: AnyBelief) -> dict[str, Any]:
    """The goal variables' values of a belief whose goal is reached."""
    top = belief.top(1)[0][0]
    return {name: show_value(top[name]) for name in game.model.identify}


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
        self.record = False  # build the decision tree (self.nodes[0] is its root)
        self.nodes: dict[int, dict[str, Any]] = {}
        self.split: int | None = None  # the depth whose subtrees are left to workers
        # (index, targets, depth, the queries asked on the way: history rules need them)
        self.deferred: list[tuple[np.ndarray, np.ndarray, int, tuple]] = []
        self.slots: list[dict[str, Any]] = []  # the tree's entries the workers fill
        self.first: Query | None = None  # the query at the root, if it is given
        self.rule = RoundRule(strategy.candidates) if RoundRule.applies(
            strategy.candidates) else None
        self.rounds: dict[int, int] = {}  # a game in rounds: the rounds each target used

    def run_deferred(self, workers: Workers, recipe: Recipe) -> None:
        """Walk the deferred subtrees on the workers, largest first; merge their lengths
        and trees."""
        order = sorted(range(len(self.deferred)), key=lambda k: -len(self.deferred[k][1]))
        tasks = [(recipe, self.deferred[k][0], self.ranks[self.deferred[k][1]],
                  self.deferred[k][2], self.record, self.deferred[k][3]) for k in order]

        def done(i: int, result: tuple[list[int], dict[str, Any] | None]) -> None:
            targets = self.deferred[order[i]][1]
            for t, n in zip(targets.tolist(), result[0], strict=True):
                self.lengths[t] = n
            if self.record:
                self.slots[order[i]].update(result[1] or {})
            if self.progress:
                self.progress(len(targets))

        workers.map(walk_part, tasks, done)

    def finish(self, targets: np.ndarray, depth: int, history: tuple = ()) -> None:
        """The targets' games end after `depth` queries, the `history` asked."""
        for t in targets.tolist():
            self.lengths[t] = depth
        if self.rule is not None:
            rounds, _ = self.rule.of_history(history)
            self.rounds.update(dict.fromkeys(targets.tolist(), rounds))
        if self.progress:
            self.progress(len(targets))

    def walk(self, belief: AnyBelief, targets: np.ndarray, depth: int) -> Query | None:
        """Solve the subtree at `belief` for `targets`; returns the query chosen here."""
        belief = self.strategy.prepared(belief)
        if depth == self.split:
            self.deferred.append((belief.index, targets, depth, belief.history))
            self.nodes[depth] = {DEFERRED: len(self.deferred) - 1}
            return None
        if self.observer:
            self.observer(depth, belief.entropy_bits(), targets)
        if not self.stop_game and goal_reached(belief, self.game):
            forced = [] if self.game.model.cover is None else Cover.of(self.game).forced(belief)
            self.finish(targets, depth + len(forced), belief.history)
            if self.record:
                self.nodes[depth] = {"secrets": len(targets), "solved": _goal_json(
                    self.game, belief)}
                if forced:  # goal: {cover}: the queries still to ask, known by now
                    self.nodes[depth]["then"] = [self.strategy.candidates.shown(q)
                                                 for q in forced]
            return None
        bound = self.game.model.max_queries
        if depth >= MAX_DEPTH or (bound is not None and depth >= bound):
            raise SleuthError(
                f"{counted(len(targets), 'secret')} still unsolved after {counted(depth, 'query')} "
                f"(strategy {self.strategy.name})",
                hint="the strategy may be unable to separate the remaining hypotheses"
                if depth >= MAX_DEPTH else f"the goal's max_queries ends a game after {bound}; "
                f'raise it to evaluate longer games ({option("set")}, when it names a param)')
        if depth == 0 and self.first is not None:
            query = self.first
            self.strategy.opened(belief, query)
        else:
            query = self.strategy.choose(belief)
        action = self.game.model.action(query.action)
        if action.feedback is None:
            raise SleuthError(
                f"the strategy chose '{query.action}', whose answer is random; exact "
                "evaluation enumerates deterministic feedback only",
                hint="simulate games with random answers: " + said(
                    "`sleuth bench SPEC --trials N` (or one: `sleuth solve SPEC --random-secret "
                    "--seed N`)", "sleuth.simulate(game, strategy, seed=N), one per seed"))
        timed = action.timed
        if timed and self.strategy.candidates.args(query)[TURN] != depth + 1:
            raise SleuthError(f"strategy {self.strategy.name} chose a query of turn "
                              f"{self.strategy.candidates.args(query)[TURN]} as query "
                              f"{depth + 1}", hint="this is a bug in Sleuth; please report it")
        earlier = [(r, c) for a, r, c in belief.history if a == query.action] \
            if action.history else []  # (no rule: nothing to check)
        if earlier and not self.game.history_allows(query.action, np.array([query.rank]),
                                                    earlier)[0]:
            raise SleuthError(
                f"strategy {self.strategy.name} chose {query.action} "
                f"{self.strategy.candidates.args(query)}, which breaks the action's history "
                "rule against an earlier query", hint="the spec's `history:` says what each "
                                                      "query must keep of the earlier ones")
        branch = belief.branch(query, self.strategy.candidates)
        target_codes = branch.codes(self.ranks[targets])
        children = ((code, lambda code=code: branch.child(code))
                    for code in _distinct(target_codes))
        keep = self.record or self.split is not None  # the tree, or its deferred places
        node: dict[str, Any] = {"query": self.strategy.candidates.shown(query),
                                "secrets": len(targets), "branches": []} if self.record \
            else {"branches": []}
        coder = self.game.coder(query.action) if keep else None
        # (under a cover goal a query not asked before is progress, split or not: the
        # cover may need it)
        needed = self.game.model.cover is not None and all(
            (a, r) != (query.action, query.rank) for a, r, _ in belief.history)
        for code, child in children:
            mine = targets[target_codes == code]
            feedback = {k: show_value(v) for k, v in coder.decode(code).items()} \
                if keep else {}
            if self.stop_game and self.stops(query, code):
                if self.observer:
                    self.observer(depth + 1, child().entropy_bits(), mine)
                self.finish(mine, depth + 1,
                            belief.history + ((query.action, query.rank, code),))
                if keep:
                    node["branches"].append({"feedback": feedback, "end": True,
                                             "secrets": len(mine)})
                continue
            after = child()
            # (a query that reads the turn may tell nothing now and still move the game on:
            # the turn's bound, max_queries, ends it)
            if after.size == belief.size and self.strategy.deterministic and not timed \
                    and not needed:
                raise SleuthError(
                    f"strategy {self.strategy.name} makes no progress: "
                    f"{query.action} {self.strategy.candidates.args(query)} does not split "
                    f"{belief.size} remaining hypotheses",
                    hint="these hypotheses may be indistinguishable by any query")
            self.walk(after, mine, depth + 1)
            if keep:
                entry = {"feedback": feedback, **self.nodes.pop(depth + 1, {})}
                if DEFERRED in entry:
                    self.slots.append(entry)  # in the order deferred
                    del entry[DEFERRED]
                node["branches"].append(entry)
        if self.record:
            self.nodes[depth] = node
        return query


def walk_part(recipe: Recipe, index: np.ndarray, ranks: np.ndarray, depth: int,
              record: bool, history: tuple = ()) -> tuple[list[int], dict[str, Any] | None]:
    """A worker's task: walk the subtree at the prior's hypotheses `index` (reached
    after `depth` queries, the `history` asked on the way) for the secrets `ranks`;
    their lengths, and the subtree."""
    with recipe.built() as (game, strategy):
        prior = Belief.prior(game)
        part = prior.restrict(np.isin(prior.index, index), "a deferred part of the tree")
        belief = Belief(game, part.index, part.logw, history)
        walker = _Walker(game, strategy, Stopper(game), None, ranks)
        walker.record = record
        walker.walk(belief, np.arange(len(ranks), dtype=np.int64), depth)
        return [walker.lengths[t] for t in range(len(ranks))], walker.nodes.get(depth)


__all__ = ["Evaluation", "Stopper", "evaluate_strategy", "has_stop"]

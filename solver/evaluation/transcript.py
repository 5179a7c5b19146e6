"""One game against a known secret: the strategy asks, the spec answers.

Deterministic feedback is computed by the kernels; a `response` is drawn
from P(answer | secret) with a seeded generator, as the spec's responder
would answer. The game ends by the counting convention of design §3
(`stop_when` satisfied, or the goal variables determined), or after
`max_steps` queries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sleuth.compiler.api import (
    Game,
    ObservationError,
    SleuthError,
    answer_matrix,
    answer_value,
    coerce,
    domain_size,
    rank_of,
    show_value,
)
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.cover import Cover
from sleuth.solver.infoset.goals import ambiguous, goal_reached, goal_values
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.infoset.queries import AnyBelief, Query, Stopper, has_stop
from sleuth.solver.infoset.rounds import RoundRule
from sleuth.solver.strategies import Strategy

SECRET_STREAM = 1  # a secret drawn at random comes from seed stream (seed, 1)


@dataclass
class Step:
    event: Event
    remaining: int
    entropy_bits: float
    information_bits: float
    work: dict[str, int] | None = None  # what the strategy's decision did (Strategy.work)

    def to_json(self) -> dict[str, Any]:
        out = {**self.event.to_data(), "remaining": self.remaining,
               "entropy_bits": self.entropy_bits, "information_bits": self.information_bits}
        return {**out, "work": self.work} if self.work else out


@dataclass
class Transcript:
    secret: dict[str, Any]
    start_hypotheses: int
    start_entropy_bits: float
    steps: list[Step] = field(default_factory=list)
    solved: bool = False
    # goal: {confidence}: the goal's most likely value at the end, and its posterior
    guess: dict[str, Any] | None = None
    posterior: float | None = None
    # goal: {until_indistinguishable}: how many goal values were left when no query could
    # tell them apart (1: the secret was identified)
    left: int = 1
    rounds: list[int] | None = None  # a game in rounds (`rounds:`): each step's round

    @property
    def round_count(self) -> int | None:
        return None if self.rounds is None else (self.rounds[-1] if self.rounds else 0)

    @property
    def correct(self) -> bool | None:
        """Whether the final guess is the secret's (None without a confidence goal)."""
        if self.guess is None:
            return None
        return all(self.secret[k] == v for k, v in self.guess.items())

    def to_json(self) -> dict[str, Any]:
        out = {"secret": {k: show_value(v) for k, v in self.secret.items()},
               "hypotheses": self.start_hypotheses,
               "entropy_bits": self.start_entropy_bits, "queries": len(self.steps),
               "solved": self.solved, "steps": [s.to_json() for s in self.steps]}
        if self.rounds is not None:
            out["rounds"] = self.round_count
            for step, r in zip(out["steps"], self.rounds, strict=True):
                step["round"] = r
        if self.left > 1:
            out["indistinguishable"] = self.left
        if self.guess is not None:
            out.update(guess={k: show_value(v) for k, v in self.guess.items()},
                       posterior=self.posterior, correct=self.correct)
        return out


def secret_values(game: Game, secret: Any) -> dict[str, Any]:
    """A secret given as data (a mapping of its variables' values as the spec writes them,
    or one value when it has one variable) checked against its domains."""
    variables = game.model.secret
    names = [v.name for v in variables]
    if not isinstance(secret, dict):
        if len(names) != 1:
            raise ObservationError(f"this secret has {len(names)} variables: give a mapping "
                                   "of each one's value", hint=f"its variables: {', '.join(names)}")
        secret = {names[0]: secret}
    for k in secret:
        if k not in names:
            raise ObservationError(f"the secret has no variable '{k}'",
                                   hint=f"its variables: {', '.join(names)}")
    values = {}
    for v in variables:
        if v.name not in secret:
            raise ObservationError(f"the secret needs a value for '{v.name}' "
                                   f"({v.domain.describe()})")
        try:
            values[v.name] = coerce(v.domain, secret[v.name])
        except ValueError as err:
            raise ObservationError(f"the secret's {v.name}: {err}",
                                   hint=f"a value of {v.domain.describe()}") from None
    return values


def locate_secret(game: Game, values: dict[str, Any], listed: bool = True) -> tuple[Game, int]:
    """The game whose hypothesis table holds the secret `values` and its index there: the
    game itself, or (when the hypotheses are not `listed`) a one-hypothesis table."""
    if listed:
        return game, hypothesis_index(game, values)
    rank = hypothesis_rank(game, values)
    if not game.consistent(np.array([rank], dtype=np.int64))[0]:
        raise ObservationError("that secret violates the spec's constraints",
                               hint="it is not one of the hypotheses")
    return game.restricted(np.array([rank], dtype=np.int64)), 0


def hypothesis_rank(game: Game, values: dict[str, Any]) -> int:
    """Rank in the product of the secret's domains of a secret given as plain values."""
    rank = 0
    for v in game.model.secret:
        value = coerce(v.domain, values[v.name])
        rank = rank * domain_size(v.domain) + rank_of(v.domain, value)
    return rank


def hypothesis_index(game: Game, values: dict[str, Any]) -> int:
    """Index in the hypothesis table of a secret given as plain values."""
    rank = hypothesis_rank(game, values)
    table = game.hypotheses.ranks
    pos = int(np.searchsorted(table, rank))
    if pos >= len(table) or table[pos] != rank:
        raise ObservationError("that secret violates the spec's constraints",
                               hint="it is not one of the hypotheses")
    if game.model.prior is not None and game.prior[pos] == 0:
        raise ObservationError("that secret has prior probability 0")
    return pos


def outcome(game: Game, query: Query, args: dict[str, Any], secret: int,
            rng: np.random.Generator) -> Event:
    """The feedback (or a sampled answer) the secret gives to a query."""
    action = game.model.action(query.action)
    index = np.array([secret], dtype=np.int64)
    if action.feedback is not None:
        code = int(game.feedback_matrix(query.action, np.array([query.rank]), index)[0, 0])
        return Event(query.action, args, feedback=game.coder(query.action).decode(code))
    ranks, p = answer_matrix(game, query.action, args, index)
    if not len(ranks):
        raise SleuthError(f"the secret has no legal, valid answer to {query.action} {args}")
    k = int(rng.choice(len(ranks), p=p[:, 0] / p[:, 0].sum()))
    return Event(query.action, args, answer=answer_value(game, query.action, int(ranks[k])))


def play_secret(game: Game, strategy: Strategy, secret: int, seed: int = 0,
                max_steps: int = 100, progress: Callable[[int], None] | None = None,
                root: AnyBelief | None = None, secret_game: Game | None = None) -> Transcript:
    """The strategy's game against hypothesis `secret` of `secret_game` (default: the game),
    step by step from `root` (default: the enumerated prior; `progress(k)` before query k)."""
    rng = np.random.default_rng(seed)
    belief = Belief.prior(game) if root is None else root
    secret_game = secret_game or game
    stop, stops = has_stop(game), Stopper(game)
    limit = min(max_steps, game.model.max_queries or max_steps)
    t = Transcript(secret_game.hypotheses.value(secret), belief.size, belief.entropy_bits())
    rule = RoundRule(strategy.candidates) if RoundRule.applies(strategy.candidates) else None
    state: Any = None  # the round in progress
    if rule is not None:
        t.rounds = []
    while len(t.steps) < limit:
        if not stop and goal_reached(belief, game):
            t.solved = True
            if game.model.cover is not None:  # the queries the goal still needs, known
                for query in Cover.of(game).forced(belief):
                    event = outcome(secret_game, query, strategy.candidates.args(query),
                                    secret, rng)
                    after = apply_event(belief, event)
                    t.steps.append(Step(event, after.size, after.entropy_bits(),
                                        after.kl_bits(belief)))
                    belief = after
            break
        if progress:
            progress(len(t.steps) + 1)
        query = strategy.choose(belief)
        event = outcome(secret_game, query, strategy.candidates.args(query), secret, rng)
        after = apply_event(belief, event)
        if rule is not None and t.rounds is not None:
            opened, state = rule.step(state, rule.key(query.action, query.rank))
            t.rounds.append((t.round_count or 0) + opened)
        t.steps.append(Step(event, after.size, after.entropy_bits(), after.kl_bits(belief),
                            strategy.work() or None))
        belief = strategy.prepared(after)
        if stop and event.feedback is not None and stops(
                query, game.coder(query.action).encode(event.feedback)):
            t.solved = True
            break
    else:
        t.solved = not stop and goal_reached(belief, game)
    if game.model.confidence is not None:
        t.guess, t.posterior = belief.goal_posterior(game.model.identify)
    elif t.solved and ambiguous(belief, game):
        t.left = goal_values(belief, game)
    return t


__all__ = ["SECRET_STREAM", "Step", "Transcript", "hypothesis_index", "hypothesis_rank",
           "locate_secret", "outcome", "play_secret", "secret_values"]

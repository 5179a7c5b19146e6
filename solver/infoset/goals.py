"""When a game is over: the goal reached (one possible value, a confident one, or nothing
left that a query can tell apart), or a feedback that satisfies `stop_when`."""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import Game
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.queries import Candidates, Query, Stopper, has_stop


def goal_reached(belief: InformationSet, game: Game) -> bool:
    """Whether a game without stop_when is over: the goal variables have one possible value,
    or (goal: {confidence: c}) their most likely value has posterior c at least, or (goal:
    {until_indistinguishable: true}) no legal query can tell the remaining hypotheses
    apart; or (goal: {cover}) the hypotheses left agree on the queries it names, the rest
    of the game being those not asked yet (cover.py)."""
    model = game.model
    if model.cover is not None:
        from sleuth.solver.infoset.cover import Cover

        return Cover.of(game).settled(belief)
    if model.confidence is not None:
        return belief.goal_posterior(model.identify)[1] >= model.confidence - 1e-12
    if belief.determined(model.identify):
        return True
    return model.until_indistinguishable and not game.memo.get(
        ("candidates",), lambda: Candidates(game)).splits(belief)


def goal_classes(game: Game) -> np.ndarray:
    """One id per hypothesis of the game's table: equal ids have the same goal values
    (what the exact searches call a game over: one id left)."""
    from sleuth.solver.infoset.belief import Belief

    every = Belief(game, np.arange(game.hypotheses.size, dtype=np.int64))
    cols = _flat([every.values(name) for name in game.model.identify])
    keys = np.stack([np.asarray(c).reshape(len(every.index)) for c in cols], axis=1)
    _, classes = np.unique(keys, axis=0, return_inverse=True)
    return classes.ravel()


def _flat(cols: list[Any]) -> list[np.ndarray]:
    """Columns of values, tuples of columns (sequences, records) opened up."""
    out = []
    for c in cols:
        if isinstance(c, tuple | list):
            out.extend(_flat(list(c)))
        else:
            out.append(np.asarray(c))
    return out


def ended(game: Game, belief: InformationSet, last: Any, stops: Stopper | None = None) -> bool:
    """Whether a game is over at `belief`, reached by the event `last` (None: no event
    yet): with `stop_when`, when the last feedback satisfies it; otherwise when the goal
    is reached."""
    if not has_stop(game):
        return goal_reached(belief, game)
    if last is None or last.feedback is None:
        return False
    rank = game.space(last.action).rank(last.args)
    code = game.coder(last.action).encode(last.feedback)
    return (stops or Stopper(game))(Query(last.action, rank), code)


def ambiguous(belief: InformationSet, game: Game) -> bool:
    """Whether a game that is over still has several possible goal values (it ended
    because no query could tell them apart)."""
    return game.model.confidence is None and game.model.cover is None and \
        not belief.determined(game.model.identify)


def goal_values(belief: InformationSet, game: Game) -> int:
    """How many joint values the goal variables still have (a belief small enough to list
    its hypotheses: one whose game is over)."""
    names = game.model.identify
    return len({tuple(repr(h[n]) for n in names) for h, _ in belief.top(belief.size)})


__all__ = ["ambiguous", "ended", "goal_classes", "goal_reached", "goal_values"]

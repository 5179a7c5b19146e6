"""Whether a query's feedback ends the game: the goal's `stop_when`, read per code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sleuth.compiler.api import Game, interpret, ir

if TYPE_CHECKING:
    from sleuth.solver.infoset.queries import Query


class Stopper:
    """Whether a query's feedback (by code) satisfies the goal's `stop_when`."""

    def __init__(self, game: Game):
        self.game = game
        self.cache: dict[tuple[str, int, int], bool] = {}
        self.reading: dict[str, bool] = {}  # reads_args per action

    def __call__(self, query: Query, code: int) -> bool:
        action = self.game.model.action(query.action)
        if action.stop_when is None:
            return False
        rank = query.rank if self.reads_args(query.action) else -1
        key = (query.action, rank, code)
        if key not in self.cache:
            env = dict(self.game.space(query.action).value(rank)) if rank >= 0 else {}
            feedback = self.game.coder(query.action).decode(code)
            for name, uid, _ in action.feedback or []:
                env[uid] = feedback[name]
            self.cache[key] = bool(interpret(action.stop_when, env))
        return self.cache[key]

    def reads_args(self, action_name: str) -> bool:
        """Whether the action's `stop_when` reads the query's arguments (else it depends
        on the feedback alone)."""
        got = self.reading.get(action_name)
        if got is None:
            action = self.game.model.action(action_name)
            got = self.reading[action_name] = (action.stop_when is not None
                                               and _uses_args(action.stop_when))
        return got


def _uses_args(node: ir.Node) -> bool:
    if isinstance(node, ir.Name) and node.ref is not None and node.ref[0] == "arg":
        return True
    return any(_uses_args(c) for c in ir.children(node))


def has_stop(game: Game) -> bool:
    return any(q.stop_when is not None for q in game.model.queries)


__all__ = ["Stopper", "has_stop"]

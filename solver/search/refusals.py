"""The refusals the exact searches share: what a game must be for a search to prove
anything about it (deterministic feedback, a uniform prior, an end when the secret is
known), each a clear error naming what to use instead."""

from __future__ import annotations

from typing import Any

from sleuth.compiler.api import SleuthError, option, said
from sleuth.solver.infoset.queries import Candidates


def require_exact(subject: str, model: Any, actions: list[Any], hint: str) -> None:
    """The refusals every exact search shares (`subject`: "the optimal strategies need",
    "a static plan needs"): a game with queries that ends when the secret is known, and
    deterministic feedback (`hint`: what to use instead of random answers)."""
    if model.confidence is not None or not actions:
        raise SleuthError(f"{subject} queries and a game that ends when the secret is known",
                          hint="use a heuristic strategy")
    random = [a.name for a in actions if a.feedback is None]
    if random:
        raise SleuthError(f"{subject} deterministic feedback; '{random[0]}' has random "
                          "answers", hint=hint)


def require_optimal(candidates: Candidates, search: str | None = None, top: int = 0,
                    more: tuple[tuple[str, bool], ...] = ()) -> None:
    """The refusals the optimal searches share: a uniform prior, and require_exact's. A
    search of a game scored otherwise (`search`: its name in the message) also refuses
    --top, history rules, max_queries and the features in `more` that are on."""
    from sleuth.solver.infoset.history import HistoryMasks

    model = candidates.game.model
    if model.prior is not None:
        raise SleuthError("the optimal strategies need a uniform prior; this spec weighs "
                          "its secrets", hint="use entropy, or evaluate a heuristic")
    require_exact("the optimal strategies need", model, [b.action for b in candidates.blocks],
                  "simulate with a heuristic: " + said("sleuth bench SPEC --trials N",
                                                          "sleuth.simulate(game, ..., seed=N)"))
    if search is None:
        return
    refused = [what for what, on in (
        (option("top"), top > 0), ("a history rule", HistoryMasks.applies(candidates)),
        ("max_queries", model.max_queries is not None), *more) if on]
    if refused:
        raise SleuthError(f"{search} does not handle {refused[0]}",
                          hint="drop it, or evaluate a heuristic strategy")


__all__ = ["require_exact", "require_optimal"]

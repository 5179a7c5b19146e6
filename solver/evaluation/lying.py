"""Exact evaluation of a strategy against lies (`lies:` in the spec): the tree of lie
states (solver/infoset/lies.py) walked from the start, every answer a lying answerer may give
followed. A secret's game length is the longest the lies can make it -- the deepest
end of the tree whose state still holds the secret -- so each secret counts once,
whatever lies might still have come, and the total and average are over secrets.

Only a strategy that plays lie states can be walked: one whose engine has a `lie_search` with
`least_depth(state)` and `choose(state, queries_left)` (optimal-worst's, in
solver/search/lies.py). The walk computes the children itself, so the worst
case it finds checks the one the search proved.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sleuth.compiler.api import Game, SleuthError, show_value
from sleuth.solver.infoset.lies import OUT


def evaluate_with_lies(game: Game, strategy: Any, spec: str, tree: bool = False,
                          progress: Any = None) -> Any:
    """The Evaluation of `strategy` on every secret, each against the worst lies."""
    from sleuth.solver.evaluation.evaluate import Evaluation

    search = getattr(getattr(strategy, "engine", None), "lie_search", None)
    if search is None:
        raise SleuthError(f"{strategy.name} does not play against lies",
                          hint="use optimal-worst")
    start = time.perf_counter()
    lies = search.lies
    lengths = np.zeros(lies.size, dtype=np.int64)
    root = lies.root()
    depth = search.least_depth(root)
    first: list[Any] = []

    def walk(state: np.ndarray, asked: int) -> dict[str, Any]:
        if lies.terminal(state):
            held = np.flatnonzero(state != OUT)
            lengths[held] = np.maximum(lengths[held], asked)
            if progress:
                progress(0)
            value = game.hypotheses.value(int(held[0]))
            return {"secrets": len(held), "solved": {
                name: show_value(value[name]) for name in game.model.identify}}
        q = search.choose(state, depth - asked)
        query = lies.queries[q]
        if not first:
            first.append(query)
        coder = game.coder(query.action)
        node: dict[str, Any] = {"query": strategy.candidates.shown(query),
                                "secrets": int((state != OUT).sum()), "branches": []}
        for label, child in lies.children(state, q):
            feedback = {k: show_value(v) for k, v in coder.decode(
                int(lies.table.book[label])).items()}
            lied = int(((child != OUT) & (child > state)).sum())
            node["branches"].append({"feedback": feedback, "lied": lied,
                                     **walk(child, asked + 1)})
        return node

    shape = walk(root, 0)
    keys = np.arange(lies.size)
    return Evaluation(spec, strategy.name, strategy.candidates.guesses,
                      {int(k): int(lengths[k]) for k in keys},
                      strategy.candidates.shown(first[0]) if first else {},
                      time.perf_counter() - start, {}, shape if tree else None)


__all__ = ["evaluate_with_lies"]

"""Exact evaluation of a strategy against lies (`lies:` in the spec): the tree of lie
states (solver/infoset/lies.py) walked from the start, every answer a lying answerer may give
followed. A secret's game length is the longest the lies can make it -- the deepest
end of the tree whose state still holds the secret -- so each secret counts once,
whatever lies might still have come, and the total and average are over secrets.

Only a strategy that plays lie states can be walked: one whose `lie_search` is a search with
`least_depth(state)` and `choose(state, queries_left)` (optimal-worst's, in
solver/strategies/optimal_lies.py). The walk computes the children itself, so the worst
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

    search = getattr(strategy, "lie_search", None)
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


def verify_with_lies(game: Game, document: Any) -> dict[str, int]:
    """Play every secret down a saved tree against every way of lying: at each query, every answer
    a lying answerer may give must have a branch, and every end must hold one goal value.
    {"secrets", "total", "worst"}, each secret's length its longest game."""
    from sleuth.solver.evaluation.trees import check_node, shown
    from sleuth.solver.infoset.lies import LieGame
    from sleuth.solver.infoset.observe import checked_args, checked_feedback, feedback_text
    from sleuth.solver.infoset.queries import Candidates

    lies = LieGame(Candidates(game))
    where_is = {(q.action, q.rank): i for i, q in enumerate(lies.queries)}
    lengths = np.zeros(lies.size, dtype=np.int64)
    bound = game.model.max_queries
    tree = document.get("tree", document) if isinstance(document, dict) else document

    def walk(node: Any, state: np.ndarray, depth: int, path: str) -> None:
        check_node(node, path)
        q = node["query"]
        action = game.model.action(q["query"])
        rank = game.space(action.name).rank(checked_args(game, action, q["args"]))
        if (action.name, rank) not in where_is:
            raise SleuthError(f"{path}: {q['query']} {q['args']} is not a query of this game")
        if bound is not None and depth >= bound:
            raise SleuthError(f"{path}: a query beyond the goal's max_queries ({bound})")
        coder = game.coder(action.name)
        by_code = {coder.encode(checked_feedback(game, action, b["feedback"])): b
                   for b in node["branches"]}
        for label, child in lies.children(state, where_is[(action.name, rank)]):
            code = int(lies.table.book[label])
            here = f"{path} -> {feedback_text(shown(coder.decode(code)))}"
            b = by_code.get(code)
            held = np.flatnonzero(child != OUT)
            if b is None:
                raise SleuthError(f"{here}: no branch for this feedback ({len(held)} "
                                  "secrets reach it, with the lies they need)")
            if "solved" in b:
                for h in held.tolist():
                    value = game.hypotheses.value(h)
                    if any(show_value(value[k]) != v for k, v in b["solved"].items()):
                        raise SleuthError(f"{here}: 'solved' says {b['solved']}, but secret "
                                          f"{value} reaches it")
                lengths[held] = np.maximum(lengths[held], depth + 1)
            else:
                walk(b, child, depth + 1, here)

    walk(tree, lies.root(), 0, "root")
    return {"secrets": lies.size, "total": int(lengths.sum()), "worst": int(lengths.max())}


__all__ = ["evaluate_with_lies", "verify_with_lies"]

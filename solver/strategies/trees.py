"""Decision trees of a strategy: written by `evaluate --tree FILE`, checked by
`sleuth verify-tree FILE SPEC`.

A tree is JSON: a node is {"query": {"query": action, "args": {...}}, "secrets":
n, "branches": [...]}; each branch has the "feedback" ({component: value}) and
either "end": true (the query's feedback ended the game: `stop_when`), or
"solved": {goal variable: value} (the goal is reached without another query),
or the next node. The text form indents one level per query, each branch on
its own line as `feedback -> next query` (or `done`, or `solved: ...`), e.g.

    ask x=[1, 2]  (9 secrets)
      hits=0 -> ask x=[3, 3]  (1 secrets)
        hits=2 -> done
      ...

Verification is independent of the search that wrote the tree: it plays every
secret of the spec down the tree, computing each query's feedback with the
compiled game, and fails unless every secret is reached (a branch for its
feedback, an end or a correct "solved" at the bottom); then it recomputes the
total and the worst case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from sleuth.compiler.api import TURN, Game, SleuthError, said, show_value
from sleuth.solver.infoset.goals import goal_classes
from sleuth.solver.infoset.observe import (
    checked_args,
    checked_feedback,
    feedback_text,
    query_text,
)
from sleuth.solver.infoset.queries import Query, Stopper, has_stop
from sleuth.solver.wording import counted


def tree_text(node: dict[str, Any], depth: int = 0, game: Game | None = None) -> list[str]:
    """The readable indented form, one line per node; with the game, values are written
    as a person types them (a word for a sequence of letters: `salet`, `bbgyb`)."""
    pad = "  " * depth
    q = node["query"]
    args, action = q["args"], None
    if game is not None:
        action = game.model.action(q["query"])
        args = checked_args(game, action, args)
    lines = [f"{pad}{query_text(q['query'], args)}  ({counted(node['secrets'], 'secret')})"]
    for b in node["branches"]:
        feedback = b["feedback"] if action is None else checked_feedback(game, action,
                                                                         b["feedback"])
        head = f"{pad}  {feedback_text(feedback)} -> "
        if b.get("end"):
            lines.append(head + "done")
        elif "solved" in b:
            lines.append(head + "solved: " + " ".join(
                f"{k}={json.dumps(v)}" for k, v in b["solved"].items()))
        else:
            sub = tree_text(b, depth + 1, game)
            lines.append(head + sub[0].strip())
            lines.extend(sub[1:])
    return lines


def write_tree(tree: dict[str, Any], path: Path, meta: dict[str, Any],
               game: Game | None = None) -> Path:
    """The tree as JSON at `path` and as text next to it (.txt); returns the text's path."""
    path.write_text(json.dumps({**meta, "tree": tree}, separators=(",", ":")) + "\n")
    text = path.with_suffix(".txt")
    text.write_text("\n".join(tree_text(tree, game=game)) + "\n")
    return text


def verify_tree(game: Game, document: dict[str, Any]) -> dict[str, int]:
    """Play every secret down the tree; {"secrets", "total", "worst",
    "queries_before_known"} or a SleuthError saying which secret fails where. A game with
    lies is played against every way of lying (`_verify_with_lies`)."""
    if game.model.lies is not None:
        return _verify_with_lies(game, document)
    lengths, nodes = _play(game, document)
    return {"secrets": len(lengths), "total": int(lengths.sum()), "worst": int(lengths.max()),
            "queries_before_known": before_known(game, nodes)}


def before_known(game: Game, nodes: dict[bytes, dict[str, Any]]) -> int:
    """How many distinct queries the tree asks while the goal's values are unknown (more
    than one goal class reaches the node). A tree that asks k such queries proves a
    static plan of k: asked all at once, their answers fix every secret's path, and so
    its goal values (`--strategy static` finds the least such set)."""
    classes = goal_classes(game)
    asked = {json.dumps(q, sort_keys=True) for key, q in nodes.items()
             if len(np.unique(classes[np.frombuffer(key, dtype=np.int64)])) > 1}
    return len(asked)


def tree_index(game: Game, document: dict[str, Any]) -> dict[bytes, dict[str, Any]]:
    """{the hypotheses reaching a node (sorted indices, as bytes): its query} for every
    query node of a tree that verify_tree accepts."""
    return _play(game, document)[1]


def _play(game: Game, document: Any) -> tuple[np.ndarray, dict[bytes, dict[str, Any]]]:
    """Every secret played down the tree, once: each secret's number of queries, and each
    query node's query keyed by the hypotheses that reach it."""
    tree = document.get("tree", document) if isinstance(document, dict) else document
    stop_game, stops = has_stop(game), Stopper(game)
    table = game.hypotheses
    lengths = np.zeros(table.size, dtype=np.int64)
    nodes: dict[bytes, dict[str, Any]] = {}

    bound = game.model.max_queries
    rows = _rows_of(game, tree)

    def walk(node: dict[str, Any], index: np.ndarray, depth: int, path: str,
             history: tuple[tuple[str, int, int], ...]) -> None:
        check_node(node, path)
        q = node["query"]
        nodes[np.sort(index).astype(np.int64).tobytes()] = q
        action = game.model.action(q["query"])
        if action.feedback is None:
            raise SleuthError(f"{path}: '{q['query']}' has random answers; a tree needs "
                              "deterministic feedback")
        rank = game.space(q["query"]).rank(checked_args(game, action, q["args"]))
        earlier = [(r, c) for a, r, c in history if a == action.name]
        if earlier and not game.history_allows(action.name, np.array([rank]), earlier)[0]:
            raise SleuthError(f"{path}: {q['query']} {q['args']} breaks the action's history "
                              "rule against an earlier query on the way")
        if bound is not None and depth >= bound:
            raise SleuthError(f"{path}: a query beyond the goal's max_queries ({bound})")
        if q["args"].get(TURN, depth + 1) != depth + 1:
            raise SleuthError(f"{path}: a query of turn {q['args'][TURN]} asked as query "
                              f"{depth + 1}")
        held = rows.get((q["query"], rank))
        codes = held[index] if held is not None else \
            game.feedback_matrix(q["query"], np.array([rank]), index)[0]
        coder = game.coder(q["query"])
        by_code = {coder.encode(checked_feedback(game, action, b["feedback"])): b
                   for b in node["branches"]}
        for code in np.unique(codes).tolist():
            mine = index[codes == code]
            b = by_code.get(code)
            where = f"{path} -> {feedback_text(shown(coder.decode(code)))}"
            if b is None:
                raise SleuthError(f"{where}: no branch for this feedback "
                                  f"({counted(len(mine), 'secret')} reach it)")
            if b.get("end"):
                if not stop_game or not stops(Query(q["query"], rank), code):
                    raise SleuthError(f"{where}: 'end' on a feedback that does not end the "
                                      "game")
                lengths[mine] = depth + 1
            elif "solved" in b:
                for h in mine.tolist():
                    value = table.value(h)
                    if any(show_value(value[k]) != v for k, v in b["solved"].items()):
                        raise SleuthError(f"{where}: 'solved' says {b['solved']}, but "
                                          f"secret {value} reaches it")
                if stop_game:
                    raise SleuthError(f"{where}: this game ends only at a query whose "
                                      "feedback says so")
                lengths[mine] = depth + 1
            else:
                walk(b, mine, depth + 1, where, (*history, (action.name, rank, code)))

    walk(tree, np.arange(table.size, dtype=np.int64), 0, "root", ())
    return lengths, nodes


def _rows_of(game: Game, tree: Any) -> dict[tuple[str, int], np.ndarray]:
    """The feedback row over every hypothesis of each query the tree asks, computed in
    one pass per action (a call per node costs the kernels' set-up each time), for the
    most asked queries within a quarter of the memory budget; the walk computes any other
    at its node. A node that is malformed is left to the walk, which says where."""
    asked: dict[str, dict[int, int]] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        q = node.get("query")
        try:
            action = game.model.action(q["query"])
            rank = game.space(q["query"]).rank(checked_args(game, action, q["args"]))
        except (SleuthError, TypeError, KeyError):
            continue
        if action.feedback is not None:
            counts = asked.setdefault(action.name, {})
            counts[rank] = counts.get(rank, 0) + 1
        stack.extend(b for b in node.get("branches") or [] if isinstance(b, dict))
    n = game.hypotheses.size
    room = game.budget.memory_bytes // 4
    rows: dict[tuple[str, int], np.ndarray] = {}
    for name, counts in asked.items():
        cell = game.coder(name).dtype.itemsize
        keep = sorted(counts, key=lambda r: (-counts[r], r))[:max(0, room // (n * cell))]
        if not keep:
            continue
        room -= len(keep) * n * cell
        matrix = game.feedback_matrix(name, np.array(sorted(keep)))  # object past int64
        rows.update({(name, r): matrix[k] for k, r in enumerate(sorted(keep))})
    return rows


def _verify_with_lies(game: Game, document: Any) -> dict[str, int]:
    """Play every secret down a saved tree against every way of lying: at each query, every answer
    a lying answerer may give must have a branch, and every end must hold one goal value.
    {"secrets", "total", "worst"}, each secret's length its longest game."""
    from sleuth.solver.infoset.lies import OUT, LieGame
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


def check_node(node: Any, path: str) -> None:
    """A query node's shape, or a SleuthError saying where the file is not a tree."""
    hint = "a tree written by " + said("`sleuth evaluate SPEC --tree FILE`",
                                       "the command line's `sleuth evaluate SPEC --tree FILE`")
    if not isinstance(node, dict):
        raise SleuthError(f"{path}: not a decision tree (a node must be a mapping)", hint=hint)
    if "solved" in node or node.get("end"):
        raise SleuthError(f"{path}: a leaf where a query was expected", hint=hint)
    q, branches = node.get("query"), node.get("branches")
    if not isinstance(q, dict) or not isinstance(q.get("query"), str) or \
            not isinstance(q.get("args"), dict) or not isinstance(branches, list) or \
            not all(isinstance(b, dict) and isinstance(b.get("feedback"), dict)
                    for b in branches):
        raise SleuthError(f"{path}: not a decision tree (a node has a 'query' with 'query' "
                          "and 'args', and 'branches', each with a 'feedback')", hint=hint)


def shown(feedback: dict[str, Any]) -> dict[str, Any]:
    return {k: show_value(v) for k, v in feedback.items()}


__all__ = ["tree_index", "tree_text", "verify_tree", "write_tree"]

"""The board a spec's `layout` asks for (compiler/layout.py), as the page draws it. One
drawer per kind of layout (DRAWERS), each returning a JSON object with that `kind`:

    grid   every cell asked shown with its answer, every other one with the chance of
           the layout's `shade` feedback under the current belief
    pegs   one row per query asked: its pegs (values, with their colours) and its key
    tiles  pegs (count components); tiles also carry each tile's mark and colour
    box    its ports, each fired one with what came of it (a letter shared with the port
           the shot came out of, else the first letter of its `shown` feedback), and
           its cells with the chance the `holds` variable holds each
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sleuth.compiler.api import Game
from sleuth.solver.infoset.answers import feedback_chances
from sleuth.solver.infoset.observe import Event, format_value
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.queries import Candidates


def board(game: Game, belief: InformationSet, events: list[Event],
          candidates: Candidates) -> dict[str, Any] | None:
    """The layout's board for the events so far, or None without a layout."""
    layout = game.model.layout
    if layout is None:
        return None
    return {"kind": layout.kind, **DRAWERS[layout.kind](game, belief, events, candidates)}


def grid(game: Game, belief: InformationSet, events: list[Event],
         candidates: Candidates) -> dict[str, Any]:
    """{rows, cols, query, cell, shade, cells: [{seen, p} per cell, along the rows]}.
    `seen` is the answer of a cell asked (its last), else null; `p` the chance of `shade`
    for a cell still open (null when it is not asked for, or when the cell cannot be
    asked now)."""
    layout = game.model.layout
    cells: list[dict[str, Any]] = [{"seen": None, "p": None}
                                   for _ in range(layout.rows * layout.cols)]
    for event in events:
        if event.action == layout.query and event.feedback is not None:
            shown = [format_value(v) for v in event.feedback.values()]
            cells[event.args[layout.cell]]["seen"] = " ".join(shown)
    if layout.shade is not None:
        space = game.space(layout.query)
        for query, chances in feedback_chances(belief, candidates):
            if query.action != layout.query:
                continue
            at = space.value(query.rank)[layout.cell]
            if cells[at]["seen"] is None:
                cells[at]["p"] = sum(p for key, p in chances.items()
                                     if layout.shade in (format_value(v) for v in key))
    return {"rows": layout.rows, "cols": layout.cols, "query": layout.query,
            "cell": layout.cell, "shade": layout.shade, "cells": cells}


def rows(game: Game, belief: InformationSet, events: list[Event],
         candidates: Candidates) -> dict[str, Any]:
    """{query, code, length, colours, marks, keys: [{name, colour}], turns, rows: [{code,
    marks, keys, rest}]}: per query asked, its argument's values (as shown), each tile's
    mark (tiles with marks), the key counts, and any other feedback as text; `turns` is
    the game's most queries (six rows, say), or null."""
    layout = game.model.layout
    keys = dict(layout.keys)
    drawn = []
    for event in events:
        if event.action != layout.query or event.feedback is None:
            continue
        feedback = event.feedback
        marks = feedback.get(layout.marks) if layout.marks else None
        drawn.append({
            "code": [format_value(v) for v in event.args[layout.code]],
            "marks": None if marks is None else [format_value(m) for m in marks],
            "keys": {name: int(feedback[name]) for name in keys},
            "rest": ", ".join(f"{name} {format_value(v)}" for name, v in feedback.items()
                              if name not in keys and name != layout.marks)})
    return {"query": layout.query, "code": layout.code, "length": layout.length,
            "colours": layout.colours, "marks": layout.marks,
            "keys": [{"name": n, "colour": c} for n, c in layout.keys],
            "turns": game.model.max_queries, "rows": drawn}


def box(game: Game, belief: InformationSet, events: list[Event],
        candidates: Candidates) -> dict[str, Any]:
    """{rows, cols, query, port, ports: [{seen, title} per port 1..2 (rows + cols)],
    cells: [chance per cell, along the rows, or null without `holds`]}."""
    layout = game.model.layout
    ports: list[dict[str, Any]] = [{"seen": None, "title": None}
                                   for _ in range(2 * (layout.rows + layout.cols))]
    pairs = 0
    for event in events:
        if event.action != layout.query or event.feedback is None:
            continue
        at, fb = event.args[layout.port], event.feedback
        out = int(fb[layout.to]) if layout.to else 0
        said = ", ".join(f"{k} {format_value(v)}" for k, v in fb.items())
        if out and out != at:
            letter = chr(ord("A") + pairs % 26) + ("" if pairs < 26 else str(pairs // 26))
            pairs += 1
            for p in (at, out):
                ports[p - 1] = {"seen": letter, "title": f"{at} -> {out}: {said}"}
        else:
            shown = format_value(fb[layout.shown]) if layout.shown else said
            ports[at - 1] = {"seen": shown[:1].upper(), "title": f"{at}: {said}"}
    cells = None
    if layout.holds is not None:
        cells = [0.0] * (layout.rows * layout.cols)
        for label, dist in belief.marginals().items():
            if label == layout.holds or label.startswith(layout.holds + "["):
                for value, p in dist.items():
                    cells[int(value)] += float(p)
    return {"rows": layout.rows, "cols": layout.cols, "query": layout.query,
            "port": layout.port, "ports": ports, "cells": cells}


DRAWERS: dict[str, Callable[..., dict[str, Any]]] = {"grid": grid, "pegs": rows,
                                                     "tiles": rows, "box": box}


__all__ = ["DRAWERS", "board"]

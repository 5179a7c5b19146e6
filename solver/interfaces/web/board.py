"""The board a spec's `layout` asks for (compiler/layout.py), as the page draws it: a
grid of cells, each one asked shown with its answer, each other one with the chance of
the layout's `shade` feedback under the current belief."""

from __future__ import annotations

from typing import Any

from sleuth.compiler.api import Game
from sleuth.solver.infoset.answers import feedback_chances
from sleuth.solver.infoset.observe import Event, format_value
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.queries import Candidates


def board(game: Game, belief: InformationSet, events: list[Event],
          candidates: Candidates) -> dict[str, Any] | None:
    """{rows, cols, query, cell, shade, cells: [{seen, p} per cell, along the rows]}, or
    None without a layout. `seen` is the answer of a cell asked (its last), else null;
    `p` the chance of `shade` for a cell still open (null when it is not asked for, or
    when the cell cannot be asked now)."""
    grid = game.model.layout
    if grid is None:
        return None
    cells: list[dict[str, Any]] = [{"seen": None, "p": None}
                                   for _ in range(grid.rows * grid.cols)]
    for event in events:
        if event.action == grid.query and event.feedback is not None:
            shown = [format_value(v) for v in event.feedback.values()]
            cells[event.args[grid.cell]]["seen"] = " ".join(shown)
    if grid.shade is not None:
        space = game.space(grid.query)
        for query, chances in feedback_chances(belief, candidates):
            if query.action != grid.query:
                continue
            at = space.value(query.rank)[grid.cell]
            if cells[at]["seen"] is None:
                cells[at]["p"] = sum(p for key, p in chances.items()
                                     if grid.shade in (format_value(v) for v in key))
    return {"rows": grid.rows, "cols": grid.cols, "query": grid.query, "cell": grid.cell,
            "shade": grid.shade, "cells": cells}


__all__ = ["board"]

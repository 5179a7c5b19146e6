"""A spec's `layout`: how the worksheet draws the game. A presentation hint only: no
backend, strategy or search reads it.

    layout:
      grid: {rows: R, cols: C, query: Q, cell: A, shade: LABEL}

A grid board of R x C cells (each an int, or the name of an int param), numbered along
the rows from 0: query Q's argument A (its only one) names the cell it asks. The
worksheet draws every cell asked with its answer, and shades every other one by the
chance of the feedback LABEL (optional), so a game played on a board reads as one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sleuth.compiler.errors import Loc, SpecError, did_you_mean

GRID_KEYS = ("rows", "cols", "query", "cell", "shade")


@dataclass(frozen=True)
class GridDecl:
    """The grid as written (sizes unresolved)."""

    rows: Any
    cols: Any
    query: str
    cell: str
    shade: str | None
    loc: Loc


@dataclass(frozen=True)
class Grid:
    """A checked grid: sizes resolved against the params."""

    rows: int
    cols: int
    query: str
    cell: str
    shade: str | None


def read_layout(r: Any, node: Any) -> GridDecl:
    """`layout: {grid: {...}}` read with the spec's reader (located errors)."""
    kinds = r.mapping(node, "layout", ("grid",))
    if "grid" not in kinds:
        raise SpecError("a layout names its kind", r.loc(node), hint="layout: {grid: {...}}")
    key, value = kinds["grid"]
    fields = r.mapping(value, "layout's grid", GRID_KEYS)
    for needed in ("rows", "cols", "query", "cell"):
        if needed not in fields:
            raise SpecError(f"layout's grid needs '{needed}'", r.loc(value),
                            hint="grid: {rows: R, cols: C, query: Q, cell: A}")
    return GridDecl(r.scalar(fields["rows"][1], "rows"), r.scalar(fields["cols"][1], "cols"),
                    r.name(fields["query"][1], "a query"), r.name(fields["cell"][1], "an argument"),
                    r.text(fields["shade"][1], "shade") if "shade" in fields else None,
                    r.loc(value))


def check_layout(decl: GridDecl | None, params: dict[str, Any],
                 queries: list[Any]) -> Grid | None:
    """The grid checked against the params and queries: sizes positive ints, the query one
    with feedback whose one argument (besides the turn) is the cell, within the grid."""
    if decl is None:
        return None
    rows, cols = (_size(decl, v, params) for v in (decl.rows, decl.cols))
    action = next((q for q in queries if q.name == decl.query), None)
    if action is None or action.feedback is None:
        raise SpecError(f"layout's grid asks '{decl.query}', which is not a query with "
                        "feedback", decl.loc, hint=did_you_mean(decl.query, [
                            q.name for q in queries]) or "name a query with feedback")
    args = [a for a in action.args if a.name != "turn"]
    if [a.name for a in args] != [decl.cell]:
        raise SpecError(f"layout's grid reads the cell from '{decl.cell}', and "
                        f"'{action.name}' must have that one argument",
                        decl.loc, hint=f"its arguments: {', '.join(a.name for a in args)}")
    t = args[0].domain.type
    lo, hi = getattr(t, "lo", None), getattr(t, "hi", None)
    if lo is None or lo < 0 or hi >= rows * cols:
        raise SpecError(f"'{decl.cell}' must number the cells 0..{rows * cols - 1}",
                        decl.loc, hint="rows x cols cells, numbered along the rows")
    return Grid(rows, cols, decl.query, decl.cell, decl.shade)


def _size(decl: GridDecl, value: Any, params: dict[str, Any]) -> int:
    size = params.get(value) if isinstance(value, str) else value
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise SpecError(f"layout's grid size {value!r} is not a positive int or an int "
                        "param", decl.loc)
    return size


__all__ = ["Grid", "GridDecl", "check_layout", "read_layout"]

"""A spec's `layout`: how the worksheet draws the game. A presentation hint only: no
backend, strategy or search reads it. One kind per layout, each an entry of KINDS:

    layout:
      grid:  {rows: R, cols: C, query: Q, cell: A, shade: LABEL}
      pegs:  {query: Q, code: A, keys: {F: COLOUR, ...}, colours: [COLOUR, ...]}
      tiles: {query: Q, word: A, marks: F, colours: {MARK: COLOUR, ...}, keys: {...}}
      box:   {rows: R, cols: C, query: Q, port: A, holds: S, to: F, shown: G}

grid   a board of R x C cells (ints or int params), numbered along the rows from 0:
       query Q's one argument A names the cell it asks. Each cell asked is drawn with
       its answer; every other one is shaded by the chance of the feedback LABEL.
pegs   each query Q asked is a row of round pegs, one per element of its sequence
       argument A, coloured by value (`colours`, in the order of the element's values;
       a default palette of ten without it; more are made when the values outnumber
       them), and its count feedback F... as small key pegs of the colours given (a
       black key per exact match, say).
tiles  each query Q asked is a row of square tiles, one per element of A with its label,
       coloured by the feedback F (`marks`, a sequence of labels as long as A) through
       `colours` (green, yellow and grey marks, say); `keys` as for pegs.

box    a box of R x C cells with 2 (R + C) ports round its edge, numbered from 1 clockwise
       from the top left: along the top, down the right side, back along the bottom,
       up the left side. Query Q fires into port A; its feedback F (optional) names the
       port it came out of (0: none), drawn as a letter on both ports, and G (optional)
       is shown at the port otherwise (its first letter). Each cell is shaded by the
       chance that the secret variable S (optional; a set or sequence of cell numbers,
       numbered along the rows from 0) holds it.

A colour is a CSS colour name or #hex. Everything is checked against the queries, so a
page never meets a layout it cannot draw.
"""

from __future__ import annotations

import colorsys
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sleuth.compiler.domains import domain_values
from sleuth.compiler.errors import Loc, SpecError, did_you_mean
from sleuth.compiler.ir import EnumT, IntT, SeqT

COLOUR = re.compile(r"^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-zA-Z]{3,20})$")
PALETTE = ("#d62728", "#2ca02c", "#1f77b4", "#f2c500", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#17becf", "#7f7f7f")  # pegs without `colours`: one per value


@dataclass(frozen=True)
class LayoutDecl:
    """A layout as written: its kind and its fields (as read, unresolved)."""

    kind: str
    fields: dict[str, Any]
    loc: Loc


@dataclass(frozen=True)
class Grid:
    """A checked grid: sizes resolved against the params."""

    rows: int
    cols: int
    query: str
    cell: str
    shade: str | None
    kind: str = "grid"


@dataclass(frozen=True)
class Rows:
    """Checked pegs or tiles: one row per query asked. `values` are the labels of the
    drawn argument's elements; `colours` maps a value (pegs) or a mark (tiles) to its
    colour; `keys` are the count components drawn as key pegs, with their colours."""

    kind: str
    query: str
    code: str
    length: int
    values: tuple[str, ...]
    colours: dict[str, str]
    marks: str | None = None
    keys: tuple[tuple[str, str], ...] = field(default=())


@dataclass(frozen=True)
class Box:
    """A checked box: sizes resolved, the port argument numbering 1..2 (rows + cols)."""

    rows: int
    cols: int
    query: str
    port: str
    holds: str | None = None
    to: str | None = None
    shown: str | None = None
    kind: str = "box"


Layout = Grid | Rows | Box


@dataclass(frozen=True)
class Kind:
    """One kind of layout: its keys (each with the reader of its value), the keys it
    needs, and the check that resolves it against the params and queries."""

    keys: dict[str, str]  # key -> "scalar" | "name" | "text" | "colours" | "palette"
    needed: tuple[str, ...]
    example: str
    check: Callable[[LayoutDecl, dict[str, Any], list[Any], list[Any]], Layout]


def read_layout(r: Any, node: Any) -> LayoutDecl:
    """`layout: {KIND: {...}}` read with the spec's reader (located errors)."""
    kinds = r.mapping(node, "layout", tuple(KINDS))
    if len(kinds) != 1:
        raise SpecError("a layout names one kind", r.loc(node),
                        hint=f"one of: {', '.join(KINDS)}")
    ((name, (_, value)),) = kinds.items()
    kind = KINDS[name]
    given = r.mapping(value, f"layout's {name}", tuple(kind.keys))
    for needed in kind.needed:
        if needed not in given:
            raise SpecError(f"layout's {name} needs '{needed}'", r.loc(value),
                            hint=f"{name}: {kind.example}")
    fields = {key: _READ[kind.keys[key]](r, v, key) for key, (_, v) in given.items()}
    return LayoutDecl(name, fields, r.loc(value))


def _colour(r: Any, node: Any, what: str) -> str:
    text = r.text(node, what)
    if not COLOUR.match(text):
        raise SpecError(f"'{text}' is not a colour", r.loc(node),
                        hint="a CSS colour name (green) or #hex (#6aaa64)")
    return text


_READ: dict[str, Callable[[Any, Any, str], Any]] = {
    "scalar": lambda r, node, what: r.scalar(node, what),
    "name": lambda r, node, what: r.name(node, what),
    "text": lambda r, node, what: r.text(node, what),
    "colours": lambda r, node, what: [_colour(r, x, what) for x in r.sequence(node, what)],
    "palette": lambda r, node, what: {k: _colour(r, v, what) for k, (_, v)
                                      in r.mapping(node, what).items()},
}


def check_layout(decl: LayoutDecl | None, params: dict[str, Any], queries: list[Any],
                 secret: list[Any] = ()) -> Layout | None:
    """The layout checked against the params, queries and secret variables, by its kind."""
    return None if decl is None else KINDS[decl.kind].check(decl, params, queries,
                                                             list(secret))


def _action(decl: LayoutDecl, queries: list[Any]) -> Any:
    """The query the layout draws: one with feedback."""
    name = decl.fields["query"]
    action = next((q for q in queries if q.name == name), None)
    if action is None or action.feedback is None:
        raise SpecError(f"layout's {decl.kind} asks '{name}', which is not a query with "
                        "feedback", decl.loc, hint=did_you_mean(name, [
                            q.name for q in queries]) or "name a query with feedback")
    return action


def _check_grid(decl: LayoutDecl, params: dict[str, Any], queries: list[Any],
                secret: list[Any]) -> Grid:
    """Sizes positive ints; the query's one argument (besides the turn) is the cell,
    within the grid."""
    f = decl.fields
    rows, cols = (_size(decl, f[k], params) for k in ("rows", "cols"))
    action = _action(decl, queries)
    args = [a for a in action.args if a.name != "turn"]
    if [a.name for a in args] != [f["cell"]]:
        raise SpecError(f"layout's grid reads the cell from '{f['cell']}', and "
                        f"'{action.name}' must have that one argument",
                        decl.loc, hint=f"its arguments: {', '.join(a.name for a in args)}")
    t = args[0].domain.type
    lo, hi = getattr(t, "lo", None), getattr(t, "hi", None)
    if lo is None or lo < 0 or hi >= rows * cols:
        raise SpecError(f"'{f['cell']}' must number the cells 0..{rows * cols - 1}",
                        decl.loc, hint="rows x cols cells, numbered along the rows")
    return Grid(rows, cols, f["query"], f["cell"], f.get("shade"))


def _size(decl: LayoutDecl, value: Any, params: dict[str, Any]) -> int:
    size = params.get(value) if isinstance(value, str) else value
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise SpecError(f"layout's {decl.kind} size {value!r} is not a positive int or an int "
                        "param", decl.loc)
    return size


def _check_rows(arg_key: str) -> Callable[..., Rows]:
    """Pegs or tiles: the drawn argument a sequence of listable elements, the marks a
    sequence of labels as long, each with a colour, the keys count components."""

    def check(decl: LayoutDecl, params: dict[str, Any], queries: list[Any],
              secret: list[Any]) -> Rows:
        f, action = decl.fields, _action(decl, queries)
        arg = next((a for a in action.args if a.name == f[arg_key]), None)
        if arg is None or arg.domain.kind != "seq":
            raise SpecError(f"layout's {decl.kind} draws '{f[arg_key]}', which must be a "
                            f"sequence argument of '{action.name}'", decl.loc,
                            hint=f"its arguments: {', '.join(a.name for a in action.args)}")
        values = tuple(str(v) for v in domain_values(arg.domain.elem))
        components = {name: node.type for name, _, node in action.feedback}
        for key in f.get("keys", {}):
            t = components.get(key)
            if not isinstance(t, IntT):
                raise SpecError(f"layout's key '{key}' must be a count feedback of "
                                f"'{action.name}'", decl.loc, hint=(
                                    None if key in components else did_you_mean(key, components))
                                or f"its feedback: {', '.join(components)}")
        colours = _colours(decl, values, components, arg.domain.length)
        return Rows(decl.kind, f["query"], f[arg_key], arg.domain.length, values, colours,
                    f.get("marks"), tuple(f.get("keys", {}).items()))

    return check


def _check_box(decl: LayoutDecl, params: dict[str, Any], queries: list[Any],
               secret: list[Any]) -> Box:
    """Sizes positive ints; the query's one argument (besides the turn) numbers the
    ports; `to` an int feedback, `shown` a feedback; `holds` a secret variable of cells."""
    f = decl.fields
    rows, cols = (_size(decl, f[k], params) for k in ("rows", "cols"))
    action = _action(decl, queries)
    args = [a for a in action.args if a.name != "turn"]
    t = args[0].domain.type if [a.name for a in args] == [f["port"]] else None
    ports = 2 * (rows + cols)
    if not isinstance(t, IntT) or t.lo < 1 or t.hi > ports:
        raise SpecError(f"layout's box fires into '{f['port']}', which must be "
                        f"'{action.name}''s one argument, numbering the ports 1..{ports}",
                        decl.loc, hint="ports clockwise from the top left")
    components = {name: node.type for name, _, node in action.feedback}
    for key in ("to", "shown"):
        if key in f and (f[key] not in components or key == "to" and
                         not isinstance(components[f[key]], IntT)):
            raise SpecError(f"layout's box '{key}: {f[key]}' must be "
                            f"{'an int ' if key == 'to' else 'a '}feedback of '{action.name}'",
                            decl.loc, hint=f"its feedback: {', '.join(components)}")
    if "holds" in f:
        var = next((v for v in secret if v.name == f["holds"]), None)
        elem = None if var is None or var.domain.elem is None else var.domain.elem.type
        if not isinstance(elem, IntT) or elem.lo < 0 or elem.hi >= rows * cols:
            raise SpecError(f"layout's box shades the cells '{f['holds']}' holds: it must be "
                            f"a secret set or sequence of cells 0..{rows * cols - 1}",
                            decl.loc, hint=f"the secret: {', '.join(v.name for v in secret)}")
    return Box(rows, cols, f["query"], f["port"], f.get("holds"), f.get("to"), f.get("shown"))


def _hue(k: int, n: int) -> str:
    """The k-th of n colours spread round the hue circle (full saturation, mid light)."""
    r, g, b = colorsys.hls_to_rgb((k * 0.618034) % 1.0, 0.5, 0.75)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _colours(decl: LayoutDecl, values: tuple[str, ...], components: dict[str, Any],
             length: int) -> dict[str, str]:
    f = decl.fields
    if decl.kind == "pegs":  # more values than colours (a param raised): more colours made
        palette = list(f.get("colours", PALETTE))
        palette += [_hue(k, len(values)) for k in range(len(values) - len(palette))]
        return dict(zip(values, palette, strict=False))
    if "marks" not in f:
        return {}
    t = components.get(f["marks"])
    if not isinstance(t, SeqT) or not isinstance(t.elem, EnumT) or t.length != length:
        raise SpecError(f"layout's marks '{f['marks']}' must be a feedback of {length} "
                        "labels, one per tile", decl.loc,
                        hint=did_you_mean(f["marks"], components) or
                        f"its feedback: {', '.join(components)}")
    colours = f.get("colours", {})
    missing = [m for m in t.elem.values if m not in colours]
    if missing or set(colours) - set(t.elem.values):
        raise SpecError(f"layout's colours must give each mark of {t.elem.name} its colour",
                        decl.loc, hint=f"marks: {', '.join(t.elem.values)}")
    return {m: colours[m] for m in t.elem.values}  # in the marks' order: a click's cycle


KINDS: dict[str, Kind] = {
    "grid": Kind({"rows": "scalar", "cols": "scalar", "query": "name", "cell": "name",
                  "shade": "text"}, ("rows", "cols", "query", "cell"),
                 "{rows: R, cols: C, query: Q, cell: A}", _check_grid),
    "pegs": Kind({"query": "name", "code": "name", "keys": "palette", "colours": "colours"},
                 ("query", "code"), "{query: Q, code: A, keys: {black: black}}",
                 _check_rows("code")),
    "tiles": Kind({"query": "name", "word": "name", "marks": "name", "colours": "palette",
                   "keys": "palette"}, ("query", "word"),
                  "{query: Q, word: A, marks: F, colours: {g: green}}", _check_rows("word")),
    "box": Kind({"rows": "scalar", "cols": "scalar", "query": "name", "port": "name",
                 "holds": "name", "to": "name", "shown": "name"},
                ("rows", "cols", "query", "port"), "{rows: R, cols: C, query: Q, port: A}",
                _check_box),
}


__all__ = ["KINDS", "Box", "Grid", "Layout", "LayoutDecl", "Rows", "check_layout", "read_layout"]

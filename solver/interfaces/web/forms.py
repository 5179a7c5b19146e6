"""What the worksheet page draws, derived from a spec: the observation forms (one field
per argument and per feedback component or answer, by its domain or type) and the
marginals laid out as grids and panels.

A field is a JSON object with a `kind` the page knows how to draw:

    int       a number field                    {min, max}
    enum      a drop-down                       {values}
    bool      a check box
    float     a number field (a density's answer)
    word      one text field for a sequence of one-character labels (a word, `crane`,
              or marks, `gybbb`) or of digits                         {length, letters}
    seq       one field per position (a peg picker)        {length, elem}
    set       check boxes                                   {values, min, max}
    counts    a number per element, adding up to a total    {values, total}
    record    one field per field                           {fields: [{name, field}]}
    tuple     one field per item                            {items}

A form's `choices`, when the whole feedbacks the game can give are few, lists them
(component -> value): the page offers them as buttons instead of a field each.

Values are sent back as JSON in the form the Python API takes (lists for sequences and
sets, mappings for records), and checked there.
"""

from __future__ import annotations

from typing import Any

from sleuth.compiler.api import (
    TURN,
    BoolT,
    Domain,
    EnumT,
    Game,
    IntT,
    RecordT,
    SeqT,
    SetT,
    domain_values,
    ir,
    set_elements,
)
from sleuth.solver.infoset.observe import format_value
from sleuth.solver.infoset.reachable import FORM_PAIRS, action_domain, reachable_outcomes


def action_forms(game: Game) -> list[dict[str, Any]]:
    """One form per query and observation of the game."""
    out = []
    for action in game.actions():
        form: dict[str, Any] = {
            "name": action.name, "kind": action.kind,
            "args": [{"name": a.name, "field": domain_field(a.domain)} for a in action.args
                     if a.name != TURN]}  # the turn is the query's place: filled in
        if action.feedback is not None:
            domain, _ = action_domain(game, action, pairs=FORM_PAIRS)
            form["feedback"] = [{"name": name, "field": reachable_field(
                type_field(node.type), None if domain is None else domain[name])}
                for name, _, node in action.feedback]
            form["choices"] = choices(game, action, domain)
        else:
            form["answer"] = domain_field(action.response.answer.domain)
        out.append(form)
    return out


def choices(game: Game, action: Any, domain: dict[str, list[Any]] | None) \
        -> list[dict[str, Any]] | None:
    """The whole feedbacks to choose among with buttons, when they are few: every one the
    game can give (14 pairs of counts), or a single component's few values; None
    (a field per component) otherwise."""
    outcomes = reachable_outcomes(game, action, FORM_PAIRS, CHOICES)
    if outcomes is None and domain is not None and len(domain) == 1:
        ((name, values),) = domain.items()
        if len(values) <= CHOICES:
            outcomes = [{name: v} for v in values]
    return outcomes


CHOICES = 40  # feedbacks offered as buttons, at most


def reachable_field(field: dict[str, Any], values: list[Any] | None) -> dict[str, Any]:
    """A feedback field narrowed to the values the game can give (reachable.py): an int's
    bounds, a boolean's choices (false first, where both occur), an enum's labels."""
    if values is None or not values:
        return field
    if field["kind"] == "int":
        return {**field, "min": min(values), "max": max(values)}
    if field["kind"] == "bool":
        return {**field, "values": ["true" if v else "false" for v in sorted(values)]}
    if field["kind"] == "enum":
        return {**field, "values": [format_value(v) for v in values]}
    return field


def domain_field(d: Domain) -> dict[str, Any]:
    """The field for a value of a domain (arguments, answers)."""
    t = d.type
    if d.kind == "multiset":
        elems = [format_value(v) for v in domain_values(d.elem)]
        return {"kind": "counts", "values": elems, "total": d.total}
    if d.kind == "set":
        lo, hi = d.sizes
        return {"kind": "set", "values": [format_value(v) for v in set_elements(t)],
                "min": lo, "max": hi}
    if d.kind == "record":
        return {"kind": "record", "fields": [{"name": n, "field": domain_field(f)}
                                             for n, f in d.fields]}
    if d.kind == "seq":
        word = _word(d.elem.type, d.length)
        if word is not None:
            return word
        if d.listed is not None:  # listed values of many-character elements: one per line
            return {"kind": "seq", "length": d.length, "elem": domain_field(d.elem),
                    "listed": True}
        labels = list(t.index.values) if t.index is not None else None
        return {"kind": "seq", "length": d.length, "elem": domain_field(d.elem),
                "positions": labels}
    return type_field(t)


def type_field(t: ir.Type) -> dict[str, Any]:
    """The field for a value of a static type (feedback components)."""
    if isinstance(t, BoolT):
        return {"kind": "bool"}
    if isinstance(t, IntT):
        return {"kind": "int", "min": t.lo, "max": t.hi}
    if isinstance(t, EnumT):
        return {"kind": "enum", "values": list(t.values)}
    if isinstance(t, ir.StrT):
        return {"kind": "enum", "values": sorted(t.values)}
    if isinstance(t, ir.UnionT):  # a label or a number: one choice among both
        return {"kind": "enum", "values": [str(v) for v in range(t.lo, t.hi + 1)] +
                list(t.labels)}
    if isinstance(t, ir.FloatT):
        return {"kind": "float"}
    if isinstance(t, SeqT):
        word = _word(t.elem, t.length)
        if word is not None:
            return word
        return {"kind": "seq", "length": t.length, "elem": type_field(t.elem),
                "positions": list(t.index.values) if t.index is not None else None}
    if isinstance(t, SetT):
        elems = list(t.elem.values) if isinstance(t.elem, EnumT) else \
            list(range(t.elem.lo, t.elem.hi + 1))
        return {"kind": "set", "values": [format_value(v) for v in elems], "min": 0,
                "max": len(elems)}
    if isinstance(t, ir.TupleT):
        return {"kind": "tuple", "items": [type_field(x) for x in t.items]}
    if isinstance(t, RecordT):
        return {"kind": "record", "fields": [{"name": n, "field": type_field(x)}
                                             for n, x in t.fields]}
    return {"kind": "text"}


def _word(elem: ir.Type, length: int) -> dict[str, Any] | None:
    """A sequence typed as one word: of one-character enum labels, or of digits."""
    if isinstance(elem, EnumT) and all(len(v) == 1 for v in elem.values):
        return {"kind": "word", "length": length, "letters": list(elem.values)}
    if isinstance(elem, IntT) and 0 <= elem.lo and elem.hi <= 9:
        return {"kind": "word", "length": length,
                "letters": [str(v) for v in range(elem.lo, elem.hi + 1)]}
    return None


# ----------------------------------------------------------------------------- marginals

def grids(marginals: dict[str, dict[Any, float]]) -> list[dict[str, Any]]:
    """The marginals as one grid per secret variable: a row per variable or position
    (`code[0]`, `owner[Knife]`), a column per value: for a deal of cards to holders, a
    row per card and a column per holder (detective notes)."""
    out: dict[str, dict[str, Any]] = {}
    for label, dist in marginals.items():
        var = _variable(label)
        grid = out.setdefault(var, {"variable": var, "columns": [], "rows": []})
        for value in dist:
            text = format_value(value)
            if text not in grid["columns"]:
                grid["columns"].append(text)
        grid["rows"].append({"label": label, "position": label[len(var):].strip("[].") or None,
                             "p": _by_text(dist)})
    for grid in out.values():
        cols = grid["columns"]
        for row in grid["rows"]:
            row["cells"] = [row["p"].get(c, 0.0) for c in cols]
            del row["p"]
    return list(out.values())


def panels(game: Game, marginals: dict[str, dict[Any, float]]) -> list[dict[str, Any]]:
    """One panel per opponent or player, where the secret says who they are: secret
    variables indexed by the same enum (identities and builds, by opponent)
    give a panel per label of it, a row per variable; a single variable indexed by an
    enum whose values are another enum (the owner of each card) gives a panel per
    value -- a player -- listing the chance of each index label (a card) being theirs.
    Every number is a marginal of the joint posterior, so the constraints that tie the
    panels together (all different, one owner per card) are applied."""
    indexed: dict[str, list[str]] = {}
    for v in game.model.secret:
        t = v.domain.type
        if isinstance(t, SeqT) and t.index is not None:
            indexed.setdefault(t.index.name, []).append(v.name)
    out = []
    for enum, names in indexed.items():
        labels = next(v.domain.type.index.values for v in game.model.secret
                      if v.name == names[0])
        if len(names) > 1:
            for label in labels:
                rows = [{"label": n, "p": _by_text(marginals.get(f"{n}[{label}]", {}))}
                        for n in names]
                out.append({"title": label, "by": enum, "rows": rows})
        else:
            (name,) = names
            values: list[str] = []
            for label in labels:
                for x in marginals.get(f"{name}[{label}]", {}):
                    if format_value(x) not in values:
                        values.append(format_value(x))
            for value in values:
                rows = [{"label": label, "p": float(_by_text(marginals.get(
                    f"{name}[{label}]", {})).get(value, 0.0))} for label in labels]
                out.append({"title": value, "by": name, "rows": rows})
    return out


def _variable(label: str) -> str:
    for sep in ("[", "."):
        if sep in label:
            label = label.split(sep, 1)[0]
    return label


def _by_text(dist: dict[Any, float]) -> dict[str, float]:
    return {format_value(v): float(p) for v, p in dist.items()}


__all__ = ["action_forms", "domain_field", "grids", "panels", "type_field"]

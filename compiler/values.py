"""Values a person types (YAML data, command-line text) -> checked plain Python values.

Query arguments, secrets, answers and feedback arrive as YAML data or as text
on a command line. `coerce` checks such a value against a domain or type and
returns it in the interpreter's encoding (ints, enum labels, tuples for
sequences, frozensets for sets, dicts for records), or raises ValueError
with a message saying what was expected. A sequence of one-digit values may
be written as a digit string (`1122` for [1, 1, 2, 2]), and a sequence of
one-character enum labels as a word (`cab` for [c, a, b]).
"""

from __future__ import annotations

from typing import Any

import yaml

from sleuth.compiler.domains import Domain, listed_rank
from sleuth.compiler.ir import (
    BoolT,
    EnumT,
    FloatT,
    IntT,
    RecordT,
    SeqT,
    SetT,
    StrT,
    TupleT,
    Type,
    UnionT,
)


def coerce(t: Type | Domain, raw: Any) -> Any:
    """`raw` as a value of type (or domain) t; ValueError if it is not one."""
    if isinstance(t, Domain):
        if t.kind == "multiset":
            return _coerce_multiset(t, raw)
        value = coerce(t.type, raw)
        if t.kind == "set" and not t.sizes[0] <= len(value) <= t.sizes[1]:
            lo, hi = t.sizes
            raise ValueError(f"{_show(raw)} has {len(value)} elements; {t.describe()} "
                             f"needs {lo if lo == hi else f'{lo}..{hi}'}")
        if t.kind == "seq" and t.elem is not None:
            value = tuple(coerce(t.elem, v) for v in value)
            if t.listed is not None and listed_rank(t, value) is None:
                word = "".join(value) if all(isinstance(v, str) and len(v) == 1
                                             for v in value) else _show(raw)
                raise ValueError(f"{word} is not one of the {len(t.listed):,} listed "
                                 f"values of {t.describe()}")
            return value
        if t.kind == "record":
            return {name: coerce(f, value[name]) for name, f in t.fields}
        return value
    if isinstance(t, SeqT | TupleT):
        return _coerce_sequence(t, raw)
    if isinstance(t, SetT):
        items = _as_list(raw, "a set")
        out = frozenset(coerce(t.elem, v) for v in items)
        if len(out) != len(items):
            raise ValueError(f"{_show(raw)} repeats an element")
        return out
    if isinstance(t, RecordT):
        if not isinstance(raw, dict):
            raise ValueError(f"expected a mapping with fields {', '.join(n for n, _ in t.fields)}"
                             f", got {_show(raw)}")
        names = [n for n, _ in t.fields]
        unknown = [k for k in raw if k not in names]
        missing = [n for n in names if n not in raw]
        if unknown or missing:
            raise ValueError(f"expected fields {', '.join(names)}; "
                             + (f"unknown {', '.join(map(str, unknown))}" if unknown
                                else f"missing {', '.join(missing)}"))
        return {n: coerce(ft, raw[n]) for n, ft in t.fields}
    return _coerce_scalar(t, raw)


def _coerce_multiset(d: Domain, raw: Any) -> tuple[int, ...]:
    """Counts per element, given as a list of counts or a mapping element -> count."""
    t = d.type
    if isinstance(raw, dict):
        universe = list(t.index.values) if t.index is not None else list(
            range(d.elem.type.lo, d.elem.type.hi + 1))
        unknown = [k for k in raw if k not in universe]
        if unknown:
            raise ValueError(f"{_show(unknown[0])} is not an element of {d.elem.describe()}")
        raw = [raw.get(e, 0) for e in universe]
    counts = coerce(t, raw)
    if sum(counts) != d.total:
        raise ValueError(f"{_show(raw)} holds {sum(counts)} elements; {d.describe()} "
                         f"needs {d.total}")
    return counts


def coerce_text(t: Type | Domain, text: str) -> Any:
    """A value typed on a command line: digit strings, then YAML flow syntax."""
    text = text.strip()
    seq = t.type if isinstance(t, Domain) else t
    if isinstance(seq, SeqT) and text.isdigit() and len(text) == seq.length:
        return coerce(t, [int(ch) for ch in text])
    if _letters(seq, text):  # before YAML, which reads "false" or "yes" as a boolean
        return coerce(t, list(text))
    try:
        raw = yaml.safe_load(text) if text else None
    except yaml.YAMLError:
        raw = text
    if raw is None:
        raise ValueError("expected a value, got nothing")
    return coerce(t, raw)


def _coerce_sequence(t: SeqT | TupleT, raw: Any) -> tuple:
    types = [t.elem] * t.length if isinstance(t, SeqT) else list(t.items)
    if isinstance(t, SeqT) and t.index is not None and isinstance(raw, dict):
        labels = list(t.index.values)
        unknown = [k for k in raw if k not in labels]
        if unknown or len(raw) != len(labels):
            raise ValueError(f"expected one value for each of {', '.join(labels)}"
                             + (f"; unknown {unknown[0]}" if unknown else ""))
        raw = [raw[label] for label in labels]
    if isinstance(raw, int | str) and not isinstance(raw, bool) and isinstance(t, SeqT):
        digits = str(raw)
        if digits.isdigit() and len(digits) == t.length:
            raw = [int(ch) for ch in digits]
        elif _letters(t, digits):
            raw = list(digits)
    items = _as_list(raw, f"a sequence of {len(types)}")
    if len(items) != len(types):
        raise ValueError(f"expected {len(types)} values, got {len(items)} in {_show(raw)}")
    return tuple(coerce(et, v) for et, v in zip(types, items, strict=True))


def _letters(t: Type, text: str) -> bool:
    """Whether `text` is a sequence of t's one-character enum labels written as a word
    (`cab` for [c, a, b])."""
    return isinstance(t, SeqT) and isinstance(t.elem, EnumT) and len(text) == t.length and \
        all(len(v) == 1 for v in t.elem.values) and all(ch in t.elem.values for ch in text)


def _coerce_scalar(t: Type, raw: Any) -> Any:
    if isinstance(t, IntT):
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise ValueError(f"expected an integer in {t.lo}..{t.hi}, got {_show(raw)}")
        if not t.lo <= raw <= t.hi:
            raise ValueError(f"{raw} is outside {t.lo}..{t.hi}")
        return raw
    if isinstance(t, BoolT):
        if not isinstance(raw, bool):
            raise ValueError(f"expected true or false, got {_show(raw)}")
        return raw
    if isinstance(t, FloatT):
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise ValueError(f"expected a number, got {_show(raw)}")
        return float(raw)
    if isinstance(t, UnionT):
        if isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
            raw = int(raw)  # a number typed as text (a form's choice, a word on a line)
        if isinstance(raw, int) and not isinstance(raw, bool) and t.lo <= raw <= t.hi:
            return raw
        if isinstance(raw, str) and raw in t.labels:
            return raw
        raise ValueError(f"expected {', '.join(t.labels)} or an integer in {t.lo}..{t.hi}, "
                         f"got {_show(raw)}")
    if isinstance(t, EnumT | StrT):
        labels = list(t.values) if isinstance(t, EnumT) else sorted(t.values)
        if str(raw) not in labels or isinstance(raw, bool):
            raise ValueError(f"expected one of {', '.join(labels)}, got {_show(raw)}")
        return str(raw)
    raise ValueError(f"values of type {t.show()} cannot be given")


def _as_list(raw: Any, what: str) -> list:
    if isinstance(raw, list | tuple | set | frozenset):
        return list(raw)
    raise ValueError(f"expected {what} (a list like [a, b]), got {_show(raw)}")


def _show(raw: Any) -> str:
    return yaml.safe_dump(raw, default_flow_style=True, width=10**6).strip().removesuffix(
        "\n...").removesuffix(" ...") if not isinstance(raw, str) else repr(raw)


__all__ = ["coerce", "coerce_text"]

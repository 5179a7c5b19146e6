"""Feedback codes: a finite value as one mixed-radix integer, and back -- what the
kernels, the outcome tables and the coder store for a feedback (split from domains.py)."""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from sleuth.compiler.domains import set_elements, universe_size
from sleuth.compiler.ir import (
    BoolT,
    EnumT,
    IntT,
    RecordT,
    SeqT,
    SetT,
    StrT,
    TupleT,
    Type,
    UnionT,
    component_types,
)


def radix(t: Type, strings: tuple[str, ...]) -> int:
    """Number of distinct integer codes a value of type t can take."""
    if isinstance(t, IntT):
        return t.hi - t.lo + 1
    if isinstance(t, UnionT):
        return t.hi - t.lo + 1 + len(t.labels)
    if isinstance(t, BoolT):
        return 2
    if isinstance(t, EnumT):
        return len(t.values)
    if isinstance(t, StrT):
        return len(t.values)
    if isinstance(t, SetT):
        return 2 ** universe_size(t.elem)
    if isinstance(t, SeqT):
        return radix(t.elem, strings) ** t.length
    if isinstance(t, TupleT):
        return prod(radix(x, strings) for x in t.items)
    if isinstance(t, RecordT):
        return prod(radix(x, strings) for _, x in t.fields)
    raise TypeError(f"values of type {t.show()} cannot be coded")


def code(t: Type, encoded: Any, strings: tuple[str, ...]) -> np.ndarray:
    """Mixed-radix integer code (0..radix-1) of an encoded value, vectorised."""
    if isinstance(t, SeqT | TupleT | RecordT):
        types = component_types(t)
        out = np.int64(0)
        for et, e in zip(types, encoded, strict=True):
            out = out * radix(et, strings) + code(et, e, strings)
        return out
    v = np.asarray(encoded)
    if isinstance(t, IntT | UnionT):
        return v.astype(np.int64) - t.lo
    if isinstance(t, StrT):
        local = np.full(len(strings), -1, dtype=np.int64)
        for k, s in enumerate(sorted(t.values)):
            local[strings.index(s)] = k
        return local[v]
    return v.astype(np.int64)


def decode(t: Type, c: int, strings: tuple[str, ...]) -> Any:
    """The plain Python value with code c (inverse of `code`)."""
    if isinstance(t, SeqT | TupleT | RecordT):
        types = component_types(t)
        parts = []
        for et in reversed(types):
            r = radix(et, strings)
            parts.append(decode(et, c % r, strings))
            c //= r
        parts.reverse()
        if isinstance(t, RecordT):
            return {n: p for (n, _), p in zip(t.fields, parts, strict=True)}
        return tuple(parts)
    if isinstance(t, IntT):
        return c + t.lo
    if isinstance(t, UnionT):
        return t.decode(c + t.lo)
    if isinstance(t, BoolT):
        return bool(c)
    if isinstance(t, EnumT):
        return t.values[c]
    if isinstance(t, StrT):
        return sorted(t.values)[c]
    if isinstance(t, SetT):
        elems = set_elements(t)
        return frozenset(e for b, e in enumerate(elems) if (c >> b) & 1)
    raise TypeError(t)


__all__ = ["code", "decode", "radix"]

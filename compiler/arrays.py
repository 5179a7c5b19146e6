"""Array helpers the kernels share: dtypes from static types, equality and selection of
encoded values (component-wise for tuples), in-place accumulation.

Values in kernel encoding: integers, booleans and floats as numpy arrays or
scalars; enum labels and strings as their codes; sets as int64 bitmasks;
sequences, tuples and records as Python tuples of those.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.domains import int_dtype
from sleuth.compiler.ir import (
    BoolT,
    EnumT,
    FloatT,
    IntT,
    RecordT,
    SeqT,
    TupleT,
    Type,
    component_types,
)


def dtype_of(t: Type | None) -> np.dtype:
    if isinstance(t, IntT):
        return int_dtype(t)
    if isinstance(t, FloatT):
        return np.dtype(np.float64)
    if isinstance(t, BoolT):
        return np.dtype(bool)
    return np.dtype(np.int64)


def wide_dtype(node: Any, *operands: Any) -> np.dtype:
    """The dtype to compute a node in: wide enough for its result and for every operand
    (`g - 128` with g in 0..5 is int8 by its bounds, but 128 is not an int8)."""
    return np.result_type(*(dtype_of(n.type) for n in (node, *operands)))


def accumulate(acc: Any, term: Any, ufunc: Any, dt: np.dtype) -> Any:
    """acc (op)= term, in place when acc already has the broadcast shape."""
    if acc is None:
        return np.array(term, dtype=dt)
    shape = np.broadcast_shapes(np.shape(acc), np.shape(term))
    with np.errstate(over="ignore", invalid="ignore"):  # a float sum may reach inf, as in
        if np.shape(acc) == shape and isinstance(acc, np.ndarray) and acc.ndim:  # Python
            ufunc(acc, term, out=acc, dtype=dt, casting="unsafe")
            return acc
        return ufunc(acc, term, dtype=dt, casting="unsafe")


def element(encoded: Any, k: int) -> Any:
    if isinstance(encoded, tuple):
        return tuple(element(e, k) for e in encoded)
    v = encoded[k]
    return bool(v) if isinstance(v, np.bool_) else int(v)


def zero(t: Type) -> Any:
    if isinstance(t, SeqT):
        return tuple(zero(t.elem) for _ in range(t.length))
    if isinstance(t, TupleT):
        return tuple(zero(x) for x in t.items)
    if isinstance(t, RecordT):
        return tuple(zero(x) for _, x in t.fields)
    if isinstance(t, FloatT):
        return 0.0
    if isinstance(t, BoolT):
        return False
    return int(t.lo) if isinstance(t, IntT) else 0


def any_of(xs: list[Any]) -> Any:
    out: Any = np.False_
    for x in xs:
        out = np.logical_or(out, x)
    return out


def all_of(xs: list[Any]) -> Any:
    out: Any = np.True_
    for x in xs:
        out = np.logical_and(out, x)
    return out


def equal(t: Type, a: Any, b: Any) -> Any:
    """Element-wise equality of two encoded values of (compatible) type t."""
    if isinstance(a, tuple):
        types = component_parts(t, len(a))
        return all_of([equal(ct, x, y) for ct, x, y in zip(types, a, b, strict=True)])
    return np.equal(a, b)


def select(t: Type, cond: Any, a: Any, b: Any) -> Any:
    """where(cond, a, b) for encoded values, component-wise for tuples."""
    if isinstance(a, tuple):
        types = component_parts(t, len(a))
        return tuple(select(ct, cond, x, y) for ct, x, y in zip(types, a, b, strict=True))
    if isinstance(t, IntT | EnumT):
        # Both in the type's smallest dtype first: numpy would cast a Python int to the
        # array's (wrapping), and two Python ints (enum labels) would make int64 cells.
        dt = int_dtype(t if isinstance(t, IntT) else IntT(0, len(t.values) - 1))
        a, b = np.asarray(a, dtype=dt), np.asarray(b, dtype=dt)
        if isinstance(cond, np.ndarray) and cond.ndim:
            # b + cond * (a - b): a tenth of np.where's time on small integers. The
            # difference may wrap in dt; the sum is a or b, which fit, so it is exact.
            with np.errstate(over="ignore"):
                diff = np.subtract(a, b, dtype=dt)
                out = np.multiply(cond, diff, dtype=dt)
                return np.add(out, b, out=out if out.shape == np.broadcast_shapes(
                    out.shape, b.shape) else None, dtype=dt)
        return np.where(cond, a, b)
    if isinstance(t, BoolT) and isinstance(cond, np.ndarray) and cond.ndim:
        return (cond & a) | (~cond & b)
    return np.where(cond, a, b)


def cast(t: Type, value: Any) -> Any:
    """A value in t's encoding: integers in t's smallest dtype (as `select` gives them),
    without a copy when they already are; other values as they are."""
    if isinstance(value, tuple):
        types = component_parts(t, len(value))
        return tuple(cast(ct, x) for ct, x in zip(types, value, strict=True))
    if isinstance(t, IntT | EnumT):
        return np.asarray(value, dtype=int_dtype(t if isinstance(t, IntT)
                                                 else IntT(0, len(t.values) - 1)))
    return value


def component_parts(t: Type, n: int) -> list[Type]:
    """Part types of a tuple-encoded value (a bare type stands for n equal parts)."""
    if isinstance(t, SeqT | TupleT | RecordT):
        return component_types(t)
    return [t] * n


__all__ = ["accumulate", "all_of", "any_of", "cast", "component_parts", "dtype_of", "element",
           "equal", "select", "zero"]

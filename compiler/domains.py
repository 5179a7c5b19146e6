"""Finite domains: their canonical order, and values as numpy arrays.

Canonical order (design §3): ranges ascending, enums as listed, sets by size
then lexicographically, sequences and records lexicographically (first
position / field most significant), multisets as their count sequences,
lexicographically. Every domain can be *unranked*: a numpy
array of ranks becomes the encoded values at those positions, so a product of
domains (the secret, a query's arguments) is listed in chunks of ranks without
ever materialising it whole.

Encodings shared by the kernels: int -> its value, bool -> bool, enum -> index
of the label, string -> index in the game's sorted string table, set ->
bitmask over the element universe, seq/tuple -> Python tuple of element
encodings, record -> tuple of field encodings in declared order, multiset ->
the sequence of its counts, one per element of the universe.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb, prod
from typing import Any

import numpy as np

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
    component_types,
)

MAX_SET_UNIVERSE = 62


@dataclass(frozen=True, eq=False)
class Domain:
    """A finite (or, for Real, continuous) set of values with a canonical order."""

    type: Type
    name: str | None = None
    elem: Domain | None = None  # seq and set
    length: int = 0  # seq
    sizes: tuple[int, int] = (0, 0)  # set: allowed sizes, inclusive
    fields: tuple[tuple[str, Domain], ...] = ()  # record
    total: int = -1  # multiset: the counts add up to this (elem is then the universe)
    listed: np.ndarray | None = None  # seq read from files: its values (element ranks), sorted

    @property
    def kind(self) -> str:
        if self.total >= 0:
            return "multiset"
        if isinstance(self.type, SetT):
            return "set"
        if isinstance(self.type, SeqT):
            return "seq"
        if isinstance(self.type, RecordT):
            return "record"
        return "scalar"

    def describe(self) -> str:
        if self.name:
            return self.name
        if self.kind == "seq":
            by = self.type.index
            if self.listed is not None:
                return f"seq of {self.elem.describe()} (len {self.length}, {len(self.listed):,} " \
                       "listed)"
            return f"seq of {self.elem.describe()} " + (f"(by {by.name})" if by else
                                                       f"(len {self.length})")
        if self.kind == "multiset":
            return f"multiset of {self.elem.describe()} (size {self.total})"
        if self.kind == "set":
            lo, hi = self.sizes
            size = f"size {lo}" if lo == hi else f"size {lo}..{hi}"
            return f"set of {self.elem.describe()} ({size})"
        if self.kind == "record":
            return "record {" + ", ".join(f"{n}: {d.describe()}" for n, d in self.fields) + "}"
        return self.type.show()


def range_domain(lo: int, hi: int, name: str | None = None) -> Domain:
    return Domain(IntT(lo, hi), name)


def enum_domain(name: str, labels: list[str]) -> Domain:
    return Domain(EnumT(name, tuple(labels)), name)


def seq_domain(elem: Domain, length: int, index: EnumT | None = None) -> Domain:
    """A sequence of `length` elements; with `index`, one per label of that enum."""
    return Domain(SeqT(elem.type, length, index), elem=elem, length=length)


def listed_seq_domain(elem: Domain, rows: np.ndarray, name: str | None = None,
                      ordered: bool = False) -> Domain:
    """Sequences of `elem` of one length, only those listed: `rows` (values x length) of
    element ranks, deduplicated and put in canonical (lexicographic) order here (unless
    `ordered`: they already are). Their codes (mixed radix of the element ranks) must fit
    63 bits."""
    rows = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1)
    if not ordered:
        rows = np.unique(rows, axis=0)
    return Domain(SeqT(elem.type, rows.shape[1]), name, elem=elem, length=rows.shape[1],
                  listed=rows)


@lru_cache(maxsize=64)
def listed_codes(d: Domain) -> np.ndarray:
    """The listed values' codes (mixed radix of element ranks), ascending."""
    return row_codes(d, d.listed)


def row_codes(d: Domain, rows: np.ndarray) -> np.ndarray:
    """Codes of sequences given as element ranks (rows x length): mixed radix, first
    element most significant, so codes sort as the canonical order does."""
    base = domain_size(d.elem)
    out = np.zeros(len(rows), dtype=np.int64)
    for i in range(rows.shape[1]):
        out = out * base + rows[:, i]
    return out


def translate_ranks(src: Domain, dst: Domain, ranks: np.ndarray) -> np.ndarray | None:
    """The rank in `dst` of each value of `src` at `ranks` (-1 where dst lacks it), for two
    domains of one type whose values compare as sequences of one element domain (or are
    the same domain); None when they do not (no value of one is a value of the other)."""
    ranks = np.asarray(ranks, dtype=np.int64)
    if src is dst:
        return ranks
    if not (src.kind == dst.kind == "seq" and src.type == dst.type and src.elem is dst.elem
            and src.type.index is None):
        return None
    codes = row_codes(src, src.listed[ranks]) if src.listed is not None else ranks
    if dst.listed is None:
        return codes  # a plain sequence's rank is its code
    table = listed_codes(dst)
    at = np.minimum(np.searchsorted(table, codes), len(table) - 1)
    return np.where(table[at] == codes, at, -1)


def set_domain(elem: Domain, lo: int, hi: int) -> Domain:
    return Domain(SetT(elem.type), elem=elem, sizes=(lo, hi))


def multiset_domain(universe: Domain, total: int) -> Domain:
    """Multisets of `total` elements of a range or enum universe, as count sequences:
    one count per element (indexed by label for an enum), adding up to `total`."""
    n = universe_size(universe.type)
    index = universe.type if isinstance(universe.type, EnumT) else None
    return Domain(SeqT(IntT(0, total), n, index), elem=universe, length=n, total=total)


def record_domain(fields: list[tuple[str, Domain]]) -> Domain:
    return Domain(RecordT(tuple((n, d.type) for n, d in fields)), fields=tuple(fields))


BOOL = Domain(BoolT(), "Bool")
REAL = Domain(FloatT(), "Real")


def universe_size(t: Type) -> int:
    """Number of possible elements of a set over element type t."""
    if isinstance(t, IntT):
        return t.hi - t.lo + 1
    if isinstance(t, EnumT):
        return len(t.values)
    if isinstance(t, BoolT):
        return 2
    raise TypeError(t)


def domain_size(d: Domain) -> int:
    t = d.type
    if isinstance(t, FloatT):
        raise ValueError("a continuous domain has no size")
    if d.kind == "multiset":
        return comb(d.length + d.total - 1, d.total)
    if d.listed is not None:
        return len(d.listed)
    if d.kind == "seq":
        return domain_size(d.elem) ** d.length
    if d.kind == "set":
        n = universe_size(d.elem.type)
        return sum(comb(n, k) for k in range(d.sizes[0], d.sizes[1] + 1))
    if d.kind == "record":
        return prod(domain_size(f) for _, f in d.fields)
    return universe_size(t)


# ----------------------------------------------------------------------------- unranking

def component_ranks(d: Domain, ranks: np.ndarray) -> list[tuple[Domain, np.ndarray]] | None:
    """A sequence's positions or a record's fields, each with its domain and its ranks at
    the given ranks of d (the first component most significant); None for other kinds."""
    if d.kind == "seq" and d.listed is None:
        subs = [d.elem] * d.length
    elif d.kind == "record":
        subs = [f for _, f in d.fields]
    else:
        return None
    out = []
    r = ranks
    for sub in reversed(subs):
        base = domain_size(sub)
        out.append((sub, r % base))
        r = r // base
    return out[::-1]


def unrank(d: Domain, ranks: np.ndarray) -> Any:
    """Encoded values of domain d at the given canonical ranks (int64 array)."""
    ranks = np.asarray(ranks, dtype=np.int64)
    if d.kind == "multiset":
        table = multiset_table(d.length, d.total)[ranks]
        return tuple(table[..., i] for i in range(d.length))
    if d.listed is not None:
        rows = d.listed[ranks]
        return tuple(unrank(d.elem, rows[..., i]) for i in range(d.length))
    components = component_ranks(d, ranks)
    if components is not None:
        return tuple(unrank(sub, r) for sub, r in components)
    if d.kind == "set":
        return _unrank_subsets(universe_size(d.elem.type), d.sizes, ranks)
    t = d.type
    if isinstance(t, IntT):
        return ranks + t.lo
    if isinstance(t, BoolT):
        return ranks.astype(bool)
    return ranks  # enum: the rank is the label's index


SUBSET_TABLE_LIMIT = 1 << 22


@lru_cache(maxsize=32)
def multiset_table(n: int, total: int) -> np.ndarray:
    """Every way to write `total` as n counts >= 0, lexicographically (one row each)."""
    def compositions(parts: int, left: int):
        if parts == 1:
            yield (left,)
            return
        for first in range(left + 1):
            for rest in compositions(parts - 1, left - first):
                yield (first, *rest)

    return np.array(list(compositions(n, total)), dtype=np.int64).reshape(-1, n)


@lru_cache(maxsize=32)
def _subset_table(n: int, sizes: tuple[int, int]) -> np.ndarray:
    """Every subset bitmask in canonical order (for domains small enough to list)."""
    masks = [sum(1 << c for c in combo) for k in range(sizes[0], sizes[1] + 1)
             for combo in combinations(range(n), k)]
    return np.array(masks, dtype=np.int64)


def _unrank_subsets(n: int, sizes: tuple[int, int], ranks: np.ndarray) -> np.ndarray:
    """Bitmasks of subsets of {0..n-1}, ordered by size then lexicographically."""
    if sum(comb(n, k) for k in range(sizes[0], sizes[1] + 1)) <= SUBSET_TABLE_LIMIT:
        return _subset_table(n, sizes)[ranks]
    ranks = ranks.copy()
    k = np.full(ranks.shape, sizes[0], dtype=np.int64)
    for size in range(sizes[0], sizes[1] + 1):
        count = comb(n, size)
        later = ranks >= count
        later &= k == size
        ranks[later] -= count
        k[later] += 1
    masks = np.zeros(ranks.shape, dtype=np.int64)
    need = k.copy()  # elements still to choose
    for c in range(n):
        # Combinations starting with c (given the choices so far) come first.
        with_c = _comb_array(n - c - 1, need - 1)
        take = (need > 0) & (ranks < with_c)
        skip = (need > 0) & ~take
        masks[take] |= np.int64(1) << np.int64(c)
        need[take] -= 1
        ranks[skip] -= with_c[skip]
    return masks


def subset_ranks(n: int, sizes: tuple[int, int], masks: np.ndarray) -> np.ndarray:
    """Canonical ranks (sets by size, then lexicographically) of subset bitmasks of
    {0..n-1} whose sizes lie in `sizes`: the inverse of `_unrank_subsets`, by the
    combinatorial number system. A k-subset c_1 < ... < c_k has lexicographic rank
    C(n, k) - 1 - sum_i C(n - 1 - c_i, k + 1 - i) among the k-subsets."""
    masks = np.asarray(masks, dtype=np.int64)
    k = np.zeros(masks.shape, dtype=np.int64)
    for c in range(n):
        k += (masks >> np.int64(c)) & 1
    before = np.cumsum([0] + [comb(n, j) for j in range(sizes[0], sizes[1] + 1)])
    out = before[k - sizes[0]] + _comb_array(n, k) - 1
    taken = np.zeros(masks.shape, dtype=np.int64)
    for c in range(n):
        bit = ((masks >> np.int64(c)) & 1).astype(bool)
        taken += bit
        out[bit] -= _comb_array(n - 1 - c, (k + 1 - taken)[bit])
    return out


def _comb_array(n: int, k: np.ndarray) -> np.ndarray:
    table = np.array([comb(n, j) if j >= 0 else 0 for j in range(n + 2)], dtype=np.int64)
    return np.where((k >= 0) & (k <= n), table[np.clip(k, 0, n + 1)], 0)


# ----------------------------------------------------------------------------- python values

def domain_values(d: Domain) -> list[Any]:
    """All values of d in canonical order, in interpreter (plain Python) encoding."""
    encoded = unrank(d, np.arange(domain_size(d), dtype=np.int64))
    return [to_python(d.type, encoded, i, ()) for i in range(domain_size(d))]


def member(d: Domain, value: Any) -> bool:
    """Whether a plain Python value of d's type is one of d's values (without listing
    them: a sequence domain of 10**10 values is tested element by element)."""
    t = d.type
    if d.kind == "multiset":
        return len(value) == d.length and sum(value) == d.total and min(value) >= 0
    if d.kind == "seq":
        if len(value) != d.length or not all(member(d.elem, v) for v in value):
            return False
        return d.listed is None or listed_rank(d, value) is not None
    if d.kind == "set":
        return d.sizes[0] <= len(value) <= d.sizes[1] and all(
            member(d.elem, v) for v in value)
    if d.kind == "record":
        return all(member(f, value[n]) for n, f in d.fields)
    if isinstance(t, IntT):
        return t.lo <= value <= t.hi
    if isinstance(t, EnumT):
        return value in t.values
    return isinstance(t, BoolT | FloatT)


def listed_rank(d: Domain, value: Any) -> int | None:
    """The rank of a plain Python sequence among a listed domain's values; None if it
    is not listed."""
    elems = domain_values(d.elem)
    try:
        row = np.array([[elems.index(v) for v in value]], dtype=np.int64)
    except ValueError:
        return None
    codes = listed_codes(d)
    code = row_codes(d, row)[0]
    at = int(np.searchsorted(codes, code))
    return at if at < len(codes) and codes[at] == code else None


def set_elements(t: SetT) -> list[Any]:
    """The element universe of a set type, in bit order."""
    e = t.elem
    if isinstance(e, IntT):
        return list(range(e.lo, e.hi + 1))
    if isinstance(e, EnumT):
        return list(e.values)
    return [False, True]


def to_python(t: Type, encoded: Any, i: int | tuple, strings: tuple[str, ...]) -> Any:
    """Row i of an encoded (array) value, as a plain Python value."""
    if isinstance(t, SeqT | TupleT):
        types = component_types(t)
        return tuple(to_python(et, e, i, strings) for et, e in zip(types, encoded, strict=True))
    if isinstance(t, RecordT):
        return {n: to_python(ft, e, i, strings) for (n, ft), e in zip(t.fields, encoded,
                                                                       strict=True)}
    v = np.asarray(encoded)
    x = v[i] if v.ndim else v[()]
    if isinstance(t, IntT):
        return int(x)
    if isinstance(t, UnionT):
        return t.decode(int(x))
    if isinstance(t, BoolT):
        return bool(x)
    if isinstance(t, FloatT):
        return float(x)
    if isinstance(t, EnumT):
        return t.values[int(x)]
    if isinstance(t, StrT):
        return strings[int(x)]
    if isinstance(t, SetT):
        elems = set_elements(t)
        return frozenset(e for b, e in enumerate(elems) if (int(x) >> b) & 1)
    raise TypeError(t)


def from_python(t: Type, value: Any, strings: tuple[str, ...]) -> Any:
    """A plain Python value in kernel encoding (scalars as numpy scalars)."""
    if isinstance(t, SeqT | TupleT):
        types = component_types(t)
        return tuple(from_python(et, v, strings) for et, v in zip(types, value, strict=True))
    if isinstance(t, RecordT):
        return tuple(from_python(ft, value[n], strings) for n, ft in t.fields)
    if isinstance(t, IntT):
        return np.int64(value)
    if isinstance(t, UnionT):
        return np.int64(t.encode(value))
    if isinstance(t, BoolT):
        return np.bool_(value)
    if isinstance(t, FloatT):
        return np.float64(value)
    if isinstance(t, EnumT):
        return np.int64(t.values.index(value))
    if isinstance(t, StrT):
        return np.int64(strings.index(value))
    if isinstance(t, SetT):
        elems = set_elements(t)
        return np.int64(sum(1 << elems.index(v) for v in value))
    raise TypeError(t)


def plain(t: Type, value: Any) -> Any:
    """The reference interpreter's value as a plain one: a label-or-int held as an
    integer becomes its label (everything else is plain already)."""
    if isinstance(t, UnionT):
        return t.decode(value)
    if isinstance(t, SeqT | TupleT):
        return tuple(plain(et, v) for et, v in zip(component_types(t), value, strict=True))
    return value


def held_value(t: Type, value: Any) -> Any:
    """A plain value as the reference interpreter holds it (the inverse of `plain`)."""
    if isinstance(t, UnionT):
        return t.encode(value)
    if isinstance(t, SeqT | TupleT):
        return tuple(held_value(et, v) for et, v in zip(component_types(t), value,
                                                        strict=True))
    return value


def show_value(value: Any) -> Any:
    """A plain Python value as JSON-friendly data (sets sorted to lists, tuples to lists)."""
    if isinstance(value, frozenset | set):
        return sorted((show_value(v) for v in value), key=lambda v: (str(type(v)), v))
    if isinstance(value, tuple | list):
        return [show_value(v) for v in value]
    if isinstance(value, dict):
        return {k: show_value(v) for k, v in value.items()}
    return value


def int_dtype(t: IntT) -> np.dtype:
    """The smallest signed integer dtype holding every value in t's static bounds."""
    for dt in (np.int8, np.int16, np.int32):
        info = np.iinfo(dt)
        if info.min <= t.lo and t.hi <= info.max:
            return np.dtype(dt)
    return np.dtype(np.int64)

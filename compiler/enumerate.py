"""The enumerated backend: hypothesis table, query spaces, feedback codes, partitions.

* The hypothesis table is the product of the secret's domains (first variable
  most significant), built in chunks of ranks and filtered by the constraints,
  so memory stays proportional to what survives.
* A query space lists a query's argument tuples in canonical order
  (design §3), lazily in chunks of ranks, filtered by `legal`.
* Feedback is one integer per (query, hypothesis) pair: the components'
  codes in mixed radix from their static bounds. A partition of the
  hypotheses by a query is then a `bincount`.

Every size is checked against a `Budget` before work starts: too large a
space is refused with a BudgetError saying how large, which option raises the
limit, and that the symbolic backend is meant for such specs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from sleuth.compiler.check import CheckedAction, Model, Var
from sleuth.compiler.domains import Domain, domain_size, int_dtype, to_python, unrank
from sleuth.compiler.errors import BudgetError, EvaluationError, SpecError, option
from sleuth.compiler.feedback_codes import decode, radix
from sleuth.compiler.ir import BoolT, EnumT, IntT, SetT, StrT, Type, UnionT, component_types
from sleuth.compiler.vectorise import Compiler, Ctx

SYMBOLIC_HINT = "specs this large are meant for a symbolic (SAT / decision-diagram) backend"


@dataclass(frozen=True)
class Budget:
    """Size limits of the enumerated backend (max_hypotheses and memory_mb from the CLI;
    every field from the API)."""

    max_hypotheses: int = 10**7
    max_pairs: int = 2 * 10**10
    memory_mb: int = 512
    # likelihood tables kept for reuse, per game (a simulation meeting the same questions
    # again and again may raise it)
    likelihood_cache_mb: int = 32

    @property
    def max_candidates(self) -> int:
        """Unfiltered assignments the hypothesis builder may visit."""
        return 100 * self.max_hypotheses

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb * 2**20


# ----------------------------------------------------------------------------- tables

def product_size(domains: list[Domain]) -> int:
    return prod(domain_size(d) for d in domains)


def unrank_product(domains: list[Domain], ranks: np.ndarray) -> list[Any]:
    """Encoded columns (one per domain) of the product at the given ranks."""
    out = []
    r = ranks
    for k in range(len(domains) - 1, -1, -1):
        n = domain_size(domains[k])
        # The most significant rank needs no modulo (and its domain may have 2**63 values).
        out.append(compact(domains[k].type, unrank(domains[k], r % n if k else r)))
        r = r // n if k else r
    return list(reversed(out))


def compact(t: Type, encoded: Any) -> Any:
    """Store encoded values in the smallest dtype their type allows."""
    if isinstance(encoded, tuple):
        types = component_types(t)
        return tuple(compact(ct, e) for ct, e in zip(types, encoded, strict=True))
    if isinstance(t, IntT):
        return encoded.astype(int_dtype(t))
    if isinstance(t, EnumT):
        return encoded.astype(int_dtype(IntT(0, len(t.values) - 1)))
    return encoded


def shaped(value: Any, axis: str) -> Any:
    """1-D columns reshaped for broadcasting: rows (R, 1) or hypotheses (1, H)."""
    if isinstance(value, tuple):
        return tuple(shaped(v, axis) for v in value)
    return value.reshape((-1, 1) if axis == "row" else (1, -1))


def take(value: Any, index: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(take(v, index) for v in value)
    return value[index]


def concat(parts: list[Any]) -> Any:
    if isinstance(parts[0], tuple):
        return tuple(concat([p[k] for p in parts]) for k in range(len(parts[0])))
    return np.concatenate(parts)


class HypothesisTable:
    """The secret's possible values: one encoded column per variable."""

    def __init__(self, variables: list[Var], columns: list[Any], ranks: np.ndarray,
                 strings: tuple[str, ...]):
        self.variables = variables
        self.columns = columns
        self.ranks = ranks  # position of each hypothesis in the unfiltered product
        self.strings = strings

    @property
    def size(self) -> int:
        return len(self.ranks)

    def env(self, index: Any = None) -> dict[str, Any]:
        """Kernel inputs: each variable's column shaped (1, H)."""
        cols = self.columns if index is None else [take(c, index) for c in self.columns]
        return {v.name: shaped(c, "hyp") for v, c in zip(self.variables, cols, strict=True)}

    def value(self, i: int) -> dict[str, Any]:
        """Hypothesis i as plain Python values."""
        return {v.name: to_python(v.domain.type, c, i, self.strings)
                for v, c in zip(self.variables, self.columns, strict=True)}


def build_hypotheses(model: Model, compiler: Compiler, budget: Budget) -> HypothesisTable:
    """Every assignment of the secret satisfying the constraints, in canonical order."""
    domains = [v.domain for v in model.secret]
    total = product_size(domains)
    if total > budget.max_candidates:
        raise BudgetError(
            f"the secret has {total:,} candidate assignments; the enumerated backend visits at "
            f'most {budget.max_candidates:,} (100 x {option("max_hypotheses")})',
            hint=f'raise {option("max_hypotheses")} if you have the time and memory; '
                 f'{SYMBOLIC_HINT}')
    if not model.constraints and total > budget.max_hypotheses:
        raise BudgetError(
            f"the hypothesis space has {total:,} hypotheses, over the enumerated backend's "
            f"budget of {budget.max_hypotheses:,}",
            hint=f'raise {option("max_hypotheses")} if you have the time and memory; '
                 f'{SYMBOLIC_HINT}')
    chunk = max(1, min(total, budget.memory_bytes // (64 * max(1, len(domains)) * 8)))
    columns, ranks, kept = [], [], 0
    for start in range(0, total, chunk):
        r = np.arange(start, min(total, start + chunk), dtype=np.int64)
        cols = unrank_product(domains, r)
        if model.constraints:
            keep = satisfies_constraints(model, compiler,
                                         HypothesisTable(model.secret, cols, r, model.strings))
            cols = [take(c, keep) for c in cols]
            r = r[keep]
        kept += len(r)
        if kept > budget.max_hypotheses:
            raise BudgetError(
                f"the hypothesis space has more than {budget.max_hypotheses:,} hypotheses "
                f"(at least {kept:,} after {min(start + chunk, total):,} of {total:,} "
                "candidates)",
                hint=f'raise {option("max_hypotheses")}; {SYMBOLIC_HINT}')
        columns.append(cols)
        ranks.append(r)
    if kept == 0:
        raise SpecError("no assignment of the secret satisfies the constraints",
                        model.constraints[0].loc if model.constraints else None,
                        hint="check the constraints and the params")
    cols = [concat([c[k] for c in columns]) for k in range(len(domains))]
    return HypothesisTable(model.secret, cols, np.concatenate(ranks), model.strings)


def table_from_ranks(model: Model, ranks: np.ndarray) -> HypothesisTable:
    """The hypotheses at these ranks of the secret's product (sorted, distinct, and
    satisfying the constraints: listed or sampled from a decision diagram, say)."""
    domains = [v.domain for v in model.secret]
    if product_size(domains) > 2**63:
        raise BudgetError(f"the secret's {product_size(domains):,} assignments cannot be "
                          "ranked in 64 bits, so its hypotheses cannot be tabulated",
                          hint="use the counting strategies of the symbolic backend")
    ranks = np.asarray(ranks, dtype=np.int64)
    return HypothesisTable(model.secret, unrank_product(domains, ranks), ranks, model.strings)


def satisfies_constraints(model: Model, compiler: Compiler, table: HypothesisTable) -> np.ndarray:
    """Which hypotheses of a table satisfy the secret's constraints."""
    keep = np.ones(table.size, dtype=bool)
    if model.constraints and table.size:
        ctx = Ctx(table.env())
        for c in model.constraints:
            keep &= np.broadcast_to(np.asarray(compiler(c)(ctx)), (1, table.size))[0]
    return keep


def raw_prior_weights(model: Model, compiler: Compiler, table: HypothesisTable) -> np.ndarray:
    """The prior's weight expression on every hypothesis of a table, not normalised."""
    w = compiler(model.prior)(Ctx(table.env()))
    return np.broadcast_to(np.asarray(w, dtype=np.float64), (1, table.size))[0].copy()


def prior_weights(model: Model, compiler: Compiler, table: HypothesisTable) -> np.ndarray:
    """The prior as a normalised float64 vector over the hypothesis table."""
    if model.prior is None:
        return np.full(table.size, 1.0 / table.size)
    w = raw_prior_weights(model, compiler, table)
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise EvaluationError("the prior weight must be finite and >= 0 for every hypothesis",
                              model.prior.loc)
    total = w.sum()
    if total <= 0:
        raise EvaluationError("the prior weight is 0 for every hypothesis", model.prior.loc)
    return w / total


# ----------------------------------------------------------------------------- queries

class QuerySpace:
    """A query's (or observation's) argument tuples in canonical order."""

    def __init__(self, action: CheckedAction, compiler: Compiler, strings: tuple[str, ...]):
        self.action = action
        self.domains = [a.domain for a in action.args]
        self.size = product_size(self.domains)
        self.strings = strings
        self.legal = [compiler(c) for c in action.legal]

    def columns(self, ranks: np.ndarray) -> list[Any]:
        return unrank_product(self.domains, ranks)

    def env(self, ranks: np.ndarray) -> dict[str, Any]:
        cols = self.columns(ranks)
        return {a.name: shaped(c, "row") for a, c in zip(self.action.args, cols, strict=True)}

    def legal_mask(self, ranks: np.ndarray) -> np.ndarray:
        return self.legal_columns(self.columns(ranks), len(ranks))

    def legal_columns(self, columns: list[Any], rows: int) -> np.ndarray:
        """Which of `rows` argument tuples, given as encoded columns (one per argument),
        are legal."""
        keep = np.ones(rows, dtype=bool)
        if self.legal:
            ctx = Ctx({a.name: shaped(c, "row")
                       for a, c in zip(self.action.args, columns, strict=True)})
            for f in self.legal:
                keep &= np.broadcast_to(np.asarray(f(ctx)), (rows, 1))[:, 0]
        return keep

    def combine(self, arg_ranks: list[np.ndarray]) -> np.ndarray:
        """Product ranks from each argument's ranks (canonical order: first argument most
        significant); Python integers (an object array) when the product has 2**63
        tuples or more, which is how queries of such a space are identified."""
        big = self.size >= 1 << 63
        out = np.zeros(len(arg_ranks[0]) if arg_ranks else 0, dtype=object if big else np.int64)
        for d, r in zip(self.domains, arg_ranks, strict=True):
            out = out * domain_size(d) + (r.astype(object) if big else r)
        return out

    def legal_ranks(self, chunk: int = 1 << 18) -> Iterator[np.ndarray]:
        """Ranks of the legal argument tuples, in canonical order, a chunk at a time."""
        for start in range(0, self.size, chunk):
            r = np.arange(start, min(self.size, start + chunk), dtype=np.int64)
            yield r[self.legal_mask(r)]

    def count_legal(self, limit: int) -> int | None:
        """Number of legal queries, or None when there are more than `limit` to look at."""
        if self.size > limit:
            return None
        return sum(len(r) for r in self.legal_ranks())

    def value(self, rank: int) -> dict[str, Any]:
        cols = self.columns(np.array([rank], dtype=object if rank >= 1 << 63 else np.int64))
        return {a.name: to_python(a.domain.type, c, 0, self.strings)
                for a, c in zip(self.action.args, cols, strict=True)}

    def rank(self, values: dict[str, Any]) -> int:
        """Canonical rank of an argument tuple given as plain Python values."""
        r = 0
        for a in self.action.args:
            r = r * domain_size(a.domain) + rank_of(a.domain, values[a.name])
        return r


def rank_of(d: Domain, value: Any) -> int:
    """Canonical rank of a plain Python value in its domain (inverse of unrank)."""
    from sleuth.compiler.domains import set_elements, subset_ranks

    if d.kind == "multiset":
        from sleuth.compiler.domains import multiset_table

        rows = multiset_table(d.length, d.total)
        return int(np.flatnonzero((rows == np.asarray(value)).all(axis=1))[0])
    if d.listed is not None:
        from sleuth.compiler.domains import listed_rank

        r = listed_rank(d, value)
        if r is None:
            raise ValueError(value)
        return r
    if d.kind == "seq":
        r = 0
        for v in value:
            r = r * domain_size(d.elem) + rank_of(d.elem, v)
        return r
    if d.kind == "record":
        r = 0
        for name, f in d.fields:
            r = r * domain_size(f) + rank_of(f, value[name])
        return r
    if d.kind == "set":
        elems = set_elements(d.type)
        chosen = {elems.index(v) for v in value}
        if not d.sizes[0] <= len(chosen) <= d.sizes[1]:
            raise ValueError(value)
        mask = sum(1 << c for c in chosen)
        return int(subset_ranks(len(elems), d.sizes, np.array([mask]))[0])
    t = d.type
    if isinstance(t, IntT):
        return int(value) - t.lo
    if isinstance(t, BoolT):
        return int(bool(value))
    return t.values.index(value)


# ----------------------------------------------------------------------------- feedback

class FeedbackCoder:
    """Feedback components <-> one integer code (mixed radix, first component first)."""

    def __init__(self, action: CheckedAction, compiler: Compiler, strings: tuple[str, ...]):
        assert action.feedback is not None
        self.action = action
        self.strings = strings
        self.components = [(name, uid, node.type, compiler(node))
                           for name, uid, node in action.feedback]
        self.lets = [(uid, compiler(node)) for _, uid, node in action.lets]
        self.radices = [radix(t, strings) for _, _, t, _ in self.components]
        self.size = prod(self.radices)
        if self.size > 2**62:
            raise SpecError(f"the feedback of '{action.name}' has too many possible values "
                            f"({self.size:.3g}) to be coded as one integer", action.loc)
        # The smallest dtype that holds every code: the kernels fill (queries x hypotheses)
        # blocks of them, so a byte per cell where the feedback allows is a quarter of the
        # memory traffic of int32.
        self.dtype = np.dtype(next(t for t in (np.uint8, np.int16, np.int32, np.int64)
                                   if self.size <= np.iinfo(t).max + 1))
        self._str_rank: dict[StrT, np.ndarray] = {}  # string code -> rank, per string type

    def codes(self, ctx: Ctx, shape: tuple[int, int]) -> np.ndarray:
        """Evaluate every component in order; the (R, H) array of feedback codes."""
        for uid, fn in self.lets:
            ctx.env[uid] = fn(ctx)
        out = None
        for (_, uid, t, fn), r in zip(self.components, self.radices, strict=True):
            value = fn(ctx)
            ctx.env[uid] = value
            c = self.component_code(t, value)
            if out is None:
                out = np.broadcast_to(c, shape).astype(self.dtype)
            else:
                np.multiply(out, r, out=out)
                np.add(out, c, out=out, casting="unsafe")
        return out

    def component_code(self, t: Type, value: Any) -> Any:
        if isinstance(value, tuple):
            # The parts' codes first: their shapes (not the raw values', which may be
            # nested tuples read as extra axes) give the shape of the whole.
            parts = [(ct, self.component_code(ct, v))
                     for ct, v in zip(component_types(t), value, strict=True)]
            if not parts:
                return 0
            shape = np.broadcast_shapes(*(np.shape(c) for _, c in parts))
            out: Any = np.broadcast_to(parts[0][1], shape).astype(self.dtype)  # in place:
            for ct, c in parts[1:]:  # no temporary per part
                np.multiply(out, radix(ct, self.strings), out=out)
                np.add(out, c, out=out, casting="unsafe")
            return out
        if isinstance(t, IntT | UnionT):  # in int64 first: a constant need not fit
            return np.subtract(value, t.lo, dtype=np.int64).astype(self.dtype, copy=False)
        if isinstance(t, StrT):
            return self.string_ranks(t)[value]
        if isinstance(t, SetT | BoolT | EnumT):
            return np.asarray(value).astype(self.dtype)
        raise TypeError(t)

    def string_ranks(self, t: StrT) -> np.ndarray:
        """A string's rank among t's values, indexed by its code in the string table."""
        lookup = self._str_rank.get(t)
        if lookup is None:
            lookup = np.full(max(len(self.strings), 1), 0, dtype=np.int64)
            for k, s in enumerate(sorted(t.values)):
                lookup[self.strings.index(s)] = k
            self._str_rank[t] = lookup
        return lookup

    def decode(self, code: int) -> dict[str, Any]:
        """A feedback code as {component: plain Python value}."""
        parts = {}
        for (name, _, t, _), r in reversed(list(zip(self.components, self.radices,
                                                    strict=True))):
            parts[name] = decode(t, int(code % r), self.strings)
            code //= r
        return dict(reversed(list(parts.items())))

    def encode(self, values: dict[str, Any]) -> int:
        """The code of a feedback given as plain Python values (inverse of decode)."""
        from sleuth.compiler.domains import from_python
        from sleuth.compiler.feedback_codes import code

        out = 0
        for (name, _, t, _), r in zip(self.components, self.radices, strict=True):
            out = out * r + int(code(t, from_python(t, values[name], self.strings),
                                     self.strings))
        return out


CACHE_CELLS = 1 << 19  # (query, hypothesis) cells per kernel block, at most


def rows_per_chunk(hypotheses: int, budget: Budget, bytes_per_cell: int = 48) -> int:
    """Query rows per kernel block: within the memory budget, and at most CACHE_CELLS
    cells, so that a block's intermediate arrays stay in the processor's cache, where
    larger blocks spill out of it and run slower."""
    fit = budget.memory_bytes // max(1, hypotheses * bytes_per_cell)
    return max(1, min(fit, CACHE_CELLS // max(1, hypotheses)))


__all__ = ["Budget", "FeedbackCoder", "HypothesisTable", "QuerySpace", "build_hypotheses",
           "prior_weights", "product_size", "rank_of", "rows_per_chunk", "unrank_product"]

"""Counting by factors: the secret's variables (its *parts*) as the variables of a factor
graph, and each conjunct of its constraints as a factor over the parts it reads.

A conjunct (a constraint split at its top-level `and`s) is tabulated over the product
of its parts' domains by the vectorised kernels: a conjunct over one part is a mask
of that part's values, one over two parts a boolean matrix, and so on. The count
then conditions on every part but the last two, in declaration order: a join, part
by part, of the partial assignments that every factor they complete allows (a
factor is applied when its last part is joined, as a gather of its table's rows).
For each partial assignment, the values of each of the last two parts that its
factors allow are two vectors f and g, and the assignments it completes number
f · F · g, F the factor between the last two parts (all ones if none): one matrix
product per chunk of partial assignments.

Where every constraint of a secret of many parts is a relation between two of them
(no two pieces on a cell, all values different), the count costs the join over all
but two parts instead of the product of all their domains, and no decision diagram
is built. A factor over three parts or more is applied in the join too; one that
reaches the last two parts moves the split one part earlier (the last part is then
summed as a vector). A factor's table is bounded (TABLE_CELLS), and so is the join.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler import ir
from sleuth.compiler.boolean import secret_names
from sleuth.compiler.check import Model
from sleuth.compiler.domains import domain_size
from sleuth.compiler.enumerate import HypothesisTable, product_size, unrank_product
from sleuth.compiler.errors import BudgetError, SpecError, option
from sleuth.compiler.vectorise import Compiler, Ctx

TABLE_CELLS = 20_000_000  # the largest factor table tabulated
JOIN_ROWS = 50_000_000  # the most partial assignments the join keeps
CHUNK = 20_000  # partial assignments per matrix product


def conjuncts(node: ir.Node) -> list[ir.Node]:
    """A constraint split at its top-level `and`s."""
    if isinstance(node, ir.Binary) and node.op == "and":
        return conjuncts(node.left) + conjuncts(node.right)
    return [node]


class FactorGraph:
    """A model's constraints as factors over its secret's parts, and their count."""

    def __init__(self, model: Model):
        if model.prior is not None:
            raise SpecError("the factored backend counts hypotheses of a uniform prior; "
                            "this spec weighs its secrets", model.prior.loc,
                            hint=f'use {option("backend", "sdd")}')
        self.model = model
        self.parts = [v.name for v in model.secret]
        self.domains = [v.domain for v in model.secret]
        self.sizes = [domain_size(d) for d in self.domains]
        for name, size in zip(self.parts, self.sizes, strict=True):
            if size > TABLE_CELLS:
                raise BudgetError(f"the factored backend tabulates each part's values: "
                                  f"'{name}' has more than {TABLE_CELLS:,}",
                                  model.secret[self.parts.index(name)].loc,
                                  hint=f'use {option("backend", "sdd")}')
        self.masks = [np.ones(n, dtype=bool) for n in self.sizes]
        self.factors: list[tuple[tuple[int, ...], np.ndarray]] = []  # two parts or more
        self.empty = False  # a constant conjunct that is false
        compiler = Compiler(model.strings)
        for constraint in model.constraints:
            for node in conjuncts(constraint):
                self._add(node, compiler)

    def _add(self, node: ir.Node, compiler: Compiler) -> None:
        scope = tuple(sorted(self.parts.index(n) for n in secret_names(node)))
        domains = [self.domains[i] for i in scope]
        cells = product_size(domains)
        if cells > TABLE_CELLS:
            raise BudgetError(f"the factored backend tabulates each constraint over the "
                              f"parts it reads: '{node.text}' reads "
                              f"{', '.join(self.parts[i] for i in scope)}, "
                              f"{cells:,} combinations (at most {TABLE_CELLS:,})",
                              hint=f'use {option("backend", "sdd")} or cnf')
        ranks = np.arange(cells, dtype=np.int64)
        table = HypothesisTable([self.model.secret[i] for i in scope],
                                unrank_product(domains, ranks), ranks, self.model.strings)
        value = np.broadcast_to(np.asarray(compiler(node)(Ctx(table.env())), dtype=bool),
                                (1, cells))[0]
        if not scope:
            self.empty |= not bool(value[0])
        elif len(scope) == 1:
            self.masks[scope[0]] &= value
        else:
            self.factors.append((scope, value.reshape([self.sizes[i] for i in scope])))

    def describe(self) -> dict[str, Any]:
        return {"parts": len(self.parts), "factors": len(self.factors),
                "factor_cells": int(sum(t.size for _, t in self.factors))}

    def count(self) -> int:
        """The number of assignments every factor allows."""
        k = len(self.parts)
        if self.empty or not all(m.any() for m in self.masks):
            return 0
        if k == 1:
            return int(self.masks[0].sum())
        # the last two parts are summed as a matrix product when no factor over three
        # parts or more reaches them; else the last one alone, as a vector
        tail = 2 if all(len(s) == 2 or s[-1] < k - 2 for s, _ in self.factors) else 1
        prefix = self._join(k - tail)
        return self._finish(prefix, tail)

    def _join(self, upto: int) -> np.ndarray:
        """Every assignment of parts 0..upto-1 that the factors within them allow (with
        none, the one empty assignment)."""
        if upto == 0:
            return np.zeros((1, 0), dtype=np.int64)
        rows = np.flatnonzero(self.masks[0])[:, None].astype(np.int64)
        for j in range(1, upto):
            out = []
            for s in range(0, len(rows), CHUNK):
                chunk = rows[s:s + CHUNK]
                allowed = self._allowed(chunk, j)
                r, c = np.nonzero(allowed)
                out.append(np.concatenate([chunk[r], c[:, None]], axis=1))
            rows = np.concatenate(out) if out else np.zeros((0, j + 1), dtype=np.int64)
            if len(rows) > JOIN_ROWS:
                raise BudgetError(f"the factored count conditions on {j + 1} parts: "
                                  f"{len(rows):,} partial assignments, more than "
                                  f"{JOIN_ROWS:,}", hint=f'use {option("backend", "sdd")} or cnf')
        return rows

    def _allowed(self, chunk: np.ndarray, j: int) -> np.ndarray:
        """Which values of part j each partial assignment (of parts 0..j-1) allows: its
        mask and every factor whose last part is j and whose others are assigned."""
        allowed = np.broadcast_to(self.masks[j], (len(chunk), self.sizes[j])).copy()
        for scope, table in self.factors:
            if scope[-1] == j:
                allowed &= table[tuple(chunk[:, i] for i in scope[:-1])]
        return allowed

    def _finish(self, prefix: np.ndarray, tail: int) -> int:
        k = len(self.parts)
        total = 0
        if tail == 1:
            for s in range(0, len(prefix), CHUNK):
                total += int(self._allowed(prefix[s:s + CHUNK], k - 1).sum())
            return total
        x, y = k - 2, k - 1
        between = np.ones((self.sizes[x], self.sizes[y]), dtype=bool)
        for scope, table in self.factors:
            if scope == (x, y):
                between &= table
        if self.sizes[x] * self.sizes[y] >= 1 << 24:
            raise BudgetError(f"the factored count sums its last two parts as a matrix of "
                              f"{self.sizes[x]:,} x {self.sizes[y]:,} values: too many",
                              hint=f'use {option("backend", "sdd")} or cnf')
        weights = between.astype(np.float32)
        for s in range(0, len(prefix), CHUNK):
            chunk = prefix[s:s + CHUNK]
            fx, fy = self._outside(chunk, x, y), self._outside(chunk, y, x)
            # float32 is exact here: a row's sum is at most |x| * |y| < 2^24
            total += int(((fx @ weights) * fy).sum(axis=1).astype(np.int64).sum())
        return total

    def _outside(self, chunk: np.ndarray, j: int, other: int) -> np.ndarray:
        """Part j's values each partial assignment allows, by every factor over part j
        and assigned parts (the factor between j and `other` is the matrix)."""
        allowed = np.broadcast_to(self.masks[j], (len(chunk), self.sizes[j])).copy()
        for scope, table in self.factors:
            if j in scope and other not in scope:
                index = tuple(chunk[:, i] if i != j else slice(None) for i in scope)
                allowed &= table[index]
        return allowed.astype(np.float32)


__all__ = ["FactorGraph", "conjuncts"]

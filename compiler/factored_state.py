"""Beliefs on the factored counter: the constraints' factor graph (compiler/factored.py),
when every factor joins two parts, as bit sets over each part's allowed values, and the
facts observed since, as narrower masks and clauses (compiler/factored_facts.py).

A state counts its assignments and every part's marginals in one compiled pass
(compiler/factored_kernel.py), once; counts of many formulas at once (`counts`) are read
off those marginals where a formula is one clause whose parts exclude one another -- two
pieces never both hold a cell, so "some piece holds it" is the sum of "piece i holds it"
over the pieces -- and counted by a pass of their own otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sleuth.compiler.errors import BudgetError, SleuthError, option
from sleuth.compiler.factored_facts import MAX_CLAUSES, Clause, PartTables
from sleuth.compiler.factored_kernel import count_pairwise, list_pairwise, pack, unpack
from sleuth.compiler.memo import Memo

SAMPLE_BATCH = 1 << 16  # assignments drawn at a time when sampling by rejection
LEAST_ACCEPTANCE = 1e-3  # below this share of the product accepted, sample part by part


def pack_rows(rows: np.ndarray, words: int) -> np.ndarray:
    """Each row of a boolean matrix as a bit set of `words` words."""
    padded = np.zeros((rows.shape[0], words * 64), dtype=bool)
    padded[:, :rows.shape[1]] = rows
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64).copy()


class Pairwise:
    """A factor graph of pairwise factors over each part's values that its masks allow."""

    def __init__(self, masks: list[np.ndarray], factors: list[tuple[tuple[int, ...],
                                                                     np.ndarray]]):
        self.values = [np.flatnonzero(m) for m in masks]  # compressed -> domain rank
        self.domain_sizes = [len(m) for m in masks]
        k = len(masks)
        self.sizes = np.array([len(v) for v in self.values], dtype=np.int64)
        width = max(1, int(self.sizes.max()))
        self.words = (width + 63) // 64
        if float(np.prod(self.sizes.astype(float))) >= 2.0 ** 62:
            raise BudgetError("the factored count keeps counts in 64 bits: the parts' "
                              "product is too large", hint=f'use {option("backend", "sdd")}')
        everyone = [pack(np.arange(n), self.words) for n in self.sizes]
        self.B = np.zeros((k, k, width, self.words), dtype=np.uint64)
        for i in range(k):
            for j in range(k):
                if i != j:
                    self.B[i, j, :self.sizes[i]] = everyone[j]
        for (i, j), table in factors:
            sub = table[np.ix_(self.values[i], self.values[j])]
            self.B[i, j, :self.sizes[i]] &= pack_rows(sub, self.words)
            self.B[j, i, :self.sizes[j]] &= pack_rows(sub.T, self.words)
        self.start = FactState(self, np.array(everyone, dtype=np.uint64).reshape(k, -1), ())

    def compress(self, part: int, allowed: np.ndarray) -> np.ndarray:
        """A mask over a part's domain as a mask over its allowed values."""
        return allowed[self.values[part]]

    def exclusive(self, clause: Clause) -> bool:
        """Whether no two parts of the clause can take their clause values together."""
        parts = sorted(clause)
        for a, i in enumerate(parts):
            vi = np.flatnonzero(self.compress(i, clause[i]))
            for j in parts[a + 1:]:
                vj = pack(np.flatnonzero(self.compress(j, clause[j])), self.words)
                if (self.B[i, j, vi] & vj).any():
                    return False
        return True


@dataclass(frozen=True)
class FactState:
    """The allowed values of each part (bit sets) and the clauses that must hold."""

    graph: Pairwise
    masks: np.ndarray  # (parts, words) uint64
    clauses: tuple[Clause, ...]  # over compressed values
    memo: Memo = field(default_factory=Memo, compare=False, repr=False)
    # how its pass is derived from its parent's instead of run (`observe_read`)
    derived: Callable[[], tuple[int, np.ndarray, None]] | None = field(
        default=None, compare=False, repr=False)

    def conjoin(self, form: list[Clause]) -> FactState:
        """The state with a formula's clauses (over domain values) as well."""
        masks = self.masks.copy()
        clauses = list(self.clauses)
        for clause in form:
            parts = {p: self.graph.compress(p, m) for p, m in clause.items()}
            parts = {p: m for p, m in parts.items() if m.any()}
            if len(parts) == 1:
                (p, m), = parts.items()
                masks[p] &= pack(np.flatnonzero(m), self.graph.words)
            elif not parts:
                masks[:] = 0
            else:
                clauses.append(parts)
        if len(clauses) > MAX_CLAUSES - 1:
            raise BudgetError(f"the factored counter keeps at most {MAX_CLAUSES - 1} "
                              f"clauses over several parts; these facts need "
                              f"{len(clauses)}", hint=f'use {option("backend", "sdd")}')
        return FactState(self.graph, masks, tuple(clauses))

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, int]:
        """(sig, C, full) of the clauses (compiler/factored_kernel.py)."""
        g = self.graph
        k, width = len(g.sizes), g.B.shape[2]
        sig = np.zeros((k, width), dtype=np.uint64)
        C = np.zeros((k, max(1, len(self.clauses)), g.words), dtype=np.uint64)
        for c, clause in enumerate(self.clauses):
            for p, m in clause.items():
                sig[p, :len(m)] |= np.where(m, np.uint64(1) << np.uint64(c), np.uint64(0))
                C[p, c] = pack(np.flatnonzero(m), g.words)
        return sig, C, (1 << len(self.clauses)) - 1

    def _run(self) -> tuple[int, np.ndarray, np.ndarray | None]:
        """(count, marginals, count per group of part-0 values or None when derived): one
        pass, or its derivation, once."""
        g = self.graph
        return self.memo.get(("run",), self.derived or (
            lambda: count_pairwise(g.sizes, self.masks, g.B, *self._arrays())))

    def observe_read(self, reading: Reading) -> FactState:
        """The state with a formula that `reading` reads as one clause of exclusive parts
        ("some piece holds it") or its negation: `conjoin(reading.form)`, with its pass
        derived from passes of this state with one clause part narrowed to its clause values,
        run with that part first (each a small share of a whole pass). The parts exclude
        one another, so the assignments satisfying the clause are the sum of those
        narrowed passes (counts and marginals), and the others the rest of this state."""
        after = self.conjoin(reading.form)
        assert reading.sum is not None, "a formula read as one exclusive clause"
        narrowed = [(p, self.graph.compress(p, m)) for p, m in reading.sum.items()]

        def derive() -> tuple[int, np.ndarray, None]:
            count, marg = 0, np.zeros((len(self.masks), self.graph.B.shape[2]),
                                      dtype=np.int64)
            for part, allowed in narrowed:
                n, m = self._first(part, allowed)
                count, marg = count + n, marg + m
            if reading.negated:
                whole, every, _ = self._run()
                count, marg = whole - count, every - marg
            return count, marg, None

        return FactState(after.graph, after.masks, after.clauses, derived=derive)

    def _first(self, part: int, allowed: np.ndarray) -> tuple[int, np.ndarray]:
        """(count, marginals) of this state with `part` narrowed to `allowed` (over its
        compressed values), the part walked first."""
        g = self.graph
        masks = self.masks.copy()
        masks[part] &= pack(np.flatnonzero(allowed), g.words)
        if not masks[part].any():
            return 0, np.zeros((len(masks), g.B.shape[2]), dtype=np.int64)
        order = [part] + [p for p in range(len(masks)) if p != part]
        sig, C, full = self._arrays()
        n, marg, _ = count_pairwise(g.sizes[order], masks[order], g.B[order][:, order],
                                    sig[order], C[order], full)
        out = np.empty_like(marg)
        out[order] = marg
        return n, out

    def count(self) -> int:
        return self._run()[0]

    def part_counts(self) -> list[np.ndarray]:
        """Assignments giving each part each value of its domain (int64 per part), once."""
        def make() -> list[np.ndarray]:
            marg = self._run()[1]
            out = []
            for p, values in enumerate(self.graph.values):
                counts = np.zeros(self.graph.domain_sizes[p], dtype=np.int64)
                counts[values] = marg[p, :len(values)]
                out.append(counts)
            return out

        return self.memo.get(("part_counts",), make)

    def count_read(self, reading: Reading) -> int:
        """Assignments of this state that satisfy a formula (read by `Reading.of`)."""
        if reading.sum is not None:
            counts = self.part_counts()
            found = int(sum(counts[p][m].sum() for p, m in reading.sum.items()))
            return self.count() - found if reading.negated else found
        return self.conjoin(reading.form).count() if reading.form else self.count()

    def listing(self, limit: int) -> np.ndarray | None:
        """Every assignment (rows of domain ranks, in order), or None above `limit`."""
        if self.count() > limit:
            return None
        g = self.graph
        rows = list_pairwise(g.sizes, self.masks, g.B, *self._arrays(), self.count(),
                             self._run()[2])
        return self._ranked(rows)

    def _ranked(self, rows: np.ndarray) -> np.ndarray:
        """Rows of value indices as domain ranks."""
        return np.stack([self.graph.values[p][rows[:, p]] for p in range(rows.shape[1])],
                        axis=1)

    def sample(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """k assignments drawn uniformly (rows of domain ranks): by rejection from the
        product of the allowed values when enough of it is accepted, else part by part,
        each part drawn from its marginal given the parts before."""
        if self.count() == 0:
            raise SleuthError("no assignment left to sample")
        allowed = [np.flatnonzero(unpacked(self, p)) for p in range(len(self.masks))]
        product = float(np.prod([len(a) for a in allowed], dtype=float))
        if self.count() / product < LEAST_ACCEPTANCE:
            return self._ranked(np.array([self._one(rng) for _ in range(k)],
                                         dtype=np.int64).reshape(k, -1))
        sig, _, full = self._arrays()
        B, out, got = self.graph.B, [], 0
        while got < k:
            draw = [a[rng.integers(len(a), size=SAMPLE_BATCH)] for a in allowed]
            ok = np.ones(SAMPLE_BATCH, dtype=bool)
            for i in range(len(draw)):
                for j in range(i + 1, len(draw)):
                    words = B[i, j, draw[i], draw[j] >> 6]
                    ok &= (words >> (draw[j] & 63).astype(np.uint64)) & np.uint64(1) == 1
            if full:
                covered = np.zeros(SAMPLE_BATCH, dtype=np.uint64)
                for p, d in enumerate(draw):
                    covered |= sig[p, d]
                ok &= covered == np.uint64(full)
            rows = np.stack(draw, axis=1)[ok]
            out.append(rows[:k - got])
            got += len(out[-1])
        return self._ranked(np.concatenate(out))

    def _one(self, rng: np.random.Generator) -> list[int]:
        """One assignment, part by part (a count per part)."""
        state, chosen = self, []
        for p in range(len(self.masks)):
            marg = state._run()[1]
            weights = marg[p, :self.graph.sizes[p]].astype(float)
            v = int(rng.choice(len(weights), p=weights / weights.sum()))
            chosen.append(v)
            masks = state.masks.copy()
            masks[p] = pack(np.array([v]), self.graph.words)
            state = FactState(self.graph, masks, state.clauses)
        return chosen


@dataclass(frozen=True)
class Reading:
    """How a formula is counted: `sum`, when the formula (or, `negated`, its negation) is
    one clause whose parts exclude one another, is read off the marginals as the sum of
    its parts' clause values; else `form`, its clauses, is conjoined and counted."""

    form: list[Clause]
    sum: Clause | None = None
    negated: bool = False

    @staticmethod
    def of(start: FactState, tables: PartTables, formula: int) -> Reading:
        form = tables.clauses(formula)
        for clauses, negated in ((form, False), (tables.clauses(formula, False), True)):
            if len(clauses) == 1 and clauses[0] and start.graph.exclusive(clauses[0]):
                return Reading(form, clauses[0], negated)
        return Reading(form)


def unpacked(state: FactState, part: int) -> np.ndarray:
    """A part's allowed values (booleans over its compressed values)."""
    return unpack(state.masks[part], int(state.graph.sizes[part]))


__all__ = ["FactState", "Pairwise", "pack_rows"]

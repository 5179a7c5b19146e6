"""Every legal query's feedback code on every hypothesis, in one matrix: what the exact
searches (optimal, look-ahead) work from."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from sleuth.compiler.api import BudgetError, option
from sleuth.solver.infoset.codes import compact
from sleuth.solver.infoset.outcome_rows import stop_table
from sleuth.solver.infoset.queries import Candidates, Query, has_stop

if TYPE_CHECKING:
    from sleuth.solver.infoset.column_kernels import ColumnFloors, Columns
    from sleuth.solver.infoset.outcome_rows import OutcomeRows

SPARSE_CODES = 1 << 20  # codes above this are renumbered: (queries x codes) tables stay small


class OutcomeTable:
    """Every legal query's feedback code on every hypothesis, as one (queries x hypotheses)
    matrix in canonical query order, with the (query, code) pairs that end the game
    (`stop_when`), and the game's symmetries when its one query block can be a secret:
    what the exact searches (optimal, lookahead) work from."""

    note: str | None = None  # what a user should know of it (none: the dense table)

    def __init__(self, candidates: Candidates):
        from sleuth.solver.infoset.symmetry import detect

        game = candidates.game
        everyone = np.arange(game.hypotheses.size, dtype=np.int64)
        blocks = candidates.blocks
        need = dense_bytes(candidates)
        if need > game.budget.memory_bytes:
            raise too_large(candidates, need)
        self.queries = [Query(b.action.name, int(r)) for b in blocks for r in b.ranks.tolist()]
        codes = np.concatenate(
            [candidates.codes(b, np.arange(len(b.ranks)), game, everyone) for b in blocks]
        ) if blocks else np.zeros((0, len(everyone)), dtype=np.int64)
        top = int(codes.max()) + 1 if codes.size else 1
        if top > SPARSE_CODES:  # a vast code space: the codes that occur, numbered 0..n-1
            book, _, codes = compact(codes)  # (one numbering for the whole table: it tells
        else:                                # parts apart as the codes do)
            book = np.arange(top, dtype=np.int64)
        self.ncodes = len(book)
        self.book = book  # a code label -> the feedback's real code
        # The table is kept in the narrowest integer type (the compiled loops read it so);
        # `codes`, the same as int64, is made only when something asks for it: an int64
        # copy is eight times the memory, and its making a cost of every build.
        narrow = np.uint8 if self.ncodes <= 256 else np.int32
        self.small = codes if codes.dtype == narrow else codes.astype(narrow)
        self.offsets = (np.arange(len(self.queries), dtype=np.int64) * self.ncodes)[:, None]
        self.stops = np.zeros((len(self.queries), self.ncodes), dtype=bool)
        if has_stop(game):
            self._stops(candidates)
        self.symmetry = (detect(game, self.small, blocks[0].ranks)
                         if len(blocks) == 1 and blocks[0].secret_like else None)

    @cached_property
    def codes(self) -> np.ndarray:
        """The table (queries x hypotheses) as int64 code labels."""
        return self.small.astype(np.int64)

    def _stops(self, candidates: Candidates) -> None:
        """Whether each query's feedback ends the game, at the codes it gives (False at
        the others): outcome_rows.stop_table per block (once per code for an action
        whose `stop_when` reads the feedback alone), kept where the query gives it."""
        from sleuth.solver.infoset.outcome_kernels import codes_met

        given = codes_met(self.small, self.ncodes)  # one compiled pass, no fancy indexing
        start = 0
        for block in candidates.blocks:
            rows = slice(start, start + len(block.ranks))
            start += len(block.ranks)
            self.stops[rows] = given[rows] & stop_table(candidates, self.queries[rows],
                                                         self.book)

    @cached_property
    def most_going(self) -> int:
        """The most codes that go on (do not end the game) that one query gives on the
        whole set: no query parts any set in more. One compiled pass (going_sums, each
        going part counted 1), with no (queries x codes) matrix."""
        everyone = np.arange(self.small.shape[1], dtype=np.int64)
        ones = np.ones(len(everyone) + 1)
        ones[0] = 0.0
        parts = self.going_sums(everyone, ones, np.arange(len(self.queries), dtype=np.int64))
        return int(max(1.0, parts[np.isfinite(parts)].max(initial=1.0)))

    def counts(self, hyps: np.ndarray, queries: np.ndarray | None = None) -> np.ndarray:
        """Part sizes (queries x codes) of the hypotheses `hyps` under the queries (None:
        every one)."""
        codes = self.small[:, hyps] if queries is None else self.small[np.ix_(queries, hyps)]
        q = len(codes)
        flat = (codes + self.offsets[:q]).ravel()
        return np.bincount(flat, minlength=q * self.ncodes).reshape(q, self.ncodes)

    def row(self, q: int, hyps: np.ndarray) -> np.ndarray:
        """Query q's codes (int64) on `hyps`."""
        return self.small[q, hyps].astype(np.int64)

    def column_floors(self, lb_total: np.ndarray, lb_worst: np.ndarray) -> ColumnFloors | None:
        """The per-set floor read by hypothesis (column_kernels.py), for a search with
        these size bounds, over `columns`; None when there are no columns (more than 256
        codes occur) or the bounds have no shape it can use."""
        from sleuth.solver.infoset.column_kernels import ColumnFloors

        columns = self.columns
        return None if columns is None else ColumnFloors.make(columns.codes, columns.stops,
                                                              lb_total, lb_worst)

    @cached_property
    def columns(self) -> Columns | None:
        """The codes read by hypothesis (hypotheses x queries), one byte each, for the
        compiled passes of column_kernels.py; None when more than 256 codes occur."""
        from sleuth.solver.infoset.column_kernels import Columns

        return Columns.of(self.small, self.stops)

    def part_sizes(self, hyps: np.ndarray, lb_total: np.ndarray, lb_worst: np.ndarray,
                   active: np.ndarray) -> tuple[np.ndarray, ...]:
        """The queries `active`'s going part sizes at `hyps`, the lower bounds they give,
        and whether they end the game for some of it (outcome_kernels.part_sizes):
        (going, lbq, lbw, useful, ends), a row each."""
        from sleuth.solver.infoset.outcome_kernels import part_sizes

        return part_sizes(self.small, hyps, self.stops, lb_total, lb_worst, active)

    def least_bounds(self, hyps: np.ndarray, lb_total: np.ndarray, lb_worst: np.ndarray,
                     active: np.ndarray, allowed: np.ndarray, none: int) -> tuple[int, int]:
        """The least lower bounds on the total and the depth at `hyps` over the allowed
        useful queries of `active` (outcome_kernels.least_bounds)."""
        from sleuth.solver.infoset.outcome_kernels import least_bounds

        return least_bounds(self.small, hyps, self.stops, lb_total, lb_worst, active,
                            allowed, none)

    def going_sums(self, hyps: np.ndarray, cost: np.ndarray, active: np.ndarray
                   ) -> np.ndarray:
        """Per query of `active`: the sum of `cost[size]` over its going parts at `hyps`,
        inf where it makes no progress (outcome_kernels.going_sums)."""
        from sleuth.solver.infoset.outcome_kernels import going_sums

        return going_sums(self.small, hyps, self.stops, cost, active)

    def distinct(self, hyps: np.ndarray, active: np.ndarray, top: int = 0) -> np.ndarray:
        """The queries of `active` that part `hyps` as no earlier one of them does
        (outcome_kernels.distinct_rows), whatever the search tries (`top`)."""
        from sleuth.solver.infoset.column_kernels import distinct_by_columns, hashes_pay
        from sleuth.solver.infoset.outcome_kernels import distinct_rows

        if self.columns is not None and hashes_pay(len(active), len(self.queries)):
            return distinct_by_columns(self.columns.codes, hyps, self.columns.stops, active)
        return distinct_rows(self.small, hyps, self.stops, active)


def too_large(candidates: Candidates, need: int, why: str = "") -> BudgetError:
    """The refusal of a dense table of `need` bytes over the budget (`why`: what else
    was ruled out)."""
    game = candidates.game
    return BudgetError(
        f"the exact searches hold every query's code on every hypothesis: "
        f"{candidates.size:,} x {game.hypotheses.size:,} needs {need / 2**20:,.0f} MiB, over "
        f"the {game.budget.memory_mb} MiB budget{why}",
        hint=f'raise {option("memory_mb")} if the machine has it, or use a heuristic strategy')


def dense_bytes(candidates: Candidates) -> int:
    """What the dense table of a game takes: 8 bytes a cell for its codes, and 2 for the
    compiled passes' one-byte copies, read by query (`small`) and by hypothesis
    (`columns`)."""
    return candidates.size * candidates.game.hypotheses.size * 10


def searched_table(candidates: Candidates) -> OutcomeTable | OutcomeRows:
    """The table an exact search works from: the dense one when it fits the memory
    budget, else codes made on demand (outcome_rows.py) when the game allows them."""
    from sleuth.solver.infoset.outcome_rows import OutcomeRows

    need = dense_bytes(candidates)
    if need <= candidates.game.budget.memory_bytes:
        return OutcomeTable(candidates)
    rows = OutcomeRows.make(candidates)
    if rows is None:
        raise too_large(candidates, need, ", and codes made on demand need one block of "
                        "queries that can be secrets, a proved symmetry, no history rule "
                        "and no until_indistinguishable goal")
    # (the compiled kernel, search/compiled.py, reads the dense table only)
    mib = -(-need // 2**20)  # the least budget that holds the table
    rows.note = (f"the dense table of codes needs {mib:,} MiB, over the "
                 f"{candidates.game.budget.memory_mb} MiB budget: codes are made on demand, "
                 f"which can be many times slower (MM(4,7)'s optimal search: 86 s against "
                 f"4.4 s); {option('memory_mb')} {mib} or more gives the search the table")
    return rows


__all__ = ["OutcomeTable", "dense_bytes", "searched_table", "too_large"]

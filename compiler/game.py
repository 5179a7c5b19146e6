"""load_game(path) -> Game: a spec file read, checked and ready for the enumerated backend.

`Game` is what a solver sees: the checked model, the hypothesis table and
prior (built on first use), and per query its canonical argument space,
feedback coder and kernels. It also exposes the reference interpreter on
single points, so any result can be cross-checked the slow, obvious way.
"""

from __future__ import annotations

import math
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

from sleuth.compiler.check import BEFORE, CheckedAction, Model, Var, before_type, check_spec
from sleuth.compiler.counters import Counter, counter_class
from sleuth.compiler.domains import from_python, held_value, plain
from sleuth.compiler.enumerate import (
    Budget,
    FeedbackCoder,
    HypothesisTable,
    QuerySpace,
    build_hypotheses,
    prior_weights,
    product_size,
    raw_prior_weights,
    rows_per_chunk,
    satisfies_constraints,
    shaped,
    table_from_ranks,
)
from sleuth.compiler.errors import BudgetError, SpecError
from sleuth.compiler.hidden import hidden_from
from sleuth.compiler.interpret import evaluate
from sleuth.compiler.library import spec_path
from sleuth.compiler.memo import Memo, memoised
from sleuth.compiler.rules import SAID
from sleuth.compiler.source import Document
from sleuth.compiler.spec import read_spec
from sleuth.compiler.vectorise import Compiler, Ctx

if TYPE_CHECKING:
    from sleuth.compiler.symbolic import SymbolicSpace


def parse_overrides(items: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """`name=value` strings (values read as YAML scalars, or a hidden param's
    {hidden: [...], prior: [...]}) -> {name: value}."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise SpecError(f"--set expects name=value, got '{item}'", hint="e.g. --set pegs=5")
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError:
            value = text
        except ValueError:  # an integer longer than Python converts (4,300 digits)
            raise SpecError(f"--set {name.strip()}: a number of {len(text.strip()):,} "
                            "characters is too large", hint="integer params are at most "
                            "2**62") from None
        if isinstance(value, dict):  # a hidden param: {hidden: [values], prior: [weights]}
            value = hidden_from(value, name.strip())
        elif value is None or isinstance(value, list):
            raise SpecError(f"--set {name}: '{text}' is not a single value",
                            hint="a value, or {hidden: [values]} to make the param part of "
                                 "the secret")
        out[name.strip()] = value
    return out


def load_game(path: str | Path, overrides: dict[str, Any] | None = None,
              budget: Budget | None = None, data_anywhere: bool = False) -> Game:
    """Read, check and prepare a spec file (a path, or the name of a bundled spec).
    Its data files must lie in its folder (or below), unless data_anywhere."""
    doc = Document.from_path(spec_path(path), data_anywhere=data_anywhere)
    model = check_spec(read_spec(doc), overrides)
    return Game(model, budget or Budget())


def load_game_text(text: str, file: str = "<spec>", overrides: dict[str, Any] | None = None,
                   budget: Budget | None = None) -> Game:
    """As load_game, from spec text (file names the text in error messages)."""
    return Game(check_spec(read_spec(Document(text, file)), overrides), budget or Budget())


PROBE_ROWS = 16  # a probe block for the cost of a feedback cell: rows x hypotheses
PROBE_HYPOTHESES = 4096
CELL_BYTES = 48  # the least a cell is assumed to cost

# Memo entries a restricted game shares with its game: they do not depend on the table.
SHARED = frozenset({"space", "coder", "symbolic", "counter", "cell_bytes"})


class Game:
    """A checked game with its enumerated hypothesis space."""

    transient = False  # see `restricted`

    def __init__(self, model: Model, budget: Budget, memo: Memo | None = None,
                 compiler: Compiler | None = None):
        self.model = model
        self.budget = budget
        self.compiler = compiler or Compiler(model.strings)
        self.memo = memo or Memo()  # everything computed once from this game (memo.py)

    @property
    def name(self) -> str:
        return self.model.game

    # -- the hypothesis space

    @memoised
    def hypotheses(self) -> HypothesisTable:
        return build_hypotheses(self.model, self.compiler, self.budget)

    @memoised
    def prior(self) -> np.ndarray:
        return prior_weights(self.model, self.compiler, self.hypotheses)

    @property
    def entropy_bits(self) -> float:
        p = self.prior[self.prior > 0]
        return float(-(p * np.log2(p)).sum()) if self.model.prior is not None \
            else math.log2(self.hypotheses.size)

    @memoised
    def symbolic(self) -> SymbolicSpace:
        """The same hypothesis space in boolean form, for the counters (compiler/symbolic.py;
        imported here, on first use, with the libraries it needs)."""
        from sleuth.compiler.symbolic import SymbolicSpace

        return SymbolicSpace(self.model, memory_mb=self.budget.memory_mb)

    def counter(self, name: str) -> Counter:
        """The counting backend `name` over this game's symbolic space (one per game)."""
        return self.memo.get(("counter", name), lambda: counter_class(name)(self.symbolic))

    def restricted(self, ranks: np.ndarray, transient: bool = False) -> Game:
        """The same game whose hypothesis table holds only the hypotheses at these product
        ranks (sorted, distinct, consistent): how an information set counted on the
        symbolic backend, once small enough to list, is handed to the kernels.
        `transient`: made for one computation (a sample), not worth caching matrices for."""
        memo = Memo(parent=self.memo, shared=lambda key: key[0] in SHARED)
        memo.put(("hypotheses",), table_from_ranks(self.model, ranks))
        sub = Game(self.model, self.budget, memo, self.compiler)
        sub.transient = transient
        return sub

    def consistent(self, ranks: np.ndarray) -> np.ndarray:
        """Which product ranks are hypotheses: assignments satisfying the constraints, of
        positive prior weight."""
        table = table_from_ranks(self.model, ranks)
        keep = satisfies_constraints(self.model, self.compiler, table)
        if self.model.prior is not None and table.size:
            keep &= raw_prior_weights(self.model, self.compiler, table) > 0
        return keep

    def candidate_count(self) -> int:
        """Assignments of the secret before constraints (what enumeration would visit)."""
        return product_size([v.domain for v in self.model.secret])

    # -- queries

    def actions(self) -> list[CheckedAction]:
        return self.model.queries + self.model.observations

    def space(self, query: str) -> QuerySpace:
        return self.memo.get(("space", query), lambda: QuerySpace(
            self.model.action(query), self.compiler, self.model.strings))

    def coder(self, query: str) -> FeedbackCoder:
        action = self.model.action(query)
        if action.feedback is None:
            raise SpecError(f"'{query}' has a response, not a deterministic feedback")
        return self.memo.get(("coder", query), lambda: FeedbackCoder(
            action, self.compiler, self.model.strings))

    def feedback_matrix(self, query: str, ranks: np.ndarray,
                        hyp_index: np.ndarray | None = None) -> np.ndarray:
        """Feedback codes, shape (len(ranks), hypotheses), for queries at `ranks`."""
        coder = self.coder(query)
        h = self.hypotheses.size if hyp_index is None else len(hyp_index)
        need = len(ranks) * h * coder.dtype.itemsize
        if need > self.budget.memory_bytes:
            raise BudgetError(
                f"a feedback matrix of {len(ranks):,} queries x {h:,} hypotheses needs "
                f"{need / 2**20:,.0f} MiB, over the {self.budget.memory_mb} MiB budget",
                hint="raise --memory-mb, or ask for partition counts, which are chunked")
        out = np.empty((len(ranks), h), dtype=coder.dtype)
        for lo, hi, block in self._blocks(query, ranks, hyp_index):
            out[lo:hi] = block
        return out

    def partition_counts(self, query: str, ranks: np.ndarray,
                         hyp_index: np.ndarray | None = None) -> np.ndarray:
        """Hypotheses per feedback code: shape (len(ranks), feedback alphabet size)."""
        coder = self.coder(query)
        h = self.hypotheses.size if hyp_index is None else len(hyp_index)
        if len(ranks) * h > self.budget.max_pairs:
            raise BudgetError(
                f"scoring {len(ranks):,} queries against {h:,} hypotheses is "
                f"{len(ranks) * h:,} pairs, over the budget of {self.budget.max_pairs:,}",
                hint="raise --max-pairs, or sample queries")
        need = len(ranks) * coder.size * 8
        if need > self.budget.memory_bytes:
            raise BudgetError(
                f"counting the parts of {len(ranks):,} queries over '{query}''s "
                f"{coder.size:,} possible feedback codes needs {need / 2**20:,.0f} MiB, over "
                f"the {self.budget.memory_mb} MiB budget",
                hint="raise --memory-mb, or narrow the feedback's values")
        out = np.zeros((len(ranks), coder.size), dtype=np.int64)
        for lo, hi, block in self._blocks(query, ranks, hyp_index):
            offsets = (np.arange(hi - lo, dtype=np.int64) * coder.size)[:, None]
            flat = np.bincount((block + offsets).ravel(), minlength=(hi - lo) * coder.size)
            out[lo:hi] = flat.reshape(hi - lo, coder.size)
        return out

    def _blocks(self, query: str, ranks: np.ndarray, hyp_index: np.ndarray | None):
        coder, space = self.coder(query), self.space(query)
        if hyp_index is None:
            hyp_env, cache = self.hypotheses.env(), self.memo.get(("kernel",), dict)
            h = self.hypotheses.size
        else:
            hyp_env, cache, h = self.hypotheses.env(hyp_index), {}, len(hyp_index)
        step = rows_per_chunk(h, self.budget, self.cell_bytes(query, h))
        for lo in range(0, len(ranks), step):
            hi = min(len(ranks), lo + step)
            ctx = Ctx({**hyp_env, **space.env(ranks[lo:hi])}, cache=cache)
            yield lo, hi, coder.codes(ctx, (hi - lo, h))

    def cell_bytes(self, query: str, h: int) -> int:
        """Bytes a (query, hypothesis) cell of a feedback block allocates at its peak,
        measured once per query on a small probe block (tracemalloc sees numpy's
        allocations): the chunks are sized from it to keep within --memory-mb."""
        def probe() -> int:
            space, coder = self.space(query), self.coder(query)
            rows = next(space.legal_ranks(chunk=PROBE_ROWS), np.arange(0))[:PROBE_ROWS]
            n = min(h, PROBE_HYPOTHESES)
            if not len(rows) or not n:
                return CELL_BYTES
            env = self.hypotheses.env(np.arange(n))
            tracing = tracemalloc.is_tracing()
            if not tracing:
                tracemalloc.start()
            try:
                tracemalloc.reset_peak()
                start = tracemalloc.get_traced_memory()[0]
                coder.codes(Ctx({**env, **space.env(rows)}), (len(rows), n))
                peak = tracemalloc.get_traced_memory()[1] - start
            finally:
                if not tracing:
                    tracemalloc.stop()
            return max(CELL_BYTES, -(-peak // (len(rows) * n)))

        return self.memo.get(("cell_bytes", query), probe)

    def false_answers(self, query: str, codes: list[int]) -> np.ndarray:
        """(truth, said) over feedback `codes`: whether a lie may answer `said` when the
        truth is `truth` -- any other value, or those the spec's `lies: allowed:` rule
        allows (evaluated by the reference interpreter, once per pair)."""
        out = ~np.eye(len(codes), dtype=bool)
        lies = self.model.lies
        rule = None if lies is None else lies.false.get(query)
        if rule is None:
            return out
        action = self.model.action(query)
        coder = self.coder(query)
        values = [coder.decode(int(c)) for c in codes]
        types = {name: node.type for name, _, node in action.feedback or []}
        held = [{name: held_value(types[name], v) for name, v in value.items()}
                for value in values]
        for i, truth in enumerate(held):
            env: dict[str, Any] = {uid: truth[name] for name, uid, _ in action.feedback or []}
            for j, said in enumerate(held):
                if i != j:
                    env[SAID] = said
                    out[i, j] = bool(evaluate(rule, env))
        return out

    # -- one point at a time (the reference path)

    def reference_feedback(self, query: str, args: dict[str, Any],
                           hypothesis: dict[str, Any]) -> dict[str, Any]:
        """Feedback of one query on one hypothesis, by the reference interpreter."""
        action = self.model.action(query)
        env = {**hypothesis, **args}
        out = {}
        for _, uid, node in action.evaluated():
            env[uid] = evaluate(node, env)
        for name, uid, node in action.feedback or []:
            out[name] = plain(node.type, env[uid])
        return out

    def kernel_feedback(self, query: str, args: dict[str, Any],
                        hypothesis: dict[str, Any]) -> dict[str, Any]:
        """Feedback of one query on one hypothesis, through the vectorised kernels."""
        action = self.model.action(query)
        env = {**self.point_env(action.args, args, "row"),
               **self.point_env(self.model.secret, hypothesis, "hyp")}
        coder = self.coder(query)
        code = coder.codes(Ctx(env), (1, 1))[0, 0]
        return coder.decode(int(code))

    def history_allows(self, query: str, ranks: np.ndarray,
                       earlier: list[tuple[int, int]]) -> np.ndarray:
        """Which queries at `ranks` keep the action's `history` rule against each of its
        earlier queries, given as (argument rank, feedback code) pairs."""
        return self.history_rule(query, ranks)(earlier)

    def history_rule(self, query: str, ranks: np.ndarray
                     ) -> Callable[[list[tuple[int, int]]], np.ndarray]:
        """`history_allows` for the queries at `ranks`, as a function of the earlier
        pairs: their arguments are decoded once, for a search that asks it of many."""
        action = self.model.action(query)
        if not action.history:
            return lambda earlier: np.ones(len(ranks), dtype=bool)
        space, coder = self.space(query), self.coder(query)
        rules = self.memo.get(("history", query),
                              lambda: [self.compiler(c) for c in action.history])
        env = space.env(ranks)
        record = before_type(action.args, action.feedback)

        def allows(earlier: list[tuple[int, int]]) -> np.ndarray:
            keep = np.ones(len(ranks), dtype=bool)
            for rank, code in earlier:
                before = from_python(record, {**space.value(rank), **coder.decode(code)},
                                     self.model.strings)
                ctx = Ctx({**env, BEFORE: before})
                for rule in rules:
                    keep &= np.broadcast_to(np.asarray(rule(ctx)), (len(ranks), 1))[:, 0]
            return keep

        return allows

    def point_env(self, variables: list[Var], values: dict[str, Any],
                  axis: str) -> dict[str, Any]:
        """Kernel inputs for one point: each variable's plain value as a 1 x 1 block."""
        strings = self.model.strings
        return {v.name: shaped(as_column(from_python(v.domain.type, values[v.name], strings)),
                               axis) for v in variables}


def as_column(value: Any) -> Any:
    """An encoded plain value as length-1 arrays (tuples component-wise)."""
    if isinstance(value, tuple):
        return tuple(as_column(v) for v in value)
    return np.asarray([value])


__all__ = ["Budget", "Game", "load_game", "load_game_text", "parse_overrides"]

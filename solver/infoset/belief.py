"""Beliefs: the information set over the enumerated hypotheses, with weights.

A `Belief` is the sorted indices of the hypotheses still possible and, unless
they are all equally likely, their log weights. Keeping "uniform" as a state
of its own (no weights at all) is what lets strategies score with exact
integer partition counts: conditioning on a deterministic feedback keeps it
uniform, and so does a Bayes update whose likelihood is the same for every
surviving hypothesis. Beliefs are immutable; every update returns a new one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from sleuth.compiler.api import (
    BoolT,
    EnumT,
    Game,
    IntT,
    Loc,
    ObservationError,
    RecordT,
    SeqT,
    SetT,
    answer_likelihood,
    position_name,
    set_elements,
    show_value,
)
from sleuth.solver.infoset.protocol import Branch

if TYPE_CHECKING:
    from sleuth.solver.infoset.observe import Event
    from sleuth.solver.infoset.queries import Block, Candidates, Query



class InconsistentObservations(ObservationError):
    """No hypothesis explains an observation (the belief it would update is unchanged)."""


class Belief:
    """Which hypotheses remain possible (`index`) and how likely each is."""

    def __init__(self, game: Game, index: np.ndarray, logw: np.ndarray | None = None,
                 history: tuple[tuple[str, int, int], ...] = (),
                 lied: np.ndarray | None = None):
        self.game = game
        self.index = index
        self.logw = logw  # None: uniform over index
        self.history = history  # (action, argument rank, feedback code) per query asked
        # a game whose answers may lie (`lies:`): the lies each listed hypothesis needs to
        # explain the answers so far (None: none yet); the lies are an adversary's, so the
        # hypotheses are the possible ones, equally weighted (solver/infoset/lies.py)
        self.lied = lied

    def _like(self, index: np.ndarray, logw: np.ndarray | None = None,
              lied: np.ndarray | None = None) -> Belief:
        """Another belief after the same queries."""
        return Belief(self.game, index, logw, self.history, lied)

    def after(self, action: str, rank: int, code: int) -> Belief:
        """The same hypotheses, with one more query (and its feedback) in the history."""
        return Belief(self.game, self.index, self.logw, self.history + ((action, rank, code),),
                      self.lied)

    def lie_state(self) -> np.ndarray:
        """One int8 per hypothesis of the game: -1 ruled out, else the lies it needs."""
        state = np.full(self.game.hypotheses.size, -1, dtype=np.int8)
        state[self.index] = 0 if self.lied is None else self.lied
        return state

    @classmethod
    def prior(cls, game: Game) -> Belief:
        """The belief before any observation: the spec's prior over the hypotheses."""
        if game.model.prior is None:
            return cls(game, np.arange(game.hypotheses.size, dtype=np.int64))
        p = game.prior
        index = np.flatnonzero(p > 0).astype(np.int64)
        return cls(game, index, np.log(p[index]))._simplified()

    # -- size and probabilities

    @property
    def size(self) -> int:
        return len(self.index)

    @property
    def uniform(self) -> bool:
        return self.logw is None

    def probabilities(self) -> np.ndarray:
        """Normalised probabilities of the hypotheses in `index`."""
        if self.logw is None:
            return np.full(self.size, 1.0 / self.size)
        w = np.exp(self.logw - self.logw.max())
        return w / w.sum()

    def entropy_bits(self) -> float:
        if self.logw is None:
            return math.log2(self.size)
        p = self.probabilities()
        p = p[p > 0]
        return float(-(p * np.log2(p)).sum())

    def kl_bits(self, before: Belief) -> float:
        """KL(self || before) in bits: the information gained since `before` (an earlier
        belief this one was updated from; a counted one on the symbolic backend, when both
        are uniform)."""
        if before.game is not self.game:
            if not (self.uniform and before.uniform):
                raise ValueError("KL between beliefs over different tables needs uniform ones")
            return math.log2(before.size / self.size)
        p = self.probabilities()
        qs = before.probabilities()[np.searchsorted(before.index, self.index)]
        keep = p > 0
        return float((p[keep] * np.log2(p[keep] / qs[keep])).sum())

    # -- updates

    def restrict(self, keep: np.ndarray, what: str | Callable[[], str],
                 loc: Loc | None = None) -> Belief:
        """Condition on an event that keeps the hypotheses where `keep` is true (`what`
        names it in an error message, or is a function that does)."""
        if not keep.any():
            raise InconsistentObservations(
                f"inconsistent observations: no remaining hypothesis gives {_text(what)}", loc,
                hint="check the values typed; the belief is unchanged")
        logw = None if self.logw is None else self.logw[keep]
        lied = None if self.lied is None else self.lied[keep]
        return self._like(self.index[keep], logw, lied)._simplified()

    def update(self, likelihood: np.ndarray, what: str | Callable[[], str],
               loc: Loc | None = None) -> Belief:
        """Bayes' rule with P(observation | hypothesis) for each hypothesis in `index`."""
        likelihood = np.asarray(likelihood, dtype=np.float64)
        if np.any(likelihood < 0) or not np.all(np.isfinite(likelihood)):
            raise ObservationError(f"the likelihood of {_text(what)} is negative or not finite",
                                   loc)
        keep = likelihood > 0
        if not keep.any():
            raise InconsistentObservations(
                f"inconsistent observations: {_text(what)} has likelihood 0 under every remaining "
                "hypothesis", loc,
                hint="check the values typed; the belief is unchanged. If the responder "
                     "can play off the model, give the response a tremble (e.g. "
                     "tremble: 0.01; docs/spec-language.md)")
        lik = likelihood[keep]
        if self.logw is None and np.all(lik == lik[0]):
            return self._like(self.index[keep])
        base = np.zeros(int(keep.sum())) if self.logw is None else self.logw[keep]
        logw = base + np.log(lik)
        return self._like(self.index[keep], logw - logw.max())._simplified()

    def _simplified(self) -> Belief:
        if self.logw is not None and self.size and np.all(self.logw == self.logw[0]):
            return self._like(self.index, None, self.lied)
        return self

    def observe(self, event: Event) -> Belief:
        """The belief after an observation: deterministic feedback keeps the hypotheses that
        give it; a random answer updates by its likelihood (Bayes' rule)."""
        game = self.game

        def what() -> str:  # formatted only for an error message
            return f"'{event.describe()}'"

        if event.feedback is not None:
            rank = game.space(event.action).rank(event.args)
            code = game.coder(event.action).encode(event.feedback)
            check_history(game, event, rank, self.history)
            codes = game.feedback_matrix(event.action, np.array([rank]), self.index)[0]
            if game.model.lies is not None:
                return self._lied(event, rank, code, codes, what)
            return self.restrict(codes == code, what, event.loc).after(event.action, rank,
                                                                          code)
        lik = answer_likelihood(game, event.action, event.args, event.answer, self.index)
        return self.update(lik, what, event.loc)

    def _lied(self, event: Event, rank: int, code: int, codes: np.ndarray,
              what: Callable[[], str]) -> Belief:
        """After feedback `code` in a game with lies: a hypothesis whose true feedback it
        is keeps its lies; one for which it is an allowed false answer, with lies left,
        needs one more; the others are ruled out."""
        from sleuth.solver.infoset.lies import OUT, answered

        game = self.game
        lied = np.zeros(len(self.index), dtype=np.int8) if self.lied is None else self.lied
        truths = np.unique(codes)
        allowed = game.false_answers(event.action, [*truths.tolist(), code])[:len(truths), -1]
        may_lie = allowed[np.searchsorted(truths, codes)]
        new = answered(lied, codes, code, may_lie, game.model.lies.budget)
        keep = new != OUT
        if not keep.any():
            raise InconsistentObservations(
                f"inconsistent observations: no remaining hypothesis gives {_text(what)}, "
                f"even with the lies left", event.loc,
                hint="check the values typed; the belief is unchanged")
        return Belief(game, self.index[keep], None, self.history,
                      new[keep].astype(np.int8)).after(
            event.action, rank, code)

    def branch(self, query: Query, candidates: Candidates) -> Branch:
        codes = candidates.query_codes(query, self)

        def codes_of(ranks: np.ndarray) -> np.ndarray:
            where = np.searchsorted(self.game.hypotheses.ranks, ranks)
            return codes[np.searchsorted(self.index, where)]

        return Branch(codes_of, lambda code: self.restrict(codes == code, "feedback").after(
            query.action, query.rank, code))

    def partition(self, candidates: Candidates, block: Block,
                  positions: np.ndarray) -> np.ndarray:
        """Outcome partition of each query at `positions`: (queries, parts) counts
        (uniform) or probability masses; feedbacks no query produces are dropped."""
        index, game = self.index, self.game
        weights = None if self.uniform else self.probabilities()
        out = []
        step = max(1, (game.budget.memory_bytes // 16) // max(1, len(index)))
        for lo in range(0, len(positions), step):
            out.append(candidates.part_counts(block, positions[lo:lo + step], game, index,
                                              weights))
        width = max(o.shape[1] for o in out)
        parts = out[0] if len(out) == 1 else np.concatenate(
            [np.pad(o, ((0, 0), (0, width - o.shape[1]))) for o in out])
        seen = parts.any(axis=0)
        return parts if seen.all() else parts[:, seen]

    # -- as a list, as a sample (already listed: itself)

    def settled(self, exhaustive: bool = False) -> Belief:
        return self

    def listing(self, limit: int | None = None) -> Belief:
        return self

    def contains(self, ranks: np.ndarray) -> np.ndarray:
        table = self.game.hypotheses.ranks[self.index]
        if not len(table):
            return np.zeros(len(ranks), dtype=bool)
        pos = np.minimum(np.searchsorted(table, ranks), len(table) - 1)
        return table[pos] == ranks

    def draw(self, k: int, rng: np.random.Generator, deadline: float | None = None) -> Belief:
        """All hypotheses when there are at most k, else k drawn by weight without
        replacement."""
        if self.size <= k:
            return self
        p = None if self.uniform else self.probabilities()
        chosen = rng.choice(self.size, size=k, replace=False, p=p)
        return self._like(self.index[np.sort(chosen)])

    def determinisations(self, k: int, rng: np.random.Generator,
                         deadline: float | None = None) -> Belief:
        return self

    def secrets(self, n: int | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """Every hypothesis, or n of them drawn uniformly without replacement (seeded);
        keys are their indices in the game's table."""
        index = self.index
        if n is not None and n < self.size:
            rng = np.random.default_rng(seed)
            index = np.sort(rng.choice(self.index, size=n, replace=False))
        return self.game.hypotheses.ranks[index], index

    def prior_weights(self, ranks: np.ndarray) -> np.ndarray:
        return self.game.prior[np.searchsorted(self.game.hypotheses.ranks, ranks)]

    # -- what is known

    def values(self, name: str) -> Any:
        """The encoded column of secret variable `name`, for the hypotheses in `index`."""
        table = self.game.hypotheses
        k = [v.name for v in table.variables].index(name)
        return taken(table.columns[k], self.index)

    def determined(self, names: list[str]) -> bool:
        """True when each named variable has a single possible value."""
        for name in names:
            col = self.values(name)
            for c in (col if isinstance(col, tuple) else (col,)):
                if len(c) and np.any(c != c[0]):
                    return False
        return True

    def goal_posterior(self, names: list[str]) -> tuple[dict[str, Any], float]:
        """The most likely joint value of the named variables, and its posterior."""
        p = self.probabilities()
        columns = []
        for name in names:
            col = self.values(name)
            columns += list(col) if isinstance(col, tuple) else [col]
        keys = np.stack([np.asarray(c, dtype=np.int64) for c in columns], axis=1)
        uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
        mass = np.bincount(inverse.ravel(), weights=p, minlength=len(uniq))
        best = int(np.argmax(mass))
        at = int(np.flatnonzero(inverse.ravel() == best)[0])
        value = self.game.hypotheses.value(int(self.index[at]))
        return {n: value[n] for n in names}, float(mass[best])

    def marginals(self) -> dict[str, dict[Any, float]]:
        """P(value) per secret variable; sequences per position, sets per element, records
        per field."""
        p = self.probabilities()
        out: dict[str, dict[Any, float]] = {}
        for v in self.game.hypotheses.variables:
            _marginals(v.name, v.domain.type, self.values(v.name), p, out)
        return out

    def top(self, k: int) -> list[tuple[dict[str, Any], float]]:
        """The k most likely hypotheses (ties in canonical order) with their probabilities,
        each value as JSON data (sets as sorted lists, sequences as lists)."""
        p = self.probabilities()
        order = np.argsort(-p, kind="stable")[:k]
        return [({k: show_value(v) for k, v in self.game.hypotheses.value(
            int(self.index[i])).items()}, float(p[i])) for i in order]


def _text(what: str | Callable[[], str]) -> str:
    return what() if callable(what) else what


def _marginals(name: str, t: Any, col: Any, p: np.ndarray,
               out: dict[str, dict[Any, float]]) -> None:
    if isinstance(t, SeqT):
        for i, c in enumerate(col):
            _marginals(f"{name}[{position_name(t, i)}]", t.elem, c, p, out)
    elif isinstance(t, RecordT):
        for (field, ft), c in zip(t.fields, col, strict=True):
            _marginals(f"{name}.{field}", ft, c, p, out)
    elif isinstance(t, SetT):
        masks = np.asarray(col, dtype=np.int64)
        out[name] = {e: float(p[(masks >> b) & 1 == 1].sum())
                     for b, e in enumerate(set_elements(t))}
    elif isinstance(t, IntT | EnumT | BoolT):
        ranks = np.asarray(col, dtype=np.int64) - (t.lo if isinstance(t, IntT) else 0)
        labels = (list(range(t.lo, t.hi + 1)) if isinstance(t, IntT) else
                  list(t.values) if isinstance(t, EnumT) else [False, True])
        mass = np.bincount(ranks, weights=p, minlength=len(labels))
        out[name] = {label: float(m) for label, m in zip(labels, mass, strict=True)}




def check_history(game: Game, event: Event, rank: int,
                  history: tuple[tuple[str, int, int], ...]) -> None:
    """An ObservationError when the query of `event` breaks its action's `history` rule
    against an earlier query of it."""
    from sleuth.solver.infoset.observe import query_text

    earlier = [(r, c) for a, r, c in history if a == event.action]
    for before in earlier:
        if not game.history_allows(event.action, np.array([rank]), [before])[0]:
            raise ObservationError(
                f"'{event.query_text()}' breaks the history rule of '{event.action}' (it "
                f"must hold against every earlier {event.action}) after "
                f"'{query_text(event.action, game.space(event.action).value(before[0]))}'",
                event.loc, hint="the spec's `history:` says what each query must keep of "
                                "the earlier ones")


def taken(col: Any, index: np.ndarray) -> Any:
    """An encoded column's rows `index`: a sequence's or record's column is a tuple of
    columns, nested as deep as its type (a sequence of records: a tuple of tuples)."""
    return tuple(taken(c, index) for c in col) if isinstance(col, tuple) else col[index]


__all__ = ["Belief", "InconsistentObservations", "check_history"]

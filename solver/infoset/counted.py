"""Counted beliefs: an information set kept as facts and counted, never listed.

For hypothesis spaces too large to enumerate (a deal of 21 cards to 8
holders, a code of 8 pegs in 10 colours), a `CountedBelief` holds the spec's
constraints and every observed feedback as formulas of the boolean lowering,
in the state of one counter (compiler/counters: `sdd` a decision diagram,
`cnf` clauses counted by Ganak, `approx` ApproxMC and UniGen). With a
weighted prior each hypothesis weighs its weight class's weight. Beliefs are
immutable, like the enumerated ones; a fact that no hypothesis satisfies
raises "inconsistent observations" and changes nothing.

Strategies see it through the information-set protocol. Once it keeps at most
`list_limit` hypotheses, `settled` lists them into a restricted game (a
hypothesis table of exactly those) and the belief continues as an ordinary
enumerated `Belief`, scored by the vectorised kernels; before that, sampled
strategies draw samples from the counter, and exhaustive ones partition by
conditioned counts.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from sleuth.compiler.api import (
    BudgetError,
    Counter,
    Game,
    Loc,
    Memo,
    ObservationError,
    SleuthError,
    memoised,
    option,
)
from sleuth.solver.infoset.belief import Belief, InconsistentObservations, check_history
from sleuth.solver.infoset.protocol import Branch
from sleuth.solver.wording import counted, plural

if TYPE_CHECKING:
    from sleuth.solver.infoset.observe import Event
    from sleuth.solver.infoset.queries import Block, Candidates, Query

LISTABLE = 64  # beliefs this small can list their hypotheses (for `top`)
LIST_LIMIT = 50_000  # a counted belief this small is listed and scored by the kernels
COUNT_QUERIES = 2_000  # queries an exhaustive strategy may partition by model counts
SAMPLE_BATCH = 64  # samples drawn between two looks at the clock


class CountedBelief:
    """Hypotheses satisfying the constraints and `facts`, counted by the `backend`
    counter; with a weighted prior, each weighs its class's weight (SymbolicSpace.classes).
    """

    def __init__(self, game: Game, backend: str = "sdd", facts: tuple[int, ...] = (),
                 state: Any = None, observed: tuple[tuple[str, int, int], ...] = (),
                 list_limit: int = LIST_LIMIT):
        self.memo = Memo()
        self.game = game
        self.backend = backend
        self.counter: Counter = game.counter(backend)
        self.space = game.symbolic
        self.facts = facts
        self.observed = observed  # (action, argument rank, feedback code) per event
        self.list_limit = list_limit  # listed (and scored by the kernels) at this size
        self._state = state
        self._listed: Belief | None = None  # the listing, once made

    @property
    def history(self) -> tuple[tuple[str, int, int], ...]:
        """(action, argument rank, feedback code) per query asked (as `observed`)."""
        return self.observed

    @classmethod
    def prior(cls, game: Game, backend: str = "sdd", list_limit: int = LIST_LIMIT
              ) -> CountedBelief:
        return cls(game, backend, list_limit=list_limit)

    # -- counting

    @property
    def state(self) -> Any:
        """The counter's state: the constraints and every fact."""
        if self._state is None:
            self._state = self.counter.conjoin(self.counter.start(), *self.facts)
        return self._state

    @property
    def diagram(self) -> Any:
        """The state (a decision diagram on the sdd backend)."""
        return self.state

    def count_with(self, *formulas: int) -> int:
        """Hypotheses of this belief that also satisfy the formulas."""
        return self.counter.count(self.counter.conjoin(self.state, *formulas))

    @memoised
    def size(self) -> int:
        """How many hypotheses (of positive prior weight) remain: with no constraint and no
        fact, every assignment of the secret, known without a count."""
        if not self.facts and not self.game.model.constraints and self.space.uniform:
            return self.game.candidate_count()
        return self.count_with()

    @property
    def uniform(self) -> bool:
        return self.space.uniform

    @memoised
    def class_states(self) -> list[Any]:
        """The state restricted to each prior weight class."""
        return [self.counter.conjoin(self.state, f) for _, f in self.space.classes]

    @memoised
    def class_counts(self) -> list[tuple[float, int, int]]:
        """(weight, formula, hypotheses) per prior weight class."""
        if self.uniform:
            return [(1, self.space.classes[0][1], self.size)]
        return [(w, f, self.counter.count(s))
                for (w, f), s in zip(self.space.classes, self.class_states, strict=True)]

    @memoised
    def mass(self) -> float:
        """Total prior weight of the remaining hypotheses (= size when uniform)."""
        return sum(w * n for w, _, n in self.class_counts)

    def mass_with(self, *formulas: int) -> float:
        """Prior weight of the hypotheses that also satisfy the formulas."""
        if self.uniform:
            return self.count_with(*formulas)
        return sum(w * self.count_with(f, *formulas) for w, f, n in self.class_counts if n)

    def entropy_bits(self) -> float:
        if self.uniform:
            return math.log2(self.size)
        # p(h) = w/W for the n_w hypotheses of weight w: H = log W - sum n_w w log w / W
        return math.log2(self.mass) - sum(
            n * w * math.log2(w) for w, _, n in self.class_counts if n) / self.mass

    def kl_bits(self, before: Any) -> float:
        """KL(self || before), self a restriction of before by deterministic facts: minus
        the log of the prior mass of what remains."""
        return math.log2(before.mass / self.mass)

    # -- updates

    def condition(self, formula: int, what: str, loc: Loc | None = None,
                  observed: tuple[str, int, int] | None = None) -> CountedBelief:
        """The belief after a fact; `observed` = (action, argument rank, feedback code)
        records it for `contains`."""
        record = self.observed + ((observed,) if observed is not None else ())
        after = CountedBelief(self.game, self.backend, self.facts + (formula,),
                              self.counter.conjoin(self.state, formula), record, self.list_limit)
        if not self.counter.satisfiable(after.state):
            raise InconsistentObservations(
                f"inconsistent observations: no remaining hypothesis gives {what}", loc,
                hint="check the values typed; the belief is unchanged")
        return after

    def observe(self, event: Event) -> CountedBelief:
        """The belief after an observed deterministic feedback (a fact)."""
        what = f"'{event.describe()}'"
        if self.game.model.lies is not None:
            raise ObservationError(f"{what}: the {self.backend} backend takes each answer as "
                                   "a fact, and this game's answers may lie (`lies:`)",
                                   event.loc, hint=f'{option("backend", "enum")} (it tracks the '
                                                   'lies)')
        if event.feedback is None:
            raise ObservationError(f"{what}: the {self.backend} backend conditions on "
                                   "deterministic feedback; random answers need the "
                                   "enumerated backend", event.loc,
                                   hint=option("backend", "enum"))
        game = self.game
        observed = (event.action, game.space(event.action).rank(event.args),
                    game.coder(event.action).encode(event.feedback))
        check_history(game, event, observed[1], self.observed)
        return self.condition(self.space.fact(event.action, event.args, event.feedback),
                              what, event.loc, observed)

    def branch(self, query: Query, candidates: Candidates) -> Branch:
        """Feedback codes of the evaluated secrets by the kernels on a table of their own;
        each child conditioned on its feedback as a fact."""
        args = candidates.args(query)

        def codes_of(ranks: np.ndarray) -> np.ndarray:
            unique = np.unique(ranks)
            table = self.game.restricted(unique, transient=True)
            where = np.searchsorted(unique, ranks)
            return table.feedback_matrix(query.action, np.array([query.rank]), where)[0]

        def child(code: int) -> CountedBelief:
            feedback = self.game.coder(query.action).decode(code)
            return self.condition(self.space.fact(query.action, args, feedback), "feedback",
                                  observed=(query.action, query.rank, code))

        return Branch(codes_of, child)

    def partition(self, candidates: Candidates, block: Block,
                  positions: np.ndarray) -> np.ndarray:
        """(queries, feedbacks) hypothesis counts, each by a conditioned count."""
        queries = [candidates.game.space(block.action.name).value(int(r))
                   for r in block.ranks[positions]]
        return partition_counts(self, block.action.name, queries)

    def feedback_masses(self, action: str, args: dict[str, Any]) -> dict[tuple, float]:
        """Each feedback the query can give (a tuple of its components) with the number
        of hypotheses (their mass, when weighted) that give it; one counter call on a
        uniform belief, which a counter may answer from one pass."""
        formulas = self.space.lowering.feedback_values(action, args)
        if self.uniform:
            found = self.counter.counts(self.state, list(formulas.values()))
        else:
            found = [self.mass_with(f) for f in formulas.values()]
        return {k: n for k, n in zip(formulas, found, strict=True) if n}

    # -- as a list, as a sample

    def listing(self, limit: int | None = None) -> Belief | None:
        """The same belief as an enumerated one over a table of exactly its hypotheses
        (listed by the counter), or None when it keeps more than `limit` (default: the
        belief's list_limit)."""
        limit = self.list_limit if limit is None else limit
        if self.size > limit:
            return None
        if self._listed is None:
            ranks = self.counter.list_ranks(self.state, max(limit, self.size))
            if ranks is None:  # an approximate size below the limit, more when listed
                return None
            game = self.game.restricted(np.asarray(ranks, dtype=np.int64))
            prior = Belief.prior(game)
            self._listed = Belief(game, prior.index, prior.logw, self.observed)
        return self._listed

    listed = listing

    def settled(self, exhaustive: bool = False) -> Belief | CountedBelief:
        """Listed once small enough: at list_limit, or, for exhaustive scoring (the kernels
        score far faster than one count per query and feedback), at the enumeration budget
        if that is larger -- unless the counter counts every query from one pass."""
        limit = max(self.game.budget.max_hypotheses, self.list_limit) \
            if exhaustive and not self.counter.cheap_counts else None
        listed = self.listing(limit)
        return self if listed is None else listed

    def sampled(self, k: int, seed: int, deadline: float | None = None) -> Belief:
        """k hypotheses drawn with replacement, by prior weight (fewer if `deadline`, a
        perf_counter time, passes first; at least one batch), as an enumerated belief
        over the distinct ones weighted by how often each was drawn."""
        rng = np.random.default_rng(seed)
        drawn: list[int] = []
        while len(drawn) < k:
            batch = min(SAMPLE_BATCH, k - len(drawn))
            drawn += self.sample_ranks(batch, int(rng.integers(2**63)))
            if deadline is not None and time.perf_counter() >= deadline:
                break
        ranks, counts = np.unique(np.asarray(drawn, dtype=np.int64), return_counts=True)
        game = self.game.restricted(ranks, transient=True)
        index = np.arange(len(ranks), dtype=np.int64)
        if np.all(counts == counts[0]):
            return Belief(game, index, history=self.observed)
        return Belief(game, index, np.log(counts.astype(np.float64)), self.observed)

    def draw(self, k: int, rng: np.random.Generator, deadline: float | None = None) -> Belief:
        return self.sampled(k, int(rng.integers(2**63)), deadline=deadline)

    determinisations = draw

    def sample_ranks(self, k: int, seed: int) -> list[int]:
        """k hypotheses drawn from the belief (by prior weight), as product ranks: a weight
        class by its mass, then uniformly within it."""
        if self.uniform:
            return self.counter.sample_ranks(self.state, k, seed)
        rng = np.random.default_rng(seed)
        masses = np.array([w * n for w, _, n in self.class_counts], dtype=float)
        per_class = rng.multinomial(k, masses / masses.sum())
        out: list[int] = []
        for state, m in zip(self.class_states, per_class, strict=True):
            if m:
                out += self.counter.sample_ranks(state, int(m), int(rng.integers(2**63)))
        return [out[i] for i in rng.permutation(len(out))]

    def secrets(self, n: int | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """n distinct hypotheses (product ranks), drawn uniformly from the counter with
        duplicates rejected; keys 0..n-1."""
        if n is None:
            raise SleuthError(f"the {self.backend} backend cannot play all {self.size:,} "
                              "secrets", hint='evaluate a seeded sample with '
                                              f'{option("secrets", "N")}')
        ranks = distinct_ranks(self, min(n, self.size), seed)
        return ranks, np.arange(len(ranks), dtype=np.int64)

    def prior_weights(self, ranks: np.ndarray) -> np.ndarray:
        """Prior weights of the given hypotheses, normalised over them."""
        table = self.game.restricted(np.unique(ranks))
        return table.prior[np.searchsorted(table.hypotheses.ranks, ranks)]

    def contains(self, ranks: np.ndarray) -> np.ndarray:
        """Which hypotheses (product ranks, sorted) this belief keeps: the constraints and
        every recorded observation checked by the kernels, all ranks at once."""
        listed = self._listed or self.listing()
        if listed is not None:
            return listed.contains(ranks)
        keep = self.game.consistent(ranks)
        if keep.any():
            sub = self.game.restricted(ranks[keep])
            alive = np.ones(int(keep.sum()), dtype=bool)
            for action, rank, code in self.observed:
                alive &= sub.feedback_matrix(action, np.array([rank]))[0] == code
            keep[keep] = alive
        return keep

    # -- what is known

    def marginals(self) -> dict[str, dict[Any, float]]:
        """P(value) of every one-hot group, from the counter (sdd: one weighted-model-count
        pass; cnf: one Ganak count per value), multisets spread over their counts."""
        return self.space.lowering.by_part(self._group_marginals())

    def _group_marginals(self) -> dict[str, dict[Any, float]]:
        if self.uniform:
            return self.counter.marginals(self.state)
        groups = self.space.lowering.groups
        out = {g.name: dict.fromkeys(g.values, 0.0) for g in groups}
        for (w, _, n), state in zip(self.class_counts, self.class_states, strict=True):
            if n:
                share = w * n / self.mass
                for name, dist in self.counter.marginals(state).items():
                    for v, p in dist.items():
                        out[name][v] += share * p
        return out

    def _groups_of(self, names: list[str]) -> list[Any]:
        """The one-hot groups of the named secret variables (a sequence's positions, a
        record's fields: `code[2]`, `bid.face`)."""
        return [g for g in self.space.lowering.groups
                if g.name.split("[")[0].split(".")[0] in names]

    def determined(self, names: list[str]) -> bool:
        """True when each named variable has a single possible value (a value no hypothesis
        has gets marginal probability exactly 0)."""
        groups = self._groups_of(names)
        m = self._group_marginals()
        return all(sum(1 for p in m[g.name].values() if p > 0) == 1 for g in groups)

    def goal_posterior(self, names: list[str]) -> tuple[dict[str, Any], float]:
        """The most likely joint value of the named variables and its posterior: from the
        listed hypotheses when there are at most LISTABLE; else from the marginals, which
        is exact when the goal is one group (one scalar variable)."""
        listed = self.listing(limit=LISTABLE)
        if listed is not None:
            return listed.goal_posterior(names)
        groups = self._groups_of(names)
        if len(groups) != 1 or groups[0].name not in names:
            raise SleuthError(f"the posterior of the goal ({', '.join(names)}) over "
                              f"{self.size:,} counted hypotheses needs its joint values",
                              hint=f'use the enumerated backend ({option("backend", "enum")})')
        m = self._group_marginals()[groups[0].name]
        value, p = max(m.items(), key=lambda kv: kv[1])
        return {names[0]: value}, float(p)

    def top(self, k: int) -> list[tuple[dict[str, Any], float]]:
        """The k most likely hypotheses, when there are at most LISTABLE of them."""
        listed = self.listing(limit=LISTABLE) if k else None
        return [] if listed is None else listed.top(k)


def partition_counts(belief: CountedBelief, action: str, queries: list[dict[str, Any]]
                     ) -> np.ndarray:
    """(queries, feedbacks) hypothesis counts (masses, when weighted), each by one
    conditioned count per query and feedback."""
    if len(queries) > COUNT_QUERIES:
        raise BudgetError(
            f"scoring {counted(len(queries), 'query')} exactly on {belief.size:,} counted "
            f"{plural(belief.size, 'hypothesis')} "
            f"means one count per query and feedback; the limit is {COUNT_QUERIES:,} "
            "queries", hint=f'use {option("strategy", "ises-sampled")} (samples from the counter)')
    rows = [belief.feedback_masses(action, args) for args in queries]
    keys = sorted({k for r in rows for k in r}, key=repr)
    out = np.zeros((len(rows), max(1, len(keys))),
                   dtype=np.int64 if belief.uniform else np.float64)
    for i, r in enumerate(rows):
        for j, k in enumerate(keys):
            out[i, j] = r.get(k, 0)
    return out if belief.uniform else out / belief.mass  # weighted: probability masses


def distinct_ranks(belief: CountedBelief, n: int, seed: int) -> np.ndarray:
    """n distinct hypotheses drawn from the counter, duplicates rejected."""
    rng = np.random.default_rng(seed)
    found: dict[int, None] = {}
    while len(found) < n:
        for r in belief.counter.sample_ranks(belief.state, 2 * (n - len(found)),
                                             int(rng.integers(2**63))):
            found.setdefault(r)
            if len(found) == n:
                break
    return np.array(list(found), dtype=np.int64)


__all__ = ["LIST_LIMIT", "CountedBelief"]

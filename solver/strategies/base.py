"""The strategy interface, declared options, and the scoring machinery with tie-break K.

Scoring strategies score every allowed query by its outcome partition and
take the best, with tie-break K (design §3): among equal scores prefer a
query that is still a possible secret, then the first in canonical order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError, option
from sleuth.solver.infoset.queries import AnyBelief, Block, Candidates, Query

FLOAT_TIE = 1e-12
SHORTCUT = 16  # try the possible secrets first while they are at most 1/16 of the queries
ORBIT_SET = 16  # orbits are looked for in information sets of at least this many


class Option:
    """One option of a strategy, declared once as a typed class attribute.

        class ISESSampled(Entropy):
            budget = Option(float, 0.1, "seconds per decision", minimum=0, open_min=True)

    The command line, bench, play, the Python API (and a web form) derive their flags,
    validation and help from these declarations (`Strategy.options()`); an instance
    reads its value as a plain attribute.
    """

    def __init__(self, kind: type, default: Any, help: str, minimum: float | None = None,
                 open_min: bool = False, optional: bool = False,
                 choices: tuple[str, ...] | None = None, maximum: float | None = None):
        self.kind = kind  # int, float, or str (with choices)
        self.choices = choices
        self.maximum = maximum
        self.default = default
        self.help = help
        self.minimum = minimum
        self.open_min = open_min  # the minimum itself is not allowed
        self.optional = optional  # None is allowed (and means "no limit" or "all")
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else self.default

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any, strategy: str) -> Any:
        """The value converted to the option's type, or a SleuthError saying what is wrong."""
        if value is None:
            if self.optional:
                return None
            raise SleuthError(f"{strategy}: {self.flag} needs a value")
        try:
            if isinstance(value, bool) or (self.kind is int and isinstance(value, float)
                                           and not value.is_integer()):
                raise ValueError
            converted = self.kind(value)
        except (TypeError, ValueError):
            raise SleuthError(f"{strategy}: {self.flag} needs {self.kind.__name__} value, not "
                              f"{value!r}") from None
        if self.choices is not None and converted not in self.choices:
            raise SleuthError(f"{strategy}: {self.flag} is one of {', '.join(self.choices)}, "
                              f"not {converted!r}")
        if self.minimum is not None and (converted < self.minimum or
                                         (self.open_min and converted == self.minimum)):
            bound = f"more than {self.minimum}" if self.open_min else f"at least {self.minimum}"
            raise SleuthError(f"{strategy}: {self.flag} must be {bound}, not {converted}")
        if self.maximum is not None and converted > self.maximum:
            raise SleuthError(f"{strategy}: {self.flag} must be at most {self.maximum}, not "
                              f"{converted}")
        return converted


def parse_schedule(text: str) -> list[int]:
    """'N1,N2,...' as a list of positive ints, or a SleuthError saying what is wrong."""
    try:
        steps = [int(part) for part in text.split(",")]
    except ValueError:
        steps = []
    if not steps or min(steps) < 1:
        raise SleuthError(f'{option("schedule")} needs positive whole numbers separated by '
                          'commas, not '
                          f"{text!r}", hint=f'e.g. {option("schedule", "1,5,34")}: the first '
                                            'decision does '
                          "1, the second 5, every later one 34")
    return steps


class FixedWork:
    """The options of a strategy whose work per decision the clock decides unless it is
    fixed: `iterations` for every decision, or `schedule` decision by decision (what a
    clock run did at each decision of a game, so that a fixed-work run calibrated to it
    spends its work where the clock did)."""

    iterations = Option(int, None, "a fixed number of iterations instead of the clock "
                        "(reproducible)", minimum=1, optional=True)
    schedule = Option(str, None, "fixed work decision by decision, N1,N2,...: the k-th "
                      "decision of a game does Nk, every later one the last (reproducible; "
                      "instead of --iterations)", optional=True)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._schedule = None if self.schedule is None else parse_schedule(self.schedule)

    def fixed_work(self, belief: AnyBelief) -> int | None:
        """This decision's fixed work (None: the clock decides): its entry of the schedule,
        by the number of queries asked so far, else `iterations`."""
        if self._schedule is None:
            return self.iterations
        return self._schedule[min(len(belief.history), len(self._schedule) - 1)]


class Strategy:
    """Chooses the next query for a belief (subclasses say how).

    A subclass sets `name`, declares its options as `Option` class attributes and
    implements `choose`; registering it is one line in `strategies/__init__.py`.
    """

    name = ""
    deterministic = True  # the same belief always gets the same query
    needs_secret_like = False  # only for specs with queries that can be secrets
    orbit_queries = False  # scores the queries `Candidates.blocks_for` generates per orbit
    follows_history = True  # chooses among `Candidates.allowed` (history rules kept)
    handles_lies = False  # plays against lies (`lies:`): its engine searches lie states

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        self.candidates = candidates
        self.seed = seed
        declared = self.options()
        for key in options:
            if key not in declared:
                raise SleuthError(f"strategy '{self.name}' has no option '{key}'",
                                  hint=f"its options: {', '.join(declared) or 'none'}")
        for key, declared_option in declared.items():
            if key in options:
                setattr(self, key, declared_option.check(options[key], self.name))
        if candidates.generators and not self.orbit_queries:
            able = ", ".join(sorted(n for n, k in _registered() if k.orbit_queries))
            raise SleuthError(
                f"{self.name} needs every legal query listed, and "
                f"'{next(iter(candidates.generators))}' has too many: its queries are "
                "generated one per orbit of the interchangeable values, for the "
                "one-step scoring strategies", hint=f"use one of: {able}")
        if candidates.history_rules and not self.follows_history:
            raise SleuthError(
                f"{self.name} does not keep history rules yet, and "
                f"'{candidates.history_rules[0]}' has one (`history:` in the spec)",
                hint="use one of: " + ", ".join(sorted(
                    n for n, k in _registered() if k.follows_history)))
        if candidates.game.model.lies is not None and not self.handles_lies:
            raise SleuthError(
                f"{self.name} does not play against lies yet, and this spec's answers may "
                "lie (`lies:`)", hint="use one of: " + ", ".join(sorted(
                    n for n, k in _registered() if k.handles_lies)))
        if self.needs_secret_like and not candidates.any_secret_like:
            raise SleuthError(f"{self.name} needs a query that can be a secret (arguments "
                              "with the secret variables' domains); this spec has none",
                              hint="use random")

    @classmethod
    def options(cls) -> dict[str, Option]:
        """The declared options, base classes' first."""
        out: dict[str, Option] = {}
        for klass in reversed(cls.__mro__):
            out.update({k: v for k, v in vars(klass).items() if isinstance(v, Option)})
        return out

    def choose(self, belief: AnyBelief) -> Query:
        raise NotImplementedError

    def work(self) -> dict[str, int]:
        """What the last decision did, for a strategy whose work the clock decides
        (iterations, states, queries scored): recorded per decision in `solve` and
        `bench` trials, so a time-limited run says how much it searched. Empty for the
        others."""
        return {}

    def prepared(self, belief: AnyBelief) -> AnyBelief:
        """The belief in the form this strategy works on: listed once small enough."""
        return belief.settled()

    def decision_pairs(self, belief: AnyBelief) -> int | None:
        """(query, hypothesis) pairs one decision scores from `belief`, when that is what
        its time grows with; None for strategies bounded otherwise (a time budget)."""
        return None

    def notes(self) -> list[str]:
        """What a user should know before this strategy runs, each a sentence (a command
        prints them on stderr as `note:` lines): a fallback it took that costs time, say.
        None here (an empty list)."""
        return []

    def share(self, workers: Any, recipe: Any) -> bool:
        """Take a pool of workers (evaluation/cluster.py) for the strategy's own search,
        with the recipe that builds this strategy again in a worker; True if it does
        (an exact search splits its first level), and then `evaluate` walks the tree
        here. False: `evaluate` splits the tree's first levels over the workers."""
        return False

    @classmethod
    def opening(cls, recipe: Any, workers: int) -> list[tuple[Callable[..., Any], tuple]]:
        """The tasks (function, arguments) a pool of `workers` may start as it builds
        `recipe`, before the command has built its own strategy: what its `share` will
        ask of them first, worked out in the worker from the prior (an exact search's
        first parts). None here."""
        return []

    def proven(self, belief: AnyBelief) -> dict[str, Any] | None:
        """What the strategy proves about play from `belief` (an exact search: the optimal
        total and worst case); None for strategies that prove nothing. A proof always
        has "total" and "worst" (None where it proves neither) and "top": 0 for a proof,
        K > 0 for the best over each set's first K queries only, an upper bound."""
        return None

    def opened(self, belief: AnyBelief, query: Query) -> None:
        """`query` is asked at `belief` without the strategy choosing it (an opener that
        `evaluate --first` forces); a strategy that plans for the queries after it (an
        exact search's depth budgets) does so here."""

    def proven_after(self, belief: AnyBelief, query: Query) -> dict[str, Any] | None:
        """What the strategy proves about play from `belief` when `query` is forced
        first (an opener, `evaluate --first`) and it chooses every later query; None
        for strategies that prove nothing, or whose proof does not add up part by part."""
        return None


class ListedStrategy(Strategy):
    """A strategy that works on the game's listed hypotheses (indices into its table):
    the exact searches, and the playback of a saved tree."""

    def prepared(self, belief: AnyBelief) -> AnyBelief:
        listed = belief.settled(exhaustive=True).listing()
        if listed is None or listed.game is not self.candidates.game:
            raise SleuthError(f"{self.name} works on the listed hypotheses of the enumerated "
                              "backend", hint=f'use {option("backend", "enum")}')
        return listed


# ----------------------------------------------------------------------------- scoring

@dataclass
class Scored:
    """Scores (lower is better) of some queries of one block."""

    block: Block
    positions: np.ndarray
    scores: np.ndarray
    parts: np.ndarray | None  # integer partitions, when exact refinement applies


class ScoringStrategy(Strategy):
    """Score every allowed query, keep the best; ties by K."""

    exact = False  # whether scores of uniform partitions are already exact integers
    even_split_best = False  # no partition of n scores better than the most even one
    orbit_queries = True

    def prepared(self, belief: AnyBelief) -> AnyBelief:
        # Exhaustive scoring lists whenever the enumeration budget allows: the kernels
        # score far faster than one model count per query and feedback.
        return belief.settled(exhaustive=True)

    def decision_pairs(self, belief: AnyBelief) -> int | None:
        blocks = self.candidates.blocks_for(belief)
        queries = sum(len(self.candidates.allowed(b, belief)) for b in blocks)
        return queries * belief.size

    def choose(self, belief: AnyBelief) -> Query:
        belief = self.prepared(belief)
        early = self.settled_by_possible(belief)
        if early is not None:
            return early
        blocks = self.candidates.blocks_for(belief)
        if belief.size == 1:
            # Every query has one outcome: all scores tie and K decides.
            scored = [Scored(b, pos, np.zeros(len(pos)), None) for b in blocks
                      if len(pos := self.candidates.allowed(b, belief))]
            return pick_by_k(self.candidates, scored, belief)
        scored = [self.score_block(b, self.orbit_firsts(b, belief), belief) for b in blocks]
        return self.pick([s for s in scored if len(s.positions)], belief)

    def settled_by_possible(self, belief: AnyBelief) -> Query | None:
        """The choice, found by scoring the possible secrets alone, when one of them scores
        the best any query could: the most even split of the set into as many parts as
        the feedback has codes (a score that `even_split_best`). Tie-break K prefers a
        possible secret among equal scores, so the first such one is the choice; None
        when none reaches that bound (or the shortcut does not apply)."""
        c = self.candidates
        n = belief.size
        if not self.even_split_best or not belief.uniform or not c.any_secret_like or \
                c.guesses == "consistent" or n * SHORTCUT > c.size or c.generators or \
                not all(b.deterministic for b in c.blocks):
            return None  # (with consistent guesses the possible secrets are all it scores)
        scored = []
        for b in c.blocks:  # with --guesses any, every possible secret is allowed
            pos = c.possible_positions(b, belief) if b.secret_like else []
            ok = c.keeps_history(b, belief) if len(pos) else None
            pos = pos if ok is None else pos[ok[pos]]
            if len(pos) and n == 1:  # every query has one part: K takes the secret
                return Query(b.action.name, int(b.ranks[pos[0]]))
            if len(pos):
                scored.append(self.score_block(b, pos, belief))
        if not scored:
            return None
        width = min(n, max(c.game.coder(b.action.name).size for b in c.blocks))
        even = np.full(width, n // width, dtype=np.int64)
        even[:n % width] += 1
        bound = float(self.score_parts(even[None, :], True, n)[0])
        reached = []
        for sc in scored:  # uniform: each row of parts counts the n secrets
            if self.exact:
                hit = sc.scores <= bound
            else:  # the even split is the only partition with the best score
                top = np.sort(sc.parts, axis=1)[:, ::-1][:, :width]
                hit = (top == even).all(axis=1) if top.shape[1] == width else \
                    np.zeros(len(sc.positions), dtype=bool)
            if hit.any():
                reached.append(Scored(sc.block, sc.positions[hit], sc.scores[hit], None))
        return pick_by_k(c, reached[:1], belief) if reached else None

    def orbit_firsts(self, block: Block, belief: AnyBelief) -> np.ndarray:
        """The allowed queries of a block, one per orbit where the game has symmetries (the
        first of each: the one tie-break K would take among them)."""
        allowed = self.candidates.allowed(block, belief)
        if belief.size < ORBIT_SET:
            return allowed  # scoring a few hypotheses costs less than finding orbits
        firsts = self.candidates.representatives(block, belief)
        return allowed if firsts is None else allowed[firsts[allowed]]

    def score_block(self, block: Block, positions: np.ndarray, belief: AnyBelief) -> Scored:
        """Scores of the block's queries at `positions` against `belief` (the information
        set itself, or a sample of it)."""
        if not len(positions):
            return Scored(block, positions, np.zeros(0), None)
        if block.deterministic:
            parts = self.candidates.parts(block, positions, belief)
            return Scored(block, positions, self.score_parts(parts, belief.uniform, belief.size),
                          parts if belief.uniform else None)
        listed = belief.listing()
        if listed is None:
            raise SleuthError(f"'{block.action.name}' has random answers, which are scored on "
                              f"listed hypotheses; this information set has {belief.size:,}",
                              hint=f'use {option("strategy", "ises-sampled")}, or the enumerated '
                                   'backend')
        belief, w = listed, listed.probabilities()
        scores = np.array([self.score_answers(self.candidates.answer_table(block, int(p), belief),
                                              w, belief.size) for p in positions])
        return Scored(block, positions, scores, None)

    def score_parts(self, parts: np.ndarray, uniform: bool, n: int) -> np.ndarray:
        raise NotImplementedError

    def score_answers(self, p: np.ndarray, w: np.ndarray, n: int) -> float:
        raise NotImplementedError

    def pick(self, scored: list[Scored], belief: AnyBelief) -> Query:
        if not scored:
            raise SleuthError("no legal query is allowed here",
                              hint=f'with {option("guesses", "consistent")}, a query must be a '
                                   'possible '
                                   "secret")
        best = min(float(s.scores.min()) for s in scored)
        tol = self.tolerance(scored, best)
        tied = [(s, np.flatnonzero(s.scores <= best + tol)) for s in scored]
        tied = self.refine([(s, t) for s, t in tied if len(t)])
        return pick_by_k(self.candidates, [
            Scored(s.block, s.positions[t], s.scores[t], None) for s, t in tied], belief)

    def tolerance(self, scored: list[Scored], best: float) -> float:
        if self.exact and all(s.parts is not None for s in scored):
            return 0.0
        return FLOAT_TIE * max(1.0, abs(best))

    def refine(self, tied: list[tuple[Scored, np.ndarray]]) -> list[tuple[Scored, np.ndarray]]:
        return tied


def _registered() -> list[tuple[str, type]]:
    from sleuth.solver.strategies import STRATEGIES

    return list(STRATEGIES.items())


# Partition scores are on the scale of hypothesis counts: weighted parts (probability
# masses) and answer tables are scaled by n, so queries of both kinds compare.

def pick_by_k(candidates: Candidates, tied: list[Scored], belief: AnyBelief) -> Query:
    """Tie-break K: the first possible secret in canonical order (in a spec whose queries
    cannot be secrets: the first query that can end the game), else the first query."""
    for prefer in (True, False):
        for s in tied:
            pos = s.positions
            if prefer:
                pos = pos[candidates.preferred(s.block, belief, pos)]
            if len(pos):
                return Query(s.block.action.name, int(s.block.ranks[pos[0]]))
    raise AssertionError("a tie group cannot be empty")



"""Strategies: each chooses the next query for an information set.

    entropy        ISES, exhaustive: maximise the expected information gain
    ises-sampled   Meng & Lucas' sampled ISES: m states and n queries sampled,
                   scored in batches until a wall-clock budget is spent
    minimax        Knuth: minimise the largest part
    expected-size  Irving: minimise the sum of squared part sizes
    most-parts     Kooi: maximise the number of non-empty parts
    likeliest      with a cover goal: the unasked query most likely to be in the cover
                   (the probability-density rule of search games)
    random, random-consistent
    ismcts         SO-ISMCTS, the baseline: determinised tree search, UCB1
    optimal        exact: the least expected number of queries (branch and bound)
    optimal-worst  exact: the least worst case, then the least expected number
    static         exact: the fewest queries chosen before any answer that tell every
                   secret apart (a separating set, by SAT)
    lookahead      a base score (--score) after the best second query (--depth 2)
    calibrated     the queries each part still needs: exact for small parts, else an
                   estimate fitted to exact solves of the game's own small sets
    tree           a saved decision tree played back (--from-tree FILE)

A strategy is one class (`base.Strategy`): its `name`, its options declared as
typed `Option` fields, and `choose`. Registering it is one line below; the
command line, bench and play derive their flags and validation from the
declarations (`option_table`).
"""

from __future__ import annotations

from typing import Any

from sleuth.compiler.api import SleuthError, did_you_mean
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies.base import Option, Scored, ScoringStrategy, Strategy, pick_by_k
from sleuth.solver.strategies.calibrated import Calibrated
from sleuth.solver.strategies.classic import (
    Entropy,
    ExpectedSize,
    Minimax,
    MostParts,
    mutual_information,
)
from sleuth.solver.strategies.ismcts import ISMCTS
from sleuth.solver.strategies.likeliest import Likeliest
from sleuth.solver.strategies.lookahead import Lookahead
from sleuth.solver.strategies.optimal import Optimal, OptimalWorst
from sleuth.solver.strategies.playback import TreePlayback
from sleuth.solver.strategies.randomised import RandomConsistent, RandomQuery
from sleuth.solver.strategies.sampled import ISESSampled, ISESSampledPartition
from sleuth.solver.strategies.static import Static

STRATEGIES: dict[str, type[Strategy]] = {s.name: s for s in (
    Entropy,
    ISESSampled,
    ISESSampledPartition,
    Minimax,
    ExpectedSize,
    MostParts,
    Likeliest,
    RandomQuery,
    RandomConsistent,
    ISMCTS,
    Optimal,
    OptimalWorst,
    Static,
    Lookahead,
    Calibrated,
    TreePlayback,
)}
DEFAULT_STRATEGY = Entropy.name  # the first entry: what a command uses unless told
TOURNAMENT = (Entropy.name, ISESSampled.name, ISMCTS.name, RandomQuery.name)  # Meng & Lucas


def strategy_class(name: str) -> type[Strategy]:
    """A registered strategy by name, or a SleuthError with the nearest names."""
    if name not in STRATEGIES:
        raise SleuthError(f"unknown strategy '{name}'",
                          hint=did_you_mean(name, STRATEGIES)
                          or f"one of {', '.join(STRATEGIES)}")
    return STRATEGIES[name]


def make_strategy(name: str, candidates: Candidates, seed: int = 0, **options: Any) -> Strategy:
    """A strategy by name, with options it declares (checked by its declarations)."""
    return strategy_class(name)(candidates, seed, **options)


def applicable(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """The given options (None: not given) that strategy `name` declares."""
    declared = strategy_class(name).options()
    return {k: v for k, v in options.items() if k in declared and v is not None}


def option_table() -> dict[str, tuple[Option, list[str]]]:
    """Every option any strategy declares, with the strategies that take it (for deriving
    command-line flags). Options of one name must agree in type and default."""
    table: dict[str, tuple[Option, list[str]]] = {}
    for name, cls in STRATEGIES.items():
        for key, option in cls.options().items():
            if key in table:
                first, users = table[key]
                if (first.kind, first.default) != (option.kind, option.default):
                    raise TypeError(f"option '{key}' of {name} disagrees with {users[0]}'s")
                users.append(name)
            else:
                table[key] = (option, [name])
    return table


__all__ = [
    "DEFAULT_STRATEGY", "ISMCTS", "STRATEGIES", "TOURNAMENT", "Entropy", "ExpectedSize",
    "ISESSampled", "ISESSampledPartition", "Lookahead", "Minimax", "MostParts", "Optimal",
    "OptimalWorst", "Option",
    "RandomConsistent", "RandomQuery", "Static", "TreePlayback",
    "Scored", "ScoringStrategy", "Strategy", "applicable", "make_strategy",
    "mutual_information", "option_table", "pick_by_k", "strategy_class",
]

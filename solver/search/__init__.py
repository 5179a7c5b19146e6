"""The exact searches: one protocol (engines.py, `Engine`) and its engines, registered here.

    lies     the least worst case when answers may lie, over lie states (lies.py)
    rounds   a game played in rounds: rounds, then queries (rounds.py)
    cover    a game with a cover goal: the queries that miss (cover.py)
    plain    every other game: total and worst case (plain.py; compiled.py runs it
             in compiled code, set after set; split.py splits it over workers)

`optimal` and `optimal-worst` take the first engine that applies to the game. A new
search is one class with the protocol, and one entry here.
"""

from __future__ import annotations

from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.engines import (
    CoverEngine,
    Engine,
    LieEngine,
    PlainEngine,
    Prepared,
    RoundEngine,
)

ENGINES: tuple[type[Engine], ...] = (LieEngine, RoundEngine, CoverEngine, PlainEngine)


def engine_for(candidates: Candidates, worst_first: bool, top: int,
               prepared: Prepared) -> Engine:
    """The first registered engine that applies to the game, bound to it."""
    kind = next(k for k in ENGINES if k.applies(candidates))
    return kind(candidates, worst_first, top, prepared)


__all__ = ["ENGINES", "Engine", "engine_for"]

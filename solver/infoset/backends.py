"""Backends by name, and the one policy that chooses among them.

`enum` lists the hypotheses (an enumerated `Belief`); every counter registered in
compiler/counters (`sdd`, `cnf`, `approx`, ...) holds them as counted facts (a
`CountedBelief`). A new counter file is picked up here without a change.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from sleuth.compiler.api import COUNTERS, Game, SleuthError, did_you_mean
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.protocol import InformationSet

ENUMERATED = "enum"
DEFAULT_COUNTER = next(iter(COUNTERS))  # the first registered counter: sdd

PRIORS: dict[str, Callable[[Game], InformationSet]] = {
    ENUMERATED: Belief.prior,
    **{name: partial(CountedBelief.prior, backend=name) for name in COUNTERS},
}
BACKENDS = tuple(PRIORS)
# the backends whose beliefs condition on observations (the others count the prior only)
BELIEF_BACKENDS = tuple(n for n in BACKENDS if n == ENUMERATED or COUNTERS[n].conditions)


# the counters a space too large to list is handed to unasked, in their order: each is
# asked whether it suits the space (from its shape, cheaply) and the first that does wins
AUTOMATIC = tuple(sorted((n for n, c in COUNTERS.items() if c.automatic is not None),
                         key=lambda n: COUNTERS[n].automatic))


def choose_backend(game: Game, requested: str | None) -> str:
    """The requested backend, or enum when the secret's assignments fit the enumeration
    budget (--max-hypotheses); when they do not, the first automatic counter that suits
    the space (the factored counter for pieces on a board, whose decision diagram outgrows
    any budget), else the default counter."""
    if requested:
        if requested not in PRIORS:
            raise SleuthError(f"unknown backend '{requested}'",
                              hint=did_you_mean(requested, PRIORS)
                              or f"one of {', '.join(PRIORS)}")
        return requested
    if game.candidate_count() <= game.budget.max_hypotheses:
        return ENUMERATED
    return next((name for name in AUTOMATIC if COUNTERS[name].supported()
                 and game.counter(name).suits()), DEFAULT_COUNTER)


def lists_hypotheses(backend: str) -> bool:
    """Whether the backend's information sets index the game's own hypothesis table (the
    enumerated backend), rather than counting facts."""
    return PRIORS[backend] is PRIORS[ENUMERATED]


def prior_belief(game: Game, backend: str | None = None) -> InformationSet:
    """The information set before any observation, on a backend (default: chosen)."""
    return PRIORS[choose_backend(game, backend)](game)


def backend_help() -> str:
    """One line per backend, for --help."""
    counters = "; ".join(f"{name}: {cls.help}" for name, cls in COUNTERS.items())
    return (f"{ENUMERATED}: list the hypotheses; {counters}. Default: {ENUMERATED} when the "
            f"secret's assignments fit --max-hypotheses, else the first of "
            f"{', '.join(AUTOMATIC)} that suits the spec.")


__all__ = ["AUTOMATIC", "BACKENDS", "DEFAULT_COUNTER", "ENUMERATED", "backend_help",
           "choose_backend", "lists_hypotheses", "prior_belief"]

"""The counter interface: how a backend counts the hypotheses of a symbolic space.

An information set on a counting backend is the spec's constraints and every
observed fact, as formulas of the boolean lowering (`SymbolicSpace`). A
counter holds their conjunction in a *state* of its own kind (a decision
diagram, a tuple of facts for a CNF solver) and answers questions about it.

REQUIRED (every backend):
    start()                     the state of the constraints alone (every hypothesis)
    conjoin(state, *formulas)   the state with more facts
    count(state)                how many hypotheses satisfy it (projected onto the secret)

OPTIONAL (the defaults say what they cost or refuse):
    satisfiable(state)          whether any hypothesis is left; default: count(state) > 0
    marginals(state)            P(value) per one-hot group; default: one count per value
    counts(state, formulas)     hypotheses satisfying each formula; default: one count each
    sample_ranks(state, k, s)   k hypotheses drawn uniformly, as product ranks
    list_ranks(state, limit)    every hypothesis, sorted, or None above `limit`
    describe(state)             the size of its representation, for `sleuth info`
    supported()                 whether the optional library it needs is installed
    suits()                     whether a space too large to list may be handed to it
                                without being asked for: decided from its shape, cheaply,
                                so that no command starts what cannot finish; default True

Class attributes: `name` (its `--backend` name), `exact` (False: counts are
estimates within `guarantee`), `conditions` (False: it counts the constraints only,
and `conjoin` with a formula refuses: no beliefs after observations), `cheap_counts`
(True: `counts` answers every query of a belief from one pass, so a belief is scored
counted rather than listed early), `automatic` (the place it takes when a backend is
chosen for a space too large to list, lowest first; None: only when asked for), `help`
(one line for the command line).
Copy TEMPLATE.py to add one, and register it in counters/__init__.py.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from sleuth.compiler.errors import SleuthError, option

if TYPE_CHECKING:
    from sleuth.compiler.symbolic import SymbolicSpace


class Counter(ABC):
    """Counts, conditions, samples and lists the hypotheses of one symbolic space."""

    name: ClassVar[str] = ""
    exact: ClassVar[bool] = True
    conditions: ClassVar[bool] = True
    cheap_counts: ClassVar[bool] = False
    automatic: ClassVar[int | None] = None
    help: ClassVar[str] = ""

    def __init__(self, space: SymbolicSpace):
        self.space = space

    @staticmethod
    def supported() -> bool:
        """Whether the library this backend needs is installed."""
        return True

    def suits(self) -> bool:
        """Whether this space may be handed to this counter without being asked for (see
        the module); only asked of a counter with an `automatic` place."""
        return True

    @property
    def guarantee(self) -> str:
        """What a count promises: 'exact', or the estimate's tolerance and confidence."""
        return "exact"

    # -- REQUIRED

    @abstractmethod
    def start(self) -> Any:
        """The state holding the spec's constraints (every hypothesis)."""

    @abstractmethod
    def conjoin(self, state: Any, *formulas: int) -> Any:
        """The state with these circuit formulas asserted as well."""

    @abstractmethod
    def count(self, state: Any) -> int:
        """Hypotheses satisfying the state, projected onto the secret's variables."""

    # -- OPTIONAL

    def satisfiable(self, state: Any) -> bool:
        """Whether some hypothesis satisfies the state (an observation that leaves none is
        refused); a counter whose counts are dear answers with a SAT solver."""
        return self.count(state) > 0

    def marginals(self, state: Any) -> dict[str, dict[Any, float]]:
        """P(value) of every one-hot group: one conditioned count per value."""
        total = self.count(state)
        return {g.name: {v: self.count(self.conjoin(state, node)) / total
                         for v, node in zip(g.values, g.nodes, strict=True)}
                for g in self.space.lowering.groups}

    def counts(self, state: Any, formulas: list[int]) -> list[int]:
        """Hypotheses of the state satisfying each formula (a query's feedback values):
        one conditioned count each."""
        return [self.count(self.conjoin(state, f)) for f in formulas]

    def describe(self, state: Any) -> dict[str, Any]:
        """The size of the backend's representation (for `sleuth info`)."""
        return {}

    def sample_ranks(self, state: Any, k: int, seed: int) -> list[int]:
        """k hypotheses drawn uniformly with replacement, as ranks in the secret's product."""
        raise SleuthError(f"the {self.name} backend cannot sample hypotheses",
                          hint=f'use {option("backend", "sdd")}')

    def list_ranks(self, state: Any, limit: int) -> list[int] | None:
        """Sorted product ranks of every hypothesis; None when there are more than `limit`."""
        raise SleuthError(f"the {self.name} backend cannot list hypotheses",
                          hint=f'use {option("backend", "sdd")}')


__all__ = ["Counter"]

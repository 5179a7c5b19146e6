"""The information-set protocol: what strategies, evaluation, play, analysis and output
code may ask of a belief, whatever backend holds it.

Two kinds implement it: `Belief` (infoset/belief.py: the hypotheses listed, with log
weights; the `enum` backend) and `CountedBelief` (infoset/counted.py: constraints
and facts held by a counter; `sdd`, `cnf`, `approx`). No code outside those two
classes asks which kind it has. A third kind is one class implementing this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from sleuth.compiler.api import Game
    from sleuth.solver.infoset.belief import Belief
    from sleuth.solver.infoset.observe import Event
    from sleuth.solver.infoset.queries import Block, Candidates, Query


@dataclass
class Branch:
    """A query's outcomes at one information set: the feedback code of each secret (by
    product rank), and the information set after each code."""

    codes: Callable[[np.ndarray], np.ndarray]
    child: Callable[[int], InformationSet]


@runtime_checkable
class InformationSet(Protocol):
    """The hypotheses still possible and how likely each is. Immutable: every update
    returns a new information set (and raises InconsistentObservations, leaving this one
    as it was, when nothing explains an observation)."""

    game: Game
    history: tuple[tuple[str, int, int], ...]  # (action, argument rank, feedback code) asked

    # -- size and uncertainty
    @property
    def size(self) -> int:
        """How many hypotheses remain (an estimate on an approximate counter)."""

    @property
    def uniform(self) -> bool:
        """Whether every remaining hypothesis is equally likely (scores are then exact)."""

    def entropy_bits(self) -> float: ...
    def kl_bits(self, before: InformationSet) -> float: ...
    def marginals(self) -> dict[str, dict[Any, float]]: ...
    def determined(self, names: list[str]) -> bool: ...
    def goal_posterior(self, names: list[str]) -> tuple[dict[str, Any], float]: ...
    def top(self, k: int) -> list[tuple[dict[str, Any], float]]: ...

    # -- conditioning
    def observe(self, event: Event) -> InformationSet:
        """The information set after an observation event (Bayes' rule, or a fact)."""

    def branch(self, query: Query, candidates: Candidates) -> Branch:
        """Partition by one query with deterministic feedback, for exact evaluation."""

    def partition(self, candidates: Candidates, block: Block,
                  positions: np.ndarray) -> np.ndarray:
        """(queries, parts) hypothesis counts (uniform) or masses of the block's queries."""

    # -- listing and sampling
    def settled(self, exhaustive: bool = False) -> InformationSet:
        """This information set, listed when small enough (exhaustive scoring lists up
        to the enumeration budget)."""

    def listing(self, limit: int | None = None) -> Belief | None:
        """The hypotheses listed as an enumerated belief, or None when there are too many."""

    def contains(self, ranks: np.ndarray) -> np.ndarray:
        """Which hypotheses (product ranks, sorted) are still possible."""

    def draw(self, k: int, rng: np.random.Generator,
             deadline: float | None = None) -> Belief:
        """At most k states to score against: all of them when there are at most k."""

    def determinisations(self, k: int, rng: np.random.Generator,
                         deadline: float | None = None) -> Belief:
        """A listed form to search with determinised secrets: itself if listed, else k
        samples."""

    def secrets(self, n: int | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """(product ranks, keys) of every secret, or of n drawn without replacement."""

    def prior_weights(self, ranks: np.ndarray) -> np.ndarray:
        """The prior weight of each hypothesis (by product rank) that evaluation plays."""


__all__ = ["Branch", "InformationSet"]

"""The least worst case of a game whose answers may lie, proven: a depth-first search
over lie states (solver/infoset/lies.py) against an adversary who places the lies.

`solve(state, t)` asks whether some query finishes every child of the state within t - 1
more; the least t is found by deepening from Berlekamp's volume bound (a state whose
volume exceeds branching^t cannot finish in t). States are canonical (each class of
interchangeable hypotheses listed in sorted order), and the table keeps, per canonical
state, the most queries known not to suffice and the fewest known to suffice. At a
state only one query per class of queries whose children are alike is tried, most
promising first (the least largest child volume), and its children hardest first.

The objective is the worst case alone: with an adversary who lies a secret's game length
is the longest the lies can make it, and the total of those is not a sum over the
parts of a query (a secret lies in several), so `optimal` (least total) refuses such a
game. `evaluate` reports, per secret, that longest game along the tree found.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError, option
from sleuth.solver.infoset.history import HistoryMasks
from sleuth.solver.infoset.lies import LieGame
from sleuth.solver.infoset.queries import Candidates


class LieSearch:
    """The worst-case search over one game's lie states."""

    def __init__(self, candidates: Candidates):
        if HistoryMasks.applies(candidates):
            raise SleuthError("the search against lies does not follow history rules or "
                              "the turn yet, and this game has one",
                              hint="drop the history rule or `turn`, or the lies (a lie at "
                                   "a turn can be written into the secret: docs/spec-"
                                   "language.md, Lies)")
        self.lies = LieGame(candidates)
        self.fails: dict[bytes, int] = {}  # canonical state -> most queries known too few
        self.works: dict[bytes, int] = {}  # canonical state -> fewest known enough
        self.kids: dict[bytes, tuple[np.ndarray, list[list[np.ndarray]]]] = {}
        self.nodes = 0

    def _options(self, state: np.ndarray) -> tuple[np.ndarray, list[list[np.ndarray]],
                                                    list[np.ndarray]]:
        """A canonical state's useful queries, per query its canonical children, and each
        child's lies left as a histogram (its volume at t is that times the sequences of
        t answers with r lies, when every hypothesis is its own goal value)."""
        key = state.tobytes()
        got = self.kids.get(key)
        if got is None:
            lies = self.lies
            queries, kids = lies.options(state)
            children = [[lies.canonical(c) for c in mine] for mine in kids]
            hists = [np.stack([np.bincount(lies.budget - c[c >= 0].astype(np.int64),
                                           minlength=lies.budget + 1) for c in mine])
                     for mine in children]
            got = self.kids[key] = (queries, children, hists)
        return got

    def _volumes(self, state: np.ndarray, hist: np.ndarray, children: list[np.ndarray],
                 t: int) -> np.ndarray:
        """The children's volumes with t queries left."""
        lies = self.lies
        if lies.free_lies and lies.goal_unique:
            return hist @ lies._per(t)
        return np.array([lies.volume(c, t) for c in children])

    def solve(self, state: np.ndarray, t: int) -> bool:
        """Whether the canonical `state` can be finished within t more queries."""
        lies = self.lies
        if lies.terminal(state):
            return True
        if t <= 0 or lies.volume(state, t) > lies.branching ** t:
            return False
        key = state.tobytes()
        if self.works.get(key, 1 << 30) <= t:
            return True
        if self.fails.get(key, -1) >= t:
            return False
        self.nodes += 1
        queries, children, hists = self._options(state)
        volumes = [self._volumes(state, h, c, t - 1) for h, c in zip(hists, children,
                                                                       strict=True)]
        cap = lies.branching ** (t - 1)
        order = sorted((i for i in range(len(queries)) if volumes[i].max() <= cap),
                       key=lambda i: (int(volumes[i].max()), i))
        for i in order:
            kids = [children[i][j] for j in np.argsort(-volumes[i], kind="stable")]
            if all(self.solve(c, t - 1) for c in kids):
                self.works[key] = t
                return True
        self.fails[key] = t
        return False

    def least_depth(self, state: np.ndarray) -> int:
        """The least worst case from `state` (any state: it is made canonical here)."""
        state = self.lies.canonical(state)
        t = 0
        while self.lies.volume(state, t) > self.lies.branching ** t:
            t += 1
        while not self.solve(state, t):
            t += 1
            if t > 4 * self.lies.size + 8 * (self.lies.budget + 1):
                raise SleuthError("no sequence of queries finds the secret against these lies",
                                  hint="a lie may be undetectable: check the budget and "
                                       "the false-answer rule")
        return t

    def choose(self, state: np.ndarray, t: int) -> int:
        """A query (table index) that finishes `state` within t, the first of the search's
        order: the one `solve` found for its canonical form, mapped to this state."""
        lies = self.lies
        queries, kids = lies.options(state)
        scored = [(max(lies.volume(c, t - 1) for c in mine), q, mine)
                  for q, mine in zip(queries.tolist(), kids, strict=True)]
        for _, q, mine in sorted(scored, key=lambda x: (x[0], x[1])):
            if all(self.solve(lies.canonical(c), t - 1) for c in mine):
                return q
        raise SleuthError(f"no query finishes this state within {t}",
                          hint="this is a bug in Sleuth; please report it")


def proven_against_lies(search: LieSearch, depth: int, top: int) -> dict[str, Any]:
    """What the search proves: the least worst case against lies (no total)."""
    return {"total": None, "worst": depth, "order": "worst case against lies",
            "nodes": search.nodes, "top": top}


def make_lie_search(candidates: Candidates, worst_first: bool, top: int) -> LieSearch:
    """The search `optimal-worst` runs on a game with lies (`optimal` refuses one: its
    `handles_lies` is false)."""
    assert worst_first
    if top:
        raise SleuthError(f'{option("top")} is not available against lies',
                          hint=f'drop {option("top")}: the lie search tries one query per class')
    return LieSearch(candidates)


__all__ = ["LieSearch", "make_lie_search", "proven_against_lies"]

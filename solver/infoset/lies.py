"""Information sets of a game whose answers may lie (`lies:` in the spec).

A lie is the answerer's, not the secret's: the hypotheses stay the secret's, and each
carries how many lies its answers have used so far. A *state* is one int8 per
hypothesis: -1 when the answers so far rule it out, else the lies they need from it
(0..budget). Answering feedback f to query q moves a hypothesis h in state k to

    k       when f is h's true feedback to q;
    k + 1   when f is not, k < budget, and f is a false answer the rule allows (by
            default any other value q can give: its reachable feedback);

and rules it out otherwise. Several answers can keep the same hypothesis (an adversary
chooses), so the children of a query overlap; the game is over when the hypotheses
left share their goal value. Hypotheses that differ only in how the answerer may still
lie are not separate hypotheses here, so nothing inflates a per-secret count.

Symmetry, found from the table and nothing else: two hypotheses are interchangeable
when swapping them, together with some permutation of the queries, keeps every
feedback code (and what ends the game). Swaps that do join hypotheses into classes on
which every permutation is a symmetry, so a state is equivalent to the one that lists
each class's values in sorted order (`canonical`). When every hypothesis is in one
class, the states are Berlekamp's: how many hypotheses need no lie, how many one, and
so on.
"""

from __future__ import annotations

import math

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.goals import goal_classes
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import Candidates

OUT = -1  # a hypothesis the answers rule out
PAIRS_CHECKED = 400  # hypotheses whose pairs are tried as symmetries, at most


def answered(lied: np.ndarray, truth: np.ndarray, said: int, may_lie: np.ndarray,
             budget: int) -> np.ndarray:
    """The lies each hypothesis needs after the answer `said`, given the lies it needed
    (`lied`) and its true feedback (`truth`): the same where `said` is the truth, one
    more where a lie may give it (`may_lie`) and lies are left, OUT otherwise. The one
    transition the beliefs, the search and the evaluation share; any shapes that
    broadcast."""
    true = truth == said
    lie = ~true & (lied < budget) & may_lie
    return np.where(true, lied, np.where(lie, lied + 1, OUT))


class LieGame:
    """The transitions of a lying game over its outcome table (queries x hypotheses)."""

    def __init__(self, candidates: Candidates):
        game = candidates.game
        lies = game.model.lies
        if lies is None:
            raise SleuthError("this game's answers do not lie (no `lies:` in the spec)")
        self.game = game
        self.budget = lies.budget
        self.table = table = OutcomeTable(candidates)
        self.codes = table.codes  # (queries, hypotheses): code labels
        self.queries = table.queries
        q, h = self.codes.shape
        self.size = h
        self.reach = np.zeros((q, table.ncodes), dtype=bool)  # the labels each query gives
        self.reach[np.arange(q)[:, None], self.codes] = True
        self.false = np.zeros((q, table.ncodes, table.ncodes), dtype=bool) \
            if q * table.ncodes ** 2 <= 1 << 26 else None
        self._false_rules(candidates)
        self.free_lies = not lies.false  # no rule: a lie may give any other value
        self.branching = int(self.reach.sum(axis=1).max()) if q else 1
        self.goal = goal_classes(game)
        self.goal_unique = len(np.unique(self.goal)) == len(self.goal)
        self._volumes: dict[int, np.ndarray] = {}
        self.classes = self._classes()
        self.grouped = np.argsort(self.classes, kind="stable")

    def _false_rules(self, candidates: Candidates) -> None:
        """false[q, truth, said]: whether a lie to q may answer `said` for `truth`."""
        if self.false is None:
            raise SleuthError("too many queries and feedback values to tabulate the lies",
                              hint="narrow the queries' domains or the feedback's values")
        offset = 0
        book = self.table.book
        for block in candidates.blocks:
            rows = slice(offset, offset + len(block.ranks))
            labels = np.flatnonzero(self.reach[rows].any(axis=0))
            allowed = self.game.false_answers(block.action.name, book[labels].tolist())
            sub = np.zeros((self.reach.shape[1],) * 2, dtype=bool)
            sub[np.ix_(labels, labels)] = allowed
            self.false[rows] = sub[None] & self.reach[rows][:, None, :]
            offset += len(block.ranks)

    def _classes(self) -> np.ndarray:
        """One id per hypothesis; equal ids: interchangeable (every permutation within a
        class, with a matching permutation of the queries, keeps the game)."""
        h = self.size
        parent = list(range(h))
        if h > PAIRS_CHECKED:  # every pair is checked: beyond this, no symmetry is sought
            return np.arange(h, dtype=np.int64)

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        rows = self._row_keys(np.arange(h))
        for a in range(h):
            for b in range(a + 1, h):
                if find(a) == find(b) or self.goal[a] == self.goal[b]:
                    continue  # (hypotheses of one goal value are never told apart)
                swap = np.arange(h)
                swap[[a, b]] = [b, a]
                if np.array_equal(self._row_keys(swap), rows):
                    parent[find(b)] = find(a)
        return np.array([find(i) for i in range(h)], dtype=np.int64)

    def _row_keys(self, order: np.ndarray) -> np.ndarray:
        """The table's rows with the hypotheses in `order`, with each query's stop and
        lie rules, as a sorted array of rows (the multiset a symmetry must keep)."""
        codes = self.codes[:, order]
        extra = self.false.reshape(len(codes), -1).astype(np.int64)
        rows = np.concatenate([codes, extra], axis=1)
        return rows[np.lexsort(rows.T[::-1])]

    # -- states

    def root(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.int8)

    def terminal(self, state: np.ndarray) -> bool:
        goals = self.goal[state != OUT]
        return len(goals) == 0 or bool(np.all(goals == goals[0]))

    def canonical(self, state: np.ndarray) -> np.ndarray:
        """The equivalent state listing each class's values in sorted order."""
        out = np.empty_like(state)
        out[self.grouped] = state[np.lexsort((state, self.classes))]
        return out

    def children(self, state: np.ndarray, q: int) -> list[tuple[int, np.ndarray]]:
        """(feedback label, state after it) for every answer that keeps some hypothesis."""
        row = self.codes[q]
        present = state != OUT
        out = []
        for f in np.flatnonzero(self.reach[q]).tolist():
            child = answered(state, row, f, present & self.false[q, row, f], self.budget)
            child[~present] = OUT
            if (child != OUT).any():
                out.append((f, child.astype(np.int8)))
        return out

    def options(self, state: np.ndarray) -> tuple[np.ndarray, list[list[np.ndarray]]]:
        """The useful queries at `state`, one per class of queries whose children are
        alike up to symmetry (the first in canonical order), and each one's children
        (the states after each answer that keeps some hypothesis). Useless: some answer
        leaves an equivalent state (the adversary would give it for ever)."""
        present = np.flatnonzero(state != OUT)
        k = state[present].astype(np.int64)
        codes = self.codes[:, present]  # (Q, m)
        cls = self.classes[present]
        _, cls = np.unique(cls, return_inverse=True)
        ncls, width = int(cls.max()) + 1, self.budget + 2
        parent = np.bincount(cls * width + k + 1, minlength=ncls * width)
        q_all = np.arange(len(codes))[:, None]
        sigs, news, kepts = [], [], []
        useful = np.ones(len(codes), dtype=bool)
        for f in np.flatnonzero(self.reach.any(axis=0)).tolist():
            new = answered(k[None, :], codes, f, self.false[q_all, codes, f], self.budget)
            flat = (cls * width)[None, :] + new + 1 + q_all * (ncls * width)
            hist = np.bincount(flat.ravel(), minlength=len(codes) * ncls * width)
            hist = hist.reshape(len(codes), ncls * width)
            kept = (new != OUT).any(axis=1)
            useful &= ~(kept & (hist == parent[None, :]).all(axis=1))
            sigs.append(np.where(kept[:, None], hist, 0))
            news.append(new)
            kepts.append(kept)
        sig = np.concatenate(sigs, axis=1)
        _, first = np.unique(sig, axis=0, return_index=True)
        first = np.sort(first)
        first = first[useful[first]]
        kids = []
        for q in first.tolist():
            mine = []
            for new, kept in zip(news, kepts, strict=True):
                if kept[q]:
                    child = np.full(self.size, OUT, dtype=np.int8)
                    child[present] = new[q]
                    mine.append(child)
            kids.append(mine)
        return first, kids

    def volume(self, state: np.ndarray, t: int) -> int:
        """Berlekamp's volume of a state with t queries left: per goal value, the answer
        sequences its hypotheses can make a lying answerer produce (the most of any of them). A
        tree of depth t has at most branching^t leaves, so a larger volume cannot be
        finished in t. Without a false-answer rule each lie has an alternative; with one,
        only the hypotheses are counted."""
        present = np.flatnonzero(state != OUT)
        if not self.free_lies:
            return len(np.unique(self.goal[present]))
        per = self._per(t)
        counts = per[self.budget - state[present].astype(np.int64)]
        goals = self.goal[present]
        if self.goal_unique:
            return int(counts.sum())
        best = np.zeros(int(goals.max()) + 1, dtype=np.int64)
        np.maximum.at(best, goals, counts)
        return int(best.sum())

    def _per(self, t: int) -> np.ndarray:
        """Answer sequences of t answers with at most r lies, r = 0..budget (kept)."""
        got = self._volumes.get(t)
        if got is None:
            got = self._volumes[t] = np.array(
                [sum(math.comb(t, j) for j in range(r + 1)) for r in range(self.budget + 1)],
                dtype=np.int64)
        return got


__all__ = ["OUT", "LieGame"]

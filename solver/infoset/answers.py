"""What each query would answer now: the probability of each of its feedback values under
a belief (`sleuth belief --queries`). On a search board it is the heat map -- every cell's
chance of a hit -- and on any game it says which questions are still open.

A listed belief weighs its hypotheses' feedback codes; a counted belief too large to
list counts each feedback value (one pass for every query on a counter with
`cheap_counts`, compiler/counters/factored.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query


def feedback_dict(game: Any, action: str, key: tuple) -> dict[str, Any]:
    """A feedback given as the tuple of its components' values, by component name."""
    names = [name for name, _, _ in game.model.action(action).feedback or []]
    return dict(zip(names, key, strict=True))


def feedback_chances(belief: AnyBelief, candidates: Candidates
                     ) -> list[tuple[Query, dict[tuple, float]]]:
    """Every legal deterministic query with the probability of each feedback it can give
    (a feedback as the tuple of its components' values), in canonical order."""
    game = candidates.game
    out = []
    for block in candidates.blocks_for(belief):
        if not block.deterministic:
            continue
        action = block.action.name
        names = [name for name, _, _ in game.model.action(action).feedback]
        listed = belief.listing()
        for rank in block.ranks.tolist():
            query = Query(action, int(rank))
            if listed is None:
                masses = belief.feedback_masses(action, game.space(action).value(rank))
                total = sum(masses.values())
                out.append((query, {k: m / total for k, m in masses.items()}))
                continue
            codes = listed.game.feedback_matrix(action, np.array([rank]), listed.index)[0]
            p = np.bincount(codes, weights=listed.probabilities())
            p /= p.sum()
            chances: dict[tuple, Any] = {}
            for code in np.flatnonzero(p).tolist():
                feedback = game.coder(action).decode(code)
                chances[tuple(feedback[n] for n in names)] = float(p[code])
            out.append((query, chances))
    return out


__all__ = ["feedback_chances", "feedback_dict"]

"""A game's summary: secret, hypothesis count, entropy, queries and their feedback.

One function computes it as plain data; `sleuth check` prints it for people and
`sleuth info --json` prints it as JSON, so the two can never disagree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from compiler.check import CheckedAction
from compiler.domains import domain_size
from compiler.game import Game

ENUMERATE_QUERIES = 5 * 10**7  # argument tuples we are willing to list to count legal ones
EXACT_FEEDBACK_PAIRS = 5 * 10**7  # query x hypothesis pairs we score to count feedbacks


def summarise(game: Game, spec_path: str) -> dict[str, Any]:
    """Everything `check` and `info` report, as JSON-ready data."""
    model = game.model
    hyps = game.hypotheses
    out: dict[str, Any] = {
        "game": model.game,
        "spec": spec_path,
        "about": model.about,
        "params": model.params,
        "backend": "enum",
        "secret": {v.name: v.domain.describe() for v in model.secret},
        "constraints": len(model.constraints),
        "prior": "uniform" if model.prior is None else "weight",
        "hypotheses": hyps.size,
        "entropy_bits": game.entropy_bits,
        "identify": model.identify,
        "queries": [describe_action(game, a) for a in model.queries],
        "observations": [describe_action(game, a) for a in model.observations],
    }
    return out


def describe_action(game: Game, action: CheckedAction) -> dict[str, Any]:
    space = game.space(action.name)
    legal = space.count_legal(ENUMERATE_QUERIES)
    info: dict[str, Any] = {
        "name": action.name,
        "args": {a.name: a.domain.describe() for a in action.args},
        "arg_tuples": space.size,
        "legal": legal,
    }
    if action.feedback is not None:
        coder = game.coder(action.name)
        info["feedback"] = [name for name, _, _ in action.feedback]
        info["feedback_bound"] = coder.size
        info["feedback_values"] = distinct_feedbacks(game, action.name, legal)
    else:
        r = action.response
        info["response"] = {
            "answer": r.answer.domain.describe(),
            "answers": domain_size(r.answer.domain) if r.answer.domain.type.finite else None,
            "likelihood": r.likelihood,
        }
    return info


def distinct_feedbacks(game: Game, query: str, legal: int | None) -> int | None:
    """How many different feedbacks legal queries can produce (None when too costly)."""
    if legal is None or legal * game.hypotheses.size > EXACT_FEEDBACK_PAIRS:
        return None
    seen = np.zeros(game.coder(query).size, dtype=bool)
    for ranks in game.space(query).legal_ranks():
        if len(ranks):
            seen |= game.partition_counts(query, ranks).any(axis=0)
    return int(seen.sum())

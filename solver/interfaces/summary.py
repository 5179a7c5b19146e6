"""A game's summary: secret, hypothesis count, entropy, queries and their feedback.

One function computes it as plain data; `sleuth check` prints it for people and
`sleuth info --json` prints it as JSON, so the two can never disagree.
"""

from __future__ import annotations

import math
from typing import Any

from sleuth.compiler.api import BudgetError, CheckedAction, Game, domain_size
from sleuth.solver.infoset import queries
from sleuth.solver.infoset.backends import DEFAULT_COUNTER, lists_hypotheses
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.reachable import action_domain, reachable_codes


def heading(game: Game) -> str:
    """The game as a heading: its name and its params, as the spec's `title` writes them
    (`title: "{n} x {n}"` with n = 8: "Name, 8 x 8"), else each as "name value". A
    hidden param (part of the secret) reads as "hidden"."""
    model = game.model
    shown = {k: format_param(v) if isinstance(v, bool | int | float | str) else "hidden"
             for k, v in model.params.items()}
    if model.title:
        return f"{model.game}, {model.title.format(**shown)}"
    return ", ".join([model.game, *(f"{k} {v}" for k, v in shown.items())])


def format_param(value: Any) -> str:
    """A param's value as a heading writes it (true/false in lower case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def summarise(game: Game, spec_path: str, backend: str = "enum",
              count: bool = True) -> dict[str, Any]:
    """Everything `check` and `info` report, as JSON-ready data; without `count`, no count
    of the prior (the caller reports another belief's: a count may take minutes)."""
    model = game.model
    out: dict[str, Any] = {
        "game": model.game,
        "spec": spec_path,
        "about": model.about,
        "params": model.params,
        "backend": backend,
        "secret": {v.name: v.domain.describe() for v in model.secret},
        "constraints": len(model.constraints),
        "prior": "uniform" if model.prior is None else "weight",
        "identify": model.identify,
        "max_queries": model.max_queries,
        # lies: at most `budget` false answers in a game, placed by an adversary
        "lies": None if model.lies is None else {
            "budget": model.lies.budget, "rule": sorted(model.lies.false) or None},
    }
    if lists_hypotheses(backend):
        out["hypotheses"] = game.hypotheses.size
        out["entropy_bits"] = game.entropy_bits
        out["backend_size"] = {"hypotheses": game.hypotheses.size}
    else:
        out.update(symbolic_summary(game, backend, count))
    exact = lists_hypotheses(backend)
    out["queries"] = [describe_action(game, a, exact) for a in model.queries]
    out["observations"] = [describe_action(game, a, exact) for a in model.observations]
    return out


def symbolic_summary(game: Game, backend: str, count: bool = True) -> dict[str, Any]:
    counter = game.counter(backend)
    state = counter.start()
    size = counter.describe(state)
    if not count:
        return {"backend_size": size}
    try:
        n = counter.count(state)
    except BudgetError as err:  # a counter that gave up (Ganak's time limit)
        fallback = game.counter(DEFAULT_COUNTER)
        n = fallback.count(fallback.start())
        size["counted_by"] = f"{DEFAULT_COUNTER} ({backend}: {err.message})"
    entropy = math.log2(n) if n else 0.0
    if not game.symbolic.uniform:  # a weighted prior: the entropy of the weights
        entropy = CountedBelief.prior(game, backend).entropy_bits()
    return {"hypotheses": n, "entropy_bits": entropy, "backend_size": size}


def describe_action(game: Game, action: CheckedAction, exact: bool = True) -> dict[str, Any]:
    space = game.space(action.name)
    legal = space.count_legal(queries.ENUMERATE_QUERIES)  # one limit, kept in queries.py
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
        info["feedback_values"] = distinct_feedbacks(game, action.name, legal) if exact \
            else None
        domain, is_exact = action_domain(game, action, exact)
        info["feedback_domain"] = domain  # component -> its reachable values (sorted)
        info["feedback_domain_exact"] = is_exact  # False: the static types' values
    else:
        r = action.response
        info["response"] = {
            "answer": r.answer.domain.describe(),
            "answers": domain_size(r.answer.domain) if r.answer.domain.type.finite else None,
            "likelihood": r.likelihood,
        }
    return info


def distinct_feedbacks(game: Game, query: str, legal: int | None) -> int | None:
    """How many different feedbacks legal queries can produce (None when too costly): the
    reachable codes' count (reachable.py, one scan shared with `feedback_domain`)."""
    if legal is None:
        return None
    codes = reachable_codes(game, game.model.action(query), legal=legal)
    return None if codes is None else len(codes)

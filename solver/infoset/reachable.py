"""Reachable feedback: the values a query's feedback can actually take, from the compiled
game, instead of the static bounds of its type.

A component's static type bounds what its expression could compute (a sum of minima
minus another count may be typed -4..24); the values the game can give may be fewer
(0..4). Two scopes:

    action_domain   per action, over every legal query and every hypothesis: exact on
                    the listed hypotheses when the (query x hypothesis) pairs are few
                    enough to score (EXACT_PAIRS), else the static
                    type's values (a sound superset), flagged as such
    query_codes     per query, over every hypothesis of the prior: its feedback row,
                    one kernel call (what `play`, observation files and the API check a
                    typed feedback against)

`info --json` reports the first as `feedback_domain`; a feedback no hypothesis gives
for the query asked is refused as impossible for that query, with its reachable values,
before it reaches the belief (where it would be "inconsistent observations").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import (
    BoolT,
    BudgetError,
    CheckedAction,
    EnumT,
    Game,
    IntT,
    StrT,
    show_value,
)

CHEAP = 10**5  # assignments of the secret listed just to check a feedback, at most
DENSE_CODES = 1 << 22  # feedback codes counted in a dense table; more: the distinct ones
DECODED = 100_000  # distinct feedback codes decoded into per-component values, at most
EXACT_PAIRS = 5 * 10**7  # (query x hypothesis) pairs scored for an exact action domain
FORM_PAIRS = 4 * 10**6  # ... when a web form asks (a page load must stay quick: Black
# Box's 32 rays on 635,376 layouts are 20 million iterated kernel cells)


def static_values(t: Any) -> list[Any] | None:
    """A static type's values, when it is a scalar type (None: too many to list)."""
    if isinstance(t, BoolT):
        return [False, True]
    if isinstance(t, IntT):
        return list(range(t.lo, t.hi + 1)) if t.hi - t.lo < DECODED else None
    if isinstance(t, EnumT):
        return list(t.values)
    if isinstance(t, StrT):
        return sorted(t.values)
    return None


def _components(action: CheckedAction) -> list[tuple[str, Any]]:
    return [(name, node.type) for name, _, node in action.feedback or []]


def decoded(game: Game, action: CheckedAction, codes: np.ndarray) -> dict[str, list[Any]]:
    """Each component's sorted values over some feedback codes (values as shown: lists
    for sequences)."""
    coder = game.coder(action.name)
    seen: dict[str, dict[str, Any]] = {name: {} for name, _ in _components(action)}
    for code in np.unique(codes).tolist():
        for name, value in coder.decode(int(code)).items():
            shown = show_value(value)
            seen[name].setdefault(repr(shown), shown)
    return {name: sorted(values.values(), key=_order) for name, values in seen.items()}


def _order(value: Any) -> tuple:
    """Sort key across a component's values (numbers before labels, then by value)."""
    if isinstance(value, bool):
        return (0, int(value), "")
    if isinstance(value, int | float):
        return (0, value, "")
    return (1, 0, repr(value))


def action_domain(game: Game, action: CheckedAction, exact: bool = True,
                  pairs: int = EXACT_PAIRS) -> tuple[dict[str, list[Any]] | None, bool]:
    """(component -> sorted reachable values, whether exact) for one action with feedback,
    scoring at most `pairs` (query, hypothesis) pairs; (None, False) when neither the game
    nor the static types can list them. Kept."""
    return game.memo.get(("feedback-domain", action.name, exact, pairs),
                         lambda: _action_domain(game, action, exact, pairs))


def _action_domain(game: Game, action: CheckedAction, exact: bool,
                   pairs: int) -> tuple[dict[str, list[Any]] | None, bool]:
    got = None
    if exact:
        codes = reachable_codes(game, action, pairs)
        if codes is not None and len(codes) <= DECODED:
            got = (decoded(game, action, codes), True)
    if got is None:
        values = {name: static_values(t) for name, t in _components(action)}
        got = (None, False) if any(v is None for v in values.values()) else (values, False)
    return got


def reachable_outcomes(game: Game, action: CheckedAction, pairs: int = EXACT_PAIRS,
                       most: int = 40) -> list[dict[str, Any]] | None:
    """Every feedback the game can give for the action, whole (component -> value as
    shown), in code order, when they are at most `most` (14 pairs of two
    counts, say); None when more, or when they cannot be listed exactly."""
    codes = reachable_codes(game, action, pairs)
    if codes is None or len(codes) > most:
        return None
    coder = game.coder(action.name)
    return [{name: show_value(v) for name, v in coder.decode(int(c)).items()}
            for c in codes.tolist()]


def listed(game: Game) -> bool:
    """Whether the game's hypotheses are listed already, or cheap to list: a game meant
    for the counting backends (billions of hypotheses) is never enumerated for a check."""
    return ("hypotheses",) in game.memo or game.candidate_count() <= CHEAP


def reachable_codes(game: Game, action: CheckedAction, pairs: int = EXACT_PAIRS,
                    legal: int | None = None) -> np.ndarray | None:
    """Every code some legal query gives some hypothesis, sorted (None: more than `pairs`
    (query, hypothesis) pairs to score -- `legal` queries when the caller counted them,
    else every argument tuple -- or hypotheses not listed). One scan per action, kept."""
    if not listed(game):
        return None
    try:
        h = game.hypotheses.size
        space = game.space(action.name)
    except BudgetError:  # a game too large to list: no exact domain
        return None
    if (space.size if legal is None else legal) * h > pairs:
        return None
    return game.memo.get(("reachable-codes", action.name), lambda: _scan(game, action))


def _scan(game: Game, action: CheckedAction) -> np.ndarray:
    """The codes every legal query gives every hypothesis, block by block: a table of
    every code when the feedback has few enough (one bincount a block), else the
    distinct ones (a feedback's code space may run to billions)."""
    h, coder, space = game.hypotheses.size, game.coder(action.name), game.space(action.name)
    dense = coder.size <= DENSE_CODES
    rows = max(1, game.budget.memory_bytes // (4 * 8 * (h + (coder.size if dense else 0))))
    seen: np.ndarray = np.zeros(coder.size if dense else 0, dtype=bool if dense else np.int64)
    for ranks in space.legal_ranks(chunk=rows):
        if not len(ranks):
            continue
        if dense:
            seen |= game.partition_counts(action.name, ranks).any(axis=0)
        else:
            seen = np.union1d(seen, game.feedback_matrix(action.name, ranks).ravel())
    return np.flatnonzero(seen) if dense else seen


def query_codes(game: Game, action: str, rank: int) -> np.ndarray | None:
    """The distinct codes one query gives over the prior's hypotheses (None when they are
    not listed)."""
    if not listed(game):
        return None
    try:
        row = game.feedback_matrix(action, np.array([rank]))[0]
    except BudgetError:  # hypotheses too many to list (the symbolic backend's games)
        return None
    return np.unique(row)


def describe_values(values: list[Any]) -> str:
    """Values as a person reads them: a run of integers as lo..hi."""
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values) \
            and values == list(range(values[0], values[-1] + 1)) and len(values) > 2:
        return f"{values[0]}..{values[-1]}"
    shown = ", ".join(_text(v) for v in values[:SHOWN])
    return shown if len(values) <= SHOWN else f"{shown}, ... ({len(values):,} in all)"


SHOWN = 12  # values listed in a message, at most


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list | tuple):
        if v and all(isinstance(x, str) and len(x) == 1 for x in v):
            return "".join(v)  # one-character labels: a word, as it is typed
        return "[" + ", ".join(_text(x) for x in v) + "]"
    return str(v)


__all__ = ["action_domain", "decoded", "describe_values", "query_codes", "reachable_outcomes",
           "static_values"]

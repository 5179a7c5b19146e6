"""Observations: a query (or observation) with its arguments and what came back.

An `Event` is checked against the spec when it is made: the action exists,
the arguments are values of their domains and legal, the feedback is a value
the feedback can take -- and one some secret gives this query (reachable.py) --
the answer is legal for the question. Events are read from what a person
writes (observation files, text typed at a table) in solver/interfaces/reading.py.
Applying an event to a belief conditions it (feedback) or updates it by
Bayes' rule (answers); an impossible event leaves the belief untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sleuth.compiler.api import (
    TURN,
    CheckedAction,
    EnumT,
    Game,
    Loc,
    ObservationError,
    SeqT,
    SleuthError,
    answer_is_legal,
    coerce,
    coerce_text,
    did_you_mean,
    show_value,
)
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.reachable import (
    FORM_PAIRS,
    action_domain,
    decoded,
    describe_values,
    query_codes,
)


@dataclass(frozen=True)
class Event:
    """One observed step: `action(args)` and its feedback (deterministic) or answer."""

    action: str
    args: dict[str, Any]
    feedback: dict[str, Any] | None = None
    answer: Any = None
    loc: Loc | None = None

    def query_text(self) -> str:
        return query_text(self.action, self.args)

    def outcome_text(self) -> str:
        if self.feedback is not None:
            return feedback_text(self.feedback)
        return format_value(self.answer)

    def describe(self) -> str:
        return f"{self.query_text()} -> {self.outcome_text()}"

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"query": self.action,
                                "args": {k: show_value(v) for k, v in self.args.items()}}
        if self.feedback is not None:
            data["feedback"] = {k: show_value(v) for k, v in self.feedback.items()}
        else:
            data["answer"] = show_value(self.answer)
        return data


# ----------------------------------------------------------------------------- formatting

def format_value(value: Any) -> str:
    """A plain value as a person would type it (YAML flow style, sets sorted)."""
    v = show_value(value)
    if isinstance(value, tuple) and v and all(isinstance(x, str) and len(x) == 1 for x in v):
        return "".join(v)  # one-character labels: a word, as it is typed (coerce_text)
    if isinstance(v, list):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {format_value(x)}" for k, x in v.items()) + "}"
    return str(v).lower() if isinstance(v, bool) else str(v)


def value_text(game: Game, name: str, value: Any) -> str:
    """A secret variable's value as a person types it: a sequence of one-character labels
    as the word it spells, even when given as JSON data (a list); else format_value."""
    var = next((v for v in game.model.secret if v.name == name), None)
    t = None if var is None else var.domain.type
    if isinstance(t, SeqT) and isinstance(t.elem, EnumT) and isinstance(value, list | tuple) \
            and all(len(x) == 1 for x in t.elem.values):
        return "".join(value)
    return format_value(value)


def hypothesis_text(game: Game, values: dict[str, Any]) -> str:
    """A hypothesis (or some of its variables) as `k = v, ...` (value_text)."""
    return ", ".join(f"{k} = {value_text(game, k, v)}" for k, v in values.items())


def count_text(n: int, noun: str = "query", plural: str = "queries") -> str:
    """'1 query', '5 queries'."""
    return f"{n:,} {noun if n == 1 else plural}"


def query_text(action: str, args: dict[str, Any]) -> str:
    """`guess g=[1, 1, 2, 2]` (a query's implicit `turn` is not shown: it is its place)."""
    parts = [f"{k}={format_value(v)}" for k, v in args.items() if k != TURN]
    return " ".join([action, *parts])


def feedback_text(feedback: dict[str, Any]) -> str:
    if list(feedback) == ["feedback"]:
        return format_value(feedback["feedback"])
    return " ".join(f"{k}={format_value(v)}" for k, v in feedback.items())


# ----------------------------------------------------------------------------- checking

def checked_args(game: Game, action: CheckedAction, raw: dict[str, Any],
                 loc: Loc | None = None, text: bool = False,
                 turn: int | None = None) -> dict[str, Any]:
    """Arguments of `action` from raw data (or text), checked against domains and legal.
    An action that reads `turn` gets it filled in: the query's place in the game."""
    names = [a.name for a in action.args]
    if TURN in names and TURN not in raw:
        if turn is None:
            raise ObservationError(f"'{action.name}' reads the turn, and this query's place "
                                   "in the game is not known here", loc,
                                   hint="give it as an argument: turn=N")
        raw = {**raw, TURN: str(turn) if text else turn}
    for k in raw:
        if k not in names:
            raise ObservationError(f"'{action.name}' has no argument '{k}'", loc,
                                   hint=did_you_mean(str(k), names)
                                   or f"its arguments: {', '.join(names) or 'none'}")
    args = {}
    for a in action.args:
        if a.name not in raw:
            raise ObservationError(f"'{action.name}' needs argument '{a.name}' "
                                   f"({a.domain.describe()})", loc)
        try:
            args[a.name] = (coerce_text(a.domain, raw[a.name]) if text
                            else coerce(a.domain, raw[a.name]))
        except ValueError as err:
            raise ObservationError(f"argument '{a.name}' of '{action.name}': {err}", loc,
                                   hint=f"a value of {a.domain.describe()}") from None
    space = game.space(action.name)
    if not space.legal_mask(np.array([space.rank(args)]))[0]:
        rules = "; ".join(c.text for c in action.legal)
        raise ObservationError(f"{query_text(action.name, args)} is not legal", loc,
                               hint=f"legal: {rules}")
    return args


def checked_feedback(game: Game, action: CheckedAction, raw: Any, loc: Loc | None = None,
                     text: bool = False) -> dict[str, Any]:
    """A feedback given as a mapping of components (or one value for a single component)."""
    components = [(name, node.type) for name, _, node in action.feedback or []]
    names = [n for n, _ in components]
    if not isinstance(raw, dict):
        if len(components) != 1:
            raise ObservationError(f"the feedback of '{action.name}' has components "
                                   f"{', '.join(names)}; give each", loc,
                                   hint=" ".join(f"{n}=..." for n in names))
        raw = {names[0]: raw}
    out = {}
    for k in raw:
        if k not in names:
            raise ObservationError(f"the feedback of '{action.name}' has no component '{k}'",
                                   loc, hint=did_you_mean(str(k), names))
    for name, t in components:
        if name not in raw:
            raise ObservationError(f"feedback component '{name}' is missing", loc)
        try:
            out[name] = coerce_text(t, raw[name]) if text else coerce(t, raw[name])
        except ValueError as err:
            domain, exact = action_domain(game, action, pairs=FORM_PAIRS)
            if domain is None:  # nothing better than the static type's message
                raise ObservationError(f"feedback '{name}' of '{action.name}': {err}",
                                       loc) from None
            labels = [str(v) for v in domain[name] if isinstance(v, str)]
            near = did_you_mean(str(raw[name]), labels) if labels else None
            raise ObservationError(
                f"feedback '{name}' of '{action.name}' is one of "
                f"{describe_values(domain[name])}, not {raw[name]}", loc,
                hint=near or "the values this action's feedback can take" + (
                    "" if exact else " (its type's)")) from None
    return out


LISTED_FEEDBACKS = 20  # an impossible feedback's hint lists up to this many possible ones


def check_reachable(game: Game, action: CheckedAction, args: dict[str, Any],
                    feedback: dict[str, Any], loc: Loc | None = None) -> None:
    """An ObservationError when no hypothesis of the game gives this feedback to this
    query: impossible for the query, whatever was observed before (reachable.py)."""
    rank = game.space(action.name).rank(args)
    codes = query_codes(game, action.name, rank)
    if codes is None or game.coder(action.name).encode(feedback) in set(codes.tolist()):
        return
    if len(codes) <= LISTED_FEEDBACKS:  # the reachable feedbacks themselves
        coder = game.coder(action.name)
        can = ", ".join(feedback_text({k: show_value(v) for k, v in coder.decode(c).items()})
                        for c in codes.tolist())
    else:  # each component's values
        can = "; ".join(f"{name} {describe_values(values)}"
                        for name, values in decoded(game, action, codes).items())
    raise ObservationError(
        f"{feedback_text(feedback)} is impossible for {query_text(action.name, args)}: no "
        "secret gives it", loc, hint=f"this query's feedback can be: {can}")


def checked_answer(game: Game, action: CheckedAction, args: dict[str, Any], raw: Any,
                   loc: Loc | None = None, text: bool = False) -> Any:
    r = action.response
    assert r is not None
    try:
        answer = coerce_text(r.answer.domain, raw) if text else coerce(r.answer.domain, raw)
    except ValueError as err:
        raise ObservationError(f"the answer to '{action.name}': {err}", loc,
                               hint=f"a value of {r.answer.domain.describe()}") from None
    if not answer_is_legal(game, action.name, args, answer):
        rules = "; ".join(c.text for c in r.legal)
        raise ObservationError(f"{format_value(answer)} is not a legal answer to "
                               f"{query_text(action.name, args)}", loc, hint=f"legal: {rules}")
    return answer


def make_event(game: Game, action: str, args: dict[str, Any], outcome: Any,
               loc: Loc | None = None, text: bool = False,
               outcome_loc: Loc | None = None, turn: int | None = None) -> Event:
    """A checked event; `outcome` is the feedback or the answer, whichever the action has.
    Errors in the arguments are reported at `loc`, in the outcome at `outcome_loc`.
    `turn`: the event's place in the game (1-based), for an action that reads it."""
    try:
        a = game.model.action(action)
    except SleuthError as err:
        raise ObservationError(err.message, loc, hint=err.hint) from None
    args = checked_args(game, a, args, loc, text, turn)
    at = outcome_loc or loc
    if a.feedback is not None:
        feedback = checked_feedback(game, a, outcome, at, text)
        check_reachable(game, a, args, feedback, at)
        return Event(a.name, args, feedback=feedback, loc=loc)
    return Event(a.name, args, answer=checked_answer(game, a, args, outcome, at, text), loc=loc)


# ----------------------------------------------------------------------------- applying

def apply_event(belief: InformationSet, event: Event) -> InformationSet:
    """The belief after `event` (InconsistentObservations if nothing explains it)."""
    return belief.observe(event)


__all__ = ["Event", "apply_event", "check_reachable", "checked_answer", "checked_args",
           "checked_feedback", "count_text", "feedback_text", "format_value",
           "hypothesis_text", "make_event", "query_text", "value_text"]

"""Observations: a query (or observation) with its arguments and what came back.

An `Event` is checked against the spec when it is made: the action exists,
the arguments are values of their domains and legal, the feedback is a value
the feedback can take -- and one some secret gives this query (reachable.py) --
the answer is legal for the question. Events come from
observation files (YAML: a list of `{query, args, feedback | answer}`, with
file:line:col on every error) or from text typed on a command line.
Applying an event to a belief conditions it (feedback) or updates it by
Bayes' rule (answers); an impossible event leaves the belief untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sleuth.compiler.api import (
    TURN,
    CheckedAction,
    Document,
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


# ----------------------------------------------------------------------------- files

def read_observations(game: Game, path: str | Path) -> list[Event]:
    """An observations file: a YAML list of {query, args, feedback | answer}."""
    doc = Document.from_path(path, "observations file")
    root = doc.root
    if root is None:
        return []
    if not isinstance(root, SequenceNode):
        raise ObservationError("an observations file is a YAML list of "
                               "{query, args, feedback | answer}", doc.loc(root))
    events = []
    for turn, item in enumerate(root.value, 1):
        events.append(_event_from_node(game, doc, item, turn))
    return events


def _event_from_node(game: Game, doc: Document, node: Node, turn: int) -> Event:
    loc = doc.loc(node)
    if not isinstance(node, MappingNode):
        raise ObservationError("each observation is a mapping {query, args, feedback | answer}",
                               loc)
    fields = {k.value: (k, v) for k, v in node.value if isinstance(k, ScalarNode)}
    allowed = ("query", "args", "feedback", "answer")
    for name, (key, _) in fields.items():
        if name not in allowed:
            raise ObservationError(f"unknown key '{name}' in an observation", doc.loc(key),
                                   hint=did_you_mean(name, allowed)
                                   or "keys: query, args, feedback | answer")
    if "query" not in fields:
        raise ObservationError("an observation needs 'query' (the query's name)", loc)
    outcome_keys = [k for k in ("feedback", "answer") if k in fields]
    if len(outcome_keys) != 1:
        raise ObservationError("an observation needs exactly one of 'feedback' or 'answer'",
                               loc)
    action = _data(fields["query"][1])
    try:
        a = game.model.action(str(action))
    except SleuthError as err:
        raise ObservationError(err.message, doc.loc(fields["query"][1]), hint=err.hint) from None
    expected = "feedback" if a.feedback is not None else "answer"
    key, value = fields[outcome_keys[0]]
    if outcome_keys[0] != expected:
        kinds = {"feedback": "a feedback", "answer": "an answer"}
        raise ObservationError(f"'{a.name}' gives {kinds[expected]}, not "
                               f"{kinds[outcome_keys[0]]}", doc.loc(key),
                               hint=f"write '{expected}:'")
    args_node = fields.get("args", (None, None))[1]
    args = _data(args_node) if args_node is not None else {}
    if not isinstance(args, dict):
        raise ObservationError("args is a mapping {argument: value}", doc.loc(args_node))
    event = make_event(game, a.name, args, _data(value),
                       doc.loc(args_node) if args_node is not None else loc,
                       outcome_loc=doc.loc(value), turn=turn)
    return Event(event.action, event.args, event.feedback, event.answer, loc)


def _data(node: Node) -> Any:
    from sleuth.compiler.api import scalar_value

    if isinstance(node, ScalarNode):
        return scalar_value(node)
    if isinstance(node, SequenceNode):
        return [_data(x) for x in node.value]
    return {_data(k): _data(v) for k, v in node.value}


# ----------------------------------------------------------------------------- text

def split_words(text: str) -> list[str]:
    """Split on spaces outside brackets: `g=[1, 2] x` -> ['g=[1, 2]', 'x']."""
    words, depth, current = [], 0, ""
    for ch in text.strip():
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch.isspace() and depth <= 0:
            if current:
                words.append(current)
            current = ""
        else:
            current += ch
    if current:
        words.append(current)
    return words


def assign_words(names: list[str], words: list[str], what: str,
                 noun: str = "part") -> dict[str, str]:
    """`name=value` words, or bare values in declaration order, -> {name: text}. A name
    that `what` does not have, or one given twice, is an error."""
    out: dict[str, str] = {}
    positional = iter(names)
    for w in words:
        name, sep, value = w.partition("=")
        if sep and name.isidentifier() and name not in names:
            raise ObservationError(f"{what} has no {noun} '{name}'",
                                   hint=did_you_mean(name, names) or
                                   f"it has {', '.join(names)}")
        if sep and name in names:
            if name in out:
                raise ObservationError(f"'{name}' of {what} is given twice",
                                       hint="give each once")
            out[name] = value
        else:
            name = next(positional, None)
            while name in out:
                name = next(positional, None)
            if name is None:
                raise ObservationError(f"too many values for {what}: '{w}'",
                                       hint=f"expected {', '.join(names)}")
            out[name] = w
    return out


def parse_query_text(game: Game, text: str,
                     turn: int | None = None) -> tuple[str, dict[str, Any]]:
    """`guess 1122` or `guess g=[1,1,2,2]` -> (action, checked args); `turn`: the
    query's place in the game, for an action that reads it."""
    words = split_words(text)
    if not words:
        raise ObservationError("expected a query name and its arguments")
    try:
        a = game.model.action(words[0])
    except SleuthError as err:
        raise ObservationError(err.message, hint=err.hint) from None
    raw = assign_words([v.name for v in a.args if v.name != TURN], words[1:], f"'{a.name}'",
                       "argument")
    return a.name, checked_args(game, a, raw, text=True, turn=turn)


def parse_outcome_text(game: Game, action: str, args: dict[str, Any], text: str) -> Event:
    """Feedback (`1 0`, `black=1 white=0`, `left`) or answer (`{ids: [...], ...}`) text."""
    a = game.model.action(action)
    if a.feedback is None:
        return Event(a.name, args, answer=checked_answer(game, a, args, text, text=True))
    names = [name for name, _, _ in a.feedback]
    raw = assign_words(names, split_words(text), "the feedback", "component")
    return Event(a.name, args, feedback=checked_feedback(game, a, raw, text=True))


__all__ = ["Event", "apply_event", "count_text", "format_value", "hypothesis_text", "make_event",
           "value_text",
           "parse_outcome_text",
           "parse_query_text", "query_text", "read_observations", "split_words"]

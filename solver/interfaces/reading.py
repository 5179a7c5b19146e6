"""What a person writes, read into checked values: observation files (YAML: a list of
`{query, args, feedback | answer}`, with file:line:col on every error), a query or its
outcome typed at a table (`guess 1122`, `black=1 white=0`), and a secret given on the
command line (`--secret code=1122`). Each is checked by solver/infoset/observe.py's
event checks (or the secret's domains) as it is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sleuth.compiler.api import (
    TURN,
    Document,
    Game,
    ObservationError,
    SleuthError,
    coerce_text,
    did_you_mean,
    option,
    said,
)
from sleuth.solver.evaluation.transcript import locate_secret
from sleuth.solver.infoset.observe import (
    Event,
    checked_answer,
    checked_args,
    checked_feedback,
    make_event,
)


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


def parse_secret(game: Game, items: tuple[str, ...] | list[str],
                 listed: bool = True) -> tuple[Game, int]:
    """`--secret name=value` (or one bare value when the secret has one variable) -> the
    game whose hypothesis table holds it and its index there: the game itself, or (when
    the hypotheses are not `listed`: the symbolic backend) a one-hypothesis table."""
    variables = game.model.secret
    names = [v.name for v in variables]
    words = [w for item in items for w in split_words(item)]
    raw = assign_words(names, words, "the secret", "variable")
    values = {}
    for v in variables:
        if v.name not in raw:
            raise ObservationError(f"{option('secret')} needs a value for '{v.name}' "
                                   f"({v.domain.describe()})", hint=said(
                                       " ".join(f"--secret {n}=..." for n in names),
                                       "secret={" + ", ".join(f"{n!r}: ..." for n in names) + "}"))
        try:
            values[v.name] = coerce_text(v.domain, raw[v.name])
        except ValueError as err:
            raise ObservationError(f"{option('secret')} {v.name}: {err}") from None
    return locate_secret(game, values, listed)


__all__ = ["assign_words", "parse_outcome_text", "parse_query_text", "parse_secret",
           "read_observations", "split_words"]

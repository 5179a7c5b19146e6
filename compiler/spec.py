"""The YAML mapping -> a Spec: the game's parts, with expressions parsed to IR.

This stage checks the *shape* of the spec (known keys, required keys, the
kind of each value) and parses every expression; names and types are the
business of `check.py`. Domain descriptions stay as YAML nodes until then,
because their sizes are constant expressions over the params.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sleuth.compiler import ir
from sleuth.compiler.errors import Loc, SpecError, did_you_mean
from sleuth.compiler.forms import FORMS, WITH_EXPRESSION
from sleuth.compiler.hidden import hidden_from
from sleuth.compiler.layout import LayoutDecl, read_layout
from sleuth.compiler.parse import parse_expr
from sleuth.compiler.source import Document, scalar_value

TOP_KEYS = ("game", "title", "layout", "about", "params", "domains", "secret", "prior",
            "defs", "queries", "observations", "goal", "data", "lies", "rounds")
ACTION_KEYS = ("args", "legal", "history", "let", "feedback", "response", "about")
RESPONSE_KEYS = ("answer", "legal", "valid", "likelihood", "tremble")
GOAL_KEYS = ("identify", "stop_when", "max_queries", "confidence", "until_indistinguishable",
             "cover")
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
DEF_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*\(\s*([^()]*?)\s*\)\s*$")
RESERVED = {"if", "then", "else", "and", "or", "not", "in", "for", "true", "false", "iterate"}


@dataclass
class VarDecl:
    name: str
    domain: Node  # YAML node describing the domain; built by check.py
    loc: Loc


@dataclass
class Def:
    name: str
    params: list[str]
    body: ir.Node
    loc: Loc


@dataclass
class Response:
    answer: Node
    legal: list[ir.Node]
    valid: ir.Node | None
    likelihood: str  # a name in forms.FORMS
    likelihood_expr: ir.Node | None
    loc: Loc
    tremble: ir.Node | None = None  # P(off-model answer), a constant expression


@dataclass
class Action:
    """A query (chosen by the player) or an observation (only received)."""

    name: str
    kind: str  # "query" | "observation"
    args: list[VarDecl]
    legal: list[ir.Node]
    feedback: list[tuple[str, ir.Node]] | None  # named components, in order
    response: Response | None
    loc: Loc
    history: list[ir.Node] = field(default_factory=list)  # holds against each earlier query
    lets: list[tuple[str, ir.Node]] = field(default_factory=list)  # named values the feedback
    # shares, computed once before it (not part of it)


@dataclass
class Goal:
    identify: list[tuple[str, Loc]] | None
    stop_when: ir.Node | None
    max_queries: int | tuple[str, Loc] | None  # a number, or a param's name and place
    confidence: float | None = None  # stop when the goal's most likely value is this likely
    until_indistinguishable: bool = False  # also stop when no query tells the rest apart
    cover: ir.Node | None = None  # the game ends once every query this holds for is asked


@dataclass
class LiesDecl:
    """`lies:` -- at most `budget` answers in a game are false (chosen by an adversary);
    `allowed` says which false answers a lie may give (default: any other)."""

    budget: int | tuple[str, Loc]  # a number, or a param's name and place
    false: ir.Node | None
    loc: Loc


@dataclass
class RoundsDecl:
    """`rounds:` -- a game played in rounds: consecutive queries that give the same values
    to the `share` arguments form one round, of at most `most` queries; scored by rounds,
    then queries."""

    share: list[tuple[str, Loc]]
    most: int | tuple[str, Loc] | None  # a number, or a param's name and place
    loc: Loc


@dataclass
class TableDecl:
    name: str
    file: str
    index: list[Node]
    loc: Loc
    default: float | None = None  # the value of the combinations the file does not list


@dataclass
class Spec:
    file: str
    doc: Document
    game: str
    about: str
    params: dict[str, tuple[Any, Loc]]
    domains: dict[str, tuple[Node, Loc]]
    secret: list[VarDecl]
    constraints: list[ir.Node]
    prior: ir.Node | None
    defs: dict[str, Def]
    queries: list[Action]
    observations: list[Action]
    goal: Goal
    data: dict[str, TableDecl] = field(default_factory=dict)
    lies: LiesDecl | None = None
    rounds: RoundsDecl | None = None
    title: str = ""  # how the params read in a heading: "{pegs} pegs" (_read_title)
    layout: LayoutDecl | None = None  # how the worksheet draws the game (layout.py)


class Reader:
    """Reads YAML nodes of one document, raising located SpecErrors."""

    def __init__(self, doc: Document):
        self.doc = doc

    def loc(self, node: Node) -> Loc:
        return self.doc.loc(node)

    def mapping(self, node: Node, what: str, keys: tuple[str, ...] | None = None) \
            -> dict[str, tuple[Node, Node]]:
        if not isinstance(node, MappingNode):
            raise SpecError(f"{what} must be a mapping (key: value lines)", self.loc(node))
        out: dict[str, tuple[Node, Node]] = {}
        for key, value in node.value:
            if not isinstance(key, ScalarNode):
                raise SpecError(f"keys of {what} must be plain names", self.loc(key))
            name = str(scalar_value(key))
            if keys is not None and name not in keys:
                raise SpecError(f"unknown key '{name}' in {what}", self.loc(key),
                                hint=did_you_mean(name, keys) or f"known keys: {', '.join(keys)}")
            out[name] = (key, value)
        return out

    def sequence(self, node: Node, what: str) -> list[Node]:
        if not isinstance(node, SequenceNode):
            raise SpecError(f"{what} must be a list", self.loc(node))
        return list(node.value)

    def scalar(self, node: Node, what: str) -> Any:
        if not isinstance(node, ScalarNode):
            raise SpecError(f"{what} must be a single value, not a "
                            f"{'mapping' if isinstance(node, MappingNode) else 'list'}",
                            self.loc(node))
        return scalar_value(node)

    def text(self, node: Node, what: str) -> str:
        value = self.scalar(node, what)
        if value is None:
            raise SpecError(f"{what} is empty", self.loc(node))
        return str(value)

    def name(self, node: Node, what: str) -> str:
        text = self.text(node, what)
        if not NAME_RE.match(text) or text in RESERVED:
            raise SpecError(f"'{text}' is not a valid {what}", self.loc(node),
                            hint="names are letters, digits and _, not starting with a digit, "
                                 "and not a keyword")
        return text

    def expr(self, node: Node, what: str) -> ir.Node:
        value = self.scalar(node, what)
        if value is None:
            raise SpecError(f"{what} is empty", self.loc(node), hint="write an expression")
        if isinstance(value, bool | int | float):
            out = ir.Const(self.loc(node), value)
            out.text = str(node.value)
            return out
        return parse_expr(str(value), lambda off: self.doc.text_loc(node, off))

    def exprs(self, node: Node, what: str) -> list[ir.Node]:
        """One expression or a list of them (each must hold)."""
        if isinstance(node, SequenceNode):
            return [self.expr(item, what) for item in node.value]
        return [self.expr(node, what)]


def read_spec(doc: Document) -> Spec:
    """Read the spec's structure; expressions are parsed but not yet checked."""
    r = Reader(doc)
    if doc.root is None:
        raise SpecError("the spec is empty", Loc(doc.file, 1, 1),
                        hint="a spec is a YAML mapping with at least 'secret' and 'queries'")
    top = r.mapping(doc.root, "the spec", TOP_KEYS)
    for required in ("game", "secret"):
        if required not in top:
            raise SpecError(f"missing key '{required}'", r.loc(doc.root),
                            hint=f"add a top-level '{required}:'")
    if "queries" not in top and "observations" not in top:
        raise SpecError("missing key 'queries'", r.loc(doc.root),
                        hint="a game needs at least one query (or observation)")
    params = _read_params(r, top)
    domains = {}
    if "domains" in top:
        for _name, (key, value) in r.mapping(top["domains"][1], "domains").items():
            domains[r.name(key, "domain name")] = (value, r.loc(key))
    secret, constraints = _read_secret(r, top["secret"][1])
    return Spec(
        file=doc.file,
        doc=doc,
        game=r.text(top["game"][1], "game"),
        about=r.text(top["about"][1], "about") if "about" in top else "",
        params=params,
        domains=domains,
        secret=secret,
        constraints=constraints,
        prior=_read_prior(r, top["prior"][1]) if "prior" in top else None,
        defs=_read_defs(r, top["defs"][1]) if "defs" in top else {},
        queries=_read_actions(r, top, "queries", "query"),
        observations=_read_actions(r, top, "observations", "observation"),
        goal=_read_goal(r, top["goal"][1]) if "goal" in top else Goal(None, None, None),
        data=_read_data(r, top["data"][1]) if "data" in top else {},
        lies=_read_lies(r, top["lies"][1]) if "lies" in top else None,
        rounds=_read_rounds(r, top["rounds"][1]) if "rounds" in top else None,
        title=_read_title(r, top["title"][1], params) if "title" in top else "",
        layout=read_layout(r, top["layout"][1]) if "layout" in top else None,
    )


def _read_title(r: Reader, node: Node, params: dict[str, tuple[Any, Loc]]) -> str:
    """`title`: text naming params in braces, "{pegs} pegs, {colours} colours"."""
    text = r.text(node, "title")
    try:
        named = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as err:
        raise SpecError(f"title: {err}", r.loc(node), hint="name a param in braces: {n}") from None
    for name in named:
        if name not in params:
            raise SpecError(f"title names '{{{name}}}', which is not a param", r.loc(node),
                            hint=did_you_mean(name, list(params)) or "name a param in braces")
    return text


def _read_rounds(r: Reader, node: Node) -> RoundsDecl:
    fields = r.mapping(node, "rounds", ("share", "most"))
    share = [] if "share" not in fields else [
        (r.name(n, "a shared argument"), r.loc(n))
        for n in r.sequence(fields["share"][1], "rounds' share")]
    most = None
    if "most" in fields:
        value = fields["most"][1]
        most = r.scalar(value, "the queries in a round")
        if isinstance(most, str) and NAME_RE.match(most):
            most = (most, r.loc(value))
        elif not isinstance(most, int) or isinstance(most, bool) or most < 1:
            raise SpecError("a round's 'most' must be a whole number >= 1 or an int param's "
                            "name", r.loc(value), hint="rounds: {share: [code], most: 3}")
    if not share and most is None:
        raise SpecError("rounds needs 'share' (the arguments a round's queries keep), 'most' "
                        "(its queries at most), or both", r.loc(node),
                        hint="rounds: {share: [code], most: 3}")
    return RoundsDecl(share, most, r.loc(node))


def _read_lies(r: Reader, node: Node) -> LiesDecl:
    fields = r.mapping(node, "lies", ("budget", "allowed"))
    if "budget" not in fields:
        raise SpecError("lies needs a 'budget': how many answers in a game may be false",
                        r.loc(node), hint="lies: {budget: 1}")
    value = fields["budget"][1]
    budget = r.scalar(value, "the lie budget")
    if isinstance(budget, str) and NAME_RE.match(budget):
        budget = (budget, r.loc(value))
    elif not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
        raise SpecError("the lie budget must be a whole number >= 0 or an int param's name",
                        r.loc(value), hint="lies: {budget: 1}")
    false = r.expr(fields["allowed"][1], "the false-answer rule") if "allowed" in fields \
        else None
    return LiesDecl(budget, false, r.loc(node))


def _read_params(r: Reader, top: dict) -> dict[str, tuple[Any, Loc]]:
    if "params" not in top:
        return {}
    out = {}
    for name, (key, value) in r.mapping(top["params"][1], "params").items():
        if isinstance(value, MappingNode):  # a hidden param: {hidden: [...], prior: [...]}
            plain = {k: [r.scalar(x, f"param '{name}': {k}") for x in r.sequence(v, k)]
                     for k, (_, v) in r.mapping(value, f"param '{name}'",
                                                ("hidden", "prior")).items()}
            out[r.name(key, "param name")] = (hidden_from(plain, name, r.loc(value)),
                                              r.loc(value))
            continue
        v = r.scalar(value, f"param '{name}'")
        if v is None:
            raise SpecError(f"param '{name}' has no value", r.loc(value))
        out[r.name(key, "param name")] = (v, r.loc(value))
    return out


def _read_secret(r: Reader, node: Node) -> tuple[list[VarDecl], list[ir.Node]]:
    variables, constraints = [], []
    for name, (key, value) in r.mapping(node, "secret").items():
        if name == "constraints":
            constraints = r.exprs(value, "a constraint")
        else:
            variables.append(VarDecl(r.name(key, "secret variable name"), value, r.loc(key)))
    if not variables:
        raise SpecError("the secret has no variables", r.loc(node),
                        hint="declare at least one, e.g. 'code: {seq: Colour, len: 4}'")
    return variables, constraints


def _read_prior(r: Reader, node: Node) -> ir.Node | None:
    if isinstance(node, ScalarNode) and scalar_value(node) == "uniform":
        return None
    fields = r.mapping(node, "prior", ("weight",))
    if "weight" not in fields:
        raise SpecError("prior must be 'uniform' or {weight: expr}", r.loc(node))
    return r.expr(fields["weight"][1], "prior weight")


def _read_defs(r: Reader, node: Node) -> dict[str, Def]:
    out: dict[str, Def] = {}
    for text, (key, value) in r.mapping(node, "defs").items():
        m = DEF_RE.match(text)
        if not m:
            raise SpecError(f"'{text}' is not a def header", r.loc(key),
                            hint="write 'name(a, b): expression'")
        params = [p.strip() for p in m.group(2).split(",")] if m.group(2).strip() else []
        for p in params:
            if not NAME_RE.match(p) or p in RESERVED:
                raise SpecError(f"'{p}' is not a valid parameter name", r.loc(key))
        if len(set(params)) != len(params):
            raise SpecError(f"def '{m.group(1)}' repeats a parameter name", r.loc(key))
        out[m.group(1)] = Def(m.group(1), params, r.expr(value, f"def '{m.group(1)}'"), r.loc(key))
    return out


def _read_actions(r: Reader, top: dict, key: str, kind: str) -> list[Action]:
    if key not in top:
        return []
    actions = []
    for name, (k, node) in r.mapping(top[key][1], key).items():
        fields = r.mapping(node, f"{kind} '{name}'", ACTION_KEYS)
        args = []
        if "args" in fields:
            for _arg, (ak, av) in r.mapping(fields["args"][1], f"args of '{name}'").items():
                args.append(VarDecl(r.name(ak, "argument name"), av, r.loc(ak)))
        legal = r.exprs(fields["legal"][1], "a legality condition") if "legal" in fields else []
        if ("feedback" in fields) == ("response" in fields):
            raise SpecError(f"{kind} '{name}' needs exactly one of 'feedback' or 'response'",
                            r.loc(k), hint="feedback: a deterministic expression; "
                                           "response: an answer chosen by an informed agent")
        feedback = _read_feedback(r, fields["feedback"][1]) if "feedback" in fields else None
        response = _read_response(r, fields["response"][1]) if "response" in fields else None
        history = r.exprs(fields["history"][1], "a history condition") \
            if "history" in fields else []
        lets = []
        if "let" in fields:
            if feedback is None:
                raise SpecError(f"'let' names values for the feedback; {kind} '{name}' has a "
                                "response", r.loc(fields["let"][0]),
                                hint="write the value into the response's expressions")
            lets = [(r.name(lk, "let name"), r.expr(lv, f"let '{n}'"))
                    for n, (lk, lv) in r.mapping(fields["let"][1], "let").items()]
            clash = {n for n, _ in lets} & {n for n, _ in feedback}
            if clash:
                raise SpecError(f"'{sorted(clash)[0]}' is both a let and a feedback component",
                                r.loc(fields["let"][0]), hint="give them different names")
        actions.append(Action(r.name(k, f"{kind} name"), kind, args, legal, feedback, response,
                              r.loc(k), history, lets))
    return actions


def _read_feedback(r: Reader, node: Node) -> list[tuple[str, ir.Node]]:
    if isinstance(node, MappingNode):
        if not node.value:
            raise SpecError("feedback has no components", r.loc(node),
                            hint='one expression, or named components: {black: "..."}')
        return [(r.name(k, "feedback component name"), r.expr(v, f"feedback '{n}'"))
                for n, (k, v) in r.mapping(node, "feedback").items()]
    return [("feedback", r.expr(node, "feedback"))]


def _read_response(r: Reader, node: Node) -> Response:
    fields = r.mapping(node, "response", RESPONSE_KEYS)
    if "answer" not in fields:
        raise SpecError("response needs an 'answer' domain", r.loc(node),
                        hint="e.g. answer: {set: Identity}")
    likelihood, expr = "uniform", None
    if "likelihood" in fields:
        lnode = fields["likelihood"][1]
        forms = ", ".join(f.example.removeprefix("likelihood: ") for f in FORMS.values())
        if isinstance(lnode, ScalarNode):
            likelihood = r.text(lnode, "likelihood")
            if likelihood not in FORMS or FORMS[likelihood].takes_expression:
                raise SpecError(f"unknown likelihood '{likelihood}'", r.loc(lnode),
                                hint=f"use {forms}")
        else:
            lf = r.mapping(lnode, "likelihood", WITH_EXPRESSION)
            if len(lf) != 1:
                raise SpecError("likelihood takes exactly one of " + ", ".join(WITH_EXPRESSION),
                                r.loc(lnode), hint=f"use {forms}")
            likelihood = next(iter(lf))
            expr = r.expr(lf[likelihood][1], f"likelihood {likelihood}")
    return Response(
        answer=fields["answer"][1],
        legal=r.exprs(fields["legal"][1], "answer legality") if "legal" in fields else [],
        valid=r.expr(fields["valid"][1], "validity") if "valid" in fields else None,
        likelihood=likelihood,
        likelihood_expr=expr,
        loc=r.loc(node),
        tremble=r.expr(fields["tremble"][1], "tremble") if "tremble" in fields else None,
    )


def _read_goal(r: Reader, node: Node) -> Goal:
    fields = r.mapping(node, "goal", GOAL_KEYS)
    identify = None
    if "identify" in fields:
        items = fields["identify"][1]
        nodes = r.sequence(items, "identify") if isinstance(items, SequenceNode) else [items]
        identify = [(r.name(n, "secret variable"), r.loc(n)) for n in nodes]
    max_q = None
    if "max_queries" in fields:
        max_q = r.scalar(fields["max_queries"][1], "max_queries")
        if isinstance(max_q, str) and NAME_RE.match(max_q):
            max_q = (max_q, r.loc(fields["max_queries"][1]))  # a param, read when checked
        elif not isinstance(max_q, int) or isinstance(max_q, bool) or max_q < 1:
            raise SpecError("max_queries must be a positive integer or an int param's name",
                            r.loc(fields["max_queries"][1]))
    stop = r.expr(fields["stop_when"][1], "stop_when") if "stop_when" in fields else None
    confidence = None
    if "confidence" in fields:
        confidence = r.scalar(fields["confidence"][1], "confidence")
        if isinstance(confidence, bool) or not isinstance(confidence, int | float) \
                or not 0 < confidence <= 1:
            raise SpecError("confidence must be a probability in (0, 1]",
                            r.loc(fields["confidence"][1]),
                            hint="e.g. goal: {identify: [person], confidence: 0.95}")
        if stop is not None:
            raise SpecError("a goal has either stop_when or confidence, not both",
                            r.loc(fields["confidence"][1]))
        confidence = float(confidence)
    settle = False
    if "until_indistinguishable" in fields:
        settle = r.scalar(fields["until_indistinguishable"][1], "until_indistinguishable")
        where = r.loc(fields["until_indistinguishable"][1])
        if not isinstance(settle, bool):
            raise SpecError("until_indistinguishable is true or false", where)
        if settle and (stop is not None or confidence is not None):
            raise SpecError("until_indistinguishable ends a game played until its secret is "
                            "known; this goal has stop_when or confidence", where)
    cover = r.expr(fields["cover"][1], "cover") if "cover" in fields else None
    if cover is not None and (stop is not None or confidence is not None or settle):
        raise SpecError("a goal with cover ends when every query it names is asked; it takes "
                        "no stop_when, confidence or until_indistinguishable",
                        r.loc(fields["cover"][1]))
    return Goal(identify, stop, max_q, confidence, settle, cover)


def _read_data(r: Reader, node: Node) -> dict[str, TableDecl]:
    out = {}
    for name, (key, value) in r.mapping(node, "data").items():
        fields = r.mapping(value, f"data '{name}'", ("file", "index", "default"))
        if "file" not in fields or "index" not in fields:
            raise SpecError(f"data '{name}' needs 'file' and 'index'", r.loc(value),
                            hint="e.g. {file: scores.csv, index: [Hint, Word]}")
        index = fields["index"][1]
        idx = r.sequence(index, "index") if isinstance(index, SequenceNode) else [index]
        default = None
        if "default" in fields:
            default = r.scalar(fields["default"][1], "default")
            if isinstance(default, bool) or not isinstance(default, int | float):
                raise SpecError(f"data '{name}': default must be a number",
                                r.loc(fields["default"][1]), hint="e.g. default: 0")
        out[r.name(key, "table name")] = TableDecl(name, r.text(fields["file"][1], "file"), idx,
                                                   r.loc(key), default)
    return out

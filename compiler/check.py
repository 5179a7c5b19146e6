"""Checking: a Spec -> a Model whose expressions are resolved and typed.

The checker builds the domains (their sizes are constant expressions over
the params, folded with the reference interpreter), the data tables and the
scopes, and sends every expression through two passes, one per concern:
`resolve.py` (names, def inlining) and then `infer.py` (types, static integer
bounds, dependencies). It then checks what only the model knows: that
`legal` does not depend on the secret, that feedback has finitely many
values, that `goal` names secret variables.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

from sleuth.compiler import ir, rules
from sleuth.compiler.declarations import BUILTIN_DOMAINS, Declarations, Table
from sleuth.compiler.domains import Domain, enum_domain
from sleuth.compiler.errors import Loc, SpecError, did_you_mean
from sleuth.compiler.forms import FORMS, LikelihoodForm
from sleuth.compiler.hidden import Hidden, hidden_from, is_number, prior_factor
from sleuth.compiler.infer import Env, Typer, const_type
from sleuth.compiler.interpret import evaluate
from sleuth.compiler.ir import (
    HYP,
    ROW,
    BoolT,
    DomainT,
    EnumT,
    FloatT,
    IntT,
    RecordT,
    SeqT,
    SetT,
    StrT,
    TupleT,
    Type,
    UnionT,
)
from sleuth.compiler.layout import Layout, check_layout
from sleuth.compiler.resolve import Binding, Resolver, Scope
from sleuth.compiler.rules import TURN, Lies, always, check_lies, param_count, turn_domain
from sleuth.compiler.spec import Action, Reader, Spec, VarDecl

# ----------------------------------------------------------------------------- the model

@dataclass
class Var:
    """A secret variable, query argument or response answer, with its domain."""

    name: str
    domain: Domain
    loc: Loc


@dataclass
class Response:
    answer: Var
    legal: list[ir.Node]
    valid: ir.Node | None
    likelihood: str
    likelihood_expr: ir.Node | None
    tremble: float = 0.0  # the answer is off-model (uniform over legal ones) this often

    @property
    def form(self) -> LikelihoodForm:
        return FORMS[self.likelihood]


@dataclass
class CheckedAction:
    """A query or observation, with typed expressions.

    `feedback` lists (component name, local id, expression); a later component
    refers to an earlier one through its local id.
    """

    name: str
    kind: str
    args: list[Var]
    legal: list[ir.Node]
    feedback: list[tuple[str, str, ir.Node]] | None
    response: Response | None
    stop_when: ir.Node | None
    loc: Loc
    # Conditions on the query and each earlier query of this action, bound as `before`
    # (a record of its arguments and feedback): only those that can be false.
    history: list[ir.Node] = field(default_factory=list)
    # Named values the feedback shares: (name, local id, expression), computed in order
    # before the feedback and not part of it.
    lets: list[tuple[str, str, ir.Node]] = field(default_factory=list)

    def evaluated(self) -> list[tuple[str, str, ir.Node]]:
        """What computing the feedback evaluates, in order: the lets, then the components."""
        return self.lets + (self.feedback or [])

    @property
    def timed(self) -> bool:
        """Whether its expressions read `turn` (an implicit last argument, rules.py)."""
        return bool(self.args) and self.args[-1].name == TURN


BEFORE = "<before>"  # the uid `before` (an earlier query, in a history rule) is bound to


def before_type(args: list[Var], feedback: list[tuple[str, str, ir.Node]]) -> RecordT:
    """The type of `before` in a history rule: an earlier query's arguments and feedback."""
    return RecordT(tuple([(a.name, a.domain.type) for a in args] +
                         [(name, node.type) for name, _, node in feedback]))


@dataclass
class Model:
    """A checked game: everything a backend needs, no YAML left."""

    file: str
    game: str
    about: str
    params: dict[str, Any]
    domains: dict[str, Domain]
    secret: list[Var]
    constraints: list[ir.Node]
    prior: ir.Node | None
    queries: list[CheckedAction]
    observations: list[CheckedAction]
    identify: list[str]
    max_queries: int | None
    strings: tuple[str, ...] = ()
    tables: dict[str, Table] = field(default_factory=dict)
    confidence: float | None = None  # goal: {confidence: p}; None: until determined
    # goal: {until_indistinguishable: true}: a game also ends when no query can tell the
    # remaining hypotheses apart
    until_indistinguishable: bool = False
    lies: Lies | None = None  # lies: at most a budget of false answers in a game (rules.py)
    rounds: rules.Rounds | None = None  # rounds: queries grouped into rounds, scored first
    cover: dict[str, ir.Node] | None = None  # goal: {cover}: per query, its condition
    title: str = ""  # the spec's title: its params in a heading
    layout: Layout | None = None  # the spec's layout: how the worksheet draws it

    def action(self, name: str) -> CheckedAction:
        for a in self.queries + self.observations:
            if a.name == name:
                return a
        raise SpecError(f"no query or observation named '{name}'",
                        hint=did_you_mean(name, [a.name for a in self.queries
                                                 + self.observations]))


# ----------------------------------------------------------------------------- entry point

def check_spec(spec: Spec, overrides: dict[str, Any] | None = None) -> Model:
    """Resolve, type and fold a Spec; raise SpecError at the first problem."""
    return Checker(spec, overrides or {}).model()


class Checker(Declarations):
    """Builds the Model: domains and tables (Declarations), scopes, and every expression
    through name resolution and type inference."""

    def __init__(self, spec: Spec, overrides: dict[str, Any]):
        self.spec = spec
        self.reader = Reader(spec.doc)
        self.params = _apply_overrides(spec, overrides)
        self.hidden = {name: (h, EnumT(h.domain_name, h.labels))
                       for name, h in self.params.items() if isinstance(h, Hidden)}
        self.strings: set[str] = set()
        self.labels: dict[str, list[EnumT]] = {}
        self.domains: dict[str, Domain] = {}
        self.tables: dict[str, Table] = {}
        self.resolver = Resolver(spec.defs)
        self.typer = Typer(self.strings)

    # -- expressions: resolve names, then infer types

    def expr(self, node: ir.Node, scope: Scope) -> ir.Node:
        resolved = self.resolver.resolve(node, scope)
        return self.typer.check(resolved, type_env(scope))

    def boolean(self, node: ir.Node, scope: Scope, what: str) -> ir.Node:
        resolved = self.resolver.resolve(node, scope)
        return self.typer.boolean(resolved, type_env(scope), what)

    # -- scopes

    def global_scope(self) -> dict[str, Binding]:
        scope: dict[str, Binding] = {}
        for name, d in {**BUILTIN_DOMAINS, **self.domains}.items():
            scope[name] = Binding("domain", DomainT(name, d.type), value=d)
        for label, enums in self.labels.items():
            scope[label] = Binding("enum", enums[0], value=enums)
        for name, t in self.tables.items():
            scope[name] = Binding("table", t.type, value=t)
        for name, v in self.params.items():
            if name in self.hidden:  # its value depends on the hypothesis: see secret_scope
                scope[name] = Binding("hidden", None, value=self.hidden[name])
            else:
                scope[name] = Binding("param", const_type(v), value=v)
        return scope

    def secret_scope(self, secret: list[Var]) -> dict[str, Binding]:
        scope = self.global_scope()
        for v in secret:
            kind = "hidden" if v.name in self.hidden else "secret"
            scope[v.name] = Binding(kind, v.domain.type, frozenset({HYP}), v.name,
                                    value=self.hidden.get(v.name))
        return scope

    # -- the model

    def model(self) -> Model:
        spec = self.spec
        for name, (node, _loc) in spec.domains.items():
            self.domains[name] = self.domain(node, name)
        for name, decl in spec.data.items():
            self.tables[name] = self.table(decl)
        secret = [self.var(v, "secret variable") for v in spec.secret]
        for v in secret:
            if v.name in self.params or v.name in self.domains:
                kind = "param" if v.name in self.params else "domain"
                raise SpecError(f"secret variable '{v.name}' has the name of a {kind}", v.loc,
                                hint="rename the secret variable (or the " + kind + ")")
        secret += [Var(name, enum_domain(enum.name, list(enum.values)), spec.params[name][1])
                   for name, (_, enum) in self.hidden.items()]
        scope = self.secret_scope(secret)
        constraints = [self.boolean(c, scope, "a constraint") for c in spec.constraints]
        prior = self.prior(scope)
        queries = [self.action(a, secret) for a in spec.queries]
        observations = [self.action(a, secret) for a in spec.observations]
        identify = self.identify(secret)
        self.stop_when(queries, scope)
        if spec.goal.until_indistinguishable:
            random = [q for q in queries if q.feedback is None]
            if random:
                raise SpecError(f"until_indistinguishable needs queries with feedback; "
                                f"'{random[0].name}' has random answers, which can always "
                                "tell more", random[0].loc)
        return Model(spec.file, spec.game, spec.about, dict(self.params), dict(self.domains),
                     secret, constraints, prior, queries, observations, identify,
                     param_count(spec.goal.max_queries, self.params, "max_queries", 1),
                     tuple(sorted(self.strings)), dict(self.tables),
                     spec.goal.confidence, spec.goal.until_indistinguishable,
                     check_lies(self, queries), rules.check_rounds(self, queries),
                     rules.check_cover(self, queries), spec.title,
                     check_layout(spec.layout, self.params, queries, secret))

    def prior(self, scope: Scope) -> ir.Node | None:
        """The prior weight expression: the spec's, times each hidden param's weights."""
        node = None if self.spec.prior is None else self.resolver.resolve(self.spec.prior, scope)
        for name, (h, enum) in self.hidden.items():
            factor = prior_factor(name, h, enum, self.spec.params[name][1])
            if factor is not None:
                node = factor if node is None else ir.Binary(factor.loc, "*", node, factor)
        if node is None:
            return None
        prior = self.typer.check(node, type_env(scope))
        _expect_numeric(prior, "the prior weight")
        return prior

    def var(self, decl: VarDecl, what: str, finite: bool = True) -> Var:
        d = self.domain(decl.domain)
        if finite and not d.type.finite:
            raise SpecError(f"{what} '{decl.name}' needs a finite domain, not "
                            f"{d.describe()}", self.reader.loc(decl.domain),
                            hint="Real is only for response answers with a density likelihood")
        return Var(decl.name, d, decl.loc)

    def action(self, action: Action, secret: list[Var]) -> CheckedAction:
        args = [self.var(a, "argument") for a in action.args]
        _no_clash(args, secret, self.params)
        turns = param_count(self.spec.goal.max_queries, self.params, "max_queries", 1)
        turn = turn_domain(action, args, {v.name for v in secret} | set(self.params), turns)
        if turn is not None:  # the query's place in the game, filled in by the engine
            args.append(Var(TURN, turn, action.loc))
        scope = self.secret_scope(secret)
        for a in args:
            scope[a.name] = Binding("arg", a.domain.type, frozenset({ROW}), a.name)
        legal = []
        for cond in action.legal:
            node = self.boolean(cond, scope, "a legality condition")
            if HYP in node.deps:
                raise SpecError(f"the legality of {action.kind} '{action.name}' depends on the "
                                "secret", cond.loc,
                                hint="legal may only use the arguments; put secret-dependent "
                                     "outcomes in the feedback")
            legal.append(node)
        feedback = response = None
        lets = []
        for name, expr in action.lets:
            node = self.expr(expr, scope)
            uid = f"{name}#let"
            lets.append((name, uid, node))
            scope = {**scope, name: Binding("local", node.type, node.deps, uid)}
        if action.feedback is not None:
            feedback = []
            for name, expr in action.feedback:
                node = self.expr(expr, scope)
                _expect_codeable(node, f"feedback '{name}'")
                uid = f"{name}#feedback"
                feedback.append((name, uid, node))
                scope = {**scope, name: Binding("local", node.type, node.deps, uid)}
        else:
            response = self.response(action, scope)
        history = self.history(action, args, feedback, scope)
        return CheckedAction(action.name, action.kind, args, legal, feedback, response, None,
                             action.loc, history, lets)

    def history(self, action: Action, args: list[Var],
                feedback: list[tuple[str, str, ir.Node]] | None,
                scope: dict[str, Binding]) -> list[ir.Node]:
        """The `history` conditions, typed with `before` bound to the record of an earlier
        query's arguments and feedback; those that are true whatever the query (a param
        switches the rule off) are dropped."""
        if not action.history:
            return []
        if feedback is None or action.kind != "query":
            raise SpecError(f"'history' applies to queries with feedback; '{action.name}' is "
                            f"{'an observation' if action.kind != 'query' else 'a response'}",
                            action.history[0].loc)
        inner = {k: b for k, b in scope.items() if b.kind != "local"}
        inner["before"] = Binding("arg", before_type(args, feedback), frozenset({ROW}), BEFORE)
        out = []
        for cond in action.history:
            node = self.boolean(cond, inner, "a history condition")
            if HYP in node.deps:
                raise SpecError(f"the history rule of '{action.name}' depends on the secret",
                                cond.loc, hint="it may use the arguments and `before` (an "
                                               "earlier query's arguments and feedback)")
            if not always(node, True):
                out.append(node)
        return out

    def response(self, action: Action, scope: dict[str, Binding]) -> Response:
        r = action.response
        assert r is not None
        continuous = FORMS[r.likelihood].continuous
        answer = self.var(VarDecl("answer", r.answer, r.loc), "answer", finite=not continuous)
        if not continuous and not answer.domain.type.finite:
            raise SpecError("a response with a continuous answer needs a density likelihood",
                            r.loc, hint="likelihood: {density: expr}")
        scope = {**scope, "answer": Binding("answer", answer.domain.type, frozenset({ROW}),
                                            "answer")}
        if isinstance(answer.domain.type, RecordT):
            for fname, ftype in answer.domain.type.fields:
                scope[fname] = Binding("answer", ftype, frozenset({ROW}), "answer",
                                       value=fname)
        legal = []
        for cond in r.legal:
            node = self.boolean(cond, scope, "an answer legality condition")
            if HYP in node.deps:
                raise SpecError("answer legality depends on the secret", cond.loc,
                                hint="legal is the shape of an answer; truthfulness goes in "
                                     "'valid'")
            legal.append(node)
        valid = self.boolean(r.valid, scope, "validity") if r.valid is not None else None
        lik = None
        if r.likelihood_expr is not None:
            lik = self.expr(r.likelihood_expr, scope)
            _expect_numeric(lik, f"the {r.likelihood} likelihood")
        return Response(answer, legal, valid, r.likelihood, lik, self.tremble(r))

    def tremble(self, r: Any) -> float:
        """The response's tremble: a constant probability in [0, 1)."""
        if r.tremble is None:
            return 0.0
        node = self.expr(r.tremble, self.global_scope())
        if node.deps or not isinstance(node.type, FloatT | IntT):
            raise SpecError("tremble must be a constant number (params only)", r.tremble.loc,
                            hint="e.g. tremble: 0.01, or a param: tremble: epsilon")
        value = float(evaluate(node, {}))
        if not 0 <= value < 1:
            raise SpecError(f"tremble must be a probability in [0, 1), not {value:g}",
                            r.tremble.loc)
        if FORMS[r.likelihood].continuous and value:
            raise SpecError("a tremble needs a finite answer domain: off-model answers are "
                            "uniform over the legal ones", r.tremble.loc)
        return value

    def identify(self, secret: list[Var]) -> list[str]:
        names = [v.name for v in secret]
        if self.spec.goal.identify is None:  # every variable but the hidden params
            return [n for n in names if n not in self.hidden]
        for name, loc in self.spec.goal.identify:
            if name not in names:
                raise SpecError(f"goal identifies '{name}', which is not a secret variable",
                                loc, hint=did_you_mean(name, names))
        return [n for n, _ in self.spec.goal.identify]

    def stop_when(self, queries: list[CheckedAction], scope: dict[str, Binding]) -> None:
        expr = self.spec.goal.stop_when
        if expr is None:
            return
        first_error: SpecError | None = None
        for q in queries:
            if q.feedback is None:
                continue
            local = dict(self.global_scope())
            for a in q.args:
                local[a.name] = Binding("arg", a.domain.type, frozenset({ROW}), a.name)
            for name, uid, node in q.feedback:
                local[name] = Binding("local", node.type, node.deps, uid)
            try:
                q.stop_when = self.boolean(copy.deepcopy(expr), local, "stop_when")
            except SpecError as err:
                first_error = first_error or err
        if all(q.stop_when is None for q in queries):
            raise first_error or SpecError("stop_when needs a query with feedback", expr.loc)

    # -- domains


def type_env(scope: Scope) -> Env:
    """Types and dependencies of the variables a scope binds, by id."""
    return {b.uid: (b.type, b.deps) for b in scope.values()
            if b.uid and not (b.kind == "answer" and b.value is not None)}


def _apply_overrides(spec: Spec, overrides: dict[str, Any]) -> dict[str, Any]:
    params = {name: value for name, (value, _loc) in spec.params.items()}
    for name, value in overrides.items():
        if name not in params:
            raise SpecError(f"no parameter '{name}' to set",
                            hint=did_you_mean(name, params) or
                            (f"parameters of this spec: {', '.join(params)}" if params
                             else "this spec has no parameters"))
        old = params[name]
        if isinstance(value, dict | Hidden):
            value = value if isinstance(value, Hidden) else hidden_from(value, name)
            _same_kind(name, old, value, spec.params[name][1])
        elif isinstance(old, Hidden):
            _same_kind(name, old, value, spec.params[name][1])
        elif type(old) is not type(value) and not (isinstance(old, float) and
                                                   isinstance(value, int)):
            raise SpecError(f"parameter {name} set to {value!r}: expected "
                            f"{type(old).__name__}, like the spec's value {old!r}",
                            spec.params[name][1])
        params[name] = value
    for name, value in params.items():
        values = list(value.values) if isinstance(value, Hidden) else [value]
        if any(isinstance(v, float) and not math.isfinite(v) for v in values):
            where = " as set" if name in overrides else ""
            raise SpecError(f"param {name} = {value!s}{where} is not a finite number",
                            None if name in overrides else spec.params[name][1],
                            hint="a number param is finite: no nan or inf")
        if isinstance(value, Hidden) and any(isinstance(v, int) and abs(v) > ir.INT_LIMIT
                                             for v in value.values):
            raise SpecError(f"hidden param {name} has a value beyond 2**62",
                            None if name in overrides else spec.params[name][1])
        if isinstance(value, int) and not isinstance(value, bool) and \
                abs(value) > ir.INT_LIMIT:
            where = " as set" if name in overrides else ""
            raise SpecError(f"param {name} = {value:,}{where} is too large",
                            None if name in overrides else spec.params[name][1],
                            hint=f"integer params are at most 2**62 = {ir.INT_LIMIT:,}")
    return params


def _same_kind(name: str, old: Any, new: Any, loc: Loc) -> None:
    """A hidden param's values, or a number replacing one, must suit the param: numbers,
    and whole numbers if the param is an int."""
    def numbers(v: Any) -> list[Any]:
        return list(v.values) if isinstance(v, Hidden) else [v]

    olds, news = numbers(old), numbers(new)
    if not all(is_number(v) for v in olds + news):
        raise SpecError(f"parameter {name}: a hidden param and its values must be numbers, "
                        f"not {new!s}", loc)
    if all(isinstance(v, int) for v in olds) and not all(isinstance(v, int) for v in news):
        raise SpecError(f"parameter {name} set to {new!s}: expected whole numbers, like the "
                        f"spec's value {old!s}", loc)


def _no_clash(args: list[Var], secret: list[Var], params: dict[str, Any]) -> None:
    taken = {v.name for v in secret} | set(params)
    for a in args:
        if a.name in taken:
            raise SpecError(f"argument '{a.name}' has the name of a secret variable or param",
                            a.loc, hint="rename the argument")


def _expect_numeric(node: ir.Node, what: str) -> None:
    if not isinstance(node.type, IntT | FloatT):
        raise SpecError(f"{what} must be a number, not {node.type.show()}", node.loc)


def _expect_codeable(node: ir.Node, what: str) -> None:
    def ok(t: Type) -> bool:
        if isinstance(t, SeqT):
            return ok(t.elem)
        if isinstance(t, TupleT):
            return all(ok(x) for x in t.items)
        if isinstance(t, RecordT):
            return all(ok(x) for _, x in t.fields)
        return isinstance(t, IntT | BoolT | EnumT | StrT | SetT | UnionT)

    if not ok(node.type):
        raise SpecError(f"{what} must have finitely many values (int, bool, enum, string, "
                        f"label-or-int, set or sequence of these), not {node.type.show()}",
                        node.loc)



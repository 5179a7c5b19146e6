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
import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from yaml.nodes import Node, ScalarNode

from sleuth.compiler import ir
from sleuth.compiler.domains import (
    BOOL,
    MAX_SET_UNIVERSE,
    REAL,
    Domain,
    domain_size,
    enum_domain,
    multiset_domain,
    range_domain,
    record_domain,
    seq_domain,
    set_domain,
    universe_size,
)
from sleuth.compiler.errors import Loc, SpecError, did_you_mean
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
    RangeT,
    RecordT,
    SeqT,
    SetT,
    StrT,
    TableT,
    TupleT,
    Type,
    int_type,
)
from sleuth.compiler.resolve import Binding, Resolver, Scope
from sleuth.compiler.source import scalar_value
from sleuth.compiler.spec import Action, Reader, Spec, VarDecl

BUILTIN_DOMAINS = {"Bool": BOOL, "Real": REAL}
MAX_SEQ_LEN = 1024
MAX_MULTISET_VALUES = 1 << 22  # its values are listed in a table


# ----------------------------------------------------------------------------- the model

@dataclass
class Var:
    """A secret variable, query argument or response answer, with its domain."""

    name: str
    domain: Domain
    loc: Loc


@dataclass
class Table:
    """A data table: numbers indexed by finite domains (loaded from CSV)."""

    name: str
    index: list[Domain]
    values: np.ndarray
    type: Type


@dataclass
class Response:
    answer: Var
    legal: list[ir.Node]
    valid: ir.Node | None
    likelihood: str
    likelihood_expr: ir.Node | None


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


class Checker:
    def __init__(self, spec: Spec, overrides: dict[str, Any]):
        self.spec = spec
        self.reader = Reader(spec.doc)
        self.params = _apply_overrides(spec, overrides)
        self.strings: set[str] = set()
        self.labels: dict[str, list[EnumT]] = {}
        self.domains: dict[str, Domain] = {}
        self.tables: dict[str, Table] = {}
        self.resolver = Resolver(spec.defs)
        self.typer = Typer(self.strings)
        self._building: list[str] = []

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
            scope[name] = Binding("param", const_type(v), value=v)
        return scope

    def secret_scope(self, secret: list[Var]) -> dict[str, Binding]:
        scope = self.global_scope()
        for v in secret:
            scope[v.name] = Binding("secret", v.domain.type, frozenset({HYP}), v.name)
        return scope

    # -- the model

    def model(self) -> Model:
        spec = self.spec
        for name, (node, _loc) in spec.domains.items():
            self.domains[name] = self.domain(node, name)
        for name, decl in spec.data.items():
            self.tables[name] = self.table(decl)
        secret = [self.var(v, "secret variable") for v in spec.secret]
        scope = self.secret_scope(secret)
        constraints = [self.boolean(c, scope, "a constraint") for c in spec.constraints]
        prior = None
        if spec.prior is not None:
            prior = self.expr(spec.prior, scope)
            _expect_numeric(prior, "the prior weight")
        queries = [self.action(a, secret) for a in spec.queries]
        observations = [self.action(a, secret) for a in spec.observations]
        identify = self.identify(secret)
        self.stop_when(queries, scope)
        return Model(spec.file, spec.game, spec.about, dict(self.params), dict(self.domains),
                     secret, constraints, prior, queries, observations, identify,
                     spec.goal.max_queries, tuple(sorted(self.strings)), dict(self.tables))

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
        return CheckedAction(action.name, action.kind, args, legal, feedback, response, None,
                             action.loc)

    def response(self, action: Action, scope: dict[str, Binding]) -> Response:
        r = action.response
        assert r is not None
        answer = self.var(VarDecl("answer", r.answer, r.loc), "answer",
                          finite=r.likelihood != "density")
        if r.likelihood != "density" and not answer.domain.type.finite:
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
        return Response(answer, legal, valid, r.likelihood, lik)

    def identify(self, secret: list[Var]) -> list[str]:
        names = [v.name for v in secret]
        if self.spec.goal.identify is None:
            return names
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

    def domain(self, node: Node, name: str | None = None) -> Domain:
        r = self.reader
        if isinstance(node, ScalarNode):
            text = r.text(node, "a domain")
            known = {**BUILTIN_DOMAINS, **self.domains}
            if text in known:
                return known[text]
            if name is not None and text == name:
                raise SpecError(f"domain '{name}' is defined in terms of itself", r.loc(node))
            hint = did_you_mean(text, known) or (
                'write {range: "' + text + '"}' if ".." in text
                else "use a domain name, or {range: ...}, {enum: [...]}, {seq: D, len: k}, "
                     "{set: D}, {record: {...}}")
            raise SpecError(f"unknown domain '{text}'", r.loc(node), hint=hint)
        kinds = ("range", "enum", "seq", "set", "multiset", "record", "from")
        fields = r.mapping(node, "a domain", kinds + ("len", "size", "index"))
        kind = [k for k in kinds if k in fields]
        if len(kind) != 1:
            raise SpecError("a domain needs exactly one of " + ", ".join(kinds), r.loc(node))
        kind_name = kind[0]
        value = fields[kind_name][1]
        extra = set(fields) - {kind_name} - ({"len", "index"} if kind_name == "seq" else set()) - (
            {"size"} if kind_name in ("set", "multiset") else set())
        if extra:
            key = sorted(extra)[0]
            raise SpecError(f"'{key}' does not apply to a {kind_name} domain",
                            r.loc(fields[key][0]))
        if kind_name == "range":
            lo, hi = self.const_range(value, "a range domain")
            return range_domain(lo, hi, name)
        if kind_name == "enum":
            return self.enum(name or "enum", [(r.name(v, "enum label"), r.loc(v))
                                             for v in r.sequence(value, "enum labels")],
                             r.loc(value))
        if kind_name == "from":
            return self.enum_from_file(name or "enum", value)
        if kind_name == "seq" and "index" in fields:
            return self.indexed_seq(value, fields)
        if kind_name == "seq":
            if "len" not in fields:
                raise SpecError("a seq domain needs 'len' (or 'index', an enum naming its "
                                "positions)", r.loc(node), hint="e.g. {seq: Colour, len: pegs}")
            elem = self.domain(value)
            length = self.const_int(fields["len"][1], "len")
            if not 0 <= length <= MAX_SEQ_LEN:
                raise SpecError(f"len must be in 0..{MAX_SEQ_LEN}, not {length}",
                                r.loc(fields["len"][1]))
            return seq_domain(elem, length)
        if kind_name == "multiset":
            return self.multiset(node, value, fields)
        if kind_name == "set":
            elem = self.domain(value)
            if not isinstance(elem.type, IntT | EnumT | BoolT):
                raise SpecError(f"set elements must be integers or enum values, not "
                                f"{elem.describe()}", r.loc(value))
            n = universe_size(elem.type)
            if n > MAX_SET_UNIVERSE:
                raise SpecError(f"sets over {n} elements are not supported (at most "
                                f"{MAX_SET_UNIVERSE})", r.loc(value))
            lo, hi = 0, n
            if "size" in fields:
                snode = fields["size"][1]
                if isinstance(scalar_value(snode), int) if isinstance(snode, ScalarNode) \
                        else False:
                    lo = hi = self.const_int(snode, "size")
                else:
                    lo, hi = self.const_range(snode, "size", allow_int=True)
                if lo < 0 or hi > n:
                    raise SpecError(f"set size {lo}..{hi} is outside 0..{n}", r.loc(snode))
            return set_domain(elem, lo, hi)
        fields_node = r.mapping(value, "record fields")
        if not fields_node:
            raise SpecError("a record needs at least one field", r.loc(value))
        return record_domain([(r.name(k, "field name"), self.domain(v))
                              for _, (k, v) in fields_node.items()])

    def multiset(self, node: Node, value: Node, fields: dict) -> Domain:
        """{multiset: D, size: k}: k elements of D, repeats allowed, order ignored; the value
        is the sequence of counts per element of D (indexed by label for an enum)."""
        r = self.reader
        universe = self.domain(value)
        if not isinstance(universe.type, IntT | EnumT):
            raise SpecError(f"multiset elements must be integers or enum values, not "
                            f"{universe.describe()}", r.loc(value))
        if "size" not in fields:
            raise SpecError("a multiset domain needs 'size', how many elements it holds",
                            r.loc(node), hint="e.g. {multiset: Face, size: 5}")
        total = self.const_int(fields["size"][1], "size")
        n = universe_size(universe.type)
        if total < 0 or n > MAX_SEQ_LEN:
            raise SpecError(f"a multiset needs size >= 0 and at most {MAX_SEQ_LEN} kinds of "
                            "element", r.loc(fields["size"][1]))
        d = multiset_domain(universe, total)
        if domain_size(d) > MAX_MULTISET_VALUES:
            raise SpecError(f"{d.describe()} has {domain_size(d):,} values, more than "
                            f"{MAX_MULTISET_VALUES:,}", r.loc(node),
                            hint="fewer elements or kinds of element")
        return d

    def indexed_seq(self, value: Node, fields: dict) -> Domain:
        """{seq: D, index: E}: one element of D per label of the enum E, s[label]."""
        key, node = fields["index"]
        index = self.domain(node)
        if not isinstance(index.type, EnumT):
            raise SpecError(f"a seq is indexed by an enum domain, not {index.describe()}",
                            self.reader.loc(node), hint="e.g. {seq: Holder, index: Card}")
        length = len(index.type.values)
        if "len" in fields and self.const_int(fields["len"][1], "len") != length:
            raise SpecError(f"len must be {length}, the number of {index.describe()} labels",
                            self.reader.loc(fields["len"][1]))
        return seq_domain(self.domain(value), length, index.type)

    def enum(self, name: str, labels: list[tuple[str, Loc]], loc: Loc) -> Domain:
        if not labels:
            raise SpecError("an enum needs at least one label", loc)
        seen: set[str] = set()
        for label, lloc in labels:
            if label in seen:
                raise SpecError(f"enum label '{label}' is listed twice", lloc)
            seen.add(label)
        d = enum_domain(name, [lb for lb, _ in labels])
        for label, _ in labels:
            self.labels.setdefault(label, []).append(d.type)  # type: ignore[arg-type]
        return d

    def enum_from_file(self, name: str, node: Node) -> Domain:
        path = self._data_path(node)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as err:
            raise SpecError(f"cannot read {path}: {err.strerror}", self.reader.loc(node)) from None
        labels = [(ln.strip(), self.reader.loc(node)) for ln in lines if ln.strip()]
        for label, loc in labels:
            if not label.isidentifier():
                raise SpecError(f"'{label}' in {path.name} is not a valid label", loc,
                                hint="labels are letters, digits and _")
        return self.enum(name, labels, self.reader.loc(node))

    def _data_path(self, node: Node) -> Path:
        rel = self.reader.text(node, "a file name")
        return Path(self.spec.file).parent / rel

    def table(self, decl: Any) -> Table:
        index = [self.domain(n) for n in decl.index]
        for d, n in zip(index, decl.index, strict=True):
            if not isinstance(d.type, IntT | EnumT | BoolT):
                raise SpecError("table index domains must be ranges or enums",
                                self.reader.loc(n))
        path = Path(self.spec.file).parent / decl.file
        try:
            rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
        except OSError as err:
            raise SpecError(f"cannot read {path}: {err.strerror}", decl.loc) from None
        shape = tuple(universe_size(d.type) for d in index)
        values = np.full(shape, np.nan)
        for lineno, row in enumerate(rows, 1):
            if not row or row[0].startswith("#"):
                continue
            where = Loc(str(path), lineno, 1)
            if len(row) != len(index) + 1:
                raise SpecError(f"expected {len(index)} index values and a number", where)
            try:
                pos = tuple(_label_index(d, cell.strip()) for d, cell in zip(index, row,
                                                                               strict=False))
                values[pos] = float(row[-1])
            except (ValueError, IndexError):
                raise SpecError(f"bad table row {row}", where,
                                hint="index labels must belong to the index domains") from None
        if np.isnan(values).any():
            raise SpecError(f"table '{decl.name}' misses entries", decl.loc,
                            hint="give one line per combination of index values")
        as_int = bool(np.all(values == np.round(values)))
        vtype: Type = int_type(int(values.min()), int(values.max())) if as_int else FloatT()
        ttype = TableT(decl.name, tuple(d.type for d in index), vtype)
        return Table(decl.name, index, values.astype(np.int64) if as_int else values, ttype)

    # -- constants

    def const(self, node: Node, what: str) -> tuple[Any, ir.Node]:
        expr = self.reader.expr(node, what)
        typed = self.expr(expr, self.global_scope())
        if typed.deps:
            raise SpecError(f"{what} must be a constant (params only)", expr.loc)
        return evaluate(typed, {}), typed

    def const_int(self, node: Node, what: str) -> int:
        value, typed = self.const(node, what)
        if not isinstance(typed.type, IntT):
            raise SpecError(f"{what} must be an integer, not {typed.type.show()}", typed.loc)
        return int(value)

    def const_range(self, node: Node, what: str, allow_int: bool = False) -> tuple[int, int]:
        value, typed = self.const(node, what)
        if allow_int and isinstance(typed.type, IntT):
            return int(value), int(value)
        if not isinstance(typed.type, RangeT):
            raise SpecError(f"{what} must be a range like \"1..n\", not {typed.type.show()}",
                            typed.loc, hint='write "lo..hi" (inclusive), e.g. "1..colours"')
        lo, hi = value.start, value.stop - 1
        if lo > hi:
            raise SpecError(f"empty range {lo}..{hi}: the low end exceeds the high end",
                            typed.loc, hint="ranges are inclusive and ascending: lo..hi")
        return lo, hi


def _label_index(d: Domain, text: str) -> int:
    t = d.type
    if isinstance(t, IntT):
        v = int(text)
        if not t.lo <= v <= t.hi:
            raise ValueError(text)
        return v - t.lo
    if isinstance(t, BoolT):
        return {"false": 0, "true": 1}[text.lower()]
    return t.values.index(text)  # type: ignore[union-attr]


def type_env(scope: Scope) -> Env:
    """Types and dependencies of the variables a scope binds, by id."""
    return {b.uid: (b.type, b.deps) for b in scope.values()
            if b.uid and not (b.kind == "answer" and b.value is not None)}


def _apply_overrides(spec: Spec, overrides: dict[str, Any]) -> dict[str, Any]:
    params = {name: value for name, (value, _loc) in spec.params.items()}
    for name, value in overrides.items():
        if name not in params:
            raise SpecError(f"unknown parameter '{name}' in --set",
                            hint=did_you_mean(name, params) or
                            (f"parameters of this spec: {', '.join(params)}" if params
                             else "this spec has no parameters"))
        old = params[name]
        if type(old) is not type(value) and not (isinstance(old, float) and
                                                 isinstance(value, int)):
            raise SpecError(f"--set {name}={value!r}: expected {type(old).__name__}, like the "
                            f"spec's value {old!r}", spec.params[name][1])
        params[name] = value
    return params


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
        return isinstance(t, IntT | BoolT | EnumT | StrT | SetT)

    if not ok(node.type):
        raise SpecError(f"{what} must have finitely many values (int, bool, enum, string, set "
                        f"or sequence of these), not {node.type.show()}", node.loc)



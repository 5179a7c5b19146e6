"""Checking: a Spec -> a Model whose expressions are resolved and typed.

Three concerns, each its own pass over the parsed spec:

* domains -- the YAML domain descriptions become `Domain`s; their sizes are
  constant expressions over the params, folded with the reference interpreter;
* names -- every `Name` is resolved (params and enum labels become constants,
  defs are inlined as `Let` with fresh local names, recursion is refused);
* types -- every node gets a static type (integers with static bounds) and the
  set of axes it depends on (`ir.ROW`, `ir.HYP`, loop variables).

Names and types are resolved in one walk (`Typer`), because what a name means
decides its type, and a def's body can only be typed at its call site.
"""

from __future__ import annotations

import copy
import csv
import itertools
from dataclasses import dataclass, field
from math import prod
from pathlib import Path
from typing import Any

import numpy as np
from yaml.nodes import Node, ScalarNode

from compiler import ir
from compiler.domains import (
    BOOL,
    MAX_SET_UNIVERSE,
    REAL,
    Domain,
    domain_size,
    enum_domain,
    range_domain,
    record_domain,
    seq_domain,
    set_domain,
    universe_size,
)
from compiler.errors import Loc, SpecError, did_you_mean
from compiler.interpret import evaluate
from compiler.ir import (
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
from compiler.source import scalar_value
from compiler.spec import Action, Reader, Spec, VarDecl

BUILTIN_DOMAINS = {"Bool": BOOL, "Real": REAL}
AGGREGATES = ("count", "sum", "min", "max", "prod", "exists", "forall", "first")
BUILTINS = ("count", "size", "len", "disjoint", "alldifferent", "abs", "sqrt", "exp", "log",
            "min", "max", "sum", "prod", "exists", "forall", "first", "union", "intersection",
            "int", "float", "onehot", "dirichlet_pdf")


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


@dataclass(frozen=True)
class Binding:
    kind: str  # param | enum | domain | table | secret | arg | answer | local
    type: Type
    deps: frozenset[str] = frozenset()
    uid: str = ""
    value: Any = None


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
        self.typer = Typer(self)
        self._building: list[str] = []

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
            scope[name] = Binding("param", _const_type(v), value=v)
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
        constraints = [self.typer.boolean(c, scope, "a constraint") for c in spec.constraints]
        prior = None
        if spec.prior is not None:
            prior = self.typer.check(spec.prior, scope)
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
            node = self.typer.boolean(cond, scope, "a legality condition")
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
                node = self.typer.check(expr, scope)
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
            node = self.typer.boolean(cond, scope, "an answer legality condition")
            if HYP in node.deps:
                raise SpecError("answer legality depends on the secret", cond.loc,
                                hint="legal is the shape of an answer; truthfulness goes in "
                                     "'valid'")
            legal.append(node)
        valid = self.typer.boolean(r.valid, scope, "validity") if r.valid is not None else None
        lik = None
        if r.likelihood_expr is not None:
            lik = self.typer.check(r.likelihood_expr, scope)
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
                q.stop_when = self.typer.boolean(copy.deepcopy(expr), local, "stop_when")
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
        kinds = ("range", "enum", "seq", "set", "record", "from")
        fields = r.mapping(node, "a domain", kinds + ("len", "size"))
        kind = [k for k in kinds if k in fields]
        if len(kind) != 1:
            raise SpecError("a domain needs exactly one of " + ", ".join(kinds), r.loc(node))
        kind_name = kind[0]
        value = fields[kind_name][1]
        extra = set(fields) - {kind_name} - ({"len"} if kind_name == "seq" else set()) - (
            {"size"} if kind_name == "set" else set())
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
        if kind_name == "seq":
            if "len" not in fields:
                raise SpecError("a seq domain needs 'len'", r.loc(node),
                                hint="e.g. {seq: Colour, len: pegs}")
            elem = self.domain(value)
            length = self.const_int(fields["len"][1], "len")
            if length < 0:
                raise SpecError(f"len must be >= 0, not {length}", r.loc(fields["len"][1]))
            return seq_domain(elem, length)
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
        typed = self.typer.check(expr, self.global_scope())
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


def _const_type(v: Any) -> Type:
    if isinstance(v, bool):
        return BoolT()
    if isinstance(v, int):
        return int_type(v, v)
    if isinstance(v, float):
        return FloatT()
    return StrT(frozenset({str(v)}))


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


# ----------------------------------------------------------------------------- types

class Typer:
    """Resolves names and infers types, static bounds and dependencies."""

    def __init__(self, checker: Checker):
        self.checker = checker
        self.counter = itertools.count()
        self.inlining: list[str] = []

    def boolean(self, node: ir.Node, scope: dict[str, Binding], what: str) -> ir.Node:
        out = self.check(node, scope)
        if not isinstance(out.type, BoolT):
            raise SpecError(f"{what} must be true or false, not {out.type.show()}", out.loc,
                            hint="use a comparison, e.g. 'x == 1'")
        return out

    def check(self, node: ir.Node, scope: dict[str, Binding]) -> ir.Node:
        method = getattr(self, "_" + type(node).__name__.lower())
        out = method(node, scope)
        if not out.text:
            out.text = node.text
        if out.type is None:
            raise AssertionError(f"untyped {out}")
        return out

    # -- leaves

    def _const(self, node: ir.Const, scope) -> ir.Node:
        node.type = _const_type(node.value)
        if isinstance(node.type, StrT):
            self.checker.strings.add(node.value)
        return node

    def _name(self, node: ir.Name, scope: dict[str, Binding]) -> ir.Node:
        if node.name in ("true", "false"):
            return _typed(ir.Const(node.loc, node.name == "true"), BoolT(), node)
        b = scope.get(node.name)
        if b is None:
            hint = did_you_mean(node.name, list(scope) + list(self.checker.spec.defs))
            raise SpecError(f"unknown name '{node.name}'", node.loc, hint=hint)
        if b.kind == "param":
            return self._const(ir.Const(node.loc, b.value), scope)
        if b.kind == "enum":
            if len(b.value) > 1:
                options = " or ".join(f"'{e.name}.{node.name}'" for e in b.value)
                raise SpecError(f"'{node.name}' is a label of several enums", node.loc,
                                hint=f"qualify it: {options}")
            return _typed(ir.Const(node.loc, node.name), b.type, node)
        if b.kind == "answer" and b.value is not None:  # a field of a record answer
            whole = scope["answer"]
            target = _typed(ir.Name(node.loc, "answer", ("answer", "answer")), whole.type, node)
            target.deps = whole.deps
            out = _typed(ir.Field(node.loc, target, b.value), b.type, node)
            out.deps = whole.deps
            return out
        node.ref = (b.kind, b.value if b.kind in ("domain", "table") else b.uid)
        node.type = b.type
        node.deps = b.deps
        return node

    # -- operators

    def _unary(self, node: ir.Unary, scope) -> ir.Node:
        node.operand = self.check(node.operand, scope)
        t = node.operand.type
        if node.op == "not":
            _need(node.operand, BoolT, "'not' needs true or false")
            node.type = BoolT()
        else:
            _need_number(node.operand, "'-'")
            node.type = int_type(-t.hi, -t.lo) if isinstance(t, IntT) else FloatT()
        node.deps = node.operand.deps
        return node

    def _binary(self, node: ir.Binary, scope) -> ir.Node:
        node.left = self.check(node.left, scope)
        node.right = self.check(node.right, scope)
        a, b = node.left.type, node.right.type
        op = node.op
        node.deps = node.left.deps | node.right.deps
        if op in ("and", "or"):
            _need(node.left, BoolT, f"'{op}' needs true or false on both sides")
            _need(node.right, BoolT, f"'{op}' needs true or false on both sides")
            node.type = BoolT()
        elif op in ("==", "!="):
            node.left, node.right = self.unify_pair(node.left, node.right, f"'{op}'")
            node.type = BoolT()
        elif op in ("<", "<=", ">", ">="):
            if isinstance(a, EnumT) or isinstance(b, EnumT):
                node.left, node.right = self.unify_pair(node.left, node.right, f"'{op}'")
            else:
                _need_number(node.left, f"'{op}'")
                _need_number(node.right, f"'{op}'")
            node.type = BoolT()
        elif op in ("in", "not in"):
            elem = _element_type(node.right)
            if elem is None:
                raise SpecError(f"'{op}' needs a set, range, sequence or domain on its right, "
                                f"not {b.show()}", node.right.loc)
            probe = _typed(ir.Const(node.right.loc, None), elem, node.right)
            node.left, _ = self.unify_pair(node.left, probe, f"'{op}'")
            node.type = BoolT()
        else:
            _need_number(node.left, f"'{op}'")
            _need_number(node.right, f"'{op}'")
            node.type = _arith_type(op, node.left, node.right)
        return node

    def unify_pair(self, x: ir.Node, y: ir.Node, what: str) -> tuple[ir.Node, ir.Node]:
        """Make x and y comparable (coercing string constants to enum labels)."""
        a, b = x.type, y.type
        if isinstance(a, EnumT) and isinstance(b, StrT):
            return x, _as_label(y, a)
        if isinstance(b, EnumT) and isinstance(a, StrT):
            return _as_label(x, b), y
        if _compatible(a, b):
            return x, y
        raise SpecError(f"type mismatch: {what} compares {a.show()} with {b.show()}", x.loc,
                        hint=f"'{x.text}' is {a.show()}; '{y.text}' is {b.show()}")

    def _ifexpr(self, node: ir.IfExpr, scope) -> ir.Node:
        node.cond = self.boolean(node.cond, scope, "the condition of 'if'")
        node.then = self.check(node.then, scope)
        node.other = self.check(node.other, scope)
        node.then, node.other, node.type = self.join(node.then, node.other, node)
        node.deps = node.cond.deps | node.then.deps | node.other.deps
        return node

    def join(self, x: ir.Node, y: ir.Node, where: ir.Node) -> tuple[ir.Node, ir.Node, Type]:
        """The common type of two alternatives (branches of if, items of a list)."""
        a, b = x.type, y.type
        if isinstance(a, IntT) and isinstance(b, IntT):
            return x, y, IntT(min(a.lo, b.lo), max(a.hi, b.hi))
        if isinstance(a, IntT | FloatT) and isinstance(b, IntT | FloatT):
            return x, y, FloatT()
        if isinstance(a, StrT) and isinstance(b, StrT):
            return x, y, StrT(a.values | b.values)
        if isinstance(a, EnumT) and isinstance(b, StrT):
            return x, _as_label(y, a), a
        if isinstance(b, EnumT) and isinstance(a, StrT):
            return _as_label(x, b), y, b
        if isinstance(a, SetT) and isinstance(b, SetT) and a.elem == b.elem:
            return x, y, a
        if a == b:
            return x, y, a
        raise SpecError(f"type mismatch: the alternatives are {a.show()} and {b.show()}",
                        where.loc, hint="both branches must have the same kind of value")

    def _rangeexpr(self, node: ir.RangeExpr, scope) -> ir.Node:
        node.lo = self.check(node.lo, scope)
        node.hi = self.check(node.hi, scope)
        for end in (node.lo, node.hi):
            if not isinstance(end.type, IntT):
                raise SpecError(f"range bounds must be integers, not {end.type.show()}",
                                end.loc)
        node.type = RangeT(IntT(node.lo.type.lo, node.hi.type.hi))
        node.deps = node.lo.deps | node.hi.deps
        return node

    def _index(self, node: ir.Index, scope) -> ir.Node:
        node.target = self.check(node.target, scope)
        node.index = self.check(node.index, scope)
        t = node.target.type
        node.deps = node.target.deps | node.index.deps
        if isinstance(t, TableT):
            dim = t.index[0]
            if isinstance(dim, EnumT) and isinstance(node.index.type, StrT):
                node.index = _as_label(node.index, dim)
            if not _compatible(dim, node.index.type):
                raise SpecError(f"table '{t.name}' is indexed by {dim.show()}, not "
                                f"{node.index.type.show()}", node.index.loc)
            node.type = TableT(t.name, t.index[1:], t.value) if len(t.index) > 1 else t.value
            return node
        if not isinstance(node.index.type, IntT):
            raise SpecError(f"an index must be an integer, not {node.index.type.show()}",
                            node.index.loc)
        if isinstance(t, SeqT):
            node.type = t.elem
            lo, hi = node.index.type.lo, node.index.type.hi
            if hi < 0 or lo >= t.length:
                raise SpecError(f"index {node.index.text} is out of range 0..{t.length - 1}",
                                node.index.loc, hint="sequences are indexed from 0")
            return node
        if isinstance(t, TupleT):
            if node.index.type.lo != node.index.type.hi or not \
                    0 <= node.index.type.lo < len(t.items):
                raise SpecError("a tuple needs a constant index in range", node.index.loc)
            node.type = t.items[node.index.type.lo]
            return node
        raise SpecError(f"cannot index {t.show()}", node.target.loc,
                        hint="only sequences, tuples and data tables are indexed")

    def _field(self, node: ir.Field, scope) -> ir.Node:
        if isinstance(node.target, ir.Name) and node.target.name in scope and \
                scope[node.target.name].kind == "domain":
            d = scope[node.target.name].value
            if isinstance(d.type, EnumT):
                if node.name not in d.type.values:
                    raise SpecError(f"'{node.name}' is not a label of {d.type.name}", node.loc,
                                    hint=did_you_mean(node.name, d.type.values))
                return _typed(ir.Const(node.loc, node.name), d.type, node)
        node.target = self.check(node.target, scope)
        t = node.target.type
        if not isinstance(t, RecordT):
            raise SpecError(f"'{node.target.text}' is {t.show()}, which has no fields",
                            node.loc)
        ft = t.field(node.name)
        if ft is None:
            raise SpecError(f"no field '{node.name}' in {t.show()}", node.loc,
                            hint=did_you_mean(node.name, [n for n, _ in t.fields]))
        node.type = ft
        node.deps = node.target.deps
        return node

    def _tupleexpr(self, node: ir.TupleExpr, scope) -> ir.Node:
        node.items = [self.check(x, scope) for x in node.items]
        node.type = TupleT(tuple(x.type for x in node.items))
        node.deps = frozenset().union(*(x.deps for x in node.items))
        return node

    def _listexpr(self, node: ir.ListExpr, scope) -> ir.Node:
        items = [self.check(x, scope) for x in node.items]
        if not items:
            raise SpecError("an empty list has no element type", node.loc)
        elem = items[0].type
        for k in range(1, len(items)):
            probe = _typed(ir.Const(node.loc, None), elem, node)
            _, items[k], elem = self.join(probe, items[k], items[k])
        items = [_as_label(x, elem) if isinstance(elem, EnumT) and isinstance(x.type, StrT)
                 else x for x in items]
        node.items = items
        node.type = SeqT(elem, len(items))
        node.deps = frozenset().union(*(x.deps for x in items))
        return node

    def _let(self, node: ir.Let, scope) -> ir.Node:
        raise AssertionError("Let nodes are made by the checker, not parsed")

    # -- calls

    def _call(self, node: ir.Call, scope: dict[str, Binding]) -> ir.Node:
        defs = self.checker.spec.defs
        if node.func in defs:
            return self.inline(node, scope)
        if node.func not in BUILTINS:
            raise SpecError(f"unknown function '{node.func}'", node.loc,
                            hint=did_you_mean(node.func, list(BUILTINS) + list(defs)))
        node.args = [self.check(a, scope) for a in node.args]
        node.deps = frozenset().union(*(a.deps for a in node.args))
        node.type = builtin_type(self, node)
        return node

    def inline(self, node: ir.Call, scope: dict[str, Binding]) -> ir.Node:
        d = self.checker.spec.defs[node.func]
        if len(node.args) != len(d.params):
            raise SpecError(f"'{d.name}' takes {len(d.params)} argument"
                            f"{'' if len(d.params) == 1 else 's'}, given {len(node.args)}",
                            node.loc, hint=f"{d.name}({', '.join(d.params)})")
        if d.name in self.inlining:
            chain = " -> ".join(self.inlining[self.inlining.index(d.name):] + [d.name])
            raise SpecError(f"recursion in defs: {chain}", node.loc,
                            hint="defs cannot call themselves, directly or indirectly")
        args = [self.check(a, scope) for a in node.args]
        inner = {k: b for k, b in scope.items() if b.kind not in ("arg", "answer", "local")}
        bindings = []
        for p, a in zip(d.params, args, strict=True):
            uid = f"{p}#{next(self.counter)}"
            inner[p] = Binding("local", a.type, a.deps, uid)
            bindings.append((uid, a))
        self.inlining.append(d.name)
        try:
            body = self.check(copy.deepcopy(d.body), inner)
        finally:
            self.inlining.pop()
        out = ir.Let(node.loc, bindings, body)
        out.type, out.deps, out.text = body.type, body.deps, node.text
        return out

    def _generator(self, node: ir.Generator, scope: dict[str, Binding]) -> ir.Node:
        if node.func not in AGGREGATES:
            raise SpecError(f"'{node.func}' cannot take a 'for' clause", node.loc,
                            hint="aggregates: " + ", ".join(AGGREGATES))
        max_extra = 1 if node.func in ("min", "max", "first") else 0
        if len(node.extra) > max_extra:
            raise SpecError(f"{node.func}(... for ...) takes "
                            f"{'one default value' if max_extra else 'no further arguments'}"
                            f" after the generator", node.extra[0].loc)
        inner = dict(scope)
        iterations = 1
        loop_uids = set()
        for loop in node.loops:
            loop.iterable = self.check(loop.iterable, inner)
            elem = _element_type(loop.iterable)
            if elem is None:
                raise SpecError(f"cannot iterate over {loop.iterable.type.show()}",
                                loop.iterable.loc,
                                hint="iterate a range a..b, a domain, a set or a sequence")
            iterations *= _static_length(loop.iterable)
            dynamic = isinstance(loop.iterable.type, SeqT)
            names = loop.names
            if len(names) == 1:
                elem_types = [elem]
            elif isinstance(elem, TupleT) and len(elem.items) == len(names):
                elem_types = list(elem.items)
            elif isinstance(elem, SeqT) and elem.length == len(names):
                elem_types = [elem.elem] * len(names)
            else:
                raise SpecError(f"cannot unpack {elem.show()} into {len(names)} names",
                                loop.iterable.loc)
            uids = []
            for nm, et in zip(names, elem_types, strict=True):
                uid = f"{nm}#{next(self.counter)}"
                deps = frozenset({uid}) | (loop.iterable.deps if dynamic else frozenset())
                inner[nm] = Binding("local", et, deps, uid)
                uids.append(uid)
                loop_uids.add(uid)
            loop.names = uids
        if node.cond is not None:
            node.cond = self.boolean(node.cond, inner, "the 'if' filter")
        node.body = self.check(node.body, inner)
        node.extra = [self.check(x, scope) for x in node.extra]
        node.type = self.aggregate_type(node, iterations)
        deps = frozenset().union(*(x.deps for x in ir.children(node)))
        node.deps = deps - loop_uids
        return node

    def aggregate_type(self, node: ir.Generator, n: int) -> Type:
        body, f = node.body, node.func
        if f == "count":
            _need(body, BoolT, "count(...) counts conditions: its body must be true or false")
            return IntT(0, n)
        if f in ("exists", "forall"):
            _need(body, BoolT, f"{f}(...) needs a true-or-false body")
            return BoolT()
        if f == "first":
            if node.extra:
                _, node.extra[0], t = self.join(body, node.extra[0], node)
                return t
            return body.type
        _need_number(body, f"{f}(...)")
        t = body.type
        if f == "sum":
            if isinstance(t, IntT):
                return int_type(min(0, n * t.lo), max(0, n * t.hi))
            return FloatT()
        if f == "prod":
            if isinstance(t, IntT):
                m = max(abs(t.lo), abs(t.hi), 1) ** n
                return int_type(-m if t.lo < 0 else 0, m)
            return FloatT()
        if node.extra:
            _need_number(node.extra[0], f"the default of {f}(...)")
            _, node.extra[0], t = self.join(body, node.extra[0], node)
        return t


# ----------------------------------------------------------------------------- builtins

def builtin_type(typer: Typer, node: ir.Call) -> Type:
    """Check a builtin call's arguments; return its type."""
    f, args = node.func, node.args
    types = [a.type for a in args]

    def arity(*allowed: int) -> None:
        if len(args) not in allowed:
            want = " or ".join(str(k) for k in allowed)
            raise SpecError(f"{f}() takes {want} argument{'s' if allowed != (1,) else ''}, "
                            f"given {len(args)}", node.loc)

    if f == "count":
        if len(args) == 1:
            raise SpecError("count() needs a 'for' clause or two arguments", node.loc,
                            hint="count(x == 1 for x in xs), or count(xs, value)")
        arity(2)
        elem = _element_type(args[0])
        if not isinstance(types[0], SeqT) or elem is None:
            raise SpecError(f"count(xs, v) needs a sequence, not {types[0].show()}",
                            args[0].loc)
        probe = _typed(ir.Const(node.loc, None), elem, args[0])
        args[1], _ = typer.unify_pair(args[1], probe, "count(xs, v)")
        return IntT(0, types[0].length)
    if f in ("size", "len"):
        arity(1)
        t = types[0]
        if isinstance(t, SetT):
            return IntT(0, universe_size(t.elem))
        if isinstance(t, SeqT):
            return IntT(t.length, t.length)
        if isinstance(t, RangeT | DomainT):
            n = _static_length(args[0])
            return IntT(0, n)
        raise SpecError(f"{f}() needs a set or sequence, not {t.show()}", args[0].loc)
    if f in ("disjoint", "union", "intersection"):
        arity(2)
        for a in args:
            if not isinstance(a.type, SetT):
                raise SpecError(f"{f}() needs sets, not {a.type.show()}", a.loc)
        if types[0] != types[1]:
            raise SpecError(f"type mismatch: {f}() of {types[0].show()} and {types[1].show()}",
                            node.loc)
        return BoolT() if f == "disjoint" else types[0]
    if f == "alldifferent":
        arity(1)
        if not isinstance(types[0], SeqT):
            raise SpecError(f"alldifferent() needs a sequence, not {types[0].show()}",
                            args[0].loc)
        return BoolT()
    if f == "abs":
        arity(1)
        _need_number(args[0], "abs()")
        t = types[0]
        if isinstance(t, IntT):
            lo = 0 if t.lo <= 0 <= t.hi else min(abs(t.lo), abs(t.hi))
            return IntT(lo, max(abs(t.lo), abs(t.hi)))
        return FloatT()
    if f in ("sqrt", "exp", "log"):
        arity(1)
        _need_number(args[0], f"{f}()")
        return FloatT()
    if f in ("min", "max") and len(args) >= 2:
        for a in args:
            _need_number(a, f"{f}()")
        if all(isinstance(t, IntT) for t in types):
            pick = min if f == "min" else max
            return IntT(pick(t.lo for t in types), pick(t.hi for t in types))
        return FloatT()
    if f in ("min", "max", "sum", "prod", "exists", "forall", "first"):
        arity(1)
        t = types[0]
        if not isinstance(t, SeqT) or t.length == 0:
            raise SpecError(f"{f}() needs a non-empty sequence (or a 'for' clause), "
                            f"not {t.show()}", args[0].loc)
        e = t.elem
        if f in ("exists", "forall"):
            _need(_typed(ir.Const(node.loc, None), e, args[0]), BoolT,
                  f"{f}() needs a sequence of true/false values")
            return BoolT()
        if f == "first":
            return e
        if not isinstance(e, IntT | FloatT):
            raise SpecError(f"{f}() needs numbers, not {e.show()}", args[0].loc)
        if f == "sum":
            return int_type(t.length * e.lo, t.length * e.hi) if isinstance(e, IntT) \
                else FloatT()
        if f == "prod":
            if isinstance(e, IntT):
                m = max(abs(e.lo), abs(e.hi), 1) ** t.length
                return int_type(-m if e.lo < 0 else 0, m)
            return FloatT()
        return e
    if f == "int":
        arity(1)
        t = types[0]
        if isinstance(t, BoolT):
            return IntT(0, 1)
        if isinstance(t, IntT):
            return t
        if isinstance(t, FloatT):
            return int_type(-ir.INT_LIMIT, ir.INT_LIMIT)
        raise SpecError(f"int() needs a number or a truth value, not {t.show()}", args[0].loc)
    if f == "float":
        arity(1)
        if not isinstance(types[0], IntT | FloatT | BoolT):
            raise SpecError(f"float() needs a number, not {types[0].show()}", args[0].loc)
        return FloatT()
    if f == "onehot":
        arity(2)
        if not isinstance(types[1], DomainT) or not isinstance(types[1].elem, IntT | EnumT):
            raise SpecError("onehot(v, D) needs a range or enum domain D", args[1].loc)
        elem = types[1].elem
        if isinstance(elem, EnumT) and isinstance(types[0], StrT):
            args[0] = _as_label(args[0], elem)
        if not _compatible(args[0].type, elem):
            raise SpecError(f"type mismatch: onehot of {args[0].type.show()} over "
                            f"{elem.show()}", args[0].loc)
        return SeqT(IntT(0, 1), universe_size(elem))
    if f == "dirichlet_pdf":
        arity(2)
        lengths = []
        for a in args:
            if not isinstance(a.type, SeqT) or not isinstance(a.type.elem, IntT | FloatT):
                raise SpecError(f"dirichlet_pdf(x, alpha) needs sequences of numbers, not "
                                f"{a.type.show()}", a.loc)
            lengths.append(a.type.length)
        if lengths[0] != lengths[1]:
            raise SpecError(f"dirichlet_pdf: x has {lengths[0]} parts, alpha {lengths[1]}",
                            node.loc)
        return FloatT()
    raise AssertionError(f)


# ----------------------------------------------------------------------------- helpers

def _typed(node: ir.Node, t: Type, like: ir.Node) -> ir.Node:
    node.type = t
    node.text = like.text
    return node


def _need(node: ir.Node, kind: type, message: str) -> None:
    if not isinstance(node.type, kind):
        raise SpecError(f"type mismatch: {message}; '{node.text}' is {node.type.show()}",
                        node.loc)


def _need_number(node: ir.Node, what: str) -> None:
    if isinstance(node.type, BoolT):
        raise SpecError(f"type mismatch: {what} needs numbers, and '{node.text}' is true/false",
                        node.loc, hint="use int(...) or count(...) to turn truths into numbers")
    if not isinstance(node.type, IntT | FloatT):
        raise SpecError(f"type mismatch: {what} needs numbers, and '{node.text}' is "
                        f"{node.type.show()}", node.loc)


def _as_label(node: ir.Node, enum: EnumT) -> ir.Node:
    """A string expression used where an enum value is expected."""
    if not isinstance(node.type, StrT):
        return node
    bad = sorted(node.type.values - set(enum.values))
    if bad:
        raise SpecError(f"'{bad[0]}' is not a label of {enum.name}", node.loc,
                        hint=did_you_mean(bad[0], enum.values) or
                        f"labels: {', '.join(enum.values)}")
    if isinstance(node, ir.Const):
        node.type = enum
        return node
    if isinstance(node, ir.IfExpr):
        node.then, node.other = _as_label(node.then, enum), _as_label(node.other, enum)
        node.type = enum
        return node
    raise SpecError(f"'{node.text}' is a string; compare it with strings, not {enum.name} "
                    "values", node.loc)


def _compatible(a: Type, b: Type) -> bool:
    if isinstance(a, IntT | FloatT) and isinstance(b, IntT | FloatT):
        return True
    if isinstance(a, StrT) and isinstance(b, StrT):
        return True
    if isinstance(a, SeqT) and isinstance(b, SeqT):
        return a.length == b.length and _compatible(a.elem, b.elem)
    if isinstance(a, TupleT) and isinstance(b, TupleT):
        return len(a.items) == len(b.items) and all(
            _compatible(x, y) for x, y in zip(a.items, b.items, strict=True))
    if isinstance(a, SetT) and isinstance(b, SetT):
        return a.elem == b.elem
    if isinstance(a, RecordT) and isinstance(b, RecordT):
        return [n for n, _ in a.fields] == [n for n, _ in b.fields] and all(
            _compatible(x, y) for (_, x), (_, y) in zip(a.fields, b.fields, strict=True))
    return type(a) is type(b) and (not isinstance(a, EnumT) or a == b)


def _element_type(node: ir.Node) -> Type | None:
    t = node.type
    if isinstance(t, RangeT):
        return t.elem
    if isinstance(t, DomainT):
        return t.elem if t.elem.finite else None
    if isinstance(t, SetT | SeqT):
        return t.elem
    return None


def _static_length(node: ir.Node) -> int:
    """An upper bound on the number of elements of an iterable."""
    t = node.type
    if isinstance(t, RangeT):
        return max(0, t.elem.hi - t.elem.lo + 1)
    if isinstance(t, DomainT):
        d = node.ref[1] if isinstance(node, ir.Name) and node.ref else None
        return domain_size(d) if d is not None else 0
    if isinstance(t, SetT):
        return universe_size(t.elem)
    if isinstance(t, SeqT):
        return t.length
    return 0


def _arith_type(op: str, x: ir.Node, y: ir.Node) -> Type:
    a, b = x.type, y.type
    if op == "/" or not (isinstance(a, IntT) and isinstance(b, IntT)):
        return FloatT()
    if op == "+":
        return int_type(a.lo + b.lo, a.hi + b.hi)
    if op == "-":
        return int_type(a.lo - b.hi, a.hi - b.lo)
    if op == "*":
        corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
        return int_type(min(corners), max(corners))
    if op == "%":
        m = max(abs(b.lo), abs(b.hi))
        if b.lo > 0:
            return int_type(0, b.hi - 1)
        return int_type(-m, m)
    if op == "//":
        m = max(abs(a.lo), abs(a.hi))
        if b.lo > 0 and a.lo >= 0:
            return int_type(a.lo // b.hi, a.hi // b.lo)
        return int_type(-m, m)
    if op == "**":
        if b.lo < 0:
            return FloatT()
        if b.hi > 62:
            return int_type(-ir.INT_LIMIT, ir.INT_LIMIT)
        if a.lo >= 0:
            corners = [base ** e for base in (a.lo, a.hi) for e in (b.lo, b.hi)]
            return int_type(min(corners), max(corners))
        m = max(abs(a.lo), abs(a.hi), 1) ** b.hi
        return int_type(-m, m)
    raise AssertionError(op)


def domain_product_size(domains: list[Domain]) -> int:
    return prod(domain_size(d) for d in domains)


"""Expression text -> untyped IR, with lark's LALR parser and one Transformer.

Every IR node gets the file location of its first character (through a
`locate(offset)` callback that maps offsets inside the expression string to
the spec file) and its own source text, so later passes can point at it.
"""

from __future__ import annotations

import ast
import math
import warnings
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError

from sleuth.compiler import ir
from sleuth.compiler.errors import Loc, SpecError

Locator = Callable[[int], Loc]
MAX_DEPTH = 100  # parse-tree levels an expression may nest (every later pass recurses)
MAX_DIGITS = 19  # an integer literal's digits: 64-bit kernels hold at most 2**62 here

_READABLE = {
    "NAME": "a name", "INT": "an integer", "FLOAT": "a number", "STRING": "a string",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MINUS": "'-'",
    "MUL_OP": "'*', '/', '//' or '%'",
    "POW": "'**'", "DOT": "'.'", "$END": "end of expression",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser. Lark keeps its analysis of the grammar in a file in the temporary
    directory (keyed by the grammar's hash): building it would be most of a small
    command's start-up, and loading it costs a small fraction of that."""
    grammar = (Path(__file__).parent / "grammar.lark").read_text(encoding="utf-8")
    try:
        return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True,
                    cache=True)
    except OSError:  # an unwritable temporary directory: build it every time
        return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)


def parse_expr(text: str, locate: Locator) -> ir.Node:
    """Parse one expression; raise SpecError located in the spec file on bad syntax."""
    if not text.strip():
        raise SpecError("empty expression", locate(0), hint="write an expression here")
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(text, err, locate) from None
    _check_depth(tree, locate)
    try:
        return _Build(text, locate).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, SpecError):
            raise err.orig_exc from None
        raise


def _check_depth(tree: Tree, locate: Locator) -> None:
    """Refuse an expression nested deeper than MAX_DEPTH (every later pass recurses)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            start = getattr(node.meta, "start_pos", 0) if not node.meta.empty else 0
            raise SpecError(f"this expression is nested more than {MAX_DEPTH} levels deep",
                            locate(start), hint="split it with defs or feedback components")
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))


def _syntax_error(text: str, err: UnexpectedInput, locate: Locator) -> SpecError:
    offset = getattr(err, "pos_in_stream", None)
    if isinstance(err, UnexpectedEOF) or offset is None:
        offset = len(text.rstrip())
    expected = sorted(getattr(err, "expected", None) or getattr(err, "allowed", None) or [])
    names = list(dict.fromkeys(_READABLE.get(t) or _terminal_text(t) for t in expected))
    wanted = ", ".join(names) if len(names) <= 6 else "an operator, ')' or the end"
    if isinstance(err, UnexpectedCharacters):
        what = f"unexpected character {text[offset]!r}"
    elif isinstance(err, UnexpectedEOF) or getattr(err, "token", None) is None \
            or err.token.type == "$END":
        what = "unexpected end of expression"
        offset = len(text.rstrip())
    else:
        what = f"unexpected {err.token.value!r}"
    hint = _bracket_hint(text, locate)
    token = getattr(err, "token", None)
    if token is not None and token.type == "COMP_OP":
        hint = "comparisons do not chain: write 'a < b and b < c'"
    elif isinstance(err, UnexpectedCharacters) and text[offset] == "=" \
            and text[offset + 1:offset + 2] != "=":
        hint = "'=' does not compare: write '==' (a spec assigns nothing)"
    elif token is not None and token.value == "for" and _inside(text, offset, "["):
        hint = ("there are no list comprehensions: give the 'for' to an aggregate, "
                "e.g. sum(x * 2 for x in xs) or count(x > 1 for x in xs)")
    message = f"{what}; expected {wanted}" if wanted else what
    return SpecError(message, locate(min(offset, max(len(text) - 1, 0))), hint=hint)


def _inside(text: str, offset: int, opener: str) -> bool:
    """Whether offset lies inside an unclosed `opener` bracket."""
    closer = {"[": "]", "(": ")"}[opener]
    depth = 0
    for ch in reversed(text[:offset]):
        if ch == closer:
            depth += 1
        elif ch == opener:
            if depth == 0:
                return True
            depth -= 1
    return False


def _terminal_text(name: str) -> str:
    """Readable form of a keyword or punctuation terminal: its literal text, quoted."""
    try:
        return repr(_parser().get_terminal(name).pattern.value)
    except KeyError:
        return name.lower()


def _bracket_hint(text: str, locate: Locator) -> str | None:
    pairs = {")": "(", "]": "["}
    stack: list[tuple[str, int]] = []
    for k, ch in enumerate(text):
        if ch in "([":
            stack.append((ch, k))
        elif ch in ")]":
            if not stack or stack[-1][0] != pairs[ch]:
                return f"unbalanced brackets: {ch!r} at {_where(locate(k))} has no opening partner"
            stack.pop()
    if stack:
        ch, k = stack[-1]
        return f"unbalanced brackets: {ch!r} at {_where(locate(k))} is never closed"
    return None


def _where(loc: Loc) -> str:
    return f"line {loc.line}, column {loc.col}"


@v_args(meta=True)
class _Build(Transformer):
    """Parse tree -> IR nodes (the 'build' pass)."""

    def __init__(self, text: str, locate: Locator):
        super().__init__()
        self.src = text
        self.locate = locate

    def _node(self, meta, node: ir.Node) -> ir.Node:
        if not meta.empty:
            node.text = self.src[meta.start_pos:meta.end_pos]
        return node

    def _loc(self, meta) -> Loc:
        return self.locate(0 if meta.empty else meta.start_pos)

    def _tok_loc(self, tok: Token) -> Loc:
        return self.locate(tok.start_pos or 0)

    def int(self, meta, children):
        text = str(children[0])
        if len(text) > MAX_DIGITS or int(text) > ir.INT_LIMIT:
            what = f"an integer of {len(text):,} digits" if len(text) > MAX_DIGITS \
                else f"the integer {text}"
            raise SpecError(f"{what} is too large", self._loc(meta),
                            hint=f"integer constants are at most 2**62 = {ir.INT_LIMIT:,} "
                                 "(the kernels compute in 64-bit integers)")
        return self._node(meta, ir.Const(self._loc(meta), int(text)))

    def float(self, meta, children):
        value = float(children[0])
        if not math.isfinite(value):
            raise SpecError(f"'{children[0]}' is too large for a number", self._loc(meta),
                            hint="numbers are 64-bit floats: at most about 1.8e308")
        return self._node(meta, ir.Const(self._loc(meta), value))

    def string(self, meta, children):
        try:
            with warnings.catch_warnings():  # "\q": Python warns today, refuses tomorrow
                warnings.simplefilter("error")
                value = ast.literal_eval(str(children[0]))
        except (SyntaxError, ValueError, Warning) as err:  # a bad escape: "\x", "\N{BOGUS}"
            reason = str(err).split(":", 1)[-1].split("(<unknown>")[0].strip()
            raise SpecError(f"bad escape in the string {children[0]}: {reason}",
                            self._loc(meta), hint="write a backslash as \\\\") from None
        return self._node(meta, ir.Const(self._loc(meta), value))

    def name(self, meta, children):
        return self._node(meta, ir.Name(self._loc(meta), str(children[0])))

    def ifexpr(self, meta, c):
        return self._node(meta, ir.IfExpr(self._loc(meta), c[0], c[1], c[2]))

    def or_(self, meta, c):
        return self._node(meta, ir.Binary(self._loc(meta), "or", c[0], c[1]))

    def and_(self, meta, c):
        return self._node(meta, ir.Binary(self._loc(meta), "and", c[0], c[1]))

    def not_(self, meta, c):
        return self._node(meta, ir.Unary(self._loc(meta), "not", c[0]))

    def compare(self, meta, c):
        return self._node(meta, ir.Binary(self._loc(meta), str(c[1]), c[0], c[2]))

    def in_(self, meta, c):
        return self._node(meta, ir.Binary(self._loc(meta), "in", c[0], c[1]))

    def not_in(self, meta, c):
        return self._node(meta, ir.Binary(self._loc(meta), "not in", c[0], c[1]))

    def range(self, meta, c):
        return self._node(meta, ir.RangeExpr(self._loc(meta), c[0], c[1]))

    def binop(self, meta, c):
        return self._node(meta, ir.Binary(self._loc(meta), str(c[1]), c[0], c[2]))

    def pow(self, meta, c):
        return self._node(meta, ir.Binary(self._loc(meta), "**", c[0], c[2]))

    def neg(self, meta, c):
        return self._node(meta, ir.Unary(self._loc(meta), "-", c[1]))

    def index(self, meta, c):
        return self._node(meta, ir.Index(self._loc(meta), c[0], c[1]))

    def field(self, meta, c):
        return self._node(meta, ir.Field(self._loc(meta), c[0], str(c[1])))

    def call(self, meta, c):
        args = [a for a in c[1:] if a is not None]
        return self._node(meta, ir.Call(self._loc(meta), str(c[0]), args))

    def iterate(self, meta, c):
        return self._node(meta, ir.Iterate(self._loc(meta), str(c[0]), c[1], c[2]))

    def gencall(self, meta, c):
        body, loops, cond = c[1]
        return self._node(meta, ir.Generator(self._loc(meta), str(c[0]), body, loops, cond,
                                             list(c[2:])))

    def generator(self, meta, c):
        return c[0], [x for x in c[1:-1]], c[-1]

    def comp_for(self, meta, c):
        return ir.Loop([str(t) for t in c[:-1]], c[-1])

    def tuple(self, meta, c):
        return self._node(meta, ir.TupleExpr(self._loc(meta), [x for x in c if x is not None]))

    def list(self, meta, c):
        return self._node(meta, ir.ListExpr(self._loc(meta), [x for x in c if x is not None]))

"""Declarations: the domains, enum labels and data tables a spec declares, built into
`Domain`s and `Table`s (sizes are constant expressions over the params, folded with the
reference interpreter).

`Declarations` is the part of the checker (check.py) that reads them; it uses the
checker's `spec`, `reader`, `params`, `domains`, `labels`, `expr` and
`global_scope`.
"""

from __future__ import annotations

import csv
import itertools
import math
from dataclasses import dataclass
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
    domain_values,
    enum_domain,
    listed_seq_domain,
    multiset_domain,
    range_domain,
    record_domain,
    seq_domain,
    set_domain,
    universe_size,
)
from sleuth.compiler.errors import Loc, SpecError, did_you_mean, option
from sleuth.compiler.interpret import evaluate
from sleuth.compiler.ir import BoolT, EnumT, FloatT, IntT, RangeT, TableT, Type, int_type
from sleuth.compiler.source import scalar_value

BUILTIN_DOMAINS = {"Bool": BOOL, "Real": REAL}
MAX_SEQ_LEN = 1024
MAX_MULTISET_VALUES = 1 << 22  # its values are listed in a table
MAX_INCREASING = 10**7  # values an increasing seq lists


@dataclass
class Table:
    """A data table: numbers indexed by finite domains (loaded from CSV)."""

    name: str
    index: list[Domain]
    values: np.ndarray
    type: Type


class Declarations:
    """Domains, enums and tables of a spec (a base of the Checker)."""

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
        fields = r.mapping(node, "a domain", kinds + ("len", "size", "index", "increasing"))
        kind = [k for k in kinds if k in fields and not (k == "from" and "seq" in fields)]
        if len(kind) != 1:
            raise SpecError("a domain needs exactly one of " + ", ".join(kinds), r.loc(node))
        kind_name = kind[0]
        value = fields[kind_name][1]
        extra = set(fields) - {kind_name} - ({"len", "index", "from", "increasing"}
                                             if kind_name == "seq" else set()) - (
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
        if kind_name == "seq" and "increasing" in fields:
            return self.increasing_seq(name, node, value, fields)
        if kind_name == "seq" and "from" in fields:
            return self.listed_seq(name, value, fields)
        if kind_name == "seq" and "index" in fields:
            return self.indexed_seq(value, fields)
        if kind_name == "seq":
            if "len" not in fields:
                raise SpecError("a seq domain needs 'len' (or 'index', an enum naming its "
                                "positions)", r.loc(node), hint="e.g. {seq: Colour, len: pegs}")
            elem = self.domain(value)
            length = self.const_int(fields["len"][1], "len")
            if not 1 <= length <= MAX_SEQ_LEN:  # a sequence of none tells nothing apart
                raise SpecError(f"len must be in 1..{MAX_SEQ_LEN}, not {length}",
                                r.loc(fields["len"][1]),
                                hint="a param that sets it may be too small" if
                                length < 1 else None)
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

    def increasing_seq(self, name: str | None, node: Node, value: Node,
                       fields: dict) -> Domain:
        """{seq: D, len: k, increasing: true}: the sequences of k values of D in strictly
        increasing order -- each k-subset of D listed once, however large D is (a set's
        universe is at most 62 elements)."""
        r = self.reader
        flag = fields["increasing"][1]
        if not isinstance(flag, ScalarNode) or scalar_value(flag) is not True:
            raise SpecError("increasing is true (or left out)", r.loc(flag))
        if "len" not in fields or "from" in fields or "index" in fields:
            raise SpecError("an increasing seq needs 'len', and no 'from' or 'index'",
                            r.loc(node), hint="e.g. {seq: Cell, len: 4, increasing: true}")
        elem = self.domain(value)
        if not isinstance(elem.type, IntT | EnumT):
            raise SpecError(f"an increasing seq holds integers or enum values, not "
                            f"{elem.describe()}", r.loc(value))
        n, k = domain_size(elem), self.const_int(fields["len"][1], "len")
        if k < 1:
            raise SpecError(f"an increasing seq has len 1 or more, not {k}",
                            r.loc(fields["len"][1]), hint="e.g. {seq: Cell, len: 4, "
                                                          "increasing: true}")
        if not k <= min(n, MAX_SEQ_LEN) or math.comb(n, k) > MAX_INCREASING:
            raise SpecError(f"{k} increasing values of {elem.describe()} ({n} values) make "
                            f"{math.comb(n, k) if k <= n else 0:,} sequences; an "
                            f"increasing seq has 1 to {MAX_INCREASING:,}",
                            r.loc(fields["len"][1]))
        if n ** k >= 1 << 62:
            raise SpecError(f"sequences of {k} values of {elem.describe()} are too long to code "
                            "in 62 bits", r.loc(fields["len"][1]))
        rows = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), k)),
                           dtype=np.int64, count=math.comb(n, k) * k).reshape(-1, k)
        return listed_seq_domain(elem, rows, name, ordered=True)

    def listed_seq(self, name: str | None, value: Node, fields: dict) -> Domain:
        """{seq: D, from: file or [files]}: the sequences listed in word-list files, one per
        non-empty line, each character one element of D (an enum of one-character labels,
        or a range of digits); `len`, if given, must match every word."""
        r = self.reader
        if "index" in fields:
            raise SpecError("a seq read from files has positions 0..len-1, not an index",
                            r.loc(fields["index"][0]))
        elem = self.domain(value)
        chars = self._element_chars(elem, r.loc(value))
        node = fields["from"][1]
        files = r.sequence(node, "word-list files") if not isinstance(node, ScalarNode) \
            else [node]
        length = self.const_int(fields["len"][1], "len") if "len" in fields else None
        rows = []
        for f in files:
            path = self._data_path(f)
            for number, line in enumerate(self._lines(path, f), 1):
                word = line.strip()
                if not word:
                    continue
                where = f"{path.name}:{number}"
                if length is None:
                    length = len(word)
                if len(word) != length:
                    raise SpecError(f"'{word}' ({where}) has {len(word)} elements, not {length}",
                                    r.loc(f), hint="every word of a seq domain has one length")
                unknown = [ch for ch in word if ch not in chars]
                if unknown:
                    raise SpecError(f"'{word}' ({where}): '{unknown[0]}' is not an element of "
                                    f"{elem.describe()}", r.loc(f),
                                    hint="each character must be one of its labels")
                rows.append([chars[ch] for ch in word])
        if not rows:
            raise SpecError("the word lists are empty", r.loc(node))
        if domain_size(elem) ** length >= 1 << 62:
            raise SpecError(f"words of {length} elements of {elem.describe()} are too long to "
                            "code in 62 bits", r.loc(node))
        return listed_seq_domain(elem, np.array(rows, dtype=np.int64), name)

    def _element_chars(self, elem: Domain, loc: Loc) -> dict[str, int]:
        """Each element of an enum of one-character labels (or a range of digits), by its
        character: its rank."""
        values = [str(v) for v in domain_values(elem)] if elem.kind == "scalar" and \
            isinstance(elem.type, IntT | EnumT) else []
        if not values or any(len(v) != 1 for v in values):
            raise SpecError(f"words are read as sequences of one-character elements; "
                            f"{elem.describe()} is not an enum of one-character labels or a "
                            "range of digits", loc, hint="e.g. Letter: {enum: [a, b, c]}")
        return {v: i for i, v in enumerate(values)}

    def _lines(self, path: Path, node: Node) -> list[str]:
        try:
            return path.read_text(encoding="utf-8").splitlines()
        except OSError as err:
            raise SpecError(f"cannot read {path}: {err.strerror}", self.reader.loc(node)) from None
        except UnicodeDecodeError as err:
            raise SpecError(f"{path.name} is not UTF-8 text (byte {err.start})",
                            self.reader.loc(node), hint="save the file as UTF-8") from None

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
        lines = self._lines(path, node)
        labels = [(ln.strip(), self.reader.loc(node)) for ln in lines if ln.strip()]
        for label, loc in labels:
            if not label.isidentifier():
                raise SpecError(f"'{label}' in {path.name} is not a valid label", loc,
                                hint="labels are letters, digits and _")
        return self.enum(name, labels, self.reader.loc(node))

    def _data_path(self, node: Node) -> Path:
        return self.data_path(self.reader.text(node, "a file name"), self.reader.loc(node))

    def data_path(self, name: str, loc: Loc) -> Path:
        """A data file named in the spec, confined to the spec's folder: a spec from
        elsewhere must not read /etc/passwd, nor ../ its way out (--data-anywhere lifts
        it, for a spec one trusts)."""
        folder = Path(self.spec.file).parent
        path = folder / name
        if not self.spec.doc.data_anywhere and not path.resolve().is_relative_to(
                folder.resolve()):
            raise SpecError(f"the data file '{name}' is outside the spec's folder", loc,
                            hint=f'copy it next to the spec, or pass {option("data_anywhere")} if '
                                 'you '
                                 "trust this spec")
        return path

    def table(self, decl: Any) -> Table:
        if not decl.index:
            raise SpecError(f"table '{decl.name}' has no index domain", decl.loc,
                            hint="name the domains its rows are indexed by, e.g. "
                                 "index: [Row, Column]; a single number is a param")
        index = [self.domain(n) for n in decl.index]
        for d, n in zip(index, decl.index, strict=True):
            if not isinstance(d.type, IntT | EnumT | BoolT):
                raise SpecError("table index domains must be ranges or enums",
                                self.reader.loc(n))
        path = self.data_path(decl.file, decl.loc)
        try:
            rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
        except OSError as err:
            raise SpecError(f"cannot read {path}: {err.strerror}", decl.loc) from None
        except UnicodeDecodeError as err:
            raise SpecError(f"{path.name} is not UTF-8 text (byte {err.start})", decl.loc,
                            hint="save the file as UTF-8") from None
        shape = tuple(universe_size(d.type) for d in index)
        values = np.full(shape, np.nan if decl.default is None else float(decl.default))
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
                            hint="give one line per combination of index values, or a "
                                 "default for the others (default: 0)")
        as_int = bool(np.all(values == np.round(values)))
        as_int = as_int and bool(np.all(np.abs(values) <= ir.INT_LIMIT))  # else: floats
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

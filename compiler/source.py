"""YAML with positions: every node knows where it stands in the spec file.

PyYAML's composer keeps a mark (line, column) on every node. Expressions are
YAML strings, so an error at character k of an expression is mapped back to
the file by aligning the string's value with its source text (quotes, block
indentation and line folding all shift columns).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sleuth.compiler.errors import Loc, SpecError, did_you_mean

BOOL_TRAPS = {"yes", "no", "on", "off", "y", "n"}
MAX_YAML_DEPTH = 100  # nesting of mappings and sequences
_constructor = SafeConstructor()


class _Refused(yaml.MarkedYAMLError):
    """YAML that is valid but not accepted in a spec; `hint` says what to write instead."""

    def __init__(self, problem: str, mark: Any, hint: str):
        super().__init__(problem=problem, problem_mark=mark)
        self.hint = hint


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing what a spec never needs: explicit tags (`!!int`,
    `!!python/name:...`, `!custom`), an alias inside the node it names (a recursive
    structure), and nesting deeper than MAX_YAML_DEPTH (the composer recurses)."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self._open: set[str] = set()  # anchors of the nodes being composed
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            if event.anchor in self._open:
                raise _Refused(f"the alias *{event.anchor} stands inside the node it names",
                               event.start_mark, "a spec's values cannot contain themselves")
            return super().compose_node(parent, index)
        tag = getattr(event, "tag", None)
        if tag is not None:
            raise _Refused(f"explicit YAML tags are not allowed ({tag})", event.start_mark,
                           "write the plain value; quote it to make it a string")
        self._depth += 1
        if self._depth > MAX_YAML_DEPTH:
            raise _Refused(f"YAML nested more than {MAX_YAML_DEPTH} levels deep",
                           event.start_mark, "a spec needs only a few levels")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._open.add(anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open.discard(anchor)


class Document:
    """A parsed YAML file: the node tree plus what is needed to locate text in it."""

    def __init__(self, text: str, file: str, data_anywhere: bool = False):
        self.text = text
        self.file = file
        self.data_anywhere = data_anywhere  # data files may lie outside the spec's folder
        try:
            self.root: Node | None = yaml.compose(text, Loader=_Loader)
        except _Refused as err:
            mark = err.problem_mark
            raise SpecError(err.problem, Loc(file, mark.line + 1, mark.column + 1),
                            hint=err.hint) from None
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            loc = Loc(file, mark.line + 1, mark.column + 1) if mark else None
            raise SpecError(f"invalid YAML: {err.problem or err.context}", loc) from None
        except yaml.YAMLError as err:
            raise SpecError(f"invalid YAML: {err}", Loc(file, 1, 1)) from None
        if self.root is not None:
            self._check_tree(self.root)

    @classmethod
    def from_path(cls, path: str | Path, what: str = "spec file",
                  data_anywhere: bool = False) -> Document:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            hint = None
            if what == "spec file" and not path.suffix and len(path.parts) == 1:
                from sleuth.compiler.library import bundled_specs

                hint = (did_you_mean(path.name, bundled_specs())
                        or "bundled specs: " + ", ".join(bundled_specs()))
            raise SpecError(f"no such {what}: {path}", hint=hint) from None
        except (OSError, UnicodeDecodeError) as err:
            raise SpecError(f"cannot read {what} {path}: {err}") from None
        return cls(text, str(path), data_anywhere)

    def loc(self, node: Node) -> Loc:
        mark = node.start_mark
        return Loc(self.file, mark.line + 1, mark.column + 1)

    def text_loc(self, node: ScalarNode, offset: int) -> Loc:
        """Location in the file of character `offset` of a scalar's value."""
        line, col = _align(self.text, node, offset)
        return Loc(self.file, line + 1, col + 1)

    def _check_tree(self, root: Node) -> None:
        """Boolean traps and duplicate keys, each node once (aliases share nodes)."""
        seen_nodes: set[int] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen_nodes:
                continue
            seen_nodes.add(id(node))
            if isinstance(node, ScalarNode):
                self._check_scalar(node)
            elif isinstance(node, MappingNode):
                seen: dict[Any, Node] = {}
                for key, value in node.value:
                    k = key.value if isinstance(key, ScalarNode) else id(key)
                    if k in seen:
                        raise SpecError(f"duplicate key '{k}'", self.loc(key),
                                        hint=f"first given at line {seen[k].start_mark.line + 1}")
                    seen[k] = key
                    stack += [value, key]
            elif isinstance(node, SequenceNode):
                stack.extend(reversed(node.value))

    def _check_scalar(self, node: ScalarNode) -> None:
        if node.tag.endswith(":bool") and node.style is None:
            if node.value.lower() in BOOL_TRAPS:
                raise SpecError(f"YAML reads '{node.value}' as a boolean, not as the word",
                                self.loc(node), hint=f'quote this value: "{node.value}"')


def scalar_value(node: ScalarNode) -> Any:
    """The Python value YAML gives a scalar (int, float, bool, None or str)."""
    try:
        return _constructor.construct_object(node, deep=True)
    except ValueError:  # an integer longer than Python converts (4,300 digits)
        mark = node.start_mark
        raise SpecError(f"line {mark.line + 1}, column {mark.column + 1}: a number of "
                        f"{len(node.value):,} characters is too large",
                        hint="integer constants are at most 2**62") from None


def _align(text: str, node: ScalarNode, offset: int) -> tuple[int, int]:
    """0-based (line, col) in `text` of character `offset` of the scalar's value."""
    start, end = node.start_mark.index, node.end_mark.index
    src = text[start:end]
    value = node.value
    pos = 0
    if node.style in ('"', "'"):
        pos = 1
    elif node.style in ("|", ">"):
        pos = src.find("\n") + 1 if "\n" in src else len(src)
    for k, ch in enumerate(value[: offset + 1]):
        while pos < len(src) and not _same(src[pos], ch):
            pos += 1
        if k == offset:
            break
        pos += 1
    pos = min(pos, max(len(src) - 1, 0))
    absolute = start + pos
    line = text.count("\n", 0, absolute)
    col = absolute - (text.rfind("\n", 0, absolute) + 1)
    return line, col


def _same(src_ch: str, value_ch: str) -> bool:
    return src_ch == value_ch or (value_ch == " " and src_ch == "\n")

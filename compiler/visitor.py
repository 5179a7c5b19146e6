"""The one dispatch the IR passes share: a node's handler is the pass's method named
after the node's class (`_binop` for `ir.BinOp`), looked up once per class.

Resolution, inference, the kernel compiler and both lowerings walk the same IR, each
with its own arguments and its own answer for a node it has no handler for (walk the
children, refuse the construct, fail): `handler(node)` gives the bound method or None,
and the pass decides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar


class Visitor:
    """Base of the IR passes: `handler(node)`, the method for the node's class."""

    _names: ClassVar[dict[type, str]] = {}

    def handler(self, node: Any) -> Callable[..., Any] | None:
        """The pass's method for `node` (`_` + its class name in lower case), or None."""
        kind = type(node)
        name = Visitor._names.get(kind)
        if name is None:
            name = Visitor._names.setdefault(kind, "_" + kind.__name__.lower())
        return getattr(self, name, None)


__all__ = ["Visitor"]

"""The record every builtin is declared by: one entry holds all of its meanings.

    type(typer, call)            checks the arguments (coercing strings to labels)
                                 and returns the call's static type (pass 3)
    scalar(call, values)         the reference meaning, one point at a time
    kernel(compiler, call, fns)  the vectorised meaning: a closure over numpy blocks
    lower(lowering, call, args)  the boolean meaning over symbolic arguments; None (or
                                 NotImplemented returned) means the generic case split
                                 by the scalar meaning over the arguments' values
    examples                     expressions the registry test cross-checks the meanings
                                 on (over the probe spec in tests/test_builtins.py)
    relabel                      how the result follows a relabelling of the arguments
                                 (invariance.py): "invariant" (the arguments' values are
                                 only compared for equality and a sequence's order is
                                 ignored), "covariant" (the same, but the result is built
                                 from the values: it is relabelled too), "order-free" (a
                                 sequence's order is ignored, its values are not only
                                 compared), or "" (neither: no symmetry is derived through it)

The type checker, the interpreter, the vectoriser and the lowering each read
their column of BUILTINS (builtins/__init__.py); adding a builtin is adding an
entry there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sleuth.compiler import ir
from sleuth.compiler.errors import SpecError

if TYPE_CHECKING:
    from sleuth.compiler.boolean import Lowering
    from sleuth.compiler.infer import Typer
    from sleuth.compiler.vectorise import Compiler

Fn = Callable[[Any], Any]  # a kernel closure: ctx -> value


@dataclass(frozen=True)
class Builtin:
    name: str
    type: Callable[[Typer, ir.Call], ir.Type]
    scalar: Callable[[ir.Call, list[Any]], Any]
    kernel: Callable[[Compiler, ir.Call, list[Fn]], Fn]
    lower: Callable[[Lowering, ir.Call, list[Any]], Any] | None = None
    examples: tuple[str, ...] = ()
    relabel: str = ""


def arity(node: ir.Call, *allowed: int) -> None:
    """A SpecError unless the call has one of the allowed numbers of arguments."""
    if len(node.args) not in allowed:
        want = " or ".join(str(k) for k in allowed)
        raise SpecError(f"{node.func}() takes {want} argument{'s' if allowed != (1,) else ''}, "
                        f"given {len(node.args)}", node.loc)


__all__ = ["Builtin", "Fn", "arity"]

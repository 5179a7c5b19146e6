"""Hidden params: a model parameter that is part of the secret, with a prior.

    params:
      lambda: {hidden: [0.5, 1.0, 2.0], prior: [1, 2, 1]}   # prior optional: uniform

A hidden param becomes a secret variable of the same name over the listed
values (an enum whose labels are the values as written: "0.5", "1", "2"),
and the prior multiplies the spec's prior by the value's weight. Every
expression that names the param reads the value of the hypothesis at hand,
so the posterior learns it from the evidence (an opponent's threshold, an
answering policy). It is not part of the goal unless `goal: identify` names
it. It can be given from the command line as well, `--set
'lambda={hidden: [0.5, 1, 2]}'`, and fixed again with `--set lambda=1`.

A hidden param cannot size anything (a range bound, a length, a tremble):
those are built before the secret is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.errors import Loc, SpecError


@dataclass(frozen=True)
class Hidden:
    """The values a hidden param may take, and their prior weights (None: uniform)."""

    values: tuple[int | float, ...]
    prior: tuple[float, ...] | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(f"{v:g}" if isinstance(v, float) else str(v) for v in self.values)

    @property
    def domain_name(self) -> str:
        """The name of its values' enum, as listings show it: {0.5, 1, 2}."""
        return "{" + ", ".join(self.labels) + "}"

    def __str__(self) -> str:
        prior = "" if self.prior is None else f", prior: [{', '.join(map(str, self.prior))}]"
        return f"{{hidden: [{', '.join(self.labels)}]{prior}}}"


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def hidden_from(obj: Any, name: str, loc: Loc | None = None) -> Hidden:
    """A Hidden from its plain form {hidden: [values], prior: [weights]}, checked."""
    where = f"hidden param '{name}'"
    if not isinstance(obj, dict) or "hidden" not in obj or set(obj) - {"hidden", "prior"}:
        raise SpecError(f"param '{name}' must be a single value or {{hidden: [values], "
                        f"prior: [weights]}}", loc, hint="e.g. lambda: {hidden: [0.5, 1, 2]}")
    values = obj["hidden"]
    if not isinstance(values, list) or not values or not all(map(is_number, values)):
        raise SpecError(f"{where}: 'hidden' must be a non-empty list of numbers", loc,
                        hint="e.g. {hidden: [0.5, 1, 2]}")
    hidden = Hidden(tuple(values))
    if len(set(hidden.labels)) != len(values):
        raise SpecError(f"{where}: its values must be different", loc)
    prior = obj.get("prior")
    if prior is None:
        return hidden
    if not isinstance(prior, list) or len(prior) != len(values) or \
            not all(is_number(w) and w >= 0 for w in prior) or not sum(prior) > 0:
        raise SpecError(f"{where}: 'prior' must list one weight >= 0 per value "
                        f"({len(values)}), not all 0", loc, hint="e.g. prior: [1, 2, 1]")
    return Hidden(hidden.values, tuple(float(w) for w in prior))


def value_of(name: str, hidden: Hidden, enum: ir.EnumT, loc: Loc) -> ir.Node:
    """The param's value for the hypothesis at hand: if name == "v0" then v0 else ...
    (untyped IR whose Name refers to the secret variable)."""
    return _chain(name, enum, [ir.Const(loc, v) for v in hidden.values], loc)


def prior_factor(name: str, hidden: Hidden, enum: ir.EnumT, loc: Loc) -> ir.Node | None:
    """The prior weight of the hypothesis' value (None for a uniform prior)."""
    if hidden.prior is None:
        return None
    return _chain(name, enum, [ir.Const(loc, w) for w in hidden.prior], loc)


def _chain(name: str, enum: ir.EnumT, results: list[ir.Node], loc: Loc) -> ir.Node:
    def named(node: ir.Node) -> ir.Node:
        node.text = name  # what messages show
        return node

    out = named(results[-1])
    for label, result in reversed(list(zip(enum.values[:-1], results[:-1], strict=True))):
        const = named(ir.Const(loc, label))
        const.type = enum
        test = ir.Binary(loc, "==", named(ir.Name(loc, name, ("secret", name))), const)
        out = named(ir.IfExpr(loc, named(test), named(result), out))
    return out


__all__ = ["Hidden", "hidden_from", "is_number", "prior_factor", "value_of"]

"""Counting backends: one file per backend behind one interface (base.Counter).

The first entry is the default counter (the one chosen when a hypothesis space
is too large to enumerate). Adding a backend: one new file (copy TEMPLATE.py)
and one line here.
"""

from __future__ import annotations

from sleuth.compiler.counters.approx import ApproxCounter
from sleuth.compiler.counters.base import Counter
from sleuth.compiler.counters.cnf import GanakCounter
from sleuth.compiler.counters.factored import FactoredCounter
from sleuth.compiler.counters.sdd import DiagramCounter
from sleuth.compiler.errors import SleuthError, did_you_mean

COUNTERS: dict[str, type[Counter]] = {c.name: c for c in (
    DiagramCounter,
    GanakCounter,
    ApproxCounter,
    FactoredCounter,
)}


def counter_class(name: str) -> type[Counter]:
    """A registered counter by name (its library installed), or a SleuthError."""
    if name not in COUNTERS:
        raise SleuthError(f"unknown counting backend '{name}'",
                          hint=did_you_mean(name, COUNTERS) or f"one of {', '.join(COUNTERS)}")
    cls = COUNTERS[name]
    if not cls.supported():
        raise SleuthError(f"the {name} backend needs a library that is not installed",
                          hint="pip install sleuth's dependencies again (pip install .)")
    return cls


__all__ = ["COUNTERS", "Counter", "counter_class"]

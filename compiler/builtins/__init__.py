"""The builtins registry: every builtin declared once, with all of its meanings.

    BUILTINS     name -> Builtin (record.py): type rule, scalar meaning, numpy kernel,
                 boolean lowering, and the examples the registry test checks them on
    AGGREGATES   name -> Aggregator (aggregates.py): the generator forms
                 `agg(body for v in it if cond, default?)`

Adding a builtin: write its entry in one of the modules below (or a new one) and
list it here. The type checker (infer.py), the interpreter (interpret.py), the
vectoriser (vectorise.py) and the lowering (boolean.py) read their column of it;
none of them names a builtin.
"""

from __future__ import annotations

from sleuth.compiler.builtins import numbers, sequences, sets
from sleuth.compiler.builtins.aggregates import AGGREGATES, Aggregator, Fold
from sleuth.compiler.builtins.record import Builtin

BUILTINS: dict[str, Builtin] = {b.name: b for b in (
    *sequences.ENTRIES,
    *sets.ENTRIES,
    *numbers.ENTRIES,
)}

__all__ = ["AGGREGATES", "BUILTINS", "Aggregator", "Builtin", "Fold"]

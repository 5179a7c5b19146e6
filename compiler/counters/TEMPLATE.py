"""`--backend NAME`: copy this file to add a counting backend, then add one line to
COUNTERS in counters/__init__.py. Nothing else changes: the command line's --backend
choices, the information sets and every strategy pick it up from the registry.

See base.py for what each method must do; only the three REQUIRED ones must be
written. A state is whatever this backend needs to hold the constraints and the
facts conjoined so far (immutable: conjoin returns a new one).
"""

from __future__ import annotations

from typing import Any

from sleuth.compiler.counters.base import Counter


class TemplateCounter(Counter):
    name = "template"  # the --backend name
    exact = True  # False for estimates; then override `guarantee`
    help = "one line for --help"

    @staticmethod
    def supported() -> bool:
        return True  # False when the optional library is missing

    def start(self) -> Any:
        raise NotImplementedError  # the constraints alone

    def conjoin(self, state: Any, *formulas: int) -> Any:
        raise NotImplementedError  # state and formulas

    def count(self, state: Any) -> int:
        raise NotImplementedError  # projected onto the secret's variables

    # OPTIONAL: marginals, counts, sample_ranks, list_ranks (see base.py)

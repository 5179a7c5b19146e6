"""The compiler's public API: the one module the solver (and every interface) imports.

    load_game(path) -> Game     a spec loaded, checked and compiled (kernels, spaces)
    Game                        hypotheses, query spaces, feedback kernels, likelihoods,
                                the symbolic space for counting backends
    errors                      SleuthError and its kinds, Loc (file:line:col)
    values                      show / coerce values as a person writes them
    types                       the static types a marginal or a value is read by

Everything else under `compiler/` is internal: the layering test
(tests/test_layering.py) checks that the solver imports nothing else.
Modules that pull in heavy optional libraries (pysdd, python-sat, Ganak)
stay behind functions here, so importing this module stays cheap.
"""

from __future__ import annotations

from typing import Any

from sleuth.compiler import ir
from sleuth.compiler.check import CheckedAction
from sleuth.compiler.counters import COUNTERS, Counter, counter_class
from sleuth.compiler.domains import Domain, domain_size, set_elements, show_value
from sleuth.compiler.enumerate import Budget, rank_of
from sleuth.compiler.errors import (
    BudgetError,
    EvaluationError,
    Loc,
    ObservationError,
    SleuthError,
    SpecError,
    did_you_mean,
)
from sleuth.compiler.game import Game, load_game, load_game_text, parse_overrides
from sleuth.compiler.interpret import evaluate as interpret
from sleuth.compiler.ir import BoolT, EnumT, IntT, RecordT, SeqT, SetT, position_name
from sleuth.compiler.library import bundled_specs, spec_path
from sleuth.compiler.likelihood import (
    answer_is_legal,
    answer_likelihood,
    answer_matrix,
    answer_value,
)
from sleuth.compiler.memo import Memo, memoised
from sleuth.compiler.source import Document, scalar_value
from sleuth.compiler.values import coerce, coerce_text


def diagram_count(diagram: Any) -> int:
    """The model count of a decision diagram of the symbolic space."""
    from sleuth.compiler.sdd import count

    return count(diagram)


def projected_count(clauses: list[list[int]], top: int, secret_vars: int,
                    seconds: float) -> int | None:
    """Ganak's count of the clauses' models projected onto the secret's variables
    (None if it gives none within `seconds`)."""
    from sleuth.compiler.cnf import projected_count as ganak

    return ganak(clauses, top, secret_vars, seconds)


__all__ = [
    "COUNTERS", "BoolT", "Budget", "BudgetError", "CheckedAction", "Counter", "Document",
    "Domain", "EnumT", "EvaluationError", "Game", "IntT", "Loc", "Memo", "ObservationError",
    "RecordT", "SeqT", "SetT", "SleuthError", "SpecError", "answer_is_legal",
    "answer_likelihood", "answer_matrix", "answer_value", "bundled_specs", "coerce",
    "coerce_text", "counter_class", "diagram_count", "did_you_mean", "domain_size",
    "interpret", "ir", "load_game", "load_game_text", "memoised", "parse_overrides",
    "position_name", "projected_count", "rank_of", "scalar_value", "set_elements",
    "show_value", "spec_path",
]

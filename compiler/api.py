"""The compiler's public API: the one module the solver (and every interface) imports.

    load_game(path) -> Game     a spec loaded, checked and compiled (kernels, spaces)
    in_child(step) -> Ending    a step in a forked child, under a time and memory cap
    crash(what, end)            the error for a child that crashed or died
    PlanFormula                 k queries as unknowns (a static plan for a SAT solver)
    Game                        hypotheses, query spaces, feedback kernels, likelihoods,
                                the symbolic space for counting backends
    errors                      SleuthError and its kinds, Loc (file:line:col)
    values                      show / coerce values as a person writes them
    types                       the static types a marginal or a value is read by
    parallel                    the one policy for compiled parallel code (threads or not)
    compiling                   whether compiled code is being compiled (to say so)

Everything else under `compiler/` is internal: the layering test
(tests/test_layering.py) checks that the solver imports nothing else.
Nothing here loads the heavy libraries (pysdd, python-sat, Ganak, ApproxMC):
the symbolic space and the counters import them on first use.
"""

from __future__ import annotations

from sleuth.compiler import compiling, ir, parallel
from sleuth.compiler.check import CheckedAction
from sleuth.compiler.counters import COUNTERS, Counter
from sleuth.compiler.domains import (
    Domain,
    domain_size,
    domain_values,
    held_value,
    multiset_table,
    set_elements,
    show_value,
    subset_ranks,
    translate_ranks,
    unrank,
)
from sleuth.compiler.enumerate import Budget, rank_of
from sleuth.compiler.errors import (
    BackendError,
    BudgetError,
    EvaluationError,
    Loc,
    ObservationError,
    SleuthError,
    SpecError,
    did_you_mean,
    option,
    said,
    speak_as,
)
from sleuth.compiler.game import Game, load_game, load_game_text, parse_overrides
from sleuth.compiler.guard import (
    SLACK_MB,
    Ending,
    add_reporter,
    crash,
    in_child,
    reporting,
    resident_cap,
)
from sleuth.compiler.interpret import evaluate as interpret
from sleuth.compiler.invariance import (
    legality_interchangeable,
    positions_interchangeable,
    values_interchangeable,
)
from sleuth.compiler.ir import BoolT, EnumT, IntT, RecordT, SeqT, SetT, StrT, position_name
from sleuth.compiler.library import bundled_specs, landing_spec, spec_path
from sleuth.compiler.likelihood import (
    answer_is_legal,
    answer_likelihood,
    answer_matrix,
    answer_value,
)
from sleuth.compiler.memo import Memo, memoised
from sleuth.compiler.query_plans import PlanFormula
from sleuth.compiler.rules import TURN
from sleuth.compiler.source import Document, scalar_value
from sleuth.compiler.values import coerce, coerce_text

__all__ = [
    "COUNTERS", "BackendError", "BoolT", "Budget", "BudgetError", "CheckedAction", "Counter",
    "Document", "Ending", "PlanFormula", "SLACK_MB", "add_reporter", "resident_cap",
    "crash", "held_value", "in_child",
    "Domain", "EnumT", "EvaluationError", "Game", "IntT", "Loc", "Memo", "ObservationError",
    "RecordT", "SeqT", "SetT", "SleuthError", "SpecError", "answer_is_legal",
    "answer_likelihood", "answer_matrix", "answer_value", "bundled_specs", "coerce",
    "landing_spec",
    "coerce_text", "did_you_mean", "option", "said", "speak_as", "domain_size", "domain_values",
    "compiling", "interpret", "ir", "parallel",
    "legality_interchangeable", "load_game", "load_game_text", "memoised", "multiset_table",
    "parse_overrides", "reporting",
    "position_name", "positions_interchangeable", "rank_of", "scalar_value", "set_elements",
    "show_value", "spec_path", "StrT", "TURN", "subset_ranks", "translate_ranks", "unrank",
    "values_interchangeable",
]

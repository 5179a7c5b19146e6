"""Sleuth's compiler: spec text -> checked game model -> backends.

The solver imports only `api.py`. The pipeline, one module per stage:

    source.py        YAML with positions (every scalar knows its file:line:col)
    library.py       the bundled specs, found by name
    grammar.lark     the expression language (LALR)
    parse.py         expression text -> untyped IR (a lark Transformer; pass 1)
    ir.py            IR nodes and static types
    spec.py          the YAML mapping -> a Spec (params, domains, secret, queries, ...)
    hidden.py        hidden params: a param that is part of the secret, with a prior
    forms.py         the likelihood forms (uniform, weight, density, probability)
    declarations.py  domains, enums and data tables
    resolve.py       name resolution and def inlining (pass 2)
    infer.py         types, static integer bounds and dependencies (pass 3)
    typerules.py     the type rules the checker and the builtins share
    check.py         scopes and the checked Model (runs passes 2 and 3)
    builtins/        the registry: every builtin's type rule, meaning, kernel and lowering
    interpret.py     reference interpreter (plain Python, one point at a time)
    arrays.py        array helpers of the kernels
    vectorise.py     numpy kernels compiled from the typed IR
    domains.py       finite domains: canonical order, encoding to integers
    enumerate.py     hypothesis table, query space, feedback codes, partitions
    likelihood.py    P(answer | hypothesis) for `response` queries
    circuit.py       formulas: a hash-consed DAG of gates
    symvalues.py     symbolic values and their algebra
    encoding.py      the secret as one-hot groups
    boolean.py       expressions lowered to symbolic values (the lowering pass)
    sdd.py, cnf.py   the two boolean targets: decision diagram, clauses
    symbolic.py      SymbolicSpace: the hypotheses in boolean form
    guard.py         C-library steps in a child process under the memory budget
    counters/        counting backends behind one interface (sdd, cnf, approx)
    memo.py          the one cache mechanism
    game.py          load_game(path) -> Game: everything above, ready for a solver
    values.py        values a person types, checked against domains and types
    api.py           the public API
"""

from sleuth.compiler.errors import BudgetError, EvaluationError, Loc, SleuthError, SpecError
from sleuth.compiler.game import Budget, Game, load_game

__all__ = [
    "Budget",
    "BudgetError",
    "EvaluationError",
    "Game",
    "Loc",
    "SleuthError",
    "SpecError",
    "load_game",
]

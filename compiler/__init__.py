"""Sleuth's compiler: spec text -> checked game model -> backends.

The pipeline, one module per stage:

    source.py      YAML with positions (every scalar knows its file:line:col)
    grammar.lark   the expression language (LALR)
    parse.py       expression text -> untyped IR (a lark Transformer; pass 1)
    ir.py          IR nodes and static types
    domains.py     finite domains: canonical order, encoding to integers
    spec.py        the YAML mapping -> a Spec (params, domains, secret, queries, ...)
    resolve.py     name resolution and def inlining (pass 2)
    infer.py       types, static integer bounds and dependencies (pass 3)
    check.py       domains, scopes, the checked Model (runs passes 2 and 3)
    interpret.py   reference interpreter (plain Python, one point at a time)
    vectorise.py   numpy kernels compiled from the typed IR
    enumerate.py   hypothesis table, query space, feedback codes, partitions
    game.py        load(path) -> Game: everything above, ready for a solver
    values.py      values a person types, checked against domains and types
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

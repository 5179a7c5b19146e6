"""Fuzzing the compiler: generated expressions and mutated spec files.

Whatever the input, loading a spec (and, when it loads, building its
hypotheses and evaluating some feedback) either succeeds or raises Sleuth's
own error type (SleuthError: SpecError, EvaluationError, BudgetError) --
never any other exception.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from sleuth.compiler import Budget, SleuthError
from sleuth.compiler.game import Game, load_game_text

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = (ROOT / "compiler" / "grammar.lark").read_text()
SPECS = {p.stem: p.read_text() for p in sorted((ROOT / "specs").glob("*.yaml"))}
BUDGET = Budget(max_hypotheses=20_000, memory_mb=32)
FUZZ = settings(max_examples=100, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

BASE = """\
game: Fuzz
params: {n: 3, label: hi}
domains:
  D: {range: "1..n"}
  Kind: {enum: [heavy, light]}
secret:
  code: {seq: D, len: n}
  kind: Kind
  s: {set: D}
queries:
  guess:
    args: {g: {seq: D, len: n}, k: Kind, t: {set: D, size: "0..2"}}
    feedback: |-
      EXPR
"""
NAMES = ["code", "kind", "s", "g", "k", "t", "n", "label", "D", "Kind", "heavy", "light",
         "i", "j", "x", "true", "false", "count", "sum", "min", "max", "size", "abs", "first",
         "exists", "forall", "disjoint", "union", "alldifferent", "int", "float", "sqrt",
         "onehot", "prod", "zz"]
TERMINALS = {
    "NAME": st.sampled_from(NAMES),
    "INT": st.integers(0, 12).map(str),
    "FLOAT": st.sampled_from(["0.5", "1.0", "2.5e0"]),
    "STRING": st.sampled_from(['"a"', "'heavy'", '"left"']),
    "WS": st.just(" "),
}


def grammar_strategy() -> st.SearchStrategy[str]:
    """from_lark over the expression grammar, biased towards short expansions.

    from_lark picks each rule's expansions uniformly; most of ours recurse,
    so drawn trees would grow without bound and overrun. Repeating the
    shortest expansion of every rule keeps the expected tree finite without
    changing which strings can be drawn.
    """
    lazy = from_lark(Lark(GRAMMAR, parser="lalr"), explicit=TERMINALS)
    strategy = lazy.wrapped_strategy
    for name, expansions in list(strategy.nonterminal_strategies.items()):
        options = list(expansions.elements)
        strategy.nonterminal_strategies[name] = st.sampled_from(options[:1] * 6 + options)
    return strategy.map(lambda s: s.replace("\n", " "))


EXPRESSIONS = grammar_strategy()


def exercise(game: Game) -> None:
    """Use a loaded game the way a user would: hypotheses, legal queries, feedback."""
    hyps = game.hypotheses
    for action in game.model.queries:
        space = game.space(action.name)
        ranks = next(space.legal_ranks(chunk=64), np.array([], dtype=np.int64))[:4]
        if action.feedback is None or len(ranks) == 0:
            continue
        game.feedback_matrix(action.name, ranks, np.arange(min(hyps.size, 50)))
        game.reference_feedback(action.name, space.value(int(ranks[0])), hyps.value(0))


def load_and_exercise(text: str, file: str) -> None:
    try:
        exercise(load_game_text(text, file, budget=BUDGET))
    except SleuthError:
        pass


@pytest.mark.slow
@FUZZ
@given(expr=EXPRESSIONS)
def test_generated_expressions_give_results_or_sleuth_errors(expr):
    load_and_exercise(BASE.replace("EXPR", expr), "fuzz.yaml")


def test_generated_expressions_reach_the_kernels():
    """The generator is not just producing rejects: of 60 expressions it draws (the same 60
    each run), several compile and run through the kernels, and several are refused."""
    drawn: list[str] = []
    ran: list[str] = []

    @settings(FUZZ, max_examples=60, database=None)
    @given(expr=EXPRESSIONS)
    def draw(expr):
        drawn.append(expr)
        try:
            exercise(load_game_text(BASE.replace("EXPR", expr), "fuzz.yaml", budget=BUDGET))
            ran.append(expr)
        except SleuthError:
            pass

    draw()
    assert len(set(drawn)) >= 40
    assert 5 <= len(set(ran)) < len(set(drawn))


def mutate(text: str, ops: list[tuple[str, int, int]]) -> str:
    for op, a, b in ops:
        if not text:
            break
        i, j = a % len(text), b % len(text)
        lines = text.split("\n")
        li = a % len(lines)
        if op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "swap":
            chars = list(text)
            chars[i], chars[j] = chars[j], chars[i]
            text = "".join(chars)
        elif op == "copy":
            text = text[:i] + text[j] + text[i:]
        elif op == "dup_line":
            text = "\n".join(lines[:li + 1] + [lines[li]] + lines[li + 1:])
        elif op == "drop_line":
            text = "\n".join(lines[:li] + lines[li + 1:])
        elif op == "token":
            token = ["0", "99", "-1", "..", "(", ")", "[", "]", "{", "}", ":", "no", "'",
                     '"', "#", " ", "\t", "if", "for", "x", "1e9", "**"][b % 22]
            text = text[:i] + token + text[i:]
    return text


MUTATIONS = st.lists(st.tuples(
    st.sampled_from(["delete", "swap", "copy", "dup_line", "drop_line", "token"]),
    st.integers(0, 10**6), st.integers(0, 10**6)), min_size=1, max_size=4)


@pytest.mark.slow
@FUZZ
@given(name=st.sampled_from(sorted(SPECS)), ops=MUTATIONS)
def test_mutated_spec_files_give_results_or_sleuth_errors(name, ops):
    load_and_exercise(mutate(SPECS[name], ops), f"{name}.yaml")


@pytest.mark.slow
@settings(FUZZ, max_examples=1000)
@given(name=st.sampled_from(sorted(SPECS)), ops=MUTATIONS)
def test_mutated_spec_files_give_results_or_sleuth_errors_long(name, ops):
    load_and_exercise(mutate(SPECS[name], ops), f"{name}.yaml")


# -- the command line: whatever the spec, an exit status and a message, never a traceback

CLI_ARGS = st.sampled_from([["check"], ["info", "--json"], ["check", "--json"],
                            ["info", "--backend", "sdd"]])


def run_cli(tmp: Path, text: str, name: str, args: list[str]) -> None:
    """`sleuth ARGS SPEC` in process; it must end in SystemExit 0 or 1 (a SleuthError
    becomes 'error: ...' and status 1); any other exception fails the test."""
    from sleuth.solver.interfaces.cli import main

    path = tmp / f"{name}.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(SystemExit) as done:
        main([args[0], str(path), *args[1:], "--max-hypotheses", "20000", "--memory-mb", "64"])
        raise SystemExit(0)
    assert done.value.code in (0, 1, None)


CLI_FUZZ = settings(FUZZ, max_examples=25)


@CLI_FUZZ
@given(name=st.sampled_from(sorted(SPECS)), ops=MUTATIONS, args=CLI_ARGS)
def test_command_line_on_mutated_specs_never_gives_a_traceback(tmp_path_factory, name, ops,
                                                               args):
    run_cli(tmp_path_factory.mktemp("cli"), mutate(SPECS[name], ops), name, args)


@pytest.mark.slow
@settings(FUZZ, max_examples=200)
@given(name=st.sampled_from(sorted(SPECS)), ops=MUTATIONS, args=CLI_ARGS)
def test_command_line_on_mutated_specs_never_gives_a_traceback_long(tmp_path_factory, name,
                                                                    ops, args):
    run_cli(tmp_path_factory.mktemp("cli"), mutate(SPECS[name], ops), name, args)


@CLI_FUZZ
@given(expr=EXPRESSIONS)
def test_command_line_on_generated_expressions_never_gives_a_traceback(tmp_path_factory,
                                                                       expr):
    run_cli(tmp_path_factory.mktemp("cli"), BASE.replace("EXPR", expr), "fuzz", ["check"])

"""Fuzzing issue 30's syntax: `lies:` (its budget and `allowed` rule), label-or-number
feedback, `max_queries` naming a param, and history rules, generated with hypothesis.

Whatever is drawn, loading the spec and running what a user would run on it -- the
hypotheses, the feedback, the false answers of a lie, the exact search against the
liar (small games only) -- succeeds or raises Sleuth's own error; and the command line
answers with status 0 or 1, never a traceback."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.compiler import SleuthError
from sleuth.compiler.game import load_game_text
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from tests.test_fuzz import BUDGET, EXPRESSIONS, FUZZ, exercise

SPEC = """\
game: Rules
params: {n: 3, e: 1, limit: 4, label: hi}
domains:
  D: {range: "1..n"}
secret:
  x: D
queries:
  ask:
    args: {s: {set: D}}
    HISTORY
    feedback: FEEDBACK
LIES
goal: {max_queries: LIMIT}
"""
# each list: valid choices first, repeated so that about one draw in four is invalid
BUDGETS = ["0", "1", "2", "e"] * 2 + ["-1", "1.5", "x", "[1]", "n", "lies", "'1'"]
ALLOWED = ["\"said.feedback != feedback\"", "\"true\"", "\"said.feedback == 'no'\""] * 3 + [
    "\"said.x == 1\"", "\"feedback\"", "\"said\"", "\"abs(said.feedback - feedback) == 1\"",
    "[1, 2]", "{a: 1}", "\"x in s\"", "\"before.s == s\""]
FEEDBACKS = ["\"x in s\"", "\"if x in s then 'yes' else count(s)\"",
             "\"if x in s then 'yes' else 'no'\"", "\"if x in s then 1 else 'far'\"",
             "\"count(s) + x\"", "\"if x in s then 'yes' else x\"", "\"[x in s, 'a']\""]
HISTORIES = ["", "history: \"s != before.s\"", "history: \"before.feedback == before.feedback\""
             ] * 3 + ["history: \"x == 1\"", "history: \"before.zz\"", "history: [1]"]
LIMITS = ["4", "limit", "2"] * 3 + ["label", "0", "zz", "e"]


@st.composite
def rule_specs(draw: st.DrawFn) -> str:
    lies = draw(st.sampled_from(["", "lies: {budget: BUDGET}", "lies: {budget: BUDGET, "
                                 "allowed: ALLOWED}"] * 3 + [
        "lies: {allowed: ALLOWED}", "lies: 3", "lies: {budget: BUDGET, extra: 1}"]))
    allowed = draw(st.one_of(st.sampled_from(ALLOWED), st.sampled_from(ALLOWED),
                             st.sampled_from(ALLOWED), EXPRESSIONS.map(repr)))
    lies = lies.replace("BUDGET", draw(st.sampled_from(BUDGETS))).replace(
        "ALLOWED", allowed.replace("'", "\"") if allowed.startswith("'") else allowed)
    feedback = draw(st.one_of(st.sampled_from(FEEDBACKS), st.sampled_from(FEEDBACKS),
                              st.sampled_from(FEEDBACKS), EXPRESSIONS.map(
        lambda e: "\"if x in s then 'yes' else " + e.replace('"', "'") + "\"")))
    return (SPEC.replace("HISTORY", draw(st.sampled_from(HISTORIES)))
            .replace("FEEDBACK", feedback).replace("LIES", lies)
            .replace("LIMIT", draw(st.sampled_from(LIMITS))))


def use(text: str) -> None:
    try:
        game = load_game_text(text, "rules.yaml", budget=BUDGET)
        exercise(game)
        if game.model.lies is not None:
            for action in game.model.queries:
                game.false_answers(action.name, list(range(min(game.coder(action.name).size,
                                                               4))))
        strategy = make_strategy("optimal-worst", Candidates(game))
        if game.model.lies is not None:
            strategy.search.least_depth(strategy.search.lies.root())
    except SleuthError:
        pass


@FUZZ
@given(text=rule_specs())
def test_rule_specs_give_results_or_sleuth_errors(text):
    use(text)


@pytest.mark.slow
@settings(FUZZ, max_examples=1000)
@given(text=rule_specs())
def test_rule_specs_give_results_or_sleuth_errors_long(text):
    use(text)


@settings(FUZZ, max_examples=30)
@given(text=rule_specs(), command=st.sampled_from([
    ["check"], ["info", "--json"], ["evaluate", "--strategy", "optimal-worst"],
    ["evaluate", "--strategy", "entropy"]]))
def test_the_command_line_never_gives_a_traceback(tmp_path_factory, text, command):
    from sleuth.solver.interfaces.cli import main

    path = tmp_path_factory.mktemp("rules") / "rules.yaml"
    path.write_text(text)
    with pytest.raises(SystemExit) as done:
        main([command[0], str(path), *command[1:], "--max-hypotheses", "20000"])
        raise SystemExit(0)
    assert done.value.code in (0, 1, None)


def test_the_generator_reaches_every_construct():
    """Of the specs drawn, some load with lies, some with a union feedback, some with a
    history rule, and some are refused -- the generator is not just making rejects."""
    seen: dict[str, int] = {"lies": 0, "union": 0, "history": 0, "refused": 0}

    @settings(FUZZ, max_examples=150, database=None)
    @given(text=rule_specs())
    def draw(text):
        try:
            game = load_game_text(text, "rules.yaml", budget=BUDGET)
        except SleuthError:
            seen["refused"] += 1
            return
        action = game.model.queries[0]
        seen["lies"] += game.model.lies is not None
        seen["union"] += type(action.feedback[0][2].type).__name__ == "UnionT"
        seen["history"] += bool(action.history)

    draw()
    assert min(seen.values()) >= 3, seen

"""Rules over a game's course rather than one query: how long a game may run (`goal:
max_queries`), how many of its answers may be false (`lies:`) and how its queries group
into rounds (`rounds:`).

    max_queries   a number, or an int param's name (so `--set` changes it)
    lies          `budget`: at most that many answers in a whole game are false, chosen
                  by an adversary who knows the strategy; `allowed` (optional): a
                  condition on the true feedback (its components by name) and the
                  answer given instead (`said`, a record of the same components) that a
                  false answer must meet -- by default any other value the query can
                  give is allowed. A lie is a property of the answerer, not of the
                  secret: the hypotheses stay the secret's, and each carries how many
                  lies its answers have used (solver/infoset/lies.py).
    cover         a condition on a query's arguments and feedback: a secret's game ends
                  once every query it holds for (on that secret) has been asked. The
                  player learns which those are as the game goes; once the hypotheses
                  left agree on them, the rest are asked in turn (solver/infoset/cover.py).
    rounds        `share`: arguments every query has; consecutive queries that give them
                  the same values form one round, of at most `most` queries (both
                  optional, one needed). A game with rounds is scored by rounds, then by
                  queries (solver/infoset/rounds.py counts them).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sleuth.compiler import ir
from sleuth.compiler.domains import Domain, range_domain
from sleuth.compiler.errors import Loc, SpecError, did_you_mean, option
from sleuth.compiler.ir import RecordT
from sleuth.compiler.resolve import Binding

if TYPE_CHECKING:
    from sleuth.compiler.check import CheckedAction


SAID = "<said>"  # the uid `said` (the answer a lie gives) is bound to
TURN = "turn"  # the query's position in the game (1-based): an implicit argument
TURNS = 20  # the turns a query that reads `turn` ranges over without a goal max_queries


def always(node: ir.Node, value: bool) -> bool:
    """Whether a condition is `value` whatever its names' values, params being constants
    by now: `not hard or ...` is always true when the param hard is false."""
    match node:
        case ir.Const(value=constant):
            return constant is value
        case ir.Binary(op="or" | "and"):
            # `and` is true (`or` false) only when both sides are; else one side decides
            sides = (always(node.left, value), always(node.right, value))
            return all(sides) if node.op == ("and" if value else "or") else any(sides)
        case ir.Unary(op="not"):
            return always(node.operand, not value)
    return False


@dataclass
class Lies:
    """At most `budget` false answers in a game; `false[action]`, when present, the
    condition a false answer to that action must meet."""

    budget: int
    false: dict[str, ir.Node] = field(default_factory=dict)
    loc: Loc | None = None


def param_count(value: Any, params: dict[str, Any], what: str, least: int) -> int:
    """A count given as a number or as an int param's (name, place), checked >= least."""
    if not isinstance(value, tuple):
        return value
    name, loc = value
    if name not in params:
        raise SpecError(f"{what} names '{name}', which is not a param", loc,
                        hint=did_you_mean(name, list(params))
                        or "give a number, or declare the param under `params`")
    got = params[name]
    if not isinstance(got, int) or isinstance(got, bool) or got < least:
        raise SpecError(f"{what} is the param '{name}' = {got!r}, not a whole number >= "
                        f"{least}", loc, hint=f'{option("set", f"{name}={max(least, 1)}")}, say')
    return got


def reads_turn(action: Any, taken: set[str]) -> bool:
    """Whether an action's expressions (legal, let, feedback, history) name `turn`, and
    nothing else in the spec is called so (a param, a secret variable, an argument)."""
    if TURN in taken:
        return False
    nodes = list(action.legal) + list(action.history) + [e for _, e in action.lets]
    nodes += [e for _, e in action.feedback or []]
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Name) and node.name == TURN:
            return True
        stack.extend(ir.children(node))
    return False


def turn_domain(action: Any, args: list[Any], taken: set[str],
                turns: int | None) -> Domain | None:
    """The domain of the implicit `turn` argument an action gets when its expressions
    read the turn (1..max_queries, TURNS without one); None when they do not. An argument
    may not be named `turn`: query text and forms leave that name out, as the engine
    fills it in."""
    for a in args:
        if a.name == TURN:
            raise SpecError(f"an argument named '{TURN}' of '{action.name}': `turn` is the "
                            "query's place in the game, which the engine fills in", a.loc,
                            hint="read `turn` in the expressions, or rename the argument")
    return range_domain(1, turns or TURNS) if reads_turn(action, taken) else None


def said_type(feedback: list[tuple[str, str, ir.Node]]) -> RecordT:
    """The type of `said` in a false-answer rule: a feedback's components."""
    return RecordT(tuple((name, node.type) for name, _, node in feedback))


def check_lies(checker: Any, queries: list[CheckedAction]) -> Lies | None:
    """The spec's `lies:`, checked: the budget a count, the false-answer rule a condition
    on each action's true feedback and `said`, for every query with feedback."""
    decl = checker.spec.lies
    if decl is None:
        return None
    budget = param_count(decl.budget, checker.params, "the lie budget", 0)
    spec = checker.spec
    if spec.goal.stop_when is not None or spec.goal.confidence is not None:
        raise SpecError("a game whose answers may lie ends when the secret is known "
                        "(goal: identify); stop_when and confidence read an answer that "
                        "may be the lie", decl.loc, hint="drop stop_when / confidence")
    random = [q.name for q in queries if q.feedback is None]
    if random or spec.observations:
        raise SpecError(f"lies apply to queries with feedback; "
                        f"'{(random or [spec.observations[0].name])[0]}' has none",
                        decl.loc, hint="a response's randomness is its likelihood already")
    out = Lies(budget, {}, decl.loc)
    if decl.false is None:
        return out
    base = checker.global_scope()
    for q in queries:
        scope = dict(base)
        for name, uid, node in q.feedback or []:
            scope[name] = Binding("local", node.type, frozenset(), uid)
        scope["said"] = Binding("local", said_type(q.feedback or []), frozenset(), SAID)
        node = checker.boolean(decl.false, scope, "the false-answer rule")
        if not always(node, True):  # a param may switch the rule off (any answer, then)
            out.false[q.name] = node
    return out


def check_cover(checker: Any, queries: list[CheckedAction]) -> dict[str, ir.Node] | None:
    """The goal's `cover`, typed per query with its arguments and feedback components in
    scope (as stop_when is); None without one."""
    expr = checker.spec.goal.cover
    if expr is None:
        return None
    random = [q.name for q in queries if q.feedback is None]
    if random or checker.spec.lies is not None or checker.spec.rounds is not None:
        raise SpecError("a goal with cover needs queries with feedback, and no lies or rounds",
                        expr.loc, hint=f"'{random[0]}' has random answers" if random else
                        "drop lies: / rounds:")
    ruled = [q for q in queries if q.history or q.timed]
    if ruled:
        # once the cover is settled, its queries not asked yet are counted as asked, one
        # each, in no order and with no course of the game: a rule that reads that course
        # would have to allow them, and the count would be wrong where it does not
        q = ruled[0]
        rule = "history" if q.history else "turn"
        raise SpecError(f"a goal with cover counts the cover's last queries without playing "
                        f"them, so no query may have a rule that reads the game's course; "
                        f"'{q.name}' reads its {rule}", expr.loc,
                        hint=f"drop the {rule} rule of '{q.name}', or end the game with "
                             f"stop_when")
    out = {}
    for q in queries:
        local = dict(checker.global_scope())
        for a in q.args:
            local[a.name] = Binding("arg", a.domain.type, frozenset({ir.ROW}), a.name)
        for name, uid, node in q.feedback or []:  # (a given answer: no secret in it)
            local[name] = Binding("local", node.type, frozenset(), uid)
        node = checker.boolean(copy.deepcopy(expr), local, "cover")
        if ir.HYP in node.deps:
            raise SpecError("cover reads the secret; it may read the query's arguments and "
                            "feedback only", expr.loc, hint='e.g. cover: "hit"')
        out[q.name] = node
    return out


@dataclass
class Rounds:
    """The checked `rounds:`: the arguments a round's queries share, and its size."""

    share: tuple[str, ...]
    most: int | None
    loc: Loc


def check_rounds(checker: Any, queries: list[CheckedAction]) -> Rounds | None:
    """The spec's `rounds:`, checked: each shared name an argument of every query."""
    decl = checker.spec.rounds
    if decl is None:
        return None
    most = None if decl.most is None else param_count(decl.most, checker.params,
                                                      "a round's most", 1)
    for name, loc in decl.share:
        for q in queries:
            names = [a.name for a in q.args if a.name != TURN]
            if name not in names:
                raise SpecError(f"a round shares '{name}', which is not an argument of "
                                f"query '{q.name}'", loc,
                                hint=did_you_mean(name, names)
                                or "every query needs the arguments a round shares")
    if len({n for n, _ in decl.share}) != len(decl.share):
        raise SpecError("rounds' share repeats an argument", decl.loc)
    return Rounds(tuple(n for n, _ in decl.share), most, decl.loc)


__all__ = ["SAID", "TURN", "TURNS", "Lies", "Rounds", "always", "check_cover", "check_lies",
           "check_rounds",
           "param_count", "reads_turn", "said_type", "turn_domain"]

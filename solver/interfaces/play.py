"""Interactive decision support: suggest a query, read what the real game answered.

Each turn shows what remains (hypotheses, entropy, the most likely ones) and
the strategy's suggestion. The person types the feedback (or answer) they got
for it, or one of:

    play QUERY ARGS   play a different query (its feedback comes next)
    undo              forget the last step (a solved game stays open for it)
    show              the marginals of every secret variable
    help, quit

Every step is saved to the session file before the next prompt, so an
interrupted session resumes where it stopped. Input and output are passed
in, so the loop runs the same from a terminal, a pipe or a test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from sleuth.compiler.api import Game, SleuthError, show_value
from sleuth.solver.infoset.belief import Belief, check_history
from sleuth.solver.infoset.cover import Cover
from sleuth.solver.infoset.goals import ambiguous, ended, goal_values
from sleuth.solver.infoset.observe import (
    Event,
    apply_event,
    count_text,
    format_value,
    hypothesis_text,
    query_text,
)
from sleuth.solver.infoset.queries import AnyBelief, Query, Stopper, has_stop
from sleuth.solver.interfaces.reading import parse_outcome_text, parse_query_text
from sleuth.solver.interfaces.session import Session
from sleuth.solver.strategies import Strategy
from sleuth.solver.wording import counted, plural

Reader = Callable[[str], "str | None"]


class Play:
    """The state of a play session: session steps, the belief, the pending query."""

    def __init__(self, game: Game, strategy: Strategy, session: Session, console: Console,
                 as_json: bool = False, root: AnyBelief | None = None):
        self.game = game
        self.strategy = strategy
        self.session = session
        self.console = console
        self.as_json = as_json
        self.stop_game = has_stop(game)
        self.stops = Stopper(game)
        self.beliefs: list[AnyBelief] = [
            strategy.prepared(Belief.prior(game) if root is None else root)]
        self.events: list[Event] = []
        self.solved = False
        for event in session.events(game):
            self._apply(event)

    @property
    def belief(self) -> AnyBelief:
        return self.beliefs[-1]

    def _apply(self, event: Event) -> None:
        self.beliefs.append(self.strategy.prepared(apply_event(self.belief, event)))
        self.events.append(event)
        self.solved = self._solved_by(event)

    def _solved_by(self, event: Event) -> bool:
        return ended(self.game, self.belief, event, self.stops)

    # -- the loop

    def run(self, read: Reader) -> int:
        """Play until quit or end of input; returns the exit status. A solved game stays
        open: a wrong winning feedback can still be undone."""
        if self.events:
            self.say(f"resumed {counted(len(self.events), 'step')} from {self.session.path}")
        pending: Query | None = None
        announced = False
        while True:
            if self.solved:
                if not announced:
                    self.finish()
                    announced = True
                prompt = "solved (undo, show, help or quit) > "
            else:
                announced = False
                if pending is None:
                    self.show_state()
                    pending = self.choose()
                    self.suggest(pending)
                prompt = f"{query_text(pending.action, self.strategy.candidates.args(pending))} -> "
            line = read(prompt)
            if line is None:
                self.say(self._saved("input ended"))
                return 0
            line = line.strip()
            if not line:
                continue
            word = line.split()[0].lower()
            try:
                if word in ("quit", "exit"):
                    self.say(self._saved("bye"))
                    return 0
                if word == "help":
                    self.say(self.help_text(pending))
                elif word == "undo":
                    self.undo()
                    pending = None
                elif word == "show":
                    self.show_marginals()
                elif self.solved:
                    raise SleuthError(f"the game is solved: '{word}' needs an open game",
                                      hint="undo (if the last feedback was wrong), or quit")
                elif word == "play":
                    action, args = parse_query_text(self.game, line.split(None, 1)[1]
                                                    if " " in line else "",
                                                    turn=len(self.belief.history) + 1)
                    rank = self.game.space(action).rank(args)
                    check_history(self.game, Event(action, args), rank, self.belief.history)
                    pending = Query(action, rank)
                else:
                    args = self.strategy.candidates.args(pending)
                    try:
                        self.record(parse_outcome_text(self.game, pending.action, args, line))
                    except SleuthError as err:
                        can = self.occurring_text(pending)
                        if can:  # the values that can still occur, not the static bounds
                            err.hint = "; ".join(x for x in (can, err.hint) if x)
                        raise
                    pending = None
            except SleuthError as err:
                self.say(f"error: {err}")

    def occurring(self, query: Query) -> list[dict[str, Any]]:
        """The feedbacks the query can still get, most frequent first ([] when the belief is
        not listed, or the query has random answers)."""
        listed = self.belief.listing()
        if listed is None or self.game.model.action(query.action).feedback is None:
            return []
        counts = self.game.partition_counts(query.action, np.array([query.rank]),
                                            listed.index)[0]
        coder = self.game.coder(query.action)
        return [coder.decode(int(c)) for c in np.argsort(-counts, kind="stable")
                if counts[c] > 0]

    def occurring_text(self, query: Query) -> str:
        seen: dict[str, set] = {}
        for feedback in self.occurring(query):
            for k, v in feedback.items():
                seen.setdefault(k, set()).add(v)
        parts = []
        for k, values in seen.items():
            numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
            ordered = sorted(values) if numbers else sorted(values, key=str)
            if numbers and len(ordered) > 2 and \
                    ordered == list(range(ordered[0], ordered[-1] + 1)):
                parts.append(f"{k} {ordered[0]}..{ordered[-1]}")
            else:
                shown = [str(format_value(v)) for v in ordered[:10]]
                text = shown[0] if len(shown) == 1 else \
                    ", ".join(shown[:-1]) + " or " + shown[-1]
                parts.append(f"{k} {text}" + (" ..." if len(ordered) > 10 else ""))
        return "this query can still give " + ", ".join(parts) if parts else ""

    def help_text(self, pending: Query | None) -> str:
        """Every command, each with an example drawn from this game."""
        query = pending or self.choose()
        args = self.strategy.candidates.args(query)
        action = self.game.model.action(query.action)
        if action.feedback is not None:
            likely = self.occurring(query)
            example = likely[0] if likely else self.game.coder(query.action).decode(0)
            positional = " ".join(str(format_value(v)) for v in example.values())
            named = " ".join(f"{k}={format_value(v)}" for k, v in example.items())
            outcome = f"the feedback, e.g. '{positional}' or '{named}'"
        else:
            outcome = "the answer you were given, e.g. one value of " \
                      f"{action.response.answer.domain.describe()}"
        rows = [
            ("FEEDBACK", f"{outcome} (for the query at the prompt)"),
            ("play QUERY ARGS",
             f"play another query, e.g. 'play {query_text(query.action, args)}'"),
            ("undo", "take back the last step, also the one that solved the game"),
            ("show", "the marginals of every secret variable"),
            ("help", "this list"),
            ("quit", "stop; the session file (--session) keeps every step"),
        ]
        return "commands:\n" + "\n".join(f"  {k:<16} {v}" for k, v in rows)

    def choose(self) -> Query:
        if self.console.is_terminal and not self.as_json:
            with self.console.status(f"{self.strategy.name}: choosing a query"):
                return self.strategy.choose(self.belief)
        return self.strategy.choose(self.belief)

    def record(self, event: Event) -> None:
        before = self.belief
        self._apply(event)  # raises, leaving everything as it was, if impossible
        self.session.append(event)
        gain = self.belief.kl_bits(before)
        left = self.belief.size
        self.say(f"recorded {event.describe()}: {left:,} {plural(left, 'remains')}, "
                 f"{gain:.3f} bits gained")

    def undo(self) -> None:
        if not self.events:
            self.say("nothing to undo")
            return
        event = self.events.pop()
        self.beliefs.pop()
        self.session.undo()
        self.solved = False
        self.say(f"undone: {event.describe()}")

    def finish(self) -> None:
        n = len(self.events)
        _, p = self.belief.goal_posterior(self.game.model.identify)
        rest = [] if self.game.model.cover is None else Cover.of(self.game).forced(self.belief)
        then = [query_text(q.action, self.strategy.candidates.args(q)) for q in rest]
        if self.as_json:
            self.emit({"solved": True, "queries": n, "secret": self._known(), "posterior": p,
                       **({"then": then} if then else {})})
            return
        if then:  # goal: {cover}: known now, still to ask
            self.console.print(f"the rest is known: {counted(len(then), 'query')} to ask, "
                               f"{'; '.join(then)}")
        known = hypothesis_text(self.game, self._known())
        sure = f" (posterior {p:.4f})" if p < 1 else ""
        if ambiguous(self.belief, self.game) and self.game.model.confidence is None:
            left = goal_values(self.belief, self.game)
            self.console.print(Text.assemble(
                ("over", "bold yellow"), f" after {count_text(n)}: no query tells the last "
                f"{left} apart; the first is {known}{sure}"))
            return
        self.console.print(Text.assemble(("solved", "bold green"),
                                         f" in {count_text(n)}: {known}{sure}"))

    def _known(self) -> dict[str, Any]:
        value, _ = self.belief.goal_posterior(self.game.model.identify)
        return {k: show_value(v) for k, v in value.items()}

    def _saved(self, why: str) -> str:
        where = f"; session saved to {self.session.path}" if self.session.path else ""
        return f"{why}{where}"

    # -- output

    def say(self, text: str, plain: str | None = None) -> None:
        if self.as_json:
            self.emit({"message": plain or text})
        else:
            self.console.print(text, highlight=False)

    def emit(self, data: dict[str, Any]) -> None:
        self.console.print(json.dumps(data), highlight=False, soft_wrap=True)

    def show_state(self) -> None:
        b = self.belief
        if self.as_json:
            self.emit({"step": len(self.events), "remaining": b.size,
                       "entropy_bits": b.entropy_bits(),
                       "top": [{"hypothesis": {k: show_value(v) for k, v in h.items()},
                                "p": p} for h, p in b.top(5)]})
            return
        noun = "hypothesis remains" if b.size == 1 else "hypotheses remain"
        self.console.print(Text.assemble((f"{b.size:,}", "bold"), f" {noun}, entropy "
                                         f"{b.entropy_bits():.3f} bits"))
        if b.size <= 5 or not b.uniform:
            for h, p in b.top(5):
                text = hypothesis_text(self.game, h)
                self.console.print(f"  {p:7.2%}  {text}", highlight=False)

    def suggest(self, query: Query) -> None:
        args = self.strategy.candidates.args(query)
        if self.as_json:
            self.emit({"suggestion": {"query": query.action,
                                      "args": {k: show_value(v) for k, v in args.items()}}})
        else:
            self.console.print(Text.assemble(f"suggested ({self.strategy.name}): ",
                                             (query_text(query.action, args), "bold")))

    def show_marginals(self) -> None:
        marginals = self.belief.marginals()
        if self.as_json:
            self.emit({"marginals": {k: {format_value(v): p for v, p in m.items()}
                                     for k, m in marginals.items()}})
            return
        self.console.print(marginal_table(marginals))


def marginal_table(marginals: dict[str, dict[Any, float]]) -> Table:
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("variable")
    table.add_column("value")
    table.add_column("p", justify="right")
    table.add_column("")
    for name, dist in marginals.items():
        first = True
        for value, p in dist.items():
            table.add_row(name if first else "", format_value(value), f"{p:.4f}",
                          "#" * round(p * 30))
            first = False
    return table


SUMMARY_ROWS = 30  # a full marginal table longer than this is summarised first
TOP_VALUES = 3


def marginal_summary(marginals: dict[str, dict[Any, float]]) -> list[Any]:
    """What a large posterior comes to, as printable parts: the settled variables on one
    line; each open variable's most likely values; and, where several variables range over
    the same values (who holds each card), each value's most likely variables."""
    settled = {n: v for n, d in marginals.items() for v, p in d.items() if p > 1 - 1e-12}
    parts: list[Any] = []
    if settled:
        parts.append("settled: " + ", ".join(f"{n} = {format_value(v)}"
                                             for n, v in settled.items()))
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("open variable")
    table.add_column("most likely values")
    for name, dist in marginals.items():
        if name in settled:
            continue
        ranked = sorted(((p, v) for v, p in dist.items() if p > 0), key=lambda t: -t[0])
        shown = "   ".join(f"{format_value(v)} {p:.3f}" for p, v in ranked[:TOP_VALUES])
        more = len(ranked) - TOP_VALUES
        table.add_row(name, shown + (f"   (+{more} more)" if more > 0 else ""))
    if table.row_count:
        parts.append(table)
    by_value = _by_value(marginals, settled)
    if by_value is not None:
        parts.append(by_value)
    return parts


def _by_value(marginals: dict[str, dict[Any, float]], settled: dict[str, Any]) -> Table | None:
    """For values shared by four variables or more: the variables most likely to take each."""
    groups: dict[tuple, list[str]] = {}
    for name, dist in marginals.items():
        groups.setdefault(tuple(sorted(map(str, dist))), []).append(name)
    names = max(groups.values(), key=len)
    if len(names) < 4:
        return None
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("value")
    table.add_column("most likely held by (open variables)")
    for value in marginals[names[0]]:
        ranked = sorted(((marginals[n].get(value, 0.0), n) for n in names if n not in settled),
                        key=lambda t: -t[0])
        ranked = [(p, n) for p, n in ranked if p > 0][:TOP_VALUES]
        if ranked:
            table.add_row(format_value(value), "   ".join(f"{n} {p:.3f}" for p, n in ranked))
    return table


def table_rows(marginals: dict[str, dict[Any, float]]) -> int:
    return sum(len(d) for d in marginals.values())


__all__ = ["Play", "marginal_summary", "marginal_table", "table_rows"]

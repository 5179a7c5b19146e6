"""What the commands share: spec loading options, the backend option, the strategy
options (derived from the strategies' declarations), consoles and progress."""

from __future__ import annotations

from contextlib import contextmanager
from functools import cache
from typing import Any

import click

from sleuth.compiler.api import (
    SLACK_MB,
    Budget,
    Game,
    SleuthError,
    add_reporter,
    load_game,
    parse_overrides,
)
from sleuth.solver.infoset.backends import BACKENDS, backend_help
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    Option,
    Strategy,
    applicable,
    make_strategy,
    option_table,
)

OVERRIDE_HELP = "Override a spec param, e.g. --set pegs=5 (repeatable)."


def load(spec: str, overrides: tuple[str, ...], max_hypotheses: int, memory_mb: int,
         data_anywhere: bool = False) -> Game:
    waiting_line()
    budget = Budget(max_hypotheses=max_hypotheses, memory_mb=memory_mb)
    return load_game(spec, parse_overrides(overrides), budget, data_anywhere)


def split(kwargs: dict[str, Any]) -> tuple[Game, dict[str, Any]]:
    """The game named by a command's spec options, and the command's other options."""
    game = load(kwargs.pop("spec_path"), kwargs.pop("overrides"), kwargs.pop("max_hypotheses"),
                kwargs.pop("memory_mb"), kwargs.pop("data_anywhere"))
    return game, kwargs


def game_options(fn):
    """The SPEC argument with load_options: every command that loads a spec."""
    return click.argument("spec", type=click.Path(dir_okay=False))(load_options(fn))


def budget_options(fn):
    """--max-hypotheses and --memory-mb."""
    fn = click.option("--memory-mb", type=click.IntRange(16), default=Budget.memory_mb,
                      show_default=True,
                      help="Memory budget (MiB) for feedback blocks and for the "
                           "decision-diagram library; given to evaluate, also a cap on "
                           f"its whole process (plus {SLACK_MB} MiB).")(fn)
    return click.option("--max-hypotheses", type=click.IntRange(1),
                        default=Budget.max_hypotheses, show_default=True,
                        help="Largest hypothesis space the enumerated backend builds.")(fn)


def load_options(fn):
    """--set, --max-hypotheses, --memory-mb and --data-anywhere."""
    fn = click.option("--data-anywhere", is_flag=True,
                      help="Let the spec read data files outside its own folder.")(fn)
    fn = budget_options(fn)
    return click.option("--set", "overrides", multiple=True, metavar="NAME=VALUE",
                        help=OVERRIDE_HELP)(fn)


def backend_option(fn):
    return click.option("--backend", type=click.Choice(BACKENDS), default=None,
                        help=backend_help())(fn)


def _click_type(option: Option) -> Any:
    if option.choices is not None:
        return click.Choice(list(option.choices))
    if option.kind is int:
        return click.IntRange(option.minimum, option.maximum, min_open=option.open_min) \
            if option.minimum is not None else int
    if option.kind is float:
        return click.FloatRange(option.minimum, min_open=option.open_min) \
            if option.minimum is not None else float
    return option.kind


def strategy_options(fn):
    """--strategy, --guesses, --seed, and one flag per option any strategy declares."""
    for key, (option, users) in reversed(list(option_table().items())):
        default = "" if option.default is None else f" [default: {option.default}]"
        fn = click.option(option.flag, f"strategy_{key}", type=_click_type(option),
                          default=None,
                          help=f"{', '.join(users)}: {option.help}.{default}")(fn)
    fn = click.option("--seed", type=int, default=0, show_default=True,
                      help="Seed for every random choice.")(fn)
    fn = click.option("--guesses", type=click.Choice(["any", "consistent"]), default="any",
                      show_default=True,
                      help="Choose among all legal queries, or only possible secrets.")(fn)
    return click.option("--strategy", type=click.Choice(list(STRATEGIES)),
                        default=DEFAULT_STRATEGY, show_default=True,
                        help="How to choose the next query.")(fn)


def make_from_options(game: Game, opts: dict[str, Any]) -> Strategy:
    """The strategy a command's options ask for. A flag the chosen strategy does not
    declare is an error, not silently ignored."""
    given = {k.removeprefix("strategy_"): opts.pop(k) for k in list(opts)
             if k.startswith("strategy_")}
    given = {k: v for k, v in given.items() if v is not None}
    name = opts["strategy"]
    unused = sorted(set(given) - set(applicable(name, given)))
    if unused:
        flags = ", ".join("--" + k.replace("_", "-") for k in unused)
        takes = ", ".join(o.flag for o in STRATEGIES[name].options().values())
        raise SleuthError(f"{flags} does not apply to --strategy {name}",
                          hint=f"{name} takes {takes or 'no options'}")
    strategy = make_strategy(name, Candidates(game, opts["guesses"]), opts["seed"], **given)
    notes = strategy.notes()
    if notes:
        console = make_console(stderr=True)
        for note in notes:
            console.print(f"note: {note}.")
    return strategy


def make_console(stderr: bool = False):
    """Plain text (no markup in user values); wide when not on a terminal."""
    from rich.console import Console

    probe = Console(stderr=stderr)
    return Console(stderr=stderr, markup=False, highlight=False,
                   width=None if probe.is_terminal else max(probe.width, 120))


PAIRS_PER_SECOND = 4e7  # a first decision's scoring rate, measured on MM(5,6) and MM(5,7)
SLOW_SECONDS = 10.0


def warn_if_slow(strategy: Strategy, belief: Any) -> float | None:
    """Say up front, on stderr, when one decision will take long; the estimate (s)."""
    pairs = strategy.decision_pairs(belief)
    if pairs is None:
        return None
    seconds = pairs / PAIRS_PER_SECOND
    if seconds > SLOW_SECONDS:
        console = make_console(stderr=True)
        console.print(f"note: each decision of {strategy.name} scores about {pairs:.2g} "
                      f"query x hypothesis pairs here: about {_duration(seconds)} for the "
                      f"first, at ~{PAIRS_PER_SECOND:.0e} pairs/s. For a decision in about a "
                      f"second, use --strategy ises-sampled --budget 1.")
    return seconds


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def terminal_stderr() -> Any:
    """A rich Console on stderr when it is a terminal (as rich decides), else None. When
    stderr is no tty and neither TTY_COMPATIBLE=1 nor FORCE_COLOR is set, rich would say
    no: then it is not imported, sparing a piped command rich's import."""
    import os
    import sys

    isatty = getattr(sys.stderr, "isatty", None)  # (as rich reads it)
    try:
        tty = bool(isatty and isatty())
    except ValueError:  # (a closed stream)
        tty = False
    if not tty and os.environ.get("TTY_COMPATIBLE") != "1" and "FORCE_COLOR" not in os.environ:
        return None
    from rich.console import Console

    console = Console(stderr=True)
    return console if console.is_terminal else None


@contextmanager
def status_line():
    """A spinner with a message on stderr (only on a terminal); yields `update(text)`."""
    console = terminal_stderr()
    if console is None:
        yield lambda text: None
        return
    with console.status("working") as status:
        yield lambda text: status.update(text)


@cache
def waiting_line() -> WaitingLine:
    """The command line's one WaitingLine, told of every long guarded step."""
    line = WaitingLine()
    add_reporter(line)
    return line


class WaitingLine:
    """What the command line shows of a long step in a child process (a diagram compiled,
    a Ganak count): a spinner with its time on a terminal; elsewhere one line on stderr
    once it has taken LATE seconds, so a slow step is never silent."""

    LATE = 5.0

    def __init__(self) -> None:
        self.console: Any = None  # made at the first step reported (rich is imported then)
        self.status: Any = None
        self.said = False

    def __call__(self, what: str, seconds: float | None) -> None:
        if seconds is None:  # the step ended
            if self.status is not None:
                self.status.stop()
            self.status, self.said = None, False
            return
        text = f"{what}: {seconds:.0f} s so far (Ctrl-C stops it)"
        if self.console is None:
            from rich.console import Console

            self.console = Console(stderr=True)
        if not self.console.is_terminal:
            if seconds >= self.LATE and not self.said:
                self.console.print(text, highlight=False, soft_wrap=True)
                self.said = True
        elif self.status is None:
            self.status = self.console.status(text)
            self.status.start()
        else:
            self.status.update(text)


@contextmanager
def stage_progress():
    """A progress bar through stages of work (only on a terminal): yields
    `update(stage, done, total)`, which names the stage and moves the bar."""
    console = terminal_stderr()
    if console is None:
        yield lambda stage, done, total: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("working", total=None)
        yield lambda stage, done, total: progress.update(task, description=stage,
                                                         completed=done, total=total)


@contextmanager
def progress_bar(total: int, what: str):
    """A progress bar on stderr for long work (only on a terminal); yields `advance(n)`."""
    console = terminal_stderr()
    if console is None:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task(what, total=total)
        yield lambda n: progress.advance(task, n)

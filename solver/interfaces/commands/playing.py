"""`sleuth solve`, `sleuth belief` and `sleuth play`: one game, a posterior, decision support."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click
import numpy as np

from sleuth.compiler.api import SleuthError, show_value
from sleuth.solver.evaluation.transcript import SECRET_STREAM, play_secret
from sleuth.solver.infoset.backends import choose_backend, lists_hypotheses, prior_belief
from sleuth.solver.infoset.observe import (
    apply_event,
    count_text,
    feedback_text,
    format_value,
    hypothesis_text,
    query_text,
)
from sleuth.solver.interfaces.options import (
    backend_option,
    game_options,
    load_options,
    make_console,
    make_from_options,
    split,
    status_line,
    strategy_options,
    warn_if_slow,
)
from sleuth.solver.interfaces.play import (
    SUMMARY_ROWS,
    Play,
    marginal_summary,
    marginal_table,
    table_rows,
)
from sleuth.solver.interfaces.reading import parse_secret, read_observations
from sleuth.solver.interfaces.session import Session
from sleuth.solver.wording import counted, plural


@click.command()
@game_options
@backend_option
@strategy_options
@click.option("--secret", "secret", multiple=True, metavar="NAME=VALUE",
              help="The hidden secret, e.g. --secret code=1122 (repeat for each variable).")
@click.option("--random-secret", is_flag=True,
              help="Draw the secret at random (by the prior), from --seed.")
@click.option("--max-steps", type=click.IntRange(1), default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def solve(spec: str, secret: tuple[str, ...], random_secret: bool, max_steps: int,
          as_json: bool, **kwargs: Any) -> None:
    """Play one game of SPEC against a secret (given, or drawn) and print the transcript."""
    if bool(secret) == random_secret:
        raise click.UsageError("give the secret (--secret NAME=VALUE) or --random-secret")
    game, opts = split({"spec_path": spec, **kwargs})
    backend = choose_backend(game, opts["backend"])
    strategy = make_from_options(game, opts)
    root = prior_belief(game, backend)
    if random_secret:  # its own stream of the seed: not the strategy's
        drawn = root.draw(1, np.random.default_rng([opts["seed"], SECRET_STREAM]))
        secret_game, index = drawn.game, int(drawn.index[0])
    else:
        secret_game, index = parse_secret(game, secret, listed=lists_hypotheses(backend))
    warn_if_slow(strategy, root)
    with status_line() as update:
        t = play_secret(game, strategy, index, opts["seed"], max_steps,
                        progress=lambda k: update(f"{strategy.name}: choosing query {k}"),
                        root=root, secret_game=secret_game)
    if as_json:
        click.echo(json.dumps({"spec": spec, "strategy": strategy.name, "backend": backend,
                               "guesses": opts["guesses"], **t.to_json()}, indent=2))
        return
    from rich.table import Table
    from rich.text import Text

    console = make_console()
    known = ", ".join(f"{k} = {format_value(v)}" for k, v in t.secret.items())
    console.print(Text.assemble((game.name, "bold"), f", secret {known}, strategy {strategy.name}: "
                  f"{counted(t.start_hypotheses, 'hypothesis')}, {t.start_entropy_bits:.3f} bits"))
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("#", "query", "outcome", "remaining", "entropy", "gained"):
        table.add_column(col, justify="right" if col in ("#", "remaining", "entropy",
                                                          "gained") else "left")
    for k, step in enumerate(t.steps, 1):
        table.add_row(str(k), step.event.query_text(), step.event.outcome_text(),
                      f"{step.remaining:,}", f"{step.entropy_bits:.3f}",
                      f"{step.information_bits:.3f}")
    console.print(table)
    if t.left > 1:
        console.print(f"over after {count_text(len(t.steps))}: no query tells the last "
                      f"{t.left} apart")
    else:
        used = count_text(len(t.steps)) + ("" if t.rounds is None else
                                           f", {counted(t.round_count or 0, 'round')}")
        console.print(f"solved in {used}" if t.solved else f"not solved after {used}")
    if t.guess is not None:
        guess = ", ".join(f"{k} = {format_value(v)}" for k, v in t.guess.items())
        console.print(f"final guess {guess} with posterior {t.posterior:.4f} "
                      f"({'right' if t.correct else 'wrong'})")


@click.command()
@game_options
@backend_option
@click.option("--observations", "observations", default=None,
              type=click.Path(dir_okay=False),
              help="YAML list of {query, args, feedback | answer} (none: the prior).")
@click.option("--top", type=click.IntRange(0), default=5, show_default=True,
              help="How many of the most likely hypotheses to list.")
@click.option("--all", "show_all", is_flag=True,
              help="The full marginal table, even when it is long (else a summary).")
@click.option("--queries", "show_queries", is_flag=True,
              help="Each query's chance of each feedback (a search board's heat map).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def belief(spec: str, observations: str | None, top: int, show_all: bool, show_queries: bool,
           as_json: bool, backend: str | None, **kwargs: Any) -> None:
    """Posterior of SPEC's secret after the observations in a file."""
    game, _ = split({"spec_path": spec, **kwargs})
    backend = choose_backend(game, backend)
    current = prior_belief(game, backend)
    steps = []
    for event in read_observations(game, observations) if observations else []:
        start = time.perf_counter()
        after = apply_event(current, event)
        steps.append({**event.to_data(), "remaining": after.size,
                      "entropy_bits": after.entropy_bits(),
                      "information_bits": after.kl_bits(current),
                      "seconds": round(time.perf_counter() - start, 4)})
        current = after
    chances = None
    if show_queries:
        start = time.perf_counter()
        chances = query_chances(game, current)
        queries_seconds = round(time.perf_counter() - start, 4)
    if as_json:
        start = time.perf_counter()
        marginals = current.marginals()
        data = {
            "spec": spec, "backend": backend, "hypotheses": current.size,
            "entropy_bits": current.entropy_bits(),
            "marginal_seconds": round(time.perf_counter() - start, 4),
            "marginals": {k: {format_value(v): p for v, p in m.items()}
                          for k, m in marginals.items()},
            "observations": steps,
            "top": [{"hypothesis": {k: show_value(v) for k, v in h.items()}, "p": p}
                    for h, p in current.top(top)],
        }
        if chances is not None:
            data["queries"] = chances
            data["queries_seconds"] = queries_seconds
        click.echo(json.dumps(data, indent=2))
        return
    from rich.text import Text

    # What is shown, in the order it is shown, each computed when its turn comes: the
    # counts first (on a counting backend the marginals are one count per value).
    console = make_console()
    console.print(Text.assemble((game.name, "bold"), f": {len(steps)} observations, "
                  f"{counted(current.size, 'hypothesis')} {plural(current.size, 'remains')}, "
                  f"{current.entropy_bits():.4f} bits"))
    for k, s in enumerate(steps, 1):
        ev = read_outcome_text(s)
        console.print(f"  {k}. {ev}: {s['remaining']:,} {plural(s['remaining'], 'remains')}, "
                      f"{s['information_bits']:.4f} bits gained")
    marginals = current.marginals()
    if show_all or table_rows(marginals) <= SUMMARY_ROWS:
        console.print(marginal_table(marginals))
    else:
        for part in marginal_summary(marginals):
            console.print(part)
        console.print(f"(a summary of {table_rows(marginals):,} marginal rows: --all "
                      f"prints them all)")
    for h, p in current.top(top):
        console.print(f"  {p:7.2%}  " + hypothesis_text(game, h))
    if chances is not None:
        console.print(f"each query's chance of each feedback ({queries_seconds:.2f} s):")
        for row in chances:
            shown = query_text(row["query"], row["args"])
            console.print(f"  {shown}: " + ", ".join(f"{k} {p:.4f}"
                                                    for k, p in row["feedback"].items()))


def query_chances(game: Any, belief: Any) -> list[dict[str, Any]]:
    """Each legal query (as JSON) with its chance of each feedback (by its text)."""
    from sleuth.solver.infoset.answers import feedback_chances, feedback_dict
    from sleuth.solver.infoset.queries import Candidates

    candidates = Candidates(game)
    return [{**candidates.shown(q),
             "feedback": {feedback_text(feedback_dict(game, q.action, k)): p
                          for k, p in sorted(chances.items(), key=lambda kv: repr(kv[0]))}}
            for q, chances in feedback_chances(belief, candidates)]


HISTORY = "~/.sleuth_history"


def enable_line_editing() -> None:
    """Line editing and history at the prompt (readline, where Python has it), kept across
    sessions in ~/.sleuth_history."""
    import atexit
    import os

    try:
        import readline
    except ImportError:  # Windows without pyreadline: plain input
        return
    path = os.path.expanduser(HISTORY)
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    readline.set_history_length(1000)

    def save() -> None:
        try:
            readline.write_history_file(path)
        except OSError:
            pass

    atexit.register(save)


def read_outcome_text(step: dict[str, Any]) -> str:
    outcome = (feedback_text(step["feedback"]) if "feedback" in step
               else format_value(step["answer"]))
    return f"{query_text(step['query'], step['args'])} -> {outcome}"


@click.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
@load_options
@backend_option
@strategy_options
@click.option("--session", "session_path", type=click.Path(dir_okay=False), default=None,
              help="Save every step here; resume from it if it exists (then SPEC may be "
                   "left out: the file names its spec and params).")
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of tables.")
def play(spec: str | None, session_path: str | None, as_json: bool, **kwargs: Any) -> None:
    """Decision support while playing SPEC for real: suggests queries, reads feedback."""
    if spec is None:
        if session_path is None or not Path(session_path).exists():
            raise SleuthError("play needs SPEC, or --session FILE of a game already saved "
                              "(the file names its spec)",
                              hint="e.g. sleuth play SPEC --session game.json")
        spec, params = Session.spec_of(session_path)
        kwargs["overrides"] = tuple(f"{k}={json.dumps(v)}" for k, v in params.items()) + \
            tuple(kwargs["overrides"])
    game, opts = split({"spec_path": spec, **kwargs})
    strategy = make_from_options(game, opts)
    session = Session.open(session_path, game, spec)

    console = make_console()
    root = prior_belief(game, choose_backend(game, opts["backend"]))
    state = Play(game, strategy, session, console, as_json, root)
    interactive = sys.stdin.isatty()
    if interactive:
        enable_line_editing()

    def read(prompt: str) -> str | None:
        if interactive:
            try:
                return console.input(prompt)
            except EOFError:
                return None
        line = sys.stdin.readline()
        if not line:
            return None
        if not as_json:
            console.print(f"{prompt}{line.rstrip()}", highlight=False)
        return line

    try:
        status = state.run(read)
    except KeyboardInterrupt:
        where = f"; session saved to {session.path}" if session.path else ""
        click.echo(f"interrupted{where}", err=True)
        sys.exit(130)
    sys.exit(status)



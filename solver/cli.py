"""The `sleuth` command line (DESIGN §6). Errors become one message and exit status 1."""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from compiler.domains import show_value
from compiler.enumerate import Budget
from compiler.errors import SleuthError
from compiler.game import Game, load_game, parse_overrides
from solver.analysis import SAMPLE_ABOVE, SAMPLE_SIZE
from solver.analysis import analyse as run_analysis
from solver.bench import make_tasks, parse_spec_sizes, size_label
from solver.bench import run as run_tasks
from solver.bench import summarise as summarise_bench
from solver.bench import write_outputs as write_bench
from solver.counted import prior_belief
from solver.evaluate import evaluate_strategy
from solver.observe import (
    apply_event,
    count_text,
    feedback_text,
    format_value,
    query_text,
    read_observations,
)
from solver.play import Play, marginal_table
from solver.queries import Candidates
from solver.report import write_report
from solver.session import Session, write_atomically
from solver.strategies import STRATEGIES, Strategy, make_strategy
from solver.summary import BACKENDS, choose_backend, summarise
from solver.transcript import parse_secret, play_secret

OVERRIDE_HELP = "Override a spec param, e.g. --set pegs=5 (repeatable)."


def _load(spec: str, overrides: tuple[str, ...], max_hypotheses: int, memory_mb: int) -> Game:
    budget = Budget(max_hypotheses=max_hypotheses, memory_mb=memory_mb)
    return load_game(spec, parse_overrides(overrides), budget)


def game_options(fn):
    """--set, --max-hypotheses and --memory-mb, shared by every command that loads a spec."""
    fn = click.option("--memory-mb", type=click.IntRange(16), default=Budget.memory_mb,
                      show_default=True, help="Memory budget for feedback blocks.")(fn)
    fn = click.option("--max-hypotheses", type=click.IntRange(1),
                      default=Budget.max_hypotheses, show_default=True,
                      help="Largest hypothesis space the enumerated backend builds.")(fn)
    fn = click.option("--set", "overrides", multiple=True, metavar="NAME=VALUE",
                      help=OVERRIDE_HELP)(fn)
    return click.argument("spec", type=click.Path(dir_okay=False))(fn)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sleuth")
def cli() -> None:
    """Sleuth: deduction games as specs, compiled and solved."""


def backend_option(fn):
    return click.option("--backend", type=click.Choice(BACKENDS), default=None,
                        help="enum (list the hypotheses), sdd (decision diagram) or cnf "
                             "(clauses counted by Ganak); default: enum when the secret's "
                             "assignments fit --max-hypotheses, else sdd.")(fn)


@cli.command()
@game_options
@backend_option
def check(spec: str, overrides: tuple[str, ...], max_hypotheses: int, memory_mb: int,
          backend: str | None) -> None:
    """Validate SPEC and print a summary."""
    game = _load(spec, overrides, max_hypotheses, memory_mb)
    print_summary(summarise(game, spec, choose_backend(game, backend)))


@cli.command()
@game_options
@backend_option
@click.option("--observations", type=click.Path(dir_okay=False), default=None,
              help="Report the hypotheses left after these observations.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def info(spec: str, overrides: tuple[str, ...], max_hypotheses: int, memory_mb: int,
         backend: str | None, observations: str | None, as_json: bool) -> None:
    """Hypotheses, entropy, queries and backend of SPEC (after OBSERVATIONS, if given)."""
    game = _load(spec, overrides, max_hypotheses, memory_mb)
    backend = choose_backend(game, backend)
    summary = summarise(game, spec, backend)
    if observations:
        current = prior_belief(game, backend)
        events = read_observations(game, observations)
        for event in events:
            current = apply_event(current, event)
        summary.update(observations=len(events), hypotheses=current.size,
                       entropy_bits=current.entropy_bits())
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        print_summary(summary)


def make_console(stderr: bool = False) -> Console:
    """Plain text (no markup in user values); wide when not on a terminal."""
    probe = Console(stderr=stderr)
    return Console(stderr=stderr, markup=False, highlight=False,
                   width=None if probe.is_terminal else max(probe.width, 120))


def print_summary(s: dict[str, Any]) -> None:
    console = make_console()
    console.print(Text.assemble((s["game"], "bold"), f" ({s['spec']}): OK"))
    secret = ", ".join(f"{k}: {v}" for k, v in s["secret"].items())
    console.print(f"secret       {secret}")
    console.print(f"hypotheses   {s['hypotheses']:,}   entropy {s['entropy_bits']:.4f} bits"
                  f"   prior {s['prior']}   backend {s['backend']}")
    size = ", ".join(f"{k.replace('_', ' ')} {v:,}" if isinstance(v, int) else f"{k} {v}"
                     for k, v in s["backend_size"].items())
    console.print(f"backend size {size}")
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    for col in ("action", "arguments", "legal", "feedback"):
        table.add_column(col)
    for kind in ("queries", "observations"):
        for a in s[kind]:
            args = ", ".join(f"{k}: {v}" for k, v in a["args"].items()) or "-"
            legal = (f"{a['legal']:,} of {a['arg_tuples']:,}" if a["legal"] is not None
                     else f"too many to enumerate ({a['arg_tuples']:,} argument tuples)")
            if "feedback" in a:
                values = (f"{a['feedback_values']} values" if a["feedback_values"] is not None
                          else f"at most {a['feedback_bound']:,} values")
                fb = f"{', '.join(a['feedback'])}: {values}"
            else:
                r = a["response"]
                fb = f"response {r['answer']} ({r['likelihood']})"
            name = a["name"] if kind == "queries" else f"{a['name']} (observation)"
            table.add_row(name, args, legal, fb)
    console.print(table)


@cli.command(name="compile")
@game_options
@click.option("--to", "target", type=click.Choice(["dimacs", "json"]), required=True,
              help="dimacs: the CNF with a 'c p show' projection line; json: the one-hot "
                   "variables and the sizes of both targets.")
@click.option("--observations", type=click.Path(dir_okay=False), default=None,
              help="Condition on these observations (deterministic feedback only).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write here instead of stdout (atomically).")
def compile_spec(spec: str, target: str, observations: str | None, output: str | None,
                 **kwargs: Any) -> None:
    """Compile SPEC (and observations) to boolean form for external tools."""
    game, _ = _split({"spec_path": spec, **kwargs})
    space = game.symbolic
    facts = [space.fact(e.action, e.args, e.feedback) for e in
             (read_observations(game, observations) if observations else [])
             if _deterministic(e)]
    cnf = space.clauses(*facts)
    if target == "dimacs":
        text = cnf.dimacs([f"{game.name} ({spec}), params {json.dumps(game.model.params)}",
                           f"models projected onto variables 1..{cnf.secret_vars} "
                           "(the secret's one-hot groups) are its hypotheses"])
    else:
        diagram = space.condition(space.base, *facts)
        text = json.dumps({"game": game.name, "spec": spec, "hypotheses": space.count(diagram),
                           "secret_variables": cnf.secret_vars, "variables": cnf.top,
                           "clauses": len(cnf.clauses), "diagram_nodes": diagram.size(),
                           "groups": [{**g, "values": [show_value(v) for v in g["values"]]}
                                      for g in space.describe()]}, indent=2) + "\n"
    if output:
        write_atomically(Path(output), text)
    else:
        click.echo(text, nl=False)


def _deterministic(event) -> bool:
    if event.feedback is None:
        raise SleuthError(f"{event.describe()}: a random answer cannot be compiled to boolean "
                          "form", event.loc, hint="the symbolic backend conditions on "
                                                  "deterministic feedback")
    return True


def strategy_options(fn):
    """--strategy, --guesses, --seed and the ises-sampled knobs."""
    fn = click.option("--budget", type=click.FloatRange(0.0, min_open=True), default=0.1,
                      show_default=True,
                      help="ises-sampled, ismcts: seconds per decision.")(fn)
    fn = click.option("--queries", "n_queries", type=click.IntRange(1), default=None,
                      help="ises-sampled: queries sampled per decision (default: all).")(fn)
    fn = click.option("--states", type=click.IntRange(1), default=1000, show_default=True,
                      help="ises-sampled: states sampled per decision.")(fn)
    fn = click.option("--seed", type=int, default=0, show_default=True,
                      help="Seed for every random choice.")(fn)
    fn = click.option("--guesses", type=click.Choice(["any", "consistent"]), default="any",
                      show_default=True,
                      help="Choose among all legal queries, or only possible secrets.")(fn)
    return click.option("--strategy", type=click.Choice(list(STRATEGIES)), default="entropy",
                        show_default=True, help="How to choose the next query.")(fn)


def _strategy(game: Game, opts: dict[str, Any]) -> Strategy:
    candidates = Candidates(game, opts["guesses"])
    extra = {}
    if opts["strategy"] == "ises-sampled":
        extra = {"states": opts["states"], "queries": opts["n_queries"],
                 "budget": opts["budget"]}
    elif opts["strategy"] == "ismcts":
        extra = {"states": opts["states"], "budget": opts["budget"]}
    return make_strategy(opts["strategy"], candidates, opts["seed"], **extra)


def _split(kwargs: dict[str, Any]) -> tuple[Game, dict[str, Any]]:
    game = _load(kwargs.pop("spec_path"), kwargs.pop("overrides"), kwargs.pop("max_hypotheses"),
                 kwargs.pop("memory_mb"))
    return game, kwargs


@cli.command()
@game_options
@backend_option
@strategy_options
@click.option("--secret", "secret", multiple=True, required=True, metavar="NAME=VALUE",
              help="The hidden secret, e.g. --secret code=1122 (repeat for each variable).")
@click.option("--max-steps", type=click.IntRange(1), default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def solve(spec: str, secret: tuple[str, ...], max_steps: int, as_json: bool,
          **kwargs: Any) -> None:
    """Play one game of SPEC against a known secret and print the transcript."""
    game, opts = _split({"spec_path": spec, **kwargs})
    backend = choose_backend(game, opts["backend"])
    strategy = _strategy(game, opts)
    secret_game, index = parse_secret(game, secret, listed=backend == "enum")
    with status_line() as update:
        t = play_secret(game, strategy, index, opts["seed"], max_steps,
                        progress=lambda k: update(f"{strategy.name}: choosing query {k}"),
                        root=prior_belief(game, backend), secret_game=secret_game)
    if as_json:
        click.echo(json.dumps({"spec": spec, "strategy": strategy.name, "backend": backend,
                               "guesses": opts["guesses"], **t.to_json()}, indent=2))
        return
    console = make_console()
    known = ", ".join(f"{k} = {format_value(v)}" for k, v in t.secret.items())
    console.print(Text.assemble((game.name, "bold"), f", secret {known}, strategy {strategy.name}: "
                  f"{t.start_hypotheses:,} hypotheses, {t.start_entropy_bits:.3f} bits"))
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("#", "query", "outcome", "remaining", "entropy", "gained"):
        table.add_column(col, justify="right" if col in ("#", "remaining", "entropy",
                                                          "gained") else "left")
    for k, step in enumerate(t.steps, 1):
        table.add_row(str(k), step.event.query_text(), step.event.outcome_text(),
                      f"{step.remaining:,}", f"{step.entropy_bits:.3f}",
                      f"{step.information_bits:.3f}")
    console.print(table)
    console.print(f"solved in {count_text(len(t.steps))}" if t.solved
                  else f"not solved after {count_text(len(t.steps))}")


@cli.command()
@game_options
@backend_option
@strategy_options
@click.option("--secrets", type=click.IntRange(1), default=None,
              help="Evaluate a seeded sample of this many secrets instead of all.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def evaluate(spec: str, secrets: int | None, as_json: bool, **kwargs: Any) -> None:
    """Play every secret of SPEC against a strategy (one tree over feedback partitions)."""
    game, opts = _split({"spec_path": spec, **kwargs})
    backend = choose_backend(game, opts["backend"])
    strategy = _strategy(game, opts)
    root = prior_belief(game, backend)
    total = min(secrets or root.size, root.size)
    with progress_bar(total, f"evaluating {strategy.name}") as advance:
        result = evaluate_strategy(game, strategy, spec, secrets, opts["seed"], advance, root)
    data = {**result.to_json(), "backend": backend}
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    console = make_console()
    first = data["first_query"]
    first_text = query_text(first["query"], first["args"]) if first else "-"
    console.print(Text.assemble((game.name, "bold"),
                                f": {strategy.name} (guesses {opts['guesses']}) "
                                f"over {data['secrets']:,} secrets in {data['seconds']:.2f} s"))
    console.print(f"total {data['total']:,}   average {data['average']:.4f} "
                  f"({data['average_fraction']})   worst {data['worst']}   "
                  f"first query {first_text}")
    peak = max(data["histogram"].values())
    for length, count in data["histogram"].items():
        bar = "#" * max(1, round(40 * count / peak))
        console.print(f"  {length:>3} queries {count:>8,}  {bar}")


@cli.command()
@game_options
@strategy_options
@click.option("--secrets", type=click.IntRange(1), default=None,
              help="Entropy per round over a seeded sample of this many secrets (default: "
                   f"all, or {SAMPLE_SIZE} when there are more than {SAMPLE_ABOVE:,}).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write the report (report.md, report.html, PNG and SVG plots) here.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def analyse(spec: str, secrets: int | None, out: str | None, as_json: bool,
            **kwargs: Any) -> None:
    """Is SPEC an interesting game? First moves, entropy per round, game lengths."""
    game, opts = _split({"spec_path": spec, **kwargs})
    strategy = _strategy(game, opts)
    with status_line() as update:
        update(f"analysing {game.name} with {strategy.name}")
        result = run_analysis(game, strategy, spec, secrets=secrets, seed=opts["seed"])
    data = result.to_json()
    if out:
        data["report"] = [str(p) for p in write_report(result, Path(out))]
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    console = make_console()
    console.print(Text.assemble((game.name, "bold"), f": {strategy.name}, "
                  f"{result.hypotheses:,} hypotheses, {result.entropy_bits:.4f} bits"))
    console.print(f"spatial interest {result.spatial:.4f} bits   temporal interest "
                  f"{result.temporal:.4f} bits   average {float(result.evaluation.average):.4f}"
                  f"   worst {result.evaluation.worst}")
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("first query", "like it", "expected entropy", "largest part", "parts"):
        table.add_column(col, justify="left" if col == "first query" else "right")
    for c in data["first_moves"]["classes"][:20]:
        table.add_row(query_text(c["example"]["query"], c["example"]["args"]),
                      f"{c['queries']:,}", f"{c['expected_entropy_bits']:.4f}",
                      f"{c['largest_part']:,}" if isinstance(c["largest_part"], int)
                      else f"{c['largest_part']:.4f}", str(c["parts"]))
    console.print(table)
    if out:
        console.print(f"report: {Path(out) / 'report.html'}")


@cli.command()
@click.argument("specs", nargs=-1, required=True, metavar="SPEC[@name=value,...]...")
@click.option("--strategies", default="entropy,ises-sampled,ismcts,random", show_default=True,
              help="Comma-separated strategies to compare.")
@click.option("--trials", type=click.IntRange(1), default=100, show_default=True,
              help="Seeded secrets per game (the same for every strategy).")
@click.option("--time-limit", type=click.FloatRange(0.0, min_open=True), default=0.1,
              show_default=True, help="Seconds per decision for ises-sampled and ismcts.")
@click.option("--set", "overrides", multiple=True, metavar="NAME=VALUE", help=OVERRIDE_HELP)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True,
              help="Local worker processes.")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Run the tasks on a Dask cluster, e.g. tcp://127.0.0.1:8786.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write results.csv, results.json and the plot here.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def bench(specs: tuple[str, ...], strategies: str, trials: int, time_limit: float,
          overrides: tuple[str, ...], seed: int, workers: int, scheduler: str | None,
          out: str | None, as_json: bool) -> None:
    """A tournament: strategies against the same seeded secrets of each SPEC (a size of it:
    SPEC@name=value,...)."""
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    for name in names:
        if name not in STRATEGIES:
            raise SleuthError(f"unknown strategy '{name}'",
                              hint=f"one of {', '.join(STRATEGIES)}")
    sized = parse_spec_sizes(specs, parse_overrides(overrides))  # all checked before work
    tasks = make_tasks(sized, names, trials, seed, time_limit)
    with progress_bar(len(tasks), "bench") as advance:
        results = run_tasks(tasks, workers, scheduler, advance)
    rows = summarise_bench(results)
    data: dict[str, Any] = {"trials": trials, "time_limit": time_limit, "seed": seed,
                            "summary": rows}
    if out:
        data["files"] = [str(p) for p in write_bench(rows, results, Path(out))]
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    console = make_console()
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("game", "strategy", "trials", "solved", "average", "95 %", "worst",
                "seconds"):
        table.add_column(col, justify="left" if col in ("game", "strategy") else "right")
    for r in rows:
        table.add_row(size_label(r), r["strategy"], str(r["trials"]), str(r["solved"]),
                      f"{r['average']:.3f}", f"±{r['ci95']:.3f}", str(r["worst"]),
                      f"{r['seconds']:.1f}")
    console.print(table)


@cli.command()
@game_options
@backend_option
@click.option("--observations", "observations", required=True,
              type=click.Path(dir_okay=False),
              help="YAML list of {query, args, feedback | answer}.")
@click.option("--top", type=click.IntRange(0), default=5, show_default=True,
              help="How many of the most likely hypotheses to list.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def belief(spec: str, observations: str, top: int, as_json: bool, backend: str | None,
           **kwargs: Any) -> None:
    """Posterior of SPEC's secret after the observations in a file."""
    game, _ = _split({"spec_path": spec, **kwargs})
    backend = choose_backend(game, backend)
    current = prior_belief(game, backend)
    steps = []
    for event in read_observations(game, observations):
        start = time.perf_counter()
        after = apply_event(current, event)
        steps.append({**event.to_data(), "remaining": after.size,
                      "entropy_bits": after.entropy_bits(),
                      "information_bits": after.kl_bits(current),
                      "seconds": round(time.perf_counter() - start, 4)})
        current = after
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
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    console = make_console()
    console.print(Text.assemble((game.name, "bold"), f": {len(steps)} observations, "
                  f"{current.size:,} hypotheses remain, {data['entropy_bits']:.4f} bits"))
    for k, s in enumerate(steps, 1):
        ev = read_outcome_text(s)
        console.print(f"  {k}. {ev}: {s['remaining']:,} remain, "
                      f"{s['information_bits']:.4f} bits gained")
    console.print(marginal_table(marginals))
    for h, p in current.top(top):
        console.print(f"  {p:7.2%}  " + ", ".join(f"{k} = {format_value(v)}"
                                                  for k, v in h.items()))


def read_outcome_text(step: dict[str, Any]) -> str:
    outcome = (feedback_text(step["feedback"]) if "feedback" in step
               else format_value(step["answer"]))
    return f"{query_text(step['query'], step['args'])} -> {outcome}"


@cli.command()
@game_options
@backend_option
@strategy_options
@click.option("--session", "session_path", type=click.Path(dir_okay=False), default=None,
              help="Save every step here; resume from it if it exists.")
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of tables.")
def play(spec: str, session_path: str | None, as_json: bool, **kwargs: Any) -> None:
    """Decision support while playing SPEC for real: suggests queries, reads feedback."""
    game, opts = _split({"spec_path": spec, **kwargs})
    strategy = _strategy(game, opts)
    session = Session.open(session_path, game, spec)
    console = make_console()
    root = prior_belief(game, choose_backend(game, opts["backend"]))
    state = Play(game, strategy, session, console, as_json, root)
    interactive = sys.stdin.isatty()

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


@contextmanager
def status_line():
    """A spinner with a message on stderr (only on a terminal); yields `update(text)`."""
    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda text: None
        return
    with console.status("working") as status:
        yield lambda text: status.update(text)


@contextmanager
def progress_bar(total: int, what: str):
    """A progress bar on stderr for long work (only on a terminal); yields `advance(n)`."""
    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task(what, total=total)
        yield lambda n: progress.advance(task, n)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; user errors print one message and exit with status 1."""
    try:
        cli.main(args=argv, prog_name="sleuth", standalone_mode=False)
    except SleuthError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as err:
        err.show()
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()

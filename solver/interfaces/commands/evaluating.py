"""`sleuth evaluate`, `sleuth analyse` and `sleuth bench`: strategies over many secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from sleuth.compiler.api import parse_overrides
from sleuth.solver.evaluation.analysis import SAMPLE_ABOVE, SAMPLE_SIZE
from sleuth.solver.evaluation.analysis import analyse as run_analysis
from sleuth.solver.evaluation.bench import make_tasks, parse_spec_sizes, size_label
from sleuth.solver.evaluation.bench import run as run_tasks
from sleuth.solver.evaluation.bench import summarise as summarise_bench
from sleuth.solver.evaluation.bench import write_outputs as write_bench
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.backends import choose_backend, prior_belief
from sleuth.solver.infoset.observe import query_text
from sleuth.solver.interfaces.options import (
    OVERRIDE_HELP,
    backend_option,
    game_options,
    make_console,
    make_from_options,
    progress_bar,
    split,
    status_line,
    strategy_options,
)
from sleuth.solver.strategies import TOURNAMENT, option_table, strategy_class


@click.command()
@game_options
@backend_option
@strategy_options
@click.option("--secrets", type=click.IntRange(1), default=None,
              help="Evaluate a seeded sample of this many secrets instead of all.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def evaluate(spec: str, secrets: int | None, as_json: bool, **kwargs: Any) -> None:
    """Play every secret of SPEC against a strategy (one tree over feedback partitions)."""
    game, opts = split({"spec_path": spec, **kwargs})
    backend = choose_backend(game, opts["backend"])
    strategy = make_from_options(game, opts)
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


@click.command()
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
    game, opts = split({"spec_path": spec, **kwargs})
    strategy = make_from_options(game, opts)
    with status_line() as update:
        update(f"analysing {game.name} with {strategy.name}")
        result = run_analysis(game, strategy, spec, secrets=secrets, seed=opts["seed"])
    data = result.to_json()
    if out:
        from sleuth.solver.evaluation.report import write_report  # loads matplotlib

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


@click.command()
@click.argument("specs", nargs=-1, required=True, metavar="SPEC[@name=value,...]...")
@click.option("--strategies", default=",".join(TOURNAMENT), show_default=True,
              help="Comma-separated strategies to compare.")
@click.option("--trials", type=click.IntRange(1), default=100, show_default=True,
              help="Seeded secrets per game (the same for every strategy).")
@click.option("--time-limit", type=click.FloatRange(0.0, min_open=True), default=0.1,
              show_default=True,
              help=f"Seconds per decision for {', '.join(option_table()['budget'][1])}.")
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
        strategy_class(name)  # an unknown name is an error before any work
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



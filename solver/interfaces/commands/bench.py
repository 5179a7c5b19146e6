"""`sleuth bench`: a tournament of strategies over seeded secrets, locally or on Dask."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sleuth.compiler.api import Budget, parse_overrides
from sleuth.solver.evaluation.bench import make_tasks, parse_spec_sizes, size_label
from sleuth.solver.evaluation.bench import run as run_tasks
from sleuth.solver.evaluation.bench import summarise as summarise_bench
from sleuth.solver.evaluation.bench import write_outputs as write_bench
from sleuth.solver.infoset.backends import BACKENDS, backend_help
from sleuth.solver.interfaces.options import (
    OVERRIDE_HELP,
    budget_options,
    make_console,
    progress_bar,
)
from sleuth.solver.strategies import TOURNAMENT, option_table, strategy_class


@click.command()
@click.argument("specs", nargs=-1, required=True, metavar="SPEC[@name=value,...]...")
@click.option("--strategies", default=",".join(TOURNAMENT), show_default=True,
              help="Comma-separated strategies to compare.")
@click.option("--trials", type=click.IntRange(1), default=100, show_default=True,
              help="Seeded secrets per game (the same for every strategy).")
@click.option("--budget", "time_limit", type=click.FloatRange(0.0, min_open=True),
              default=0.1, show_default=True,
              help=f"Seconds per decision for {', '.join(option_table()['budget'][1])}.")
@click.option("--iterations", type=click.IntRange(1), default=None,
              help="Fixed work per decision instead of the clock, for "
                   f"{', '.join(option_table()['iterations'][1])} (ISMCTS: iterations; "
                   "sampled ISES: sampled queries scored): trials that do not depend on "
                   "the machine's load.")
@click.option("--backend", type=click.Choice(BACKENDS), default=None, help=backend_help())
@click.option("--set", "overrides", multiple=True, metavar="NAME=VALUE", help=OVERRIDE_HELP)
@budget_options
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True,
              help="Local worker processes.")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Run the tasks on a Dask cluster, e.g. tcp://127.0.0.1:8786.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write results.csv, results.json and the plot here.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def bench(specs: tuple[str, ...], strategies: str, trials: int, time_limit: float,
          iterations: int | None, backend: str | None, overrides: tuple[str, ...],
          max_hypotheses: int, memory_mb: int, seed: int, workers: int,
          scheduler: str | None, out: str | None, as_json: bool) -> None:
    """A tournament: strategies against the same seeded secrets of each SPEC (a size of it:
    SPEC@name=value,...)."""
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    for name in names:
        strategy_class(name)  # an unknown name is an error before any work
    budget = Budget(max_hypotheses=max_hypotheses, memory_mb=memory_mb)
    sized = parse_spec_sizes(specs, parse_overrides(overrides), budget)  # checked before work
    tasks = make_tasks(sized, names, trials, seed, time_limit, backend, budget, iterations)
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
    from rich.table import Table

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
    for r in rows:
        if "correct" in r:
            console.print(f"{size_label(r)}, {r['strategy']}: the final guess was right in "
                          f"{r['correct']} of {r['trials']} games (mean final posterior "
                          f"{r['mean_posterior']:.4f})")

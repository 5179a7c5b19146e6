"""`sleuth analyse`: is a game interesting? First moves, entropy per round, game lengths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sleuth.solver.evaluation.analysis import SAMPLE_ABOVE, SAMPLE_SIZE
from sleuth.solver.evaluation.analysis import analyse as run_analysis
from sleuth.solver.infoset.backends import prior_belief
from sleuth.solver.infoset.observe import query_text
from sleuth.solver.interfaces.options import (
    backend_option,
    game_options,
    make_console,
    make_from_options,
    split,
    stage_progress,
    strategy_options,
)
from sleuth.solver.wording import counted


@click.command()
@game_options
@backend_option
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
    root = prior_belief(game, opts["backend"]) if opts["backend"] else None
    with stage_progress() as update:
        result = run_analysis(game, strategy, spec, root, secrets=secrets, seed=opts["seed"],
                              progress=update)
    data = result.to_json()
    if out:
        from sleuth.solver.evaluation.report import write_report  # loads matplotlib

        data["report"] = [str(p) for p in write_report(result, Path(out))]
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    from rich.table import Table
    from rich.text import Text

    console = make_console()
    console.print(Text.assemble((game.name, "bold"), f": {strategy.name}, "
                  f"{counted(result.hypotheses, 'hypothesis')}, {result.entropy_bits:.4f} bits"))
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

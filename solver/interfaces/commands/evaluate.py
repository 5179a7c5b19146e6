"""`sleuth evaluate`: every secret (or a seeded sample) against a strategy, as one tree."""

from __future__ import annotations

import json
from typing import Any

import click

from sleuth.compiler.api import SleuthError
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.backends import choose_backend, prior_belief
from sleuth.solver.infoset.observe import query_text
from sleuth.solver.interfaces.options import (
    backend_option,
    game_options,
    make_console,
    make_from_options,
    progress_bar,
    split,
    strategy_options,
)


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
    proof = strategy.proven(root) if secrets is None else None
    if proof is not None:
        if (proof["total"], proof["worst"]) != (data["total"], data["worst"]):
            raise SleuthError(f"{strategy.name}: the search proved total {proof['total']} "
                              f"and worst {proof['worst']}, but its tree gives "
                              f"{data['total']} and {data['worst']}",
                              hint="this is a bug in Sleuth; please report it")
        data["proven"] = proof
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    from rich.text import Text

    console = make_console()
    first = data["first_query"]
    first_text = query_text(first["query"], first["args"]) if first else "-"
    console.print(Text.assemble((game.name, "bold"),
                                f": {strategy.name} (guesses {opts['guesses']}) "
                                f"over {data['secrets']:,} secrets in {data['seconds']:.2f} s"))
    console.print(f"total {data['total']:,}   average {data['average']:.4f} "
                  f"({data['average_fraction']})   worst {data['worst']}   "
                  f"first query {first_text}")
    if proof is not None:
        console.print(f"proven optimal ({proof['order']}): no strategy does better "
                      f"(search: {proof['nodes']:,} information sets)")
    peak = max(data["histogram"].values())
    for length, count in data["histogram"].items():
        bar = "#" * max(1, round(40 * count / peak))
        console.print(f"  {length:>3} queries {count:>8,}  {bar}")

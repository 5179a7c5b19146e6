"""The `sleuth` command line (DESIGN §6). Errors become one message and exit status 1."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from compiler.enumerate import Budget
from compiler.errors import SleuthError
from compiler.game import Game, load_game, parse_overrides
from solver.summary import summarise

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


@cli.command()
@game_options
def check(spec: str, overrides: tuple[str, ...], max_hypotheses: int, memory_mb: int) -> None:
    """Validate SPEC and print a summary."""
    summary = summarise(_load(spec, overrides, max_hypotheses, memory_mb), spec)
    print_summary(summary)


@cli.command()
@game_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def info(spec: str, overrides: tuple[str, ...], max_hypotheses: int, memory_mb: int,
         as_json: bool) -> None:
    """Hypotheses, entropy, queries and backend of SPEC."""
    summary = summarise(_load(spec, overrides, max_hypotheses, memory_mb), spec)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        print_summary(summary)


def print_summary(s: dict[str, Any]) -> None:
    console = Console(highlight=False)
    console.print(f"[bold]{s['game']}[/bold] ({s['spec']}): OK")
    secret = ", ".join(f"{k}: {v}" for k, v in s["secret"].items())
    console.print(f"secret       {secret}")
    console.print(f"hypotheses   {s['hypotheses']:,}   entropy {s['entropy_bits']:.4f} bits"
                  f"   prior {s['prior']}   backend {s['backend']}")
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

"""`sleuth atlas`: one page comparing the design of every game (solver/interfaces/atlas.py)."""

from __future__ import annotations

import datetime
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import click

from sleuth.compiler.api import SleuthError, bundled_specs
from sleuth.solver.evaluation.analysis import SAMPLE_SIZE
from sleuth.solver.interfaces.atlas import EVERY_SECRET_UP_TO, atlas_entries

DEFAULT_BUDGET = 60.0  # seconds per game


@click.command()
@click.argument("specs", nargs=-1)
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Write atlas.html and atlas.json here.")
@click.option("--budget", type=click.FloatRange(0, min_open=True), default=DEFAULT_BUDGET,
              show_default=True,
              help="Seconds per game for all its steps; a step the budget cuts is "
                   "reported as cut.")
@click.option("--workers", type=click.IntRange(1), default=2, show_default=True,
              help="Games computed at once, each in its own process.")
@click.option("--every-secret-up-to", "every_up_to", type=click.IntRange(0),
              default=EVERY_SECRET_UP_TO, show_default=True,
              help="Play games of at most this many secrets against every one; larger "
                   f"games on a seeded sample of {SAMPLE_SIZE}.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def atlas(specs: tuple[str, ...], out: str, budget: float, workers: int, every_up_to: int,
          as_json: bool) -> None:
    """Compare the design of SPECS (default: every bundled spec) on one page: sizes,
    entropy, first moves, interest, game lengths, heuristic totals beside the optimum."""
    names = list(specs) or bundled_specs()
    if not names:
        raise SleuthError("no specs to compare")
    start = time.monotonic()

    def heard(done: int, total: int, entry: dict[str, Any]) -> None:
        notes = []
        if entry.get("cut"):
            notes.append(f"cut: {', '.join(entry['cut'])}")
        if entry.get("errors"):
            notes.append(f"not computed: {', '.join(entry['errors'])}")
        click.echo(f"atlas {done}/{total}: {entry['spec']} in {entry['seconds']:.1f} s"
                   + (f" ({'; '.join(notes)})" if notes else ""), err=True)

    entries = atlas_entries(names, budget, workers, heard, every_up_to)
    from sleuth.solver.interfaces.atlas_page import write_atlas  # loads matplotlib

    meta = {"command": "sleuth " + " ".join(shlex.quote(a) for a in sys.argv[1:])
            if sys.argv[1:2] == ["atlas"] else "sleuth atlas",
            "date": datetime.date.today().isoformat(), "budget_seconds": budget,
            "workers": workers, "every_secret_up_to": every_up_to,
            "seconds": round(time.monotonic() - start, 1)}
    files = write_atlas(entries, Path(out), meta)
    if as_json:
        click.echo(json.dumps({**meta, "files": [str(f) for f in files],
                               "games": entries}, indent=2, default=str))
    else:
        click.echo(f"atlas of {len(entries)} games in {meta['seconds']:.0f} s: {files[1]}")
    unread = [e["errors"]["load"] for e in entries if "load" in e["errors"]]
    if unread:  # the page holds the rest; a spec that cannot be read is still an error
        raise SleuthError(f"{len(unread)} of the specs could not be read (the page holds "
                          "the others):\n" + "\n".join(unread))

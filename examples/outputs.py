"""What the example simulations report: Wilson intervals for win rates, and figures
(Agg-backed axes, saved as a PNG when the block ends).

No example writes a tracked file unless asked: `--plot DIR` draws its figures
into DIR; `--write-docs` redraws the ones docs/ shows (docs/results/) and rewrites
the files the docs read."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"


def output_args(parser: argparse.ArgumentParser) -> None:
    """--plot DIR and --write-docs, the same in every example."""
    parser.add_argument("--plot", type=Path, default=None, metavar="DIR",
                        help="draw the figures into DIR (default: none)")
    parser.add_argument("--write-docs", action="store_true",
                        help="redraw the figures docs/ shows, in docs/results/, and rewrite "
                             "the tracked files the docs read")


def plot_dir(args: argparse.Namespace) -> Path | None:
    """Where to draw: --plot, else docs/results/ with --write-docs, else nowhere."""
    return args.plot or (RESULTS if args.write_docs else None)


def pool_map(fn: Callable[[Any], Any], items: list[Any], workers: int, what: str) -> list[Any]:
    """[fn(x) for x in items] in `workers` processes, in order, with a progress bar on a
    terminal. Ctrl-C stops at once: workers ignore it, and the pool is terminated."""
    from rich.console import Console
    from rich.progress import Progress

    from sleuth.solver.evaluation.bench import start_worker  # the same worker rule

    out: list[Any] = [None] * len(items)
    console = Console(stderr=True)
    with get_context("fork").Pool(workers, initializer=start_worker) as pool, \
            Progress(console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task(what, total=len(items))
        for i, r in pool.imap_unordered(_indexed, [(fn, i, x) for i, x in enumerate(items)]):
            out[i] = r
            bar.advance(task)
    return out


def _indexed(job: tuple[Callable[[Any], Any], int, Any]) -> tuple[int, Any]:
    fn, i, x = job
    return i, fn(x)


def chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def interruptible(main: Callable[[], None]) -> None:
    """Run an example's main: Ctrl-C prints 'interrupted' and exits with status 130; an
    error of Sleuth's (an observation no hypothesis explains, ...) prints its message and
    exits with status 1, as the command line does."""
    from sleuth.compiler import SleuthError

    try:
        main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except SleuthError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory."""
    return os.path.relpath(path)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate wins / n."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@contextmanager
def figure(path: Path, size: tuple[float, float] = (6, 3.2), **subplots: Any) -> Iterator[Any]:
    """(fig, axes) to draw on; written to `path` (folders made) when the block ends."""
    fig, axes = plt.subplots(figsize=size, **subplots)
    yield fig, axes
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)

"""What the example simulations report: Wilson intervals for win rates, and figures
(Agg-backed axes, saved as a PNG when the block ends).

No example writes a tracked file unless asked: `--plot DIR` draws its figures
into DIR; `--write-docs` redraws the ones docs/ shows (docs/results/) and rewrites
the files the docs read."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
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


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory."""
    return os.path.relpath(path)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate wins / n."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@contextmanager
def figure(path: Path, size: tuple[float, float] = (6, 3.2), **subplots: Any) -> Iterator[Any]:
    """(fig, axes) to draw on; written to `path` (folders made) when the block ends."""
    fig, axes = plt.subplots(figsize=size, **subplots)
    yield fig, axes
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)

"""What the example simulations report: Wilson intervals for win rates, and figures
(Agg-backed axes, saved as a PNG when the block ends)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402


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

"""Figures of the example simulations: Agg-backed axes, saved as a PNG on exit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402


@contextmanager
def figure(path: Path, size: tuple[float, float] = (6, 3.2), **subplots: Any) -> Iterator[Any]:
    """(fig, axes) to draw on; written to `path` (folders made) when the block ends."""
    fig, axes = plt.subplots(figsize=size, **subplots)
    yield fig, axes
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)

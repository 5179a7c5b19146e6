"""The bundled game library: the specs shipped inside the package (`sleuth.specs`).

A spec is named by a path, or by the name of a bundled spec (the file's name
without `.yaml`), so `sleuth play NAME` works from any directory. A path that
exists always wins over a bundled name.
"""

from __future__ import annotations

from importlib import import_module, resources
from pathlib import Path

SUFFIX = ".yaml"


def bundled_specs() -> list[str]:
    """The names of the bundled specs, sorted."""
    root = resources.files("sleuth.specs")
    return sorted(p.name.removesuffix(SUFFIX) for p in root.iterdir()
                  if p.name.endswith(SUFFIX))


def landing_spec() -> str | None:
    """The bundled spec the game library puts first (`LANDING` in sleuth.specs), when it
    is bundled; None otherwise."""
    name = getattr(import_module("sleuth.specs"), "LANDING", None)
    return name if name in bundled_specs() else None


def spec_path(name: str | Path) -> Path:
    """The file a spec name stands for: the path itself when it exists (or looks like a
    path), else the bundled spec of that name; unchanged when neither is found (the
    reader then reports the missing file)."""
    path = Path(name)
    if path.exists() or path.suffix or len(path.parts) > 1:
        return path
    bundled = resources.files("sleuth.specs") / f"{path.name}{SUFFIX}"
    return Path(str(bundled)) if bundled.is_file() else path


__all__ = ["bundled_specs", "spec_path"]

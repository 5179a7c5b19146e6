"""Shared fixtures: the spec library and games loaded once per session."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from compiler import Game, load_game

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


@cache
def game(name: str, **overrides) -> Game:
    return load_game(ROOT / "specs" / f"{name}.yaml", overrides or None)


@pytest.fixture(params=[p.stem for p in SPECS])
def spec_name(request) -> str:
    return request.param

"""Shared fixtures: the spec library and games loaded once per session."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from sleuth.compiler import Game, load_game

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


@cache
def game(name: str, **overrides) -> Game:
    return load_game(ROOT / "specs" / f"{name}.yaml", overrides or None)


def enumerable(name: str) -> bool:
    """Whether the spec's hypotheses fit the enumerated backend (else: symbolic only)."""
    g = game(name)
    return g.candidate_count() <= g.budget.max_hypotheses


@cache
def sampled_hypotheses(name: str, k: int = 12) -> list[dict]:
    """k hypotheses of a spec: drawn from its table, or exactly from its decision diagram."""
    g = game(name)
    rng = np.random.default_rng(0)
    if enumerable(name):
        return [g.hypotheses.value(int(i)) for i in rng.integers(0, g.hypotheses.size, k)]
    return g.symbolic.sample(None, k, rng)


@pytest.fixture(params=[p.stem for p in SPECS])
def spec_name(request) -> str:
    return request.param

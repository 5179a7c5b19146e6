"""compiler/guard.py resident_cap: an evaluation given --memory-mb stays under it plus
SLACK_MB, or stops with a BudgetError (exit status 1), whatever grows inside it."""

from __future__ import annotations

import subprocess
import sys

GROW = """
import numpy as np
from sleuth.compiler.api import BudgetError, SLACK_MB, resident_cap
from sleuth.compiler.guard import resident_bytes
held, peak = [], 0
try:
    with resident_cap({budget}, "growing", "a hint"):
        for _ in range({steps}):
            held.append(np.ones(1 << 20))  # 8 MiB, touched
            peak = max(peak, resident_bytes())
    print("done", peak >> 20)
except BudgetError as err:
    peak = max(peak, resident_bytes())
    print("stopped", peak >> 20, SLACK_MB, "|", err)
"""


def _grow(budget: int, steps: int) -> str:
    out = subprocess.run([sys.executable, "-c", GROW.format(budget=budget, steps=steps)],
                         capture_output=True, text=True, timeout=120, check=True)
    return out.stdout.strip()


def test_growth_past_the_budget_stops_with_a_budget_error_near_the_cap():
    said = _grow(256, 400)  # would reach 3.2 GiB
    words = said.split()
    assert words[0] == "stopped", said
    peak, slack = int(words[1]), int(words[2])
    assert peak < 256 + slack + 256  # stopped within a poll's growth of the cap
    assert "past the 256 MiB budget" in said and "a hint" in said


def test_growth_within_the_budget_runs_to_its_end():
    assert _grow(256, 20).split()[0] == "done"  # 160 MiB more

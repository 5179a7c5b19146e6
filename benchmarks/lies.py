"""The least worst case against a liar (issue 30): Ulam's game and Mastermind with a liar,
each searched as shipped and, where it finishes in reasonable time, with the symmetry
off (every hypothesis its own class: the baseline, measured in the same run), and
Ulam's game once more through `evaluate` (the walk over every liar).

    python benchmarks/lies.py [--no-baseline]

Target: Ulam, one lie, n = 16, least worst case 7, in at most 60 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sleuth.compiler import load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.lies import LieSearch
from sleuth.solver.strategies import make_strategy

CASES = [  # (label, spec, params, baseline too)
    ("Ulam n=4", "ulam", {"n": 4}, True),
    ("Ulam n=8", "ulam", {"n": 8}, True),
    ("Ulam n=16", "ulam", {"n": 16}, False),
    ("Ulam n=8, 2 lies", "ulam", {"n": 8, "lies": 2}, False),
    ("MM(2,3) liar", "mastermind-lie", {"pegs": 2, "colours": 3}, True),
    ("MM(3,2) liar", "mastermind-lie", {"pegs": 3, "colours": 2}, True),
    ("MM(3,3) liar", "mastermind-lie", {"pegs": 3, "colours": 3}, False),
    ("MM(3,3) liar off by one", "mastermind-lie",
     {"pegs": 3, "colours": 3, "off_by_one": True}, False),
]


def search(spec: str, params: dict, symmetry: bool) -> tuple[int, int, float]:
    """(least worst case, states searched, seconds), set-up included."""
    start = time.perf_counter()
    s = LieSearch(Candidates(load_game(spec, params)))
    if not symmetry:
        lies = s.lies
        lies.classes = np.arange(lies.size, dtype=np.int64)
        lies.grouped = np.arange(lies.size)
    depth = s.least_depth(s.lies.root())
    return depth, s.nodes, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args()
    print(f"{'game':<26} {'worst':>5} {'states':>8} {'time':>8}   baseline (no symmetry)")
    for label, spec, params, baseline in CASES:
        depth, nodes, took = search(spec, params, True)
        line = f"{label:<26} {depth:>5} {nodes:>8,} {took:>7.2f}s"
        if baseline and not args.no_baseline:
            d0, n0, t0 = search(spec, params, False)
            assert d0 == depth, (label, d0, depth)
            line += f"   {n0:,} states, {t0:.2f} s: {t0 / took:.1f}x"
        print(line, flush=True)
    start = time.perf_counter()
    game = load_game("ulam", {"n": 16})
    ev = evaluate_strategy(game, make_strategy("optimal-worst", Candidates(game)), "ulam")
    took = time.perf_counter() - start
    verdict = "meets" if ev.worst == 7 and took <= 60 else "MISSES"
    print(f"evaluate ulam n=16: worst {ev.worst}, total {ev.total} over {ev.secrets} secrets, "
          f"{took:.2f} s: {verdict} the target (7 in <= 60 s)")


if __name__ == "__main__":
    main()

"""Symmetry in the heuristics: every secret evaluated with and without it (issue 17).

For each game and heuristic it runs `evaluate_strategy` twice in this process: the
baseline with symmetry off and the possible-secret shortcut off (every allowed query
scored by the feedback kernels, as before), then as shipped (one query per orbit of
the set's stabilising transpositions, the feedback matrix filled from one row per
orbit when it fits the memory budget, the shortcut). It checks that both give the
same total and worst case and prints the times, the ratio and the peak memory of
the process so far. MM(5,8) runs at the default memory budget (512 MiB: no full
matrix fits) and at --memory-mb 3072 (its 1 GiB matrix, one byte per pair, fits).

    python benchmarks/symmetry.py [--games small|all] [--strategies minimax,entropy]

The MM(5,8) baseline (about five minutes a strategy) is run once for both budgets:
without symmetry its matrix (4 bytes a pair, 4 GiB) fits neither. `--games small`
skips MM(5,8).
"""

from __future__ import annotations

import argparse
import resource
import time

from sleuth.compiler import load_game
from sleuth.compiler.api import Budget
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

GAMES = {
    "MM(4,6)": ("mastermind", {}, 512),
    "Bulls and Cows": ("bulls-and-cows", {}, 512),
    "MM(5,8)": ("mastermind", {"pegs": 5, "colours": 8}, 512),
    "MM(5,8) 3 GiB": ("mastermind", {"pegs": 5, "colours": 8}, 3072),
}
SMALL = ("MM(4,6)", "Bulls and Cows")


def run(spec: str, overrides: dict, memory_mb: int, strategy: str,
        fast: bool) -> tuple[int, int, float]:
    start = time.perf_counter()
    game = load_game(spec, overrides, Budget(memory_mb=memory_mb))
    s = make_strategy(strategy, Candidates(game, "any", symmetry=fast))
    if not fast:
        s.even_split_best = False
    ev = evaluate_strategy(game, s, spec)
    return ev.total, ev.worst, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", choices=("small", "all"), default="all")
    parser.add_argument("--strategies", default="minimax,entropy")
    args = parser.parse_args()
    names = SMALL if args.games == "small" else tuple(GAMES)
    baselines: dict[tuple, tuple[int, int, float]] = {}  # a budget too small for either
    print(f"{'game':<16} {'strategy':<10} {'total':>8} {'worst':>5} {'baseline s':>11} "
          f"{'symmetry s':>11} {'ratio':>6} {'peak MiB':>9}")
    for name in names:
        spec, overrides, memory = GAMES[name]
        for strategy in args.strategies.split(","):
            key = (spec, tuple(sorted(overrides.items())), strategy)
            if key not in baselines:  # without symmetry MM(5,8)'s 4 GiB matrix fits neither
                baselines[key] = run(spec, overrides, memory, strategy, False)
            base = baselines[key]
            fast = run(spec, overrides, memory, strategy, True)
            if base[:2] != fast[:2]:
                raise SystemExit(f"{name} {strategy}: baseline {base[:2]}, symmetry {fast[:2]}")
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{name:<16} {strategy:<10} {fast[0]:>8,} {fast[1]:>5} {base[2]:>11.1f} "
                  f"{fast[2]:>11.1f} {base[2] / fast[2]:>6.1f} {peak:>9,.0f}", flush=True)


if __name__ == "__main__":
    main()

"""Hard-mode Wordle solved exactly within its six guesses (issue 30): the optimal search
over the first K guesses of each set, the opener SALET forced, for K = 10, 30, 100, beside
the published optimum for hard mode with SALET on the original lists (8,122: alex1770's
`salet.hard.origwordlist.tree`). A `--top` result is an upper bound; the run prints each
total, its worst case, its time, and its distance to 8,122, and exits 1 if any total is
below it (which would mean a rule differs from alex1770's).

    python benchmarks/wordle_hard.py [--tops 10,30,100]
"""

from __future__ import annotations

import argparse
import sys
import time

from sleuth.compiler.api import load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.strategies import make_strategy

PUBLISHED = 8122


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tops", default="10,30,100")
    args = parser.parse_args()
    game = load_game("wordle", {"hard": True})
    opener = Query("guess", int(game.space("guess").rank({"w": tuple("salet")})))
    status = 0
    print(f"{'--top':>6} {'total':>7} {'worst':>5} {'time':>8}  vs {PUBLISHED:,}")
    for top in [int(k) for k in args.tops.split(",")]:
        start = time.perf_counter()
        strategy = make_strategy("optimal", Candidates(game), top=top)
        ev = evaluate_strategy(game, strategy, "wordle", first=opener)
        took = time.perf_counter() - start
        gap = ev.total - PUBLISHED
        print(f"{top:>6} {ev.total:>7,} {ev.worst:>5} {took:>7.1f}s  {gap:+d}", flush=True)
        if gap < 0:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

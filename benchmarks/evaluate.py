"""Exact-evaluation speed: `sleuth evaluate` vs a hand-written Mastermind evaluator.

For each classic strategy (entropy, minimax, expected-size, most-parts) and
query set (any, consistent), on MM(4,6) and MM(4,4), the script times:

* `sleuth`: `evaluate_strategy` on the compiled spec (spec loading and the
  candidate feedback matrix included, interpreter start-up excluded), and
  the whole `sleuth evaluate ... --json` command as a subprocess;
* `hand`: what a competent numpy programmer would write for Mastermind
  alone: the feedback matrix from the hand-written scorer of
  benchmarks/feedback.py, then the same recursion over partitions with the
  same scores and tie-break K (consistent first, then lowest code).

Both must report the same total and worst case (checked; the run aborts
otherwise). Prints a table with the ratio sleuth / hand. Target: any classic
strategy on MM(4,6) in under 2 s.

    python benchmarks/evaluate.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from sleuth.compiler import load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from feedback import all_codes, hand_feedback  # noqa: E402

SPEC = Path(__file__).resolve().parent.parent / "specs" / "mastermind.yaml"
STRATEGIES = ("entropy", "minimax", "expected-size", "most-parts")
SIZES = ((4, 6), (4, 4))


# ----------------------------------------------------------------------------- hand-written

def hand_scores(name: str, counts: np.ndarray, n: int) -> np.ndarray:
    if name == "minimax":
        return counts.max(axis=1).astype(float)
    if name == "expected-size":
        return (counts.astype(np.int64) ** 2).sum(axis=1).astype(float)
    if name == "most-parts":
        return -(counts > 0).sum(axis=1).astype(float)
    c = counts.astype(float)
    return np.where(c > 0, c * np.log2(np.maximum(c, 1)), 0).sum(axis=1) / n


def hand_evaluate(pegs: int, colours: int, name: str, guesses: str) -> tuple[int, int]:
    codes = all_codes(pegs, colours)
    feedback = hand_feedback(codes, codes, colours)
    size = (pegs + 1) ** 2
    win = pegs * (pegs + 1)
    total = worst = 0
    rows = np.arange(len(codes))

    def walk(alive: np.ndarray, depth: int) -> None:
        nonlocal total, worst
        n = len(alive)
        allowed = alive if guesses == "consistent" else rows
        sub = feedback[np.ix_(allowed, alive)]
        offsets = (np.arange(len(allowed)) * size)[:, None]
        counts = np.bincount((sub + offsets).ravel(), minlength=len(allowed) * size) \
            .reshape(len(allowed), size)
        scores = hand_scores(name, counts, n)
        tied = np.flatnonzero(scores <= scores.min() + 1e-9 * max(1.0, abs(scores.min())))
        consistent = np.isin(allowed[tied], alive)
        pick = allowed[tied[np.argmax(consistent)] if consistent.any() else tied[0]]
        fb = feedback[pick, alive]
        for code in np.unique(fb):
            part = alive[fb == code]
            if code == win:
                total += depth + 1
                worst = max(worst, depth + 1)
            else:
                walk(part, depth + 1)

    walk(rows, 0)
    return total, worst


# ----------------------------------------------------------------------------- sleuth

def sleuth_evaluate(pegs: int, colours: int, name: str, guesses: str) -> tuple[int, int]:
    game = load_game(SPEC, {"pegs": pegs, "colours": colours})
    strategy = make_strategy(name, Candidates(game, guesses))
    result = evaluate_strategy(game, strategy, str(SPEC))
    return result.total, result.worst


def sleuth_command(pegs: int, colours: int, name: str, guesses: str) -> tuple[float, dict]:
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "sleuth", "evaluate", str(SPEC), "--strategy", name,
         "--guesses", guesses, "--set", f"pegs={pegs}", "--set", f"colours={colours}",
         "--json"], capture_output=True, text=True, check=True,
        cwd=Path(__file__).resolve().parent.parent)
    return time.perf_counter() - start, json.loads(out.stdout)


def best_of(repeats: int, fn, *args) -> tuple[float, object]:
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'game':8} {'strategy':14} {'guesses':10} {'total':>6} {'worst':>5} "
          f"{'sleuth s':>9} {'hand s':>8} {'ratio':>6} {'command s':>9}")
    for pegs, colours in SIZES:
        for name in STRATEGIES:
            for guesses in ("any", "consistent"):
                t_sleuth, got = best_of(args.repeats, sleuth_evaluate, pegs, colours, name,
                                        guesses)
                t_hand, want = best_of(args.repeats, hand_evaluate, pegs, colours, name,
                                       guesses)
                if got != want:
                    raise SystemExit(f"MM({pegs},{colours}) {name} {guesses}: sleuth {got} "
                                     f"!= hand-written {want}")
                t_cmd, data = sleuth_command(pegs, colours, name, guesses)
                assert (data["total"], data["worst"]) == got
                print(f"MM({pegs},{colours}) {name:14} {guesses:10} {got[0]:>6} {got[1]:>5} "
                      f"{t_sleuth:>9.3f} {t_hand:>8.3f} {t_sleuth / t_hand:>6.2f} "
                      f"{t_cmd:>9.2f}", flush=True)


if __name__ == "__main__":
    main()

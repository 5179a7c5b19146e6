"""Sampled ISES: time per decision against its budget, and quality against exhaustive ISES.

1. MM(5,8) (32,768 codes; no full feedback matrix fits the memory budget, so
   every batch runs the compiled kernels): seeded games with a 0.1 s budget
   per decision; prints, per decision, the wall time of `choose` and how many
   queries it scored, and the worst time / budget ratio.
2. MM(4,6): `ises-sampled` (budget 0.1 s, 1000 sampled states) plays 300
   seeded secrets, one game each; its average number of guesses is compared
   with the exact average of exhaustive `entropy` (`sleuth evaluate`), with
   a 95 % confidence half-width (target: within 0.15 guesses).

    python benchmarks/ises.py [--games 300] [--big-games 3] [--budget 0.1]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from sleuth.compiler import load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import ISESSampled, make_strategy

SPEC = Path(__file__).resolve().parent.parent / "specs" / "mastermind.yaml"


class Timed(ISESSampled):
    """ISESSampled that records the wall time of every decision."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.decisions: list[tuple[float, int, int]] = []

    def choose(self, belief: Belief):
        start = time.perf_counter()
        q = super().choose(belief)
        self.decisions.append((time.perf_counter() - start, self.last_scored, belief.size))
        return q


def budget_per_decision(games: int, budget: float) -> None:
    game = load_game(SPEC, {"pegs": 5, "colours": 8})
    candidates = Candidates(game)
    print(f"MM(5,8): {game.hypotheses.size:,} codes, {candidates.size:,} queries, "
          f"budget {budget:.3f} s per decision")
    rng = np.random.default_rng(0)
    worst = 0.0
    for k, secret in enumerate(rng.choice(game.hypotheses.size, size=games, replace=False)):
        strategy = Timed(candidates, seed=k, budget=budget)
        t = play_secret(game, strategy, int(secret))
        for n, (seconds, scored, alive) in enumerate(strategy.decisions, 1):
            worst = max(worst, seconds)
            print(f"  game {k + 1} decision {n}: {seconds * 1000:7.1f} ms, "
                  f"{scored:>6,} queries scored, {alive:>6,} hypotheses")
        print(f"  game {k + 1}: solved in {len(t.steps)} guesses")
    print(f"worst decision {worst * 1000:.1f} ms = {worst / budget:.2f} x budget")


def quality(games: int, budget: float) -> None:
    game = load_game(SPEC)
    candidates = Candidates(game)
    exact = evaluate_strategy(game, make_strategy("entropy", candidates), str(SPEC))
    rng = np.random.default_rng(2024)
    secrets = rng.choice(game.hypotheses.size, size=games, replace=False)
    lengths, slowest = [], 0.0
    start = time.perf_counter()
    for k, secret in enumerate(secrets):
        strategy = Timed(candidates, seed=k, budget=budget)
        lengths.append(len(play_secret(game, strategy, int(secret)).steps))
        slowest = max(slowest, max(s for s, _, _ in strategy.decisions))
    lengths = np.array(lengths, dtype=float)
    mean = lengths.mean()
    half = 1.96 * lengths.std(ddof=1) / math.sqrt(len(lengths))
    same = np.mean([lengths[k] == exact.lengths[int(s)] for k, s in enumerate(secrets)])
    print(f"MM(4,6): exhaustive entropy exact average {float(exact.average):.4f} "
          f"({exact.average}), over the same {games} secrets "
          f"{np.mean([exact.lengths[int(s)] for s in secrets]):.4f}")
    print(f"  ises-sampled (budget {budget} s, 1000 states): average {mean:.4f} "
          f"+/- {half:.4f} (95 %) over {games} seeded secrets, "
          f"difference {mean - float(exact.average):+.4f} guesses; "
          f"same length as exhaustive on {same:.0%} of secrets; "
          f"slowest decision {slowest * 1000:.1f} ms; {time.perf_counter() - start:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--big-games", type=int, default=3)
    parser.add_argument("--budget", type=float, default=0.1)
    args = parser.parse_args()
    budget_per_decision(args.big_games, args.budget)
    quality(args.games, args.budget)


if __name__ == "__main__":
    main()

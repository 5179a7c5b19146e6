"""Where does sampled ISES (Algorithm 1) falter at nine coins? A sweep over m and n.

Meng & Lucas report that sampled ISES falters on the fake-coin game at nine coins with
0.1 s per decision. Sleuth's `ises-sampled` under that budget never does (docs/results.md).
Algorithm 1 has two sizes, m sampled states and n sampled actions, and the clock only
decides how many (state, action) pairs a decision can afford. So this script takes the
clock out and measures each size directly:

1. **Quality at fixed m and n.** `ises-sampled` with `states=m`, `queries=n` and
   `iterations=n` (exactly n sampled weighings scored, the clock never consulted), on
   every one of the 18 secrets of `specs/counterfeit-coin.yaml --set coins=9`, R seeds
   each. Printed per cell: the mean number of weighings and the share of games that need
   more than 3 (the optimum's worst case; exhaustive ISES always takes 3).
2. **What 0.1 s buys with a costly forward model.** The paper's agents step a copy of the
   game state for every (state, action) pair. The cost c of one such step is measured
   here as Python's `copy.deepcopy` of a small game state (the 18-hypothesis information
   set, the coins, the history) plus the weighing on it. A 0.1 s decision then affords
   about 0.1 / c pairs, i.e. n = 0.1 / (c m) actions for m states; quality is measured at
   that n for each m.

Everything is seeded; no result depends on the machine's load except c (printed).

    python benchmarks/nine_coins.py [--seeds 20] [--budget 0.1] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np

from sleuth.compiler import load_game
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

SPEC = Path(__file__).resolve().parent.parent / "specs" / "counterfeit-coin.yaml"
STATES = (1, 2, 5, 20, 100, 1000)
ACTIONS = (1, 2, 3, 5, 10, 30, 100, 300, 1000)


def games(game, candidates: Candidates, m: int, n: int, seeds: int) -> np.ndarray:
    """Weighings for every secret and seed, with m states and n actions per decision."""
    out = []
    for secret in range(game.hypotheses.size):
        for seed in range(seeds):
            strategy = make_strategy("ises-sampled", candidates, seed=seed * 1000 + secret,
                                     states=m, queries=n, iterations=n)
            t = play_secret(game, strategy, secret, seed=seed)
            assert t.solved, (m, n, secret, seed)
            out.append(len(t.steps))
    return np.array(out)


def forward_cost(repeats: int = 20000) -> float:
    """Seconds for one (state, action) step of a deep-copying forward model: copy the game
    state, weigh, and keep the hypotheses the result allows."""
    state = {"coins": list(range(1, 10)), "history": [((1, 2, 3), (4, 5, 6), "left")],
             "infoset": [(c, k) for c in range(1, 10) for k in ("heavy", "light")]}
    left, right = {1, 2, 3}, {4, 5, 6}

    def weigh(fake: int, kind: str) -> str:
        if fake in left:
            return "left" if kind == "heavy" else "right"
        if fake in right:
            return "right" if kind == "heavy" else "left"
        return "balanced"

    start = time.perf_counter()
    for k in range(repeats):
        s = copy.deepcopy(state)
        fake, kind = s["infoset"][k % len(s["infoset"])]
        seen = weigh(fake, kind)
        s["infoset"] = [h for h in s["infoset"] if weigh(*h) == seen]
        s["history"].append((tuple(left), tuple(right), seen))
    return (time.perf_counter() - start) / repeats


def cell(weighings: np.ndarray) -> dict:
    mean = float(weighings.mean())
    half = 1.96 * float(weighings.std(ddof=1)) / np.sqrt(len(weighings))
    return {"mean": mean, "half": half, "over3": float((weighings > 3).mean()),
            "worst": int(weighings.max()), "games": len(weighings)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds per secret and cell")
    parser.add_argument("--budget", type=float, default=0.1, help="seconds per decision")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON")
    args = parser.parse_args()
    game = load_game(SPEC, {"coins": 9})
    candidates = Candidates(game)
    legal = candidates.size
    print(f"9 coins: {game.hypotheses.size} secrets, {legal:,} legal weighings; "
          f"{args.seeds} seeds per secret and cell")
    start = time.perf_counter()
    grid: dict[str, dict] = {}
    print("\n1. mean weighings [share of games over 3] at fixed m (rows) and n (columns)")
    print(f"{'m, n':>6} " + " ".join(f"{n:>13}" for n in ACTIONS))
    for m in STATES:
        row = []
        for n in ACTIONS:
            c = cell(games(game, candidates, m, n, args.seeds))
            grid[f"{m},{n}"] = c
            row.append(f"{c['mean']:.2f} [{c['over3']:.0%}]")
        print(f"{m:>6} " + " ".join(f"{r:>13}" for r in row))
    c = forward_cost()
    pairs = args.budget / c
    print(f"\n2. a deep-copying forward model: {c * 1e6:.1f} µs per (state, action) step, "
          f"so {args.budget:g} s affords about {pairs:,.0f} pairs per decision")
    fits = {}
    for m in STATES:
        n = max(1, min(legal, int(pairs // m)))
        res = cell(games(game, candidates, m, n, args.seeds))
        fits[str(m)] = {"n": n, **res}
        print(f"  m = {m:>4}: n = {n:>5}  mean {res['mean']:.3f} ± {res['half']:.3f}, "
              f"over 3 in {res['over3']:.1%}, worst {res['worst']}")
    print(f"[{time.perf_counter() - start:.0f} s]")
    if args.out:
        args.out.write_text(json.dumps({"legal": legal, "seeds": args.seeds,
                                        "forward_seconds": c, "budget": args.budget,
                                        "grid": grid, "fits": fits}, indent=1) + "\n")


if __name__ == "__main__":
    main()

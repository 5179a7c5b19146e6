"""The optimal strategies against their targets, with times (issue 17).

For each game it runs `evaluate_strategy` with every classic heuristic and with
`optimal` (and `optimal-worst` where asked), all secrets, any query allowed,
and prints the totals, worst cases and times side by side. The optimal tree's
total must equal the value the search proved (checked); known optima are
checked against the published values (MM(3,2) 18, MM(3,3) 73, MM(2,6) 132,
MM(4,4) 905, MM(4,6) 5625 with worst case 6 (Koyama and Lai), coin 12: 72, Bulls and
Cows 26,274).
`--tree DIR` is not here yet; the heuristics' times include the spec's load.

    python benchmarks/optimal.py [--games small|all] [--skip-heuristics]
"""

from __future__ import annotations

import argparse
import time

from sleuth.compiler import load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

HEURISTICS = ("entropy", "minimax", "expected-size", "most-parts")
GAMES = {
    "MM(3,2)": ("mastermind", {"pegs": 3, "colours": 2}, 18),
    "MM(3,3)": ("mastermind", {"pegs": 3, "colours": 3}, 73),
    "MM(2,6)": ("mastermind", {"pegs": 2, "colours": 6}, 132),
    "MM(4,4)": ("mastermind", {"pegs": 4, "colours": 4}, 905),
    "MM(4,5)": ("mastermind", {"pegs": 4, "colours": 5}, None),
    "coin 12": ("counterfeit-coin", {}, 72),
    "MM(4,6)": ("mastermind", {}, 5625),
    "Bulls and Cows (4 of 10)": ("bulls-and-cows", {}, 26274),  # about an hour serial
}
SMALL = ("MM(3,2)", "MM(3,3)", "MM(2,6)", "MM(4,4)", "MM(4,5)", "coin 12")


def run(spec: str, overrides: dict, strategy: str) -> tuple[int, int, float, dict | None]:
    start = time.perf_counter()
    game = load_game(spec, overrides)
    s = make_strategy(strategy, Candidates(game, "any"))
    ev = evaluate_strategy(game, s, spec)
    proof = s.proven(Belief.prior(game))
    seconds = time.perf_counter() - start
    if proof is not None and (proof["total"], proof["worst"]) != (ev.total, ev.worst):
        raise SystemExit(f"{spec} {strategy}: proved {proof}, tree {ev.total}/{ev.worst}")
    return ev.total, ev.worst, seconds, proof


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", choices=("small", "all"), default="small")
    parser.add_argument("--worst", action="store_true", help="also run optimal-worst")
    parser.add_argument("--skip-heuristics", action="store_true")
    args = parser.parse_args()
    names = SMALL if args.games == "small" else tuple(GAMES)
    strategies = ([] if args.skip_heuristics else list(HEURISTICS)) + ["optimal"] + (
        ["optimal-worst"] if args.worst else [])
    print(f"{'game':<26} {'strategy':<14} {'total':>7} {'average':>8} {'worst':>5} "
          f"{'seconds':>8}  check")
    for name in names:
        spec, overrides, known = GAMES[name]
        for strategy in strategies:
            total, worst, seconds, proof = run(spec, overrides, strategy)
            secrets = load_game(spec, overrides).hypotheses.size
            check = ""
            if proof is not None:
                check = "proven"
                if strategy == "optimal" and known is not None:
                    if total != known:
                        raise SystemExit(f"{name}: optimal total {total}, published {known}")
                    check += f", = published {known}"
            print(f"{name:<26} {strategy:<14} {total:>7,} {total / secrets:>8.4f} "
                  f"{worst:>5} {seconds:>8.2f}  {check}", flush=True)


if __name__ == "__main__":
    main()

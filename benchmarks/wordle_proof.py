"""Wordle's optimum after an opener, proven with every guess at every set (issue 33,
item 3): `--strategy optimal` with no `--top`, the opener forced, all 2,315 answers,
within the game's six guesses. The total after the opener is the query once for every
answer plus each of its parts' proven optimum (`Strategy.proven_after`), and the walked
tree must give the same; the run prints both beside the published optimum (SALET:
7,920, normal mode, A. Selby's alex1770/wordle and Bertsimas and Paskov; 8,122 in hard
mode, alex1770/wordle's `salet.hard.origwordlist.tree`) and exits 1 if they differ.
With `--opener any` the opener is searched too, over all 12,972 guesses: the proof
that no opener does better (Selby's; about 11 minutes on one core in normal mode).

    python benchmarks/wordle_proof.py [--hard] [--opener salet|any]
"""

from __future__ import annotations

import argparse
import sys
import time

from sleuth.compiler.api import load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.strategies import make_strategy

PUBLISHED = {(False, "salet"): 7920, (True, "salet"): 8122, (False, "any"): 7920}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hard", action="store_true", help="hard mode (--set hard=true)")
    parser.add_argument("--opener", default="salet")
    args = parser.parse_args()
    start = time.perf_counter()
    game = load_game("wordle", {"hard": args.hard})
    opener = None if args.opener == "any" else \
        Query("guess", int(game.space("guess").rank({"w": tuple(args.opener)})))
    strategy = make_strategy("optimal", Candidates(game))
    built = time.perf_counter()
    ev = evaluate_strategy(game, strategy, "wordle", first=opener)
    root = Belief.prior(game)
    proof = strategy.proven(root) if opener is None else strategy.proven_after(root, opener)
    took = time.perf_counter() - built
    assert proof is not None
    published = PUBLISHED.get((args.hard, args.opener))
    mode = "hard mode" if args.hard else "normal mode"
    first = "".join(ev.first_query["args"]["w"])  # the opener played
    print(f"Wordle, {mode}, {args.opener} first ({first}), every guess at every set: "
          f"proven total "
          f"{proof['total']:,} (worst {proof['worst']}); the tree walked gives "
          f"{ev.total:,} (worst {ev.worst}); {proof['nodes']:,} information sets; search "
          f"and walk {took:.1f} s, {time.perf_counter() - start:.1f} s with the game's "
          f"set-up; published: {'-' if published is None else f'{published:,}'}",
          flush=True)
    same = (ev.total, ev.worst) == (proof["total"], proof["worst"])
    return 0 if same and published in (None, proof["total"]) else 1


if __name__ == "__main__":
    sys.exit(main())

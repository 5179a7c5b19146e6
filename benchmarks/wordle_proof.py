"""Wordle's optimum after an opener, proven with every guess at every set (issue 33,
item 3): `--strategy optimal` with no `--top`, the opener forced, all 2,315 answers,
within the game's six guesses. The total after an opener is the opener once for every
answer plus each of its parts' proven optimum (`Strategy.proven_after`), and the walked
tree must give the same; the run prints both beside the published value and exits 1 if
they differ. The published values are A. Selby's (alex1770/wordle), proven opener by
opener on the same word lists: `normal.top105.proven` (SALET 7,920, also Bertsimas and
Paskov's) and `hard.top101.proven` (SALET 8,122, as `salet.hard.origwordlist.tree`).
With `--openers any` the opener is searched too, over all 12,972 guesses: the proof that
no opener does better (Selby's; about 11 minutes on one core in normal mode).

    python benchmarks/wordle_proof.py [--hard] [--openers salet,reast,crate | any]
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

# alex1770/wordle: normal.top105.proven and hard.top101.proven (a few of their rows)
PUBLISHED = {
    False: {"salet": 7920, "reast": 7923, "crate": 7926, "trace": 7926, "slate": 7928,
            "soare": 7997, "roate": 8000, "raise": 8014},
    True: {"salet": 8122, "least": 8127, "reast": 8134, "crate": 8143, "roate": 8214},
}
ANY_OPENER = {False: 7920, True: 8122}  # the best over every opener (Selby's lists)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hard", action="store_true", help="hard mode (--set hard=true)")
    parser.add_argument("--openers", default="salet")
    args = parser.parse_args()
    start = time.perf_counter()
    game = load_game("wordle", {"hard": args.hard})
    strategy = make_strategy("optimal", Candidates(game))  # one search: its table shared
    mode = "hard mode" if args.hard else "normal mode"
    print(f"Wordle, {mode}, every guess at every set; the game built in "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    status = 0
    for word in args.openers.split(","):
        opener = None if word == "any" else \
            Query("guess", int(game.space("guess").rank({"w": tuple(word)})))
        began = time.perf_counter()
        ev = evaluate_strategy(game, strategy, "wordle", first=opener)
        root = Belief.prior(game)
        proof = strategy.proven(root) if opener is None else \
            strategy.proven_after(root, opener)
        took = time.perf_counter() - began
        assert proof is not None
        played = "".join(ev.first_query["args"]["w"])
        published = ANY_OPENER[args.hard] if opener is None else \
            PUBLISHED[args.hard].get(word)
        print(f"  {word:>5} ({played}): proven {proof['total']:,} (worst {proof['worst']}); "
              f"the tree walked {ev.total:,} (worst {ev.worst}); {took:.1f} s, "
              f"{proof['nodes']:,} information sets so far; published "
              f"{'-' if published is None else f'{published:,}'}", flush=True)
        same = (ev.total, ev.worst) == (proof["total"], proof["worst"])
        if not same or published not in (None, proof["total"]):
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

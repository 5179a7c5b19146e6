"""The tournament of Meng & Lucas on the spec library, written to its section of
docs/results.md (between the tournament markers; the rest of the file is kept).

Every single-player game of specs/ at two sizes; strategies random, SO-ISMCTS,
exhaustive ISES (entropy) and sampled ISES with a per-decision time limit;
the same seeded secrets for every strategy (`sleuth bench`). Besides the
tournament, `sleuth evaluate`'s exact average of the exhaustive strategy over
*all* secrets is computed, to check that the sampled trials agree with it
within sampling error.

    python benchmarks/tournament.py [--trials 100] [--budget 0.1] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np

from sleuth.compiler import load_game
from sleuth.solver.evaluation.bench import (
    make_tasks,
    parse_spec_sizes,
    run,
    size_label,
    summarise,
    write_outputs,
)
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.evaluation.transcript import hypothesis_index
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["mastermind.yaml@pegs=3,colours=4", "mastermind.yaml@pegs=4,colours=6",
         "black-peg-mastermind.yaml@pegs=3,colours=4", "black-peg-mastermind.yaml@pegs=4,colours=6",
         "bulls-and-cows.yaml@digits=3", "bulls-and-cows.yaml@digits=4",
         "counterfeit-coin.yaml@coins=6", "counterfeit-coin.yaml@coins=12",
         "hotter-colder.yaml@w=4,h=4", "hotter-colder.yaml@w=8,h=8",
         "higher-lower.yaml@n=31", "higher-lower.yaml@n=127"]
STRATEGIES = ["random", "ismcts", "entropy", "ises-sampled"]


def exact(spec: str, params: dict, trials: list[dict]) -> tuple[float, float, int]:
    """The exhaustive strategy's exact average over all secrets, the standard deviation
    of the game length over them, and how many of its tournament trials took exactly
    the length `sleuth evaluate` gives their secret (it is deterministic)."""
    game = load_game(spec, params)
    ev = evaluate_strategy(game, make_strategy("entropy", Candidates(game)), spec)
    lengths = np.array(list(ev.lengths.values()), dtype=float)
    same = sum(ev.lengths[hypothesis_index(game, t["secret"])] == t["steps"] for t in trials)
    return float(ev.average), float(lengths.std()), same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--budget", dest="time_limit", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "results"))
    parser.add_argument("--reuse", action="store_true",
                        help="Redo the tables from the trials saved in OUT/results.json.")
    args = parser.parse_args()
    os.chdir(ROOT)  # spec paths in the results are relative to the repository
    sized = parse_spec_sizes([f"specs/{g}" for g in GAMES], {})
    start = time.perf_counter()
    tasks = make_tasks(sized, STRATEGIES, args.trials, args.seed, args.time_limit)
    saved = Path(args.out) / "results.json"
    if args.reuse and saved.exists():  # the trials of an earlier run; tables redone
        data = json.loads(saved.read_text())
        results, elapsed = data["trials"], data.get("elapsed", math.nan)
    else:
        results = run(tasks, workers=args.workers)
        elapsed = time.perf_counter() - start
    rows = summarise(results)
    write_outputs(rows, results, Path(args.out))
    data = json.loads(saved.read_text())
    saved.write_text(json.dumps({**data, "elapsed": elapsed}, indent=2) + "\n")
    truth = {(spec, tuple(sorted(p.items()))): exact(spec, p, [
        r for r in results if r["spec"] == spec and r["params"] == p
        and r["strategy"] == "entropy"]) for spec, p in sized}
    lines = ["| game | random | SO-ISMCTS | ISES (exhaustive) | ISES (sampled) | "
             "exhaustive, exact over all secrets | sampled ≤ ISMCTS | exhaustive within 95 % "
             "| trials = evaluate |", "|---|---|---|---|---|---|---|---|---|"]
    for spec, p in sized:
        mine = {r["strategy"]: r for r in rows
                if r["spec"] == spec and r["params"] == p}
        cells = []
        for s in STRATEGIES:
            r = mine[s]
            unsolved = r["trials"] - r["solved"]
            cells.append(f"{r['average']:.2f} ± {r['ci95']:.2f}"
                         + (f" ({unsolved} unsolved)" if unsolved else ""))
        e, sd, same = truth[(spec, tuple(sorted(p.items())))]
        ent, smp, mc = mine["entropy"], mine["ises-sampled"], mine["ismcts"]
        # sampling error of a mean of `trials` secrets drawn from all of them
        within = abs(ent["average"] - e) <= 1.96 * sd / np.sqrt(ent["trials"]) + 1e-9
        lines.append(f"| {size_label(mine['entropy'])} | " + " | ".join(cells)
                     + f" | {e:.4f} | {'yes' if smp['average'] <= mc['average'] else 'NO'} | "
                     f"{'yes' if within else 'NO'} | {same}/{ent['trials']} |")
    table = "\n".join(lines)
    print(table)
    print(f"{len(tasks):,} games in {elapsed:.0f} s with {args.workers} workers")
    write_results(table, args, len(tasks), elapsed)


def write_results(table: str, args: argparse.Namespace, games: int, elapsed: float) -> None:
    section = f"""## The tournament of Meng & Lucas on the spec library

`python benchmarks/tournament.py --trials {args.trials} --budget {args.time_limit} \\
--workers {args.workers}` (it runs `sleuth bench`'s machinery): every single-player
game of `specs/` at two sizes; {args.trials} seeded secrets per game, the same for every
strategy; {args.time_limit} s per decision for sampled ISES (1,000 states) and SO-ISMCTS;
a game not finished after 100 queries counts as 100 ("unsolved"). Average queries to
finish ± the 95 % half-width (normal approximation). {games:,} games in {elapsed:.0f} s
on a 2-core machine. Raw trials: `docs/results/results.json`; summary:
`docs/results/results.csv`.

{table}

"exhaustive, exact" is `sleuth evaluate --strategy entropy` over every secret. The
exhaustive strategy is deterministic, so each of its trials must take exactly the number of
queries `sleuth evaluate` gives that secret: "trials = evaluate" counts those that do. "within
95 %" says whether the {args.trials}-trial average of the same strategy lies within
1.96 σ/√{args.trials} of it, σ being the standard deviation of the game length over all
secrets (from the exact evaluation). Where "within 95 %" says NO but every trial equals
`sleuth evaluate`, the {args.trials} secrets drawn were simply an unusual sample: with twelve
comparisons at 95 %, at least one miss is expected about half the time.

The random agent asks uniformly random legal queries (not only possible secrets), so on
the code-breaking games it rarely finishes within 100 queries; SO-ISMCTS's tree, grown in
{args.time_limit} s, falls behind sampled ISES most where the query space is large
(Bulls and Cows, black-peg Mastermind, the 127-number line).

![average queries per game and strategy](results/results.png)
"""
    path = ROOT / "docs" / "results.md"
    path.write_text(with_section(path.read_text() if path.exists() else "", section))


BEGIN, END = "<!-- tournament: begin -->", "<!-- tournament: end -->"


def with_section(text: str, section: str) -> str:
    """`text` with the tournament's section (between its markers) replaced by `section`;
    the rest of docs/results.md (other games' results) is written by hand and kept."""
    block = f"{BEGIN}\n{section}{END}\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        after = rest.split(END, 1)[1].lstrip("\n")
        return head + block + ("\n" + after if after else "")
    return "# Results\n\n" + block + text


if __name__ == "__main__":
    main()

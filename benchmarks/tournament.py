"""The eight-game experiment of Meng & Lucas (ISES, 2024) on the spec library, written
to its section of docs/results.md (between the tournament markers; the rest of the file
is kept).

Eight games at two sizes each -- the ones the paper's text names (Fake Coin, Mastermind,
Simple Mastermind, Treasure Hunt, Low-Middle-High: `higher-lower.yaml` stands in for it),
its two examples of the genre (Black Box, Wordle) and Bulls and Cows; four agents:
random, SO-ISMCTS and sampled ISES (Algorithm 1) with a time limit per decision, and
exhaustive ISES (entropy); the same seeded secrets for every agent (`sleuth bench`).
Each game and size is run and saved on its own (docs/results/tournament/<game>.json), so
an interrupted run resumes where it stopped. Besides the trials, `sleuth evaluate`'s
exact average of exhaustive ISES over *all* secrets checks the sampled trials.

    python benchmarks/tournament.py [--trials 500] [--budget 0.1] [--workers 2]
                                    [--scheduler ADDR] [--fresh] [--only NAME]
                                    [--iterations N]

Every trial records the work of each decision of the time-limited agents (ISMCTS
iterations, sampled ISES's states and queries scored), so a run says how much 0.1 s
bought. `--iterations N` is the fixed-work tournament instead: each decision does N
iterations (ISMCTS) or scores N sampled queries (sampled ISES) whatever the clock, so
its trials do not depend on the machine's load; it is saved under
docs/results/tournament-iterations-N/ and leaves docs/results.md alone.

What 0.1 s buys differs a hundredfold between games, and within a game between its
first decision (the whole set) and its last, so one N cannot stand for the clock.
`--calibrate` measures it: the two time-limited agents play `--calibration-trials`
seeded secrets of every game and size under the budget (run it on an idle machine), and
the median work (ISMCTS iterations; sampled ISES queries scored) of each agent at the
k-th decision of a game, for every k that at least half of the games reach, is written
to docs/results/tournament-calibration.json as a schedule "N1,N2,...". `--calibrated`
then runs the tournament with each agent on its own schedule for each game and size
(`schedule`: the k-th decision does Nk, later ones the last; random and exhaustive ISES
as ever), saved under docs/results/tournament-calibrated/, with its own section of
docs/results.md.

    python benchmarks/tournament.py --calibrate [--calibration-trials 10]
    python benchmarks/tournament.py --calibrated [--trials 200]
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
from sleuth.solver.evaluation.bench import make_tasks, run, summarise, write_outputs
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.evaluation.transcript import hypothesis_index
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

ROOT = Path(__file__).resolve().parent.parent
# (the paper's name, spec, the two sizes)
GAMES = [
    ("Fake Coin", "counterfeit-coin.yaml", [{"coins": 9}, {"coins": 12}]),
    ("Mastermind", "mastermind.yaml", [{"pegs": 3, "colours": 4}, {"pegs": 4, "colours": 6}]),
    ("Simple Mastermind", "black-peg-mastermind.yaml",
     [{"pegs": 3, "colours": 4}, {"pegs": 4, "colours": 6}]),
    ("Treasure Hunt", "treasure-hunt.yaml", [{"n": 8}, {"n": 16}]),
    ("Low-Middle-High (higher-lower)", "higher-lower.yaml", [{"n": 31}, {"n": 127}]),
    ("Black Box", "black-box.yaml", [{"n": 5, "k": 3}, {"n": 8, "k": 4}]),
    ("Wordle", "wordle.yaml", [{"answers_only": True}, {"answers_only": False}]),
    ("Bulls and Cows", "bulls-and-cows.yaml", [{"digits": 3}, {"digits": 4}]),
]
AGENTS = ["random", "ismcts", "entropy", "ises-sampled"]
TIMED = {"ismcts": "iterations", "ises-sampled": "queries"}  # the work the clock decides
CALIBRATION = ROOT / "docs" / "results" / "tournament-calibration.json"
LABELS = {"random": "random", "ismcts": "SO-ISMCTS (t)", "entropy": "ISES exhaustive",
          "ises-sampled": "ISES sampled (t)"}


def slug(spec: str, params: dict) -> str:
    return spec.removesuffix(".yaml") + "".join(f"_{k}={v}" for k, v in params.items())


def exact(spec: str, params: dict, trials: list[dict]) -> dict:
    """Exhaustive ISES over every secret (`sleuth evaluate`): its average, the standard
    deviation of the game length, how many of its trials took exactly the length
    evaluate gives their secret (it is deterministic), and the seconds it took."""
    start = time.perf_counter()
    game = load_game(spec, params)
    ev = evaluate_strategy(game, make_strategy("entropy", Candidates(game)), spec)
    lengths = np.array(list(ev.lengths.values()), dtype=float)
    same = sum(ev.lengths[hypothesis_index(game, t["secret"])] == t["steps"]
               for t in trials if t["strategy"] == "entropy")
    return {"average": float(ev.average), "sd": float(lengths.std()), "same": int(same),
            "seconds": round(time.perf_counter() - start, 1)}


def play(spec: str, params: dict, args: argparse.Namespace, path: Path) -> dict:
    """One game at one size: its saved trials, or a new run of them (then saved)."""
    if path.exists() and not args.fresh:
        return load(path)
    start = time.perf_counter()
    work = calibrated_work(spec, params) if args.calibrated else {}
    tasks = [task for agent in AGENTS for task in make_tasks(
        [(spec, params)], [agent], args.trials, args.seed, args.time_limit,
        iterations=args.iterations, schedule=work.get(agent))]
    trials = run(tasks, workers=args.workers, scheduler=args.scheduler)
    elapsed = time.perf_counter() - start
    data = {"spec": spec, "params": params, "trials": trials, "elapsed": round(elapsed, 1),
            "exact": exact(spec, params, trials)}
    save(path, data)
    print(f"{spec} {params}: {len(tasks):,} games in {elapsed:.0f} s", flush=True)
    return data


def calibrated_work(spec: str, params: dict) -> dict[str, str]:
    """The work schedule of each time-limited agent at this game and size, as `--calibrate`
    measured it."""
    key = slug(Path(spec).name, params)
    table = json.loads(CALIBRATION.read_text()) if CALIBRATION.exists() else {}
    if key not in table:
        raise SystemExit(f"error: {CALIBRATION.name} has no entry for {key}: "
                         "run --calibrate first")
    return {agent: table[key][agent] for agent in TIMED}


def calibrate(spec: str, params: dict, args: argparse.Namespace) -> dict:
    """Each time-limited agent's work schedule under the clock: the median work at the
    k-th decision of a game, for every k that at least half of the games reach."""
    tasks = make_tasks([(spec, params)], list(TIMED), args.calibration_trials, args.seed,
                       args.time_limit)
    trials = run(tasks, workers=args.workers, scheduler=args.scheduler)
    out: dict = {"budget": args.time_limit, "trials": args.calibration_trials}
    for agent, key in TIMED.items():
        out[agent] = ",".join(str(n) for n in schedule_of(
            [[w.get(key, 0) for w in t.get("work", [])] for t in trials
             if t["strategy"] == agent]))
    print(f"{spec} {params}: ISMCTS iterations {out['ismcts']}; sampled ISES queries "
          f"{out['ises-sampled']} (medians, decision by decision)", flush=True)
    return out


def schedule_of(games: list[list[int]]) -> list[int]:
    """The median work at each decision index over the games that reach it, for the
    indices at least half of the games reach (at least the first); a decision that did no
    work (one hypothesis left: nothing to weigh) is not counted."""
    out = []
    for k in range(max(len(g) for g in games)):
        done = [g[k] for g in games if len(g) > k and g[k] > 0]
        if out and 2 * len(done) < len(games):
            break
        if done:
            out.append(max(1, int(np.median(done))))
    return out or [1]


SHARED = ("game", "spec", "params")  # the same in every trial of a file: kept once


def save(path: Path, data: dict) -> None:
    """A game's run as JSON, one trial a line, what every trial shares written once."""
    head = {k: v for k, v in data.items() if k != "trials"}
    head["game"] = data["trials"][0]["game"]
    lines = ",\n".join(json.dumps({k: v for k, v in t.items() if k not in SHARED},
                                   separators=(",", ":")) for t in data["trials"])
    path.write_text(f'{json.dumps(head)[:-1]}, "trials": [\n{lines}\n]}}\n')


def load(path: Path) -> dict:
    data = json.loads(path.read_text())
    shared = {"game": data["game"], "spec": data["spec"],
              "params": {k: data["params"][k] for k in sorted(data["params"])}}
    data["trials"] = [{**shared, **t} for t in data["trials"]]
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=500)
    parser.add_argument("--budget", dest="time_limit", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fresh", action="store_true", help="run again what is saved")
    parser.add_argument("--only", default=None, help="one spec file, e.g. black-box.yaml")
    parser.add_argument("--out", default=None, help="default: docs/results/tournament (with "
                        "--iterations N: docs/results/tournament-iterations-N)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="fixed work per decision instead of the clock")
    parser.add_argument("--calibrate", action="store_true",
                        help="measure what the budget buys per game, size and agent")
    parser.add_argument("--calibration-trials", type=int, default=10)
    parser.add_argument("--calibrated", action="store_true",
                        help="fixed work per decision as --calibrate measured it")
    args = parser.parse_args()
    os.chdir(ROOT)  # spec paths in the results are relative to the repository
    if args.calibrate:
        table = json.loads(CALIBRATION.read_text()) if CALIBRATION.exists() else {}
        for _, spec, sizes in GAMES:
            for params in sizes:
                if not args.only or spec == args.only:
                    table[slug(spec, params)] = calibrate(f"specs/{spec}", params, args)
                    CALIBRATION.write_text(json.dumps(table, indent=1) + "\n")
        return
    folder = "tournament-calibrated" if args.calibrated else "tournament" \
        if args.iterations is None else f"tournament-iterations-{args.iterations}"
    out = Path(args.out or ROOT / "docs" / "results" / folder)
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    for name, spec, sizes in GAMES:
        for params in sizes:
            if args.only and spec != args.only:
                continue
            data = play(f"specs/{spec}", params, args, out / f"{slug(spec, params)}.json")
            runs.append((name, data))
    if args.only:
        return
    results = [t for _, data in runs for t in data["trials"]]
    rows = summarise(results)
    write_outputs(rows, [], out)  # the summary; the trials stay in the files per game
    figure = fig5(rows, runs, out)
    table = markdown(rows, runs)
    print(table)
    if args.calibrated:
        write_calibrated_section(table, args, runs, figure)
    elif args.iterations is None:  # the clock run is the one docs/results.md shows
        write_section(table, args, runs, figure)


def size_text(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def markdown(rows: list[dict], runs: list[tuple[str, dict]]) -> str:
    by = {(r["spec"], json.dumps(r["params"], sort_keys=True), r["strategy"]): r for r in rows}
    lines = ["| game | size | " + " | ".join(LABELS[a] for a in AGENTS)
             + " | exhaustive, exact over all secrets | trials = evaluate |",
             "|---|---|" + "---|" * len(AGENTS) + "---|---|"]
    for name, data in runs:
        key = (data["spec"], json.dumps(data["params"], sort_keys=True))
        cells = []
        for a in AGENTS:
            r = by[(*key, a)]
            lo, hi = r["average"] - r["ci95"], r["average"] + r["ci95"]
            unsolved = r["trials"] - r["solved"]
            cells.append(f"{r['average']:.2f} [{lo:.2f}, {hi:.2f}]"
                         + (f" ({unsolved} unsolved)" if unsolved else ""))
        e = data["exact"]
        trials = by[(*key, "entropy")]["trials"]
        lines.append(f"| {name} | {size_text(data['params'])} | " + " | ".join(cells)
                     + f" | {e['average']:.4f} | {e['same']}/{trials} |")
    return "\n".join(lines)


def fig5(rows: list[dict], runs: list[tuple[str, dict]], out: Path) -> Path:
    """Mean steps per agent at each size, one panel per game, 95 % intervals (the layout
    of the paper's Fig. 5)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(name for name, _ in runs))
    fig, axes = plt.subplots(2, math.ceil(len(games) / 2), figsize=(16, 7.5))
    by = {(r["spec"], json.dumps(r["params"], sort_keys=True), r["strategy"]): r for r in rows}
    for ax, game in zip(axes.ravel(), games, strict=False):
        mine = [data for name, data in runs if name == game]
        xs = list(range(len(mine)))
        for k, a in enumerate(AGENTS):
            rs = [by[(d["spec"], json.dumps(d["params"], sort_keys=True), a)] for d in mine]
            ax.errorbar([x + (k - 1.5) * 0.06 for x in xs], [r["average"] for r in rs],
                        yerr=[r["ci95"] for r in rs], marker="o", capsize=3, label=LABELS[a])
        ax.set_xticks(xs, [size_text(d["params"]) for d in mine], fontsize=8)
        ax.set_title(game, fontsize=10)
        ax.set_yscale("log")
        ax.set_ylabel("mean steps to finish", fontsize=8)
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(games):]:
        ax.axis("off")
    axes.ravel()[0].legend(fontsize=8)
    fig.suptitle("Mean steps per game and size (95 % intervals; log scale; random capped at "
                 "100 steps)")
    fig.tight_layout()
    path = out / "fig5.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run_facts(args: argparse.Namespace, runs: list[tuple[str, dict]]) -> tuple[int, float, str]:
    """The games a run played, its wall time in seconds, and where it ran (as a flag)."""
    games = sum(len(d["trials"]) for _, d in runs)
    wall = sum(d["elapsed"] for _, d in runs)
    where = f"--scheduler {args.scheduler}" if args.scheduler else f"--workers {args.workers}"
    return games, wall, where


def write_section(table: str, args: argparse.Namespace, runs: list[tuple[str, dict]],
                  figure: Path) -> None:
    games, wall, where = run_facts(args, runs)
    exact_s = sum(d["exact"]["seconds"] for _, d in runs)
    section = f"""## The eight-game experiment of Meng & Lucas

`python benchmarks/tournament.py --trials {args.trials} --budget {args.time_limit} \\
{where}` (it runs `sleuth bench`'s machinery, game by game; an interrupted run resumes
from what it saved): the eight games at two sizes each, {args.trials} seeded secrets per
game and size, the same for every agent; {args.time_limit} s per decision for sampled ISES
(Algorithm 1: 1,000 states drawn by weight with replacement, each sampled query scored by
the average entropy of the exact posterior sets) and SO-ISMCTS. A game not finished after
100 queries counts as 100 ("unsolved"). {games:,} games in {wall / 60:.0f} min of wall
time on a 2-core machine, plus {exact_s / 60:.1f} min for the exact column. Mean steps
with the 95 % interval (normal approximation). Raw trials, one file per game and size:
`docs/results/tournament/`; the summary: `results.json`, `results.csv` there.

{table}

"exhaustive, exact" is `sleuth evaluate --strategy entropy` over every secret. Exhaustive
ISES is deterministic, so each of its trials must take exactly the number of queries
`sleuth evaluate` gives that secret: "trials = evaluate" counts those that do.

![Fig. 5: mean steps per game, size and agent](results/tournament/{figure.name})
"""
    path = ROOT / "docs" / "results.md"
    path.write_text(with_section(path.read_text() if path.exists() else "", section))


def write_calibrated_section(table: str, args: argparse.Namespace,
                             runs: list[tuple[str, dict]], figure: Path) -> None:
    games, wall, where = run_facts(args, runs)
    work = json.loads(CALIBRATION.read_text())
    clock_games = sorted({work[slug(Path(d["spec"]).name, d["params"])]["trials"]
                          for _, d in runs})
    section = f"""### At fixed work, calibrated to the clock

`python benchmarks/tournament.py --calibrate` then `python benchmarks/tournament.py
--calibrated --trials {args.trials} {where}`: the same games, sizes and seeds, but the
time-limited agents do a fixed amount of work at each decision: at the k-th decision of a
game, the median of what {args.time_limit} s bought that agent at the k-th decision of that
game and size on an idle 2-core machine ({"/".join(map(str, clock_games))} clock games each;
`docs/results/tournament-calibration.json` holds each agent's work decision by decision;
later decisions do the last entry's work). No trial depends on the machine's load, so a
rerun gives the same numbers. {games:,} games in {wall / 60:.0f} min. Raw trials:
`docs/results/tournament-calibrated/`.

{table}

![mean steps at calibrated fixed work](results/tournament-calibrated/{figure.name})
"""
    path = ROOT / "docs" / "results.md"
    path.write_text(with_section(path.read_text(), section, "tournament-calibrated"))


def with_section(text: str, section: str, name: str = "tournament") -> str:
    """`text` with the section `name` (between its markers) replaced by `section`; the
    rest of docs/results.md is written by hand and kept. A new section goes after the
    tournament's."""
    begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
    block = f"{begin}\n{section}{end}\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        after = rest.split(end, 1)[1].lstrip("\n")
        return head + block + ("\n" + after if after else "")
    if name != "tournament" and "<!-- tournament: end -->" in text:
        head, after = text.split("<!-- tournament: end -->\n", 1)
        return head + "<!-- tournament: end -->\n\n" + block + "\n" + after.lstrip("\n")
    return "# Results\n\n" + block + text


if __name__ == "__main__":
    main()

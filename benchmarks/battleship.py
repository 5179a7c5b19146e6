"""Battleship on the standard 10 x 10 board (issue 31): the exact heat map -- every cell's
probability of a hit -- after each shot, and seeded games of a strategy played with it.

Each game draws its fleet uniformly (the factored counter samples it) and plays it with
`--strategy` (default likeliest: fire at the cell most likely to hold a ship) on the
factored backend, whose belief after each shot is exact: its count and every ship's
marginals come from one compiled pass, and the heat map is read off them. A shot's time
is the update and the heat map together (what `sleuth belief` does for one shot). Once
the fleets left are few (LIST_LIMIT), they are listed and the heat map is a sum over them.

The baseline, measured in the same run on the prior, is the heat map by one conditioned
count per cell and feedback (the counter interface's default, what a counter without
one-pass marginals does: each feedback's clauses conjoined and counted by a whole pass):
`--baseline-cells` cells are counted and the time is scaled to the 100.

    python benchmarks/battleship.py [--games 3] [--seed 1] [--strategy likeliest]
                                    [--out F.jsonl]

Prints per game its shots and hits, and over all shots the median, 90th percentile and
largest time (a shot's time is measured once: games that reach a belief an earlier game
reached share it, as `evaluate` shares a tree's nodes), and the distribution of game
lengths. With --out, each game is a line of
F.jsonl as soon as it ends (its fleet, shots, hits and per-shot times), and a run with
the same file, seed and strategy goes on from the games already there: a long run can
be stopped and resumed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from sleuth.compiler import load_game
from sleuth.compiler.factored_state import FactState
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.cover import Cover
from sleuth.solver.infoset.goals import goal_reached
from sleuth.solver.infoset.observe import Event
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

SPEC = Path(__file__).resolve().parent.parent / "specs" / "battleship.yaml"
SHARED = 50_000  # counted beliefs kept by their shots, shared by the games that reach them


def play(game, strategy, prior: CountedBelief, secret: int, seen: dict) -> dict:
    """One game against the fleet of product rank `secret`: its shots and their times. A
    shot whose belief an earlier game reached (the same shots before it, the same
    answers) takes that game's belief and time from `seen` (the strategy is
    deterministic, so the games share their first shots)."""
    cover = Cover.of(game)
    truth = game.restricted(np.array([secret]), transient=True)
    belief, shots, times = prior, [], []
    while not goal_reached(belief, game):
        query = strategy.choose(belief)  # (strategy.prepared lists it once small)
        code = int(truth.feedback_matrix(query.action, np.array([query.rank]))[0, 0])
        feedback = game.coder(query.action).decode(code)
        shots.append((query.rank, feedback["feedback"]))
        if tuple(shots) in seen:
            belief, took = seen[tuple(shots)]
            times.append(took)
            continue
        start = time.perf_counter()
        belief = strategy.prepared(belief.observe(
            Event(query.action, game.space(query.action).value(query.rank), feedback)))
        cover.chances(belief)  # the heat map after the shot
        times.append(time.perf_counter() - start)
        if isinstance(belief, CountedBelief) and len(seen) < SHARED:
            seen[tuple(shots)] = (belief, times[-1])
    forced = cover.forced(belief)
    return {"secret": secret, "shots": len(shots) + len(forced),
            "hits": sum(f == "hit" for _, f in shots) + len(forced),
            "times": [round(t, 4) for t in times], "fired": shots,
            "forced": [q.rank for q in forced]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strategy", default="likeliest")
    parser.add_argument("--baseline-cells", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    start = time.perf_counter()
    game = load_game(SPEC)
    prior = CountedBelief.prior(game, "factored")
    print(f"fleets {prior.size:,} (loaded and counted in {time.perf_counter() - start:.1f} s)")
    cover = Cover.of(game)
    cover.chances(prior)  # (each cell's feedback formulas lowered, once)
    state = prior.state  # the same state without its pass, for the pass's time
    fresh = CountedBelief(game, "factored", state=FactState(state.graph, state.masks,
                                                             state.clauses))
    start = time.perf_counter()
    heat = cover.chances(fresh)
    one_pass = time.perf_counter() - start
    base = []
    for cell in range(args.baseline_cells):
        formulas = game.symbolic.lowering.feedback_values("fire", {"c": cell})
        forms = [prior.counter.tables.clauses(f) for f in formulas.values()]
        t = time.perf_counter()  # each feedback conjoined as clauses and counted by a pass
        counts = [prior.state.conjoin(form).count() for form in forms]
        base.append(time.perf_counter() - t)
        assert abs(counts[list(formulas).index(("hit",))] / prior.size - heat[cell]) < 1e-12
    baseline = statistics.mean(base) * len(cover.queries)
    print(f"prior heat map: one pass {one_pass:.2f} s; one count per cell {baseline:.1f} s "
          f"(from {args.baseline_cells} cells); ratio {baseline / one_pass:.0f}x")

    strategy = make_strategy(args.strategy, Candidates(game))
    secrets = prior.counter.sample_ranks(prior.state, args.games, args.seed)
    games = []
    if args.out and args.out.exists():
        games = [json.loads(line) for line in args.out.read_text().splitlines() if line]
        mine = [g for g in games if (g["strategy"], g["seed"]) == (args.strategy, args.seed)]
        if [g["secret"] for g in mine] != secrets[:len(mine)]:
            raise SystemExit(f"{args.out}: its games are not this run's first fleets")
        games = mine
        print(f"{len(games)} games read from {args.out}")
    seen: dict = {}
    for k in range(len(games), len(secrets)):
        t = time.perf_counter()
        result = {"strategy": args.strategy, "seed": args.seed, "game": k + 1,
                  **play(game, strategy, prior, secrets[k], seen)}
        games.append(result)
        if args.out:
            with args.out.open("a") as f:
                f.write(json.dumps(result) + "\n")
        print(f"game {k + 1}: {result['shots']} shots, {result['hits']} hits, "
              f"{time.perf_counter() - t:.1f} s, slowest shot {max(result['times']):.2f} s",
              flush=True)
    times = sorted(t for g in games for t in g["times"])
    shots = sorted(g["shots"] for g in games)
    print(f"{args.strategy}: {len(games)} games, shots mean {statistics.mean(shots):.2f}, "
          f"median {statistics.median(shots)}, min {shots[0]}, max {shots[-1]}; per shot "
          f"(update + heat map): median {statistics.median(times):.3f} s, 90% "
          f"{times[int(0.9 * (len(times) - 1))]:.3f} s, max {times[-1]:.3f} s")
    for q in (0.25, 0.5, 0.75, 0.9, 0.99):
        print(f"  {q:.0%} of games within {shots[min(len(shots) - 1, int(q * len(shots)))]}"
              f" shots")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Approximate counting and sampling (`--backend approx`: ApproxMC, UniGen) next to the
exact counts of the decision diagram (sdd) and of Ganak (cnf), on the same facts.

* MM(8,10) (10^8 codes) after three seeded random guesses (seeds as in
  benchmarks/symbolic.py: 49,933 / 116,997 / 239,616 codes left);
* Clue (6 players, 33,633,600,000 deals): the prior, and after the scripted game
  of examples/clue-game.yaml (its deterministic suggestions).

For each: the approximate count, its time and its ratio to the exact count
(ApproxMC promises, with probability >= 1 - delta = 0.8, a ratio within
[1/1.8, 1.8]); Ganak's exact count and time (given --ganak-seconds); the
diagram's count and time; and the time UniGen takes to draw --samples samples,
each checked against the facts by the kernels.

    python benchmarks/approx.py [--samples 10] [--ganak-seconds 300] [--approx-seconds 600]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

from sleuth.compiler import load_game
from sleuth.compiler.cnf import projected_count
from sleuth.compiler.counters.approx import EPSILON
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.interfaces.reading import read_observations

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.test_approx import three_guesses  # noqa: E402  (the seeded guesses, one definition)


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def within_seconds(fn, seconds: float):
    """fn() in a forked child process; None if it has no answer within `seconds`."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)

    def run():
        child.send(fn())
        child.close()

    proc = ctx.Process(target=run, daemon=True)
    proc.start()
    child.close()
    try:
        return parent.recv() if parent.poll(seconds) else None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()


def measure(label: str, game, facts: tuple[int, ...], samples: int, ganak_seconds: float,
            approx_seconds: float) -> None:
    space = game.symbolic
    exact, t_sdd = timed(lambda: space.count(space.condition(space.base, *facts)))
    approx = CountedBelief(game, "approx", facts)
    estimate, t_approx = timed(lambda: within_seconds(lambda: approx.size, approx_seconds))
    if estimate is None:
        print(f"| {label} | no estimate in {approx_seconds:.0f} s | | | {exact:,} in "
              f"{t_sdd:.2f} s | |", flush=True)
        return
    cnf = space.clauses(*facts)
    ganak, t_ganak = timed(lambda: projected_count(cnf.clauses, cnf.top, cnf.secret_vars,
                                                   ganak_seconds))
    ranks, t_sample = timed(lambda: approx.sample_ranks(samples, seed=1))
    ok = CountedBelief(game, "sdd", facts).contains(np.array(sorted(ranks), dtype=np.int64))
    ratio = estimate / exact
    within = 1 / (1 + EPSILON) <= ratio <= 1 + EPSILON
    ganak_text = f"{ganak:,} in {t_ganak:.1f} s" if ganak is not None else \
        f"no count in {ganak_seconds:.0f} s"
    verdict = "within" if within else "OUTSIDE"
    print(f"| {label} | {estimate:,} in {t_approx:.1f} s | {ratio:.3f} ({verdict}) "
          f"| {ganak_text} | {exact:,} in {t_sdd:.2f} s "
          f"| {len(ranks)} in {t_sample:.1f} s, {int(ok.sum())} consistent |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--ganak-seconds", type=float, default=300.0)
    parser.add_argument("--approx-seconds", type=float, default=600.0)
    opts = parser.parse_args()
    print("| facts | approx count | approx / exact | Ganak (exact) | sdd (exact) "
          "| UniGen samples |")
    print("|---|---|---|---|---|---|")
    mm = load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 8, "colours": 10})
    for seed in range(3):
        facts = tuple(mm.symbolic.fact(e.action, e.args, e.feedback)
                      for e in three_guesses(8, 10, seed))
        measure(f"MM(8,10), 3 guesses, seed {seed}", mm, facts, opts.samples,
                opts.ganak_seconds, opts.approx_seconds)
    clue = load_game(ROOT / "specs" / "clue.yaml")
    events = read_observations(clue, ROOT / "examples" / "clue-game.yaml")
    facts = tuple(clue.symbolic.fact(e.action, e.args, e.feedback) for e in events
                  if e.feedback is not None)
    measure(f"Clue, scripted game ({len(facts)} facts)", clue, facts, opts.samples,
            opts.ganak_seconds, opts.approx_seconds)
    measure("Clue, prior", clue, (), opts.samples, opts.ganak_seconds, opts.approx_seconds)


if __name__ == "__main__":
    main()

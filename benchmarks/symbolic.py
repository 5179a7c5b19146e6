"""Counting without listing: Mastermind after three random guesses, on every backend.

For MM(6,10) (10^6 codes) and MM(8,10) (10^8 codes), seeded: a secret and
three guesses are drawn, the feedback is scored, and the number of codes
consistent with it is counted by
* `sdd`: the spec lowered once and compiled to a decision diagram, each
  feedback conjoined (time includes loading the spec and the lowering);
* `cnf`: the same facts as clauses, counted by Ganak projected on the secret;
* `enum`: the enumerated backend (listing the hypotheses and filtering with
  the compiled kernels) where it fits (--enum-limit, default 10^7 codes).
All counts must agree (the script stops otherwise). Target: MM(8,10) counted
exactly by the SDD in under 1 s.

Then strategies on counted beliefs:
* MM(6,8), `ises-sampled` (0.1 s decisions) evaluated over 20 seeded secrets on
  `sdd` (states sampled exactly from the diagram while the information set is
  over 50,000 codes, listed after) and on `enum`, in the same run;
* Clue (33,633,600,000 deals), `ises-sampled` with a 1 s budget: one seeded
  game played to the correct accusation, with the slowest decision.

    python benchmarks/symbolic.py [--trials 3] [--secrets 20]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np

from sleuth.compiler import Budget, load_game
from sleuth.compiler.cnf import projected_count
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.reading import parse_secret
from sleuth.solver.strategies import make_strategy

SPEC = Path(__file__).resolve().parent.parent / "specs" / "mastermind.yaml"
CLUE = SPEC.parent / "clue.yaml"
CLUE_DEAL = ("owner=[p4, p3, p6, p2, envelope, p1, p4, p1, p5, p2, envelope, p4, p3, p5, p3, "
             "p5, p6, p1, envelope, p6, p2]")


def score(guess: tuple[int, ...], code: tuple[int, ...]) -> dict[str, int]:
    black = sum(a == b for a, b in zip(guess, code, strict=True))
    return {"black": black, "white": sum((Counter(guess) & Counter(code)).values()) - black}


def trial(pegs: int, colours: int, seed: int, enum_limit: int) -> None:
    rng = np.random.default_rng(seed)
    secret = tuple(int(x) for x in rng.integers(1, colours + 1, pegs))
    guesses = [tuple(int(x) for x in rng.integers(1, colours + 1, pegs)) for _ in range(3)]
    events = [Event("guess", {"g": g}, feedback=score(g, secret)) for g in guesses]
    params = {"pegs": pegs, "colours": colours}

    start = time.perf_counter()
    game = load_game(SPEC, params)
    space = game.symbolic
    diagram = space.condition(space.base, *(space.fact(e.action, e.args, e.feedback)
                                            for e in events))
    n_sdd = space.count(diagram)
    t_sdd = time.perf_counter() - start

    start = time.perf_counter()
    cnf = space.clauses(*(space.fact(e.action, e.args, e.feedback) for e in events))
    n_cnf = projected_count(cnf.clauses, cnf.top, cnf.secret_vars, timeout=120)
    t_cnf = time.perf_counter() - start

    n_enum, t_enum = None, None
    if colours ** pegs <= enum_limit:
        start = time.perf_counter()
        big = load_game(SPEC, params, Budget(max_hypotheses=enum_limit))
        belief = Belief.prior(big)
        for e in events:
            belief = apply_event(belief, e)
        n_enum, t_enum = belief.size, time.perf_counter() - start

    counts = {n for n in (n_sdd, n_cnf, n_enum) if n is not None}
    if len(counts) != 1:
        raise SystemExit(f"MM({pegs},{colours}) seed {seed}: counts differ: sdd {n_sdd}, "
                         f"cnf {n_cnf}, enum {n_enum}")
    enum_text = f"{t_enum:6.2f} s" if t_enum is not None else "  (too many to list)"
    print(f"MM({pegs},{colours}) seed {seed}: {n_sdd:>10,} codes left | sdd {t_sdd:6.3f} s "
          f"({diagram.size():,} nodes) | cnf+ganak "
          f"{t_cnf:6.2f} s ({len(cnf.clauses):,} clauses) | enum {enum_text}", flush=True)


def evaluate_mm68(secrets: int) -> None:
    params = {"pegs": 6, "colours": 8}
    for backend in ("sdd", "enum"):
        start = time.perf_counter()
        game = load_game(SPEC, params)
        strategy = make_strategy("ises-sampled", Candidates(game), seed=0, budget=0.1)
        root = CountedBelief.prior(game) if backend == "sdd" else None
        result = evaluate_strategy(game, strategy, "mastermind", secrets, 0, None, root)
        print(f"MM(6,8) ises-sampled 0.1 s, {backend}: {result.secrets} secrets, average "
              f"{float(result.average):.3f}, worst {result.worst}, histogram "
              f"{result.histogram} | {time.perf_counter() - start:.1f} s", flush=True)


def clue_game(budget: float) -> None:
    start = time.perf_counter()
    game = load_game(CLUE)
    strategy = make_strategy("ises-sampled", Candidates(game), seed=0, budget=budget)
    secret_game, index = parse_secret(game, [CLUE_DEAL], listed=False)
    times: list[float] = []
    last = [time.perf_counter()]

    def tick(_: int) -> None:
        now = time.perf_counter()
        times.append(now - last[0])
        last[0] = now

    t = play_secret(game, strategy, index, 0, 100, tick, CountedBelief.prior(game),
                    secret_game)
    print(f"Clue ises-sampled {budget} s: solved {t.solved} in {len(t.steps)} queries "
          f"({sum(s.event.action == 'suggest' for s in t.steps)} suggestions), remaining "
          f"{[s.remaining for s in t.steps]}; slowest step {max(times[1:]):.2f} s (decision "
          f"plus the update before it) | {time.perf_counter() - start:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--enum-limit", type=int, default=10**7)
    parser.add_argument("--secrets", type=int, default=20)
    args = parser.parse_args()
    for pegs, colours in ((6, 10), (8, 10)):
        for seed in range(args.trials):
            trial(pegs, colours, seed, args.enum_limit)
    evaluate_mm68(args.secrets)
    clue_game(1.0)


if __name__ == "__main__":
    main()

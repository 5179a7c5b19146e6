"""Turing Machine: Sleuth's least expected rounds, then checks, beside a community solver
(issue 31).

For each problem it loads specs/turing-machine.yaml with the problem's cards, proves the
least total of rounds and then of checks with `optimal` (and the least worst game with
`optimal-worst`), and prints the expected values and times. With `--peer PATH`, a
checkout of github.com/cferlay/boardGames (a Python solver that builds every decision
tree and ranks them by expected rounds, then tests, over the same hypotheses), it also
runs that solver on each problem in a child process (time and memory limited) and
prints its figures beside Sleuth's, and compares the code sets of every criterion of
its 47 cards with the spec's. Nothing of the peer is copied: it is run where it lies.

    python benchmarks/turing_machine.py [--peer ~/src/boardGames] [--generated 3]

The problems: the rulebook's booklet problems 01 and 02, an online problem (B52 O00 B,
from github.com/ThomasdenH/turing-machine-ai's tests), a generated 5-card problem (from
github.com/manurFR/turingmachine's README), and `--generated N` more drawn with a fixed
seed from cards 1..22 (4 cards each, kept when they have at least 2 hypotheses).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import yaml

from sleuth.compiler import SleuthError, load_game
from sleuth.compiler.game import load_game_text
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.outcomes import OutcomeTable
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

SPEC = Path(__file__).resolve().parent.parent / "specs" / "turing-machine.yaml"
PROBLEMS = [
    ("booklet 01", (4, 9, 11, 14)),
    ("booklet 02", (3, 7, 10, 14)),
    ("online B52 O00 B", (12, 16, 18, 19, 21)),
    ("manurFR example", (7, 26, 31, 36, 42)),
]
CODES = ["".join(map(str, c)) for c in itertools.product(range(1, 6), repeat=3)]


def overrides(cards: tuple[int, ...]) -> dict[str, int]:
    return dict(zip("abcdef", list(cards) + [0] * (6 - len(cards)), strict=True))


def sleuth(cards: tuple[int, ...], strategy: str) -> dict:
    start = time.perf_counter()
    game = load_game(SPEC, overrides(cards))
    ev = evaluate_strategy(game, make_strategy(strategy, Candidates(game)), str(SPEC))
    n, made = ev.secrets, ev.to_json()["rounds"]
    return {"hypotheses": n, "rounds": made["total"] / n, "checks": ev.total / n,
            "worst": made["worst_game"], "seconds": time.perf_counter() - start,
            "first": ev.first_query["args"]}


def generated(count: int, seed: int = 31) -> list[tuple[str, tuple[int, ...]]]:
    rng, out = random.Random(seed), []
    while len(out) < count:
        cards = tuple(sorted(rng.sample(range(1, 23), 4)))
        try:
            size = load_game(SPEC, overrides(cards)).hypotheses.size
        except SleuthError:  # no assignment leaves one code: not a problem
            continue
        if size >= 2:
            out.append((f"drawn {len(out) + 1}", cards))
    return out


def _limit(gib: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (gib << 30, gib << 30))


def peer(path: Path, cards: tuple[int, ...], seconds: int, gib: int) -> dict:
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "solve.py", *map(str, cards)],
                              cwd=path / "turingMachine", capture_output=True, text=True,
                              timeout=seconds, preexec_fn=lambda: _limit(gib))
    except subprocess.TimeoutExpired:
        return {"error": f"over {seconds} s"}
    took = time.perf_counter() - start
    found = re.search(r"Average: ([\d.]+) rounds, ([\d.]+) tests", done.stdout)
    if not found:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": tail[:60], "seconds": took}
    return {"rounds": float(found[1]), "checks": float(found[2]), "seconds": took}


def spec_criteria() -> dict[int, list[frozenset[str]]]:
    """Each card's criteria as the codes they accept, from the spec's `crit` def."""
    spec = yaml.safe_load(SPEC.read_text())
    defs = {k: v for k, v in spec["defs"].items()  # the criteria, not the problem's layout
            if k not in ("card(v)", "others(skip, x)", "verdict(v, x)")}
    out = {}
    for n in range(1, 49):
        game = load_game_text(yaml.safe_dump({
            "game": "card", "params": {"card": n},
            "domains": {"Digit": {"range": "1..5"}, "Code": {"seq": "Digit", "len": 3},
                        "Opt": {"range": "0..options(card) - 1"}},
            "defs": defs, "secret": {"x": "Code"},
            "queries": {"criterion": {"args": {"k": "Opt"}, "feedback": "crit(card, k, x)"}},
        }, sort_keys=False))
        table = OutcomeTable(Candidates(game))
        coder = game.coder("criterion")
        out[n] = [frozenset(CODES[h] for h in range(len(CODES)) if coder.decode(
            int(table.book[table.codes[q, h]]))["feedback"]) for q in range(len(table.queries))]
    return out


def peer_criteria(path: Path) -> dict[int, list[frozenset[str]]]:
    script = ("import json, cards; print(json.dumps({c.id: [v.valid_values for v in "
              "c.verificators] for c in cards.all_criteria}))")
    done = subprocess.run([sys.executable, "-c", script], cwd=path / "turingMachine",
                          capture_output=True, text=True, check=True)
    return {int(k): [frozenset(v) for v in vs] for k, vs in json.loads(done.stdout).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", type=Path, default=None,
                        help="a checkout of github.com/cferlay/boardGames")
    parser.add_argument("--generated", type=int, default=3)
    parser.add_argument("--peer-seconds", type=int, default=300)
    parser.add_argument("--peer-gib", type=int, default=8)
    args = parser.parse_args()
    if args.peer is not None:
        ours, theirs = spec_criteria(), peer_criteria(args.peer)
        differ = [n for n in theirs if sorted(map(sorted, ours[n])) != sorted(
            map(sorted, theirs[n]))]
        print(f"criteria: {len(theirs)} cards of the peer compared with the spec's; "
              f"{'all agree' if not differ else f'differ on cards {differ}'}")
    print(f"{'problem':<18} {'cards':<20} {'hyps':>4} {'Sleuth E[rounds]':>16} "
          f"{'E[checks]':>9} {'worst':>6} {'s':>6}   {'peer rounds':>11} {'checks':>6} "
          f"{'s':>6}  agree")
    for name, cards in PROBLEMS + generated(args.generated):
        got = sleuth(cards, "optimal")
        worst = sleuth(cards, "optimal-worst")["worst"]
        line = (f"{name:<18} {' '.join(map(str, cards)):<20} {got['hypotheses']:>4} "
                f"{got['rounds']:>16.4f} {got['checks']:>9.4f} "
                f"{worst['rounds']}r{worst['queries']}c {got['seconds']:>6.2f}")
        if args.peer is not None:
            other = peer(args.peer, cards, args.peer_seconds, args.peer_gib)
            if "error" in other:
                line += f"   {'(' + other['error'] + ')':>26}"
            else:
                same = (round(got["rounds"], 2), round(got["checks"], 2)) == (
                    other["rounds"], other["checks"])
                line += (f"   {other['rounds']:>11.2f} {other['checks']:>6.2f} "
                         f"{other['seconds']:>6.2f}  {'yes' if same else 'NO'}")
        print(line, flush=True)


if __name__ == "__main__":
    main()

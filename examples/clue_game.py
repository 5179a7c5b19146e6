"""A scripted game of Clue for specs/clue.yaml, and the belief after every step.

Deals the 21 cards (seeded; you are p1 holding Plum, Knife and Library, as in
the spec's params), then plays rounds of suggestions: yours (`suggest`, and
the card shown to you as a `shown` fact) and the other players'
(`suggestion`, where only who showed is seen). Writes the observations to a
temporary file (to examples/clue-game.yaml, which the docs use, with
--write-docs), then runs `sleuth belief` on it and prints, per step, the
deals left and the time the update took, and finally the envelope column.
Output is in docs/clue.md.

    python examples/clue_game.py [--rounds 3] [--seed 7] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "clue.yaml"
OUT = ROOT / "examples" / "clue-game.yaml"
SUSPECTS = ["Scarlet", "Mustard", "White", "Green", "Peacock", "Plum"]
WEAPONS = ["Candlestick", "Knife", "LeadPipe", "Revolver", "Rope", "Wrench"]
ROOMS = ["Kitchen", "Ballroom", "Conservatory", "DiningRoom", "BilliardRoom", "Library",
         "Lounge", "Hall", "Study"]
MINE = ["Plum", "Knife", "Library"]
PLAYERS = 6


def deal(rng: np.random.Generator) -> dict[str, str]:
    owner = {c: "p1" for c in MINE}
    envelope = [str(rng.choice([c for c in group if c not in MINE]))
                for group in (SUSPECTS, WEAPONS, ROOMS)]
    owner.update({c: "envelope" for c in envelope})
    rest = [c for c in SUSPECTS + WEAPONS + ROOMS if c not in owner]
    rng.shuffle(rest)
    for k, card in enumerate(rest):
        owner[card] = f"p{2 + k // 3}"
    return owner


def shower(owner: dict[str, str], asker: int, cards: list[str]) -> str:
    for k in range(1, PLAYERS):
        p = f"p{(asker - 1 + k) % PLAYERS + 1}"
        if any(owner[c] == p for c in cards):
            return p
    return "nobody"


def play(rng: np.random.Generator, owner: dict[str, str], rounds: int) -> list[dict]:
    steps = []
    for _ in range(rounds):
        for asker in range(1, PLAYERS + 1):
            cards = [str(rng.choice(SUSPECTS)), str(rng.choice(WEAPONS)), str(rng.choice(ROOMS))]
            who = shower(owner, asker, cards)
            args = dict(zip(["suspect", "weapon", "room"], cards, strict=True))
            if asker == 1:
                steps.append({"query": "suggest", "args": args, "feedback": {"shower": who}})
                if who != "nobody":
                    shown = str(rng.choice([c for c in cards if owner[c] == who]))
                    steps.append({"query": "shown", "args": {"card": shown, "by": who},
                                  "feedback": {"holds": True}})
            else:
                steps.append({"query": "suggestion", "args": {"asker": f"p{asker}", **args},
                              "feedback": {"shower": who}})
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write-docs", action="store_true",
                        help=f"write the observations to {OUT.relative_to(ROOT)}")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    owner = deal(rng)
    steps = play(rng, owner, args.rounds)
    header = (f"# A scripted Clue game (examples/clue_game.py --rounds {args.rounds} --seed "
              f"{args.seed}):\n# you are p1; the envelope holds "
              f"{', '.join(c for c, o in owner.items() if o == 'envelope')}.\n")
    text = header + yaml.safe_dump(steps, sort_keys=False, default_flow_style=None)
    with tempfile.TemporaryDirectory() as tmp:
        path = OUT if args.write_docs else Path(tmp) / OUT.name
        path.write_text(text)
        out = subprocess.run([sys.executable, "-m", "sleuth", "belief", str(SPEC),
                              "--observations", str(path), "--json"], capture_output=True,
                             text=True, check=True, cwd=ROOT)
    data = json.loads(out.stdout)
    for k, s in enumerate(data["observations"], 1):
        a = s["args"]
        what = (f"{a.get('asker', 'p1')} suggests {a['suspect']}, {a['weapon']}, {a['room']}: "
                f"{s['feedback']['shower']} shows" if "suspect" in a
                else f"{a['by']} showed you {a['card']}")
        print(f"{k:2}. {what:58} {s['remaining']:>16,} deals  {s['seconds']:.3f} s")
    print(f"marginals in {data['marginal_seconds']:.3f} s; P(card in the envelope):")
    for card in SUSPECTS + WEAPONS + ROOMS:
        p = data["marginals"][f"owner[{card}]"]["envelope"]
        if p > 0:
            print(f"  {card:13} {p:.4f}")


if __name__ == "__main__":
    main()

"""Decrypto: the own team's guesser and the interceptor, on specs/decrypto-small.yaml.

Each seeded game draws four keywords from the vocabulary; each round draws a
code (three different positions) and samples each clue from the score table
(P(clue | keyword) proportional to exp(score / temperature), computed here
from the CSV, independently of the spec's expression). The guess is the
maximum a posteriori code (ties: the first in canonical order).

* The own team knows its keywords (`keywords_known`): its guess is right
  whenever each clue scores highest with its own keyword, and we count how
  often that holds and how often the guess is right.
* The interceptor starts knowing nothing; each round it guesses from the
  clues and everything learnt from earlier rounds (their clues with the
  revealed codes, `past_round`), so its accuracy climbs round by round.

    python examples/decrypto_small.py [--games 500] [--rounds 8] [--seed 0] [--workers 2]
                                [--plot PNG]
"""

from __future__ import annotations

import argparse
import csv
import time
from functools import partial
from itertools import permutations
from pathlib import Path

import numpy as np
from outputs import chunks, figure, interruptible, output_args, plot_dir, pool_map, shown

from sleuth.compiler import load_game
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event

ROOT = Path(__file__).resolve().parent.parent
GAME = load_game(ROOT / "specs" / "decrypto-small.yaml")
WORDS = (ROOT / "specs" / "decrypto-words.txt").read_text().split()
CLUES = (ROOT / "specs" / "decrypto-clues.txt").read_text().split()
CODES = list(permutations(range(4), 3))  # canonical (lexicographic) order


def score_table() -> np.ndarray:
    table = np.zeros((len(CLUES), len(WORDS)))
    with (ROOT / "specs" / "decrypto-scores.csv").open() as f:
        for row in csv.reader(line for line in f if not line.startswith("#")):
            table[CLUES.index(row[0]), WORDS.index(row[1])] = float(row[2])
    return table


SCORES = score_table()
P_CLUE = np.exp(SCORES / GAME.model.params["temperature"])
P_CLUE /= P_CLUE.sum(axis=0, keepdims=True)  # column w: P(clue | keyword w)


def give_clues(keywords: list[int], code: tuple[int, ...], rng) -> list[str]:
    return [CLUES[int(rng.choice(len(CLUES), p=P_CLUE[:, keywords[i]]))] for i in code]


def map_code(belief: Belief) -> tuple[tuple[int, ...], float]:
    """The most probable code and its probability (ties: canonical order)."""
    c0, c1, c2 = belief.values("code")
    mass = np.bincount(np.asarray(c0) * 16 + np.asarray(c1) * 4 + np.asarray(c2),
                       weights=belief.probabilities(), minlength=64)
    best = int(np.argmax(mass))  # the first maximum: the canonical order of codes
    return (best // 16, best // 4 % 4, best % 4), float(mass[best])


def clues_event(clues: list[str]) -> Event:
    return Event("clues", {}, answer=tuple(clues))


def play(games: int, rounds: int, seed: int, workers: int = 2) -> dict[str, np.ndarray]:
    """The games in `workers` processes; each game has its own spawned seed, so the result
    depends on the seed only, not on the number of workers or on timing."""
    seeds = np.random.SeedSequence(seed).spawn(games)
    parts = pool_map(partial(play_block, rounds=rounds), chunks(seeds, 10), workers, "games")
    total = {k: sum(part[k] for part in parts) for k in parts[0]}
    return {"own": total["own"] / games, "clear": total["clear"] / games,
            "clear_right": total["clear_right"], "clear_count": total["clear"],
            "spy": total["spy"] / games, "spy_p": total["spy_p"] / games}


def play_block(seeds: list[np.random.SeedSequence], rounds: int) -> dict[str, np.ndarray]:
    """Counts over the games of these seeds: own team right, clues all clear, right when
    clear, interceptor right, and the sum of the interceptor's MAP probabilities, per round."""
    own_right = np.zeros(rounds)
    own_clear = np.zeros(rounds)  # each clue scores highest with its own keyword
    own_right_when_clear = np.zeros(rounds)
    spy_right = np.zeros(rounds)
    spy_p = np.zeros(rounds)
    prior = Belief.prior(GAME)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        keywords = [int(w) for w in rng.choice(len(WORDS), 4, replace=False)]
        own = apply_event(prior, Event("keywords_known",
                                       {"known": tuple(WORDS[w] for w in keywords)},
                                       feedback={"same": True}))
        history = prior
        for r in range(rounds):
            code = CODES[int(rng.integers(len(CODES)))]
            clues = give_clues(keywords, code, rng)
            guess, _ = map_code(apply_event(own, clues_event(clues)))
            clear = all(np.argmax(SCORES[CLUES.index(c), keywords]) == i and
                        np.sum(SCORES[CLUES.index(c), keywords] == SCORES[CLUES.index(c),
                                                                          keywords[i]]) == 1
                        for c, i in zip(clues, code, strict=True))
            own_right[r] += guess == code
            own_clear[r] += clear
            own_right_when_clear[r] += clear and guess == code
            guess, p = map_code(apply_event(history, clues_event(clues)))
            spy_right[r] += guess == code
            spy_p[r] += p
            history = apply_event(history, Event("past_round", {"shown": code},
                                                 answer=tuple(clues)))
    return {"own": own_right, "clear": own_clear, "clear_right": own_right_when_clear,
            "spy": spy_right, "spy_p": spy_p}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    output_args(parser)
    args = parser.parse_args()
    start = time.perf_counter()
    out = play(args.games, args.rounds, args.seed, args.workers)
    n = args.games
    print(f"{n} seeded games (seed {args.seed}), {len(WORDS)}-word vocabulary, "
          f"{len(CLUES)} clues, temperature {GAME.model.params['temperature']}")
    print("round  own team right  (clues all clear, right then)  interceptor right  "
          "(its mean MAP probability)  95 % half-width")
    for r in range(args.rounds):
        clear = int(out["clear_count"][r])
        half = 1.96 * np.sqrt(out["spy"][r] * (1 - out["spy"][r]) / n)
        print(f"{r + 1:>5}  {out['own'][r]:>14.3f}  ({out['clear'][r]:.3f}, "
              f"{int(out['clear_right'][r])}/{clear})  {out['spy'][r]:>25.3f}  "
              f"({out['spy_p'][r]:.3f})  ±{half:.3f}")
    folder = plot_dir(args)
    if folder:
        with figure(folder / "decrypto-small.png") as (_, ax):
            draw_accuracy(ax, out, n)
        print(f"accuracy drawn in {shown(folder / 'decrypto-small.png')}")
    print(f"[{time.perf_counter() - start:.0f} s]")


def draw_accuracy(ax, out: dict[str, np.ndarray], n: int) -> None:
    rounds = np.arange(1, len(out["own"]) + 1)
    half = 1.96 * np.sqrt(out["spy"] * (1 - out["spy"]) / n)
    ax.plot(rounds, out["own"], "o-", label="own team (keywords known)")
    ax.errorbar(rounds, out["spy"], yerr=half, fmt="s-", capsize=3, label="interceptor")
    ax.plot(rounds, out["spy_p"], "k:", label="interceptor's mean MAP probability")
    ax.axhline(1 / len(CODES), color="grey", lw=0.8, ls="--", label="chance (1/24)")
    ax.set_xlabel("round")
    ax.set_ylabel(f"right code (of {n} games)")
    ax.set_ylim(0, 1)
    ax.set_title("Decrypto: the guess is the posterior mode")
    ax.legend(fontsize=8)


if __name__ == "__main__":
    interruptible(main)

"""Decrypto with the official keyword list: the own team's guesser and the interceptor.

Each seeded game deals the opponents' keyword card and, round by round, their
codes with the decryptogame package's generators (RandomKeywordCards over the
official English list of 424 words, RandomCodes: three different positions of
four). The encryptor gives one clue per code position, drawn with probability
proportional to exp(score / temperature) from the documented score table
specs/decrypto-scores.csv (computed here from the CSV, independently of the
specs' expressions).

* The interceptor keeps one belief per keyword position
  (specs/decrypto-keyword.yaml: the keyword among the 424 words, uniform).
  After each round the code is revealed and each clue updates the belief of
  its position. To guess, it computes fit[i, s] = P(clue i | position s) =
  sum over words of its belief times P(clue | word), and the code's posterior
  (specs/decrypto.yaml): the guess is the posterior mode.
* The own team knows its keywords: fit[i, s] = P(clue i | its keyword s).
* The notebook's recursion: the maximum over the 24 code assignments of
  prod_i fit[i, code_i], computed here directly. Every guess of both teams is
  checked against it, and so is the interceptor's guess for every code of the
  card (its 24 codes, clues drawn on a separate stream) in the first and last
  round of every game.

The official list is the decryptogame package's (AGPL-3.0-or-later), so Sleuth ships
none of it: the first run writes it, with the theme table and the two specs, into a
folder of your own (examples/decrypto_data.py; --data FOLDER, default
~/.local/share/sleuth/decrypto), and the games load the specs from there.

    python examples/decrypto.py [--games 500] [--rounds 8] [--seed 0] [--workers 2]
                                [--data FOLDER] [--plot DIR | --write-docs]
"""

from __future__ import annotations

import argparse
import csv
import time
from functools import partial
from itertools import permutations
from pathlib import Path

import decrypto_data
import numpy as np

try:
    from decryptogame.generators import RandomCodes, RandomKeywordCards
except ImportError:  # an optional extra (AGPL): say how to get it, not a traceback
    raise SystemExit(f"error: {decrypto_data.HINT}") from None
from outputs import chunks, figure, interruptible, output_args, plot_dir, pool_map, shown, wilson

from sleuth.compiler import Game, load_game
from sleuth.compiler.likelihood import answer_likelihood
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event

CODES = list(permutations(range(4), 3))  # canonical (lexicographic) order


KEYWORD: Game  # the specs and the data, once use(folder) has read them
CODE: Game
WORDS: list[str]
CLUES: list[str]
EVERY_WORD: np.ndarray
P_CLUE: np.ndarray  # column w: P(clue | keyword w)


def use(folder: Path) -> None:
    """Read the specs, the list and the score table that decrypto_data wrote into folder."""
    global KEYWORD, CODE, WORDS, CLUES, EVERY_WORD, P_CLUE
    KEYWORD = load_game(folder / "decrypto-keyword.yaml")
    CODE = load_game(folder / "decrypto.yaml")
    WORDS = (folder / "decrypto-words.txt").read_text().split()  # '_' for '-'
    CLUES = (folder / "decrypto-clues.txt").read_text().split()
    EVERY_WORD = np.arange(KEYWORD.hypotheses.size, dtype=np.int64)
    table = np.zeros((len(CLUES), len(WORDS)))  # scores[clue, word]; 0 where none is listed
    with (folder / "decrypto-scores.csv").open() as f:
        for row in csv.reader(line for line in f if not line.startswith("#")):
            table[CLUES.index(row[0]), WORDS.index(row[1])] = float(row[2])
    P_CLUE = np.exp(table / KEYWORD.model.params["temperature"])
    P_CLUE /= P_CLUE.sum(axis=0, keepdims=True)


def deal(seed: np.random.SeedSequence) -> tuple[list[int], RandomCodes, np.random.Generator]:
    """The opponents' card (word indices) and code generator, with the decryptogame
    package's generators seeded from the game's seed, and the clue stream."""
    card_seed, code_seed = (int(x) for x in seed.generate_state(2))
    card = next(RandomKeywordCards(seed=card_seed))[0]
    keywords = [WORDS.index(w.replace("-", "_")) for w in card]
    return keywords, RandomCodes([card], seed=code_seed), np.random.default_rng(seed)


def give_clues(keywords: list[int], code: tuple[int, ...], rng) -> list[int]:
    return [int(rng.choice(len(CLUES), p=P_CLUE[:, keywords[s]])) for s in code]


def clue_likelihood(clue: int) -> np.ndarray:
    """P(clue | keyword) for every word, read off the keyword spec (a kept table)."""
    return answer_likelihood(KEYWORD, "clue", {}, CLUES[clue], EVERY_WORD)


def fit_of(beliefs: list[Belief], clues: list[int]) -> np.ndarray:
    """fit[i, s] = sum over words of P(keyword s = w) P(clue i | w)."""
    fit = np.zeros((3, 4))
    for i, c in enumerate(clues):
        lik = clue_likelihood(c)
        for s, b in enumerate(beliefs):
            fit[i, s] = float(b.probabilities() @ lik[b.index])
    return fit


def map_code(fit: np.ndarray) -> tuple[tuple[int, ...], float]:
    """Sleuth's posterior mode over the codes (ties: canonical order), and its probability."""
    belief = apply_event(Belief.prior(CODE), Event("clues", {}, answer={
        "fit": tuple(float(x) for x in fit.ravel())}))
    mass = np.zeros(len(CODES))
    c0, c1, c2 = belief.values("code")
    for a, b, c, p in zip(c0, c1, c2, belief.probabilities(), strict=True):
        mass[CODES.index((int(a), int(b), int(c)))] += p
    best = int(np.argmax(mass))
    return CODES[best], float(mass[best])


def recursion(fit: np.ndarray) -> set[tuple[int, ...]]:
    """The notebook's rule: the maximum over code assignments of prod_i fit[i, code_i]; every
    code that reaches it (within rounding: two clues of one theme tie exactly)."""
    value = {code: fit[0, code[0]] * fit[1, code[1]] * fit[2, code[2]] for code in CODES}
    top = max(value.values())
    return {code for code, v in value.items() if v >= top * (1 - 1e-9)}


def known_beliefs(keywords: list[int]) -> list[Belief]:
    prior = Belief.prior(KEYWORD)
    return [prior.restrict(prior.index == w, "the own keyword") for w in keywords]


def play_block(seeds: list[np.random.SeedSequence], rounds: int) -> dict[str, np.ndarray]:
    out = {k: np.zeros(rounds) for k in ("own", "spy", "spy_p", "games")}
    out.update(agree=np.zeros(2, dtype=np.int64), checks=np.zeros(2, dtype=np.int64))
    for seed in seeds:
        keywords, codes, rng = deal(seed)
        check_rng = np.random.default_rng(seed.spawn(1)[0])
        own = known_beliefs(keywords)
        spy = [Belief.prior(KEYWORD) for _ in range(4)]
        for r in range(rounds):
            code = tuple(next(codes)[0])
            clues = give_clues(keywords, code, rng)
            for name, beliefs in (("own", own), ("spy", spy)):
                fit = fit_of(beliefs, clues)
                guess, p = map_code(fit)
                out["agree"][0] += guess in recursion(fit)
                out["checks"][0] += 1
                out[name][r] += guess == code
                if name == "spy":
                    out["spy_p"][r] += p
            if r in (0, rounds - 1):
                for other in CODES:
                    fit = fit_of(spy, give_clues(keywords, other, check_rng))
                    out["agree"][1] += map_code(fit)[0] in recursion(fit)
                    out["checks"][1] += 1
            out["games"][r] += 1
            for s, c in zip(code, clues, strict=True):  # the code is revealed
                spy[s] = apply_event(spy[s], Event("clue", {}, answer=CLUES[c]))
    return out


def play(games: int, rounds: int, seed: int, workers: int) -> dict[str, np.ndarray]:
    """The games in `workers` processes; each game has its own spawned seed, so the result
    depends on the seed only."""
    seeds = np.random.SeedSequence(seed).spawn(games)
    parts = pool_map(partial(play_block, rounds=rounds), chunks(seeds, 10), workers, "games")
    return {k: sum(part[k] for part in parts) for k in parts[0]}


def report(out: dict[str, np.ndarray], games: int, rounds: int) -> None:
    print("round  own team right  95 % (Wilson)     interceptor right  95 % (Wilson)     "
          "interceptor's mean MAP probability")
    for r in range(rounds):
        cells = []
        for name in ("own", "spy"):
            lo, hi = wilson(out[name][r], games)
            cells.append(f"{out[name][r] / games:>17.3f}  [{lo:.3f}, {hi:.3f}]")
        print(f"{r + 1:>5}  " + "  ".join(cells) + f"  {out['spy_p'][r] / games:>20.3f}")
    print(f"the posterior mode equals the notebook's recursion in {out['agree'][0]} of "
          f"{out['checks'][0]} guesses, and in {out['agree'][1]} of {out['checks'][1]} "
          "checks on every code of a card (rounds 1 and last)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data", type=Path, default=decrypto_data.default_folder(),
                        metavar="FOLDER", help="where the official list and its specs are "
                        "written (default: %(default)s)")
    output_args(parser)
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1 or args.workers < 1:
        raise SystemExit("error: --games, --rounds and --workers must be at least 1")
    start = time.perf_counter()
    use(decrypto_data.write(args.data))
    out = play(args.games, args.rounds, args.seed, args.workers)
    print(f"{args.games} seeded games (seed {args.seed}), {args.rounds} rounds: the official "
          f"list of {len(WORDS)} keywords (decryptogame's card and code generators), "
          f"{len(CLUES)} clues, temperature {KEYWORD.model.params['temperature']}; "
          f"specs and list in {args.data}")
    report(out, args.games, args.rounds)
    folder = plot_dir(args)
    if folder:
        with figure(folder / "decrypto.png") as (_, ax):
            draw_accuracy(ax, out, args.games)
        print(f"accuracy drawn in {shown(folder / 'decrypto.png')}")
    print(f"[{time.perf_counter() - start:.0f} s]")


def draw_accuracy(ax, out: dict[str, np.ndarray], n: int) -> None:
    rounds = np.arange(1, len(out["own"]) + 1)
    for name, label, fmt in (("own", "own team (keywords known)", "o-"),
                             ("spy", "interceptor", "s-")):
        rate = out[name] / n
        ci = np.array([wilson(w, n) for w in out[name]])
        ax.errorbar(rounds, rate, yerr=[rate - ci[:, 0], ci[:, 1] - rate], fmt=fmt,
                    capsize=3, label=label)
    ax.plot(rounds, out["spy_p"] / n, "k:", label="interceptor's mean MAP probability")
    ax.axhline(1 / len(CODES), color="grey", lw=0.8, ls="--", label="chance (1/24)")
    ax.set_xlabel("round")
    ax.set_ylabel(f"right code (of {n} games)")
    ax.set_ylim(0, 1)
    ax.set_title("Decrypto, official keyword list: the guess is the posterior mode")
    ax.legend(fontsize=8)


if __name__ == "__main__":
    interruptible(main)

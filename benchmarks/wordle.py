"""Wordle: the feedback kernels against hand-written numpy, the first decision, and the
whole entropy evaluation (issue 18).

In one process, each measured `--repeat` times (the best is reported):

* the hand-written baseline: the 12,972 x 2,315 matrix of marks computed directly in
  numpy (per position: green where equal; yellow while the answer has copies of the
  letter not matched green and not claimed by an earlier yellow, from letter counts
  per answer), and a first decision from it (entropy of every guess's partition by
  bincount, the best guess);
* Sleuth: the same matrix by the spec's feedback kernels (a freshly loaded game each
  time), checked equal to the baseline's, and the first decision of `--strategy
  entropy` (a fresh game: its matrix, then scoring);
* the whole evaluation of `--strategy entropy` over the 2,315 answers, once.

It prints the times and the ratios Sleuth / baseline, and exits 1 when a target of
issue 18 is missed: matrix ratio <= 1.5, first decision <= 3 s, evaluation <= 60 s.

    python benchmarks/wordle.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from sleuth.compiler.api import load_game
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy

SPEC = Path(__file__).resolve().parent.parent / "specs" / "wordle.yaml"
LISTS = SPEC.parent


def words(name: str) -> np.ndarray:
    lines = (LISTS / name).read_text().split()
    return np.array([[ord(c) - 97 for c in w] for w in lines], dtype=np.int8)


def hand_matrix(guesses: np.ndarray, answers: np.ndarray, step: int = 128) -> np.ndarray:
    """Codes base 3 (grey 0, yellow 1, green 2), first letter most significant. Blocks of
    128 guesses measured fastest here (0.46 s; 0.67 s in blocks of 2,048)."""
    h = len(answers)
    copies = np.zeros((26, h), dtype=np.int8)  # copies of each letter in each answer
    for k in range(5):
        np.add.at(copies, (answers[:, k], np.arange(h)), 1)
    out = np.empty((len(guesses), h), dtype=np.uint8)
    for lo in range(0, len(guesses), step):
        g = guesses[lo:lo + step]
        green = [g[:, k, None] == answers[None, :, k] for k in range(5)]
        same = g[:, :, None] == g[:, None, :]  # (guesses, 5, 5): equal letters in a guess
        code = np.zeros((len(g), h), dtype=np.uint8)
        for i in range(5):
            left = copies[g[:, i]].copy()  # copies of g[i] in the answer ...
            claimed = np.zeros_like(left)
            for k in range(5):
                s = same[:, i, k][:, None]
                left -= green[k] & s  # ... not matched green
                if k < i:
                    claimed += ~green[k] & s  # earlier non-green copies claim them first
            mark = np.where(green[i], 2, (left > claimed).astype(np.uint8))
            code = code * 3 + mark
        out[lo:lo + step] = code
    return out


def hand_first(guesses: np.ndarray, answers: np.ndarray) -> int:
    """The guess with the least expected entropy left (sum n log n), first on ties."""
    codes = hand_matrix(guesses, answers)
    q = len(guesses)
    parts = np.bincount((codes.astype(np.int64) + np.arange(q)[:, None] * 243).ravel(),
                        minlength=q * 243).reshape(q, 243)
    nlogn = np.where(parts > 0, parts * np.log2(np.maximum(parts, 1)), 0.0).sum(axis=1)
    return int(np.argmin(nlogn))


def best(times: list[float]) -> float:
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    answers = words("wordle-answers.txt")
    guesses = np.unique(np.concatenate([answers, words("wordle-allowed.txt")]), axis=0)

    hand, ours, hand_dec, our_dec = [], [], [], []
    expected = None
    for _ in range(args.repeat):
        start = time.perf_counter()
        expected = hand_matrix(guesses, answers)
        hand.append(time.perf_counter() - start)
        game = load_game(SPEC)
        start = time.perf_counter()
        codes = game.feedback_matrix("guess", np.arange(game.space("guess").size))
        ours.append(time.perf_counter() - start)
        assert np.array_equal(codes, expected), "the kernels disagree with the hand-written rule"
        start = time.perf_counter()
        hand_pick = hand_first(guesses, answers)
        hand_dec.append(time.perf_counter() - start)
        game = load_game(SPEC)
        candidates = Candidates(game)
        strategy = make_strategy("entropy", candidates)
        start = time.perf_counter()
        query = strategy.choose(Belief.prior(game))
        our_dec.append(time.perf_counter() - start)
        ours_word = "".join(candidates.args(query)["w"])
        hand_word = "".join(chr(97 + c) for c in guesses[hand_pick])
        assert ours_word == hand_word, (ours_word, hand_word)

    game = load_game(SPEC)
    start = time.perf_counter()
    ev = evaluate_strategy(game, make_strategy("entropy", Candidates(game)), str(SPEC))
    full = time.perf_counter() - start

    ratio, dec_ratio = best(ours) / best(hand), best(our_dec) / best(hand_dec)
    print(f"feedback matrix 12,972 x 2,315: hand-written numpy {best(hand):.3f} s, Sleuth "
          f"{best(ours):.3f} s, ratio {ratio:.2f} (target <= 1.5); identical codes")
    print(f"first decision (entropy, {ours_word}): hand-written {best(hand_dec):.3f} s, Sleuth "
          f"{best(our_dec):.3f} s, ratio {dec_ratio:.2f} (target <= 3 s)")
    print(f"entropy over all 2,315 answers: {full:.2f} s (target <= 60 s), total {ev.total:,}, "
          f"average {float(ev.average):.4f}, worst {ev.worst}")
    missed = ratio > 1.5 or best(our_dec) > 3 or full > 60
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()

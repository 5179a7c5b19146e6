"""Feedback-kernel speed: the compiled Mastermind spec vs a hand-written numpy scorer.

Two workloads, both measured in the same run (best of several repeats):

1. the full MM(4,6) feedback matrix, 1296 guesses x 1296 codes;
2. MM(5,8) partition counts of 1000 guesses (seeded sample) against all 32768 codes.

The hand-written scorer is what a competent numpy programmer would write for
Mastermind alone: colour counts per code computed once, black pegs by
position, whites as the sum of per-colour minima minus blacks. Both paths
must agree exactly; the script checks that before timing. Prints the ratio
compiled / hand-written (target: <= 1.5).

    python benchmarks/feedback.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np

from sleuth.compiler import load_game

SPEC = Path(__file__).resolve().parent.parent / "specs" / "mastermind.yaml"


def all_codes(pegs: int, colours: int) -> np.ndarray:
    """Every code as a (N, pegs) int8 array, lexicographic (as the spec's canonical order)."""
    return np.array(list(itertools.product(range(1, colours + 1), repeat=pegs)), dtype=np.int8)


def colour_counts(codes: np.ndarray, colours: int) -> np.ndarray:
    return np.stack([(codes == c).sum(axis=1, dtype=np.int8) for c in range(1, colours + 1)],
                    axis=1)


def hand_feedback(guesses: np.ndarray, codes: np.ndarray, colours: int,
                  code_counts: np.ndarray | None = None) -> np.ndarray:
    """Feedback codes black * (pegs + 1) + white, shape (guesses, codes)."""
    pegs = codes.shape[1]
    if code_counts is None:
        code_counts = colour_counts(codes, colours)
    guess_counts = colour_counts(guesses, colours)
    black = np.zeros((len(guesses), len(codes)), dtype=np.int8)
    for i in range(pegs):
        black += guesses[:, i, None] == codes[None, :, i]
    common = np.zeros_like(black)
    for c in range(colours):
        common += np.minimum(guess_counts[:, c, None], code_counts[None, :, c])
    return black.astype(np.int32) * (pegs + 1) + (common - black)


def hand_partitions(guesses: np.ndarray, codes: np.ndarray, colours: int,
                    chunk: int = 256) -> np.ndarray:
    pegs = codes.shape[1]
    size = (pegs + 1) ** 2
    code_counts = colour_counts(codes, colours)
    out = np.zeros((len(guesses), size), dtype=np.int64)
    for lo in range(0, len(guesses), chunk):
        fb = hand_feedback(guesses[lo:lo + chunk], codes, colours, code_counts)
        offsets = (np.arange(len(fb), dtype=np.int64) * size)[:, None]
        out[lo:lo + len(fb)] = np.bincount((fb + offsets).ravel(),
                                           minlength=len(fb) * size).reshape(len(fb), size)
    return out


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def same_partitions(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal multisets of part sizes per guess (the two codings number feedbacks differently)."""
    return all(sorted(x[x > 0]) == sorted(y[y > 0]) for x, y in zip(a, b, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    # 1. MM(4,6) full feedback matrix.
    game = load_game(SPEC)
    codes = all_codes(4, 6)
    ranks = np.arange(game.hypotheses.size)
    game.feedback_matrix("guess", ranks[:1])  # build the table and compile once
    compiled = game.feedback_matrix("guess", ranks)
    hand = hand_feedback(codes, codes, 6)
    coder = game.coder("guess")
    decoded = {(f["black"], f["white"]) for f in map(coder.decode, np.unique(compiled))}
    assert decoded == {(c // 5, c % 5) for c in np.unique(hand)}
    assert np.array_equal(np.unique(compiled, return_inverse=True)[1].reshape(compiled.shape),
                          np.unique(hand, return_inverse=True)[1].reshape(hand.shape))
    t_compiled = best_time(lambda: game.feedback_matrix("guess", ranks), args.repeats)
    t_hand = best_time(lambda: hand_feedback(codes, codes, 6), args.repeats)
    print(f"MM(4,6) feedback matrix 1296x1296: compiled {t_compiled * 1e3:8.2f} ms, "
          f"hand-written {t_hand * 1e3:8.2f} ms, ratio {t_compiled / t_hand:.2f}")

    # 2. MM(5,8) partition counts of 1000 guesses.
    game = load_game(SPEC, {"pegs": 5, "colours": 8})
    codes = all_codes(5, 8)
    rng = np.random.default_rng(2024)
    ranks = np.sort(rng.choice(game.hypotheses.size, size=1000, replace=False))
    game.partition_counts("guess", ranks[:1])
    compiled = game.partition_counts("guess", ranks)
    hand = hand_partitions(codes[ranks], codes, 8)
    assert same_partitions(compiled, hand)
    t_compiled = best_time(lambda: game.partition_counts("guess", ranks), args.repeats)
    t_hand = best_time(lambda: hand_partitions(codes[ranks], codes, 8), args.repeats)
    print(f"MM(5,8) partitions 1000x32768:     compiled {t_compiled * 1e3:8.2f} ms, "
          f"hand-written {t_hand * 1e3:8.2f} ms, ratio {t_compiled / t_hand:.2f}")


if __name__ == "__main__":
    main()

"""How does each first query split a game's hypotheses? (the compiler API in 20 lines)

    python examples/first_moves.py specs/mastermind.yaml
    python examples/first_moves.py specs/mastermind.yaml --set pegs=3

Groups the legal first queries by the sizes of the parts they split the
hypothesis space into, and prints one line per group: an example query, how
many queries share that split, the number of parts and the largest part.
"""

from __future__ import annotations

import sys

import numpy as np

from sleuth.compiler import load_game
from sleuth.compiler.game import parse_overrides


def main(path: str, overrides: list[str]) -> None:
    game = load_game(path, parse_overrides(overrides))
    print(f"{game.name}: {game.hypotheses.size} hypotheses")
    for action in game.model.queries:
        if action.feedback is None:
            continue
        space = game.space(action.name)
        groups: dict[tuple[int, ...], list[int]] = {}
        for ranks in space.legal_ranks():
            for rank, row in zip(ranks, game.partition_counts(action.name, ranks), strict=True):
                groups.setdefault(tuple(sorted(row[row > 0], reverse=True)), []).append(rank)
        for parts, ranks in sorted(groups.items(), key=lambda kv: kv[0][0]):
            example = space.value(int(np.min(ranks)))
            print(f"  {action.name} {example}: {len(ranks)} queries, {len(parts)} parts, "
                  f"largest {parts[0]}")


if __name__ == "__main__":
    main(sys.argv[1], [a for a in sys.argv[2:] if a != "--set"])

"""Playing a saved decision tree back: `--strategy tree --from-tree FILE`.

The tree is one written by `sleuth evaluate --tree FILE` (solver/evaluation/
trees.py). It is verified against the spec when loaded (every secret must
reach an end), and each of its query nodes is indexed by the set of
hypotheses that reach it; a belief is looked up by its hypotheses, so the
strategy plays the tree in `evaluate`, `solve` and `play` alike, and says so
when the game leaves the tree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError, option, said
from sleuth.solver.infoset.observe import checked_args
from sleuth.solver.infoset.queries import AnyBelief, Candidates, Query
from sleuth.solver.strategies.base import ListedStrategy, Option
from sleuth.solver.strategies.trees import tree_index
from sleuth.solver.wording import counted


class TreePlayback(ListedStrategy):
    name = "tree"
    orbit_queries = True  # it reads its queries from the file, and lists none
    from_tree = Option(str, None, "the tree file (JSON, from evaluate --tree) to play back",
                       optional=True)

    def __init__(self, candidates: Candidates, seed: int = 0, **options: Any):
        super().__init__(candidates, seed, **options)
        if self.from_tree is None:
            raise SleuthError(f'{option("strategy", "tree")} needs {option("from_tree", "FILE")}',
                              hint="write one with " + said(
                                  "sleuth evaluate SPEC --strategy optimal --tree FILE",
                                  "the command line's `sleuth evaluate SPEC --strategy optimal "
                                  "--tree FILE`"))
        path = Path(self.from_tree)
        try:
            document = json.loads(path.read_text())
        except OSError as err:
            raise SleuthError(f"cannot read {path}: {err.strerror}") from None
        except json.JSONDecodeError as err:
            raise SleuthError(f"{path}:{err.lineno}:{err.colno}: not JSON ({err.msg})") \
                from None
        except RecursionError:
            raise SleuthError(f"{path}: JSON nested too deeply to read") from None
        self.index = tree_index(candidates.game, document)

    def choose(self, belief: AnyBelief) -> Query:
        belief = self.prepared(belief)
        q = self.index.get(np.sort(belief.index).astype(np.int64).tobytes())
        if q is None:
            raise SleuthError(f"the game has left the tree in {self.from_tree}: no node has "
                              f"these {counted(belief.size, 'hypothesis')}",
                              hint="the tree covers the feedbacks its strategy met")
        game = self.candidates.game
        args = checked_args(game, game.model.action(q["query"]), q["args"])
        return Query(q["query"], int(game.space(q["query"]).rank(args)))


__all__ = ["TreePlayback"]

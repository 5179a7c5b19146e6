"""The exact searches, this checkout against a baseline revision, side by side in one run:
the same `sleuth evaluate ... --tree FILE` in both, their wall times and ratio, and
whether the trees they write are byte-identical.

The baseline is checked out into a temporary git worktree. Each side runs in its own
Python process whose `sleuth` package is that side's folders (the editable install's
finder is set aside, so the baseline's code is not this checkout's), with its own numba
cache (a warm-up command fills each first). The commands alternate between the sides,
`--repeats` times; the table gives each side's best wall time, the ratio this/baseline
and whether every tree matched. It exits 1 if a tree differs.

    python benchmarks/search_speed.py [--baseline REV] [--repeats 1] [--games mm46,...]
"""

from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = "evaluate mastermind --set pegs=3 --set colours=3 --strategy optimal"
# key -> (name, the evaluate command (a --tree FILE is added), timed: else a tree only)
GAMES: dict[str, tuple[str, str, bool]] = {
    "mm46": ("MM(4,6)", "evaluate mastermind --strategy optimal", True),
    "mm47": ("MM(4,7)", "evaluate mastermind --set colours=7 --strategy optimal", True),
    "mm48": ("MM(4,8)", "evaluate mastermind --set colours=8 --strategy optimal", True),
    "bulls": ("Bulls and Cows", "evaluate bulls-and-cows --strategy optimal", True),
    "wordle": ("Wordle, salet first", "evaluate wordle --strategy optimal --first salet",
               True),
    "battleship": ("Battleship 4 x 4 (3 + 2)", "evaluate battleship --set n=4 --set "
                   "carrier=0 --set battleship=0 --set submarine=0 --strategy optimal",
                   False),
    "ulam": ("Ulam n = 16", "evaluate ulam --strategy optimal-worst", False),
    "liar": ("liar MM(3,3)", "evaluate mastermind-lie --set pegs=3 --set colours=3 "
             "--strategy optimal-worst", False),
}
# a side's process: its own folders as the `sleuth` package, the editable finder set aside
LAUNCH = """import sys
where = sys.argv.pop(1)
sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in type(f).__module__]
sys.path.insert(0, where)
import sleuth
sleuth.__path__[:] = [where + '/sleuth', where]
from sleuth.solver.interfaces.cli import run
run()
"""


def run(where: Path, cache: Path, args: str, tree: Path | None) -> float:
    extra = [] if tree is None else ["--tree", str(tree)]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", LAUNCH, str(where), *args.split(), *extra],
                          cwd=where, capture_output=True, text=True,
                          env={**_environ(), "NUMBA_CACHE_DIR": str(cache)})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{where}: sleuth {args} failed:\n{done.stderr[-2000:]}")
    return seconds


def _environ() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="87dde57")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args()
    names = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in names if g not in GAMES]
    if unknown:
        raise SystemExit(f"unknown games {unknown}; known: {list(GAMES)}")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.baseline],
                       cwd=ROOT, check=True, capture_output=True)
        try:
            sides = {"baseline": base, "this": ROOT}
            caches = {side: Path(tmp) / f"cache-{side}" for side in sides}
            for side, where in sides.items():
                run(where, caches[side], WARM_UP, None)
            rows, same_all = [], True
            for key in names:
                name, command, timed = GAMES[key]
                best = {side: float("inf") for side in sides}
                trees = {side: Path(tmp) / f"{side}.json" for side in sides}
                for _ in range(args.repeats):
                    for side, where in sides.items():
                        took = run(where, caches[side], command, trees[side])
                        best[side] = min(best[side], took)
                same = filecmp.cmp(trees["baseline"], trees["this"], shallow=False)
                same_all &= same
                ratio = best["this"] / best["baseline"]
                rows.append((name, best["baseline"], best["this"], ratio, same, timed))
                print(f"{name:26} baseline {best['baseline']:8.2f} s  this "
                      f"{best['this']:8.2f} s  ratio {ratio:5.3f}  tree "
                      f"{'identical' if same else 'DIFFERS'}", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT,
                           capture_output=True)
    print(f"\n| game | baseline {args.baseline} (s) | this (s) | ratio | tree |")
    print("|---|---:|---:|---:|---|")
    for name, b, t, r, same, timed in rows:
        shown = f"{r:.3f}" if timed else f"({r:.3f})"
        print(f"| {name} | {b:.2f} | {t:.2f} | {shown} | "
              f"{'byte-identical' if same else 'differs'} |")
    print("\nratios in parentheses: games whose trees are compared, not their speed")
    sys.exit(0 if same_all else 1)


if __name__ == "__main__":
    main()

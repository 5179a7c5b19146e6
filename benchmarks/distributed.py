"""Work split over Dask workers against the serial run (issue 17).

For each case it runs `sleuth evaluate` serially, then with a local Dask cluster of
`--workers` processes started in the same run, checks that both write the same
decision tree, and prints both wall times and the speed-up. The split run's time
includes starting the cluster and building the game in each worker.

    python benchmarks/distributed.py [--workers 2] [--cases small|all]

Cases: MM(4,4) and MM(4,6) optimal (the search's first level split), MM(4,6)
optimal-worst, and MM(5,8) minimax (the subtrees one query down walked on the
workers, each keeping its own feedback rows).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = {
    "MM(4,4) optimal": ["mastermind", "--set", "pegs=4", "--set", "colours=4",
                        "--strategy", "optimal"],
    "MM(4,6) optimal": ["mastermind", "--strategy", "optimal"],
    "MM(4,6) optimal-worst": ["mastermind", "--strategy", "optimal-worst"],
    "MM(5,8) minimax": ["mastermind", "--set", "pegs=5", "--set", "colours=8",
                        "--strategy", "minimax"],
}
SMALL = ("MM(4,4) optimal", "MM(4,6) optimal")


def timed(args: list[str], tree: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sleuth", "evaluate", *args, "--tree", str(tree),
                    "--json"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cases", choices=("small", "all"), default="all")
    args = parser.parse_args()
    names = SMALL if args.cases == "small" else tuple(CASES)
    print(f"{'case':<24} {'total':>8} {'worst':>5} {'serial s':>9} "
          f"{f'{args.workers} workers s':>12} {'speed-up':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            serial_tree, split_tree = Path(tmp) / "serial.json", Path(tmp) / "split.json"
            serial = timed(CASES[name], serial_tree)
            split = timed([*CASES[name], "--workers", str(args.workers)], split_tree)
            a, b = json.loads(serial_tree.read_text()), json.loads(split_tree.read_text())
            if a != b:
                raise SystemExit(f"{name}: the split run's tree differs from the serial one")
            print(f"{name:<24} {a['total']:>8,} {a['worst']:>5} {serial:>9.1f} "
                  f"{split:>12.1f} {serial / split:>9.2f}", flush=True)


if __name__ == "__main__":
    main()

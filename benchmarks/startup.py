"""Start-up: the wall time of whole `sleuth` processes, this checkout against a baseline
revision, measured side by side in one run (issue 14's targets).

The baseline is checked out into a temporary git worktree and run from there (it
installed top-level `compiler` and `solver` packages; this checkout's package is
`sleuth`). Both trees are byte-compiled first, as `pip install` does for an
installed package (this machine sets PYTHONDONTWRITEBYTECODE, so an editable
checkout would otherwise compile its sources in every process). Each command
runs alternately in both, `--repeats` times; the table gives the best and the
median wall time of each and their ratio.

    python benchmarks/startup.py [--baseline 23a0e93] [--repeats 7] [--first-runs 2]

Targets (2 cores): `sleuth --version` <= 0.3 s, `sleuth check specs/mastermind.yaml`
<= 0.6 s, `sleuth evaluate specs/counterfeit-coin.yaml --strategy minimax` <= 0.6 s.

The first run: `sleuth evaluate mastermind --strategy optimal` with an empty numba cache
(NUMBA_CACHE_DIR a new folder: every kernel compiled) against the same command again on
that cache (every kernel read back), `--first-runs` times each; the ratio is cold over
warm. Target (issue 69): cold <= 10 s on 2 idle cores.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST_RUN = "evaluate mastermind --strategy optimal"
FIRST_RUN_TARGET = 10.0
COMMANDS = [
    ("--version", 0.3),
    ("check specs/mastermind.yaml", 0.6),
    ("evaluate specs/counterfeit-coin.yaml --strategy minimax", 0.6),
]
MAINS = {  # how each side's command line is started: its console script's entry point
    "baseline": "from solver.cli import main; main()",
    "this": "from sleuth.solver.interfaces.cli import run; run()",
}


def run(side: str, where: Path, args: str) -> float:
    env = {"PYTHONPATH": str(where)} if side == "baseline" else {}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", MAINS[side], *args.split()], cwd=where, check=True,
                   capture_output=True, env={**_environ(), **env})
    return time.perf_counter() - start


def first_runs(repeats: int) -> list[tuple[float, float, bool]]:
    """(cold, warm, the first-run notice printed) for FIRST_RUN, each on a new cache."""
    out = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            # (the notice is shown where progress is: a terminal, or TTY_COMPATIBLE=1)
            env = {**_environ(), "NUMBA_CACHE_DIR": cache, "TTY_COMPATIBLE": "1"}
            times, said = [], []
            for _ in range(2):
                start = time.perf_counter()
                done = subprocess.run([sys.executable, "-c", MAINS["this"],
                                       *FIRST_RUN.split()], cwd=ROOT, check=True,
                                      capture_output=True, text=True, env=env)
                times.append(time.perf_counter() - start)
                said.append("compiling search kernels" in done.stderr)
            out.append((times[0], times[1], said[0] and not said[1]))
    return out


def _environ() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="23a0e93", help="git revision to compare with")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--first-runs", type=int, default=2,
                        help="cold/warm pairs of the first-run measurement (0: none)")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), opts.baseline],
                       cwd=ROOT, check=True, capture_output=True)
        try:
            for tree in (ROOT, base):  # bytecode, as `pip install` writes it for a package
                subprocess.run([sys.executable, "-m", "compileall", "-q", "compiler", "solver",
                                *(["sleuth"] if (tree / "sleuth").is_dir() else [])],
                               cwd=tree, check=True, capture_output=True)
            rows = []
            for args, target in COMMANDS:
                times: dict[str, list[float]] = {"baseline": [], "this": []}
                run("this", ROOT, args)  # warm the file cache (and Lark's grammar cache)
                run("baseline", base, args)
                for _ in range(opts.repeats):
                    times["baseline"].append(run("baseline", base, args))
                    times["this"].append(run("this", ROOT, args))
                rows.append((args, target, times))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT,
                           check=True, capture_output=True)
    print(f"baseline {opts.baseline}, {opts.repeats} runs each, alternating; seconds")
    print("| command | target | baseline best | baseline median | now best | now median "
          "| ratio (median) | met |")
    print("|---|---|---|---|---|---|---|---|")
    for args, target, t in rows:
        b, n = t["baseline"], t["this"]
        print(f"| `sleuth {args}` | {target:.1f} | {min(b):.2f} | {statistics.median(b):.2f} "
              f"| {min(n):.2f} | {statistics.median(n):.2f} "
              f"| {statistics.median(n) / statistics.median(b):.2f} "
              f"| {'yes' if statistics.median(n) <= target else 'no'} |")
    if opts.first_runs:
        pairs = first_runs(opts.first_runs)
        print(f"\nfirst run, `sleuth {FIRST_RUN}`: an empty numba cache (cold) against "
              f"the same cache again (warm); seconds")
        print("| cold | warm | cold / warm | notice only when cold | cold target met |")
        print("|---|---|---|---|---|")
        for cold, warm, said in pairs:
            print(f"| {cold:.2f} | {warm:.2f} | {cold / warm:.1f} | {'yes' if said else 'no'} "
                  f"| {'yes' if cold <= FIRST_RUN_TARGET else 'no'} |")


if __name__ == "__main__":
    main()

"""Sleuth's exact search side by side with the C solver arfst23/Mastermind (issue 33).

For each size MM(4, colours) and each criterion it runs Sleuth (`optimal`: the least
total, then the least worst case; `optimal-worst`: the least worst case, then the
least total) and, given the path of an arfst23/Mastermind checkout, that solver
built for the same size, and prints both totals, worst cases and times with their
ratio. The C solver is configured by three `#define`s (positions, colours, the
greatest depth allowed); its least total within depth d is Sleuth's `optimal` when
d is at least the optimum's worst case, and `optimal-worst` when d is the least
worst case. Its source is copied into a scratch folder, the defines set there, and
built with gcc, with one line added to `main` that prints the root's score (the
guesses beyond each secret's last) and greatest depth, from which the total and the
worst case are read. Nothing of it is kept or shipped (it is GPL). Without
`--arfst23`, Sleuth alone is reported.

Sleuth runs as people run it: `sleuth evaluate specs/mastermind.yaml --set colours=C
--strategy S --json`, through the console script's entry (`cli.run`). Its times:
"in-process" from the command's start to its output (the modules it imports, loaded
first, excluded), and "wall" for the whole process with its start-up. The C
solver's: the wall time of its process. Both run
single-threaded here, one after the other, on the same machine.

Sleuth's modules are byte-compiled first (into the checkout's `__pycache__` folders,
as `benchmarks/startup.py` does), as an installed package has them: a checkout run
with PYTHONDONTWRITEBYTECODE (this machine sets it) would otherwise compile its
sources in every process, 0.1-0.3 s of the wall time. The first line printed says
whether SciPy is installed: when it is, numba imports `scipy.linalg` at its first
compiled call (to know whether BLAS is there), which adds 0.1-0.2 s to Sleuth's
in-process time. SciPy is not one of Sleuth's dependencies, so a fresh install has
the faster figure.

    python benchmarks/arfst23.py [--arfst23 PATH] [--colours 6,7] [--criteria optimal,worst]

Targets (issue 33, 2 cores): MM(4,6) optimal <= 0.7 s in-process and <= 1.5 s wall;
MM(4,7) <= 60 s; MM(4,8) 20,471 in <= 10 minutes, and optimal-worst 6 with 20,473.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the C solver's greatest depth for each criterion: at least the optimum's worst case
# (optimal), or the least worst case (optimal-worst); published in its README
DEPTHS = {("optimal", 6): 6, ("optimal", 7): 6, ("optimal", 8): 7,
          ("worst", 6): 5, ("worst", 7): 6, ("worst", 8): 6}
REPORT = ('  printf("score=%u max=%u\\n", (unsigned)solution[row].score, '
          '(unsigned)solution[row].max);\n')
STRATEGY = {"optimal": "optimal", "worst": "optimal-worst"}
SLEUTH = """
import json, sys, time
import sleuth.solver.interfaces.commands.evaluate  # the command's imports, as `sleuth` makes them
from sleuth.solver.interfaces.cli import run
start = time.perf_counter()
sys.argv[0] = "sleuth"
run()  # `sleuth evaluate ... --json`, as the console script runs it
print(json.dumps({"in_process": time.perf_counter() - start}), file=sys.stderr)
"""


def sleuth(colours: int, criterion: str) -> dict:
    """Sleuth's proven total, worst case, and times (in-process, wall): the command
    `sleuth evaluate specs/mastermind.yaml --set colours=C --strategy S --json`."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", SLEUTH, "evaluate", "specs/mastermind.yaml",
                           "--set", f"colours={colours}", "--strategy", STRATEGY[criterion],
                           "--json"], check=True, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    out = json.loads(done.stdout)
    if "proven" not in out:
        raise SystemExit(f"MM(4,{colours}) {STRATEGY[criterion]}: no proof in the output")
    times = json.loads(done.stderr.strip().splitlines()[-1])
    return {"total": out["total"], "worst": out["worst"], "wall": wall, **times}


def build(source: Path, colours: int, depth: int, where: Path) -> Path:
    """The C solver compiled for MM(4, colours) within `depth` guesses, in `where`."""
    text = (source / "mastermind.c").read_text()
    for name, value in (("POSITIONS", 4), ("COLORS", colours), ("DEPTH_MAX", depth)):
        text, n = re.subn(rf"^#define {name} \d+$", f"#define {name} {value}", text,
                          count=1, flags=re.M)
        if n != 1:
            raise SystemExit(f"{source / 'mastermind.c'}: no '#define {name}' line to set")
    # the one line added: print the root's score before its tree (the tree printer
    # writes subtrees in their stored, symmetric form, so it cannot be summed)
    text, n = re.subn(r"^  printsolution\(row\);$", lambda m: REPORT + m.group(0), text,
                      count=1, flags=re.M)
    if n != 1:
        raise SystemExit(f"{source / 'mastermind.c'}: no 'printsolution(row);' line in main")
    folder = where / f"mm4-{colours}-{depth}"
    if (folder / "mastermind").is_file():  # built already (both criteria share a depth)
        return folder / "mastermind"
    folder.mkdir()
    (folder / "mastermind.c").write_text(text)
    subprocess.run(["gcc", "-std=c99", "-O3", "-march=native", "-funroll-loops",
                    "-o", "mastermind", "mastermind.c"], cwd=folder, check=True)
    return folder / "mastermind"


def arfst23(binary: Path, secrets: int) -> dict:
    """The C solver's total and worst case, from the root's score (the guesses beyond
    each secret's last) and greatest depth (from 0) that the build prints, and its wall
    time."""
    start = time.perf_counter()
    out = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    got = re.search(r"score=(\d+) max=(\d+)", out)
    if got is None:
        raise SystemExit(f"{binary}: no score in its output")
    return {"total": int(got.group(1)) + secrets, "worst": int(got.group(2)) + 1, "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arfst23", type=Path, help="an arfst23/Mastermind checkout")
    parser.add_argument("--colours", default="6,7", help="sizes MM(4, c), comma-separated")
    parser.add_argument("--criteria", default="optimal,worst")
    opts = parser.parse_args()
    if opts.arfst23 is not None and not (opts.arfst23 / "mastermind.c").is_file():
        raise SystemExit(f"{opts.arfst23}: no mastermind.c (an arfst23/Mastermind checkout)")
    if opts.arfst23 is not None and shutil.which("gcc") is None:
        raise SystemExit("gcc is needed to build the C solver")
    # bytecode, as `pip install` writes it for a package
    subprocess.run([sys.executable, "-m", "compileall", "-q", "compiler", "solver"], cwd=ROOT,
                   check=True, capture_output=True)
    scipy = importlib.util.find_spec("scipy") is not None
    print(f"Python {sys.version.split()[0]}; Sleuth's bytecode compiled first; SciPy "
          + ("installed (numba imports scipy.linalg at its first compiled call)" if scipy
             else "not installed"))
    # C/Sleuth: arfst23's wall time over Sleuth's in-process time, then over its wall
    # time (above 1: Sleuth is the faster)
    print(f"{'size':<8} {'criterion':<14} {'Sleuth':>16} {'in-process':>11} {'wall':>8}"
          f" {'arfst23':>16} {'wall':>8} {'C/Sleuth':>17}")
    with tempfile.TemporaryDirectory() as tmp:
        for colours in [int(c) for c in opts.colours.split(",")]:
            for criterion in opts.criteria.split(","):
                ours = sleuth(colours, criterion)
                line = (f"MM(4,{colours}) {STRATEGY[criterion]:<14} "
                        f"{ours['total']:>10,} ({ours['worst']})   {ours['in_process']:>9.3f}s"
                        f" {ours['wall']:>7.3f}s")
                if opts.arfst23 is not None:
                    binary = build(opts.arfst23, colours, DEPTHS[criterion, colours], Path(tmp))
                    theirs = arfst23(binary, colours ** 4)
                    if theirs["total"] != ours["total"]:
                        line += "  (totals differ!)"
                    line += (f" {theirs['total']:>10,} ({theirs['worst']})  "
                             f"{theirs['wall']:>7.3f}s "
                             f"{theirs['wall'] / ours['in_process']:>7.2f}x, "
                             f"{theirs['wall'] / ours['wall']:.2f}x")
                print(line, flush=True)


if __name__ == "__main__":
    main()

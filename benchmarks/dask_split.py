"""Work split over Dask workers against the serial run (issues 17 and 33).

For each case it runs `sleuth evaluate` serially (as shipped: its compiled passes on
every core), serially on one core (`NUMBA_NUM_THREADS=1`, the resources of one
worker), then split over `--workers` Dask worker processes started in the same run,
checks that all three write the same decision tree, and prints the wall times and the
split's speed-up against each serial run. By default the workers are a
local cluster the command starts (`--workers N`), and the split run's time includes
starting it. With `--real`, the benchmark first starts a real cluster as separate
commands, as one would on several machines:

    dask scheduler --host 127.0.0.1 --port P --no-dashboard
    NUMBA_NUM_THREADS=1 DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False \
        dask worker tcp://127.0.0.1:P --nworkers 1 --nthreads 1 --no-dashboard \
        --preload sleuth.solver.evaluation.preload                               (N times)

and the split run is `sleuth evaluate ... --scheduler tcp://127.0.0.1:P`; the cluster
is stopped after it. Each split run has a cluster of its own (`_round`). The split
run's time then includes building the game in each worker, not starting the processes:
a worker imports Sleuth and makes its first compiled call as it starts (the
preload, as docs/solver.md starts a cluster's workers), and `--no-preload` leaves that
to its first task, as before 2026-11-29.

    python benchmarks/dask_split.py [--workers 2] [--cases small|all] [--case NAME] [--real]
                                    [--no-preload] [--repeat N]

`--repeat N` runs each case's three commands N times, one round after another (serial,
one core, split), and prints every round's ratios, then the medians. The machine's
speed drifts between runs (the same serial MM(4,8) took 34.8-41.0 s in one session),
so one round's ratio moves with it; the medians of rounds taken side by side move less.

Cases: MM(4,4) and MM(4,6) optimal (the search split at its first level and below),
MM(4,6) optimal-worst, MM(5,8) minimax (the subtrees one query down walked on the
workers, each keeping its own feedback rows), and the long ones, MM(4,7) optimal,
MM(4,8) optimal and Bulls and Cows optimal (issue 33's targets: 1.7x on 2 real
workers, on the last two).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

CASES = {
    "MM(4,4) optimal": ["mastermind", "--set", "pegs=4", "--set", "colours=4",
                        "--strategy", "optimal"],
    "MM(4,6) optimal": ["mastermind", "--strategy", "optimal"],
    "MM(4,6) optimal-worst": ["mastermind", "--strategy", "optimal-worst"],
    "MM(5,8) minimax": ["mastermind", "--set", "pegs=5", "--set", "colours=8",
                        "--strategy", "minimax"],
    "MM(4,7) optimal": ["mastermind", "--set", "colours=7", "--strategy", "optimal"],
    "MM(4,8) optimal": ["mastermind", "--set", "colours=8", "--strategy", "optimal"],
    "Bulls and Cows optimal": ["bulls-and-cows", "--strategy", "optimal"],
}
PRELOAD = "sleuth.solver.evaluation.preload"  # what a worker imports as it starts
SMALL = ("MM(4,4) optimal", "MM(4,6) optimal")
ALL = ("MM(4,4) optimal", "MM(4,6) optimal", "MM(4,6) optimal-worst", "MM(5,8) minimax")


def timed(args: list[str], tree: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sleuth", "evaluate", *args, "--tree", str(tree),
                    "--json"], check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def real_cluster(workers: int, preload: bool = True) -> Iterator[str]:
    """A `dask scheduler` and `workers` `dask worker` processes, each started as its own
    command on loopback (importing Sleuth as it starts, unless not `preload`); their
    address; all stopped on leaving."""
    from dask.distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen(["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], **quiet)]
    try:
        # one core each (compiler/parallel.py), no sampling profiler (cluster.py)
        one_core = {**os.environ, "NUMBA_NUM_THREADS": "1",
                    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
        loads = ["--preload", PRELOAD] if preload else []
        procs += [subprocess.Popen(["dask", "worker", address, "--nworkers", "1", "--nthreads",
                                    "1", "--no-dashboard", "--host", "127.0.0.1", *loads],
                                   env=one_core, **quiet)
                  for _ in range(workers)]
        with Client(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cases", choices=("small", "all"), default="all",
                        help="the quick cases (MM(4,8) and Bulls and Cows only by --case)")
    parser.add_argument("--case", action="append", help="one case by name (repeatable)")
    parser.add_argument("--real", action="store_true",
                        help="start `dask scheduler` and `dask worker` as separate commands")
    parser.add_argument("--no-preload", dest="preload", action="store_false",
                        help="with --real: the workers import Sleuth at their first task")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of the three runs per case, then their medians")
    args = parser.parse_args()
    names = tuple(args.case) if args.case else SMALL if args.cases == "small" else ALL
    for name in names:
        if name not in CASES:
            raise SystemExit(f"no case {name!r}: choose from {', '.join(CASES)}")
    where = "real" if args.real else "local"
    print(f"{'case':<24} {'total':>8} {'worst':>5} {'serial s':>9} {'1 core s':>9} "
          f"{f'{args.workers} {where} workers s':>18} {'speed-up':>9} {'vs 1 core':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            rounds = [_round(name, Path(tmp), args) for _ in range(args.repeat)]
            if args.repeat > 1:
                serial, one, split = (statistics.median(r[k] for r in rounds) for k in range(3))
                print(f"{'  median of ' + str(args.repeat):<24} {'':>8} {'':>5} {serial:>9.1f}"
                      f" {one:>9.1f} {split:>18.1f} "
                      f"{statistics.median(r[0] / r[2] for r in rounds):>9.2f} "
                      f"{statistics.median(r[1] / r[2] for r in rounds):>9.2f}"
                      "  (the ratios: medians of the rounds')", flush=True)


def _round(name: str, tmp: Path, args: argparse.Namespace) -> tuple[float, float, float]:
    """One round of a case: serial, one core, split; their trees checked equal, the times
    printed with the ratios, and returned. With --real the split gets a cluster of its
    own, started before it and not timed: a worker keeps the game it built, with every
    set it solved, so a second split on the same workers starts from the first's (on
    MM(4,8), 4.8 s and 13.3 s after a first split of 21.0 s)."""
    serial_tree, split_tree = tmp / "serial.json", tmp / "split.json"
    one_tree = tmp / "one.json"
    serial = timed(CASES[name], serial_tree)
    one = timed(CASES[name], one_tree, {**os.environ, "NUMBA_NUM_THREADS": "1"})
    cluster = real_cluster(args.workers, args.preload) if args.real else contextlib.nullcontext()
    with cluster as address:
        split_with = ["--scheduler", address] if args.real else ["--workers", str(args.workers)]
        split = timed([*CASES[name], *split_with], split_tree)
    a, b = json.loads(serial_tree.read_text()), json.loads(split_tree.read_text())
    if a != b or json.loads(one_tree.read_text()) != a:
        raise SystemExit(f"{name}: the three runs' trees are not all the same")
    print(f"{name:<24} {a['total']:>8,} {a['worst']:>5} {serial:>9.1f} {one:>9.1f} "
          f"{split:>18.1f} {serial / split:>9.2f} {one / split:>9.2f}", flush=True)
    return serial, one, split


if __name__ == "__main__":
    main()

"""The atlas over every bundled spec at its default params (issue 31): the target is 10
minutes on 2 cores. Prints each game's time and what the budget cut, the wall-clock
time against the target, and the speed-up of the workers over the same games' serial
time measured in the same run (the sum of the games' own times). Exits 1 when the
target is missed.

    python benchmarks/atlas.py [--budget 60] [--workers 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from sleuth.compiler.api import bundled_specs
from sleuth.solver.interfaces.atlas import atlas_entries
from sleuth.solver.interfaces.atlas_page import write_atlas

TARGET_SECONDS = 600.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    specs = bundled_specs()
    start = time.perf_counter()

    def heard(done: int, total: int, entry: dict) -> None:
        cut = f"  cut: {', '.join(entry['cut'])}" if entry["cut"] else ""
        print(f"{done:>3}/{total} {entry['spec']:<24} {entry['seconds']:>7.1f} s"
              f"  {entry.get('kind', '')}{cut}", flush=True)

    entries = atlas_entries(specs, args.budget, args.workers, heard)
    wall = time.perf_counter() - start
    out = Path(args.out or tempfile.mkdtemp(prefix="atlas-"))
    write_atlas(entries, out, {"command": "python benchmarks/atlas.py",
                               "budget_seconds": args.budget, "seconds": wall})
    serial = sum(e["seconds"] for e in entries)
    print(f"{len(entries)} games in {wall:.1f} s with {args.workers} workers "
          f"(the games' own times sum to {serial:.1f} s: x{serial / wall:.2f}); "
          f"target {TARGET_SECONDS:.0f} s: {wall / TARGET_SECONDS:.2f} of it, "
          f"{'meets' if wall <= TARGET_SECONDS else 'MISSES'} the target; page {out}")
    return 0 if wall <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())

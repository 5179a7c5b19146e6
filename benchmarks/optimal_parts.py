"""The optimal search's root, part by part (issue 17: Bulls and Cows).

When every useful first query of a game is alike (one orbit under its symmetries, as
in Bulls and Cows), the optimum is n plus the optima of that query's parts, and each
part can be solved on its own: this prints each one's proven total, worst case, time
and the information sets searched, as it goes, and the sum. With more than one root
orbit it says so, and the sum is the value of the first query in the search's order,
an upper bound.

Each solved part is appended to `--out` (JSON lines) at once; a rerun with the same
file skips the parts it holds, so an interrupted run loses nothing. `--jobs N` solves
parts in N processes, largest first.

    python benchmarks/optimal_parts.py bulls-and-cows [--set k=v] [--jobs 2] [--out F]
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from sleuth.compiler import load_game
from sleuth.compiler.api import parse_overrides
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.plain import NO_TREE, OptimalSearch

_SEARCH: dict[str, OptimalSearch] = {}


def _search(spec: str, overrides: dict) -> OptimalSearch:
    key = json.dumps([spec, overrides], sort_keys=True)
    if key not in _SEARCH:
        _SEARCH[key] = OptimalSearch(Candidates(load_game(spec, overrides), "any"))
    return _SEARCH[key]


def root(search: OptimalSearch) -> tuple[int, int, list[int]]:
    """The first query in the search's order, how many root orbits there are, and the
    feedback codes of its parts that go on, largest part first."""
    hyps = np.arange(search.game.hypotheses.size, dtype=np.int64)
    stab = None if search.symmetry is None else search.symmetry.stabiliser(hyps)
    order, *_, tried = search.ordered(hyps, None, stab)
    q = int(tried[order[0]])
    row = search.table.row(q, hyps)
    codes = [c for c in np.unique(row).tolist() if not search.stops[q, c]]
    return q, len(order), sorted(codes, key=lambda c: -int((row == c).sum()))


def solve(spec: str, overrides: dict, q: int, code: int) -> dict:
    """One part's proven optimum (a worker's task)."""
    search = _search(spec, overrides)
    everyone = np.arange(search.game.hypotheses.size, dtype=np.int64)
    hyps = everyone[search.table.row(q, everyone) == code]
    start, before = time.perf_counter(), search.nodes
    total, worst, _ = search.solve(hyps, None, NO_TREE - 1)
    return {"code": code, "secrets": len(hyps), "total": total, "worst": worst,
            "seconds": round(time.perf_counter() - start, 1),
            "sets": search.nodes - before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("spec")
    parser.add_argument("--set", action="append", default=[], metavar="K=V")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, help="JSON lines, one solved part each")
    args = parser.parse_args()
    overrides = parse_overrides(args.set)
    start = time.perf_counter()
    search = _search(args.spec, overrides)
    q, orbits, codes = root(search)
    query = search.queries[q]
    coder = search.game.coder(query.action)
    n = search.game.hypotheses.size
    setup = time.perf_counter() - start
    print(f"{n:,} secrets; {orbits} root orbit(s); first query "
          f"{search.candidates.args(query)}; table and symmetries {setup:.1f} s", flush=True)
    done: dict[int, dict] = {}
    if args.out and args.out.exists():
        for line in args.out.read_text().splitlines():
            got = json.loads(line)
            if got.get("query") == q:
                done[got["code"]] = got
    todo = [c for c in codes if c not in done]

    def show(got: dict) -> None:
        label = ", ".join(f"{k} {v}" for k, v in coder.decode(got["code"]).items())
        print(f"  {label:<24} {got['secrets']:>6,} secrets  total {got['total']:>7,}  "
              f"worst {got['worst']}  {got['seconds']:>8.1f} s  {got['sets']:>9,} sets",
              flush=True)

    for got in done.values():
        show(got)

    def keep(got: dict) -> None:
        got["query"] = q
        done[got["code"]] = got
        if args.out:
            with args.out.open("a") as f:
                f.write(json.dumps(got) + "\n")
        show(got)

    if args.jobs <= 1:
        for c in todo:
            keep(solve(args.spec, overrides, q, c))
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(solve, args.spec, overrides, q, c) for c in todo]
            for f in as_completed(futures):
                keep(f.result())
    total = n + sum(g["total"] for g in done.values())
    worst = 1 + max((g["worst"] for g in done.values()), default=0)
    what = "the proven optimum" if orbits == 1 else "this first query's best (an upper bound)"
    searched = sum(g["seconds"] for g in done.values())
    print(f"total {total:,} ({total / n:.4f} per secret), worst case {worst}: {what}; "
          f"{time.perf_counter() - start:.0f} s wall, {searched:.0f} s of part searches",
          flush=True)


if __name__ == "__main__":
    main()

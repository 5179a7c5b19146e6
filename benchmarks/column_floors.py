"""The optimal search read by hypothesis (solver/infoset/column_kernels.py) against the
row-wise passes, in the same run (issue 33).

Two measures per game:

* the passes alone: the search runs for a while (`--record` seconds, or to the end)
  and a sample of the sets it asks a floor of is kept, with their query lists; then
  each pass (row-wise over the set's queries, by column over every query) computes
  every kept floor on one thread, the answers are checked equal, and the times and
  their ratio printed, by set size;
* the whole search (`--whole`): `optimal` from the root with the column passes and
  with them switched off (the table's columns taken away), the value and the count of
  sets checked equal, and both times printed with their ratio.

    python benchmarks/column_floors.py [--game mm46|mm47|bc] [--record S] [--whole]
"""

from __future__ import annotations

import argparse
import collections
import signal
import time

import numpy as np

from sleuth.compiler import load_game
from sleuth.solver.infoset.column_kernels import MAX_SET
from sleuth.solver.infoset.outcome_kernels import least_bounds_serial
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.search.plain import NO_TREE, OptimalSearch

GAMES = {
    "mm46": ("mastermind", {}),
    "mm47": ("mastermind", {"colours": 7}),
    "bc": ("bulls-and-cows", {}),
}


class Stop(Exception):
    pass


def record(game, seconds: int, rate: float, seed: int = 0) -> tuple[OptimalSearch, list]:
    """A search's floor requests, a `rate` sample of them: (set, its queries, allowed)."""
    rng = np.random.default_rng(seed)
    search = OptimalSearch(Candidates(game, "any"))
    kept: list = []
    floors = search.column_floors
    least = floors.least

    def spy(hyps, allowed, none, pieces=None):
        if rng.random() < rate:
            kept.append((hyps.copy(), allowed.copy()))
        return least(hyps, allowed, none, pieces)

    floors.least = spy
    floors.pays = lambda n, active: n <= MAX_SET  # every floor it can take
    lists: dict = {}
    row_floor = search.floor

    def floor(hyps, active, allowed=None, stab=None):
        if stab is not None:
            active = active[search.symmetry.representatives(stab)[active]]
        lists[hyps.tobytes()] = active
        return row_floor(hyps, active, allowed, None)

    search.floor = floor

    def stop(*_):
        raise Stop

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        search.solve(np.arange(game.hypotheses.size, dtype=np.int64), None, NO_TREE - 1)
    except Stop:
        pass
    signal.alarm(0)
    return search, [(h, lists[h.tobytes()], ok) for h, ok in kept if h.tobytes() in lists]


def passes(search: OptimalSearch, calls: list) -> None:
    table, floors = search.table, search.column_floors
    lt, lw = search.lb_total, search.lb_worst
    for hyps, active, ok in calls[:3]:  # compiled before timing
        least_bounds_serial(table.small, hyps, table.stops, lt, lw, active, ok, NO_TREE)
        floors.least(hyps, ok, NO_TREE, 1)
    by_rows, by_columns, count = (collections.Counter() for _ in range(3))
    for hyps, active, ok in calls:
        n = len(hyps)
        size = n if n < 10 else n // 10 * 10 if n < 100 else 100
        start = time.perf_counter()
        one = least_bounds_serial(table.small, hyps, table.stops, lt, lw, active, ok, NO_TREE)
        middle = time.perf_counter()
        other = floors.least(hyps, ok, NO_TREE, 1)
        end = time.perf_counter()
        if (int(one[0]), int(one[1])) != other:
            raise SystemExit(f"floors differ at a set of {n}: {one} by rows, {other}")
        by_rows[size] += middle - start
        by_columns[size] += end - middle
        count[size] += 1
    print(f"{'set size':>9} {'floors':>7} {'rows us':>8} {'columns us':>10} {'ratio':>6}")
    for size in sorted(count):
        r, c, k = by_rows[size], by_columns[size], count[size]
        label = f"{size}+" if size == 100 else f"{size}-{size + 9}" if size >= 10 else str(size)
        print(f"{label:>9} {k:>7} {r / k * 1e6:>8.0f} {c / k * 1e6:>10.0f} {r / c:>6.2f}")
    r, c = sum(by_rows.values()), sum(by_columns.values())
    print(f"{'all':>9} {sum(count.values()):>7} {r:>7.2f}s {c:>9.2f}s {r / c:>6.2f}  "
          "(every floor equal)")


def whole(game) -> None:
    results = {}
    for name in ("rows", "columns"):
        search = OptimalSearch(Candidates(game, "any"))
        if name == "rows":
            search.column_floors = None
            search.table.__dict__["columns"] = None  # distinct rows hashed by row too
        root = np.arange(game.hypotheses.size, dtype=np.int64)
        start = time.perf_counter()
        got = search.solve(root, None, NO_TREE - 1)
        results[name] = (got[:2], search.nodes, time.perf_counter() - start)
        print(f"{name:>8}: total {got[0]:,}, worst {got[1]}, {search.nodes:,} sets, "
              f"{results[name][2]:.2f} s", flush=True)
    if results["rows"][:2] != results["columns"][:2]:
        raise SystemExit("the two searches differ")
    print(f"   ratio: {results['rows'][2] / results['columns'][2]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=tuple(GAMES), default="mm46")
    parser.add_argument("--record", type=int, default=60, help="seconds of search sampled")
    parser.add_argument("--rate", type=float, default=0.2, help="share of floors kept")
    parser.add_argument("--whole", action="store_true", help="also time the whole search")
    args = parser.parse_args()
    spec, overrides = GAMES[args.game]
    game = load_game(spec, overrides)
    search, calls = record(game, args.record, args.rate)
    print(f"{args.game}: {len(calls):,} floors sampled from {args.record} s of search")
    passes(search, calls)
    if args.whole:
        whole(game)


if __name__ == "__main__":
    main()

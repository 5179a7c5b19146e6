"""`sleuth serve` under twenty concurrent clients: the time a suggestion takes.

Twenty clients each play their own MM(4,6) game to the end at once against one server
(the page's requests: suggest, then observe), and every suggestion's wall time is kept.
The baseline, in the same run: one client alone playing the same twenty games. Target:
median suggestion <= 0.5 s with 20 clients on 2 cores.

    python benchmarks/serve.py [--clients 20] [--strategy entropy] [--seed 5]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

from sleuth.solver.interfaces.web.app import create_app, serving


def feedback(guess: list[int], code: list[int]) -> dict[str, int]:
    black = sum(g == c for g, c in zip(guess, code, strict=True))
    common = sum(min(guess.count(x), code.count(x)) for x in set(guess))
    return {"black": black, "white": common - black}


def play(url: str, code: list[int], strategy: str, waits: list[float]) -> int:
    with httpx.Client(base_url=url, timeout=300) as http:
        st = http.post("/api/sessions", json={"spec": "mastermind"}).json()
        steps = 0
        while st["over"] is None:
            start = time.perf_counter()
            advice = http.get(f"/api/sessions/{st['id']}/suggest",
                              params={"strategy": strategy}).json()
            waits.append(time.perf_counter() - start)
            guess = advice["suggestion"]["args"]["g"]
            st = http.post(f"/api/sessions/{st['id']}/observe", json={
                "query": "guess", "args": {"g": guess}, "outcome": feedback(guess, code)}).json()
            steps += 1
        return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--strategy", default="entropy")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    codes = [[rng.randint(1, 6) for _ in range(4)] for _ in range(args.clients)]
    with tempfile.TemporaryDirectory() as tmp, serving(create_app([], Path(tmp))) as url:
        httpx.get(url + "/api/spec", params={"ref": "mastermind"}, timeout=300)  # loaded once
        alone: list[float] = []
        start = time.perf_counter()
        for code in codes:
            play(url, code, args.strategy, alone)
        serial = time.perf_counter() - start
        together: list[float] = []
        threads = [threading.Thread(target=play, args=(url, c, args.strategy, together))
                   for c in codes]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - start
    a, b = np.array(alone), np.array(together)
    print(f"MM(4,6), strategy {args.strategy}, {args.clients} games, {len(b)} suggestions")
    print(f"one client alone:   median {np.median(a):.3f} s, 90th {np.percentile(a, 90):.3f} s, "
          f"max {a.max():.3f} s ({serial:.1f} s for the games one after another)")
    print(f"{args.clients} clients at once: median {np.median(b):.3f} s, "
          f"90th {np.percentile(b, 90):.3f} s, max {b.max():.3f} s ({wall:.1f} s wall)")
    print(f"ratio (median, together / alone): {np.median(b) / np.median(a):.2f}; "
          f"target median <= 0.5 s: {'met' if np.median(b) <= 0.5 else 'NOT met'}")


if __name__ == "__main__":
    main()

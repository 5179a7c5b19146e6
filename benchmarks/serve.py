"""`sleuth serve` under load: 200 concurrent clients for 60 s, against a bare baseline.

The server runs alone in its own process (`sleuth serve` on a loopback port); the
clients run in this one, each playing its own MM(4,6) game as the page does: read the
worksheet, ask for a suggestion, record the guess's feedback, and, at the end of a
game, undo its last step to play on. Every request's wall time is kept, and every
error (a status that is not 2xx, a dropped connection, a timeout) counted.

The baseline, in the same run and with the same clients: a bare Starlette app on
uvicorn answering the same paths with a constant JSON body, so the server's figures
are read as ratios to what the machine, uvicorn and the clients cost by themselves.
Target: no errors, and p99 within 5x the baseline's.

    python benchmarks/serve.py [--clients 200] [--seconds 60] [--seed 5]
    python benchmarks/serve.py --play [--clients 20]   # suggestion times, alone vs 20
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

TIMEOUT = 60.0  # seconds a request may take before it counts as an error


def feedback(guess: list[int], code: list[int]) -> dict[str, int]:
    black = sum(g == c for g, c in zip(guess, code, strict=True))
    common = sum(min(guess.count(x), code.count(x)) for x in set(guess))
    return {"black": black, "white": common - black}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(argv: list[str], port: int) -> subprocess.Popen:
    """A server process, once it answers on `port`."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/specs", timeout=1)
            return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


class Tally:
    def __init__(self) -> None:
        self.times: list[float] = []
        self.errors: dict[str, int] = {}

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def client(http: httpx.AsyncClient, code: list[int], until: float,
                 tally: Tally) -> None:
    """One page: its own game, played on (and undone at its end) until `until`."""
    async def call(method: str, path: str, **kw) -> dict | None:
        t = time.perf_counter()
        try:
            answer = await http.request(method, path, **kw)
        except httpx.HTTPError as err:
            tally.error(type(err).__name__)
            return None
        tally.times.append(time.perf_counter() - t)
        if not 200 <= answer.status_code < 300:
            tally.error(f"HTTP {answer.status_code}")
            return None
        return answer.json()

    st = await call("POST", "/api/sessions", json={"spec": "mastermind"})
    if st is None:
        return
    sid = st["id"]
    while time.perf_counter() < until:
        st = await call("GET", f"/api/sessions/{sid}")
        advice = await call("GET", f"/api/sessions/{sid}/suggest")
        while advice is not None and advice.get("pending"):  # ask again, as the page does
            await asyncio.sleep(0.2)
            advice = await call("GET", f"/api/sessions/{sid}/suggest")
        if st is None or advice is None:
            continue
        if st.get("over") or not advice.get("suggestion"):
            await call("POST", f"/api/sessions/{sid}/undo", json={})
            continue
        guess = advice["suggestion"]["args"]["g"]
        await call("POST", f"/api/sessions/{sid}/observe", json={
            "query": "guess", "args": {"g": guess}, "outcome": feedback(guess, code),
            "repeat": True})


async def load(url: str, clients: int, seconds: float, seed: int) -> tuple[Tally, float]:
    rng = random.Random(seed)
    codes = [[rng.randint(1, 6) for _ in range(4)] for _ in range(clients)]
    tally = Tally()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT, limits=limits) as http:
        start = time.perf_counter()
        await asyncio.gather(*(client(http, c, start + seconds, tally) for c in codes))
        wall = time.perf_counter() - start
    return tally, wall


def report(name: str, tally: Tally, wall: float) -> dict[str, float]:
    t = np.array(tally.times) if tally.times else np.zeros(1)
    out = {"rps": len(tally.times) / wall, "p50": float(np.percentile(t, 50)),
           "p90": float(np.percentile(t, 90)), "p99": float(np.percentile(t, 99)),
           "errors": sum(tally.errors.values())}
    print(f"{name:9s} {len(tally.times):7,} requests in {wall:5.1f} s: {out['rps']:7.1f}/s, "
          f"p50 {out['p50']:.3f} s, p90 {out['p90']:.3f} s, p99 {out['p99']:.3f} s, "
          f"errors {out['errors']} {tally.errors or ''}")
    return out


def baseline_app():
    """The bare endpoint: the same paths, a constant small JSON answer."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    body = {"id": "s", "over": None, "suggestion": {"args": {"g": [1, 1, 2, 2]}}}

    async def answer(request):
        if request.method == "POST":
            await request.body()
        return JSONResponse(body, status_code=201 if request.url.path == "/api/sessions"
                            and request.method == "POST" else 200)

    return Starlette(routes=[Route("/api/{rest:path}", answer, methods=["GET", "POST"])])


def load_run(args: argparse.Namespace) -> None:
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv in [
                ("baseline", [sys.executable, __file__, "--baseline-server"]),
                ("sleuth", [sys.executable, "-m", "sleuth.solver.interfaces.cli", "serve",
                            "--sessions", tmp])]:
            port = free_port()
            proc = start([*argv, "--port", str(port)], port)
            try:
                if name == "sleuth":  # the game loaded and its kernels warm, as at a table
                    httpx.post(f"http://127.0.0.1:{port}/api/sessions",
                               json={"spec": "mastermind"}, timeout=300)
                tally, wall = asyncio.run(load(f"http://127.0.0.1:{port}", args.clients,
                                               args.seconds, args.seed))
                figures[name] = report(name, tally, wall)
            finally:
                proc.kill()
                proc.wait()
    s, b = figures["sleuth"], figures["baseline"]
    print(f"ratios, sleuth / baseline: requests/s {s['rps'] / b['rps']:.2f}, "
          f"p50 {s['p50'] / b['p50']:.2f}, p90 {s['p90'] / b['p90']:.2f}, "
          f"p99 {s['p99'] / b['p99']:.2f}")
    met = s["errors"] == 0 and s["p99"] <= 5 * b["p99"]
    print(f"target (no errors, p99 <= 5x the baseline's): {'met' if met else 'NOT met'}")


def play_run(args: argparse.Namespace) -> None:
    """Twenty clients each playing their own MM(4,6) game to the end at once, against
    one client alone playing the same games: the suggestions' wall times."""
    import threading

    from sleuth.solver.interfaces.web.app import create_app, serving

    def play(url: str, code: list[int], waits: list[float]) -> None:
        with httpx.Client(base_url=url, timeout=300) as http:
            st = http.post("/api/sessions", json={"spec": "mastermind"}).json()
            while st["over"] is None:
                t = time.perf_counter()
                answer = http.get(f"/api/sessions/{st['id']}/suggest")
                while answer.status_code == 202:  # still thinking: ask again, as the page
                    time.sleep(0.2)
                    answer = http.get(f"/api/sessions/{st['id']}/suggest")
                advice = answer.json()
                waits.append(time.perf_counter() - t)
                guess = advice["suggestion"]["args"]["g"]
                st = http.post(f"/api/sessions/{st['id']}/observe", json={
                    "query": "guess", "args": {"g": guess},
                    "outcome": feedback(guess, code)}).json()

    rng = random.Random(args.seed)
    codes = [[rng.randint(1, 6) for _ in range(4)] for _ in range(args.clients)]
    with tempfile.TemporaryDirectory() as tmp, serving(create_app([], Path(tmp))) as url:
        httpx.get(url + "/api/spec", params={"ref": "mastermind"}, timeout=300)
        alone: list[float] = []
        for code in codes:
            play(url, code, alone)
        together: list[float] = []
        threads = [threading.Thread(target=play, args=(url, c, together)) for c in codes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    a, b = np.array(alone), np.array(together)
    print(f"MM(4,6), {args.clients} games, {len(b)} suggestions")
    print(f"one client alone:   median {np.median(a):.3f} s, max {a.max():.3f} s")
    print(f"{args.clients} clients at once: median {np.median(b):.3f} s, max {b.max():.3f} s")
    print(f"ratio (median, together / alone): {np.median(b) / np.median(a):.2f}; "
          f"target median <= 0.5 s: {'met' if np.median(b) <= 0.5 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--play", action="store_true")
    parser.add_argument("--baseline-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline_server:
        import uvicorn

        from sleuth.solver.interfaces.commands.serve import KEEP_ALIVE

        uvicorn.run(baseline_app(), host="127.0.0.1", port=args.port, log_level="warning",
                    timeout_keep_alive=KEEP_ALIVE)  # uvicorn run as `sleuth serve` runs it
    elif args.play:
        args.clients = args.clients or 20
        play_run(args)
    else:
        args.clients = args.clients or 200
        load_run(args)


if __name__ == "__main__":
    main()

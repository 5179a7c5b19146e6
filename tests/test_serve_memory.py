"""`sleuth serve --memory-mb`: the games a server keeps stay within a budget, least
recently used dropped first, and the process's resident memory comes back down after
the load that filled it. The cache alone (web/cache.py), a worksheet whose game was
dropped, and a real server on loopback loading Mastermind at five sizes."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import pytest

from sleuth.solver.interfaces.web.cache import Cache, reachable_bytes
from tests.test_serve import mastermind_feedback
from tests.test_serve_load import free_port

pytestmark = pytest.mark.e2e  # the second tier: end to end


def test_the_least_recently_used_goes_first_and_the_newest_stays():
    dropped = []
    cache: Cache[str] = Cache(100, lambda key, value: dropped.append((key, value)))
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # a is now the more recent
    cache.put("c", "C", 40)
    assert dropped == [("b", "B")] and cache.get("b") is None
    assert cache.sizes() == {"a": 40, "c": 40}
    cache.resize("a", 70)  # a built its matrices: now c must go
    assert dropped[-1] == ("c", "C") and cache.sizes() == {"a": 70}
    cache.put("d", "D", 500)  # over the budget alone: kept, the others dropped
    assert cache.sizes() == {"d": 500} and dropped[-1] == ("a", "A")


def test_an_array_reached_twice_is_counted_once():
    class Holder:  # a Sleuth object, as the cache sees one
        __module__ = "sleuth.test"

        def __init__(self):
            self.table = np.zeros((1000, 100), dtype=np.int64)
            self.view = self.table[:10]
            self.copies = [self.table, {"again": self.table.T}]
            self.other = np.ones(500, dtype=np.uint8)

    assert reachable_bytes(Holder()) == 1000 * 100 * 8 + 500


def test_a_worksheet_whose_game_was_dropped_reopens_and_plays_on(tmp_path):
    from starlette.testclient import TestClient

    from sleuth.solver.interfaces.web.app import create_app

    app = create_app([], tmp_path, memory_mb=48)
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        code = [1, 2, 3]
        st = c.post("/api/sessions", json={"spec": "mastermind",
                                           "params": {"pegs": 3, "colours": 4}}).json()
        g = c.get(f"/api/sessions/{st['id']}/suggest").json()["suggestion"]["args"]["g"]
        st = c.post(f"/api/sessions/{st['id']}/observe", json={
            "query": "guess", "args": {"g": g}, "outcome": mastermind_feedback(g, code)}
        ).json()
        library = app.state.library
        first = library.games.get(("mastermind", '{"colours": 4, "pegs": 3}'))
        assert first is not None
        big = c.post("/api/sessions", json={"spec": "mastermind",
                                            "params": {"pegs": 5, "colours": 6}}).json()
        while c.get(f"/api/sessions/{big['id']}/suggest").status_code == 202:
            time.sleep(0.2)  # its matrix (58 MiB), kept when the suggestion comes, passes 48
        assert library.games.get(("mastermind", '{"colours": 4, "pegs": 3}')) is None
        while st["over"] is None:
            g = c.get(f"/api/sessions/{st['id']}/suggest").json()["suggestion"]["args"]["g"]
            st = c.post(f"/api/sessions/{st['id']}/observe", json={
                "query": "guess", "args": {"g": g}, "outcome": mastermind_feedback(g, code)}
            ).json()
        assert st["over"]["solved"] and st["steps"][-1]["args"]["g"] == code
    app.state.jobs.close()


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.slow  # five Mastermind sizes loaded and scored on a real server
def test_the_server_shrinks_back_under_its_budget_after_a_large_load():
    budget = 128
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "sleuth.solver.interfaces.cli",
                                 "serve", "--port", str(port), "--sessions", tmp,
                                 "--memory-mb", str(budget)], stdout=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    httpx.get(url + "/api/specs", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)

            def load(pegs: int, colours: int) -> float:
                st = httpx.post(url + "/api/sessions", json={
                    "spec": "mastermind", "params": {"pegs": pegs, "colours": colours}},
                    timeout=300).json()
                while httpx.get(f"{url}/api/sessions/{st['id']}/suggest",
                                timeout=300).status_code == 202:
                    time.sleep(0.2)  # the game's matrices are kept when it comes
                return resident_mb(proc.pid)

            small = load(4, 6)
            peaks = [load(p, c) for p, c in ((5, 6), (5, 7), (6, 6))]
            after = load(4, 6)
            print(f"MM(4,6) {small:.0f} MiB; MM(5,6), MM(5,7), MM(6,6) "
                  f"{', '.join(f'{p:.0f}' for p in peaks)} MiB; MM(4,6) again {after:.0f} MiB")
            assert max(peaks) > small + budget / 2  # the large games did fill it
            assert after <= small + budget
        finally:
            proc.kill()
            proc.wait()

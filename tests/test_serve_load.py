"""`sleuth serve` under load and under a crash: twenty clients each play their own
Mastermind game to the end at once, and every session file holds exactly its client's
steps; a server killed (SIGKILL) while clients write leaves every session file whole,
and a new server opens them all."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from sleuth.solver.interfaces.web.app import create_app, serving
from tests.test_serve import mastermind_feedback

pytestmark = pytest.mark.e2e
CLIENTS = 20


def play_one(url: str, code: list[int], out: dict) -> None:
    """A whole game: ask the server for its suggestion, answer it for `code`."""
    with httpx.Client(base_url=url, timeout=120) as http:
        st = http.post("/api/sessions", json={"spec": "mastermind"}).json()
        steps, waits = [], []
        while st["over"] is None:
            start = time.perf_counter()
            answer = http.get(f"/api/sessions/{st['id']}/suggest")
            while answer.status_code == 202:  # still thinking: ask again, as the page does
                time.sleep(0.2)
                answer = http.get(f"/api/sessions/{st['id']}/suggest")
            advice = answer.json()
            waits.append(time.perf_counter() - start)
            guess = advice["suggestion"]["args"]["g"]
            feedback = mastermind_feedback(guess, code)
            st = http.post(f"/api/sessions/{st['id']}/observe", json={
                "query": "guess", "args": {"g": guess}, "outcome": feedback}).json()
            steps.append({"query": "guess", "args": {"g": guess}, "feedback": feedback})
        out.update(id=st["id"], steps=steps, over=st["over"], waits=waits)


def test_twenty_clients_play_their_own_games_at_once(tmp_path):
    rng = random.Random(5)
    codes = [[rng.randint(1, 6) for _ in range(4)] for _ in range(CLIENTS)]
    results = [{} for _ in range(CLIENTS)]
    with serving(create_app([], tmp_path)) as url:
        threads = [threading.Thread(target=play_one, args=(url, c, r))
                   for c, r in zip(codes, results, strict=True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for code, r in zip(codes, results, strict=True):
        assert r["over"]["solved"], r
        assert r["steps"][-1]["feedback"] == {"black": 4, "white": 0}
        assert r["steps"][-1]["args"]["g"] == code
        saved = json.loads((tmp_path / f"{r['id']}.json").read_text())
        assert saved["steps"] == r["steps"]
    assert len({r["id"] for r in results}) == CLIENTS
    waits = sorted(w for r in results for w in r["waits"])
    print(f"{len(waits)} suggestions: median {waits[len(waits) // 2]:.2f} s, "
          f"slowest {waits[-1]:.2f} s")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(sessions: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "sleuth.solver.interfaces.cli", "serve",
                             "--port", str(port), "--sessions", str(sessions)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            httpx.get(url + "/api/specs", timeout=1)
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not start: " + proc.stderr.read().decode())


def hammer(url: str, sid: str, stop: threading.Event) -> None:
    """Observe and undo, over and over, until the server dies."""
    with httpx.Client(base_url=url, timeout=10) as http:
        try:
            while not stop.is_set():
                http.post(f"/api/sessions/{sid}/observe", json={
                    "query": "guess", "args": {"g": "1122"},
                    "outcome": {"black": 1, "white": 0}})
                http.post(f"/api/sessions/{sid}/undo", json={})
        except httpx.HTTPError:
            return


@pytest.mark.parametrize("delay", [0.4, 1.2])
def test_a_server_killed_mid_write_leaves_every_session_readable(tmp_path, delay):
    proc, url = start_server(tmp_path)
    try:
        ids = [httpx.post(url + "/api/sessions", json={"spec": "mastermind"},
                          timeout=60).json()["id"] for _ in range(6)]
        stop = threading.Event()
        threads = [threading.Thread(target=hammer, args=(url, s, stop)) for s in ids]
        for t in threads:
            t.start()
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        stop.set()
        for t in threads:
            t.join()
    finally:
        if proc.poll() is None:
            proc.kill()
    for sid in ids:  # whole files: the last step written, or the one before
        data = json.loads((tmp_path / f"{sid}.json").read_text())
        assert data["format"] == "sleuth-session/1" and len(data["steps"]) in (0, 1)
    proc, url = start_server(tmp_path)
    try:
        for sid in ids:
            r = httpx.get(f"{url}/api/sessions/{sid}", timeout=60)
            assert r.status_code == 200 and r.json()["hypotheses"] in (1296, 256)
    finally:
        proc.terminate()
        proc.wait()

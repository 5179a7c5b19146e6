"""Shared fixtures: the spec library and games loaded once per session."""

from __future__ import annotations

import os
import shutil
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from sleuth.compiler import Game, load_game

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Tests that drive Chromium are skipped without it, except under CI (CI=true), where .ci/run
# has installed it: a browser missing there is a failure, not a skip.
needs_chromium = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                    reason="no Chromium (apt-get install chromium; .ci/run "
                                           "does)")


@pytest.fixture(params=["threads", "one thread"])
def thread_mode(request):
    """Runs a test twice: with the threaded kernels on the fork- and thread-safe layer
    (skipped where it does not load) and with their one-thread twins, as where no such
    layer loads (compiler/parallel.py)."""
    from sleuth.compiler.api import parallel

    if request.param == "threads":
        if not parallel.layer_loads():
            pytest.skip("no fork- and thread-safe layer (tbb) here")
        yield request.param
        return
    with parallel.one_thread():
        yield request.param


def counts_agree(backend: str, estimate: float, exact: int) -> bool:
    """A backend's count against the exact one: equal, or for `approx` within the stated
    guarantee, exact / (1 + epsilon) <= estimate <= (1 + epsilon) exact."""
    from sleuth.compiler.counters.approx import EPSILON

    if backend != "approx":
        return estimate == exact
    return exact / (1 + EPSILON) <= estimate <= exact * (1 + EPSILON)


@cache
def game(name: str, **overrides) -> Game:
    return load_game(ROOT / "specs" / f"{name}.yaml", overrides or None)


def enumerable(name: str) -> bool:
    """Whether the spec's hypotheses fit the enumerated backend (else: symbolic only)."""
    g = game(name)
    return g.candidate_count() <= g.budget.max_hypotheses


@cache
def sampled_hypotheses(name: str, k: int = 12) -> list[dict]:
    """k hypotheses of a spec: drawn from its table, or exactly from the counter the
    backend policy chooses for it (the factored counter for a fleet on a 10 x 10 board,
    whose decision diagram would outgrow the memory budget)."""
    from sleuth.compiler.enumerate import table_from_ranks
    from sleuth.solver.infoset.backends import choose_backend, prior_belief

    g = game(name)
    rng = np.random.default_rng(0)
    if enumerable(name):
        return [g.hypotheses.value(int(i)) for i in rng.integers(0, g.hypotheses.size, k)]
    ranks = np.array(prior_belief(g, choose_backend(g, None)).sample_ranks(k, 0),
                     dtype=np.int64)
    table = table_from_ranks(g.model, ranks)
    return [table.value(i) for i in range(len(ranks))]


@pytest.fixture(params=[p.stem for p in SPECS])
def spec_name(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def local_scheduler():
    """One local Dask cluster for the module (tests/test_cluster.py and
    test_optimal_split.py), reached through --scheduler."""
    pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster

    from sleuth.solver.evaluation.cluster import LOOPBACK_HTTP

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, host="127.0.0.1", silence_logs=50,
                           scheduler_kwargs=LOOPBACK_HTTP)
    yield cluster.scheduler_address
    cluster.close()


@pytest.fixture
def client(tmp_path):
    """`sleuth serve`'s app behind Starlette's test client, its sessions in `tmp_path`
    (`client.sessions`): tests/test_serve.py and tests/test_serve_boards.py."""
    from starlette.testclient import TestClient

    from sleuth.solver.interfaces.web.app import create_app

    app = create_app([], tmp_path)
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        c.sessions = tmp_path
        yield c
    app.state.jobs.close()


# the browser tests (tests/test_browser.py, tests/test_browser_boards.py): Debian's
# Chromium, headless, driven by Playwright; a server per module, sessions in a scratch
# folder
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def site():
    """`sleuth serve`'s app on a loopback port: (its URL, its sessions folder)."""
    import tempfile

    from sleuth.solver.interfaces.web.app import create_app, serving

    sessions = Path(tempfile.mkdtemp(prefix="sleuth-web-"))
    with serving(create_app([], sessions)) as url:
        yield url, sessions
    shutil.rmtree(sessions, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, launched by Playwright (no browser is downloaded)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, site):
    """A fresh page; `page.errors` collects its script errors and dialogs."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))
    pg.errors = errors
    yield pg
    context.close()


def advised(client, path: str, wait: float = 120.0):
    """GET a suggestion as the page does: a 202 ("still thinking") is asked again until
    the answer comes (or `wait` seconds pass); the last response."""
    import time

    deadline = time.monotonic() + wait
    answer = client.get(path)
    while answer.status_code == 202 and time.monotonic() < deadline:
        time.sleep(0.1)
        answer = client.get(path)
    return answer


def alive(pid: int | str) -> bool:
    """Whether the process runs (a zombie, killed and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line for line in f)
    except OSError:
        return False

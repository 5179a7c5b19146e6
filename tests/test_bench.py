"""`sleuth bench`: tasks, paired secrets, summaries, local workers and a Dask cluster.

Results must not depend on where a task ran: the deterministic strategies
(exhaustive entropy, seeded random) give identical trials in this process, in
local worker processes and on a Dask LocalCluster on loopback.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from sleuth.solver.evaluation.bench import make_tasks, parse_spec_sizes, run, run_task, summarise
from sleuth.solver.interfaces.cli import cli
from tests.conftest import ROOT

MASTERMIND = str(ROOT / "specs" / "mastermind.yaml")
HIGHER_LOWER = str(ROOT / "specs" / "higher-lower.yaml")


def tasks(trials: int = 4):
    sized = parse_spec_sizes([f"{MASTERMIND}@pegs=3,colours=4", f"{HIGHER_LOWER}@n=15"], {})
    return make_tasks(sized, ["entropy", "random"], trials, seed=5, time_limit=0.05)


def test_trials_share_secrets_across_strategies():
    results = run(tasks())
    by = {}
    for r in results:
        by.setdefault((r["spec"], r["trial"]), set()).add(json.dumps(r["secret"]))
    assert all(len(s) == 1 for s in by.values())
    assert len({json.dumps(r["secret"]) for r in results if r["spec"] == HIGHER_LOWER}) > 1


def test_summary_by_hand():
    results = run(tasks(6))
    for row in summarise(results):
        steps = [r["steps"] for r in results
                 if r["spec"] == row["spec"] and r["strategy"] == row["strategy"]]
        assert row["trials"] == 6 and row["average"] == pytest.approx(np.mean(steps))
        assert row["ci95"] == pytest.approx(1.96 * np.std(steps, ddof=1) / math.sqrt(6))
        assert row["worst"] == max(steps)


def test_local_workers_equal_this_process():
    ts = tasks()
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in run(ts)]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in run(ts, workers=2)]


@pytest.mark.slow
def test_dask_local_cluster_equals_local_run():
    distributed = pytest.importorskip("dask.distributed")
    ts = tasks(3)
    local = [{k: v for k, v in r.items() if k != "seconds"} for r in map(run_task, ts)]
    with distributed.LocalCluster(host="127.0.0.1", n_workers=2, threads_per_worker=1,
                                  processes=True, dashboard_address=None) as cluster:
        remote = run(ts, scheduler=cluster.scheduler_address)
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in remote] == local


def test_bench_command_writes_results(tmp_path):
    result = CliRunner().invoke(cli, [
        "bench", f"{MASTERMIND}@pegs=3,colours=3", "--strategies", "entropy,ises-sampled",
        "--trials", "3", "--budget", "0.05", "--out", str(tmp_path), "--json"],
        catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {r["strategy"] for r in data["summary"]} == {"entropy", "ises-sampled"}
    for name in ("results.csv", "results.json", "results.png", "results.svg"):
        assert (tmp_path / name).stat().st_size > 0
    lines = (tmp_path / "results.csv").read_text().splitlines()
    assert lines[0].startswith("game,params,strategy") and len(lines) == 3


def test_bench_refuses_a_param_no_spec_declares():
    result = CliRunner().invoke(cli, ["bench", MASTERMIND, "--set", "n=5", "--trials", "1"])
    assert result.exit_code != 0 and "no spec declares" in str(result.exception)


def test_bench_takes_the_budget_flags():
    """--max-hypotheses and --memory-mb reach every game bench loads (issue 28)."""
    from sleuth.compiler.api import Budget

    args = ["bench", "mastermind@pegs=3,colours=3", "--strategies", "entropy", "--trials", "2"]
    refused = CliRunner().invoke(cli, [*args, "--max-hypotheses", "26"])
    assert refused.exit_code == 1 and "budget of 26" in str(refused.exception)
    ok = CliRunner().invoke(cli, [*args, "--max-hypotheses", "27", "--memory-mb", "64",
                                  "--json"], catch_exceptions=False)
    assert ok.exit_code == 0 and json.loads(ok.output)["summary"][0]["trials"] == 2
    tasks = make_tasks([(str(ROOT / "specs" / "mastermind.yaml"), {"pegs": 3, "colours": 3})],
                       ["entropy"], 1, 0, 0.1, None, Budget(max_hypotheses=27, memory_mb=64))
    assert tasks[0].budget.memory_mb == 64


def test_fixed_iterations_make_time_limited_agents_reproducible():
    """bench --iterations: the time-limited agents do fixed work per decision, so two runs
    give the same trials, and each trial records its work per decision (issue 29)."""
    spec = [(str(ROOT / "specs" / "mastermind.yaml"), {"pegs": 3, "colours": 4})]
    runs = []
    for _ in range(2):
        tasks = make_tasks(spec, ["ises-sampled", "ismcts"], 3, 7, 0.1, iterations=25)
        runs.append([{k: v for k, v in r.items() if k != "seconds"} for r in run(tasks)])
    assert runs[0] == runs[1]
    for trial in runs[0]:
        assert len(trial["work"]) == trial["steps"]
        key = "queries" if trial["strategy"] == "ises-sampled" else "iterations"
        done = [w[key] for w in trial["work"]]
        assert done[0] == 25 and all(n in (0, 25) for n in done)  # 0: one hypothesis left
    clocked = run(make_tasks(spec, ["entropy"], 1, 7, 0.1))
    assert "work" not in clocked[0]  # an exhaustive strategy reports none

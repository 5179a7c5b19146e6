"""Work split over Dask workers gives the serial result: the same values, the same trees."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("dask.distributed")

from sleuth.solver.evaluation.cluster import LOOPBACK_HTTP  # noqa: E402
from sleuth.solver.interfaces.cli import main as sleuth  # noqa: E402

GAMES = [["mastermind", "--set", "pegs=3", "--set", "colours=4"],
         ["black-peg-mastermind", "--set", "pegs=3", "--set", "colours=3"]]


@pytest.fixture(scope="module")
def local_scheduler():
    """One local Dask cluster for the module, reached through --scheduler."""
    from dask.distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, host="127.0.0.1", silence_logs=50,
                           scheduler_kwargs=LOOPBACK_HTTP)
    yield cluster.scheduler_address
    cluster.close()


def tree_of(tmp_path, name, args):
    out = tmp_path / f"{name}.json"
    sleuth(["evaluate", *args, "--tree", str(out)])
    return json.loads(out.read_text()), (tmp_path / f"{name}.txt").read_text()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("strategy", ["optimal", "optimal-worst", "minimax", "entropy"])
def test_split_evaluation_is_the_serial_one(tmp_path, capsys, local_scheduler, game, strategy):
    serial = tree_of(tmp_path, "serial", [*game, "--strategy", strategy])
    split = tree_of(tmp_path, "split", [*game, "--strategy", strategy,
                                        "--scheduler", local_scheduler])
    assert split == serial
    assert serial[0]["total"] > 0
    capsys.readouterr()


def test_local_workers_and_clear_errors(capsys):
    sleuth(["evaluate", "mastermind", "--set", "pegs=2", "--set", "colours=3", "--strategy",
            "optimal", "--workers", "2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert (data["total"], data["proven"]["total"]) == (21, 21)
    with pytest.raises(SystemExit) as stop:
        sleuth(["evaluate", "mastermind", "--strategy", "random", "--workers", "2"])
    assert stop.value.code == 1 and "random numbers" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        sleuth(["evaluate", "mastermind", "--workers", "2", "--scheduler", "tcp://x:1"])
    assert stop.value.code == 1 and "give one of them" in capsys.readouterr().err


@pytest.mark.slow
def test_split_evaluation_keeps_history_rules(tmp_path, capsys, local_scheduler):
    """Wordle's hard mode split one query down: the workers' subtrees start from the
    queries asked on the way, so they keep the rule (the trees are the serial ones)."""
    game = ["wordle", "--set", "hard=true", "--set", "answers_only=true", "--set", "guesses=10"]
    serial = tree_of(tmp_path, "serial", [*game, "--strategy", "most-parts"])
    split = tree_of(tmp_path, "split", [*game, "--strategy", "most-parts",
                                        "--scheduler", local_scheduler])
    assert split == serial
    capsys.readouterr()

"""benchmarks/tournament.py's fixed-work tournament: each time-limited agent runs at the
work its calibration gives it, the same on every rerun; and the docs section it writes
leaves the rest of docs/results.md alone."""

from __future__ import annotations

import argparse
import importlib.util
import json

import pytest

from tests.conftest import ROOT

# Loaded from its file: benchmarks/ must not go on sys.path, where its distributed.py would
# shadow the dask package in every process spawned later (Dask's workers among them).
_SPEC = importlib.util.spec_from_file_location("tournament", ROOT / "benchmarks" /
                                               "tournament.py")
tournament = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tournament)


def args(**given) -> argparse.Namespace:
    base = {"fresh": True, "calibrated": True, "trials": 3, "seed": 0, "time_limit": 0.1,
            "iterations": None, "workers": 1, "scheduler": None}
    return argparse.Namespace(**{**base, **given})


@pytest.fixture
def calibration(tmp_path, monkeypatch):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"counterfeit-coin_coins=9": {"ismcts": "7,2",
                                                             "ises-sampled": "5"},
                                "counterfeit-coin_coins=12": {"ismcts": "3",
                                                              "ises-sampled": "11,4"}}))
    monkeypatch.setattr(tournament, "CALIBRATION", path)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("coins, ismcts, ises", [(9, [7, 2], [5]), (12, [3], [11, 4])])
def test_each_agent_runs_at_its_calibrated_work(calibration, tmp_path, coins, ismcts, ises):
    first = tournament.play("specs/counterfeit-coin.yaml", {"coins": coins}, args(),
                            tmp_path / "a.json")
    again = tournament.play("specs/counterfeit-coin.yaml", {"coins": coins}, args(),
                            tmp_path / "b.json")
    seen = {"ismcts": 0, "ises-sampled": 0}
    for trial in first["trials"]:
        agent = trial["strategy"]
        if agent not in seen:
            continue
        done = [w["iterations" if agent == "ismcts" else "queries"]
                for w in trial.get("work", []) if w]
        want = ismcts if agent == "ismcts" else ises
        assert done == [want[min(k, len(want) - 1)] for k in range(len(done))]
        seen[agent] += len(done)
    assert min(seen.values()) >= 6
    strip = [{k: v for k, v in t.items() if k != "seconds"} for t in first["trials"]]
    assert strip == [{k: v for k, v in t.items() if k != "seconds"} for t in again["trials"]]


def test_a_game_without_calibration_is_a_clear_error(calibration, tmp_path):
    with pytest.raises(SystemExit, match="no entry for mastermind"):
        tournament.play("specs/mastermind.yaml", {"pegs": 3, "colours": 4}, args(),
                        tmp_path / "c.json")


def test_a_schedule_is_the_median_at_each_decision_most_games_reach():
    games = [[1, 5, 30, 40], [1, 6, 20], [3, 7], [1, 8, 9, 9, 9], [2, 0]]
    # decision 1: median of 1, 1, 3, 1, 2; decision 2: of 5, 6, 7, 8 (a 0 did no work);
    # decision 3: of 30, 20, 9 (3 of 5 games reach it); decision 4: 2 of 5, so it stops
    assert tournament.schedule_of(games) == [1, 6, 20]
    assert tournament.schedule_of([[0], [0]]) == [1]


def test_the_calibrated_section_goes_after_the_tournament_and_is_replaced():
    text = ("# Results\n\n<!-- tournament: begin -->\nclock\n<!-- tournament: end -->\n\n"
            "### Claims\nhand-written\n")
    once = tournament.with_section(text, "first\n", "tournament-calibrated")
    assert once.index("clock") < once.index("first") < once.index("hand-written")
    twice = tournament.with_section(once, "second\n", "tournament-calibrated")
    assert "first" not in twice and twice.count("second") == 1
    assert twice.replace("second", "first") == once
    assert tournament.with_section(twice, "clock 2\n").count("clock 2") == 1

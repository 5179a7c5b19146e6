"""The spec library through the CLI: hypothesis counts, summaries, partitions."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sleuth.solver.interfaces.cli import main
from tests.conftest import ROOT, game


def info(capsys, spec: str, *args: str) -> dict:
    main(["info", str(ROOT / "specs" / f"{spec}.yaml"), "--json", *args])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("spec, args, hypotheses", [
    ("mastermind", (), 1296),
    ("mastermind", ("--set", "pegs=5", "--set", "colours=8"), 32768),
    ("black-peg-mastermind", (), 1296),
    ("bulls-and-cows", (), 5040),
    ("counterfeit-coin", (), 24),
    ("counterfeit-coin", ("--set", "coins=39"), 78),
    ("inkognito", (), 9),
    ("higher-lower", (), 100),
    ("higher-lower", ("--set", "n=31"), 31),
    ("hotter-colder", ("--set", "w=5", "--set", "h=3"), 15),
])
def test_info_reports_hypotheses(capsys, spec, args, hypotheses):
    out = info(capsys, spec, *args)
    assert out["hypotheses"] == hypotheses
    assert out["backend"] == "enum"
    assert out["entropy_bits"] == pytest.approx(math.log2(hypotheses), abs=1e-12)
    assert {"game", "hypotheses", "entropy_bits", "queries", "backend"} <= set(out)


def test_info_counts_legal_queries_and_feedbacks(capsys):
    out = info(capsys, "bulls-and-cows")
    (guess,) = out["queries"]
    assert guess["arg_tuples"] == 10_000
    assert guess["legal"] == 5040
    assert guess["feedback"] == ["bulls", "cows"]
    assert guess["feedback_values"] == 14  # (4,0) and 13 pairs with bulls + cows <= 4, not (3,1)


def test_info_says_when_queries_are_too_many_to_list(capsys):
    out = info(capsys, "counterfeit-coin", "--set", "coins=39")
    assert out["queries"][0]["legal"] is None
    assert out["queries"][0]["feedback_values"] is None


def test_check_prints_summary(capsys):
    main(["check", str(ROOT / "specs" / "mastermind.yaml")])
    out = capsys.readouterr().out
    assert "1,296" in out and "10.3399 bits" in out and "14 values" in out


def partition(name: str, query: str, args: dict) -> list[int]:
    g = game(name)
    rank = g.space(query).rank(args)
    counts = g.partition_counts(query, np.array([rank]))[0]
    return sorted(int(c) for c in counts[counts > 0])


@pytest.mark.parametrize("guess, largest, parts", [
    ((1, 1, 2, 2), 256, 13),
    ((1, 2, 3, 4), 312, 14),
    ((1, 1, 1, 1), 625, 5),
    ((1, 1, 1, 2), 317, 11),
    ((1, 1, 2, 3), 276, 14),
])
def test_mastermind_first_guess_partitions(guess, largest, parts):
    sizes = partition("mastermind", "guess", {"g": guess})
    assert sum(sizes) == 1296
    assert max(sizes) == largest
    assert len(sizes) == parts


def test_black_peg_first_guesses_are_all_equivalent():
    g = game("black-peg-mastermind")
    counts = g.partition_counts("guess", np.arange(1296))
    shapes = {tuple(sorted(row[row > 0])) for row in counts}
    assert shapes == {(1, 20, 150, 500, 625)}


def test_counterfeit_coin_weighing_four_against_four():
    sizes = partition("counterfeit-coin", "weigh",
                      {"left": frozenset({1, 2, 3, 4}), "right": frozenset({5, 6, 7, 8})})
    assert sizes == [8, 8, 8]


def test_higher_lower_middle_guess_halves():
    assert partition("higher-lower", "guess", {"x": 50}) == [1, 49, 50]


def test_hotter_colder_probe_corner_and_centre():
    assert partition("hotter-colder", "probe", {"px": 1, "py": 1}) == [1, 7, 7, 49]
    assert partition("hotter-colder", "probe", {"px": 4, "py": 4}) == \
        [1, 3, 3, 4, 4, 9, 12, 12, 16]


def test_treasure_hunt_as_the_paper_plays_it():
    """Meng & Lucas' treasure hunt: digging any set of cells, ISES halves the cells each
    round, so every secret takes log2 n digs and the entropy falls by one bit a round
    for every secret (their Fig. 4: no spread)."""
    from sleuth.compiler import load_game
    from sleuth.solver.evaluation.analysis import analyse
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.strategies import make_strategy

    game = load_game(ROOT / "specs" / "treasure-hunt.yaml")
    assert game.hypotheses.size == 8
    assert len(np.concatenate(list(game.space("dig").legal_ranks()))) == 2**8 - 1
    a = analyse(game, make_strategy("entropy", Candidates(game)), "treasure-hunt")
    assert a.evaluation.worst == 3 and set(a.evaluation.lengths.values()) == {3}
    for r in a.rounds:
        assert r.minimum == r.maximum == pytest.approx(3 - r.round)

"""The size guard: too large a space is refused with a clear message, never an OOM."""

from __future__ import annotations

import numpy as np
import pytest

from sleuth.compiler import Budget, BudgetError, load_game
from sleuth.solver.interfaces.cli import main
from tests.conftest import ROOT

MASTERMIND = ROOT / "specs" / "mastermind.yaml"


def test_huge_secret_is_refused_before_enumeration():
    game = load_game(MASTERMIND, {"pegs": 8, "colours": 10})
    with pytest.raises(BudgetError) as err:
        game.hypotheses  # noqa: B018
    message = str(err.value)
    assert "100,000,000 hypotheses" in message
    assert "raise max_hypotheses" in message and "symbolic" in message  # the API's keyword


def test_filtered_space_over_budget_is_refused_while_building():
    game = load_game(ROOT / "specs" / "bulls-and-cows.yaml", budget=Budget(max_hypotheses=1000))
    with pytest.raises(BudgetError, match="more than 1,000 hypotheses"):
        game.hypotheses  # noqa: B018


def test_raising_the_budget_lets_it_through():
    game = load_game(ROOT / "specs" / "bulls-and-cows.yaml", budget=Budget(max_hypotheses=5040))
    assert game.hypotheses.size == 5040


def test_query_hypothesis_product_over_budget_is_refused():
    game = load_game(MASTERMIND, budget=Budget(max_pairs=10**6))
    with pytest.raises(BudgetError, match="1,296 queries against 1,296 hypotheses"):
        game.partition_counts("guess", np.arange(1296))
    assert game.partition_counts("guess", np.arange(10)).sum() == 10 * 1296


def test_feedback_matrix_over_memory_budget_is_refused():
    game = load_game(MASTERMIND, {"pegs": 5, "colours": 8}, budget=Budget(memory_mb=16))
    with pytest.raises(BudgetError, match="MiB"):
        game.feedback_matrix("guess", np.arange(32768))


def test_partition_counts_are_chunked_within_a_small_memory_budget():
    small = load_game(MASTERMIND, {"pegs": 5, "colours": 8}, budget=Budget(memory_mb=16))
    big = load_game(MASTERMIND, {"pegs": 5, "colours": 8})
    ranks = np.arange(0, 32768, 97)
    assert np.array_equal(small.partition_counts("guess", ranks),
                          big.partition_counts("guess", ranks))


def test_cli_reports_budget_error_with_status_1(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["info", str(MASTERMIND), "--set", "pegs=8", "--set", "colours=10",
              "--backend", "enum"])
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert "--max-hypotheses" in err and "Traceback" not in err

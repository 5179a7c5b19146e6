"""The Python API: docs/api.md's example runs as written, from outside the repository,
and its numbers agree with the command line's."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import sleuth
from tests.conftest import ROOT


def example() -> str:
    text = (ROOT / "docs" / "api.md").read_text()
    return re.search(r"```python\n(.*?)```", text, re.S).group(1)


@pytest.mark.slow
def test_api_example_runs_from_another_directory(tmp_path):
    out = subprocess.run([sys.executable, "-c", example()], capture_output=True, text=True,
                         cwd=tmp_path, check=True).stdout.splitlines()
    cli = subprocess.run([sys.executable, "-m", "sleuth", "evaluate", "counterfeit-coin",
                          "--strategy", "minimax", "--json"], capture_output=True, text=True,
                         cwd=tmp_path, check=True).stdout
    coin = json.loads(cli)
    assert out[0] == "1296 10.3399"
    assert out[1] == "256"
    assert out[2].startswith("guess g=")
    assert out[3] == f"{coin['total']} {coin['worst']}"
    assert out[4].startswith("refused: inconsistent observations")
    assert out[5] == "256"


def test_api_suggestion_is_the_cli_strategys_choice():
    import sleuth
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.strategies import make_strategy

    game = sleuth.load("mastermind", pegs=3, colours=4)
    belief = sleuth.observe(sleuth.belief(game), "guess", {"g": [1, 2, 3]},
                            {"black": 0, "white": 1})
    chosen = make_strategy("expected-size", Candidates(game)).choose(belief)
    suggestion = sleuth.suggest(belief, strategy="expected-size")
    assert suggestion.args == {"g": list(Candidates(game).args(chosen)["g"])}


def test_unknown_strategy_option_is_a_clear_error():
    import sleuth

    game = sleuth.load("counterfeit-coin")
    with pytest.raises(sleuth.SleuthError, match="has no option 'budget'"):
        sleuth.suggest(sleuth.belief(game), strategy="minimax", budget=1.0)
    with pytest.raises(sleuth.SleuthError, match="must be more than 0"):
        sleuth.suggest(sleuth.belief(game), strategy="ises-sampled", budget=0)


@pytest.mark.parametrize("backend", ["enum", "sdd"])
def test_the_documented_outputs_are_json_data(backend):
    """top(k) gives sets as sorted lists and sequences as lists, on a listed and a counted
    information set alike; with marginals, everything dumps as JSON. (The symbolic
    backends do not encode a set variable yet: Minesweeper's field is listed.)"""
    field = sleuth.belief(sleuth.load("minesweeper"))
    (first, p), = field.top(1)
    assert first == {"field": [0, 1, 2]} and p == pytest.approx(1 / 560)
    code = sleuth.observe(sleuth.belief(sleuth.load("mastermind"), backend=backend), "guess",
                          {"g": [1, 2, 3, 4]}, {"black": 3, "white": 0})  # 20 left: listed
    assert [h["code"] for h, _ in code.top(2)] == [[1, 1, 3, 4], [1, 2, 1, 4]]
    for belief in (field, code):
        assert json.loads(json.dumps([belief.top(3), belief.marginals()]))


def test_api_errors_name_keywords_and_the_command_line_names_flags(tmp_path):
    """The same mistakes through the API and the command line: the API's errors name
    its keywords (backend='enum', secrets=N), never a flag; the command line's, its flags."""
    from click.testing import CliRunner

    from sleuth.solver.interfaces.cli import cli

    lies = sleuth.load("mastermind-lie")
    with pytest.raises(sleuth.SleuthError) as err:
        sleuth.observe(sleuth.belief(lies, backend="sdd"), "guess", {"g": [1, 2, 3]},
                       {"black": 1, "white": 0})
    assert err.value.hint == "backend='enum' (it tracks the lies)"
    with pytest.raises(sleuth.SleuthError) as err:
        sleuth.simulate(sleuth.load("mastermind"), "entropy", guesses="some")
    assert err.value.message == "guesses is 'any' or 'consistent', not 'some'"
    with pytest.raises(sleuth.SleuthError) as err:
        sleuth.strategy(sleuth.load("mastermind"), "ises-sampled", schedule="0,1")
    assert "--" not in str(err.value) and "schedule='1,5,34'" in err.value.hint
    (tmp_path / "obs.yaml").write_text(
        "- {query: guess, args: {g: [1, 2, 3]}, feedback: {black: 1, white: 0}}\n")
    out = CliRunner().invoke(cli, ["belief", "mastermind-lie", "--backend", "sdd",
                                   "--observations", str(tmp_path / "obs.yaml")])
    assert "hint: --backend enum (it tracks the lies)" in out.output + str(out.exception)
    # and after the command, the API speaks as the API again
    with pytest.raises(sleuth.SleuthError) as err:
        sleuth.simulate(sleuth.load("mastermind"), "entropy", guesses="some")
    assert err.value.message.startswith("guesses is")

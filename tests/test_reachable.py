"""Reachable feedback (solver/infoset/reachable.py) against Mastermind's score computed
here: the values `info --json` reports per action, the refusal of a feedback no secret
gives the query asked (in an observations file and through the API), the message for a
value outside them, and the web form's fields."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

import sleuth
from sleuth.compiler import load_game
from sleuth.compiler.api import ObservationError
from sleuth.solver.interfaces.cli import main
from sleuth.solver.interfaces.web.forms import action_forms
from tests.conftest import ROOT

MM = str(ROOT / "specs" / "mastermind.yaml")
SIZE = ["--set", "pegs=3", "--set", "colours=4"]


def score(guess: tuple, code: tuple) -> tuple[int, int]:
    black = sum(g == c for g, c in zip(guess, code, strict=True))
    return black, sum((Counter(guess) & Counter(code)).values()) - black


CODES = list(itertools.product(range(1, 5), repeat=3))


def test_info_reports_each_components_reachable_values(capsys):
    main(["info", MM, *SIZE, "--json"])
    (guess,) = json.loads(capsys.readouterr().out)["queries"]
    pairs = {score(g, c) for g in CODES for c in CODES}
    assert guess["feedback_domain"] == {"black": sorted({b for b, _ in pairs}),
                                        "white": sorted({w for _, w in pairs})}
    assert guess["feedback_domain_exact"] is True
    assert guess["feedback_values"] == len(pairs)


def test_a_feedback_no_secret_gives_this_query_is_impossible(tmp_path, capsys):
    guess = (1, 1, 2)
    possible = {score(guess, c) for c in CODES}
    impossible = next(p for p in itertools.product(range(4), range(4))
                      if p not in possible and sum(p) <= 3)  # each component is reachable
    obs = tmp_path / "obs.yaml"
    obs.write_text(f"- query: guess\n  args: {{g: [1, 1, 2]}}\n"
                   f"  feedback: {{black: {impossible[0]}, white: {impossible[1]}}}\n")
    with pytest.raises(SystemExit) as stop:
        main(["info", MM, *SIZE, "--observations", str(obs)])
    err = capsys.readouterr().err
    assert stop.value.code == 1 and "Traceback" not in err
    assert f"{obs}:3:13: black={impossible[0]} white={impossible[1]} is impossible for " \
           "guess g=[1, 1, 2]" in err
    listed = err.split("can be: ")[1].strip().split(", ")
    assert {tuple(int(x.split("=")[1]) for x in item.split()) for item in listed} == possible


def test_the_api_refuses_it_and_keeps_the_belief():
    game = sleuth.load(MM, pegs=3, colours=4)
    prior = sleuth.belief(game)
    with pytest.raises(ObservationError, match="is impossible for guess"):
        sleuth.observe(prior, "guess", {"g": [1, 2, 3]}, {"black": 2, "white": 1})
    assert prior.size == len(CODES)


@pytest.mark.parametrize("white", [9, 99])  # within the static type (-3..12), beyond it
def test_a_value_outside_the_actions_values_names_them(tmp_path, capsys, white):
    obs = tmp_path / "obs.yaml"
    obs.write_text("- query: guess\n  args: {g: [1, 1, 2]}\n"
                   f"  feedback: {{black: 0, white: {white}}}\n")
    with pytest.raises(SystemExit):
        main(["info", MM, *SIZE, "--observations", str(obs)])
    err = capsys.readouterr().err
    top = max(w for g in CODES for c in CODES for _, w in [score(g, c)])
    if white == 99:
        assert f"feedback 'white' of 'guess' is one of 0..{top}, not 99" in err
    else:
        assert "white=9 is impossible for guess g=[1, 1, 2]" in err
    assert "-3..12" not in err and "in -3" not in err  # never the static bounds


def test_web_forms_offer_the_reachable_values():
    game = load_game(MM, {"pegs": 3, "colours": 4})
    (form,) = action_forms(game)
    fields = {f["name"]: f["field"] for f in form["feedback"]}
    whites = [w for g in CODES for c in CODES for _, w in [score(g, c)]]
    assert (fields["white"]["min"], fields["white"]["max"]) == (min(whites), max(whites))
    assert game.model.action("guess").feedback[1][2].type.lo < min(whites)  # not the type's

"""Label-or-number feedback (a union type: `if c in field then 'mine' else count(...)`),
on Minesweeper: the kernels against the reference interpreter, the optimal total
against a brute force written here (the game rebuilt by hand), and the union typed in
observation files, the API, `play` and the web form, with located errors."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

import sleuth
from sleuth.compiler import SleuthError, load_game
from sleuth.compiler.api import ObservationError
from sleuth.compiler.game import load_game_text
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import main
from sleuth.solver.interfaces.web.forms import action_forms
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT

MINES = ROOT / "specs" / "minesweeper.yaml"


def shown(rows: int, cols: int, field: frozenset, c: int):
    """What probing cell c shows, by hand: 'mine', or the mines around it."""
    if c in field:
        return "mine"
    r, k = divmod(c, cols)
    return sum((rr * cols + kk) in field for rr in range(r - 1, r + 2)
               for kk in range(k - 1, k + 2)
               if 0 <= rr < rows and 0 <= kk < cols and (rr, kk) != (r, k))


def brute_total(rows: int, cols: int, mines: int) -> int:
    cells = range(rows * cols)
    fields = [frozenset(f) for f in itertools.combinations(cells, mines)]

    @cache
    def cost(left: frozenset) -> int:
        if len(left) == 1:
            return 0
        best = None
        for c in cells:
            parts: dict = {}
            for f in left:
                parts.setdefault(shown(rows, cols, f, c), set()).add(f)
            if len(parts) == 1:
                continue  # no progress
            total = len(left) + sum(cost(frozenset(p)) for p in parts.values())
            best = total if best is None else min(best, total)
        return best

    return cost(frozenset(fields))


def test_kernels_and_interpreter_agree_with_the_rules_written_here():
    game = load_game(MINES, {"rows": 3, "cols": 3, "mines": 2})
    codes = game.feedback_matrix("probe", np.arange(9))
    coder = game.coder("probe")
    seen = set()
    for c in range(9):
        for h in range(game.hypotheses.size):
            field = frozenset(game.hypotheses.value(h)["field"])
            want = shown(3, 3, field, c)
            assert coder.decode(int(codes[c, h]))["feedback"] == want
            assert game.reference_feedback("probe", {"c": c},
                                           game.hypotheses.value(h))["feedback"] == want
            seen.add(want)
    assert "mine" in seen and len(seen) > 2  # a label and several numbers


@pytest.mark.parametrize("rows, cols, mines", [(2, 3, 2), (3, 3, 2), (3, 3, 3),
                                               pytest.param(4, 4, 3, marks=pytest.mark.slow)])
def test_minesweeper_optimum_equals_the_brute_force(rows, cols, mines):
    game = load_game(MINES, {"rows": rows, "cols": cols, "mines": mines})
    total, _ = make_strategy("optimal", Candidates(game)).value(Belief.prior(game))
    assert total == brute_total(rows, cols, mines)


def test_observations_type_labels_and_numbers(tmp_path, capsys):
    obs = tmp_path / "obs.yaml"
    obs.write_text("- query: probe\n  args: {c: 5}\n  feedback: mine\n"
                   "- query: probe\n  args: {c: 0}\n  feedback: 2\n")
    main(["belief", str(MINES), "--observations", str(obs), "--json"])
    import json

    data = json.loads(capsys.readouterr().out)
    fields = [frozenset(f) for f in itertools.combinations(range(16), 3)]
    left = [f for f in fields if shown(4, 4, f, 5) == "mine" and shown(4, 4, f, 0) == 2]
    assert data["hypotheses"] == len(left)


@pytest.mark.parametrize("value, message", [
    ("mien", "did you mean 'mine'?"),
    ("4", "4 is impossible for probe c=0"),
    ("-1", "is one of 0, 1, 2, 3, mine, not -1"),
])
def test_bad_values_are_located(tmp_path, capsys, value, message):
    obs = tmp_path / "obs.yaml"
    obs.write_text(f"- query: probe\n  args: {{c: 0}}\n  feedback: {value}\n")
    with pytest.raises(SystemExit) as stop:
        main(["belief", str(MINES), "--observations", str(obs)])
    err = capsys.readouterr().err
    assert stop.value.code == 1 and f"{obs}:3:13:" in err and message in err


def test_the_api_and_play_take_either(capsys, monkeypatch):
    import io

    game = sleuth.load(MINES)
    after = sleuth.observe(sleuth.observe(sleuth.belief(game), "probe", {"c": 5}, "mine"),
                           "probe", {"c": 0}, 2)
    fields = [frozenset(f) for f in itertools.combinations(range(16), 3)]
    assert after.size == sum(shown(4, 4, f, 5) == "mine" and shown(4, 4, f, 0) == 2
                             for f in fields)
    with pytest.raises(ObservationError, match="is one of"):
        sleuth.observe(after, "probe", {"c": 1}, "boom")
    monkeypatch.setattr("sys.stdin", io.StringIO("play probe 5\nmine\nplay probe 0\n2\nquit\n"))
    with pytest.raises(SystemExit):
        main(["play", str(MINES)])
    assert f"probe c=0 -> 2: {after.size} remain" in capsys.readouterr().out


def test_the_web_form_offers_the_reachable_labels_and_numbers():
    game = load_game(MINES, {"rows": 3, "cols": 3, "mines": 2})
    (form,) = action_forms(game)
    values = {shown(3, 3, frozenset(f), c) for f in itertools.combinations(range(9), 2)
              for c in range(9)}
    assert form["feedback"][0]["field"]["values"] == [str(v) for v in sorted(
        values, key=lambda v: (isinstance(v, str), v))]


SPEC = """
game: union
params: {n: 4}
domains: {Cell: {range: "0..n-1"}}
secret: {x: Cell}
queries:
  probe:
    args: {c: Cell}
    feedback: {FEEDBACK}
"""


@pytest.mark.parametrize("feedback, message", [
    ("\"(if c == x then 'hit' else abs(c - x)) + 1\"", "'+' needs numbers"),
    ("\"if c == x then 'hit' else c\"", None),
    ("\"if (if c == x then 'hit' else c) == 9 then 1 else 0\"", "beyond the 0..3"),
    ("\"if (if c == x then 'hit' else c) == 'hot' then 1 else 0\"", "did you mean"),
])
def test_union_type_errors_are_located(feedback, message):
    text = SPEC.replace("{FEEDBACK}", feedback)
    if message is None:
        load_game_text(text, "u.yaml")
        return
    with pytest.raises(SleuthError) as err:
        load_game_text(text, "u.yaml")
    assert message in str(err.value) and "u.yaml:9:" in str(err.value)


@pytest.mark.parametrize("seen", ["hit", 1, 2, 3])
def test_the_counting_backend_agrees_with_enumeration(seen):
    """The boolean lowering holds a union as the kernels do: the same hypotheses remain
    after each answer, counted by sdd and listed by enumeration."""
    text = SPEC.replace("{FEEDBACK}", "\"if c == x then 'hit' else abs(c - x)\"")
    game = load_game_text(text, "u.yaml", {"n": 6})
    sizes = {backend: sleuth.observe(sleuth.belief(game, backend), "probe", {"c": 2},
                                     seen).size for backend in ("enum", "sdd")}
    want = sum(("hit" if c == 2 else abs(2 - c)) == seen for c in range(6))
    assert sizes == {"enum": want, "sdd": want}

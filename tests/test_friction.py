"""Issue 15, part D: the rough edges a new user hit, each shown working."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sleuth.compiler.api import load_game
from sleuth.compiler.errors import SpecError
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import cli
from sleuth.solver.interfaces.options import warn_if_slow
from sleuth.solver.strategies import make_strategy


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_check_takes_several_files_and_json(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text('game: X\nsecret:\n  x: {range: "1..3"}\nqueries:\n  q:\n'
                   '    args: {g: {range: "1..3"}}\n    feedback: {same: "g == y"}\n')
    result = invoke("check", "mastermind", str(bad), "counterfeit-coin", "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [r["ok"] for r in data] == [True, False, True]
    assert data[0]["hypotheses"] == 1296 and data[2]["hypotheses"] == 24
    assert data[1]["error"]["location"]["file"] == str(bad)
    assert data[1]["error"]["location"]["line"] == 7
    assert "unknown name 'y'" in data[1]["error"]["message"]


DATA_SPEC = """\
game: D
domains:
  W: {from: FILE}
secret:
  w: W
queries:
  q:
    args: {g: W}
    feedback: {same: "g == w"}
"""


def test_data_files_are_confined_to_the_spec_folder(tmp_path):
    (tmp_path / "words.txt").write_text("alpha\nbeta\n")
    folder = tmp_path / "spec"
    folder.mkdir()
    (folder / "near.txt").write_text("gamma\ndelta\nepsilon\n")
    for name, ok in [("near.txt", True), ("../words.txt", False), ("/etc/passwd", False)]:
        spec = folder / "s.yaml"
        spec.write_text(DATA_SPEC.replace("FILE", name))
        if ok:
            assert load_game(spec).hypotheses.size == 3
            continue
        with pytest.raises(SpecError) as e:
            load_game(spec)
        assert "outside the spec's folder" in e.value.message and e.value.loc.line == 3
        assert "root:" not in str(e.value)  # no line of the file is echoed
    spec.write_text(DATA_SPEC.replace("FILE", "../words.txt"))
    assert load_game(spec, data_anywhere=True).hypotheses.size == 2
    assert invoke("check", str(spec)).exit_code == 1
    assert invoke("check", str(spec), "--data-anywhere").exit_code == 0


@pytest.mark.parametrize("backend", ["enum", "sdd"])
def test_solve_draws_a_random_secret_from_the_seed(backend):
    def secret(seed: int) -> dict:
        out = invoke("solve", "counterfeit-coin", "--random-secret", "--seed", str(seed),
                     "--backend", backend, "--json")
        assert out.exit_code == 0, out.output
        data = json.loads(out.stdout)
        assert data["solved"]
        return data["secret"]

    drawn = [json.dumps(secret(s)) for s in range(4)]
    assert drawn[:2] == [json.dumps(secret(0)), json.dumps(secret(1))]  # reproducible
    assert len(set(drawn)) > 1
    game = load_game("counterfeit-coin")
    values = [game.hypotheses.value(i) for i in range(game.hypotheses.size)]
    assert all(json.loads(d) in values for d in drawn)
    assert invoke("solve", "counterfeit-coin").exit_code == 2  # neither: a usage error


def test_compile_counts_with_the_chosen_backend(tmp_path):
    obs = tmp_path / "obs.yaml"
    obs.write_text("- query: guess\n  args: {g: [1, 1, 2, 2]}\n  feedback: {black: 1, white: 1}\n")
    counts = {}
    for backend in ("enum", "sdd", "cnf"):
        out = invoke("compile", "mastermind", "--to", "json", "--backend", backend,
                     "--observations", str(obs))
        counts[backend] = json.loads(out.stdout)["hypotheses"]
    game = load_game("mastermind")
    b = Belief.prior(game)
    from sleuth.solver.infoset.observe import apply_event
    from sleuth.solver.interfaces.reading import read_observations
    for event in read_observations(game, str(obs)):
        b = apply_event(b, event)
    assert counts == dict.fromkeys(counts, b.size)


def test_bench_takes_budget_and_backend():
    out = invoke("bench", "counterfeit-coin", "--strategies", "entropy", "--trials", "2",
                 "--budget", "0.05", "--backend", "sdd", "--json")
    data = json.loads(out.stdout)
    assert data["time_limit"] == 0.05 and data["summary"][0]["solved"] == 2


def test_a_slow_decision_is_announced_up_front(capsys):
    game = load_game("mastermind", {"pegs": 5, "colours": 8})
    belief = Belief.prior(game)
    seconds = warn_if_slow(make_strategy("entropy", Candidates(game)), belief)
    assert seconds == pytest.approx(32768 ** 2 / 4e7)
    err = capsys.readouterr().err
    assert "1.1e+09 query x hypothesis pairs" in err and "ises-sampled --budget 1" in err
    assert warn_if_slow(make_strategy("ises-sampled", Candidates(game)), belief) is None
    small = load_game("mastermind")
    assert warn_if_slow(make_strategy("entropy", Candidates(small)), Belief.prior(small)) < 1
    assert capsys.readouterr().err == ""


HINT_SPEC = """\
game: R
domains:
  D: {range: "0..5"}
  K: {enum: [heavy, light]}
secret:
  x: D
  k: K
queries:
  q:
    args: {g: D}
    feedback: |-
      EXPR
"""


@pytest.mark.parametrize(("expr", "hint"), [
    ("if x = g then 1 else 0", "write '=='"),
    ("if x == g then yes else no", 'a string needs quotes: "yes"'),
    ("sum([i for i in 0..x])", "no list comprehensions"),
    ("count(x > i for i in range(3))", "a range is written a..b"),
    ("if k == hevy then 1 else 0", "did you mean 'heavy'?"),
])
def test_common_slips_get_hints(expr, hint):
    from sleuth.compiler.game import load_game_text

    with pytest.raises(SpecError) as e:
        load_game_text(HINT_SPEC.replace("EXPR", expr), "r.yaml")
    assert hint in e.value.hint and e.value.loc.line == 12


def test_belief_on_a_large_space_prints_a_summary_first():
    args = ["belief", "clue", "--observations", "examples/clue-game.yaml"]
    marginals = json.loads(invoke(*args, "--json").stdout)["marginals"]
    summary = invoke(*args).stdout
    settled = [f"{n} = {v}" for n, d in marginals.items() for v, p in d.items()
               if p > 1 - 1e-12]
    assert "owner[Rope] = envelope" in settled
    flat = " ".join(summary.split())
    assert all(s in flat for s in settled)
    best = max(marginals["owner[Peacock]"].items(), key=lambda kv: kv[1])
    assert f"owner[Peacock] {best[0]} {best[1]:.3f}" in flat
    assert "--all prints them all" in summary
    full = invoke(*args, "--all").stdout
    assert "--all prints them all" not in full
    assert len(full.splitlines()) > len(summary.splitlines()) + 100


def test_belief_without_observations_is_the_prior():
    data = json.loads(invoke("belief", "mastermind", "--json").stdout)
    assert data["hypotheses"] == 1296 and data["observations"] == []

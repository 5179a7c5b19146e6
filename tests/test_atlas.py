"""`sleuth atlas` (issue 31): every number on the page is the one `sleuth evaluate` and
`sleuth info` print for the same spec (run here through the command line), a sampled
game is sampled as `evaluate --secrets N --seed 0` samples it, and a budget that cuts a
step says so on the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sleuth.solver.interfaces.cli import cli
from tests.conftest import ROOT


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.e2e
def test_atlas_numbers_are_evaluate_s(tmp_path: Path) -> None:
    wide = tmp_path / "wide-mastermind.yaml"  # 2,401 secrets: sampled, 500 of them
    wide.write_text((ROOT / "specs" / "mastermind.yaml").read_text()
                    .replace("params: {pegs: 4, colours: 6}", "params: {pegs: 4, colours: 7}"))
    specs = ["counterfeit-coin", "higher-lower", str(wide)]
    atlas = run("atlas", *specs, "--out", str(tmp_path / "out"), "--budget", "120",
                "--workers", "2", "--every-secret-up-to", "2000")
    games = {g["spec"]: g for g in atlas["games"]}
    assert [g["spec"] for g in atlas["games"]] == specs  # in the order given
    for spec in specs:
        g = games[spec]
        info = run("info", spec)
        assert g["summary"]["hypotheses"] == info["hypotheses"]
        assert g["summary"]["entropy_bits"] == info["entropy_bits"]
        assert g["summary"]["queries"] == sum(q["legal"] for q in info["queries"])
        for name, got in (("entropy", g["analysis"]["entropy"]), ("minimax", g.get("minimax")),
                          ("optimal", g.get("optimal"))):
            if got is None:
                assert spec == str(wide) and name == "optimal"
                assert "sampled" in g["errors"]["optimal"]
                continue
            args = got["command"].split()[2:]  # sleuth evaluate SPEC ...
            want = run("evaluate", *args)
            assert (got["total"], got["worst"], got["secrets"]) == \
                (want["total"], want["worst"], want["secrets"])
            assert got["histogram"] == {str(k): v for k, v in want["histogram"].items()}
    assert games[str(wide)]["analysis"]["sampled"] == 500
    page = (tmp_path / "out" / "atlas.html").read_text()
    assert page.count("<tr>") == 1 + len(specs) and page.count("<img") == len(specs)
    on_disk = json.loads((tmp_path / "out" / "atlas.json").read_text())
    assert on_disk["games"] == atlas["games"]


@pytest.mark.e2e
def test_atlas_kinds_lies_random_answers_observations(tmp_path: Path) -> None:
    """Against lies the optimal column is `optimal-worst`'s proven worst case; random
    answers are seeded games, as `sleuth bench` plays them; a game of observations only
    has nothing to choose."""
    atlas = run("atlas", "ulam", "noisy-guess-who", "spyfall", "--out", str(tmp_path),
                "--budget", "120", "--workers", "2")
    ulam, noisy, spy = atlas["games"]
    assert (ulam["kind"], noisy["kind"], spy["kind"]) == \
        ("answers may lie", "random answers", "observations only")
    want = run("evaluate", "ulam", "--strategy", "optimal-worst")
    got = ulam["optimal-worst"]
    assert (got["total"], got["worst"]) == (want["total"], want["worst"])
    bench = run(*noisy["simulated"]["command"].split()[1:])["summary"][0]
    assert noisy["simulated"]["average"] == bench["average"]
    assert noisy["simulated"]["worst"] == bench["worst"]
    assert sum(noisy["simulated"]["histogram"].values()) == bench["trials"] == 200
    assert spy["steps"] == ["summary"] and spy["summary"]["queries"] == 0
    page = (tmp_path / "atlas.html").read_text()
    assert "worst case against lies" in page and "simulated: 200 games" in page
    assert "no queries to choose" in page


def test_atlas_budget_cuts_and_says_so(tmp_path: Path) -> None:
    atlas = run("atlas", "mastermind", "--out", str(tmp_path), "--budget", "0.2",
                "--workers", "1")
    entry = atlas["games"][0]
    for step in entry["steps"]:  # each step computed, cut or failed, and said once
        assert [step in entry, step in entry["cut"], step in entry["errors"]].count(True) == 1
    assert "optimal" in entry["cut"]  # the proven optimum of MM(4,6) takes seconds
    assert "optimal" not in entry
    assert "cut at the 0.2 s budget" in (tmp_path / "atlas.html").read_text()


def test_atlas_writes_the_page_and_fails_on_a_spec_it_cannot_read(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: X\nsecret: {x: Nope}\nqueries:\n  a: {args: {y: Nope}, "
                   "feedback: \"x\"}\n")
    result = CliRunner().invoke(cli, ["atlas", str(bad), "higher-lower", "--out",
                                      str(tmp_path / "out"), "--workers", "1"])
    assert result.exit_code == 1
    assert f"{bad}:2:13: unknown domain 'Nope'" in str(result.exception)
    page = json.loads((tmp_path / "out" / "atlas.json").read_text())
    assert [g["spec"] for g in page["games"]] == [str(bad), "higher-lower"]
    assert page["games"][1]["optimal"]["total"] > 0

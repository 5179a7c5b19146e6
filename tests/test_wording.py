"""What the commands say is what happened (issue 28): counts agree with their nouns, a
written file is named, a saved game resumes from its file alone, and every file the
README's commands write is kept out of `git status`."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from sleuth.solver.interfaces.cli import cli, main
from sleuth.solver.wording import counted, plural
from tests.conftest import ROOT


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_counts_agree_with_their_nouns():
    assert [counted(n, "hypothesis") for n in (0, 1, 2, 1296)] == [
        "0 hypotheses", "1 hypothesis", "2 hypotheses", "1,296 hypotheses"]
    assert (counted(1, "query"), counted(3, "query"), counted(1, "class"),
            counted(2, "class")) == ("1 query", "3 queries", "1 class", "2 classes")
    assert (plural(1, "remains"), plural(5, "remains")) == ("remains", "remain")


def test_evaluate_and_analyse_say_one_in_the_singular(tmp_path):
    out = invoke("evaluate", "mastermind", "--set", "pegs=2", "--set", "colours=2",
                 "--strategy", "minimax").output
    assert re.search(r"^\s+1 query\s+1\s", out, re.M) and "1 queries" not in out
    assert "average 2.0000   worst" in out  # a whole-number average: no bare "(2)"
    out = invoke("analyse", "higher-lower", "--set", "n=1", "--out", str(tmp_path)).output
    assert "1 hypothesis," in out and "1 hypotheses" not in out


def test_compile_says_what_it_wrote(tmp_path):
    target = tmp_path / "mm.cnf"
    out = invoke("compile", "mastermind", "--set", "pegs=2", "--set", "colours=3", "--to",
                 "dimacs", "-o", str(target)).output
    header = next(ln for ln in target.read_text().splitlines() if ln.startswith("p cnf"))
    _, _, variables, clauses = header.split()
    assert out.strip() == (f"wrote {target}: dimacs, {variables} variables (6 of the secret), "
                           f"{clauses} clauses")
    data = json.loads(invoke("compile", "mastermind", "--set", "pegs=2", "--set", "colours=3",
                             "--to", "dimacs", "-o", str(target), "--json").output)
    assert (data["variables"], data["clauses"]) == (int(variables), int(clauses))
    assert data["bytes"] == target.stat().st_size


def test_verify_tree_json(tmp_path):
    tree = tmp_path / "t.json"
    ev = json.loads(invoke("evaluate", "mastermind", "--set", "pegs=2", "--set", "colours=3",
                           "--strategy", "optimal", "--tree", str(tree), "--json").output)
    got = json.loads(invoke("verify-tree", str(tree), "mastermind", "--set", "pegs=2",
                            "--set", "colours=3", "--json").output)
    assert (got["secrets"], got["total"], got["worst"]) == (ev["secrets"], ev["total"],
                                                           ev["worst"])
    assert got["claimed"] == {"total": ev["total"], "worst": ev["worst"]}


def test_play_resumes_from_the_session_file_alone(tmp_path, monkeypatch, capsys):
    session = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("play guess 123\n1 0\nquit\n"))
    with pytest.raises(SystemExit):
        main(["play", "mastermind", "--set", "pegs=3", "--set", "colours=4",
              "--session", str(session)])
    first = capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    with pytest.raises(SystemExit):
        main(["play", "--session", str(session)])
    out = capsys.readouterr().out
    remain = re.search(r"recorded .*: (\d+) remain", first).group(1)
    assert "resumed 1 step from" in out and f"{remain} hypotheses remain" in out
    with pytest.raises(SystemExit) as done:
        main(["play", "--session", str(tmp_path / "none.json")])
    assert done.value.code == 1 and "play needs SPEC" in capsys.readouterr().err


def test_the_readme_commands_write_only_ignored_files():
    """Every file a README command writes in the folder it runs in (--tree, -o, --out,
    --session, and the .txt beside a tree) is ignored by git in a checkout."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    readme = (ROOT / "README.md").read_text()
    commands = [ln for ln in readme.splitlines() if ln.startswith("sleuth ")]
    written = []
    for line in commands:
        for flag, path in re.findall(r"(--tree|-o|--out|--session) (\S+)", line):
            written.append(path)
            if flag == "--tree":
                written.append(path.rsplit(".", 1)[0] + ".txt")
    assert {"mm.json", "mm.txt", "clue.cnf", "report/", "game.json"} <= set(written)
    written.append("sleuth-sessions/x.json")  # `sleuth serve` keeps its sessions there
    for path in written:
        done = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT)
        assert done.returncode == 0, f"{path} (written by a README command) is not ignored"

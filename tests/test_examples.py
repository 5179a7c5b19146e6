"""The walk-throughs in examples/ show real output: rerun them and compare."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # the second tier: end to end

EXAMPLES = ROOT / "examples"


def fenced_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```\w*\n(.*?)^```", markdown, flags=re.S | re.M)


def run(command: list[str], stdin: str = "", cwd=ROOT) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    out = subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=cwd,
                         check=True, env=env)
    return out.stdout


def strip_trailing(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


@pytest.mark.slow
def test_inkognito_walkthrough_is_current():
    doc = (EXAMPLES / "inkognito.md").read_text()
    steps = run([sys.executable, str(EXAMPLES / "inkognito.py")])
    belief = run([sys.executable, "-m", "sleuth", "belief", "specs/inkognito.yaml",
                  "--observations", "examples/inkognito-worksheet.yaml"])
    blocks = [strip_trailing(b) for b in fenced_blocks(doc)]
    assert strip_trailing("$ sleuth belief specs/inkognito.yaml --observations "
                          "examples/inkognito-worksheet.yaml\n" + belief) in blocks
    assert strip_trailing("$ python examples/inkognito.py\n" + steps) in blocks


@pytest.mark.slow
def test_mastermind_walkthrough_is_current(tmp_path):
    doc = (EXAMPLES / "mastermind-play.md").read_text()
    (block,) = [b for b in fenced_blocks(doc) if b.startswith("$ printf")]
    transcript = []
    for command, output in re.findall(r"^\$ (.*?)\n(.*?)(?=^\$ |\Z)", block, flags=re.S | re.M):
        feed = re.match(r'printf "(.*?)" \| sleuth (.*)', command)
        stdin = feed.group(1).encode().decode("unicode_escape")
        args = feed.group(2).split()
        got = run([sys.executable, "-m", "sleuth", *args[:1],
                   str(ROOT / args[1]), *args[2:]], stdin, cwd=tmp_path)
        transcript.append(strip_trailing(got) == strip_trailing(output))
    assert transcript == [True, True]

"""What `evaluate` claims for an exact search: a proof without `--top`, an upper bound
with it, in the text and in the JSON alike (issue 33: "a `--top` result is always
labelled an upper bound, and a proven one proven")."""

from __future__ import annotations

import json

from sleuth.solver.interfaces.cli import main as sleuth
from tests.conftest import ROOT

MM34 = [str(ROOT / "specs" / "mastermind.yaml"), "--set", "pegs=3", "--set", "colours=4"]


def _evaluate(capsys, *options: str) -> tuple[dict, str]:
    sleuth(["evaluate", *MM34, "--strategy", "optimal", *options, "--json"])
    data = json.loads(capsys.readouterr().out)
    sleuth(["evaluate", *MM34, "--strategy", "optimal", *options])
    return data, " ".join(capsys.readouterr().out.split())


def test_a_top_result_is_an_upper_bound_and_a_full_search_a_proof(capsys):
    """On MM(3,4) the first query of each set is not always a best one, so `--top 1`
    ends above the optimum: its JSON says `upper_bound` and never `proven`, and its
    text says "upper bound"; the full search's JSON says `proven`, below the bound."""
    proof, proof_text = _evaluate(capsys)
    bound, bound_text = _evaluate(capsys, "--top", "1")
    assert "proven" in proof and "upper_bound" not in proof
    assert "upper_bound" in bound and "proven" not in bound
    assert proof["proven"]["top"] == 0 and bound["upper_bound"]["top"] == 1
    assert proof["proven"]["total"] == proof["total"]
    assert bound["upper_bound"]["total"] == bound["total"] > proof["total"]
    assert "proven optimal" in proof_text and "upper bound" not in proof_text
    assert "upper bound on the optimum" in bound_text and "proven optimal" not in bound_text

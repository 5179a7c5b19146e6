"""specs/inkognito-table.yaml against a brute-force Bayes update written here.

The 36 tables (identities and builds all different, your own pair excluded)
are listed by hand; each answer is drawn uniformly among the truthful answers
of its shape, and the posterior is computed by hand: P(answer | table) =
1 / (truthful answers of that shape for the opponent asked) when the answer
is truthful, else 0.
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from tests.conftest import ROOT

IDS = ["Fiddlebottom", "ZsaZsa", "Bubble", "AgentX"]
BDS = ["tall", "short", "fat", "thin"]
OPP = ["left", "across", "right"]
SHAPES = {("player_question", "identity"): (2, 1), ("player_question", "build"): (1, 2),
          ("ambassador_question", "identity"): (2, 0), ("ambassador_question", "build"): (0, 2)}


def tables() -> list[dict[str, dict[str, str]]]:
    out = []
    for ids in itertools.permutations([i for i in IDS if i != "AgentX"]):
        for bds in itertools.permutations([b for b in BDS if b != "short"]):
            out.append({"identities": dict(zip(OPP, ids, strict=True)),
                        "builds": dict(zip(OPP, bds, strict=True))})
    return out


def answers(shape: tuple[int, int]) -> list[dict[str, list[str]]]:
    return [{"ids": list(i), "bds": list(b)} for i in itertools.combinations(IDS, shape[0])
            for b in itertools.combinations(BDS, shape[1])]


def truthful(t: dict, who: str, a: dict) -> bool:
    return t["identities"][who] in a["ids"] or t["builds"][who] in a["bds"]


def test_hypotheses_are_the_36_tables():
    g = load_game(ROOT / "specs" / "inkognito-table.yaml")
    got = {(tuple(g.hypotheses.value(i)["identities"]), tuple(g.hypotheses.value(i)["builds"]))
           for i in range(g.hypotheses.size)}
    want = {(tuple(t["identities"][o] for o in OPP), tuple(t["builds"][o] for o in OPP))
            for t in tables()}
    assert g.hypotheses.size == 36 and got == want


@pytest.mark.parametrize("seed", range(6))
def test_marginals_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    g = load_game(ROOT / "specs" / "inkognito-table.yaml")
    every = tables()
    truth = every[int(rng.integers(len(every)))]
    belief = Belief.prior(g)
    weight = np.ones(len(every))
    for _ in range(int(rng.integers(1, 6))):
        query = ["player_question", "ambassador_question"][int(rng.integers(2))]
        topic = ["identity", "build"][int(rng.integers(2))]
        who = OPP[int(rng.integers(3))]
        shape = answers(SHAPES[(query, topic)])
        options = [a for a in shape if truthful(truth, who, a)]
        answer = options[int(rng.integers(len(options)))]
        belief = apply_event(belief, Event(query, {"opponent": who, "topic": topic},
                                           answer=answer))
        weight *= [1 / sum(truthful(t, who, a) for a in shape) if truthful(t, who, answer)
                   else 0.0 for t in every]
    p = weight / weight.sum()
    marginals = belief.marginals()
    for var in ("identities", "builds"):
        for o in OPP:
            for value in (IDS if var == "identities" else BDS):
                expected = sum(pi for pi, t in zip(p, every, strict=True) if t[var][o] == value)
                assert marginals[f"{var}[{o}]"][value] == pytest.approx(expected, abs=1e-12)


def test_the_joint_model_needs_fewer_questions():
    spec = importlib.util.spec_from_file_location("inkognito_table",
                                                  ROOT / "examples" / "inkognito_table.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    rng = np.random.default_rng(3)
    games = [example.one_game(rng) for _ in range(20)]
    joint, alone = np.array(games, dtype=float).T
    assert joint.mean() < alone.mean() and (joint <= alone).all()

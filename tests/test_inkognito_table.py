"""specs/inkognito-table.yaml against a brute-force Bayes update written here.

The 36 tables (identities and builds all different, your own pair excluded)
are listed by hand; each answer is drawn uniformly among the truthful answers
of its shape, and the posterior is computed by hand: P(answer | table) =
1 / (truthful answers of that shape for the opponent asked) when the answer
is truthful, else 0.
"""

from __future__ import annotations

import importlib
import itertools
import sys

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


def examples_module(name: str):
    """An example script as a module (examples/ on the path, for its `outputs` import)."""
    if str(ROOT / "examples") not in sys.path:
        sys.path.insert(0, str(ROOT / "examples"))
    return importlib.import_module(name)


def test_the_joint_model_needs_fewer_questions():
    example = examples_module("inkognito_table")
    rng = np.random.default_rng(3)
    games = [example.one_game(rng) for _ in range(20)]
    joint, alone = np.array(games, dtype=float).T
    assert joint.mean() < alone.mean() and (joint <= alone).all()


def true_cards(t: dict, who: str, a: dict) -> int:
    return int(t["identities"][who] in a["ids"]) + int(t["builds"][who] in a["bds"])


@pytest.mark.parametrize("seed, candor", [(0, 4.0), (1, 0.25), (2, 1.0)])
def test_candor_is_learned_as_bayes_says(seed, candor):
    """An opponent who prefers answers with two true cards (weight candor) or avoids them;
    the table's candor a hidden param over CANDORS, uniform: the posterior over (table,
    candor), computed here from P(a | t, c) = c^(k(a) - 1) / sum over truthful a' of
    c^(k(a') - 1), k the number of true cards."""
    candors = (0.25, 1.0, 4.0)
    rng = np.random.default_rng(seed)
    g = load_game(ROOT / "specs" / "inkognito-table.yaml",
                  {"candor": {"hidden": list(candors)}})
    assert g.hypotheses.size == 36 * 3
    every = tables()
    truth = every[int(rng.integers(len(every)))]
    belief = Belief.prior(g)
    weight = np.ones((len(every), len(candors)))
    for k in range(8):
        who, topic = OPP[k % 3], ["identity", "build"][int(rng.integers(2))]
        shape = answers(SHAPES[("player_question", topic)])
        options = [a for a in shape if truthful(truth, who, a)]
        w = np.array([candor ** (true_cards(truth, who, a) - 1) for a in options])
        answer = options[int(rng.choice(len(options), p=w / w.sum()))]
        belief = apply_event(belief, Event("player_question", {"opponent": who, "topic": topic},
                                           answer=answer))
        for i, t in enumerate(every):
            for j, c in enumerate(candors):
                total = sum(c ** (true_cards(t, who, a) - 1) for a in shape
                            if truthful(t, who, a))
                weight[i, j] *= (c ** (true_cards(t, who, answer) - 1) / total
                                 if truthful(t, who, answer) else 0.0)
    p = weight / weight.sum()
    m = belief.marginals()
    for j, c in enumerate(candors):
        assert m["candor"][f"{c:g}"] == pytest.approx(p[:, j].sum(), abs=1e-12)
    for o in OPP:
        for value in IDS:
            want = sum(p[i].sum() for i, t in enumerate(every) if t["identities"][o] == value)
            assert m[f"identities[{o}]"].get(value, 0.0) == pytest.approx(want, abs=1e-12)


def test_biased_tables_are_played():
    example = examples_module("inkognito_table")
    out = example.biased_game(np.random.default_rng(1), 4.0)
    assert set(out) == {"fixed", "learn", "candor", "fixed right", "learn right"}
    assert 1 <= out["learn"] <= example.MAX_QUESTIONS

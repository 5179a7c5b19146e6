"""specs/decrypto-small.yaml against a brute-force posterior written here.

The 1,680 keyword assignments x 24 codes are listed by hand; P(clue | keyword)
is computed from the CSV table directly; after past rounds and this round's
clues the posterior over codes is summed by hand and compared with Sleuth's.
"""

from __future__ import annotations

import csv
import itertools
import math

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from tests.conftest import ROOT

SPECS = ROOT / "specs"


def table():
    words = (SPECS / "decrypto-words.txt").read_text().split()
    clues = (SPECS / "decrypto-clues.txt").read_text().split()
    score = {}
    with (SPECS / "decrypto-scores.csv").open() as f:
        for c, w, s in csv.reader(line for line in f if not line.startswith("#")):
            score[c, w] = float(s)
    p = {(c, w): math.exp(score[c, w]) / sum(math.exp(score[d, w]) for d in clues)
         for c in clues for w in words}
    return words, clues, p


@pytest.mark.parametrize("seed", range(3))
def test_code_posterior_equals_brute_force(seed):
    g = load_game(SPECS / "decrypto-small.yaml")
    words, clues, p = table()
    rng = np.random.default_rng(seed)
    codes = list(itertools.permutations(range(4), 3))
    past = [(codes[int(rng.integers(24))], [clues[int(rng.integers(16))] for _ in range(3)])
            for _ in range(int(rng.integers(0, 3)))]
    now = [clues[int(rng.integers(16))] for _ in range(3)]
    belief = Belief.prior(g)
    for shown, cs in past:
        belief = apply_event(belief, Event("past_round", {"shown": shown}, answer=tuple(cs)))
    belief = apply_event(belief, Event("clues", {}, answer=tuple(now)))
    mass = dict.fromkeys(codes, 0.0)
    for kw in itertools.permutations(words, 4):
        w = math.prod(p[c, kw[i]] for shown, cs in past for c, i in zip(cs, shown, strict=True))
        for code in codes:
            mass[code] += w * math.prod(p[c, kw[i]] for c, i in zip(now, code, strict=True))
    total = sum(mass.values())
    got = dict.fromkeys(codes, 0.0)
    probs = belief.probabilities()
    cols = belief.values("code")
    for k in range(belief.size):
        got[tuple(int(c[k]) for c in cols)] += probs[k]
    for code in codes:
        assert got[code] == pytest.approx(mass[code] / total, abs=1e-12), code


def test_own_team_guesses_the_code_when_every_clue_is_clear():
    """Keywords known and each clue scoring highest with its own keyword: the most
    probable code is the true one."""
    g = load_game(SPECS / "decrypto-small.yaml")
    words, clues, p = table()
    keywords = ("ocean", "fire", "moon", "glass")
    own = apply_event(Belief.prior(g), Event("keywords_known", {"known": keywords},
                                             feedback={"same": True}))
    assert own.size == 24
    code = (2, 0, 3)
    shown = ("night", "wave", "mirror")  # moon, ocean, glass: each its own best keyword
    after = apply_event(own, Event("clues", {}, answer=shown))
    best = after.top(1)[0][0]
    assert best["code"] == list(code) and best["keywords"] == list(keywords)  # JSON data


def test_the_notebooks_sanity_check_every_code_at_probability_one():
    """The Decrypto notebook's own check (issue 29): with the identity clue model (a clue
    names its keyword, P(clue i | position s) = 1 if clue i is the keyword at s, else 0),
    each of the 24 codes comes out at posterior probability 1. Through specs/decrypto.yaml,
    for every code."""
    g = load_game(SPECS / "decrypto.yaml")
    codes = list(itertools.permutations(range(4), 3))
    assert Belief.prior(g).size == len(codes) == 24
    for code in codes:
        fit = [1.0 if s == code[i] else 0.0 for i in range(3) for s in range(4)]
        after = apply_event(Belief.prior(g), Event("clues", {}, answer={"fit": tuple(fit)}))
        (best, p), = after.top(1)
        assert tuple(best["code"]) == code and p == pytest.approx(1.0, abs=1e-15)
        assert after.size == 1

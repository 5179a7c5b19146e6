"""specs/decrypto-keyword.yaml and specs/decrypto.yaml (the official keyword list) against
computations written here: the word list against the decryptogame package, the keyword
posterior against a softmax of the CSV's scores, the code's posterior mode against the
notebook's recursion (the maximum over code assignments) on every code of a card."""

from __future__ import annotations

import csv
import itertools
import sys

import numpy as np
import pytest
from decryptogame.generators import RandomKeywordCards
from decryptogame.official_words import english

from sleuth.compiler import SpecError, load_game
from sleuth.compiler.game import load_game_text
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "examples"))
SPECS = ROOT / "specs"
WORDS = (SPECS / "decrypto-words.txt").read_text().split()
CLUES = (SPECS / "decrypto-clues.txt").read_text().split()
CODES = list(itertools.permutations(range(4), 3))


def p_clue(temperature: float) -> np.ndarray:
    """P(clue | word) from the CSV by hand: exp(score / T), normalised over the clues."""
    score = np.zeros((len(CLUES), len(WORDS)))
    with (SPECS / "decrypto-scores.csv").open() as f:
        for clue, word, s in csv.reader(line for line in f if not line.startswith("#")):
            score[CLUES.index(clue), WORDS.index(word)] = float(s)
    w = np.exp(score / temperature)
    return w / w.sum(axis=0)


def test_the_word_list_is_the_official_one():
    assert WORDS == [w.replace("-", "_") for w in english.words]
    assert len(WORDS) == 424 and len(set(WORDS)) == 424


@pytest.mark.parametrize("seed", range(3))
def test_keyword_posterior_is_the_softmax_of_the_table(seed):
    g = load_game(SPECS / "decrypto-keyword.yaml")
    p = p_clue(g.model.params["temperature"])
    rng = np.random.default_rng(seed)
    word = int(rng.integers(len(WORDS)))
    belief, want = Belief.prior(g), np.full(len(WORDS), 1 / len(WORDS))
    for _ in range(4):
        clue = int(rng.choice(len(CLUES), p=p[:, word]))
        belief = apply_event(belief, Event("clue", {}, answer=CLUES[clue]))
        want = want * p[clue]
        want /= want.sum()
    got = np.zeros(len(WORDS))
    got[belief.index] = belief.probabilities()
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_map_code_is_the_recursion_on_every_code_of_a_card():
    """Cards dealt by decryptogame's generator; after two revealed rounds, for each of the
    24 codes: the spec's posterior mode is a maximiser of prod_i fit[i, code_i], and its
    posterior is that product, normalised (computed here)."""
    import decrypto as sim

    rng = np.random.default_rng(7)
    for card_seed in (1, 2):
        card = next(RandomKeywordCards(seed=card_seed))[0]
        keywords = [WORDS.index(w.replace("-", "_")) for w in card]
        spy = [Belief.prior(sim.KEYWORD) for _ in range(4)]
        for code in (CODES[3], CODES[17]):
            for s, c in zip(code, sim.give_clues(keywords, code, rng), strict=True):
                spy[s] = apply_event(spy[s], Event("clue", {}, answer=CLUES[c]))
        for code in CODES:
            fit = sim.fit_of(spy, sim.give_clues(keywords, code, rng))
            value = np.array([fit[0, a] * fit[1, b] * fit[2, c] for a, b, c in CODES])
            guess, p = sim.map_code(fit)
            assert value[CODES.index(guess)] >= value.max() * (1 - 1e-9)
            assert p == pytest.approx(value.max() / value.sum(), rel=1e-9)


def test_fit_is_the_belief_times_the_clue_model():
    import decrypto as sim

    p = p_clue(sim.KEYWORD.model.params["temperature"])
    prior = Belief.prior(sim.KEYWORD)
    beliefs = [apply_event(prior, Event("clue", {}, answer=c)) for c in ("animal", "food",
                                                                         "music", "war")]
    fit = sim.fit_of(beliefs, [CLUES.index("animal"), CLUES.index("sky"), CLUES.index("war")])
    for s, b in enumerate(beliefs):
        q = np.zeros(len(WORDS))
        q[b.index] = b.probabilities()
        for i, c in enumerate(("animal", "sky", "war")):
            assert fit[i, s] == pytest.approx(float(q @ p[CLUES.index(c)]), rel=1e-9)


def test_a_sparse_table_needs_its_default():
    text = (SPECS / "decrypto-keyword.yaml").read_text().replace(", default: 0}", "}")
    with pytest.raises(SpecError, match="misses entries") as err:
        load_game_text(text, str(SPECS / "decrypto-keyword.yaml"))
    assert "default" in (err.value.hint or "")


def test_the_example_without_its_optional_package_says_how_to_get_it():
    import subprocess

    code = ("import sys; sys.modules['decryptogame'] = None; "
            "sys.modules['decryptogame.generators'] = None; sys.argv = ['decrypto.py']; "
            f"sys.path.insert(0, {str(ROOT / 'examples')!r}); "
            f"exec(open({str(ROOT / 'examples' / 'decrypto.py')!r}).read())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 1
    assert "pip install -e '.[examples]'" in out.stderr and "Traceback" not in out.stderr

"""specs/decrypto-keyword.yaml and specs/decrypto.yaml on the official keyword list (written
from the decryptogame package into a temporary folder, as examples/decrypto_data.py writes
it for a user) against computations written here: the word list against the package, the keyword
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
import decrypto_data  # noqa: E402

SPECS = ROOT / "specs"
CODES = list(itertools.permutations(range(4), 3))


@pytest.fixture(scope="module")
def official(tmp_path_factory):
    """The folder examples/decrypto_data.py writes, and the example reading it."""
    import decrypto as sim

    folder = decrypto_data.write(tmp_path_factory.mktemp("decrypto"))
    sim.use(folder)
    return folder


@pytest.fixture(scope="module")
def words(official):
    return (official / "decrypto-words.txt").read_text().split()


@pytest.fixture(scope="module")
def clues(official):
    return (official / "decrypto-clues.txt").read_text().split()


def p_clue(official, temperature: float) -> np.ndarray:
    """P(clue | word) from the CSV by hand: exp(score / T), normalised over the clues."""
    words = (official / "decrypto-words.txt").read_text().split()
    clues = (official / "decrypto-clues.txt").read_text().split()
    score = np.zeros((len(clues), len(words)))
    with (official / "decrypto-scores.csv").open() as f:
        for clue, word, s in csv.reader(line for line in f if not line.startswith("#")):
            score[clues.index(clue), words.index(word)] = float(s)
    w = np.exp(score / temperature)
    return w / w.sum(axis=0)


def test_the_word_list_is_the_official_one(words):
    assert words == [w.replace("-", "_") for w in english.words]
    assert len(words) == 424 and len(set(words)) == 424


@pytest.mark.parametrize("seed", range(3))
def test_keyword_posterior_is_the_softmax_of_the_table(seed, official, words, clues):
    g = load_game(official / "decrypto-keyword.yaml")
    p = p_clue(official, g.model.params["temperature"])
    rng = np.random.default_rng(seed)
    word = int(rng.integers(len(words)))
    belief, want = Belief.prior(g), np.full(len(words), 1 / len(words))
    for _ in range(4):
        clue = int(rng.choice(len(clues), p=p[:, word]))
        belief = apply_event(belief, Event("clue", {}, answer=clues[clue]))
        want = want * p[clue]
        want /= want.sum()
    got = np.zeros(len(words))
    got[belief.index] = belief.probabilities()
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_map_code_is_the_recursion_on_every_code_of_a_card(official, words, clues):
    """Cards dealt by decryptogame's generator; after two revealed rounds, for each of the
    24 codes: the spec's posterior mode is a maximiser of prod_i fit[i, code_i], and its
    posterior is that product, normalised (computed here)."""
    import decrypto as sim

    rng = np.random.default_rng(7)
    for card_seed in (1, 2):
        card = next(RandomKeywordCards(seed=card_seed))[0]
        keywords = [words.index(w.replace("-", "_")) for w in card]
        spy = [Belief.prior(sim.KEYWORD) for _ in range(4)]
        for code in (CODES[3], CODES[17]):
            for s, c in zip(code, sim.give_clues(keywords, code, rng), strict=True):
                spy[s] = apply_event(spy[s], Event("clue", {}, answer=clues[c]))
        for code in CODES:
            fit = sim.fit_of(spy, sim.give_clues(keywords, code, rng))
            value = np.array([fit[0, a] * fit[1, b] * fit[2, c] for a, b, c in CODES])
            guess, p = sim.map_code(fit)
            assert value[CODES.index(guess)] >= value.max() * (1 - 1e-9)
            assert p == pytest.approx(value.max() / value.sum(), rel=1e-9)


def test_fit_is_the_belief_times_the_clue_model(official, words, clues):
    import decrypto as sim

    p = p_clue(official, sim.KEYWORD.model.params["temperature"])
    prior = Belief.prior(sim.KEYWORD)
    beliefs = [apply_event(prior, Event("clue", {}, answer=c)) for c in ("animal", "food",
                                                                         "music", "war")]
    fit = sim.fit_of(beliefs, [clues.index("animal"), clues.index("sky"), clues.index("war")])
    for s, b in enumerate(beliefs):
        q = np.zeros(len(words))
        q[b.index] = b.probabilities()
        for i, c in enumerate(("animal", "sky", "war")):
            assert fit[i, s] == pytest.approx(float(q @ p[clues.index(c)]), rel=1e-9)


def test_a_sparse_table_needs_its_default(official):
    text = (official / "decrypto-keyword.yaml").read_text().replace(", default: 0}", "}")
    with pytest.raises(SpecError, match="misses entries") as err:
        load_game_text(text, str(official / "decrypto-keyword.yaml"))
    assert "default" in (err.value.hint or "")


@pytest.mark.parametrize("script", ["decrypto.py", "decrypto_data.py"])
def test_the_example_without_its_optional_package_says_how_to_get_it(script, tmp_path):
    import subprocess

    code = ("import sys; sys.modules['decryptogame'] = None; "
            "sys.modules['decryptogame.generators'] = None; "
            "sys.modules['decryptogame.official_words'] = None; "
            f"sys.argv = [{script!r}, {str(tmp_path / 'out')!r}]; "
            f"sys.path.insert(0, {str(ROOT / 'examples')!r}); import runpy; "
            f"runpy.run_path({str(ROOT / 'examples' / script)!r}, run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 1
    assert "pip install -e '.[examples]'" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "out").exists()


def test_the_written_specs_read_the_official_list_and_the_bundled_ones_do_not(official):
    assert load_game(official / "decrypto-keyword.yaml").hypotheses.size == 424
    bundled = load_game(SPECS / "decrypto-keyword.yaml")
    assert bundled.hypotheses.size == len((SPECS / "decrypto-words.txt").read_text().split())
    assert bundled.hypotheses.size < 424 // 2

"""`sleuth analyse`: first-move profiles, entropy per round, interest metrics, reports.

Values are recomputed here independently: first-move partitions with a
hand-written Mastermind scorer, entropy trajectories by replaying each
secret's game one query at a time, and binary search's bits by arithmetic.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from sleuth.compiler import load_game
from sleuth.solver.evaluation.analysis import analyse
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import cli
from sleuth.solver.strategies import make_strategy
from tests.conftest import CHROMIUM, ROOT, needs_chromium


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def score(guess, code, whites=True):
    black = sum(a == b for a, b in zip(guess, code, strict=True))
    white = sum((Counter(guess) & Counter(code)).values()) - black
    return (black, white) if whites else black


def test_black_peg_first_moves_are_all_equivalent():
    data = run("analyse", str(ROOT / "specs" / "black-peg-mastermind.yaml"))
    classes = data["first_moves"]["classes"]
    assert data["first_moves"]["queries"] == 1296 and len(classes) == 1
    codes = list(itertools.product(range(1, 7), repeat=4))
    by_hand = sorted(Counter(score((1, 1, 1, 1), c, whites=False) for c in codes).values(),
                     reverse=True)
    assert classes[0]["partition"] == by_hand == [625, 500, 150, 20, 1]
    assert data["spatial_interest_bits"] == 0.0


def test_mastermind_first_move_classes_against_a_hand_scorer():
    data = run("analyse", str(ROOT / "specs" / "mastermind.yaml"))
    classes = {"".join(map(str, c["example"]["args"]["g"])): c
               for c in data["first_moves"]["classes"]}
    assert set(classes) == {"1111", "1112", "1122", "1123", "1234"}
    codes = list(itertools.product(range(1, 7), repeat=4))
    for name, c in classes.items():
        parts = Counter(score(tuple(int(x) for x in name), code) for code in codes)
        sizes = sorted(parts.values(), reverse=True)
        assert c["partition"] == sizes and c["largest_part"] == sizes[0]
        assert c["parts"] == len(sizes)
        assert c["expected_entropy_bits"] == pytest.approx(
            sum(n * math.log2(n) for n in sizes) / 1296, abs=1e-12)
    assert {k: c["largest_part"] for k, c in classes.items()} == \
        {"1111": 625, "1112": 317, "1122": 256, "1123": 276, "1234": 312}
    assert sum(c["queries"] for c in classes.values()) == 1296
    assert data["spatial_interest_bits"] > 0


def expected_entropy_by_hand(guess, codes, whites=True) -> float:
    sizes = Counter(score(guess, c, whites) for c in codes).values()
    return sum(n * math.log2(n) for n in sizes) / len(codes)


@pytest.mark.parametrize("colours", [2, 3, 4])
def test_fig3_two_colours_are_best_at_three_pegs_up_to_three_colours(colours):
    """The paper's Fig. 3 claim, at 3 pegs: a first guess of two colours (112) leaves the
    least expected entropy. By a hand scorer over every guess: true for 2 and 3 colours,
    false from 4 on (123 is best), and `sleuth analyse` agrees class by class."""
    codes = list(itertools.product(range(1, colours + 1), repeat=3))
    by_hand = {g: expected_entropy_by_hand(g, codes) for g in codes}
    best = min(by_hand.values())
    best_colours = {len(set(g)) for g, h in by_hand.items() if h <= best + 1e-12}
    data = run("analyse", str(ROOT / "specs" / "mastermind.yaml"), "--set", "pegs=3",
               "--set", f"colours={colours}")
    classes = data["first_moves"]["classes"]
    first = tuple(classes[0]["example"]["args"]["g"])
    assert classes[0]["expected_entropy_bits"] == pytest.approx(best, abs=1e-12)
    assert {len(set(first))} == best_colours
    for c in classes:
        g = tuple(c["example"]["args"]["g"])
        assert c["expected_entropy_bits"] == pytest.approx(by_hand[g], abs=1e-12)
    assert best_colours == ({2} if colours <= 3 else {3})


def test_fig3_black_peg_first_moves_are_alike_at_three_pegs_three_colours():
    """The paper's other Fig. 3 claim: in Simple (black-peg) Mastermind every first move
    is alike. By hand, every one of the 27 guesses parts the codes 12/8/6/1."""
    codes = list(itertools.product(range(1, 4), repeat=3))
    parts = {tuple(sorted(Counter(score(g, c, whites=False) for c in codes).values(),
                          reverse=True)) for g in codes}
    assert parts == {(12, 8, 6, 1)}
    data = run("analyse", str(ROOT / "specs" / "black-peg-mastermind.yaml"), "--set",
               "pegs=3", "--set", "colours=3")
    (only,) = data["first_moves"]["classes"]
    assert tuple(only["partition"]) == (12, 8, 6, 1) and only["queries"] == 27
    assert data["spatial_interest_bits"] == 0.0  # exactly: 8.9e-16 before issue 29


@pytest.mark.parametrize("k", [3, 5])
def test_binary_search_loses_the_same_bits_for_every_secret(k):
    n = 2**k - 1
    data = run("analyse", str(ROOT / "specs" / "higher-lower.yaml"), "--set", f"n={n}")
    for r in data["entropy_per_round"]:
        left = 2 ** (k - r["round"]) - 1  # numbers still possible after r guesses
        assert r["minimum"] == r["maximum"] == pytest.approx(math.log2(left), abs=1e-12)
        assert r["spread"] == 0.0
    assert data["temporal_interest_bits"] == 0.0
    mastermind = run("analyse", str(ROOT / "specs" / "mastermind.yaml"))
    assert mastermind["temporal_interest_bits"] > 0.5 > data["temporal_interest_bits"]
    wide = [r for r in mastermind["entropy_per_round"] if r["round"] in (1, 2)]
    assert all(r["maximum"] - r["minimum"] > 4 for r in wide)


def test_trajectories_equal_replayed_games():
    """Entropy after each query, from the evaluation tree, equals the transcript of each
    secret's own game played one query at a time."""
    g = load_game(ROOT / "specs" / "mastermind.yaml", {"pegs": 3, "colours": 4})
    strategy = make_strategy("minimax", Candidates(g))
    a = analyse(g, strategy, "mm")
    for h in range(0, g.hypotheses.size, 7):
        t = play_secret(g, strategy, h)
        assert a.evaluation.lengths[h] == len(t.steps)
        replay = [Belief.prior(g).entropy_bits()] + [s.entropy_bits for s in t.steps]
        assert a.trajectories[h] == pytest.approx(replay, abs=1e-12)
    in_play = [sum(1 for n in a.evaluation.lengths.values() if n > r or r == 0)
               for r in range(len(a.rounds))]
    assert [r.in_play for r in a.rounds] == in_play


@pytest.mark.slow
def test_report_files(tmp_path):
    out = tmp_path / "report"
    data = run("analyse", str(ROOT / "specs" / "counterfeit-coin.yaml"), "--out", str(out))
    for name in ("report.md", "report.html", "analysis.json", "first-moves.png",
                 "first-moves.svg", "entropy-per-round.png", "entropy-per-round.svg",
                 "game-lengths.png", "game-lengths.svg"):
        assert (out / name).stat().st_size > 0, name
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 3 and "<table>" in page
    assert (out / "first-moves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "analysis.json").read_text())["spatial_interest_bits"] == \
        data["spatial_interest_bits"]
    assert data["lengths"]["histogram"] == {"3": 24}


@pytest.mark.e2e
@needs_chromium
def test_report_renders_in_headless_chromium(tmp_path):
    out = tmp_path / "report"
    run("analyse", str(ROOT / "specs" / "mastermind.yaml"), "--out", str(out))
    assert CHROMIUM, "no Chromium under CI: .ci/run installs it"
    shot = tmp_path / "shot.png"
    result = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                             f"--screenshot={shot}", "--window-size=1000,2400",
                             (out / "report.html").as_uri()],
                            capture_output=True, text=True, timeout=120)
    assert shot.exists(), result.stderr
    from matplotlib.image import imread

    image = imread(shot)[..., :3]
    blue = (np.abs(image - np.array([0x4c, 0x72, 0xb0]) / 255).max(axis=2) < 0.05).sum()
    assert blue > 5_000  # the plots' bars and lines are on the page, not broken images


def test_analyse_explains_why_it_needs_listed_hypotheses():
    result = CliRunner().invoke(cli, ["analyse", str(ROOT / "specs" / "clue.yaml")])
    assert result.exit_code == 1 and "lists them" in str(result.exception)

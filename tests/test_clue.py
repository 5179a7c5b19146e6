"""Clue on the symbolic backend: the deal count, and beliefs against brute force.

The reduced deck (3 suspects, 3 weapons, 3 rooms, 3 players) is specs/clue.yaml
with its card list replaced; its 72 deals are listed here by hand and every
observation is applied by a shower rule written here, independently of the
spec's expressions.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from sleuth.solver.interfaces.cli import cli
from tests.conftest import ROOT

CLUE = ROOT / "specs" / "clue.yaml"
SMALL_CARDS = ["S1", "S2", "S3", "W1", "W2", "W3", "R1", "R2", "R3"]
SMALL_SET = ["--set", "players=3", "--set", "suspects=3", "--set", "weapons=3",
             "--set", "my_suspect=S1", "--set", "my_weapon=W1"]


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_full_deal_count():
    data = run("info", str(CLUE))
    expected = 5 * 5 * 8 * math.factorial(15) // math.factorial(3) ** 5
    assert data["hypotheses"] == expected == 33_633_600_000
    assert data["backend"] == "sdd"


@pytest.fixture(scope="module")
def small_spec(tmp_path_factory):
    text = CLUE.read_text()
    start = text.index("  Card: {enum: [")
    end = text.index("\n", start)
    text = text[:start] + f"  Card: {{enum: [{', '.join(SMALL_CARDS)}]}}" + text[end:]
    text = text.replace('    - "seat(owner[my_room]) == me"\n', "")  # a hand of two cards
    path = tmp_path_factory.mktemp("clue") / "small-clue.yaml"
    path.write_text(text)
    return path


def small_deals() -> list[dict[str, str]]:
    """Every deal of the reduced deck with S1 and W1 in p1's hand (2 cards each)."""
    deals = []
    for env in itertools.product(["S1", "S2", "S3"], ["W1", "W2", "W3"], ["R1", "R2", "R3"]):
        rest = [c for c in SMALL_CARDS if c not in env]
        for hand1 in itertools.combinations(rest, 2):
            if set(hand1) != {"S1", "W1"}:
                continue
            others = [c for c in rest if c not in hand1]
            for hand2 in itertools.combinations(others, 2):
                deal = {c: "envelope" for c in env}
                deal.update({c: "p1" for c in hand1})
                deal.update({c: "p2" for c in hand2})
                deal.update({c: "p3" for c in others if c not in hand2})
                deals.append(deal)
    return deals


def shower(deal: dict[str, str], asker: int, cards: tuple[str, ...], players: int = 3) -> str:
    for k in range(1, players):
        p = f"p{(asker - 1 + k) % players + 1}"
        if any(deal[c] == p for c in cards):
            return p
    return "nobody"


def random_observations(rng: np.random.Generator, deal: dict[str, str], n: int) -> list[dict]:
    out = []
    for _ in range(n):
        cards = (f"S{rng.integers(1, 4)}", f"W{rng.integers(1, 4)}", f"R{rng.integers(1, 4)}")
        kind = rng.integers(3)
        if kind == 0:
            out.append({"query": "suggest", "args": dict(zip(["suspect", "weapon", "room"],
                                                                 cards, strict=True)),
                        "feedback": {"shower": shower(deal, 1, cards)}})
        elif kind == 1:
            asker = int(rng.integers(2, 4))
            out.append({"query": "suggestion",
                        "args": {"asker": f"p{asker}", **dict(zip(
                            ["suspect", "weapon", "room"], cards, strict=True))},
                        "feedback": {"shower": shower(deal, asker, cards)}})
        else:
            card = str(rng.choice([c for c in SMALL_CARDS if deal[c] in ("p2", "p3")]))
            out.append({"query": "shown", "args": {"card": card, "by": deal[card]},
                        "feedback": {"holds": True}})
    return out


def consistent(deal: dict[str, str], obs: dict) -> bool:
    a = obs["args"]
    if obs["query"] == "shown":
        return deal[a["card"]] == a["by"]
    asker = 1 if obs["query"] == "suggest" else int(a["asker"][1:])
    return shower(deal, asker, (a["suspect"], a["weapon"], a["room"])) == \
        obs["feedback"]["shower"]


def test_reduced_deck_count():
    assert len(small_deals()) == 72


def brute_force_case(tmp_path, seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    deals = small_deals()
    truth = deals[int(rng.integers(len(deals)))]
    observations = random_observations(rng, truth, int(rng.integers(1, 6)))
    path = tmp_path / "obs.yaml"
    path.write_text(json.dumps(observations))  # JSON is YAML
    return path, [d for d in deals if all(consistent(d, o) for o in observations)]


@pytest.mark.parametrize("seed", range(6))
def test_reduced_deck_marginals_equal_brute_force(small_spec, tmp_path, seed):
    path, kept = brute_force_case(tmp_path, seed)
    data = run("belief", str(small_spec), *SMALL_SET, "--observations", str(path),
               "--backend", "sdd")
    assert data["hypotheses"] == len(kept)
    for card in SMALL_CARDS:
        counts = Counter(d[card] for d in kept)
        for holder, p in data["marginals"][f"owner[{card}]"].items():
            assert p == pytest.approx(counts[holder] / len(kept), abs=1e-12)


@pytest.mark.slow
def test_reduced_deck_with_ganak(small_spec, tmp_path):
    """The cnf backend (one Ganak count per value) agrees; one case, it is slow."""
    path, kept = brute_force_case(tmp_path, 1)
    data = run("belief", str(small_spec), *SMALL_SET, "--observations", str(path),
               "--backend", "cnf")
    assert data["hypotheses"] == len(kept)
    counts = Counter(d["S2"] for d in kept)
    for holder, p in data["marginals"]["owner[S2]"].items():
        assert p == pytest.approx(counts[holder] / len(kept), abs=1e-12)


def test_scripted_game_updates_are_fast():
    data = run("belief", str(CLUE), "--observations", str(ROOT / "examples" / "clue-game.yaml"))
    suggestions = [s for s in data["observations"] if s["query"] in ("suggest", "suggestion")]
    assert len(suggestions) >= 12
    assert all(s["seconds"] < 2.0 for s in data["observations"])
    assert data["marginal_seconds"] < 2.0
    remaining = [s["remaining"] for s in data["observations"]]
    assert remaining == sorted(remaining, reverse=True) and remaining[-1] >= 1
    for card, dist in data["marginals"].items():
        assert sum(dist.values()) == pytest.approx(1.0, abs=1e-9), card


def test_reduced_deck_solved_on_sdd_against_brute_force(small_spec):
    """entropy on the symbolic backend plays the reduced deck to a correct accusation; every
    step's count is re-derived from the hand-listed deals and the shower rule here."""
    deals = small_deals()
    truth = deals[41]
    owner = "[" + ", ".join(truth[c] for c in SMALL_CARDS) + "]"
    data = run("solve", str(small_spec), *SMALL_SET, "--backend", "sdd",
               "--secret", f"owner={owner}")
    assert data["solved"] and data["steps"][-1]["query"] == "accuse"
    assert data["steps"][-1]["feedback"] == {"correct": True}
    kept = deals
    for step in data["steps"][:-1]:
        assert step["query"] == "suggest"
        kept = [d for d in kept if consistent(d, step)]
        assert step["remaining"] == len(kept)
    env = {c for c in SMALL_CARDS if truth[c] == "envelope"}
    assert set(data["steps"][-1]["args"].values()) == env


@pytest.mark.slow
def test_full_deck_ises_decisions_on_sdd():
    """Two sampled-ISES suggestions on the 33,633,600,000 deals, within a 0.5 s budget
    each after the diagram's one-off count."""
    owner = ("[p4, p3, p6, p2, envelope, p1, p4, p1, p5, p2, envelope, p4, p3, p5, p3, p5, "
             "p6, p1, envelope, p6, p2]")
    data = run("solve", str(CLUE), "--strategy", "ises-sampled", "--budget", "0.5",
               "--max-steps", "2", "--secret", f"owner={owner}")
    assert data["hypotheses"] == 33_633_600_000 and len(data["steps"]) == 2
    assert data["steps"][0]["remaining"] < data["hypotheses"]
    assert data["steps"][1]["remaining"] < data["steps"][0]["remaining"]

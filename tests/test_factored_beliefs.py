"""Beliefs on `--backend factored` (compiler/factored_state.py, factored_kernel.py,
factored_facts.py) against the enumerated backend after seeded observations, and its
sampling against the uniform distribution:

* counts, every marginal, the sorted listing, and every query's feedback counts (read
  off the marginals where the formula is one clause of exclusive parts, counted by a pass
  of its own where not) on fleets of 2, 3 and 5 ships and on a game of three numbers;
* `likeliest` played on a counted belief that is never listed, query for query as on the
  enumerated one;
* `sleuth belief --queries` on both backends;
* on the standard 10 x 10 board (slow), the heat map after two shots against the
  numpy count of compiler/factored.py, which narrows the ships' masks itself.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from sleuth.compiler import SleuthError
from sleuth.compiler.game import load_game, load_game_text
from sleuth.solver.infoset.answers import feedback_chances
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.counted import CountedBelief
from sleuth.solver.infoset.goals import goal_reached
from sleuth.solver.infoset.observe import Event
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.cli import main
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT

SPEC = ROOT / "specs" / "battleship.yaml"
FLEETS = {  # parts: 2, 3 and 5 ships
    "two": {"n": 4, "carrier": 0, "battleship": 0, "submarine": 0},
    "three": {"n": 5, "carrier": 0, "battleship": 4, "submarine": 0},
    "five": {"n": 4, "carrier": 3, "battleship": 2, "cruiser": 2, "submarine": 1,
             "destroyer": 1},
}

NUMBERS = """
game: Numbers
domains: {D: {range: "1..5"}}
secret:
  a: D
  b: D
  c: D
  constraints:
    - "a != b and b != c"
    - "a + c != 6"
queries:
  which:
    args: {x: D}
    feedback: 'if a == x then "a" else if b == x then "b" else "none"'
  either:
    args: {x: D}
    feedback: "a == x or c == x"
goal: {identify: [a, b, c]}
"""


def agree(counted: CountedBelief, enum: Belief) -> None:
    """Size, marginals, listing and every query's feedback chances agree."""
    assert counted.size == enum.size
    want = enum.marginals()
    for name, dist in counted.marginals().items():
        for value, p in dist.items():
            assert p == pytest.approx(want[name].get(value, 0.0), abs=1e-9), (name, value)
    ranks = counted.counter.list_ranks(counted.state, 10**7)
    assert ranks == enum.game.hypotheses.ranks[enum.index].tolist()
    candidates = Candidates(enum.game)
    got = feedback_chances(counted, candidates)
    for (q1, c1), (q2, c2) in zip(got, feedback_chances(enum, candidates), strict=True):
        assert q1 == q2
        assert c1.keys() == c2.keys(), q1
        for k in c1:
            assert c1[k] == pytest.approx(c2[k], abs=1e-9), (q1, k)


def random_events(game, rng, steps: int) -> list[Event]:
    """Seeded queries answered by a secret drawn from the enumerated table."""
    secret = int(rng.integers(game.hypotheses.size))
    events = []
    for _ in range(steps):
        query = game.model.queries[int(rng.integers(len(game.model.queries)))]
        rank = int(rng.integers(game.space(query.name).size))
        code = int(game.feedback_matrix(query.name, np.array([rank]), np.array([secret]))[0, 0])
        events.append(Event(query.name, game.space(query.name).value(rank),
                            game.coder(query.name).decode(code)))
    return events


@pytest.mark.parametrize("fleet", [f if f == "three" else pytest.param(f, marks=pytest.mark.slow)
                                   for f in FLEETS])  # (the 4 x 4 fleets: seconds each)
@pytest.mark.parametrize("seed", [1, 2])
def test_fleet_beliefs_agree_with_the_enumerated_backend(fleet: str, seed: int) -> None:
    game = load_game(SPEC, FLEETS[fleet])
    counted = CountedBelief.prior(game, "factored", list_limit=0)  # never listed
    enum = Belief.prior(game)
    agree(counted, enum)
    for event in random_events(game, np.random.default_rng(seed), 6):
        counted, enum = counted.observe(event), enum.observe(event)
        agree(counted, enum)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_feedback_that_is_not_one_exclusive_clause_is_counted(seed: int) -> None:
    """`either` is a clause over a and c, which may both hold (not exclusive); `which`
    gives conjunctions of masks: both counted by passes of their own."""
    game = load_game_text(NUMBERS)
    counted, enum = CountedBelief.prior(game, "factored", list_limit=0), Belief.prior(game)
    agree(counted, enum)
    for event in random_events(game, np.random.default_rng(seed), 3):
        counted, enum = counted.observe(event), enum.observe(event)
        agree(counted, enum)


def test_samples_are_uniform(monkeypatch: pytest.MonkeyPatch) -> None:
    """By rejection, and part by part (forced): every hypothesis drawn about as often."""
    import sleuth.compiler.factored_state as state_module

    game = load_game(SPEC, FLEETS["two"])
    counted = CountedBelief.prior(game, "factored", list_limit=0)
    counted = counted.observe(Event("fire", {"c": 5}, {"feedback": "miss"}))
    everyone = set(game.hypotheses.ranks[Belief.prior(game).observe(
        Event("fire", {"c": 5}, {"feedback": "miss"})).index].tolist())
    for least in (state_module.LEAST_ACCEPTANCE, 2.0):
        monkeypatch.setattr(state_module, "LEAST_ACCEPTANCE", least)
        k = 200 * len(everyone) if least < 1 else 20 * len(everyone)
        drawn = counted.counter.sample_ranks(counted.state, k, 7)
        assert set(drawn) == everyone
        freq = np.unique(drawn, return_counts=True)[1]
        mean = k / len(everyone)
        assert np.all(np.abs(freq - mean) < 5 * np.sqrt(mean)), (least, freq)


def test_likeliest_plays_a_counted_belief_as_a_listed_one() -> None:
    game = load_game(SPEC, FLEETS["three"])
    strategy = make_strategy("likeliest", Candidates(game))
    rng = np.random.default_rng(3)
    for secret in rng.choice(game.hypotheses.size, size=4, replace=False).tolist():
        counted = CountedBelief.prior(game, "factored", list_limit=0)
        enum = Belief.prior(game)
        for _ in range(game.space("fire").size):
            q1, q2 = strategy.choose(counted), strategy.choose(enum)
            assert q1 == q2
            code = int(game.feedback_matrix("fire", np.array([q1.rank]),
                                            np.array([secret]))[0, 0])
            event = Event("fire", game.space("fire").value(q1.rank),
                          game.coder("fire").decode(code))
            counted, enum = counted.observe(event), enum.observe(event)
            assert counted.size == enum.size
            done = goal_reached(enum, game)
            assert goal_reached(counted, game) == done
            if done:
                break


def test_belief_queries_on_both_backends(tmp_path, capsys) -> None:
    shots = tmp_path / "shots.yaml"
    shots.write_text("- {query: fire, args: {c: 5}, feedback: hit}\n"
                     "- {query: fire, args: {c: 6}, feedback: miss}\n")
    out = {}
    for backend in ("enum", "factored"):
        main(["belief", str(SPEC), "--set", "n=4", "--set", "carrier=0", "--set",
              "battleship=0", "--set", "submarine=0", "--backend", backend,
              "--observations", str(shots), "--queries", "--json"])
        out[backend] = json.loads(capsys.readouterr().out)["queries"]
    assert len(out["enum"]) == 16
    assert out["enum"][5]["feedback"] == pytest.approx({"hit": 1.0})
    for a, b in zip(out["enum"], out["factored"], strict=True):
        assert a["args"] == b["args"]
        assert a["feedback"].keys() == b["feedback"].keys()
        for k in a["feedback"]:
            assert a["feedback"][k] == pytest.approx(b["feedback"][k], abs=1e-12)


def test_conditioning_needs_pairwise_constraints() -> None:
    from tests.test_factored import TRIPLES

    game = load_game_text(TRIPLES.replace("LAST", "c + d != 5"))
    counter = game.counter("factored")
    fact = game.symbolic.lowering.feedback_fact("ask", {"x": 1}, {"feedback": True})
    with pytest.raises(SleuthError, match="every constraint joins two parts"):
        counter.conjoin(counter.start(), fact)


@pytest.mark.slow
def test_ten_by_ten_heat_map_against_the_numpy_count() -> None:
    """After a hit at 44 and a miss at 45: the chance of a miss at a few cells, by the
    heat map, and by compiler/factored.py's numpy count with every ship's values that
    hold the cells shot (or the cell asked) masked out by hand -- the hit by inclusion
    and exclusion over "no ship on 44"."""
    from sleuth.compiler.factored import FactorGraph

    game = load_game(SPEC)
    belief = CountedBelief.prior(game, "factored")
    for event in (Event("fire", {"c": 44}, {"feedback": "hit"}),
                  Event("fire", {"c": 45}, {"feedback": "miss"})):
        belief = belief.observe(event)
    chances = dict(feedback_chances(belief, Candidates(game)))
    graph = FactorGraph(game.model)
    held = []  # per ship, which of its values hold each cell
    for part in graph.parts:
        length = game.model.params[{"c5": "carrier", "b4": "battleship", "r3": "cruiser",
                                    "s3": "submarine", "d2": "destroyer"}[part]]
        at, down = np.divmod(np.arange(graph.sizes[graph.parts.index(part)]), 2)
        cells = [np.where(down == 1, at + 10 * k, at + k) for k in range(length)]
        held.append(lambda c, cells=cells: np.any([x == c for x in cells], axis=0))

    def misses(*cells: int) -> int:
        base = [m.copy() for m in graph.masks]
        for p, holds in enumerate(held):
            for c in cells:
                graph.masks[p] &= ~holds(c)
        n = graph.count()
        graph.masks = base
        return n

    total = misses(45) - misses(44, 45)
    assert total == belief.size
    for cell in (34, 43, 0):
        miss = misses(45, cell) - misses(44, 45, cell)
        assert chances[next(q for q in chances if q.rank == cell)][("miss",)] == \
            pytest.approx(miss / total, abs=1e-12)


def test_listing_by_counted_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    """A listing too large for a buffer per group counts the groups first and writes
    each group's share: the same rows."""
    import sleuth.compiler.factored_kernel as kernel

    monkeypatch.setattr(kernel, "LIST_BYTES", 0)
    game = load_game(SPEC, FLEETS["five"])
    counted = CountedBelief.prior(game, "factored", list_limit=0)
    enum = Belief.prior(game)
    for event in random_events(game, np.random.default_rng(4), 3):
        counted, enum = counted.observe(event), enum.observe(event)
        ranks = counted.counter.list_ranks(counted.state, 10**7)
        assert ranks == enum.game.hypotheses.ranks[enum.index].tolist()

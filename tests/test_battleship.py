"""Battleship (specs/battleship.yaml) and the cover goal, against computations written
here on small boards:

* the fleets, placed by hand (each ship straight, on the board, no shared cell);
* the least total and the least worst case of shots until every ship cell is hit, by a
  recursion over (fleets left, cells fired) that ends each fleet's game the moment its
  last cell is hit -- the game's own rule, not the engine's "the cover is settled, the
  rest is forced";
* `likeliest` (fire at the unshot cell most fleets left have a ship on) against a
  simulation of that rule written here, game by game;
* the published 10 x 10 count (slow), and the cover goal's errors.
"""

from __future__ import annotations

import itertools
import json
from functools import cache

import pytest

from sleuth.compiler import SleuthError
from sleuth.compiler.game import load_game_text
from sleuth.solver.interfaces.cli import main
from tests.conftest import ROOT

SPEC = ROOT / "specs" / "battleship.yaml"
NAMES = ("carrier", "battleship", "cruiser", "submarine", "destroyer")


def fleets(n: int, ships: tuple[int, ...]) -> list[frozenset[int]]:
    """Every fleet's ship cells (ships told apart, so equal cell sets may repeat)."""
    places = []
    for length in ships:
        mine = []
        for r, c in itertools.product(range(n), repeat=2):
            if c + length <= n:
                mine.append(frozenset(r * n + c + k for k in range(length)))
            if r + length <= n:
                mine.append(frozenset((r + k) * n + c for k in range(length)))
        places.append(mine)
    out = []
    for combo in itertools.product(*places):
        if sum(map(len, combo)) == len(frozenset().union(*combo)):
            out.append(frozenset().union(*combo))
    return out


def sets(n: int, ships: dict[str, int]) -> list[str]:
    values = {"n": n, **{name: ships.get(name, 0) for name in NAMES}}
    return [x for k, v in values.items() for x in ("--set", f"{k}={v}")]


def evaluate(capsys, n: int, ships: dict[str, int], strategy: str) -> dict:
    main(["evaluate", str(SPEC), "--strategy", strategy, "--json", *sets(n, ships)])
    return json.loads(capsys.readouterr().out)


BOARDS = [(3, {"cruiser": 2, "destroyer": 2}), (3, {"cruiser": 3, "destroyer": 2})]


@pytest.mark.parametrize("n, ships", BOARDS)
def test_fleets_are_counted_as_placed_by_hand(capsys, n, ships):
    main(["info", str(SPEC), "--json", *sets(n, ships)])
    got = json.loads(capsys.readouterr().out)["hypotheses"]
    assert got == len(fleets(n, tuple(ships.values())))


def least_shots(n: int, ships: tuple[int, ...]) -> tuple[int, int]:
    """(least total, least worst case) of shots until every ship cell is hit."""
    every = fleets(n, ships)

    @cache
    def best(left: frozenset, fired: frozenset, worst_first: bool) -> tuple[int, int]:
        if not left:
            return 0, 0
        out = None
        for c in range(n * n):
            if c in fired:
                continue
            now = fired | {c}
            total, worst = len(left), 1
            for part in ({h for h in left if c in every[h]}, {h for h in left
                                                              if c not in every[h]}):
                going = frozenset(h for h in part if not every[h] <= now)
                t, w = best(going, now, worst_first)
                total, worst = total + t, max(worst, w + 1 if going else 1)
            if out is None or ((worst, total) < out[::-1] if worst_first
                               else (total, worst) < out):
                out = (total, worst)
        return out

    total, _ = best(frozenset(range(len(every))), frozenset(), False)
    _, worst = best(frozenset(range(len(every))), frozenset(), True)
    return total, worst


@pytest.mark.parametrize("n, ships", BOARDS)
def test_optimal_shots_equal_the_brute_force(capsys, n, ships):
    total, worst = least_shots(n, tuple(ships.values()))
    assert evaluate(capsys, n, ships, "optimal")["total"] == total
    assert evaluate(capsys, n, ships, "optimal-worst")["worst"] == worst


@pytest.mark.parametrize("n, ships", BOARDS + [(4, {"cruiser": 3, "destroyer": 2})])
def test_likeliest_plays_the_probability_density_rule(capsys, n, ships):
    every = fleets(n, tuple(ships.values()))
    total = 0
    for secret in every:
        left, fired = list(every), set()
        while not secret <= fired:
            counts = [-1 if c in fired else sum(c in h for h in left) for c in range(n * n)]
            c = counts.index(max(counts))
            fired.add(c)
            left = [h for h in left if (c in h) == (c in secret)]
        total += len(fired)
    assert evaluate(capsys, n, ships, "likeliest")["total"] == total


@pytest.mark.slow
def test_the_published_fleet_count(capsys):
    main(["info", str(SPEC), "--backend", "factored", "--json"])
    assert json.loads(capsys.readouterr().out)["hypotheses"] == 30_093_975_536


GAME = """\
game: cover
params: {n: 4}
domains:
  N: {range: "1..n"}
secret: {x: N}
queries:
  ask:
    args: {t: N}
    feedback: "if x == t then 'yes' else 'no'"
goal: {cover: 'feedback == "yes"'}
"""


@pytest.mark.parametrize("goal, message", [
    ("{cover: 'x == 1'}", "unknown name 'x'"),  # a query's arguments and feedback only
    ("{cover: 'feedback == \"yes\"', stop_when: 'feedback == \"yes\"'}", "takes no stop_when"),
])
def test_cover_errors_are_located(goal, message):
    with pytest.raises(SleuthError) as err:
        load_game_text(GAME.replace("goal: {cover: 'feedback == \"yes\"'}", f"goal: {goal}"),
                       "cover.yaml")
    assert message in str(err.value) and "cover.yaml:10:" in str(err.value)


def test_likeliest_refuses_a_game_without_cover(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", str(ROOT / "specs" / "mastermind.yaml"), "--strategy", "likeliest"])
    assert "no cover" in capsys.readouterr().err


def test_play_answers_the_suggestions_and_names_the_shots_left():
    """At the table: `play` suggests shots (likeliest), we answer them for one fleet, and
    when the rest is known it lists exactly the fleet's cells not fired at."""
    from rich.console import Console

    from sleuth.compiler import load_game
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.interfaces.play import Play
    from sleuth.solver.interfaces.session import Session
    from sleuth.solver.strategies import make_strategy

    n, ships = 3, {"cruiser": 3, "destroyer": 2}
    game = load_game(SPEC, {"n": n, **{k: ships.get(k, 0) for k in NAMES}})
    secret = fleets(n, (3, 2))[0]  # cells 0, 1, 2 and 3, 4: known before 4 is fired
    console = Console(record=True, width=10_000, markup=False, highlight=False)
    play = Play(game, make_strategy("likeliest", Candidates(game)),
                Session.open(None, game, str(SPEC)), console, as_json=True)
    fired: list[int] = []

    def answer(prompt: str) -> str | None:
        if prompt.startswith("solved"):
            return None
        cell = int(prompt.split("c=")[1].split()[0])
        fired.append(cell)
        return "hit" if cell in secret else "miss"

    assert play.run(answer) == 0
    records = [json.loads(line) for line in console.export_text().splitlines() if line]
    done = [r for r in records if r.get("solved")][-1]
    left = {int(q.split("c=")[1]) for q in done.get("then", [])}
    assert left and left == set(secret) - set(fired)

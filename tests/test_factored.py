"""`--backend factored` (compiler/factored.py): counts checked against the enumerated table,
the decision diagram and a brute force over ship placements written here."""

from __future__ import annotations

import itertools

import pytest

from sleuth.compiler.enumerate import Budget
from sleuth.compiler.game import load_game_text

FLEET = """
game: Fleet
params: {n: 4, a: 3, b: 2, c: 2}
domains:
  Pos: {range: "0..n*n-1"}
  Dir: {enum: [across, down]}
  Ship: {record: {at: Pos, dir: Dir}}
defs:
  "cell(s, k)": "if s.dir == Dir.across then s.at + k else s.at + n * k"
  "fits(s, len)": "if s.dir == Dir.across then s.at % n + len <= n else s.at // n + len <= n"
  "apart(s, x, t, y)": "forall(cell(s, i) != cell(t, j) for i in 0..x-1 for j in 0..y-1)"
secret:
  first: Ship
  second: Ship
  third: Ship
  constraints:
    - "fits(first, a) and fits(second, b) and fits(third, c)"
    - "apart(first, a, second, b) and apart(first, a, third, c) and apart(second, b, third, c)"
queries:
  fire:
    args: {p: Pos}
    feedback: "exists(cell(first, k) == p for k in 0..a-1)"
goal: {identify: [first, second, third]}
"""


def placements(n: int, length: int) -> list[frozenset]:
    out = []
    for r in range(n):
        for c in range(n):
            if c + length <= n:
                out.append(frozenset(r * n + c + k for k in range(length)))
            if r + length <= n:
                out.append(frozenset((r + k) * n + c for k in range(length)))
    return out


def brute_fleet(n: int, lengths: list[int]) -> int:
    """Labelled fleets of straight, non-overlapping ships, counted one by one (a ship
    of length 1 is counted twice, across and down, as the spec's records do)."""
    lists = [placements(n, k) for k in lengths]
    return sum(1 for fleet in itertools.product(*lists)
               if sum(map(len, fleet)) == len(frozenset().union(*fleet)))


@pytest.mark.parametrize("n,a,b,c", [(4, 3, 2, 2), (5, 3, 3, 2), (5, 4, 2, 2), (3, 2, 2, 1)])
def test_factored_counts_fleets_as_the_brute_force(n: int, a: int, b: int, c: int,
                                                   thread_mode: str) -> None:
    game = load_game_text(FLEET, overrides={"n": n, "a": a, "b": b, "c": c})
    counter = game.counter("factored")
    got = counter.count(counter.start())
    assert got == brute_fleet(n, [a, b, c])
    assert got == game.hypotheses.size  # the enumerated table
    sdd = game.counter("sdd")
    assert got == sdd.count(sdd.start())


TRIPLES = """
game: Triples
domains: {D: {range: "1..6"}}
secret:
  a: D
  b: D
  c: D
  d: D
  constraints:
    - "a + b + c != 9 and a != d"
    - "b < d or c == 2"
    - "LAST"
queries:
  ask:
    args: {x: D}
    feedback: "a == x"
goal: {identify: [a, b, c, d]}
"""


@pytest.mark.parametrize("last", ["c + d != 5", "b + c + d != 10", "a * d <= 20"])
def test_factored_counts_factors_over_three_parts(last: str, thread_mode: str) -> None:
    """A factor over three parts within the join, and one reaching the last two (the
    last part is then summed alone), against the enumerated table."""
    game = load_game_text(TRIPLES.replace("LAST", last))
    counter = game.counter("factored")
    assert counter.count(counter.start()) == game.hypotheses.size
    want = sum(1 for a, b, c, d in itertools.product(range(1, 7), repeat=4)
               if a + b + c != 9 and a != d and (b < d or c == 2)
               and eval(last, {}, {"a": a, "b": b, "c": c, "d": d}))  # noqa: S307
    assert game.hypotheses.size == want


TWO = """
game: Two
domains: {D: {range: "1..6"}}
secret:
  a: D
  b: D
  constraints: ["CONSTRAINT"]
queries:
  ask:
    args: {x: D}
    feedback: "a == x"
goal: {identify: [a, b]}
"""


@pytest.mark.parametrize("constraint", ["a < b", "a + b != 7"])
def test_factored_counts_two_parts(constraint: str) -> None:
    """Two parts: no join, the matrix product alone (it counted one per value of the
    first part too many before)."""
    game = load_game_text(TWO.replace("CONSTRAINT", constraint))
    counter = game.counter("factored")
    want = sum(1 for a, b in itertools.product(range(1, 7), repeat=2)
               if eval(constraint, {}, {"a": a, "b": b}))  # noqa: S307
    assert counter.count(counter.start()) == game.hypotheses.size == want


@pytest.mark.slow
def test_factored_counts_the_standard_fleet_on_ten_by_ten() -> None:
    """The published count of Battleship placements: 10 x 10, ships 5, 4, 3, 3, 2."""
    text = FLEET.replace("params: {n: 4, a: 3, b: 2, c: 2}",
                         "params: {n: 10, a: 5, b: 4, c: 3, d: 3, e: 2}")
    text = text.replace("  third: Ship\n", "  third: Ship\n  fourth: Ship\n  fifth: Ship\n")
    text = text.replace(
        '    - "fits(first, a) and fits(second, b) and fits(third, c)"',
        '    - "fits(first, a) and fits(second, b) and fits(third, c) and fits(fourth, d) '
        'and fits(fifth, e)"')
    pairs = [("first", "a"), ("second", "b"), ("third", "c"), ("fourth", "d"), ("fifth", "e")]
    apart = " and ".join(f"apart({s}, {x}, {t}, {y})"
                         for (s, x), (t, y) in itertools.combinations(pairs, 2))
    text = text.replace(
        '    - "apart(first, a, second, b) and apart(first, a, third, c) and apart(second, '
        'b, third, c)"', f'    - "{apart}"')
    text = text.replace("goal: {identify: [first, second, third]}",
                        "goal: {identify: [first, second, third, fourth, fifth]}")
    game = load_game_text(text)
    counter = game.counter("factored")
    assert counter.count(counter.start()) == 30_093_975_536


def test_info_counts_with_the_factored_backend(tmp_path) -> None:
    """`sleuth info --backend factored` reports the count and the factors."""
    import json

    from click.testing import CliRunner

    from sleuth.solver.interfaces.cli import cli

    spec = tmp_path / "fleet.yaml"
    spec.write_text(FLEET)
    result = CliRunner().invoke(cli, ["info", str(spec), "--backend", "factored", "--json"],
                                catch_exceptions=False)
    data = json.loads(result.stdout)
    assert data["hypotheses"] == brute_fleet(4, [3, 2, 2])
    assert data["backend_size"] == {"parts": 3, "factors": 3, "factor_cells": 3 * 32 * 32}


def test_the_battleship_fleet_counts_as_the_brute_force_on_a_small_board() -> None:
    """specs/battleship.yaml (the README's count) on 5 x 5, against the brute force: the
    standard fleet, told apart."""
    from sleuth.compiler import load_game
    from tests.conftest import ROOT

    game = load_game(str(ROOT / "specs" / "battleship.yaml"), {"n": 5})
    counter = game.counter("factored")
    assert counter.count(counter.start()) == brute_fleet(5, [5, 4, 3, 3, 2])


@pytest.mark.parametrize("last,want", [("c + d != 5", "factored"),
                                       ("b + c + d != 10", "sdd")])
def test_a_space_too_large_to_list_goes_to_the_first_counter_that_suits_it(last, want):
    """Without --backend, a space over --max-hypotheses goes to the factored counter when
    its constraints are factors joining two parts each (it conditions there), else to the
    decision diagram; both count what the enumeration lists."""
    from sleuth.solver.infoset.backends import choose_backend

    text = TRIPLES.replace("LAST", last).replace('"a + b + c != 9 and a != d"', '"a != d"') \
        .replace('"b < d or c == 2"', '"b < d"')
    listed = load_game_text(text)
    game = load_game_text(text, budget=Budget(max_hypotheses=100))
    chosen = choose_backend(game, None)
    assert chosen == want
    counter = game.counter(chosen)
    assert counter.count(counter.start()) == listed.hypotheses.size


def test_a_part_too_large_to_tabulate_is_refused_with_its_place() -> None:
    from sleuth.compiler.errors import BudgetError

    text = TWO.replace("CONSTRAINT", "a[0] < b").replace("  a: D\n", "  a: {seq: D, len: 10}\n") \
        .replace('feedback: "a == x"', 'feedback: "b == x"')
    game = load_game_text(text, budget=Budget(max_hypotheses=100))
    with pytest.raises(BudgetError, match="at most|more than") as err:
        game.counter("factored").start()
    assert err.value.loc is not None and err.value.loc.line == 5

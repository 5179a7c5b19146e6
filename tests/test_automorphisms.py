"""The symmetries of a table (solver/search/automorphisms.py) against every permutation
of its rows tried here, and a board's rotations and reflections written here."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sleuth.solver.search.automorphisms import table_symmetries


def brute_force(table: np.ndarray) -> set[tuple[int, ...]]:
    """Every row permutation π for which some σ gives table[π(q), σ(h)] == table[q, h]:
    the permuted table's columns are the table's columns, as a multiset."""
    columns = sorted(map(tuple, table.T.tolist()))
    return {pi for pi in itertools.permutations(range(len(table)))
            if sorted(map(tuple, table[list(pi)].T.tolist())) == columns}


def board(rows: int, cols: int, length: int) -> np.ndarray:
    """Cells x placements of one straight piece of `length`: 1 where it lies."""
    places = []
    for r, c in itertools.product(range(rows), range(cols)):
        if c + length <= cols:
            places.append({r * cols + c + k for k in range(length)})
        if r + length <= rows and length > 1:
            places.append({(r + k) * cols + c for k in range(length)})
    return np.array([[cell in p for p in places] for cell in range(rows * cols)], dtype=np.int64)


def check(table: np.ndarray, sigma: np.ndarray, pi: np.ndarray) -> None:
    assert (pi[0] == np.arange(len(table))).all() and (sigma[0] == np.arange(table.shape[1])).all()
    for s, p in zip(sigma, pi, strict=True):
        assert sorted(s.tolist()) == list(range(table.shape[1]))  # a permutation
        assert (table[p][:, s] == table).all()


TABLES = {
    "2 x 3 board, piece of 2": board(2, 3, 2),
    "3 x 2 board, pieces of 1 and 2": np.concatenate([board(3, 2, 1), board(3, 2, 2)], axis=1),
    "random 6 x 12": np.random.default_rng(3).integers(0, 3, size=(6, 12)),
    "repeated columns": np.array([[0, 0, 1, 1, 2], [1, 1, 0, 0, 2], [2, 2, 2, 2, 0],
                                  [0, 0, 0, 1, 1], [1, 1, 1, 0, 1]]),
    "cyclic 6": np.array([[(h - q) % 6 == 0 or (h - q) % 6 == 1 for h in range(6)]
                          for q in range(6)], dtype=np.int64),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_every_symmetry_of_a_small_table_is_found(name):
    table = TABLES[name]
    sigma, pi = table_symmetries(table)
    check(table, sigma, pi)
    assert {tuple(p.tolist()) for p in pi} == brute_force(table)
    assert len({tuple(p.tolist()) for p in pi}) == len(pi)  # each once


def test_a_row_permutation_is_matched_by_columns_exactly_when_it_is_a_symmetry():
    """The leaf check on its own, every row permutation of a table: a σ is found for π
    exactly when the brute force keeps π (refinement seldom lets a wrong π through, so
    the search alone would not show a check that accepts too much)."""
    from sleuth.solver.search.automorphisms import _Search

    table = TABLES["3 x 2 board, pieces of 1 and 2"]
    kept = brute_force(table)
    search = _Search(table)
    for pi in itertools.permutations(range(len(table))):
        sigma = search._columns(np.array(pi))
        assert (sigma is not None) == (pi in kept)
        if sigma is not None:
            assert (table[list(pi)][:, sigma] == table).all()


def dihedral(n: int) -> set[tuple[int, ...]]:
    """The 8 rotations and reflections of an n x n board, as maps of cells."""
    maps = set()
    for turn in range(4):
        for flip in (False, True):
            image = []
            for cell in range(n * n):
                r, c = divmod(cell, n)
                if flip:
                    c = n - 1 - c
                for _ in range(turn):
                    r, c = c, n - 1 - r
                image.append(r * n + c)
            maps.add(tuple(image))
    return maps


@pytest.mark.parametrize("n, length", [(4, 2), (5, 3)])
def test_a_square_board_has_its_eight_symmetries(n, length):
    table = board(n, n, length)
    sigma, pi = table_symmetries(table)
    check(table, sigma, pi)
    assert {tuple(p.tolist()) for p in pi} == dihedral(n)


def test_a_table_too_large_is_not_searched(monkeypatch):
    import sleuth.solver.search.automorphisms as automorphisms

    table = board(4, 4, 2)
    monkeypatch.setattr(automorphisms, "CELLS", table.size - 1)
    sigma, pi = table_symmetries(table)
    assert len(sigma) == len(pi) == 1

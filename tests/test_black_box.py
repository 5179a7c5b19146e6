"""Black Box (specs/black-box.yaml): rays traced by hand for each rule, and every ray of
the small board against a tracer written here, on complex numbers, from the rules as
the rule books state them."""

from __future__ import annotations

import numpy as np
import pytest

from sleuth.compiler.errors import SpecError
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.backends import prior_belief
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from tests.conftest import game as spec_game

SMALL = {"n": 5, "k": 3}


def small():
    return spec_game("black-box", **SMALL)


def trace(n: int, atoms: set[tuple[int, int]], port: int) -> tuple[str, int]:
    """A ray by the rules: absorbed by an atom straight ahead; turned back by atoms
    diagonally ahead on both sides, or reflected at once when fired next to an atom on the
    edge; turned 90 degrees away from one atom diagonally ahead. Cells are row + col*1j,
    rows and columns 1..n; ports clockwise from the top left."""
    side, i = divmod(port - 1, n)
    z, d = [(0 + (i + 1) * 1j, 1), (i + 1 + (n + 1) * 1j, -1j),
            (n + 1 + (n - i) * 1j, -1), (n - i + 0j, 1j)][side]

    def inside(w: complex) -> bool:
        return 1 <= w.real <= n and 1 <= w.imag <= n

    def atom(w: complex) -> bool:
        return inside(w) and (int(w.real), int(w.imag)) in atoms

    while True:
        ahead = z + d
        if not inside(ahead):
            row, col = int(z.real), int(z.imag)
            out = {-1: col, 1j: n + row, 1: 3 * n + 1 - col, -1j: 4 * n + 1 - row}[d]
            return ("reflection", 0) if out == port else ("exit", out)
        if atom(ahead):
            return ("hit", 0)
        near = (atom(ahead + d * 1j), atom(ahead - d * 1j))
        if any(near) and not inside(z):
            return ("reflection", 0)
        if all(near):
            d = -d
        elif near[0]:
            d = -d * 1j
        elif near[1]:
            d = d * 1j
        else:
            z = ahead


def cell(r: int, c: int, n: int = 5) -> int:
    return (r - 1) * n + c - 1


# (rule, atoms (row, col), port, outcome), traced by hand on the 5 x 5 board
HAND = [
    ("a hit", [(3, 3), (5, 5), (5, 4)], 3, ("hit", 0)),
    ("straight through", [(3, 3), (5, 5), (5, 4)], 1, ("exit", 15)),
    ("a deflection", [(3, 3), (5, 5), (5, 4)], 2, ("exit", 19)),
    ("deflected out of the nearest side", [(2, 3), (5, 5), (5, 4)], 20, ("exit", 2)),
    ("two deflections", [(3, 2), (1, 5), (5, 1)], 3, ("exit", 12)),
    ("a reflection between two atoms", [(3, 2), (3, 4), (5, 5)], 3, ("reflection", 0)),
    ("a reflection on a row", [(2, 4), (4, 4), (5, 1)], 18, ("reflection", 0)),
    ("the edge reflection", [(1, 2), (5, 5), (5, 4)], 3, ("reflection", 0)),
    ("the edge reflection at a corner", [(1, 1), (5, 5), (5, 4)], 19, ("reflection", 0)),
    ("a hit at the edge", [(1, 2), (5, 5), (5, 4)], 2, ("hit", 0)),
    ("a hit before a deflection", [(3, 2), (3, 3), (5, 5)], 3, ("hit", 0)),
]


@pytest.mark.parametrize("rule, atoms, port, outcome", HAND, ids=[h[0] for h in HAND])
def test_hand_traced_rays(rule, atoms, port, outcome):
    g = small()
    secret = {"atoms": tuple(sorted(cell(r, c) for r, c in atoms))}
    args = {"entry": port}
    for got in (g.reference_feedback("fire", args, secret),
                g.kernel_feedback("fire", args, secret)):
        assert (got["result"], got["exit"]) == outcome
    assert trace(5, set(atoms), port) == outcome


def test_every_ray_of_the_small_board_matches_the_tracer():
    g = small()
    codes = g.feedback_matrix("fire", np.arange(20))
    coder = g.coder("fire")
    for h in range(g.hypotheses.size):
        cells = g.hypotheses.value(h)["atoms"]
        atoms = {(c // 5 + 1, c % 5 + 1) for c in cells}
        for p in range(20):
            got = coder.decode(int(codes[p, h]))
            assert (got["result"], got["exit"]) == trace(5, atoms, p + 1), (cells, p + 1)
            if (h + p) % 97 == 0:
                assert g.reference_feedback("fire", {"entry": p + 1}, {"atoms": cells}) == got


def test_the_full_board_on_a_sample():
    g = spec_game("black-box")
    assert g.hypotheses.size == 635_376  # 64 choose 4
    rng = np.random.default_rng(1)
    index = np.sort(rng.choice(g.hypotheses.size, 200, replace=False))
    codes = g.feedback_matrix("fire", np.arange(32), index)
    for j, h in enumerate(index.tolist()):
        cells = g.hypotheses.value(h)["atoms"]
        atoms = {(c // 8 + 1, c % 8 + 1) for c in cells}
        for p in range(32):
            got = g.coder("fire").decode(int(codes[p, j]))
            assert (got["result"], got["exit"]) == trace(8, atoms, p + 1)


def test_games_end_when_no_ray_can_tell_the_rest_apart():
    """16 of the 2,300 layouts of the small board answer every ray like another one. Each
    strategy plays every secret to the end; the layouts left at the end are exactly the
    secret's class of layouts that no ray separates."""
    g = small()
    codes = g.feedback_matrix("fire", np.arange(20))
    _, klass, sizes = np.unique(codes.T, axis=0, return_inverse=True, return_counts=True)
    klass = klass.ravel()
    shared = np.flatnonzero(sizes[klass] > 1)
    assert len(shared) == 16
    strategy = make_strategy("entropy", Candidates(g))
    ev = evaluate_strategy(g, strategy, "black-box")
    assert ev.secrets == 2300 and ev.worst <= 20
    for h in shared[:6].tolist():
        t = play_secret(g, strategy, h)
        assert t.left == sizes[klass[h]] and len(t.steps) == ev.lengths[h]


def test_the_counting_backends_refuse_it_with_a_located_message():
    with pytest.raises(SpecError, match="listed|word") as err:
        prior_belief(small(), "sdd")
    assert "black-box.yaml" in str(err.value.loc.file)


def test_the_optimum_of_a_tiny_board_against_a_brute_force():
    """3 x 3 with 2 atoms: the exact searches against a plain minimisation over every
    set of layouts reached, written here (a set is over when every ray answers its
    layouts alike)."""
    from functools import cache

    g = spec_game("black-box", n=3, k=2)
    codes = g.feedback_matrix("fire", np.arange(12))

    @cache
    def best(hyps: frozenset) -> tuple[int, int]:  # (total, worst) of the best tree
        if len({tuple(codes[:, h]) for h in hyps}) == 1:
            return 0, 0
        out = None
        for q in range(12):
            parts: dict[int, set] = {}
            for h in hyps:
                parts.setdefault(int(codes[q, h]), set()).add(h)
            if len(parts) > 1:
                sub = [best(frozenset(p)) for p in parts.values()]
                cand = (len(hyps) + sum(t for t, _ in sub), 1 + max(w for _, w in sub))
                out = cand if out is None or cand < out else out
        return out

    total, worst = best(frozenset(range(g.hypotheses.size)))
    ev = evaluate_strategy(g, make_strategy("optimal", Candidates(g)), "black-box")
    assert (ev.total, ev.worst) == (total, worst)

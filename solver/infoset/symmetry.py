"""Symmetries of a compiled game: permutations of the secrets and of the queries that
leave every feedback code unchanged.

Candidates come from the spec's structure, never from a list per game: for a secret
that is one sequence (or one scalar) over a range or enum domain, and queries with
the secret's domain, every permutation of the domain's values (applied to every
position) and every permutation of the positions (for a sequence). A generator (an
adjacent transposition of values, or of positions) is kept when it maps the
hypothesis table, the legal queries and the prior onto themselves, and the feedback
is unchanged:

* proved from the expressions (compiler/invariance.py: values only compared for
  equality, positions only read by loops over all of them), which costs nothing and
  holds for every pair; or else
* checked on a feedback matrix, when one is given (the exact searches build it):
  codes[query_map[q], hyp_map[h]] == codes[q, h] for every q and h.

So a spec whose feedback treats one value or one position differently gets no
symmetry from it. Kept adjacent transpositions join values (positions) into blocks;
every permutation within the blocks is a symmetry. Two forms serve two uses:

    Symmetry        the elements the exact searches meet, listed (stabilisers.py): the
                    generators and the stabiliser of each query first in its orbit, up
                    to LIMIT elements in all, with which queries are first in their
                    orbit: the root's orbits, and every stabiliser a part inherits
    Transpositions  every transposition within a block, never composed (groups of
                    millions): at an information set, those that map it onto itself
                    generate part of its stabiliser; heuristics score one query per
                    orbit, and `orbit_matrix` fills the feedback matrix from one
                    computed row per orbit

At an information set S, a symmetry that maps S onto itself maps each query to one
whose outcome partition is the same up to relabelling: the same score and value, so
one query per orbit is scored -- the first in canonical order, which is also
tie-break K's choice within the orbit (such a symmetry maps a possible secret to a
possible secret).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from sleuth.compiler.api import (
    Game,
    Memo,
    domain_size,
    positions_interchangeable,
    values_interchangeable,
)
from sleuth.solver.infoset.closure import LIMIT
from sleuth.solver.infoset.stabilisers import root_listing

LISTED_BYTES = 256 << 20  # the listed symmetries' size at most (MM(4,8): 32,768 elements)
KEPT_ORBITS = 64 << 20  # bytes of query orbits kept per set of transpositions
ROWS = 1024  # rows permuted at a time while a matrix is filled from its orbits
ROWS_AT_ONCE = 64  # symmetries whose query images `representatives` reads at a time


class _Permutations:
    """Symmetries as permutation arrays of the hypotheses (G, H) and the queries (G, Q)."""

    inherit = True  # a part's stabiliser is its parent's, fixing the query

    def __init__(self, hyps: np.ndarray, queries: np.ndarray):
        self.hyps = hyps
        self.queries = queries

    def stabiliser(self, members: np.ndarray) -> np.ndarray:
        """The symmetries (indices) that map the set of hypotheses `members` onto itself
        (tried on the first 64 members first: most fail there; every one maps the whole
        set onto itself)."""
        if len(members) == self.hyps.shape[1]:
            return np.arange(len(self.hyps))
        inside = np.zeros(self.hyps.shape[1], dtype=bool)
        inside[members] = True
        some = np.flatnonzero(inside[self.hyps[:, members[:64]]].all(axis=1))
        if len(members) <= 64:
            return some
        return some[inside[self.hyps[np.ix_(some, members)]].all(axis=1)]

    def fixing(self, stab: np.ndarray, query: int) -> np.ndarray:
        """Those of `stab` that map `query` to itself: they map each part of its outcome
        partition onto itself (the observations so far, and this one)."""
        return stab[self.queries[stab, query] == query]


class Symmetry(_Permutations):
    """The symmetries an exact search uses, listed element by element (stabilisers.py):
    the generators and the stabiliser of each query first in its orbit, with which
    queries those are. Only a set that the whole group maps onto itself has every
    listed element in its stabiliser (they generate the group): there `representatives`
    is the whole group's; elsewhere it is the orbits of the listed elements that map
    the set onto itself, a subset of its stabiliser."""

    def __init__(self, hyps: np.ndarray, queries: np.ndarray, generators: list[str],
                 order: int, whole: np.ndarray):
        super().__init__(hyps, queries)
        self.generators = generators  # what each kept generator permutes, for reports
        self.order = order  # the order of the group
        self.whole = whole  # which queries are the first of their orbit (read-only)

    @property
    def size(self) -> int:
        return self.order

    def representatives(self, stab: np.ndarray) -> np.ndarray:
        """Which queries are the first of their orbit under the symmetries `stab`."""
        if len(stab) <= 1:
            return np.ones(self.queries.shape[1], dtype=bool)
        if len(stab) == len(self.queries):
            return self.whole.copy()
        # the least image of each query, ROWS_AT_ONCE symmetries at a time: gathering
        # every row at once would fill fresh pages many times the size of the answer
        least = self.queries[stab[:ROWS_AT_ONCE]].min(axis=0)
        for at in range(ROWS_AT_ONCE, len(stab), ROWS_AT_ONCE):
            np.minimum(least, self.queries[stab[at:at + ROWS_AT_ONCE]].min(axis=0), out=least)
        return least == np.arange(self.queries.shape[1])


def of_game(game: Game) -> tuple[Symmetry | Transpositions, Callable[[int], np.ndarray],
                                  int] | None:
    """The symmetries of a game whose one query block can be a secret, a function giving
    one query's codes on every hypothesis, and the number of queries; None when there
    are none to find. A game small enough gets the exact searches' table (generators
    checked on its matrix too); a larger one the symmetries proved from its
    expressions, with no matrix built."""
    from sleuth.solver.infoset.outcomes import OutcomeTable
    from sleuth.solver.infoset.queries import Candidates

    candidates = Candidates(game)
    blocks = candidates.blocks
    if len(blocks) != 1 or not blocks[0].secret_like or not blocks[0].deterministic:
        return None
    block = blocks[0]
    if candidates.size * game.hypotheses.size * 8 <= game.budget.memory_bytes:
        table = OutcomeTable(candidates)
        found = table.symmetry
        return None if found is None else (found, lambda q: table.codes[q], candidates.size)
    group = detect(game, None, block.ranks)
    return None if group is None else (group, lambda q: game.feedback_matrix(
        block.action.name, block.ranks[[q]])[0], candidates.size)


def orbit_levels(symmetry: Symmetry | Transpositions, row: Callable[[int], np.ndarray],
                 queries: int) -> list[dict[str, int]]:
    """Query orbits at the root and one query down (each root orbit's representative and
    each of its feedbacks, under the symmetries that fix the representative)."""
    everyone = symmetry.stabiliser(np.arange(symmetry.hyps.shape[1]))
    reps = np.flatnonzero(symmetry.representatives(everyone))
    level2 = {"nodes": 0, "orbits": 0, "queries": 0}
    for q in reps.tolist():
        fixing = symmetry.fixing(everyone, q)
        orbits = int(symmetry.representatives(fixing).sum())
        parts = len(np.unique(row(q)))
        level2["nodes"] += parts
        level2["orbits"] += orbits * parts
        level2["queries"] += queries * parts
    return [{"nodes": 1, "orbits": len(reps), "queries": queries}, level2]


def detect(game: Game, codes: np.ndarray | None,
           query_ranks: np.ndarray) -> Symmetry | Transpositions | None:
    """The symmetries of a game whose secret is one sequence or scalar over a range or
    enum domain and whose queries (all of them, in `query_ranks` order) have that
    domain: its root's orbits and its root queries' stabilisers listed element by
    element (at most LIMIT elements and LISTED_BYTES: the stabilisers too large for
    that listed in part), else as transpositions; None when the structure is other or
    nothing survives. `codes` (queries x hypotheses), when given, checks the
    generators the expressions do not prove."""
    found = _generators(game, codes, query_ranks)
    if not found:
        return None
    group = transpositions(game, query_ranks, found)
    listed = root_listing([g.hyps for g in found], [g.queries for g in found], group.size,
                          (group.hyps, group.queries), LIMIT, LISTED_BYTES)
    if listed is None:
        return group
    return Symmetry(listed[0], listed[1], [g.name for g in found], group.size, listed[2])


class Transpositions(_Permutations):
    """The interchangeable values and positions of a game as transpositions (every pair
    within a block of interchangeable ones), never composed: at an information set, the
    transpositions that map it onto itself generate part of its stabiliser, and their
    query orbits come from joining each query with its images (no group is listed, so
    this scales to groups of millions). It offers the exact searches the interface of
    `Symmetry` (stabiliser, fixing, representatives) with transposition indices."""

    # A part's own stabilising transpositions are found afresh (cheaply): they may be
    # more than those inherited from the parent.
    inherit = False

    def __init__(self, found: list[Found], size: int):
        super().__init__(np.stack([g.hyps for g in found]).astype(np.int32),
                         np.stack([g.queries for g in found]).astype(np.int32))
        self.names = [g.name for g in found]
        self.generators = [g.name for g in found  # for reports
                           if g.kind != "both" and g.pair[1] == g.pair[0] + 1]
        self.swaps = np.array([g.kind != "both" for g in found])  # the plain swaps
        self.nqueries = self.queries.shape[1]
        self.size = size  # the order of the group they generate
        self.memo = Memo()

    def representatives(self, stab: np.ndarray) -> np.ndarray:
        """Which queries are the first of their orbit under the transpositions `stab`
        (read-only; kept by `stab`, up to KEPT_ORBITS bytes: many sets share one)."""
        def make() -> np.ndarray:
            firsts = np.ones(self.nqueries, dtype=bool) if not len(stab) else \
                least_labels(self.queries, stab.astype(np.int64)) == np.arange(self.nqueries)
            firsts.flags.writeable = False
            return firsts

        return self.memo.bounded("representatives", stab.tobytes(), make,
                                 lambda a: a.nbytes, KEPT_ORBITS, KEPT_ORBITS)

    def firsts(self, members: np.ndarray) -> np.ndarray | None:
        """Which queries are the first of their orbit under the transpositions that map
        the hypotheses `members` onto themselves; None when none does."""
        stab = self.stabiliser(members)
        return self.representatives(stab) if len(stab) else None


def hypothesis_firsts(group: Transpositions) -> np.ndarray:
    """The first hypothesis of each orbit of the whole group (the plain swaps generate
    it)."""
    hyps = group.hyps.shape[1]
    return np.flatnonzero(least_labels(group.hyps, np.flatnonzero(group.swaps)) ==
                          np.arange(hyps))


@dataclass
class Links:
    """How every hypothesis's row of codes (every query on it) follows from one computed
    row per orbit: h = t(parent[h]) for the transposition t = via[h], so, t being a
    symmetry and its own inverse, codes[q, h] = codes[t(q), parent[h]]. A breadth-
    first walk from the orbits' first hypotheses (`firsts`) sets the links, level by
    level (`levels`: each hypothesis's parent is on the level before)."""

    firsts: np.ndarray
    parent: np.ndarray
    via: np.ndarray
    levels: list[np.ndarray]
    perms: np.ndarray  # (transpositions, queries): each transposition on the queries


def links(group: Transpositions) -> Links:
    hyps = group.hyps.shape[1]
    parent = np.full(hyps, -1, dtype=np.int64)
    via = np.full(hyps, -1, dtype=np.int64)
    firsts = frontier = hypothesis_firsts(group)
    parent[frontier] = frontier
    levels = []
    while len(frontier):
        reached = []
        for k in np.flatnonzero(group.swaps).tolist():  # the plain swaps reach every orbit
            image = group.hyps[k]
            img = image[frontier]
            fresh = parent[img] < 0
            img, first = np.unique(img[fresh], return_index=True)
            parent[img] = frontier[fresh][first]
            via[img] = k
            reached.append(img)
        frontier = np.concatenate(reached)
        if len(frontier):
            levels.append(frontier)
    return Links(firsts, parent, via, levels, group.queries)


def orbit_matrix(tree: Links, first: np.ndarray) -> np.ndarray:
    """Every query's feedback code on every hypothesis, by hypothesis (hypotheses x
    queries), from `first`: the codes of every query on the hypotheses `tree.firsts`
    (one per orbit), in the matrix's dtype. Each other row is a permuted copy of its
    parent's (`Links`): one gather instead of the feedback expressions over every
    query."""
    out = np.empty((len(tree.parent), first.shape[1]), dtype=first.dtype)
    out[tree.firsts] = first
    for level in tree.levels:  # every parent is filled on the level before
        for lo in range(0, len(level), ROWS):
            rows = level[lo:lo + ROWS]
            for k in np.unique(tree.via[rows]).tolist():
                mine = rows[tree.via[rows] == k]
                out[mine] = np.take(out[tree.parent[mine]], tree.perms[k], axis=1)
    return out


@njit(cache=True, nogil=True, inline="always")
def _find(root: np.ndarray, a: int) -> int:
    """The root of point a in a union-find (paths halved on the way)."""
    while root[a] != a:
        root[a] = root[root[a]]
        a = root[a]
    return a


@njit(cache=True, nogil=True)
def least_labels(maps: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each point's least orbit-mate under the involutions `maps[rows]` (compiled: a
    union-find whose every root is the least point of its orbit)."""
    n = maps.shape[1]
    root = np.arange(n)
    for k in rows:
        for i in range(n):
            if maps[k, i] <= i:  # fixed, or the pair met at its least point (an involution)
                continue
            a, b = _find(root, i), _find(root, maps[k, i])
            root[max(a, b)] = min(a, b)
    for i in range(n):  # ascending: a point's root is final before any later point's
        root[i] = root[root[i]]
    return root


@njit(cache=True, nogil=True)
def joining(rows: np.ndarray) -> np.ndarray:
    """Which of the involutions `rows` join two orbits of the points not joined by the
    earlier ones kept (stabilisers.py): the others, mapping every point into its orbit
    under those, add nothing to the orbits and most often nothing to the group they
    generate (what they do add, Schreier's lemma finds)."""
    root = np.arange(rows.shape[1])
    keep = np.zeros(rows.shape[0], dtype=np.bool_)
    for k in range(rows.shape[0]):
        for i in range(rows.shape[1]):
            a, b = _find(root, i), _find(root, rows[k, i])
            if a != b:
                root[max(a, b)] = min(a, b)
                keep[k] = True
    return keep


def transpositions(game: Game, query_ranks: np.ndarray,
                   adjacent: list[Found] | None = None) -> Transpositions | None:
    """The game's interchangeable values and positions, as transpositions: from the
    adjacent ones that are symmetries (`adjacent`; default: those proved from the
    expressions, with no feedback matrix built, for games too large for one)."""
    adjacent = _generators(game, None, query_ranks) if adjacent is None else adjacent
    if not adjacent:
        return None
    # kept by the game: the search's table and the queries' orbit matrix ask for the same
    key = ("transposition group", query_ranks.tobytes(), tuple(g.name for g in adjacent))
    return game.memo.get(key, lambda: _closed_under_pairs(game, query_ranks, adjacent))


def _closed_under_pairs(game: Game, query_ranks: np.ndarray,
                        adjacent: list[Found]) -> Transpositions:
    """`transpositions`, computed: every pair within each block the adjacent ones join,
    and each position pair with each value pair."""
    m, length = _shape(game)
    hyp_ranks = game.hypotheses.ranks
    found, order = [], 1
    for kind, blocks in (("values", _blocks(adjacent, "values")),
                         ("positions", _blocks(adjacent, "positions"))):
        for block in blocks:
            order *= math.factorial(len(block))
            for a, b in itertools.combinations(block, 2):
                perm = np.arange(m if kind == "values" else length)
                perm[[a, b]] = perm[[b, a]]
                h = _mapped(hyp_ranks, hyp_ranks, m, length, kind, perm)
                q = _mapped(query_ranks, query_ranks, m, length, kind, perm)
                if h is not None and q is not None:  # members of the group: always
                    found.append(Found(f"{kind} {a} <-> {b}", kind, (a, b), h, q))
    # A swap of two positions together with a swap of two values (they commute, so the
    # product is its own inverse): after a query such as 0123, the sets are mapped onto
    # themselves by swapping positions i, j and values i, j at once, never by either
    # alone, so without these a set's stabiliser would miss them.
    values = [g for g in found if g.kind == "values"]
    for pos in [g for g in found if g.kind == "positions"]:
        for val in values:
            found.append(Found(f"{pos.name} with {val.name}", "both", pos.pair,
                               pos.hyps[val.hyps], pos.queries[val.queries]))
    return Transpositions(found, order)


@dataclass
class Found:
    """One symmetry: a transposition of values or positions, as permutations of the
    hypotheses and the queries."""

    name: str
    kind: str
    pair: tuple[int, int]
    hyps: np.ndarray
    queries: np.ndarray


def _shape(game: Game) -> tuple[int, int] | None:
    """(values, positions) of a secret that is one sequence or scalar over a finite scalar
    domain; None otherwise."""
    secret = game.model.secret
    if len(secret) != 1:
        return None
    domain = secret[0].domain
    if domain.listed is not None:
        return None  # a word list: relabelled values need not be listed
    if domain.kind == "seq":
        elem, length = domain.elem, domain.length
    elif domain.kind == "scalar":
        elem, length = domain, 1
    else:
        return None
    if elem is None or elem.kind != "scalar" or not elem.type.finite:
        return None
    return domain_size(elem), length


def _generators(game: Game, codes: np.ndarray | None, query_ranks: np.ndarray) -> list[Found]:
    """The adjacent transpositions of values and of positions that are symmetries: the
    feedback is proved unchanged from the expressions (compiler/invariance.py) or checked
    on `codes`, and the hypotheses, the legal queries and the prior are mapped onto
    themselves."""
    shape = _shape(game)
    actions = game.model.queries
    if shape is None or len(actions) != 1:
        return []
    m, length = shape
    action, secret = actions[0], game.model.secret[0]
    variables = [(secret.name, secret.domain)] + [(a.name, a.domain) for a in action.args]
    elem = secret.domain.elem if secret.domain.kind == "seq" else secret.domain
    proved = {"values": values_interchangeable(action, variables, elem),
              "positions": length > 1 and positions_interchangeable(action, variables,
                                                                      length)}
    hyp_ranks = game.hypotheses.ranks
    weights = None if game.model.prior is None else game.prior
    found = []
    for kind, size in (("values", m), ("positions", length)):
        for i in range(size - 1):
            perm = np.arange(size)
            perm[[i, i + 1]] = perm[[i + 1, i]]
            h = _mapped(hyp_ranks, hyp_ranks, m, length, kind, perm)
            q = _mapped(query_ranks, query_ranks, m, length, kind, perm)
            if h is None or q is None or (weights is not None and
                                          not np.array_equal(weights[h], weights)):
                continue
            if proved[kind] or (codes is not None and
                                np.array_equal(codes[np.ix_(q, h)], codes)):
                found.append(Found(f"{kind} {i} <-> {i + 1}", kind, (i, i + 1), h, q))
    return found


def _blocks(adjacent: list[Found], kind: str) -> list[list[int]]:
    """Runs of values (or positions) joined by kept adjacent transpositions."""
    blocks: list[list[int]] = []
    for g in adjacent:
        if g.kind != kind:
            continue
        a, b = g.pair
        if blocks and blocks[-1][-1] == a:
            blocks[-1].append(b)
        else:
            blocks.append([a, b])
    return blocks


def _mapped(ranks: np.ndarray, table: np.ndarray, m: int, length: int, kind: str,
            perm: np.ndarray) -> np.ndarray | None:
    """The index in `table` (sorted ranks) of each rank's image, or None if one has none."""
    digits = np.stack([(ranks // m ** (length - 1 - i)) % m for i in range(length)], axis=1)
    digits = perm[digits] if kind == "values" else digits[:, perm]
    image = np.zeros(len(ranks), dtype=np.int64)
    for i in range(length):
        image = image * m + digits[:, i]
    at = np.searchsorted(table, image)
    if np.any(at >= len(table)) or not np.array_equal(table[np.minimum(at, len(table) - 1)],
                                                      image):
        return None
    return at


__all__ = ["LIMIT", "Found", "Symmetry", "Transpositions", "detect", "of_game",
           "Links", "hypothesis_firsts", "links", "orbit_levels", "orbit_matrix",
           "transpositions"]

"""Symmetries of a compiled game: permutations of the secrets and of the queries that
leave every feedback code unchanged.

Candidates come from the spec's structure, never from a list per game: for a secret
that is one sequence (or one scalar) over a range or enum domain, and queries with
the secret's domain, every permutation of the domain's values (applied to every
position) and every permutation of the positions (for a sequence). Each generator
(an adjacent transposition of values, or of positions) is kept only if it maps the
hypothesis table onto itself and the feedback matrix onto itself,

    codes[query_map[q], hyp_map[h]] == codes[q, h]   for every q and h,

so a spec whose feedback treats one value or one position differently gets no
symmetry from it. The kept generators generate a group (closed here by breadth-
first composition, up to `LIMIT` elements; beyond that the elements found so far
are used: every one of them is a symmetry, which is all the pruning needs).

At an information set S, the symmetries that map S onto itself (its stabiliser)
map each query to one whose outcome partition is the same up to relabelling: they
have the same value, so a search scores one query per orbit -- the first in
canonical order, which is also tie-break K's choice within the orbit (a symmetry
of S maps a possible secret to a possible secret).
"""

from __future__ import annotations

import numpy as np

from sleuth.compiler.api import Game, domain_size

LIMIT = 50_000


class Symmetry:
    """A set of symmetries, as permutation arrays of hypotheses (G, H) and queries (G, Q)."""

    def __init__(self, hyps: np.ndarray, queries: np.ndarray, generators: list[str]):
        self.hyps = hyps
        self.queries = queries
        self.generators = generators  # what each kept generator permutes, for reports

    @property
    def size(self) -> int:
        return len(self.hyps)

    def stabiliser(self, members: np.ndarray) -> np.ndarray:
        """The symmetries (indices) that map the set of hypotheses `members` onto itself."""
        inside = np.zeros(self.hyps.shape[1], dtype=bool)
        inside[members] = True
        return np.flatnonzero(inside[self.hyps[:, members]].all(axis=1))

    def fixing(self, stab: np.ndarray, query: int) -> np.ndarray:
        """Those of `stab` that map `query` to itself: they map each part of its outcome
        partition onto itself (the observations so far, and this one)."""
        return stab[self.queries[stab, query] == query]

    def representatives(self, stab: np.ndarray) -> np.ndarray:
        """Which queries are the first of their orbit under the symmetries `stab`."""
        if len(stab) <= 1:
            return np.ones(self.queries.shape[1], dtype=bool)
        return self.queries[stab].min(axis=0) == np.arange(self.queries.shape[1])


def of_game(game: Game) -> tuple[Symmetry, np.ndarray] | None:
    """The symmetries of a game whose one query block can be a secret, with the feedback
    matrix (queries x hypotheses); None when there are none to find."""
    from sleuth.solver.infoset.queries import Candidates, OutcomeTable

    candidates = Candidates(game)
    blocks = candidates.blocks
    if len(blocks) != 1 or not blocks[0].secret_like or not blocks[0].deterministic:
        return None
    table = OutcomeTable(candidates)
    return None if table.symmetry is None else (table.symmetry, table.codes)


def orbit_levels(symmetry: Symmetry, codes: np.ndarray) -> list[dict[str, int]]:
    """Query orbits at the root and one query down (each root orbit's representative and
    each of its feedbacks, under the symmetries that fix the representative)."""
    everyone = np.arange(symmetry.size)
    reps = np.flatnonzero(symmetry.representatives(everyone))
    level2 = {"nodes": 0, "orbits": 0, "queries": 0}
    for q in reps.tolist():
        fixing = symmetry.fixing(everyone, q)
        orbits = int(symmetry.representatives(fixing).sum())
        parts = len(np.unique(codes[q]))
        level2["nodes"] += parts
        level2["orbits"] += orbits * parts
        level2["queries"] += codes.shape[0] * parts
    return [{"nodes": 1, "orbits": len(reps), "queries": codes.shape[0]}, level2]


def detect(game: Game, codes: np.ndarray, query_ranks: np.ndarray) -> Symmetry | None:
    """The symmetries of a game whose secret is one sequence or scalar over a range or enum
    domain and whose queries (all of them, in `query_ranks` order) have that domain;
    None when the structure is other or no candidate survives the check."""
    secret = game.model.secret
    if len(secret) != 1:
        return None
    domain = secret[0].domain
    if domain.kind == "seq":
        elem, length = domain.elem, domain.length
    elif domain.kind == "scalar":
        elem, length = domain, 1
    else:
        return None
    if elem is None or elem.kind != "scalar" or not elem.type.finite:
        return None
    m = domain_size(elem)
    hyp_ranks = game.hypotheses.ranks
    generators, names = [], []
    maps = [np.arange(m) for _ in range(m - 1)]
    for i, values in enumerate(maps):  # swap values i and i+1 (everywhere)
        values[[i, i + 1]] = values[[i + 1, i]]
        generators.append(("values", values))
        names.append(f"values {i} <-> {i + 1}")
    for i in range(length - 1):  # swap positions i and i+1
        order = np.arange(length)
        order[[i, i + 1]] = order[[i + 1, i]]
        generators.append(("positions", order))
        names.append(f"positions {i} <-> {i + 1}")
    kept_h, kept_q, kept_names = [], [], []
    for (kind, perm), name in zip(generators, names, strict=True):
        h = _mapped(hyp_ranks, hyp_ranks, m, length, kind, perm)
        q = _mapped(query_ranks, query_ranks, m, length, kind, perm)
        if h is None or q is None:
            continue
        if np.array_equal(codes[np.ix_(q, h)], codes):
            kept_h.append(h)
            kept_q.append(q)
            kept_names.append(name)
    if not kept_h:
        return None
    return Symmetry(*_closure(kept_h, kept_q), kept_names)


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


def _closure(hyps: list[np.ndarray], queries: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every composition of the generators (breadth first, at most LIMIT elements)."""
    ident_h, ident_q = np.arange(len(hyps[0])), np.arange(len(queries[0]))
    seen = {ident_h.tobytes(): (ident_h, ident_q)}
    frontier = [(ident_h, ident_q)]
    while frontier and len(seen) < LIMIT:
        nxt = []
        for h, q in frontier:
            for gh, gq in zip(hyps, queries, strict=True):
                ch, cq = gh[h], gq[q]
                key = ch.tobytes()
                if key not in seen and len(seen) < LIMIT:
                    seen[key] = (ch, cq)
                    nxt.append((ch, cq))
        frontier = nxt
    return (np.stack([h for h, _ in seen.values()]).astype(np.int32),
            np.stack([q for _, q in seen.values()]).astype(np.int32))


__all__ = ["LIMIT", "Symmetry", "detect", "of_game", "orbit_levels"]

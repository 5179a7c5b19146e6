"""The symmetries an exact search uses, listed without listing the whole group.

An exact search meets the symmetry group G in two ways (optimal_search.py,
optimal_kernel.py):

* at a set that G maps onto itself (the root), it tries one query per orbit of G;
* every other set inherits its parent's symmetries that fix the query asked there, so
  below the root it only ever meets elements that fix a root query it tried, and it
  tries only the first query of each orbit.

So what it needs of G is which queries are the first of their orbit, and the
stabiliser G_r of each such first query r. `root_listing` finds the orbits by joining
each query with its images under the generators, and G_r by Schreier's lemma: with u_x
a symmetry taking r to x (one per point x of r's orbit, found breadth first), the
elements u_{g(x)}^-1 g u_x, for every point x and generator g, generate G_r. They are
taken in breadth-first order, and each one not yet in the subgroup listed is added to
its generators and the subgroup closed again (closure.py), until it has |G| / |orbit|
elements. The elements of G known to fix r (every transposition and product that
symmetry.py knows, those that join orbits) are its first generators: most often they
generate G_r, and Schreier's lemma is not needed. The listing is the generators (so
that it generates G) and every G_r.

MM(4,6): 3,013 elements in 0.03 s instead of the group's 17,280 (0.08-0.17 s, 45 MB);
MM(4,7): 17,869 instead of 120,960, which was too many to list at all. A set's
symmetries among those listed are a subset of its stabiliser; a search that uses a
subset only tries more queries, never another answer (symmetry.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sleuth.solver.infoset.closure import LIMIT, closure


@njit(cache=True, nogil=True)
def _keys(rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row: a random linear form over its entries (wrapping)."""
    out = np.empty(rows.shape[0], dtype=np.uint64)
    for r in range(rows.shape[0]):
        h = np.uint64(0)
        for i in range(rows.shape[1]):
            h += np.uint64(rows[r, i]) * weights[i]
        out[r] = h
    return out


@njit(cache=True, nogil=True)
def _merging(rows: np.ndarray) -> np.ndarray:
    """Which of the involutions `rows` join two orbits of the points not joined by the
    earlier ones kept (a union-find over the points): the others, mapping every point
    into its orbit under those, add nothing to the orbits and most often nothing to
    the group they generate (what they do add, Schreier's lemma finds)."""
    n = rows.shape[1]
    root = np.arange(n)
    keep = np.zeros(rows.shape[0], dtype=np.bool_)
    for k in range(rows.shape[0]):
        for i in range(n):
            a, b = i, rows[k, i]
            while root[a] != a:
                root[a] = root[root[a]]
                a = root[a]
            while root[b] != b:
                root[b] = root[root[b]]
                b = root[b]
            if a != b:
                root[max(a, b)] = min(a, b)
                keep[k] = True
    return keep


def _orbit(gq: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Query r's orbit under the generators `gq`, breadth first: its points, each one's
    parent (an index into the points) and the generator taking the parent to it, and
    `where`: each query's index among the points (-1: not in the orbit)."""
    where = np.full(gq.shape[1], -1, dtype=np.int64)
    where[r] = 0
    points, parents, vias = [np.array([r])], [np.array([-1])], [np.array([-1])]
    frontier, n = points[0], 1
    while len(frontier):
        found = []
        for g in range(len(gq)):
            image = gq[g][frontier]
            fresh = where[image] < 0
            new, first = np.unique(image[fresh], return_index=True)
            where[new] = np.arange(n, n + len(new))
            n += len(new)
            found.append(new)
            parents.append(where[frontier[fresh][first]])
            vias.append(np.full(len(new), g))
        frontier = np.concatenate(found)
        points.append(frontier)
    return (np.concatenate(points), np.concatenate(parents), np.concatenate(vias), where)


class _Transversal:
    """u_x for each point x of an orbit (as permutations of the hypotheses and of the
    queries): the generators along x's path from the orbit's first point, composed on
    demand and kept."""

    def __init__(self, gh: np.ndarray, gq: np.ndarray, parent: np.ndarray, via: np.ndarray):
        self.gh, self.gq, self.parent, self.via = gh, gq, parent, via
        nh, nq = gh.shape[1], gq.shape[1]
        self.made = {0: (np.arange(nh, dtype=gh.dtype), np.arange(nq, dtype=gq.dtype))}

    def __call__(self, a: int) -> tuple[np.ndarray, np.ndarray]:
        path = []
        while a not in self.made:
            path.append(a)
            a = int(self.parent[a])
        h, q = self.made[a]
        for b in reversed(path):
            g = int(self.via[b])
            h, q = self.gh[g][h], self.gq[g][q]
            self.made[b] = (h, q)
        return h, q


def _inverse(perm: np.ndarray) -> np.ndarray:
    out = np.empty_like(perm)
    out[perm] = np.arange(len(perm), dtype=perm.dtype)
    return out


def _stabiliser(gh: np.ndarray, gq: np.ndarray, r: int, want: int, room: int, same: bool,
                weights: np.ndarray, fixers: tuple[np.ndarray, np.ndarray]
                ) -> tuple[np.ndarray, np.ndarray]:
    """The elements of the stabiliser of query r, of `want` elements, in the group
    generated by `gh` (on the hypotheses) and `gq` (on the queries), as rows of both:
    all of them, or the first `room` of its breadth-first closure. `fixers`: elements
    known to fix r (rows of both), its first generators."""
    useful = _merging(fixers[0])
    gens_h, gens_q = list(fixers[0][useful]), list(fixers[1][useful])
    most = min(want, room)
    if gens_h:
        listed_h, listed_q = closure(gens_h, gens_q, want, most)
    else:
        listed_h = np.arange(gh.shape[1], dtype=gh.dtype)[None]
        listed_q = listed_h if same else np.arange(gq.shape[1], dtype=gq.dtype)[None]
    if len(listed_h) >= most:
        return listed_h, listed_q
    points, parent, via, where = _orbit(gq, r)
    u = _Transversal(gh, gq, parent, via)
    known = set(_keys(listed_h, weights).tolist())
    for a in range(len(points)):
        for g in range(len(gh)):
            b = int(where[gq[g][points[a]]])
            if parent[b] == a and via[b] == g:
                continue  # an edge of the breadth-first tree: u_b = g u_a
            ha, qa = u(a)
            hb, qb = u(b)
            s_h = _inverse(hb)[gh[g][ha]]
            if int(_keys(s_h[None], weights)[0]) in known:
                continue
            gens_h.append(s_h)
            gens_q.append(s_h if same else _inverse(qb)[gq[g][qa]])
            listed_h, listed_q = closure(gens_h, gens_q, want, most)
            if len(listed_h) >= most:
                return listed_h, listed_q
            known = set(_keys(listed_h, weights).tolist())
    return listed_h, listed_q


def root_listing(gens_h: list[np.ndarray], gens_q: list[np.ndarray], order: int,
                 known: tuple[np.ndarray, np.ndarray], limit: int = LIMIT,
                 most_bytes: int | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """For a group of `order` elements generated by the involutions `gens_h` (on the
    hypotheses) and `gens_q` (on the queries): the generators and the stabiliser of
    each query that is the first of its orbit, listed as rows on the hypotheses and on
    the queries (without repeats, the identity first), and which queries are the first
    of their orbit. At most `limit` rows and `most_bytes` bytes: the stabilisers are
    listed smallest first, and one that does not fit in full is listed as far as the
    room left (its breadth-first closure cut; a part then inherits fewer of its
    symmetries, never a wrong one); None when not even the generators fit. `known`:
    more elements of the group (rows of both), those fixing a query tried first as
    its stabiliser's generators (often they are all it needs)."""
    from sleuth.solver.infoset.symmetry import least_labels

    nh, nq = len(gens_h[0]), len(gens_q[0])
    dtype = np.int16 if max(nh, nq) <= np.iinfo(np.int16).max else np.int32
    same = all(np.array_equal(h, q) for h, q in zip(gens_h, gens_q, strict=True))
    if most_bytes is not None:
        limit = min(limit, most_bytes // ((nh + (0 if same else nq)) * np.dtype(dtype).itemsize))
    if len(gens_h) + 1 > limit:
        return None
    gh = np.stack(gens_h).astype(dtype)
    gq = gh if same else np.stack(gens_q).astype(dtype)
    labels = least_labels(gq, np.arange(len(gq)))
    firsts = labels == np.arange(nq)
    reps = np.flatnonzero(firsts)
    sizes = order // np.bincount(labels, minlength=nq)[reps]
    weights = np.random.default_rng(0).integers(1, 1 << 63, size=nh, dtype=np.uint64)
    rows_h = [np.arange(nh, dtype=dtype)[None], gh]
    rows_q = [np.arange(nq, dtype=dtype)[None], gq]
    room = limit - len(gh) - 1
    kh, kq = known[0].astype(dtype), known[1].astype(dtype)
    for i in np.argsort(sizes, kind="stable").tolist():
        if room < 1:
            break
        r = int(reps[i])
        fix = kq[:, r] == r
        h, q = _stabiliser(gh, gq, r, int(sizes[i]), room, same, weights, (kh[fix], kq[fix]))
        rows_h.append(h)
        rows_q.append(q)
        room -= len(h)
    listed_h = np.concatenate(rows_h)
    _, first = np.unique(_keys(listed_h, weights), return_index=True)
    keep = np.sort(first)
    listed_h = listed_h[keep]
    listed_q = listed_h if same else np.concatenate(rows_q)[keep]
    firsts.flags.writeable = False
    return listed_h, listed_q, firsts


__all__ = ["root_listing"]

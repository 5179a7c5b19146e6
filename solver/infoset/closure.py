"""The symmetry group listed element by element: every composition of its generators,
breadth first, up to LIMIT elements (symmetry.py's `Symmetry`)."""

from __future__ import annotations

import numpy as np
from numba import njit

LIMIT = 50_000  # elements listed at most; a larger group is kept as transpositions


@njit(cache=True, nogil=True)
def _composed_keys(gens: np.ndarray, elements: np.ndarray, probe: np.ndarray,
                   weights: np.ndarray) -> np.ndarray:
    """A hash of gens[g][elements[f]] for every element f and generator g (row f * G +
    g), never forming the compositions: a random linear form over the images of the
    hypotheses `probe`, wrapping modulo 2^64."""
    ng = gens.shape[0]
    keys = np.empty(elements.shape[0] * ng, dtype=np.uint64)
    for f in range(elements.shape[0]):
        e = elements[f]
        for g in range(ng):
            gen = gens[g]
            h = np.uint64(0)
            for i in range(probe.shape[0]):
                h += np.uint64(gen[e[probe[i]]]) * weights[i]
            keys[f * ng + g] = h
    return keys


@njit(cache=True, nogil=True)
def _compose(gens: np.ndarray, elements: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """gens[g][elements[f]] for each row f * G + g of `rows`."""
    ng, width = gens.shape[0], elements.shape[1]
    out = np.empty((rows.shape[0], width), dtype=np.int32)
    for r in range(rows.shape[0]):
        gen, e = gens[rows[r] % ng], elements[rows[r] // ng]
        for i in range(width):
            out[r, i] = gen[e[i]]
    return out


PROBE = 64  # hypotheses whose images name an element, before the full check


def closure(hyps: list[np.ndarray], queries: list[np.ndarray],
             order: int) -> tuple[np.ndarray, np.ndarray]:
    """Every composition of the generators (breadth first, at most LIMIT elements), for
    a group of `order` elements. An element is known by a 64-bit hash of its images of
    PROBE hypotheses spread over the list, and only new ones are composed in full; when
    that finds fewer than `order` elements (two agreed on the probe, or the action is
    not faithful), the closure is made again hashing every image. Two elements sharing
    that hash, a chance of about one in 2^64 a pair, would lose the second: every
    element listed is still a symmetry, so the searches stay exact (as with the LIMIT
    cut)."""
    nh = len(hyps[0])
    probe = np.unique(np.linspace(0, nh - 1, min(nh, PROBE)).astype(np.int64))
    got = _closure_by(hyps, queries, probe)
    if len(got[0]) < min(order, LIMIT) and len(probe) < nh:
        got = _closure_by(hyps, queries, np.arange(nh, dtype=np.int64))
    return got


def _closure_by(hyps: list[np.ndarray], queries: list[np.ndarray],
                probe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`closure`, with elements known by their images of the hypotheses `probe`."""
    gh = np.stack(hyps).astype(np.int32)
    gq = np.stack(queries).astype(np.int32)
    ng, nh = gh.shape
    weights = np.random.default_rng(0).integers(1, 1 << 63, size=len(probe), dtype=np.uint64)
    found_h = [np.arange(nh, dtype=np.int32)[None]]
    found_q = [np.arange(gq.shape[1], dtype=np.int32)[None]]
    seen = _composed_keys(found_h[0], found_h[0], probe, weights)
    frontier_h, frontier_q = found_h[0], found_q[0]
    while len(frontier_h) and len(seen) < LIMIT:
        keys = _composed_keys(gh, frontier_h, probe, weights)
        _, first = np.unique(keys, return_index=True)
        first = np.sort(first)  # each new key's first composition, in (f, g) order
        first = first[~np.isin(keys[first], seen)][:LIMIT - len(seen)]
        seen = np.concatenate([seen, keys[first]])
        # element f, then generator g: gh[g][h_f]
        frontier_h = _compose(gh, frontier_h, first)
        frontier_q = _compose(gq, frontier_q, first)
        found_h.append(frontier_h)
        found_q.append(frontier_q)
    return np.concatenate(found_h), np.concatenate(found_q)


__all__ = ["LIMIT", "PROBE", "closure"]

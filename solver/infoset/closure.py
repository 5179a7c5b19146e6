"""A group listed element by element: every composition of its generators, breadth
first, up to LIMIT elements (the stabilisers that stabilisers.py lists)."""

from __future__ import annotations

import numpy as np
from numba import njit

LIMIT = 50_000  # elements listed at most (symmetry.py: more are kept as transpositions)


@njit(cache=True, nogil=True)
def _composed_keys(gens: np.ndarray, images: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A hash of gens[g][e] for every element e and generator g (row f * G + g), never
    forming the compositions: a random linear form over e's images of the probed
    hypotheses (`images[f]`, as the elements' own are kept beside them), wrapping
    modulo 2^64."""
    ng = gens.shape[0]
    keys = np.empty(images.shape[0] * ng, dtype=np.uint64)
    for f in range(images.shape[0]):
        e = images[f]
        for g in range(ng):
            gen = gens[g]
            h = np.uint64(0)
            for i in range(e.shape[0]):
                h += np.uint64(gen[e[i]]) * weights[i]
            keys[f * ng + g] = h
    return keys


@njit(cache=True, nogil=True)
def _compose(gens: np.ndarray, elements: np.ndarray, rows: np.ndarray,
             out: np.ndarray) -> None:
    """gens[g][elements[f]] for each row f * G + g of `rows`, into `out` (a row each)."""
    ng, width = gens.shape[0], elements.shape[1]
    for r in range(rows.shape[0]):
        gen, e = gens[rows[r] % ng], elements[rows[r] // ng]
        for i in range(width):
            out[r, i] = gen[e[i]]


PROBE = 64  # hypotheses whose images name an element, before the full check


def closure(hyps: list[np.ndarray], queries: list[np.ndarray], order: int,
            limit: int = LIMIT, out: tuple[np.ndarray, np.ndarray] | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
    """Every composition of the generators (breadth first, at most `limit` elements), for
    a group of `order` elements. An element is known by a 64-bit hash of its images of
    PROBE hypotheses spread over the list, and only new ones are composed in full; when
    that finds fewer than `order` elements (two agreed on the probe, or the action is
    not faithful), the closure is made again hashing every image. Two elements sharing
    that hash, a chance of about one in 2^64 a pair, would lose the second: every
    element listed is still a symmetry, so the searches stay exact (as with the LIMIT
    cut). `out`: arrays of at least min(order, limit) rows to write the elements in (a
    listing's, stabilisers.py: the pages of a fresh array cost more than writing them)."""
    nh = len(hyps[0])
    # the queries are the hypotheses, in the same order (a guess is a code): their
    # images are the same, listed once (half the memory)
    same = all(np.array_equal(h, q) for h, q in zip(hyps, queries, strict=True))
    probe = np.unique(np.linspace(0, nh - 1, min(nh, PROBE)).astype(np.int64))
    got = _closure_by(hyps, None if same else queries, probe, order, limit, out)
    if len(got[0]) < min(order, limit) and len(probe) < nh:
        got = _closure_by(hyps, None if same else queries, np.arange(nh, dtype=np.int64),
                          order, limit, out)
    return got


def _closure_by(hyps: list[np.ndarray], queries: list[np.ndarray] | None, probe: np.ndarray,
                order: int, limit: int, out: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """`closure`, with elements known by their images of the hypotheses `probe`. The
    elements are written in place, in the narrowest integer type that holds them
    (MM(4,6): 17,280 x 1,296 images, 45 MB in int16). `queries` None: the queries'
    images are the hypotheses' (one array returned twice)."""
    gh = np.stack(hyps)
    gq = gh if queries is None else np.stack(queries)
    ng, nh = gh.shape
    dtype = np.int16 if max(nh, gq.shape[1]) <= np.iinfo(np.int16).max else np.int32
    gh, gq = gh.astype(dtype), gq.astype(dtype)
    weights = np.random.default_rng(0).integers(1, 1 << 63, size=len(probe), dtype=np.uint64)
    room = max(1, min(order, limit))
    if out is not None and len(out[0]) >= room and out[0].dtype == dtype:
        out_h = out[0][:room]
        out_q = out_h if queries is None else out[1][:room]
    else:
        out_h = np.empty((room, nh), dtype=dtype)
        out_q = out_h if queries is None else np.empty((room, gq.shape[1]), dtype=dtype)
    out_h[0], out_q[0] = np.arange(nh), np.arange(gq.shape[1])
    # each element's images of the probed hypotheses, kept beside it: the hashes read
    # those few (two cache lines an element, MM(4,8)) rather than the element's row;
    # with every hypothesis probed they are the elements themselves
    every = len(probe) == nh
    images = out_h if every else np.empty((len(out_h), len(probe)), dtype=dtype)
    images[0] = probe
    seen = _composed_keys(out_h[:1], images[:1], weights)  # the identity
    lo, hi = 0, 1  # the frontier: elements lo..hi-1
    while hi > lo and hi < limit:
        keys = _composed_keys(gh, images[lo:hi], weights)
        _, first = np.unique(keys, return_index=True)
        first = np.sort(first)  # each new key's first composition, in (f, g) order
        first = first[~np.isin(keys[first], seen)][:limit - hi]
        if hi + len(first) > len(out_h):  # more than `order` (not a faithful action)
            grow = hi + len(first)
            out_h = np.concatenate([out_h, np.empty((grow - len(out_h), nh), dtype)])
            out_q = out_h if queries is None else np.concatenate(
                [out_q, np.empty((grow - len(out_q), gq.shape[1]), dtype)])
            images = out_h if every else np.concatenate(
                [images, np.empty((grow - len(images), len(probe)), dtype)])
        seen = np.concatenate([seen, keys[first]])
        # element f, then generator g: gh[g][h_f]
        _compose(gh, out_h[lo:hi], first, out_h[hi:hi + len(first)])
        if queries is not None:
            _compose(gq, out_q[lo:hi], first, out_q[hi:hi + len(first)])
        if not every:
            _compose(gh, images[lo:hi], first, images[hi:hi + len(first)])
        lo, hi = hi, hi + len(first)
    return out_h[:hi], out_q[:hi]


__all__ = ["LIMIT", "PROBE", "closure"]

"""Liar's Dice: the players' decision rules (examples/liars_dice.py plays them).

Every rule reads a bid by its z-score from the player's own roll,
z(q, f) = (q - own(f) - 0.5 - mean(f)) / sd(f), own(f) the player's dice showing f or one
and mean, sd describing the dice it cannot see (the binomial for ZI, EI's posterior).

* `choices` / `decide`: the epsilon-intelligence page's stochastic response model T (the
  spec's likelihood, and the previous version's way of playing);
* `best_option` / `payoff`: the zero-intelligence page's deterministic player.

The pages: the mu-zhao/Liars_dice wiki on GitHub, "Zero Intelligence" (the payoff
omega([r, d]) and "calls ... otherwise raises the bet") and "Epsilon Intelligence" (the
response model T, and "it makes decisions exactly as ZI").
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

LAMBDA, TAU = 1.0, 0.5  # the bidding model, as EI assumes it (the spec's defaults)
# How the ZI opponents really bid, how often EI's model allows an off-model bid, and how
# each kind of player decides (--opponent-lambda, --tremble, --decision, ...; set in
# examples/liars_dice.py's main, before the workers fork).
PLAY = {"opponent_lambda": LAMBDA, "tremble": 0.0, "over_all": True, "learn": False,
        "decision": "best", "ei_decision": "best"}  # how ZI decides, and how EI does
CHANCE = np.array([1 / 6] + [1 / 3] * 5)  # an unseen die counts for face f (ones wild)


def held(counts: np.ndarray) -> np.ndarray:
    """Dice counting for each face (ones are wild), from face counts (last axis)."""
    out = counts.astype(np.int64).copy()
    out[..., 1:] += counts[..., :1]
    return out


@cache
def bids_above(standing: tuple[int, int], total: int) -> tuple[np.ndarray, np.ndarray]:
    """(quantities, faces) of every bid beating `standing`, in bid order."""
    q, f = standing
    qs = np.repeat(np.arange(1, total + 1), 6)
    fs = np.tile(np.arange(6), total)
    keep = (qs > q) | ((qs == q) & (fs > f))
    return qs[keep], fs[keep]


def zscores(qs: np.ndarray, fs: np.ndarray, own: np.ndarray, mean: np.ndarray,
            sd: np.ndarray) -> np.ndarray:
    need = qs - own[fs] - 0.5 - mean[fs]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = need / sd[fs]
    return np.where(sd[fs] > 0, z, np.where(need > 0, np.inf, -np.inf))


def raises(standing: tuple[int, int] | None, own: np.ndarray, mean: np.ndarray,
           sd: np.ndarray, total: int, lam: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Both pages' rule of when to call: None facing a bid of z > lam or with no raise of
    z <= lam; else every bid above the standing one (quantities, faces, z-scores) and which
    of them may be made: those of z <= lam (at an opening, which is compulsory, the bids of
    least z if none is)."""
    qs, fs = bids_above(standing or (0, 0), total)
    z = zscores(qs, fs, own, mean, sd)
    ok = z <= lam
    if standing is not None and (not ok.any() or zscores(
            np.array([standing[0]]), np.array([standing[1]]), own, mean, sd)[0] > lam):
        return None
    if not ok.any():
        ok = z == z.min()
    return qs, fs, z, ok


def choices(standing: tuple[int, int] | None, own: np.ndarray, mean: np.ndarray,
            sd: np.ndarray, total: int, lam: float = LAMBDA, over_all: bool | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The bidding rule with threshold `lam`: the raises it may make (quantities, faces),
    the probability of each, and the probability of calling.

    The page's model (over_all, the default): a raise B' of z <= lam has probability
    phi(z(B')) / sum of phi over every bid above the standing one, phi(z) = exp(-z / tau);
    the leftover mass is the call. Facing a bid of z > lam, or with no raise of z <= lam,
    it calls. The opening bid cannot be a call: there the acceptable raises share all the
    mass (and if none is acceptable, the bids of least z do: an opening is compulsory).
    over_all False: the previous version's rule, raises normalised over the acceptable ones
    and a call only when it must."""
    over_all = PLAY["over_all"] if over_all is None else over_all
    found = raises(standing, own, mean, sd, total, lam)
    if found is None:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0), 1.0
    qs, fs, z, ok = found
    zs = np.clip(z, -50.0, 50.0)  # a bid sure to hold has z = -inf
    w = np.exp(-(zs - zs[ok].min()) / TAU)
    mass = w.sum() if over_all and standing is not None else w[ok].sum()
    p = w[ok] / mass
    call = max(0.0, 1.0 - p.sum()) if standing is not None else 0.0
    return qs[ok], fs[ok], p, call


def decide(standing: tuple[int, int] | None, own: np.ndarray, mean: np.ndarray,
           sd: np.ndarray, total: int, rng: np.random.Generator,
           lam: float = LAMBDA) -> tuple[int, int] | None:
    """None to call, else the raise (quantity, face), drawn by the bidding rule."""
    qs, fs, p, call = choices(standing, own, mean, sd, total, lam)
    cdf = np.cumsum(p)  # the raises, then the call: rng.choice(p=...)'s own draw, inlined
    total_mass = cdf[-1] + call if len(cdf) else call
    k = int(np.searchsorted(cdf / total_mass, rng.random(), side="right"))
    if k >= len(p):
        return None
    return int(qs[k]), int(fs[k])


def best_option(standing: tuple[int, int] | None, own: np.ndarray, mean: np.ndarray,
                sd: np.ndarray, total: int, lam: float, x_pmf: np.ndarray,
                z_pmf: np.ndarray, b_unseen: int) -> tuple[int, int] | None:
    """The page's zero-intelligence decision: None to call, else the raise of greatest payoff
    omega among those of z <= lam (ties: least z, then bid order). x_pmf and z_pmf
    (count x face) are the distributions of the next player's dice counting for each face
    and of everyone else's; b_unseen is how many dice the next player cannot see."""
    found = raises(standing, own, mean, sd, total, lam)
    if found is None:
        return None
    qs, fs, z, ok = found
    q, f = qs[ok], fs[ok]
    w = payoff(q, f, own, lam, x_pmf, z_pmf, b_unseen)
    k = int(np.lexsort((np.arange(len(q)), z[ok], -w))[0])
    return int(q[k]), int(f[k])


def payoff(q: np.ndarray, f: np.ndarray, own: np.ndarray, lam: float, x_pmf: np.ndarray,
           z_pmf: np.ndarray, b_unseen: int) -> np.ndarray:
    """omega([q, f]) = - sum_x P(X = x) [B calls given x] P(Z < q - own(f) - x), per raise."""
    b_mean, b_sd = binomial_view(b_unseen)
    x = np.arange(len(x_pmf))[None, :]
    need = q[:, None] - x - 0.5 - b_mean[f][:, None]  # B's z-score numerator, given x
    with np.errstate(divide="ignore", invalid="ignore"):
        calls = np.where(b_sd[f][:, None] > 0, need / b_sd[f][:, None] > lam, need > 0)
    z_cdf = np.cumsum(z_pmf, axis=0)  # P(Z <= k), per face
    short = q[:, None] - own[f][:, None] - x - 1  # false iff Z <= short
    false = np.where(short < 0, 0.0, z_cdf[np.clip(short, 0, len(z_cdf) - 1), f[:, None]])
    return -(x_pmf[x, f[:, None]] * calls * false).sum(axis=1)


def binomial_pmf(n: int) -> np.ndarray:
    """P(k of n unseen dice count for face f), k = 0..n, per face (ones wild)."""
    k = np.arange(n + 1)[:, None]
    comb = np.array([math.comb(n, int(i)) for i in range(n + 1)], dtype=float)[:, None]
    return comb * CHANCE ** k * (1 - CHANCE) ** (n - k)


def convolved(pmfs: list[np.ndarray]) -> np.ndarray:
    """The distribution of a sum of independent counts, per face (columns)."""
    out = np.ones((1, 6))
    for p in pmfs:
        out = np.stack([np.convolve(out[:, g], p[:, g]) for g in range(6)], axis=1)
    return out


def binomial_view(unseen: int) -> tuple[np.ndarray, np.ndarray]:
    return unseen * CHANCE, np.sqrt(unseen * CHANCE * (1 - CHANCE))

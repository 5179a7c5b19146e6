"""Liar's Dice: the "epsilon intelligence" (EI) bidder against "zero intelligence" (ZI).

Three players, five dice each, ones wild. A bid (quantity, face) claims the
table holds at least that many dice of that face; it must beat the standing
bid (a higher quantity, or the same quantity of a higher face). A player may
instead call the standing bid a lie: the dice are shown, and the caller loses
a die if the bid holds, the bidder if it does not. The loser opens the next
round; a player without dice is out; the last player with dice wins.

Both kinds of player use one decision rule on a z-score of each bid:

    z(q, f) = (q - own(f) - 0.5 - mean(f)) / sd(f)

where own(f) counts the player's dice showing f (or one), and mean and sd
describe the dice it cannot see. A player calls when the standing bid's z
exceeds `lambda` (or no raise is acceptable), otherwise raises to a bid of z
<= lambda drawn with probability proportional to exp(-z / tau).

* ZI takes mean and sd from the binomial (each unseen die shows f with
  probability 1/3, or 1/6 for ones).
* EI takes them from Sleuth's posterior: one belief per opponent over its face
  counts (specs/liars-dice.yaml), updated with every bid the opponent makes,
  whose likelihood is this very bidding rule as the opponent applies it.

Seat 0 is EI and seats 1 and 2 are ZI; the control run seats a ZI in seat 0
on the same seeds, so its win rate (about 1/3) is the baseline.

    python examples/liars_dice.py [--games 2000] [--seed 0] [--workers 2]
"""

from __future__ import annotations

import argparse
import time
from functools import cache
from pathlib import Path

import numpy as np
from outputs import (
    chunks,
    figure,
    interruptible,
    output_args,
    plot_dir,
    pool_map,
    shown,
    wilson,
)

from sleuth.compiler import load_game
from sleuth.compiler.game import Game
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "liars-dice.yaml"
PLOT = ROOT / "docs" / "results" / "liars-dice.png"
FACES = ("one", "two", "three", "four", "five", "six")
PLAYERS, DICE = 3, 5
LAMBDA, TAU = 1.0, 0.5  # the bidding model, as EI assumes it (the spec's defaults)
# How the ZI opponents really bid, and how often EI's model allows an off-model bid
# (--opponent-lambda, --tremble; set in main, before the workers fork).
PLAY = {"opponent_lambda": LAMBDA, "tremble": 0.0}
CHANCE = np.array([1 / 6] + [1 / 3] * 5)  # an unseen die counts for face f (ones wild)


def held(counts: np.ndarray) -> np.ndarray:
    """Dice counting for each face (ones are wild), from face counts (last axis)."""
    out = counts.astype(np.int64).copy()
    out[..., 1:] += counts[..., :1]
    return out


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


def choices(standing: tuple[int, int] | None, own: np.ndarray, mean: np.ndarray,
            sd: np.ndarray, total: int, lam: float = LAMBDA
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The bidding rule with threshold `lam`: None to call, else the raises (quantities,
    faces) it may make and the probability of each."""
    if standing is not None and zscores(np.array([standing[0]]), np.array([standing[1]]),
                                        own, mean, sd)[0] > lam:
        return None
    qs, fs = bids_above(standing or (0, 0), total)
    z = zscores(qs, fs, own, mean, sd)
    ok = z <= lam
    if not ok.any():
        if standing is not None:
            return None
        ok = z == z.min()  # an opening bid is compulsory
    zs = np.clip(z[ok], -50.0, 50.0)  # a bid sure to hold has z = -inf
    w = np.exp(-(zs - zs.min()) / TAU)
    return qs[ok], fs[ok], w / w.sum()


def decide(standing: tuple[int, int] | None, own: np.ndarray, mean: np.ndarray,
           sd: np.ndarray, total: int, rng: np.random.Generator,
           lam: float = LAMBDA) -> tuple[int, int] | None:
    """None to call, else the raise (quantity, face), drawn by the bidding rule."""
    options = choices(standing, own, mean, sd, total, lam)
    if options is None:
        return None
    qs, fs, p = options
    k = rng.choice(len(p), p=p)
    return int(qs[k]), int(fs[k])


def binomial_view(unseen: int) -> tuple[np.ndarray, np.ndarray]:
    return unseen * CHANCE, np.sqrt(unseen * CHANCE * (1 - CHANCE))


@cache
def spec_for(dice: int, hidden: int) -> Game:
    """The opponent model for an opponent with `dice` dice who cannot see `hidden`."""
    return load_game(SPEC, overrides={"dice": dice, "hidden": hidden, "lambda": LAMBDA,
                                      "tau": TAU, "tremble": PLAY["tremble"]})


class Observer:
    """EI's beliefs over each opponent's roll in this round."""

    def __init__(self, dice: list[int], me: int):
        total = sum(dice)
        self.beliefs = {j: Belief.prior(spec_for(d, total - d))
                        for j, d in enumerate(dice) if j != me and d > 0}

    def saw(self, player: int, standing: tuple[int, int] | None, bid: tuple[int, int]) -> None:
        q, f = standing or (0, 0)
        event = Event("turn", {"standing": {"quantity": q, "face": FACES[f]}},
                      answer={"call": False,
                              "bid": {"quantity": bid[0], "face": FACES[bid[1]]}})
        self.beliefs[player] = apply_event(self.beliefs[player], event)

    def view(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and sd of the opponents' dice counting for each face."""
        mean, var = np.zeros(6), np.zeros(6)
        for belief in self.beliefs.values():
            counts = held(np.stack(belief.values("roll"), axis=-1))
            p = belief.probabilities()[:, None]
            m = (p * counts).sum(axis=0)
            mean += m
            var += (p * (counts - m) ** 2).sum(axis=0)
        return mean, np.sqrt(var)


def play_game(rng: np.random.Generator, ei_seat: int | None) -> int:
    """One game; returns the winner's seat. `ei_seat` None: every player is ZI."""
    dice = [DICE] * PLAYERS
    opener = int(rng.integers(PLAYERS))
    while sum(d > 0 for d in dice) > 1:
        rolls = [np.bincount(rng.integers(0, 6, d), minlength=6) for d in dice]
        total = sum(dice)
        observer = Observer(dice, ei_seat) if ei_seat is not None and dice[ei_seat] else None
        standing, bidder, player = None, None, opener
        while True:
            own = held(rolls[player])
            if player == ei_seat and observer is not None:
                mean, sd = observer.view()
            else:
                mean, sd = binomial_view(total - dice[player])
            lam = LAMBDA if player == 0 else PLAY["opponent_lambda"]  # seat 0: EI, or control
            bid = decide(standing, own, mean, sd, total, rng, lam)
            if bid is None:
                loser = player if bid_holds(rolls, standing) else bidder
                break
            if observer is not None and player != ei_seat:
                observer.saw(player, standing, bid)
            standing, bidder = bid, player
            player = next_in(dice, player)
        dice[loser] -= 1
        opener = loser if dice[loser] else next_in(dice, loser)
    return next(j for j, d in enumerate(dice) if d > 0)


def bid_holds(rolls: list[np.ndarray], bid: tuple[int, int]) -> bool:
    table = held(sum(rolls))
    return bool(table[bid[1]] >= bid[0])


def next_in(dice: list[int], player: int) -> int:
    j = (player + 1) % len(dice)
    while dice[j] == 0:
        j = (j + 1) % len(dice)
    return j


def play_block(seeds: list[np.random.SeedSequence]) -> dict[str, np.ndarray]:
    """Winners' seats for the games of these seeds with EI in seat 0, and for the same seeds
    with ZI there (each game's own seed, so both runs deal the same first rolls)."""
    wins = {"ei": np.zeros(PLAYERS, dtype=np.int64), "zi": np.zeros(PLAYERS, dtype=np.int64)}
    for s in seeds:
        wins["ei"][play_game(np.random.default_rng(s), 0)] += 1
        wins["zi"][play_game(np.random.default_rng(s), None)] += 1
    return wins


def play(games: int, seed: int, workers: int) -> dict[str, np.ndarray]:
    """The games in `workers` processes; each game has its own spawned seed, so the result
    depends on the seed only, not on the number of workers."""
    seeds = np.random.SeedSequence(seed).spawn(games)
    parts = pool_map(play_block, chunks(seeds, 20), workers, "games")
    return {k: sum(part[k] for part in parts) for k in parts[0]}


def walk_through(seed: int, bids: int = 6) -> None:
    """One round, bid by bid: what the bids say about the opponents' rolls."""
    rng = np.random.default_rng(seed)
    dice = [DICE] * PLAYERS
    rolls = [np.bincount(rng.integers(0, 6, d), minlength=6) for d in dice]
    observer = Observer(dice, 0)
    prior_bits = {j: b.entropy_bits() for j, b in observer.beliefs.items()}
    print("Part 1: one round seen from seat 0 (EI); its dice", roll_text(rolls[0]))
    for j in (1, 2):
        print(f"  seat {j} really holds {roll_text(rolls[j])}")
    standing, player = None, 1
    for _ in range(bids):
        own = held(rolls[player])
        if player == 0:
            mean, sd = observer.view()
        else:
            mean, sd = binomial_view(sum(dice) - dice[player])
        lam = LAMBDA if player == 0 else PLAY["opponent_lambda"]
        bid = decide(standing, own, mean, sd, sum(dice), rng, lam)
        if bid is None:
            print(f"  seat {player} calls")
            break
        print(f"  seat {player} bids {bid[0]} x {FACES[bid[1]]}")
        if player != 0:
            observer.saw(player, standing, bid)
            belief = observer.beliefs[player]
            counts = np.stack(belief.values("roll"), axis=-1)
            expected = belief.probabilities() @ counts
            print(f"    seat {player}'s expected face counts now " +
                  " ".join(f"{FACES[f]} {expected[f]:.2f}" for f in range(6)) +
                  f"  ({belief.entropy_bits():.2f} bits left of {prior_bits[player]:.2f})")
        standing, player = bid, (player + 1) % PLAYERS


def roll_text(counts: np.ndarray) -> str:
    return " ".join(f"{c} x {FACES[f]}" for f, c in enumerate(counts) if c)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--opponent-lambda", type=float, default=LAMBDA,
                        help="the lambda the ZI opponents really bid with (EI assumes "
                             f"{LAMBDA})")
    parser.add_argument("--tremble", type=float, default=0.0,
                        help="how often EI's model lets a bid be off the model")
    output_args(parser)
    args = parser.parse_args()
    PLAY.update(opponent_lambda=args.opponent_lambda, tremble=args.tremble)
    start = time.perf_counter()
    walk_through(args.seed)
    wins = play(args.games, args.seed, args.workers)
    n = args.games
    print(f"\nPart 2: {n} seeded games (seed {args.seed}): {PLAYERS} players, {DICE} dice each, "
          f"ones wild, lambda {LAMBDA}, tau {TAU}" + (
              f"; opponents bid with lambda {args.opponent_lambda}"
              if args.opponent_lambda != LAMBDA else "") + (
              f"; tremble {args.tremble}" if args.tremble else ""))
    for name, label in (("ei", "EI in seat 0, ZI in seats 1-2"),
                        ("zi", "ZI in every seat (control)")):
        w = wins[name]
        lo, hi = wilson(int(w[0]), n)
        print(f"{label:<32} seat 0 wins {w[0] / n:.3f} (95 % CI {lo:.3f}-{hi:.3f});"
              f" seats 1, 2: {w[1] / n:.3f}, {w[2] / n:.3f}")
    folder = plot_dir(args)
    if folder:
        with figure(folder / PLOT.name) as (_, ax):
            draw_wins(ax, wins, n)
        print(f"win rates drawn in {shown(folder / PLOT.name)}")
    print(f"[{time.perf_counter() - start:.0f} s]")


def draw_wins(ax, wins: dict[str, np.ndarray], n: int) -> None:
    for k, (name, label) in enumerate((("ei", "EI in seat 0"), ("zi", "all ZI (control)"))):
        rates = wins[name] / n
        ci = np.array([wilson(int(w), n) for w in wins[name]])
        x = np.arange(PLAYERS) + (k - 0.5) * 0.38
        ax.bar(x, rates, 0.36, label=label,
               yerr=[rates - ci[:, 0], ci[:, 1] - rates], capsize=3)
    ax.axhline(1 / PLAYERS, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(PLAYERS), [f"seat {j}" for j in range(PLAYERS)])
    ax.set_ylabel(f"win rate over {n:,} games")
    ax.set_title("Liar's Dice: EI (Sleuth's posterior) against ZI bidders")
    ax.legend()


if __name__ == "__main__":
    interruptible(main)

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
exceeds `lambda` (or no raise has z <= lambda); otherwise it raises, by the rule
`--decision` names below: by default to the best option (the ZI page's payoff), or,
with `--decision sampled`, to a bid of z <= lambda drawn from the response model T.

How a player chooses (`--decision`):

* best (the default, the zero-intelligence page): call once the standing bid's z
  exceeds lambda (or no raise has z <= lambda); otherwise raise, deterministically, to
  the best option: among the raises of z <= lambda, the one of greatest payoff
      omega([r, d]) = - sum over x of P(X = x) [the next player B calls [r, d] given x]
                      P(Z < r - s - x),
  the expected dice lost on the next turn: s is the dice of face d (or one) the player
  holds, X those of the next player B, Z those of everyone else; B is assumed to call
  when the bid's z-score from its own roll exceeds lambda (the page's "y_0": it calls
  when x <= r - y_0). The page leaves ties open (every raise B would never call pays 0):
  they go to the raise of least z, then to the first in bid order (our choice).
* sampled (the previous version): call or raise at random by the response model T below,
  the same rule as EI's model of its opponents.
`--decision` sets the ZI players' rule, `--ei-decision` EI's (both best by default;
both sampled is the previous version).

* ZI takes its z-scores' mean and sd, and X's and Z's distributions, from the binomial
  (each unseen die shows f with probability 1/3, or 1/6 for ones).
* EI takes them from Sleuth's posterior: one belief per opponent over its face
  counts (specs/liars-dice.yaml), updated with every bid the opponent makes, and
  then decides exactly as ZI does (the page). Its model of an opponent's bids is the
  page's stochastic response model T, whichever rule the opponents really follow: with
  `--decision best` (the default) the ZI opponents are deterministic, so EI's model is
  misspecified (its likelihoods are T's, not 0 and 1).

Seat 0 is EI and seats 1 and 2 are ZI; the control run seats a ZI in seat 0
on the same seeds, so its win rate (about 1/3) is the baseline.

The bidding rule is the page's response model: a raise B' of z <= lambda has
probability T = phi(z(B')) / (sum of phi over every bid above the standing one),
phi(z) = exp(-z / tau); the leftover mass is the call (`--response acceptable`:
the previous model, normalised over the acceptable raises). Part 3 is the
misspecification study: the opponents bid with lambda 0.5, 1 or 2; seat 0 is ZI
(the control), EI assuming lambda = 1, or EI learning lambda (a hidden param of
the spec, uniform over 0.5, 1, 2, carried from round to round: when a call shows
the dice, each opponent's lambda posterior given its bids and its real roll is
the next round's prior). Both EI models allow a tremble of 0.01.

The decision rules are in examples/liars_dice_rules.py.

    python examples/liars_dice.py [--games 2000] [--study 3000] [--seed 0] [--workers 2]
        [--decision best|sampled] [--ei-decision best|sampled] [--opponent-lambda L]
        [--tremble E] [--learn] [--response page|acceptable]
        [--plot DIR | --write-docs]
"""

from __future__ import annotations

import argparse
import time
from functools import cache
from pathlib import Path

import numpy as np
from liars_dice_rules import (
    LAMBDA,
    PLAY,
    TAU,
    best_option,
    binomial_pmf,
    binomial_view,
    convolved,
    decide,
    held,
)
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
from sleuth.compiler.enumerate import Budget
from sleuth.compiler.game import Game
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "liars-dice.yaml"
PLOT = ROOT / "docs" / "results" / "liars-dice.png"
STUDY_PLOT = ROOT / "docs" / "results" / "liars-dice-study.png"
FACES = ("one", "two", "three", "four", "five", "six")
PLAYERS, DICE = 3, 5
CACHE_MB = 160  # likelihood tables kept per opponent model: every standing bid's, once met
RULES = {"best": "raises to the best option", "sampled": "decides at random by T"}
LEARN = (0.5, 1.0, 2.0)  # the lambdas EI weighs when it learns the opponents' (uniform prior)


def move(standing: tuple[int, int] | None, rolls: list[np.ndarray], dice: list[int],
         player: int, observer: Observer | None, rng: np.random.Generator,
         lam: float) -> tuple[int, int] | None:
    """`player`'s turn by PLAY's decision rule; with an observer, the player is EI and takes
    its view of the others from the observer's posterior, else (ZI) from the binomial."""
    own, total = held(rolls[player]), sum(dice)
    mean, sd = observer.view() if observer is not None else binomial_view(total - dice[player])
    if PLAY["decision" if observer is None else "ei_decision"] == "sampled":
        return decide(standing, own, mean, sd, total, rng, lam)
    b = next_in(dice, player)
    rest = [k for k, d in enumerate(dice) if d and k not in (player, b)]
    if observer is not None:
        x_pmf = observer.count_pmf(b)
        z_pmf = convolved([observer.count_pmf(k) for k in rest])
    else:
        x_pmf, z_pmf = binomial_pmf(dice[b]), binomial_pmf(sum(dice[k] for k in rest))
    return best_option(standing, own, mean, sd, total, lam, x_pmf, z_pmf, total - dice[b])


def spec_for(dice: int, hidden: int) -> Game:
    """The opponent model for an opponent with `dice` dice who cannot see `hidden`, as PLAY
    says: lambda as EI assumes it, or (learn) a hidden param, uniform over LEARN."""
    return _spec(dice, hidden, PLAY["learn"], PLAY["tremble"], PLAY["over_all"])


@cache
def _spec(dice: int, hidden: int, learn: bool, tremble: float, over_all: bool) -> Game:
    lam = {"hidden": list(LEARN)} if learn else LAMBDA
    return load_game(SPEC, overrides={"dice": dice, "hidden": hidden, "lambda": lam,
                                      "tau": TAU, "tremble": tremble, "over_all": over_all},
                     budget=Budget(likelihood_cache_mb=CACHE_MB))


class Observer:
    """EI's beliefs over each opponent's roll in this round (and, when it learns lambda,
    over the opponent's lambda: `carried` holds each opponent's lambda posterior from the
    earlier rounds of the game, the prior of this round's lambda)."""

    def __init__(self, dice: list[int], me: int, carried: dict[int, np.ndarray] | None = None):
        total = sum(dice)
        self.carried = carried if carried is not None else {}
        self.beliefs = {}
        for j, d in enumerate(dice):
            if j == me or d == 0:
                continue
            belief = Belief.prior(spec_for(d, total - d))
            if PLAY["learn"] and j in self.carried:
                belief = belief.update(self.carried[j][belief.values("lambda")],
                                       "the opponent's earlier rounds")
            self.beliefs[j] = belief

    def saw(self, player: int, standing: tuple[int, int] | None,
            bid: tuple[int, int] | None) -> None:
        """An opponent's turn: a raise to `bid`, or (None) a call."""
        q, f = standing or (0, 0)
        answer = ({"call": True, "bid": {"quantity": 0, "face": "one"}} if bid is None else
                  {"call": False, "bid": {"quantity": bid[0], "face": FACES[bid[1]]}})
        event = Event("turn", {"standing": {"quantity": q, "face": FACES[f]}}, answer=answer)
        self.beliefs[player] = apply_event(self.beliefs[player], event)

    def reveal(self, rolls: list[np.ndarray]) -> None:
        """The call shows every roll: each opponent's lambda posterior given its bids and
        its real roll is carried to the next round."""
        if not PLAY["learn"]:
            return
        for j, belief in self.beliefs.items():
            counts = np.stack(belief.values("roll"), axis=-1)
            shown = belief.restrict((counts == rolls[j]).all(axis=1), "the revealed roll")
            post = np.zeros(len(LEARN))
            np.add.at(post, shown.values("lambda"), shown.probabilities())
            self.carried[j] = post / post.sum()

    def true_lambda(self, lam: float) -> float:
        """The mean over opponents of the carried posterior probability of lambda = lam."""
        k = LEARN.index(lam) if lam in LEARN else None
        return float(np.mean([p[k] if k is not None else 0.0 for p in self.carried.values()]))

    def count_pmf(self, player: int) -> np.ndarray:
        """The posterior distribution of `player`'s dice counting for each face (count x
        face)."""
        belief = self.beliefs[player]
        counts = held(np.stack(belief.values("roll"), axis=-1))
        p = belief.probabilities()
        return np.stack([np.bincount(counts[:, g], weights=p, minlength=counts.max() + 1)
                         for g in range(6)], axis=1)

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


def play_game(rng: np.random.Generator, ei_seat: int | None,
              learned: list[float] | None = None) -> int:
    """One game; returns the winner's seat. `ei_seat` None: every player is ZI. With
    `learned` (and EI learning lambda), the posterior probability EI gives the opponents'
    true lambda at the end of each round is appended to it."""
    dice = [DICE] * PLAYERS
    opener = int(rng.integers(PLAYERS))
    carried: dict[int, np.ndarray] = {}  # EI's lambda posterior per opponent, round to round
    while sum(d > 0 for d in dice) > 1:
        rolls = [np.bincount(rng.integers(0, 6, d), minlength=6) for d in dice]
        observer = (Observer(dice, ei_seat, carried)
                    if ei_seat is not None and dice[ei_seat] else None)
        standing, bidder, player = None, None, opener
        while True:
            lam = LAMBDA if player == 0 else PLAY["opponent_lambda"]  # seat 0: EI, or control
            bid = move(standing, rolls, dice, player,
                       observer if player == ei_seat else None, rng, lam)
            if bid is None:
                loser = player if bid_holds(rolls, standing) else bidder
                if observer is not None:
                    if player != ei_seat:
                        observer.saw(player, standing, None)
                    observer.reveal(rolls)
                    if learned is not None and PLAY["learn"]:
                        learned.append(observer.true_lambda(PLAY["opponent_lambda"]))
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


STUDY_LAMBDAS = (0.5, 1.0, 2.0)  # how the opponents really bid
STUDY_TREMBLE = 0.01  # both EI models allow an off-model bid this often (else lambda 2 is
# impossible under the assumed lambda 1, and the game stops at the first such bid)


def study_block(part: tuple[list[np.random.SeedSequence], float]) -> dict[str, np.ndarray]:
    """Seat 0's wins, game by game, for one opponent lambda: ZI (the control), EI assuming
    lambda 1, EI learning lambda, on the same seeds; and EI's posterior on the true lambda
    at the end of each round."""
    seeds, lam = part
    PLAY.update(opponent_lambda=lam, tremble=STUDY_TREMBLE)
    out = {k: np.zeros(len(seeds), dtype=bool) for k in ("zi", "assume", "learn")}
    learned: list[float] = []
    for g, seed in enumerate(seeds):
        out["zi"][g] = play_game(np.random.default_rng(seed), None) == 0
        PLAY["learn"] = False
        out["assume"][g] = play_game(np.random.default_rng(seed), 0) == 0
        PLAY["learn"] = True
        out["learn"][g] = play_game(np.random.default_rng(seed), 0, learned) == 0
    out["learned"] = np.array(learned)
    return out


def study(games: int, seed: int, workers: int) -> dict[float, dict[str, np.ndarray]]:
    """The misspecification grid: opponents bid with each lambda of STUDY_LAMBDAS; every
    cell replays the same seeds (common random numbers)."""
    seeds = np.random.SeedSequence(seed).spawn(games)
    parts = [(block, lam) for lam in STUDY_LAMBDAS for block in chunks(seeds, 50)]
    results = pool_map(study_block, parts, workers, "study")
    out: dict[float, dict[str, np.ndarray]] = {}
    for (_, lam), res in zip(parts, results, strict=True):
        cell = out.setdefault(lam, {k: [] for k in res})
        for k, v in res.items():
            cell[k].append(v)
    return {lam: {k: np.concatenate(v) for k, v in cell.items()} for lam, cell in out.items()}


def study_report(cells: dict[float, dict[str, np.ndarray]], games: int) -> None:
    print(f"\nPart 3: misspecification, {games} seeded games per cell; seat 0 against two ZI "
          f"players who bid with lambda below; EI's models allow a tremble of {STUDY_TREMBLE}")
    print(f"{'opponents':>9}  {'seat 0':<26} {'wins':>6}  {'95 % (Wilson)':<15} "
          f"{'vs ZI (paired)':<16} {'P(true lambda), round ends':>26}")
    for lam, cell in cells.items():
        for key, label in (("zi", "ZI (control)"), ("assume", "EI assuming lambda = 1"),
                           ("learn", "EI learning lambda")):
            wins = cell[key]
            lo, hi = wilson(float(wins.sum()), len(wins))
            diff = wins.astype(float) - cell["zi"]
            paired = (f"{diff.mean():+.3f} ± {1.96 * diff.std(ddof=1) / np.sqrt(len(wins)):.3f}"
                      if key != "zi" else "-")
            learned = (f"{cell['learned'].mean():.3f} (n = {len(cell['learned'])})"
                       if key == "learn" and len(cell["learned"]) else "")
            print(f"{lam:>9g}  {label:<26} {wins.mean():>6.3f}  [{lo:.3f}, {hi:.3f}]  "
                  f"{paired:<16} {learned:>26}")


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
        lam = LAMBDA if player == 0 else PLAY["opponent_lambda"]
        bid = move(standing, rolls, dice, player, observer if player == 0 else None, rng, lam)
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
    parser.add_argument("--decision", choices=("best", "sampled"), default="best",
                        help="how the ZI players decide. best: call above lambda, else raise "
                        "to the best option, deterministically (the zero-intelligence page); "
                        "sampled: at random by the response model T (the previous version)")
    parser.add_argument("--ei-decision", choices=("best", "sampled"), default="best",
                        help="how EI decides from its posterior: best (the page: 'exactly as "
                        "ZI' does) or sampled (the previous version)")
    parser.add_argument("--opponent-lambda", type=float, default=LAMBDA,
                        help="the lambda the ZI opponents really bid with (EI assumes "
                             f"{LAMBDA})")
    parser.add_argument("--tremble", type=float, default=0.0,
                        help="how often EI's model lets a bid be off the model")
    parser.add_argument("--learn", action="store_true",
                        help=f"EI learns the opponents' lambda (a hidden param over {LEARN})")
    parser.add_argument("--response", choices=("page", "acceptable"), default="page",
                        help="page: T over every higher bid, the leftover calls (the page); "
                             "acceptable: T over the acceptable raises (the previous model)")
    parser.add_argument("--study", type=int, default=3000, metavar="GAMES",
                        help="games per cell of the misspecification study (0: skip it)")
    output_args(parser)
    args = parser.parse_args()
    if not 0 <= args.tremble < 1 or args.opponent_lambda < 0 or args.games < 1 or \
            args.workers < 1 or args.study < 0:
        raise SystemExit("error: --tremble must lie in [0, 1), --opponent-lambda be >= 0, "
                         "--games and --workers at least 1")
    PLAY.update(opponent_lambda=args.opponent_lambda, tremble=args.tremble,
                learn=args.learn, over_all=args.response == "page", decision=args.decision,
                ei_decision=args.ei_decision)
    start = time.perf_counter()
    walk_through(args.seed)
    wins = play(args.games, args.seed, args.workers)
    n = args.games
    print(f"\nPart 2: {n} seeded games (seed {args.seed}): {PLAYERS} players, {DICE} dice each, "
          f"ones wild, lambda {LAMBDA}, tau {TAU}" + (
              f"; opponents bid with lambda {args.opponent_lambda}"
              if args.opponent_lambda != LAMBDA else "") + (
              "; EI learns lambda" if args.learn else "") + (
              "; the previous response model" if args.response != "page" else "") + (
              f"; ZI {RULES[args.decision]}, EI {RULES[args.ei_decision]}") + (
              f"; tremble {args.tremble}" if args.tremble else ""))
    for name, label in (("ei", "EI in seat 0, ZI in seats 1-2"),
                        ("zi", "ZI in every seat (control)")):
        w = wins[name]
        lo, hi = wilson(int(w[0]), n)
        print(f"{label:<32} seat 0 wins {w[0] / n:.3f} (95 % CI {lo:.3f}-{hi:.3f});"
              f" seats 1, 2: {w[1] / n:.3f}, {w[2] / n:.3f}")
    cells = study(args.study, args.seed, args.workers) if args.study else None
    if cells:
        study_report(cells, args.study)
    folder = plot_dir(args)
    if folder:
        with figure(folder / PLOT.name) as (_, ax):
            draw_wins(ax, wins, n)
        print(f"win rates drawn in {shown(folder / PLOT.name)}")
        if cells:
            with figure(folder / STUDY_PLOT.name) as (_, ax):
                draw_study(ax, cells)
            print(f"the study drawn in {shown(folder / STUDY_PLOT.name)}")
    print(f"[{time.perf_counter() - start:.0f} s]")


def draw_study(ax, cells: dict[float, dict[str, np.ndarray]]) -> None:
    keys = (("zi", "ZI (control)"), ("assume", "EI assuming lambda = 1"),
            ("learn", "EI learning lambda"))
    for k, (key, label) in enumerate(keys):
        rates = np.array([cells[lam][key].mean() for lam in STUDY_LAMBDAS])
        ci = np.array([wilson(float(cells[lam][key].sum()), len(cells[lam][key]))
                       for lam in STUDY_LAMBDAS])
        x = np.arange(len(STUDY_LAMBDAS)) + (k - 1) * 0.27
        ax.bar(x, rates, 0.25, label=label, yerr=[rates - ci[:, 0], ci[:, 1] - rates],
               capsize=3)
    ax.set_xticks(range(len(STUDY_LAMBDAS)), [f"opponents' lambda {lam:g}"
                                              for lam in STUDY_LAMBDAS])
    ax.set_ylabel("seat 0 win rate")
    ax.set_title("Liar's Dice: EI with the wrong lambda, and learning it")
    ax.legend(fontsize=8)


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

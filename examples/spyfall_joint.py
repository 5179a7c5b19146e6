"""Spyfall, the joint model (the previous version, a named variant): specs/spyfall-joint.yaml.

Each seeded game draws the location N and the spy S (uniformly). The players
speak in turn (player 0, 1, ..., round robin) for at most `--rounds` rounds.
A speaker publishes a claim C (a probability vector over the locations,
sampled from a Dirichlet) and an accusation A (a probability vector over the
players). The public belief is a Sleuth Belief over (location, spy), updated
by the spec's `claim` likelihood after every claim.

Claims (beta and lambda are the spec's params):

* non-spy, Flat: C ~ Dirichlet(beta ((1 - lambda) 1 + lambda e_N)).
* non-spy, Dynamic: lambda_t = LO + (HI - LO) K, K = sum_j b(j) q_j(N), how much
  the speaker believes the spy already knows N (b its private spy belief, q_j
  the public posterior given spy j). The listeners keep the flat lambda.
* spy: C ~ Dirichlet(beta ((1 - lambda) 1 + lambda P)), P the public location
  belief before its turn (it mimics what the table believes).

Beliefs. Private beliefs condition the public joint posterior: a non-spy i on
location == N and spy != i (b_i), the spy on spy == S (q_S).

Accusations. A speaker's accusation is its spy belief after its claim: b_i
for a non-spy; for the spy a decoy, the public spy belief with itself removed
and renormalised. Accusations are not evidence in the Bayesian belief (every
non-spy reads the same claims and knows the same N, so another non-spy's
accusation tells it nothing new); they are opinions pooled for the vote. The
accusation update: player i's vote belief is
    v_i(j) ~ base_i(j) * prod_{k != i, k has spoken, k != j} (1 - mu + mu (s - 1) A_k(j))
with A_k player k's latest accusation, base_i = b_i (non-spy) or the decoy
(spy), mu the accusation weight (0: cheap talk).

End of the game, checked after every turn, the spy first:
1. the spy stops the game when its top location probability exceeds 0.9 and
   guesses that location: the spy wins if it is N, loses otherwise;
2. from the end of the first round on, when every non-spy has the same top
   suspect (the unique maximum of its vote belief) with vote-belief
   probability at least `--consensus`, the game goes to the vote;
3. after the last round, the vote.
The vote: each non-spy votes for its top suspect (v_i), the spy for the
maximum of its vote belief (which excludes itself); ties are broken
uniformly at random. A player with a strict majority (> s/2 votes) is
accused. The spy accused: the non-spies win. Otherwise (an innocent accused
or no majority) the spy escapes and guesses the location (the maximum of
q_S): right, the spy wins; wrong, the non-spies win.

Statistics (win rates with Wilson intervals, paired differences, turn-wise
information gain, aggregate gains): examples/spyfall-joint.md.

    python examples/spyfall_joint.py [--games 1000] [--seed 0] [--workers 2] [--rounds 3]
        [--sample 100] [--consensus 0.5] [--dynamic LO HI] [--set lambda=0.3]
        [--plot DIR | --write-docs]
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from outputs import (
    figure,
    interruptible,
    output_args,
    plot_dir,
    pool_map,
    shown,
    wilson,
)
from spyfall_report import draw_belief_bands

from sleuth.compiler import load_game
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "spyfall-joint.yaml"
SPY_GUESS = 0.9  # the spy stops the game above this private top location probability


@dataclass(frozen=True)
class Mix:
    """A strategy mix: which seats play Dynamic when they are not the spy, and mu."""

    name: str
    dynamic: tuple[bool, ...]
    mu: float


def configure(overrides: dict | None = None, dynamic: tuple[float, float] | None = None) -> None:
    """Load the spec (with `--set` overrides) into the module's globals; the worker
    processes are forked and inherit them."""
    global GAME, N_LOC, N_PLAYERS, BETA, LAMBDA, DYN_LO, DYN_HI, LOC, SPY, MIXES
    GAME = load_game(SPEC, overrides or None)
    params = GAME.model.params
    N_LOC, N_PLAYERS = int(params["locations"]), int(params["players"])
    BETA, LAMBDA = float(params["beta"]), float(params["lambda"])
    # the Dynamic speaker's lambda_t range; by default lambda/2 .. 5 lambda/2 (at most
    # 0.95: at lambda = 1 the Dirichlet has zero parameters)
    DYN_LO, DYN_HI = dynamic or (LAMBDA / 2, min(0.95, 2.5 * LAMBDA))
    if not 0 <= DYN_LO <= DYN_HI < 1 or not 0 <= LAMBDA < 1:
        raise SystemExit("lambda and the Dynamic range must lie in [0, 1)")
    everyone = Belief.prior(GAME)  # uniform: every hypothesis, in table order
    LOC, SPY = np.asarray(everyone.values("location")), np.asarray(everyone.values("spy"))
    MIXES = [
        Mix("Flat", (False,) * N_PLAYERS, 0.5),
        Mix("Dynamic", (True,) * N_PLAYERS, 0.5),
        Mix("Mixed (even seats Dynamic)", tuple(k % 2 == 0 for k in range(N_PLAYERS)), 0.5),
        Mix("Flat, accusations ignored", (False,) * N_PLAYERS, 0.0),
        Mix("Dynamic, accusations ignored", (True,) * N_PLAYERS, 0.0),
    ]


configure()
OUTCOMES = ["spy guessed right", "spy guessed wrong", "caught (early vote)",
            "caught (final vote)", "escaped, guessed right", "escaped, guessed wrong"]
SPY_WINS = (0, 4)  # the rule of this game: an escaped spy still has to name the location
STRICT_SPY_WINS = (0, 4, 5)  # the stricter variant: an escaped spy wins outright


# ----------------------------------------------------------------------------- beliefs

def joint(belief: Belief) -> np.ndarray:
    """The public posterior as a (location, spy) matrix."""
    out = np.zeros((N_LOC, N_PLAYERS))
    np.add.at(out, (LOC[belief.index], SPY[belief.index]), belief.probabilities())
    return out


def normalised(v: np.ndarray) -> np.ndarray:
    total = v.sum()
    return v / total if total > 0 else np.full(len(v), 1.0 / len(v))


def kl_bits(p: np.ndarray, q: np.ndarray) -> float:
    keep = p > 0
    return float((p[keep] * np.log2(p[keep] / q[keep])).sum())


def spy_belief(j: np.ndarray, n: int, i: int) -> np.ndarray:
    """Non-spy i's private spy belief: the posterior given location == n and spy != i."""
    row = j[n].copy()
    row[i] = 0.0
    return normalised(row)


def location_belief(j: np.ndarray, s: int) -> np.ndarray:
    """The private location belief of player s if it is the spy: given spy == s."""
    return normalised(j[:, s].copy())


def decoy(j: np.ndarray, s: int) -> np.ndarray:
    """The spy's accusation: the public spy belief with itself removed."""
    row = j.sum(axis=0)
    row[s] = 0.0
    return normalised(row)


def vote_belief(base: np.ndarray, i: int, accusations: dict[int, np.ndarray],
                mu: float) -> np.ndarray:
    """The accusation update: base times a soft factor per other player's accusation."""
    v = base.copy()
    for k, a in accusations.items():
        if k == i:
            continue
        factor = (1.0 - mu) + mu * (N_PLAYERS - 1) * a
        factor[k] = 1.0
        v *= factor
    return normalised(v)


def top(v: np.ndarray) -> int | None:
    """The unique maximum (None on a tie)."""
    best = np.flatnonzero(v >= v.max() * (1 - 1e-12))
    return int(best[0]) if len(best) == 1 else None


def claim_event(speaker: int, claim: np.ndarray, public: np.ndarray) -> Event:
    return Event("claim", {"speaker": speaker},
                 answer={"claim": tuple(float(x) for x in claim),
                         "public": tuple(float(x) for x in public)})


# ----------------------------------------------------------------------------- one game

def play_game(seed: np.random.SeedSequence, mix: Mix, rounds: int, consensus: float,
              record: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    n, s = int(rng.integers(N_LOC)), int(rng.integers(N_PLAYERS))
    belief = Belief.prior(GAME)
    accusations: dict[int, np.ndarray] = {}
    events, ig, lambdas, trace = [], [], [], [joint(belief)]
    outcome = None
    for t in range(rounds * N_PLAYERS):
        speaker = t % N_PLAYERS
        before = joint(belief)
        public = before.sum(axis=1)
        if speaker == s:
            target, lam = public, LAMBDA
        else:
            lam = LAMBDA
            if mix.dynamic[speaker]:
                b = spy_belief(before, n, speaker)
                knows = sum(b[k] * location_belief(before, k)[n] for k in range(N_PLAYERS)
                            if k != speaker)
                lam = DYN_LO + (DYN_HI - DYN_LO) * knows
            target = np.eye(N_LOC)[n]
            lambdas.append(lam)
        claim = rng.dirichlet(BETA * ((1.0 - lam) + lam * target))
        claim = np.maximum(claim, 1e-300)
        event = claim_event(speaker, claim, public)
        events.append(event)
        belief = apply_event(belief, event)
        after = joint(belief)
        trace.append(after)
        ig.append((t, speaker == s, kl_bits(after.sum(axis=1), public),
                   after[n].sum() - public[n]))
        accusations[speaker] = decoy(after, s) if speaker == s else spy_belief(after, n, speaker)
        q = location_belief(after, s)
        if q.max() > SPY_GUESS:
            outcome = 0 if int(np.argmax(q)) == n else 1
            break
        if t + 1 >= N_PLAYERS:
            tops = [vote_belief(spy_belief(after, n, i), i, accusations, mix.mu)
                    for i in range(N_PLAYERS) if i != s]
            firsts = {top(v) for v in tops}
            if len(firsts) == 1 and None not in firsts and \
                    min(v.max() for v in tops) >= consensus:
                outcome = vote(rng, after, n, s, accusations, mix.mu, early=True)
                break
    if outcome is None:
        outcome = vote(rng, joint(belief), n, s, accusations, mix.mu, early=False)
    named_right = int(np.argmax(location_belief(joint(belief), s))) == n  # were it to name
    out = {"outcome": outcome, "turns": len(events), "ig": ig, "lambdas": lambdas,
           "named_right": named_right}
    if record:
        out.update(events=events, trace=trace, location=n, spy=s)
    return out


def vote(rng, j: np.ndarray, n: int, s: int, accusations: dict[int, np.ndarray], mu: float,
         early: bool) -> int:
    votes = np.zeros(N_PLAYERS, dtype=int)
    for i in range(N_PLAYERS):
        base = decoy(j, s) if i == s else spy_belief(j, n, i)
        v = vote_belief(base, i, accusations, mu)
        best = np.flatnonzero(v >= v.max() * (1 - 1e-12))
        votes[int(rng.choice(best))] += 1
    accused = int(np.argmax(votes)) if votes.max() > N_PLAYERS / 2 else None
    if accused == s:
        return 2 if early else 3
    return 4 if int(np.argmax(location_belief(j, s))) == n else 5


def aggregate_gains(events: list[Event], spy: int) -> list[tuple[bool, float, float]]:
    """Per player who spoke: (is the spy, KL of the final public location belief from the
    one recomputed without its claims, the same for the public spy belief).

    Each claim's likelihood vector is the spec's, read off a one-step Sleuth update from
    the uniform prior (posterior proportional to likelihood); a belief without player k's
    claims is the prior updated by the product over the other claims (Belief.update)."""
    prior = Belief.prior(GAME)
    loglik = np.full((len(events), prior.size), -np.inf)
    for row, e in zip(loglik, events, strict=True):
        one = apply_event(prior, e)
        row[np.searchsorted(prior.index, one.index)] = np.log(one.probabilities())
    speakers = np.array([e.args["speaker"] for e in events])

    def posterior(keep: np.ndarray) -> np.ndarray:
        total = loglik[keep].sum(axis=0)
        return joint(prior.update(np.exp(total - total.max()), "the claims kept"))

    final = posterior(np.ones(len(events), dtype=bool))
    out = []
    for k in sorted(set(speakers.tolist())):
        without = posterior(speakers != k)
        out.append((k == spy, kl_bits(final.sum(axis=1), without.sum(axis=1)),
                    kl_bits(final.sum(axis=0), without.sum(axis=0))))
    return out


# ----------------------------------------------------------------------------- many games

def play_block(seeds: list[np.random.SeedSequence], rounds: int, consensus: float,
               sample: int) -> dict[str, np.ndarray]:
    """Counts over a block of games, for every mix (the same seeds for each)."""
    t_max = rounds * N_PLAYERS
    m = len(MIXES)
    out = {"outcome": np.zeros((m, len(seeds)), dtype=np.int8),
           "named_right": np.zeros((m, len(seeds)), dtype=bool), "turns": np.zeros(m),
           "ig": np.zeros((m, t_max, 2)), "ig_n": np.zeros((m, t_max, 2)),
           "dpn": np.zeros((m, 2)),
           "lam": np.zeros(m), "lam_n": np.zeros(m),
           "gain": np.zeros((m, 2, 2)), "gain_n": np.zeros((m, 2))}
    for g, seed in enumerate(seeds):
        for k, mix in enumerate(MIXES):
            res = play_game(seed, mix, rounds, consensus, record=g < sample)
            out["outcome"][k, g] = res["outcome"]
            out["named_right"][k, g] = res["named_right"]
            out["turns"][k] += res["turns"]
            for t, is_spy, gain, dpn in res["ig"]:
                out["ig"][k, t, int(is_spy)] += gain
                out["ig_n"][k, t, int(is_spy)] += 1
                out["dpn"][k, int(is_spy)] += dpn
            out["lam"][k] += sum(res["lambdas"])
            out["lam_n"][k] += len(res["lambdas"])
            if g < sample:
                for is_spy, loc_gain, spy_gain in aggregate_gains(res["events"], res["spy"]):
                    out["gain"][k, int(is_spy)] += (loc_gain, spy_gain)
                    out["gain_n"][k, int(is_spy)] += 1
    return out


def _play_part(part: tuple[list[np.random.SeedSequence], int], rounds: int,
               consensus: float) -> dict[str, np.ndarray]:
    return play_block(part[0], rounds, consensus, part[1])


def play(games: int, seed: int, workers: int, rounds: int, consensus: float,
         sample: int) -> dict[str, np.ndarray]:
    """The games in `workers` processes, each a block of games with their own spawned seeds
    (the result depends on the seed only, not on the number of workers or on timing)."""
    seeds = np.random.SeedSequence(seed).spawn(games)
    blocks = [seeds[k::workers] for k in range(workers)]
    samples = [sum(1 for g in range(k, sample, workers)) for k in range(workers)]
    parts = pool_map(partial(_play_part, rounds=rounds, consensus=consensus),
                     list(zip(blocks, samples, strict=True)), workers, "blocks of games")
    per_game = ("outcome", "named_right")
    total = {key: sum(part[key] for part in parts) for key in parts[0] if key not in per_game}
    for key in per_game:  # back in the order of the seeds
        total[key] = np.zeros((len(MIXES), games), dtype=parts[0][key].dtype)
        for k, part in enumerate(parts):
            total[key][:, k::workers] = part[key]
    return total


# ----------------------------------------------------------------------------- output

def win_table(out: dict[str, np.ndarray], games: int, spy_win: np.ndarray) -> None:
    print(f"{'mix':<30} {'spy wins':>8}  {'95 % CI':<15} {'vs Flat (paired)':<17} "
          f"{'turns':>5}  {'mean lambda':>11}")
    for k, mix in enumerate(MIXES):
        wins = spy_win[k]
        lo, hi = wilson(float(wins.sum()), games)
        diff = wins.astype(float) - spy_win[0]
        half = 1.96 * diff.std(ddof=1) / math.sqrt(games) if k else 0.0
        paired = f"{diff.mean():+.3f} ± {half:.3f}" if k else "-"
        lam = out["lam"][k] / max(out["lam_n"][k], 1)
        print(f"{mix.name:<30} {wins.mean():>8.3f}  [{lo:.3f}, {hi:.3f}]  {paired:<17} "
              f"{out['turns'][k] / games:>5.2f}  {lam:>11.3f}")


def report(out: dict[str, np.ndarray], games: int, rounds: int, sample: int) -> None:
    print("win rates: the spy wins when it guesses the location right (stopping the game, "
          "or after escaping the vote)")
    win_table(out, games, np.isin(out["outcome"], SPY_WINS))
    print("\nstricter scoring of the same games: an escaped spy (innocent accused, or no "
          "majority) wins outright")
    win_table(out, games, np.isin(out["outcome"], STRICT_SPY_WINS))
    print("\nthe Spyfall notes' rule, same games: a spy voted out still wins if it names the "
          "location; an escaped spy wins outright")
    win_table(out, games, np.isin(out["outcome"], STRICT_SPY_WINS)
              | (np.isin(out["outcome"], (2, 3)) & out["named_right"]))
    print("\noutcomes (fraction of games)")
    print(f"{'mix':<30} " + "  ".join(f"{o:>{max(len(o), 6)}}" for o in OUTCOMES))
    for k, mix in enumerate(MIXES):
        counts = np.bincount(out["outcome"][k], minlength=len(OUTCOMES)) / games
        print(f"{mix.name:<30} " + "  ".join(
            f"{counts[i]:>{max(len(o), 6)}.3f}" for i, o in enumerate(OUTCOMES)))
    print("\nturn-wise information gain IG_t = KL(P_t || P_t-1), public location belief, "
          "bits (mean; games still running)")
    header = "  ".join(f"{m.name.split(',')[0][:7]:>7} spy   non-spy  games" for m in MIXES[:2])
    print(f"{'turn':>4}  {header}")
    for t in range(rounds * N_PLAYERS):
        cells = []
        for k in range(2):
            ig, n = out["ig"][k, t], out["ig_n"][k, t]
            mean = [f"{ig[i] / n[i]:.3f}" if n[i] else "-" for i in (1, 0)]
            cells.append(f"{mean[0]:>11} {mean[1]:>8} {int(n.sum()):>6}")
        print(f"{t + 1:>4}  " + "  ".join(cells))
    print("mean per turn: IG (bits), and the change of P(true location)")
    for k, mix in enumerate(MIXES):
        ig, n, dpn = out["ig"][k].sum(axis=0), out["ig_n"][k].sum(axis=0), out["dpn"][k]
        print(f"  {mix.name:<30} spy speaker {ig[1] / n[1]:.3f} ({dpn[1] / n[1]:+.4f}), "
              f"non-spy speaker {ig[0] / n[0]:.3f} ({dpn[0] / n[0]:+.4f})")
    print(f"\naggregate gain per player (first {sample} games): KL(final || without the "
          "player's claims), bits")
    print(f"{'mix':<30} {'spy: location':>13} {'spy: spy':>9} {'non-spy: location':>17} "
          f"{'non-spy: spy':>12}")
    for k, mix in enumerate(MIXES):
        g, n = out["gain"][k], out["gain_n"][k]
        print(f"{mix.name:<30} {g[1, 0] / n[1]:>13.3f} {g[1, 1] / n[1]:>9.3f} "
              f"{g[0, 0] / n[0]:>17.3f} {g[0, 1] / n[0]:>12.3f}")


def plot_sample(seed: int, rounds: int, consensus: float, path_beliefs: Path) -> str:
    """The first seeded game (Flat) that lasts at least one round: its public beliefs."""
    g = 0
    for g, game_seed in enumerate(np.random.SeedSequence(seed).spawn(1000)):  # noqa: B007
        res = play_game(game_seed, MIXES[0], rounds, consensus, record=True)
        if res["turns"] >= N_PLAYERS:
            break
    trace = np.array(res["trace"])
    with figure(path_beliefs, (11, 4), ncols=2, sharex=True) as (fig, axes):
        draw_sample(fig, axes, g, res, trace)
    outcome = OUTCOMES[res["outcome"]]
    lines = [f"sample game {g} (Flat): location {res['location']}, spy {res['spy']}, "
             f"{res['turns']} turns, {outcome}"]
    lines.append("turn speaker  top location (p)  P(true location)  top suspect (p)  "
                 "P(true spy)")
    for t in range(1, len(trace)):
        loc, spy = trace[t].sum(axis=1), trace[t].sum(axis=0)
        lines.append(f"{t:>4} {(t - 1) % N_PLAYERS:>7}  {int(loc.argmax()):>6} ({loc.max():.3f})"
                     f"  {loc[res['location']]:>16.3f}  {int(spy.argmax()):>5} ({spy.max():.3f})"
                     f"  {spy[res['spy']]:>11.3f}")
    return "\n".join(lines)


def draw_sample(fig, axes, g: int, res: dict, trace: np.ndarray) -> None:
    draw_belief_bands(axes, trace.sum(axis=2), trace.sum(axis=1), res["location"], res["spy"],
                      ("public location belief", "public spy belief"))
    fig.suptitle(f"Spyfall sample game {g} (Flat): location {res['location']}, spy "
                 f"{res['spy']}, {res['turns']} turns, {OUTCOMES[res['outcome']]}")


def plot_ig(out: dict[str, np.ndarray], rounds: int, path: Path) -> None:
    with figure(path, (7, 4)) as (_, ax):
        draw_ig(ax, out, rounds)


def draw_ig(ax, out: dict[str, np.ndarray], rounds: int) -> None:
    turns = np.arange(1, rounds * N_PLAYERS + 1)
    for k, style in ((0, "-"), (1, "--")):
        for i, label in ((0, "non-spy speaker"), (1, "spy speaker")):
            n = out["ig_n"][k, :, i]
            mean = np.divide(out["ig"][k, :, i], n, out=np.full(len(n), np.nan), where=n >= 5)
            ax.plot(turns, mean, style, marker="o" if i else "s", ms=4,
                    label=f"{MIXES[k].name}: {label}")
    ax.set_xlabel("turn")
    ax.set_ylabel("mean IG_t = KL(P_t || P_t-1), bits")
    ax.set_title("Spyfall: information gain of the public location belief")
    ax.legend(fontsize=8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=100,
                        help="games (of each mix) whose aggregate gains are computed")
    parser.add_argument("--consensus", type=float, default=0.5)
    parser.add_argument("--dynamic", type=float, nargs=2, metavar=("LO", "HI"),
                        help="the Dynamic speaker's lambda_t range "
                        "(default lambda/2, min(0.95, 5 lambda/2))")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="override a param of the spec (locations, players, beta, lambda)")
    output_args(parser)
    args = parser.parse_args()
    overrides = {}
    for item in args.set:
        name, value = item.split("=", 1)
        overrides[name] = int(value) if name in ("locations", "players") else float(value)
    configure(overrides, tuple(args.dynamic) if args.dynamic else None)
    start = time.perf_counter()
    sample = min(args.sample, args.games)
    out = play(args.games, args.seed, args.workers, args.rounds, args.consensus, sample)
    print(f"{args.games} seeded games per mix (seed {args.seed}): {N_LOC} locations, "
          f"{N_PLAYERS} players, beta {BETA}, lambda {LAMBDA} (Dynamic: {DYN_LO}..{DYN_HI}), "
          f"{args.rounds} rounds, spy guesses above {SPY_GUESS}, consensus {args.consensus}")
    print()
    report(out, args.games, args.rounds, sample)
    results = plot_dir(args)
    if results:
        print()
        print(plot_sample(args.seed, args.rounds, args.consensus,
                          results / "spyfall-joint-beliefs.png"))
        plot_ig(out, args.rounds, results / "spyfall-joint-ig.png")
        print(f"plots: {shown(results / 'spyfall-joint-beliefs.png')}, "
              f"{shown(results / 'spyfall-joint-ig.png')}")
    print(f"[{time.perf_counter() - start:.0f} s]")


if __name__ == "__main__":
    interruptible(main)

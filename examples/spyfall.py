"""Spyfall as the Spyfall notes play it: claims, accusations, the end game and the vote.

A game has a location N (among n) and a spy S (among s players), drawn
uniformly from the game's seed. Players speak in turn (0, 1, ..., round robin)
for at most `--rounds` rounds. At turn t the speaker j publishes a claim
C_t in the simplex over locations and an accusation A_t in the simplex over players.

Claims (specs/spyfall.yaml; beta, lambda its params, the notes' 1 and 0.5):
  non-spy: C ~ Dirichlet(beta_t gamma_honest), gamma_honest = (1 - lambda_t) 1 + lambda_t e_N
  spy:     C ~ Dirichlet(beta gamma_spy),      gamma_spy = (1 - lambda) 1 + lambda P_spy
where P_spy is the spy's private location belief Q_spy (the notes centre a speaker's claim
on its private belief P_{j,t}; `--spy decoy`: the public P_{t-1}, the previous version).
Flat: lambda_t = lambda, beta_t = beta. The listeners always read claims with the
flat lambda and beta (they do not know a speaker's schedule).

Public beliefs. The location belief P_t is a Sleuth Belief over the spec's
secret, updated by the spec's `claim` likelihood, the mixture
S_{t-1}(j) Dir(C; beta gamma_spy) + (1 - S_{t-1}(j)) Dir(C; beta gamma_honest(l)).
The spy belief S_t is updated by the accusation only (the notes' rule):
  S_t = p e_j + (1 - p) A_t,   p = S_{t-1}(j).
With probability p the speaker is the spy (and its accusation a lie);
otherwise its accusation is an honest belief, taken at its word.

Private beliefs. Non-spy i's spy belief B_i starts uniform over the others
(every prior puts the spy among the others). After another player j's claim
it applies Bayes' rule, knowing N: the likelihood is Dir(C; beta gamma_spy) if j is
the spy, Dir(C; beta gamma_honest(N)) if not (the spec read at suspicion 1 and 0).
After j's accusation it applies the notes' private rule
  B_i <- B_i(j) e_j + (1 - B_i(j)) A_bar,  A_bar = A_t with coordinate i zeroed,
renormalised (uniform over the others but i when nothing is left). The spy's location belief Q
is the spec read with suspicion 0 on every other speaker (it knows they are honest),
skipping its own claims. Accusations reveal the private spy belief: every player, spy
and non-spy, accuses with its own B_j (the notes, `--spy notes`, the default). The spy
keeps a B_spy as a non-spy does: uniform over the others at first, the same accusation
rule, and Bayes' rule on claims with the honest density averaged over its own location
belief Q_spy (a non-spy's Q is e_N, so this is the non-spy's rule; the notes do not say
how a player who does not know N weighs a claim, so the average is our reading).
`--spy decoy`, the previous version: the spy keeps no B_spy, accuses with a decoy (the
public S with itself removed and renormalised) and centres its claims on the public P_{t-1}.
A published claim's entries are floored at 1e-9 and renormalised (a Dirichlet
sample with a small alpha underflows to 0, whose density is not a number).

End game, checked after every turn, the spy first (the notes' automatic end game):
1. the spy's top location has Q > 0.9: it names that location, and wins if it is N
   (the spy naming the location on its own initiative);
2. every non-spy has the same top suspect (the unique maximum of B_i): the vote;
3. after the last round: the vote (our rule where the notes are silent): each non-spy
   votes its top suspect, the spy the top of its B_spy (decoy: of its decoy), ties broken
   at random; a player
   with a strict majority is voted out, else nobody.
The vote (the notes' rule): the non-spies win only if they vote out the spy and the
spy then fails to name the location (its top Q). If the spy names it, or if an innocent
(or nobody) is voted out, the spy wins. The notes' code records every spy win that
follows a vote as a "tie"; it is reported apart from rule 1. The same games are also
scored by the previous version's rule (`previous rule`): a caught spy simply loses, and
a spy who escapes the vote still has to name the location.

Dynamic hide-reveal (a non-spy speaker j; the schedules and their parameters):
  lambda_t = lambda + RAISE (1 - lambda)   when j is the public top suspect
                                            (the unique maximum of S_{t-1}), else lambda;
  beta_t   = beta (1 - LOWER c_t),  c_t = max(0, (P_{t-1}(N) - 1/n) / (1 - 1/n)),
the concentration of the public location belief on the true location (0 at uniform,
1 when the table is sure). RAISE = LOWER = 0.5 (`--raise`, `--lower`): reveal to clear
yourself when suspected, hide (a noisier claim) when the table is close to the location.
`Dynamic (previous rule)` is the earlier example's rule: lambda_t = LO + (HI - LO) K,
K = sum_k B_j(k) Q_k(N) (how much the speaker believes the spy already knows N; Q_k the
location belief k would hold if it were the spy), LO = lambda/2, HI = min(0.95, 5 lambda/2).

Statistics, every mix on the same seeds (common random numbers): spy win rates and the
tie rate with Wilson 95 % intervals, the paired difference from Flat; the turn-wise
information gain IG_t = KL(P_t || P_{t-1}) of the public location belief, in bits, per turn,
split by speaker; each player's aggregate gain: KL(P_T || P_T^-k) and KL(S_T || S_T^-k),
where P^-k and S^-k are running public beliefs updated with every message but player k's.

    python examples/spyfall.py [--games 2000] [--seed 0] [--workers 2] [--rounds 3]
        [--variant notes|tuned] [--spy notes|decoy] [--raise 0.5] [--lower 0.5]
        [--set NAME=VALUE]
        [--plot DIR | --write-docs]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from outputs import interruptible, output_args, plot_dir, pool_map, shown
from spyfall_report import plot_ig, plot_sample, report

from sleuth.compiler import load_game
from sleuth.compiler.likelihood import answer_likelihood
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "spyfall.yaml"
FLOOR = 1e-9  # the smallest entry of a published claim
SPY_GUESS = 0.9  # the spy ends the game above this top location probability
VARIANTS = {"notes": {"beta": 1.0, "lambda": 0.5},  # the notes' parameters (the default)
            "tuned": {"beta": 10.0, "lambda": 0.2}}  # the previous version's default
OUTCOMES = ["spy named the location", "spy named a wrong location",
            "caught, named the location", "caught, named a wrong one",
            "innocent voted out", "nobody voted out"]
SPY_WINS = (0, 2, 4, 5)  # the notes' rule
TIES = (2, 4, 5)  # every spy win that follows a vote


@dataclass(frozen=True)
class Setup:
    """The game's size and parameters, and the Dynamic schedules' parameters."""

    n: int
    s: int
    beta: float
    lam: float
    rounds: int = 3
    raise_: float = 0.5
    lower: float = 0.5
    spy: str = "notes"  # how the spy plays: "notes" (the notes) or "decoy" (the previous one)

    @property
    def knowledge_range(self) -> tuple[float, float]:
        return self.lam / 2, min(0.95, 2.5 * self.lam)


def flat(setup: Setup, view: dict, j: int) -> tuple[float, float]:
    return setup.lam, setup.beta


def dynamic(setup: Setup, view: dict, j: int) -> tuple[float, float]:
    """The notes' Dynamic hide-reveal: (lambda_t, beta_t) of non-spy speaker j."""
    suspect = top(view["S"])
    lam = setup.lam + setup.raise_ * (1 - setup.lam) if suspect == j else setup.lam
    n = setup.n
    c = max(0.0, (view["P"][view["N"]] - 1 / n) / (1 - 1 / n)) if n > 1 else 1.0
    return lam, setup.beta * (1 - setup.lower * c)


def knowledge(setup: Setup, view: dict, j: int) -> tuple[float, float]:
    """The previous version's Dynamic rule: reveal as the spy probably knows N already."""
    lo, hi = setup.knowledge_range
    k = float(view["B"][j] @ view["Q"][:, view["N"]])
    return lo + (hi - lo) * k, setup.beta


MIXES = {"Flat": flat, "Dynamic": dynamic, "Dynamic (previous rule)": knowledge}


# ----------------------------------------------------------------------------- the notes' rules

def normalised(v: np.ndarray) -> np.ndarray:
    total = v.sum()
    return v / total if total > 0 else np.full(len(v), 1.0 / len(v))


def others(s: int, i: int) -> np.ndarray:
    """Uniform over the players but i."""
    v = np.ones(s)
    v[i] = 0.0
    return v / v.sum() if s > 1 else v


def public_spy_update(S: np.ndarray, j: int, accusation: np.ndarray) -> np.ndarray:
    """S_t = p e_j + (1 - p) A_t, p = S_{t-1}(j)."""
    p = S[j]
    out = (1 - p) * accusation
    out[j] += p
    return out


def private_spy_update(B: np.ndarray, i: int, j: int, accusation: np.ndarray) -> np.ndarray:
    """B_i <- B_i(j) e_j + (1 - B_i(j)) A_bar, A_bar = A with coordinate i zeroed, renormalised."""
    bar = accusation.copy()
    bar[i] = 0.0
    bar = bar / bar.sum() if bar.sum() > 0 else others(len(B), i)
    q = B[j]
    out = (1 - q) * bar
    out[j] += q
    return out


def claim_update(B: np.ndarray, j: int, spy_density: float, honest_density: float) -> np.ndarray:
    """Bayes' rule on 'who is the spy' after j's claim, for a player who knows N."""
    w = np.full(len(B), honest_density)
    w[j] = spy_density
    post = B * w
    return post / post.sum() if post.sum() > 0 else B


def top(v: np.ndarray) -> int | None:
    """The unique maximum (None on a tie)."""
    best = np.flatnonzero(v >= v.max() * (1 - 1e-12))
    return int(best[0]) if len(best) == 1 else None


def kl_bits(p: np.ndarray, q: np.ndarray) -> float:
    keep = p > 0
    return max(0.0, float((p[keep] * np.log2(p[keep] / np.maximum(q[keep], 1e-300))).sum()))


def message(claim: np.ndarray) -> np.ndarray:
    """A claim as published: entries floored at FLOOR and renormalised (a Dirichlet sample
    with a small alpha can underflow to 0, and no message is that precise)."""
    c = np.maximum(claim, FLOOR)
    return c / c.sum()


def claim_event(j: int, claim: np.ndarray, public: np.ndarray, suspicion: float) -> Event:
    return Event("claim", {"speaker": j},
                 answer={"claim": tuple(float(x) for x in claim),
                         "public": tuple(float(x) for x in public),
                         "suspicion": float(suspicion)})


def densities(game, j: int, claim: np.ndarray, public: np.ndarray) -> tuple[np.ndarray, float]:
    """(Dir(C; beta gamma_honest(l)) for every location l, Dir(C; beta gamma_spy)): the spec's
    likelihood read at suspicion 0 and 1."""
    everywhere = np.arange(game.hypotheses.size, dtype=np.int64)
    honest = answer_likelihood(game, "claim", {"speaker": j},
                               claim_event(j, claim, public, 0.0).answer, everywhere)
    spy = answer_likelihood(game, "claim", {"speaker": j},
                            claim_event(j, claim, public, 1.0).answer, everywhere)
    return np.asarray(honest, dtype=float), float(spy[0])


# ----------------------------------------------------------------------------- one game

def play_game(game, setup: Setup, seed: np.random.SeedSequence, schedule,
              record: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    n, s = setup.n, setup.s
    N, spy = int(rng.integers(n)), int(rng.integers(s))
    P = Belief.prior(game)
    S = np.full(s, 1.0 / s)
    B = np.array([others(s, i) for i in range(s)])  # private spy beliefs (decoy: the spy's unused)
    Q = np.full((s, n), 1.0 / n)  # the location belief of each player were it the spy
    P_without, S_without = np.full((s, n), 1.0 / n), np.tile(S, (s, 1))
    ig, params, messages, trace = [], [], [], [(location_marginal(P), S.copy())]
    outcome = end(setup, spy, N, Q, B)
    t = 0
    while outcome is None and t < setup.rounds * s:
        j = t % s
        before = location_marginal(P)
        if j == spy:
            lam, beta = setup.lam, setup.beta
            mean = Q[spy] if setup.spy == "notes" else before
        else:
            lam, beta = schedule(setup, {"P": before, "S": S, "B": B, "Q": Q, "N": N}, j)
            mean = np.eye(n)[N]
            params.append((lam, beta))
        claim = message(rng.dirichlet(beta * ((1 - lam) + lam * mean)))
        P = apply_event(P, claim_event(j, claim, before, S[j]))
        honest, spy_density = densities(game, j, claim, before)
        spy_honest = float(Q[spy] @ honest)  # the spy's honest density, by its belief before C
        after = location_marginal(P)
        ig.append((t, j == spy, kl_bits(after, before), after[N] - before[N]))
        for k in range(s):
            if k != j:
                Q[k] = normalised(Q[k] * honest)
                w = S_without[k, j]
                P_without[k] = normalised(P_without[k] * (w * spy_density + (1 - w) * honest))
        for i in private_holders(setup, j, spy):
            B[i] = claim_update(B[i], j, spy_density, honest[N] if i != spy else spy_honest)
        accusation = (spy_accusation(setup, S, B, spy) if j == spy else B[j]).copy()
        S = public_spy_update(S, j, accusation)
        for k in range(s):
            if k != j:
                S_without[k] = public_spy_update(S_without[k], j, accusation)
        for i in private_holders(setup, j, spy):
            B[i] = private_spy_update(B[i], i, j, accusation)
        trace.append((after, S.copy()))
        messages.append((j, claim, before, accusation))
        t += 1
        outcome = end(setup, spy, N, Q, B)
    named_right = int(np.argmax(Q[spy])) == N
    if outcome is None:
        outcome = vote(rng, setup, spy, N, Q, B, S)
    final = location_marginal(P)
    gains = [(k == spy, kl_bits(final, P_without[k]), kl_bits(S, S_without[k]))
             for k in range(s) if k < t]
    out = {"outcome": outcome, "turns": t, "ig": ig, "params": params, "gains": gains,
           "named_right": named_right}
    if record:
        out.update(trace=trace, messages=messages, location=N, spy=spy)
    return out


def location_marginal(belief: Belief) -> np.ndarray:
    out = np.zeros(int(belief.game.hypotheses.size))
    out[belief.index] = belief.probabilities()
    return out


def private_holders(setup: Setup, j: int, spy: int) -> list[int]:
    """The players who update a private spy belief B_i after speaker j's message: everyone
    but j (the notes: the spy too), or every non-spy but j (`decoy`: the spy keeps none)."""
    return [i for i in range(setup.s) if i != j and (i != spy or setup.spy == "notes")]


def spy_accusation(setup: Setup, S: np.ndarray, B: np.ndarray, spy: int) -> np.ndarray:
    """What the spy reveals: its private B_spy (the notes), or the decoy."""
    return B[spy] if setup.spy == "notes" else decoy(S, spy)


def decoy(S: np.ndarray, spy: int) -> np.ndarray:
    """The spy's accusation: the public spy belief with itself removed, renormalised."""
    v = S.copy()
    v[spy] = 0.0
    return v / v.sum() if v.sum() > 0 else others(len(S), spy)


def end(setup: Setup, spy: int, N: int, Q: np.ndarray, B: np.ndarray) -> int | None:
    """The automatic end game: the spy names a location, or the table votes (None: go on)."""
    if Q[spy].max() > SPY_GUESS:
        return 0 if int(np.argmax(Q[spy])) == N else 1
    suspects = {top(B[i]) for i in range(setup.s) if i != spy}
    if len(suspects) == 1 and None not in suspects:
        return voted_out(suspects.pop(), spy, N, Q)
    return None


def voted_out(accused: int | None, spy: int, N: int, Q: np.ndarray) -> int:
    if accused is None:
        return 5
    if accused != spy:
        return 4
    return 2 if int(np.argmax(Q[spy])) == N else 3


def vote(rng, setup: Setup, spy: int, N: int, Q: np.ndarray, B: np.ndarray,
         S: np.ndarray) -> int:
    """The vote at the time limit: a strict majority votes a player out, or nobody."""
    votes = np.zeros(setup.s, dtype=int)
    for i in range(setup.s):
        v = spy_accusation(setup, S, B, spy) if i == spy else B[i]
        votes[int(rng.choice(np.flatnonzero(v >= v.max() * (1 - 1e-12))))] += 1
    accused = int(np.argmax(votes)) if votes.max() > setup.s / 2 else None
    return voted_out(accused, spy, N, Q)


# ----------------------------------------------------------------------------- many games

def play_block(seeds: list[np.random.SeedSequence], setup: Setup) -> dict[str, np.ndarray]:
    """Sums over a block of games, for every mix (the same seeds for each)."""
    game = load_game(SPEC, {"locations": setup.n, "players": setup.s, "beta": setup.beta,
                            "lambda": setup.lam})
    t_max, m = setup.rounds * setup.s, len(MIXES)
    out = {"outcome": np.zeros((m, len(seeds)), dtype=np.int8),
           "named_right": np.zeros((m, len(seeds)), dtype=bool), "turns": np.zeros(m),
           "ig": np.zeros((m, t_max, 2)), "ig2": np.zeros((m, t_max, 2)),
           "ig_n": np.zeros((m, t_max, 2)), "dpn": np.zeros((m, 2)),
           "params": np.zeros((m, 2)), "params_n": np.zeros(m),
           "gain": np.zeros((m, 2, 2)), "gain2": np.zeros((m, 2, 2)), "gain_n": np.zeros((m, 2))}
    for g, seed in enumerate(seeds):
        for k, schedule in enumerate(MIXES.values()):
            res = play_game(game, setup, seed, schedule)
            out["outcome"][k, g] = res["outcome"]
            out["named_right"][k, g] = res["named_right"]
            out["turns"][k] += res["turns"]
            for t, is_spy, gain, dpn in res["ig"]:
                out["ig"][k, t, int(is_spy)] += gain
                out["ig2"][k, t, int(is_spy)] += gain * gain
                out["ig_n"][k, t, int(is_spy)] += 1
                out["dpn"][k, int(is_spy)] += dpn
            for lam, beta in res["params"]:
                out["params"][k] += (lam, beta)
                out["params_n"][k] += 1
            for is_spy, loc_gain, spy_gain in res["gains"]:
                out["gain"][k, int(is_spy)] += (loc_gain, spy_gain)
                out["gain2"][k, int(is_spy)] += (loc_gain ** 2, spy_gain ** 2)
                out["gain_n"][k, int(is_spy)] += 1
    return out


def play(setup: Setup, games: int, seed: int, workers: int) -> dict[str, np.ndarray]:
    """The games in `workers` processes; each game has its own spawned seed, so the result
    depends on the seed only."""
    seeds = np.random.SeedSequence(seed).spawn(games)
    parts = pool_map(partial(play_block, setup=setup),
                     [seeds[k::workers] for k in range(workers)], workers, "blocks of games")
    total = {key: sum(part[key] for part in parts) for key in parts[0]
             if key not in ("outcome", "named_right")}
    for key in ("outcome", "named_right"):  # back in the order of the seeds
        total[key] = np.zeros((len(MIXES), games), dtype=parts[0][key].dtype)
        for k, part in enumerate(parts):
            total[key][:, k::workers] = part[key]
    return total


def sample_game(setup: Setup, seed: int) -> tuple[int, dict]:
    """The first seeded game (Flat) that lasts at least one round."""
    game = load_game(SPEC, {"locations": setup.n, "players": setup.s, "beta": setup.beta,
                            "lambda": setup.lam})
    for g, game_seed in enumerate(np.random.SeedSequence(seed).spawn(200)):  # noqa: B007
        res = play_game(game, setup, game_seed, flat, record=True)
        if res["turns"] >= setup.s:
            break
    return g, res


def parse_setup(args: argparse.Namespace) -> Setup:
    params = dict(VARIANTS[args.variant])
    for item in args.set:
        name, _, value = item.partition("=")
        if name not in ("locations", "players", "beta", "lambda"):
            raise SystemExit(f"error: --set {item}: the params are locations, players, beta, "
                             "lambda")
        try:
            params[name] = int(value) if name in ("locations", "players") else float(value)
        except ValueError:
            raise SystemExit(f"error: --set {item}: not a number") from None
    load_game(SPEC, params)  # the spec's own checks first (a clean error, exit status 1)
    setup = Setup(n=int(params.get("locations", 8)), s=int(params.get("players", 5)),
                  beta=params["beta"], lam=params["lambda"], rounds=args.rounds,
                  raise_=args.raise_, lower=args.lower, spy=args.spy)
    problems = [why for bad, why in (
        (setup.n < 1, "locations must be at least 1"),
        (setup.s < 2, "players must be at least 2 (a spy and someone to find it)"),
        (not 0 <= setup.lam < 1, "lambda must lie in [0, 1) (alpha must stay positive)"),
        (not setup.beta > 0, "beta must be positive"),
        (not 0 <= setup.raise_ < 1, "--raise must lie in [0, 1)"),
        (not 0 <= setup.lower < 1, "--lower must lie in [0, 1)"),
        (setup.rounds < 1, "--rounds must be at least 1")) if bad]
    if problems:
        raise SystemExit("error: " + "; ".join(problems))
    return setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="notes",
                        help="notes: beta 1, lambda 0.5 (the notes); tuned: beta 10, "
                        "lambda 0.2 (the previous default)")
    parser.add_argument("--spy", choices=("notes", "decoy"), default="notes",
                        help="notes: the spy keeps a private spy belief, accuses with it and "
                        "centres its claims on its own location belief (the notes); decoy: it "
                        "accuses with the public S less itself and centres its claims on the "
                        "public P (the previous version)")
    parser.add_argument("--raise", dest="raise_", type=float, default=0.5,
                        help="Dynamic: lambda_t = lambda + RAISE (1 - lambda) for the top suspect")
    parser.add_argument("--lower", type=float, default=0.5,
                        help="Dynamic: beta_t = beta (1 - LOWER c_t)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="override a param of the spec (locations, players, beta, lambda)")
    output_args(parser)
    args = parser.parse_args()
    setup = parse_setup(args)
    if args.games < 1 or args.workers < 1:
        raise SystemExit("error: --games and --workers must be at least 1")
    start = time.perf_counter()
    out = play(setup, args.games, args.seed, min(args.workers, args.games))
    print(f"{args.games} seeded games per mix (seed {args.seed}, variant {args.variant}, "
          f"spy {setup.spy}): "
          f"{setup.n} locations, {setup.s} players, beta {setup.beta:g}, lambda {setup.lam:g}, "
          f"{setup.rounds} rounds, spy names the location above {SPY_GUESS}; Dynamic: raise "
          f"{setup.raise_:g}, lower {setup.lower:g}")
    print()
    report(out, args.games, setup, list(MIXES), OUTCOMES, SPY_WINS, TIES)
    results = plot_dir(args)
    if results:
        g, res = sample_game(setup, args.seed)
        print()
        print(plot_sample(g, res, setup, OUTCOMES, results / "spyfall-beliefs.png"))
        plot_ig(out, setup, list(MIXES), results / "spyfall-ig.png")
        print(f"plots: {shown(results / 'spyfall-beliefs.png')}, "
              f"{shown(results / 'spyfall-ig.png')}")
    print(f"[{time.perf_counter() - start:.0f} s]")


if __name__ == "__main__":
    interruptible(main)

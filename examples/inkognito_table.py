"""Inkognito at the whole table: one joint model against three one-opponent models.

Part 1: two ambassador answers from the opponent on your left pin down its
identity; the joint model (specs/inkognito-table.yaml, where all identities
differ) moves its belief about the two other opponents at once, the
one-opponent model (specs/inkognito.yaml) of an opponent who was not asked
cannot.

Part 2: seeded games. A table is dealt at random; you ask player questions
about identity, round the table (left, across, right, left, ...); each
opponent answers uniformly among its truthful answers of that shape. The
same answers update the joint model and the three independent models (each
only with its own opponent's answers); we count the questions until every
opponent's most likely identity has posterior >= 0.95, under each.

Part 3: a biased opponent. The article's opponents pick uniformly among their
truthful answers; the spec's `candor` weighs an answer showing two true cards
(candor > 1: candid, < 1: cagey; 1 is the article). Every opponent answers
with the true candor c (0.25, 1 or 4); the table is read by the article's
model (candor fixed at 1) and by one that learns it (candor a hidden param,
uniform over 0.25, 1, 4, shared by the table). We count the questions until
every identity has posterior >= 0.95, how often those identities are right,
and the questions until the learning model gives the true candor >= 0.95.

    python examples/inkognito_table.py [--games 1000] [--biased 300] [--seed 0]
        [--plot DIR | --write-docs]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from outputs import figure, interruptible, output_args, plot_dir, shown

from sleuth.compiler import load_game
from sleuth.solver.evaluation.transcript import outcome
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.infoset.queries import Query

ROOT = Path(__file__).resolve().parent.parent
TABLE = load_game(ROOT / "specs" / "inkognito-table.yaml")
SINGLE = load_game(ROOT / "specs" / "inkognito.yaml")
CANDORS = (0.25, 1.0, 4.0)  # the answering policies Part 3 plays and learns
LEARNING = load_game(ROOT / "specs" / "inkognito-table.yaml",
                     {"candor": {"hidden": list(CANDORS)}})
OPPONENTS = ["left", "across", "right"]
THRESHOLD = 0.95
MAX_QUESTIONS = 60


def identity_beliefs(joint: Belief) -> dict[str, dict[str, float]]:
    m = joint.marginals()
    return {o: m[f"identities[{o}]"] for o in OPPONENTS}


def part_one() -> None:
    joint, single = Belief.prior(TABLE), Belief.prior(SINGLE)
    print("Part 1: what one opponent reveals, the joint model spreads to the others")
    show("before any question", identity_beliefs(joint), single.marginals()["id"])
    for ids in (["Fiddlebottom", "ZsaZsa"], ["Fiddlebottom", "Bubble"]):
        answer = {"ids": ids, "bds": []}
        joint = apply_event(joint, Event("ambassador_question",
                                         {"opponent": "left", "topic": "identity"},
                                         answer=answer))
        show(f"left answers an ambassador question with {' / '.join(ids)}",
             identity_beliefs(joint), single.marginals()["id"])


def show(title: str, joint: dict[str, dict[str, float]], alone: dict[str, float]) -> None:
    print(f"  {title}:")
    for o in OPPONENTS:
        print(f"    joint, {o:<6} " + "  ".join(f"{k} {v:.3f}" for k, v in joint[o].items()))
    print("    one-opponent model of 'across' (not asked) "
          + "  ".join(f"{k} {v:.3f}" for k, v in alone.items()))


def known(dists: list[dict[str, float]]) -> bool:
    return all(max(d.values()) >= THRESHOLD for d in dists)


def one_game(rng: np.random.Generator) -> tuple[int, int]:
    """Questions until all three identities are known (>= 0.95): joint, independent."""
    secret = int(rng.integers(TABLE.hypotheses.size))
    joint = Belief.prior(TABLE)
    alone = {o: Belief.prior(SINGLE) for o in OPPONENTS}
    done: dict[str, int] = {}
    for k in range(1, MAX_QUESTIONS + 1):
        who = OPPONENTS[(k - 1) % 3]
        args = {"opponent": who, "topic": "identity"}
        query = Query("player_question", TABLE.space("player_question").rank(args))
        event = outcome(TABLE, query, args, secret, rng)
        joint = apply_event(joint, event)
        alone[who] = apply_event(alone[who], Event("player_question", {"topic": "identity"},
                                                   answer=event.answer))
        if "joint" not in done and known(list(identity_beliefs(joint).values())):
            done["joint"] = k
        if "alone" not in done and known([alone[o].marginals()["id"] for o in OPPONENTS]):
            done["alone"] = k
        if len(done) == 2:
            break
    return done.get("joint", MAX_QUESTIONS), done.get("alone", MAX_QUESTIONS)


def part_two(games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    results = np.array([one_game(rng) for _ in range(games)], dtype=float)
    joint, alone = results[:, 0], results[:, 1]
    half = 1.96 * (alone - joint).std(ddof=1) / np.sqrt(games)
    print(f"\nPart 2: {games} seeded games (seed {seed}), player questions about identity "
          f"round the table, until every identity has posterior >= {THRESHOLD}")
    print(f"  joint model        {joint.mean():.3f} questions on average (worst {joint.max():.0f})")
    print(f"  independent models {alone.mean():.3f} questions on average "
          f"(worst {alone.max():.0f})")
    print(f"  the joint model saves {(alone - joint).mean():.3f} ± {half:.3f} questions "
          f"(95 %); it is never later in {np.mean(joint <= alone):.1%} of games "
          f"[{time.perf_counter() - start:.0f} s]")
    return joint, alone


def biased_game(rng: np.random.Generator, candor: float) -> dict[str, float]:
    """One table whose opponents answer with `candor`: questions until every identity is
    known under the article's model (candor 1) and the learning one, whether each was
    right, and questions until the learning model is sure (>= 0.95) of the candor."""
    label = f"{candor:g}"
    candidates = np.flatnonzero(Belief.prior(LEARNING).values("candor")
                                == CANDORS.index(candor))
    secret = int(candidates[rng.integers(len(candidates))])
    truth = dict(zip(OPPONENTS, LEARNING.hypotheses.value(secret)["identities"], strict=True))
    beliefs = {"fixed": Belief.prior(TABLE), "learn": Belief.prior(LEARNING)}
    out: dict[str, float] = {}
    for k in range(1, MAX_QUESTIONS + 1):
        args = {"opponent": OPPONENTS[(k - 1) % 3], "topic": "identity"}
        query = Query("player_question", LEARNING.space("player_question").rank(args))
        event = outcome(LEARNING, query, args, secret, rng)
        for name, belief in beliefs.items():
            beliefs[name] = belief = apply_event(belief, event)
            if name not in out and known(list(identity_beliefs(belief).values())):
                out[name] = k
                out[f"{name} right"] = float(all(
                    max(d, key=d.get) == truth[o]
                    for o, d in identity_beliefs(belief).items()))
        if "candor" not in out and beliefs["learn"].marginals()["candor"][label] >= THRESHOLD:
            out["candor"] = k
        if len(out) == 5:
            break
    for name in ("fixed", "learn", "candor"):
        out.setdefault(name, MAX_QUESTIONS)
    for name in ("fixed right", "learn right"):
        out.setdefault(name, 0.0)
    return out


def mean_ci(rows: list[dict[str, float]], key: str) -> str:
    v = np.array([r[key] for r in rows])
    return f"{v.mean():.2f} ± {1.96 * v.std(ddof=1) / np.sqrt(len(v)):.2f}"


def part_three(games: int, seed: int) -> None:
    start = time.perf_counter()
    print(f"\nPart 3: {games} seeded tables per candor; every opponent answers with it "
          f"(two true cards weigh candor, one weighs 1); questions until every identity has "
          f"posterior >= {THRESHOLD} (cap {MAX_QUESTIONS}), and how often they are right")
    print(f"  {'candor':>6}  {'article (candor 1)':>22}  {'right':>6}  "
          f"{'learning candor':>22}  {'right':>6}  {'candor >= 0.95 after':>22}")
    for c, child in zip(CANDORS, np.random.SeedSequence(seed).spawn(len(CANDORS)),
                        strict=True):
        rng = np.random.default_rng(child)
        rows = [biased_game(rng, c) for _ in range(games)]

        right = {k: np.mean([r[f"{k} right"] for r in rows]) for k in ("fixed", "learn")}
        capped = np.mean([r["candor"] >= MAX_QUESTIONS for r in rows])
        print(f"  {c:>6g}  {mean_ci(rows, 'fixed'):>22}  {right['fixed']:>6.3f}  "
              f"{mean_ci(rows, 'learn'):>22}  {right['learn']:>6.3f}  "
              f"{mean_ci(rows, 'candor'):>14} ({capped:.0%} capped)")
    print(f"  [{time.perf_counter() - start:.0f} s]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--biased", type=int, default=300,
                        help="tables per candor in Part 3")
    parser.add_argument("--seed", type=int, default=0)
    output_args(parser)
    args = parser.parse_args()
    if args.games < 1 or args.biased < 2:
        raise SystemExit("error: --games must be at least 1 and --biased at least 2")
    part_one()
    joint, alone = part_two(args.games, args.seed)
    part_three(args.biased, args.seed)
    folder = plot_dir(args)
    if folder:
        with figure(folder / "inkognito-table.png") as (_, ax):
            draw_histogram(ax, joint, alone)
        print(f"  histogram drawn in {shown(folder / 'inkognito-table.png')}")


def draw_histogram(ax, joint: np.ndarray, alone: np.ndarray) -> None:
    bins = np.arange(0.5, max(joint.max(), alone.max()) + 1.5)
    ax.hist(joint, bins, alpha=0.7, label=f"joint model (mean {joint.mean():.2f})")
    ax.hist(alone, bins, alpha=0.6, label=f"independent models (mean {alone.mean():.2f})")
    ax.set_xlabel("questions until every identity has posterior >= 0.95")
    ax.set_ylabel(f"games (of {len(joint):,})")
    ax.set_title("Inkognito at the whole table")
    ax.legend()


if __name__ == "__main__":
    interruptible(main)

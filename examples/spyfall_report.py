"""What examples/spyfall.py prints and draws: win and tie rates with Wilson intervals,
the turn-wise information gain, the aggregate gains, a sample game's public beliefs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from outputs import figure, wilson


def half_width(total: float, squares: float, n: float) -> float:
    """1.96 standard errors of a mean from its sum and sum of squares."""
    if n < 2:
        return float("nan")
    var = max(0.0, (squares - total * total / n) / (n - 1))
    return 1.96 * math.sqrt(var / n)


def rate_table(title: str, hits: np.ndarray, names: list[str], games: int,
               out: dict[str, np.ndarray], what: str) -> None:
    print(title)
    print(f"{'mix':<25} {what:>9}  {'95 % (Wilson)':<15} {'vs Flat (paired)':<17} {'turns':>5}"
          f"  {'mean lambda_t':>13}  {'mean beta_t':>11}")
    for k, name in enumerate(names):
        lo, hi = wilson(float(hits[k].sum()), games)
        diff = hits[k].astype(float) - hits[0]
        paired = (f"{diff.mean():+.3f} ± {1.96 * diff.std(ddof=1) / math.sqrt(games):.3f}"
                  if k and games > 1 else "-")
        lam, beta = out["params"][k] / max(out["params_n"][k], 1)
        print(f"{name:<25} {hits[k].mean():>9.3f}  [{lo:.3f}, {hi:.3f}]  {paired:<17} "
              f"{out['turns'][k] / games:>5.2f}  {lam:>13.3f}  {beta:>11.3f}")


def report(out: dict[str, np.ndarray], games: int, setup, names: list[str],
           outcomes: list[str], spy_wins: tuple[int, ...], ties: tuple[int, ...]) -> None:
    outcome = out["outcome"]
    rate_table("spy win rate, the notes' rule (a caught spy who names the location wins)",
               np.isin(outcome, spy_wins), names, games, out, "spy wins")
    print()
    rate_table("tie rate: spy wins that follow a vote (the notes' code calls them ties)",
               np.isin(outcome, ties), names, games, out, "ties")
    print()
    previous = (outcome == 0) | (np.isin(outcome, (4, 5)) & out["named_right"])
    rate_table("the previous rule, same games: a caught spy loses; a spy who escapes the vote "
               "must still name the location", previous, names, games, out, "spy wins")
    print("\noutcomes (fraction of games)")
    width = [max(len(o), 6) for o in outcomes]
    print(f"{'mix':<25} " + "  ".join(f"{o:>{w}}" for o, w in zip(outcomes, width, strict=True)))
    for k, name in enumerate(names):
        counts = np.bincount(outcome[k], minlength=len(outcomes)) / games
        print(f"{name:<25} " + "  ".join(f"{counts[i]:>{w}.3f}" for i, w in enumerate(width)))
    print("\nturn-wise information gain IG_t = KL(P_t || P_t-1) of the public location belief, "
          "bits: mean ± 95 % (games still running)")
    print(f"{'turn':>4}  " + "  ".join(f"{name[:24]:<24}{'spy speaker':>21} {'non-spy speaker':>21}"
                                       for name in names[:2]))
    for t in range(setup.rounds * setup.s):
        cells = []
        for k in range(2):
            ig, sq, n = out["ig"][k, t], out["ig2"][k, t], out["ig_n"][k, t]
            cell = [f"{ig[i] / n[i]:.3f} ± {half_width(ig[i], sq[i], n[i]):.3f} ({int(n[i])})"
                    if n[i] > 1 else "-" for i in (1, 0)]
            cells.append(f"{'':<24}{cell[0]:>21} {cell[1]:>21}")
        if out["ig_n"][:2, t].sum():
            print(f"{t + 1:>4}  " + "  ".join(cells))
    print("mean per claim: IG (bits) and the change of P(true location)")
    for k, name in enumerate(names):
        ig, sq, n, dpn = (out["ig"][k].sum(axis=0), out["ig2"][k].sum(axis=0),
                          out["ig_n"][k].sum(axis=0), out["dpn"][k])
        cells = [f"{ig[i] / n[i]:.3f} ± {half_width(ig[i], sq[i], n[i]):.3f} "
                 f"({dpn[i] / n[i]:+.4f})" if n[i] else "-" for i in (1, 0)]
        print(f"  {name:<25} spy speaker {cells[0]}, non-spy speaker {cells[1]}")
    print("\naggregate gain per player: KL(final || running belief without the player's "
          "messages), bits, mean ± 95 %")
    print(f"{'mix':<25} {'spy: location':>17} {'spy: spy':>17} {'non-spy: location':>17} "
          f"{'non-spy: spy':>17}")
    for k, name in enumerate(names):
        g, g2, n = out["gain"][k], out["gain2"][k], out["gain_n"][k]
        cells = [f"{g[who, b] / n[who]:.3f} ± {half_width(g[who, b], g2[who, b], n[who]):.3f}"
                 if n[who] > 1 else "-" for who in (1, 0) for b in (0, 1)]
        print(f"{name:<25} " + " ".join(f"{c:>17}" for c in cells))


def plot_sample(g: int, res: dict, setup, outcomes: list[str], path: Path) -> str:
    """The sample game's public location and spy beliefs, drawn and as a table."""
    loc = np.array([p for p, _ in res["trace"]])
    spy = np.array([s for _, s in res["trace"]])
    with figure(path, (11, 4), ncols=2, sharex=True) as (fig, axes):
        draw_belief_bands(axes, loc, spy, res["location"], res["spy"],
                          ("public location belief P", "public spy belief S"))
        fig.suptitle(f"Spyfall sample game {g} (Flat): location {res['location']}, spy "
                     f"{res['spy']}, {res['turns']} turns, {outcomes[res['outcome']]}")
    lines = [f"sample game {g} (Flat): location {res['location']}, spy {res['spy']}, "
             f"{res['turns']} turns, {outcomes[res['outcome']]}",
             "turn speaker  top location (p)  P(true location)  top suspect (p)  S(true spy)"]
    for t in range(1, len(loc)):
        lines.append(f"{t:>4} {(t - 1) % setup.s:>7}  {int(loc[t].argmax()):>6} "
                     f"({loc[t].max():.3f})  {loc[t][res['location']]:>16.3f}  "
                     f"{int(spy[t].argmax()):>5} ({spy[t].max():.3f})  "
                     f"{spy[t][res['spy']]:>11.3f}")
    return "\n".join(lines)


def draw_belief_bands(axes, loc: np.ndarray, spy: np.ndarray, location: int, spy_seat: int,
                      titles: tuple[str, str]) -> None:
    """A game's public location and spy beliefs turn by turn (rows: turns), as stacked
    bands, the true location's and the true spy's outlined."""
    turns = np.arange(len(loc))
    for ax, marg, labels, truth, title in (
            (axes[0], loc, [f"location {i}" for i in range(loc.shape[1])], location,
             titles[0]),
            (axes[1], spy, [f"player {i}" for i in range(spy.shape[1])], spy_seat,
             titles[1])):
        ax.stackplot(turns, marg.T, labels=labels, alpha=0.85)  # tab10, the default cycle
        ax.plot(turns, marg[:, :truth].sum(axis=1), "k-", lw=0.8)
        ax.plot(turns, marg[:, :truth + 1].sum(axis=1), "k-", lw=0.8)
        ax.set_title(f"{title} (truth: band {truth}, outlined)")
        ax.set_xlabel("turn (0 = prior; speaker = (turn - 1) mod players)")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))


def plot_ig(out: dict[str, np.ndarray], setup, names: list[str], path: Path) -> None:
    turns = np.arange(1, setup.rounds * setup.s + 1)
    with figure(path, (7, 4)) as (_, ax):
        for k, style in ((0, "-"), (1, "--")):
            for i, label in ((0, "non-spy speaker"), (1, "spy speaker")):
                n = out["ig_n"][k, :, i]
                mean = np.divide(out["ig"][k, :, i], n, out=np.full(len(n), np.nan),
                                 where=n >= 5)
                ax.plot(turns, mean, style, marker="o" if i else "s", ms=4,
                        label=f"{names[k]}: {label}")
        ax.set_xlabel("turn")
        ax.set_ylabel("mean IG_t = KL(P_t || P_t-1), bits")
        ax.set_title("Spyfall: information gain of the public location belief")
        ax.legend(fontsize=8)

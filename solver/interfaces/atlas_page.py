"""The atlas as files: `atlas.json` (every entry, as computed) and one self-contained
`atlas.html` (a table of every game, with a small plot each, images embedded)."""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from sleuth.solver.evaluation.analysis import SAMPLE_ABOVE, SAMPLE_SIZE  # noqa: E402

STRATEGY_COLUMNS = ("entropy", "minimax", "optimal")


def write_atlas(entries: list[dict[str, Any]], out: Path, meta: dict[str, Any]) -> list[Path]:
    """atlas.json and atlas.html in `out` (made if missing); returns the two paths."""
    out.mkdir(parents=True, exist_ok=True)
    data = {**meta, "games": entries}
    js = out / "atlas.json"
    js.write_text(json.dumps(data, indent=2, default=str) + "\n")
    page = out / "atlas.html"
    page.write_text(html_page(entries, meta))
    return [js, page]


COLUMN_STEPS = {"entropy": ("analysis", "simulated"), "minimax": ("minimax",),
                "optimal": ("optimal", "optimal-worst")}  # a column -> the steps it shows


def strategy_result(entry: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The entry's result for a strategy column (entropy's is the analysis's)."""
    if name == "entropy":
        return (entry.get("analysis") or {}).get("entropy") or entry.get("simulated")
    return entry.get(name) or (entry.get("optimal-worst") if name == "optimal" else None)


def cell_text(entry: dict[str, Any], name: str) -> str:
    """A strategy's total / average / worst, or why there is none."""
    got = strategy_result(entry, name)
    if got is not None and "trials" in got:
        return (f"simulated: {got['trials']:,} games, average {got['average']:.2f} "
                f"± {got['ci95']:.2f}, worst {got['worst']}")
    if got is not None:
        text = f"{got['total']:,} / {got['average']:.4f} / {got['worst']}"
        if "rounds" in got:  # scored by rounds, then queries
            text += f" in {got['rounds']:,} rounds"
        return text + (" (worst case against lies)" if "optimal-worst" in entry else "")
    for step in COLUMN_STEPS[name]:
        if step in entry.get("cut", []):
            return f"cut at the {entry['budget_seconds']:g} s budget"
        if step in entry.get("errors", {}):
            return entry["errors"][step]
    if entry.get("kind") == "observations only":
        return "no queries to choose"
    return "-"


def small_plot(entry: dict[str, Any]) -> str:
    """The best first-move classes (expected bits left), entropy per round (mean, min-max
    band) and the game lengths, as one embedded PNG; empty when no game was played."""
    a = entry.get("analysis")
    played = a["lengths"] if a else strategy_result(entry, "entropy") or \
        strategy_result(entry, "optimal")
    if not played:
        return ""
    fig, (first, left, right) = plt.subplots(1, 3, figsize=(6.3, 1.5))
    classes = (a or {}).get("first_moves", {}).get("classes", [])
    if classes:
        first.bar(range(len(classes)), [c["expected_entropy_bits"] for c in classes],
                  color="#8172b2")
        first.set_title("best first moves: bits left", fontsize=7)
    else:
        first.axis("off")
    if a:
        rounds = a["entropy_per_round"]
        xs = [r["round"] for r in rounds]
        left.fill_between(xs, [r["minimum"] for r in rounds],
                          [r["maximum"] for r in rounds], alpha=0.25, color="#4c72b0")
        left.plot(xs, [r["mean"] for r in rounds], marker=".", color="#4c72b0")
        left.set_title("bits left per query", fontsize=7)
    else:
        left.axis("off")
        left.text(0.5, 0.5, "no exact entropy\nper round", ha="center", va="center",
                  fontsize=7)
    hist = played["histogram"]
    right.bar([int(k) for k in hist], list(hist.values()), color="#55a868")
    right.set_title("game lengths", fontsize=7)
    for ax in (first, left, right):
        ax.tick_params(labelsize=6)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return ('<img alt="first moves, entropy per round and game lengths" '
            'src="data:image/png;base64,'
            + base64.b64encode(buf.getvalue()).decode() + '">')


def _number(x: Any, digits: int = 4) -> str:
    if x is None:
        return "-"
    return f"{x:,}" if isinstance(x, int) else f"{x:.{digits}f}"


def row(entry: dict[str, Any]) -> str:
    s = entry.get("summary") or {}
    a = entry.get("analysis") or {}
    first = a.get("first_moves") or {}
    best = (first.get("classes") or [None])[0]
    best_text = "-" if best is None else (
        f"{best['example']['query']} {_args(best['example']['args'])}: "
        f"{best['expected_entropy_bits']:.3f} bits left")
    cells = [
        f"<b>{html.escape(str(entry.get('game', entry['spec'])))}</b><br>"
        f"<code>{html.escape(entry['spec'])}</code><br><i>{html.escape(entry.get('kind', ''))}"
        "</i>",
        _number(s.get("hypotheses")), _number(s.get("queries")),
        _number(s.get("entropy_bits")),
        f"{_number(first.get('class_count'))} classes of {_number(first.get('queries'))} "
        f"queries; best {html.escape(best_text)}" if first else "-",
        _number(a.get("spatial_interest_bits")), _number(a.get("temporal_interest_bits")),
        *[html.escape(cell_text(entry, n)) for n in STRATEGY_COLUMNS],
        f"{entry['seconds']:.1f} s" + (f" (cut: {', '.join(entry['cut'])})"
                                       if entry.get("cut") else ""),
        small_plot(entry),
    ]
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _args(args: dict[str, Any]) -> str:
    """Arguments as people write them: a sequence of letters run together (a word),
    anything else as JSON (numbers stay apart: a set of numbers is not a word)."""
    def shown(v: Any) -> str:
        if isinstance(v, list) and v and all(isinstance(x, str) and len(x) == 1 for x in v):
            return "".join(v)
        return json.dumps(v)
    return " ".join(f"{k}={shown(v)}" for k, v in args.items())


HEAD = ("game", "hypotheses", "queries", "entropy (bits)", "first moves", "spatial (bits)",
        "temporal (bits)", "entropy: total / avg / worst", "minimax", "optimal (proven)",
        "time", "first moves; entropy per query; game lengths")


def html_page(entries: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    rows = "\n".join(row(e) for e in entries)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEAD)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sleuth atlas</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ border: 1px solid #ccc; padding: 4px 6px; vertical-align: top; }}
th {{ background: #f4f4f4; }}
td:nth-child(n+2):nth-child(-n+4) {{ text-align: right; }}
</style></head><body>
<h1>Sleuth atlas</h1>
<p>{len(entries)} games, each at its spec's default params, computed from the specs by
<code>{html.escape(meta.get('command', 'sleuth atlas'))}</code> on {html.escape(
        str(meta.get('date', '')))} in {meta.get('seconds', 0):.0f} s; a budget of
{meta.get('budget_seconds', 0):g} s per game (a step it cuts says so).</p>
<p>Hypotheses and queries: the sizes of the secret's and the legal queries' spaces.
First moves: the classes of first queries that split the hypotheses alike (the best five
kept), and the best one's expected entropy left. Spatial interest: the spread of that
entropy over every first query; temporal: the spread, over the secrets still in play, of
the entropy left after each round (<code>sleuth analyse</code>, docs/analysis.md). The
strategies' columns: total queries over the secrets played, the average and the worst
case, exactly as <code>sleuth evaluate</code> prints them (the command is in
atlas.json); <code>optimal</code> is the proven optimum, where the budget allows it. Games
with more than {meta.get('every_secret_up_to', SAMPLE_ABOVE):,} secrets are played on a
seeded sample of {SAMPLE_SIZE} (the analysis's), and have no optimum. A
game whose answers may lie shows the worst case proven against lies
(<code>optimal-worst</code>); one with random answers, seeded games of
<code>entropy</code> (<code>sleuth bench</code>); one of observations only has no query to
choose.</p>
<table><thead><tr>{head}</tr></thead><tbody>
{rows}
</tbody></table></body></html>
"""


__all__ = ["cell_text", "html_page", "strategy_result", "write_atlas"]

"""The design report of `sleuth analyse`: plots (PNG and SVG), Markdown and HTML.

Three figures in the manner of Meng & Lucas (2024): the first-move profile
(expected entropy after each class of first query, Fig. 3), entropy per round
with its min-max band over the secrets in play (Fig. 4), and the distribution
of game lengths. The HTML page is self-contained: its images are embedded, so
it can be mailed or opened from anywhere.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402

from sleuth.solver.evaluation.analysis import Analysis  # noqa: E402
from sleuth.solver.wording import counted

FIGURES = ("first-moves", "entropy-per-round", "game-lengths")
MAX_BARS = 30  # first-move classes shown in the bar chart (the best ones)


def write_report(a: Analysis, out: Path) -> list[Path]:
    """Write the figures, report.md and report.html into `out`; returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name, draw in zip(FIGURES, (plot_first_moves, plot_rounds, plot_lengths),
                          strict=True):
        fig = draw(a)
        for ext in ("png", "svg"):
            path = out / f"{name}.{ext}"
            fig.savefig(path, dpi=120, bbox_inches="tight")
            files.append(path)
        plt.close(fig)
    md = out / "report.md"
    md.write_text(markdown(a))
    page = out / "report.html"
    page.write_text(html_page(a, out))
    (out / "analysis.json").write_text(json.dumps(a.to_json(), indent=2) + "\n")
    return files + [md, page, out / "analysis.json"]


def _label(example: dict) -> str:
    """A first query as people write it: digit sequences run together (1122)."""
    words = []
    for v in example["args"].values():
        if isinstance(v, list) and all(isinstance(x, int) and 0 <= x < 10 for x in v):
            words.append("".join(map(str, v)))
        else:
            words.append(str(v))
    return " ".join(words)


def plot_first_moves(a: Analysis):
    classes = a.first_moves[:MAX_BARS]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.45 * len(classes) + 2), 3.6))
    xs = range(len(classes))
    ax.bar(xs, [c.expected_entropy for c in classes], color="#4c72b0")
    ax.set_xticks(list(xs), [_label(c.example) for c in classes], rotation=60, ha="right",
                  fontsize=8)
    ax.set_ylabel("expected entropy after (bits)")
    ax.set_title(f"{a.game}: first moves ({counted(a.first_move_queries, 'query')}, "
                 f"{counted(len(a.first_moves), 'class')})")
    ax.axhline(a.entropy_bits, color="grey", linestyle=":", linewidth=1)
    return fig


def plot_rounds(a: Analysis):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    r = [x.round for x in a.rounds]
    ax.fill_between(r, [x.minimum for x in a.rounds], [x.maximum for x in a.rounds],
                    alpha=0.25, color="#4c72b0", label="min-max over secrets in play")
    ax.plot(r, [x.mean for x in a.rounds], marker="o", color="#4c72b0", label="mean")
    ax.set_xlabel("queries asked")
    ax.set_ylabel("entropy left (bits)")
    ax.set_title(f"{a.game}: entropy per round ({a.strategy})")
    ax.legend(fontsize=8)
    return fig


def plot_lengths(a: Analysis):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    hist = a.evaluation.histogram
    ax.bar(list(hist), list(hist.values()), color="#55a868")
    ax.set_xlabel("queries to finish")
    ax.set_ylabel("secrets")
    ax.set_title(f"{a.game}: game lengths ({a.strategy}), average "
                 f"{float(a.evaluation.average):.3f}, worst {a.evaluation.worst}")
    return fig


def markdown(a: Analysis) -> str:
    ev = a.evaluation
    lines = [
        f"# {a.game}: design analysis",
        "",
        f"Strategy `{a.strategy}`; {counted(a.hypotheses, 'hypothesis')}, "
        f"{a.entropy_bits:.4f} bits.",
        "",
        f"- **spatial interest** {a.spatial:.4f} bits (spread of the expected entropy after "
        f"each of the {a.first_move_queries:,} first queries)",
        f"- **temporal interest** {a.temporal:.4f} bits (mean spread, over rounds, of the "
        "entropy left across the secrets in play)",
        f"- **game lengths** over {counted(ev.secrets, 'secret')}: average {float(ev.average):.4f} "
        f"({ev.average}), worst {ev.worst}",
        "",
        "## First moves",
        "",
        "| first query | queries like it | expected entropy after (bits) | largest part | parts |",
        "|---|---|---|---|---|",
    ]
    for c in a.first_moves:
        lines.append(f"| {_label(c.example)} | {c.queries:,} | {c.expected_entropy:.4f} | "
                     f"{_number(c.largest)} | {c.parts} |")
    lines += ["", "![first moves](first-moves.png)", "", "## Entropy per round", "",
              "| round | in play | min | mean | max | spread |", "|---|---|---|---|---|---|"]
    for r in a.rounds:
        lines.append(f"| {r.round} | {r.in_play:,} | {r.minimum:.3f} | {r.mean:.3f} | "
                     f"{r.maximum:.3f} | {r.spread:.3f} |")
    lines += ["", "![entropy per round](entropy-per-round.png)", "", "## Game lengths", "",
              "| queries | secrets |", "|---|---|"]
    lines += [f"| {k} | {v:,} |" for k, v in ev.histogram.items()]
    lines += ["", "![game lengths](game-lengths.png)", ""]
    return "\n".join(lines)


def _number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:.4f}"


def html_page(a: Analysis, out: Path) -> str:
    """The Markdown report as one HTML page, tables as tables, images embedded."""
    body = []
    table: list[list[str]] = []

    def flush() -> None:
        if table:
            head, rows = table[0], table[2:]
            body.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in head) + "</tr>"
                        + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>"
                                  for r in rows) + "</table>")
            table.clear()

    for line in markdown(a).splitlines():
        if line.startswith("|"):
            table.append([html.escape(c.strip()) for c in line.strip("|").split("|")])
            continue
        flush()
        if line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("!["):
            alt, src = line[2:].split("](")
            data = base64.b64encode((out / src.rstrip(")")).read_bytes()).decode()
            body.append(f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">')
        elif line.startswith("- "):
            body.append(f"<p>{_inline(line[2:])}</p>")
        elif line:
            body.append(f"<p>{_inline(line)}</p>")
    flush()
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
             "padding:.2em .6em;text-align:right}img{max-width:100%}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(a.game)}: design analysis</title><style>{style}</style></head>"
            f"<body>\n" + "\n".join(body) + "\n</body></html>\n")


def _inline(text: str) -> str:
    """**bold** and `code` of one Markdown line."""
    out, parts = [], html.escape(text).split("**")
    for i, p in enumerate(parts):
        out.append(f"<b>{p}</b>" if i % 2 else p)
    text = "".join(out)
    parts = text.split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


__all__ = ["write_report"]

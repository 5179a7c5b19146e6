"""The Inkognito worksheet, one row at a time, through `sleuth belief`.

Runs `sleuth belief specs/inkognito.yaml --observations ... --json` on the
first k rows of examples/inkognito-worksheet.yaml for k = 0..3 and prints
the identity and build marginals after each row, as in the write-up's
belief-update figure. The output is reproduced in examples/inkognito.md.

    python examples/inkognito.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "inkognito.yaml"
WORKSHEET = ROOT / "examples" / "inkognito-worksheet.yaml"


def belief(rows: list[dict]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.yaml"
        path.write_text(yaml.safe_dump(rows, sort_keys=False))
        out = subprocess.run([sys.executable, "-m", "sleuth", "belief", str(SPEC),
                              "--observations", str(path), "--json"],
                             capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


def row_text(row: dict) -> str:
    shown = row["answer"]["ids"] + row["answer"]["bds"]
    who = row["query"].replace("_question", "")
    return f"{who} question about {row['args']['topic']}: {', '.join(shown)}"


def main() -> None:
    rows = yaml.safe_load(WORKSHEET.read_text())
    for k in range(len(rows) + 1):
        data = belief(rows[:k])
        title = "prior" if k == 0 else f"after row {k} ({row_text(rows[k - 1])})"
        print(f"{title}: {data['hypotheses']} hypotheses, {data['entropy_bits']:.4f} bits")
        if k:
            print(f"  information gained: {data['observations'][-1]['information_bits']:.4f} "
                  "bits")
        for var, label in (("id", "identity"), ("bd", "build")):
            cells = "  ".join(f"{v} {p:.4f}" for v, p in data["marginals"][var].items())
            print(f"  {label:8}  {cells}")


if __name__ == "__main__":
    main()

"""Decrypto's official keyword list, written into a folder of your own from the installed
decryptogame package, next to the specs that read it.

The official list is the package's (AGPL-3.0-or-later), so Sleuth ships none of it: the
bundled specs/decrypto-keyword.yaml runs on the small original vocabulary of
specs/decrypto-words.txt. This writes, into FOLDER:

- decrypto-words.txt: the package's 424 words (official_words.english.words), '_' for '-'
  (labels are names: SCIENCE_FICTION);
- decrypto-clues.txt and decrypto-scores.csv: the 51 themes and the clue-keyword scores
  of examples/decrypto-themes.txt (the Sleuth developers' own table, which holds no
  keyword: line k files the list's k-th word), joined with the list;
- decrypto-keyword.yaml and decrypto.yaml: copies of the bundled specs, which read the
  files beside them; so `sleuth check FOLDER/decrypto-keyword.yaml` has the 424 words.

    python examples/decrypto_data.py [FOLDER]   (default: ~/.local/share/sleuth/decrypto)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPECS = HERE.parent / "specs"
THEMES = HERE / "decrypto-themes.txt"
SPEC_FILES = ("decrypto-keyword.yaml", "decrypto.yaml")
HINT = ("the official Decrypto keyword list (and its card and code generators) comes from "
        "the decryptogame package, AGPL-3.0-or-later, which Sleuth does not bundle\n"
        "  hint: pip install -e '.[examples]' (without it, specs/decrypto-keyword.yaml runs "
        "on Sleuth's small original vocabulary)")


def default_folder() -> Path:
    """~/.local/share/sleuth/decrypto, or under $XDG_DATA_HOME when it is set."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "sleuth" / "decrypto"


def official_words() -> list[str]:
    """The package's official English keywords, in its order; SystemExit with the hint
    when the package is not installed."""
    try:
        from decryptogame.official_words import english
    except ImportError:
        raise SystemExit(f"error: {HINT}") from None
    return list(english.words)


def themes(words: list[str]) -> list[list[str]]:
    """Each word's themes (first, second, third), checked against the list they were
    written for: a list in another order would file words under other words' themes."""
    lines = THEMES.read_text(encoding="utf-8").splitlines()
    digest = next(ln.split()[2] for ln in lines if ln.startswith("# sha256 "))
    rows = [ln.split() for ln in lines if ln and not ln.startswith("#")]
    got = hashlib.sha256("\n".join(words).encode()).hexdigest()
    if got != digest or len(rows) != len(words):
        raise SystemExit(f"error: the installed decryptogame's word list (sha256 {got[:12]}…, "
                         f"{len(words)} words) is not the one {THEMES.name} was written for "
                         f"({digest[:12]}…, {len(rows)} words)\n"
                         "  hint: pip install 'decryptogame==1.1.1'")
    return rows


def write(folder: Path) -> Path:
    """Write the official list, its clues and scores, and the specs into `folder`."""
    words = official_words()
    rows = themes(words)
    labels = [w.replace("-", "_") for w in words]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "decrypto-words.txt").write_text("\n".join(labels) + "\n", encoding="utf-8")
    clues = sorted({t for row in rows for t in row})
    (folder / "decrypto-clues.txt").write_text("\n".join(clues) + "\n", encoding="utf-8")
    scores = [f"{theme},{word},{3 - rank}" for word, row in zip(labels, rows, strict=True)
              for rank, theme in enumerate(row)]
    header = [ln for ln in THEMES.read_text(encoding="utf-8").splitlines()
              if ln.startswith("#")][:5]
    (folder / "decrypto-scores.csv").write_text(
        "\n".join(header + ["# written by examples/decrypto_data.py from the list above",
                            "# clue,keyword,score"] + scores) + "\n", encoding="utf-8")
    for name in SPEC_FILES:
        shutil.copyfile(SPECS / name, folder / name)
    return folder


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else default_folder()
    write(folder)
    print(f"wrote the official list (424 keywords), its 51 themes and scores, and "
          f"{', '.join(SPEC_FILES)} into {folder}")


if __name__ == "__main__":
    main()

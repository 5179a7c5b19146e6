"""The specs a server offers, and the games it has loaded.

A spec is named by a *ref*: a bundled spec's name, the path of a spec
given on the command line (`sleuth serve my.yaml`), or the path of an uploaded spec,
which is checked with `sleuth check`'s errors and kept under the sessions folder
(`DIR/specs/`) so that `sleuth play` can open the same session from a terminal. A
request may only name refs of this catalogue (or of a session file in the folder): the
server never loads a path a page made up.

Games are loaded once per (ref, params) and shared by every session: their feedback
matrices are built when loaded, before any request times a suggestion.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from pathlib import Path
from typing import Any

from sleuth.compiler.api import Game, SleuthError, bundled_specs, load_game, load_game_text
from sleuth.solver.infoset.queries import Candidates

MAX_UPLOAD = 256 * 1024  # bytes of spec text an upload may carry
LANDING = "mastermind"  # the bundled spec the landing page selects (the classic)
NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")


class Library:
    """The catalogue of specs, and a cache of loaded games and their queries."""

    def __init__(self, specs: list[str], sessions: Path):
        self.sessions = sessions
        self.uploads = sessions / "specs"
        self.given = [str(Path(s).resolve()) if Path(s).exists() else s for s in specs]
        self.lock = threading.Lock()
        self.games: dict[tuple[str, str], Loaded] = {}
        self.loading: dict[tuple[str, str], threading.Lock] = {}

    # -- the catalogue

    def landing(self) -> str | None:
        """The spec the page selects first: the first given one, else LANDING when it is
        bundled, else the first on offer."""
        refs = self.refs()
        if self.given:
            return self.given[0]
        return LANDING if any(r["ref"] == LANDING for r in refs) else (
            refs[0]["ref"] if refs else None)

    def refs(self) -> list[dict[str, Any]]:
        """Every spec on offer: given ones first, then uploaded, then bundled."""
        out = [{"ref": r, "name": Path(r).stem, "source": "given"} for r in self.given]
        if self.uploads.is_dir():
            out += [{"ref": str(p), "name": p.stem.split("-", 1)[-1], "source": "uploaded"}
                    for p in sorted(self.uploads.glob("*.yaml"))]
        out += [{"ref": name, "name": name, "source": "bundled"} for name in bundled_specs()]
        return out

    def known(self, ref: str) -> bool:
        return any(r["ref"] == ref for r in self.refs())

    def upload(self, name: str, text: str) -> str:
        """Check an uploaded spec (a SpecError, located in `name`, if it is bad) and keep
        it; its ref."""
        if len(text.encode("utf-8")) > MAX_UPLOAD:
            raise SleuthError(f"the spec is larger than {MAX_UPLOAD // 1024} KiB",
                              hint="a spec is a page of YAML; data files stay beside it")
        stem = NAME_RE.sub("-", Path(name or "upload.yaml").stem).strip("-.") or "upload"
        load_game_text(text, f"{stem}.yaml")  # the same errors as `sleuth check`
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        self.uploads.mkdir(parents=True, exist_ok=True)
        path = self.uploads / f"{digest}-{stem}.yaml"
        if not path.exists():
            from sleuth.solver.interfaces.session import write_atomically

            write_atomically(path, text)
        return str(path)

    # -- games

    def game(self, ref: str, params: dict[str, Any] | None = None,
             trusted: bool = False) -> Loaded:
        """The game a ref names, with its params overridden (checked, as `--set` is).
        `trusted`: a ref read from a session file in the folder, which need not be in the
        catalogue."""
        if not trusted and not self.known(ref):
            raise SleuthError(f"no spec '{ref}' on this server",
                              hint="pick one of the listed specs, or upload it")
        key = (ref, json.dumps(params or {}, sort_keys=True, default=str))
        with self.lock:
            if key in self.games:
                return self.games[key]
            lock = self.loading.setdefault(key, threading.Lock())
        with lock:  # one load per key; other keys load meanwhile
            if key not in self.games:
                loaded = Loaded(load_game(ref, dict(params or {}) or None))
                with self.lock:
                    self.games[key] = loaded
        return self.games[key]


class Loaded:
    """A loaded game and, made when first asked for, its queries with their feedback
    matrices built (a form needs only the game; a suggestion needs the queries)."""

    def __init__(self, game: Game):
        self.game = game
        self._candidates: Candidates | None = None
        self._lock = threading.Lock()

    @property
    def candidates(self) -> Candidates:
        with self._lock:
            if self._candidates is None:
                candidates = Candidates(self.game)
                candidates.keep_matrices()
                self._candidates = candidates
            return self._candidates


__all__ = ["LANDING", "MAX_UPLOAD", "Library", "Loaded"]

"""The specs a server offers, and the games it has loaded.

A spec is named by a *ref*: a bundled spec's name (its file's stem), `given/NAME.yaml` for
a spec given on the command line (`sleuth serve my.yaml`), or `uploads/DIR/NAME.yaml`
for an uploaded spec, which is checked with `sleuth check`'s errors and kept under the
sessions folder (`DIR/specs/`). A ref names no path of the server's; the session file
keeps the spec's real path, so that `sleuth play` can open the same session from a
terminal. A request may only name refs of this catalogue (or of a session file in the
folder): the server never loads a path a page made up.

Games are loaded once per (ref, params) and shared by every session, and kept in a
cache within the server's memory budget (web/cache.py: `sleuth serve --memory-mb`):
the least recently used game is dropped first, and loaded again when asked for.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sleuth.compiler.api import Game, SleuthError, bundled_specs, landing_spec, load_game
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.interfaces.web.cache import Cache, measured, resident_bytes
from sleuth.solver.interfaces.web.uploads import MAX_UPLOAD, keep, unpack

MEMORY_MB = 2048  # the games a server keeps, in MiB (`sleuth serve --memory-mb`)


class Library:
    """The catalogue of specs, and a cache of loaded games and their queries."""

    def __init__(self, specs: list[str], sessions: Path, memory_mb: int = MEMORY_MB):
        self.sessions = sessions
        self.uploads = sessions / "specs"
        self.given = [str(Path(s).resolve()) if Path(s).exists() else s for s in specs]
        stems = [Path(g).stem for g in self.given]  # a stem given twice gets its place
        self.given_refs = {(f"given/{stem}.yaml" if stems.count(stem) == 1 else
                            f"given/{k + 1}-{stem}.yaml"): g
                           for k, (stem, g) in enumerate(zip(stems, self.given, strict=True))}
        self.lock = threading.Lock()
        self.games: Cache[Loaded] = Cache(memory_mb * 2**20, self._dropped)
        self.loading: dict[tuple[str, str], threading.Lock] = {}
        self._index: tuple[int | None, tuple[dict, dict]] | None = None  # see _indexed
        self.dropped: list[Callable[[Loaded], None]] = []  # told when a game is dropped

    # -- the catalogue

    def landing(self) -> str | None:
        """The spec the page selects first: the first given one, else the one the game
        library puts first (specs/__init__.py), else the first on offer."""
        if self.given_refs:
            return next(iter(self.given_refs))
        refs = self.refs()
        return landing_spec() or (refs[0]["ref"] if refs else None)

    def refs(self) -> list[dict[str, Any]]:
        """Every spec on offer: given ones first, then uploaded, then bundled."""
        return [{"ref": ref, "name": name, "source": source}
                for ref, (_path, name, source) in self._catalogue().items()]

    def _catalogue(self) -> dict[str, tuple[str, str, str]]:
        """{ref: (what load_game takes, name, source)}."""
        return self._indexed()[0]

    def _indexed(self) -> tuple[dict[str, tuple[str, str, str]], dict[str, str]]:
        """The catalogue and {what load_game takes: ref}, made again only when the uploads
        folder changed (an upload is renamed into it as a whole)."""
        try:
            stamp = self.uploads.stat().st_mtime_ns
        except OSError:
            stamp = None
        with self.lock:
            if self._index is not None and self._index[0] == stamp:
                return self._index[1]
        out = {ref: (path, Path(path).stem, "given") for ref, path in self.given_refs.items()}
        if stamp is not None:  # a spec alone, or in its folder with its data files
            out.update({f"uploads/{p.name}": (str(p), p.stem.split("-", 1)[-1], "uploaded")
                        for p in sorted(self.uploads.glob("*.yaml"))})
            out.update({f"uploads/{p.parent.name}/{p.name}": (str(p), p.stem, "uploaded")
                        for p in sorted(self.uploads.glob("*/*.yaml"))
                        if not p.parent.name.startswith(".")})
        out.update({name: (name, name, "bundled") for name in bundled_specs()})
        by_path = {path: ref for ref, (path, _name, _source) in reversed(out.items())}
        with self.lock:
            self._index = (stamp, (out, by_path))
        return out, by_path

    def known(self, ref: str) -> bool:
        return ref in self._catalogue()

    def path(self, ref: str) -> str:
        """What load_game takes for a ref of the catalogue."""
        found = self._catalogue().get(ref)
        if found is None:
            raise SleuthError(f"no spec '{ref[:200]}' on this server",
                              hint="pick one of the listed specs, or upload it")
        return found[0]

    def public(self, spec: str) -> str:
        """The ref the API shows for what a session file names (a path or a name): the
        catalogue's ref, else the file's name alone."""
        return self._indexed()[1].get(spec, Path(spec).name)

    def upload(self, data: dict[str, Any]) -> str:
        """Check an upload (a spec and its data files: uploads.py) as `sleuth check` does,
        keep it, and give its ref."""
        name, text, files = unpack(data)
        kept = keep(self.uploads, name, text, files)
        return self.public(str(kept))

    # -- games

    def game(self, ref: str, params: dict[str, Any] | None = None,
             trusted: bool = False) -> Loaded:
        """The game a ref names, with its params overridden (checked, as `--set` is).
        `trusted`: what a session file in the folder names (a path or a bundled name),
        which need not be in the catalogue."""
        if not trusted:
            ref = self.path(ref)
        key = (ref, json.dumps(params or {}, sort_keys=True, default=str))
        loaded = self.games.get(key)
        if loaded is not None:
            return loaded
        with self.lock:
            lock = self.loading.setdefault(key, threading.Lock())
        with lock:  # one load per key; other keys load meanwhile
            loaded = self.games.get(key)
            if loaded is None:
                before = resident_bytes()
                loaded = Loaded(load_game(ref, dict(params or {}) or None),
                                lambda it, key=key: self._grew(key, it))
                loaded.grown = max(0, resident_bytes() - before)
                self.games.put(key, loaded, measured(loaded, loaded.grown))
        with self.lock:
            self.loading.pop(key, None)
        return loaded

    def _grew(self, key: tuple[str, str], loaded: Loaded) -> None:
        self.games.resize(key, measured(loaded, loaded.grown))

    def _dropped(self, key: Any, loaded: Loaded) -> None:
        loaded.dropped = True
        for hear in self.dropped:
            hear(loaded)


class Loaded:
    """A loaded game and, made when first asked for, its queries with their feedback
    matrices built (a form needs only the game; a suggestion needs the queries).
    `grown`: the resident memory its making cost, which the cache counts."""

    def __init__(self, game: Game, grew: Callable[[Loaded], None] | None = None):
        self.game = game
        self.grown = 0
        self.dropped = False  # the library let go of it (work still on it ends soon)
        self._grew = grew
        self._candidates: Candidates | None = None
        self._light: Candidates | None = None
        self.lock = threading.Lock()

    @property
    def light(self) -> Candidates:
        """The game's queries without kept matrices (made at once, for a quick pass)."""
        if self._light is None:
            self._light = Candidates(self.game)
        return self._light

    @property
    def candidates(self) -> Candidates:
        with self.lock:
            if self._candidates is None:
                before = resident_bytes()
                candidates = Candidates(self.game)
                candidates.keep_matrices()
                self._candidates = candidates
                self.grown += max(0, resident_bytes() - before)
                if self._grew is not None:
                    self._grew(self)
            return self._candidates

    def detach(self) -> None:
        """In a forked child (web/forked.py): growth is no longer reported to the cache
        (the server adopts what the child sends back, and measures it then)."""
        self._grew = None

    def adopt(self, entries: dict[Any, Any]) -> None:
        """Keep the game's memo entries a forked child computed (those still missing
        here), counting the resident memory they take."""
        before = resident_bytes()
        memo = self.game.memo
        for key, value in entries.items():
            if key not in memo:
                memo.put(key, value)
        self.grown += max(0, resident_bytes() - before)
        if self._grew is not None:
            self._grew(self)


__all__ = ["MAX_UPLOAD", "MEMORY_MB", "Library", "Loaded"]

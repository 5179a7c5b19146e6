"""Play sessions on disk: every step saved atomically, so a session survives a crash.

A session file is JSON: the spec, its overrides, and the observed steps in
order (each `{query, args, feedback | answer}`, the observations-file
schema). It is rewritten after every step through a temporary file in the
same folder, flushed to disk and renamed over the old one, so a reader (or a
resumed session) sees either the old or the new file, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sleuth.compiler.api import Game, ObservationError, SleuthError
from sleuth.solver.infoset.observe import Event, make_event

FORMAT = "sleuth-session/1"


@dataclass
class Session:
    spec: str
    game: str
    params: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)
    path: Path | None = None

    @staticmethod
    def _read(path: Path) -> dict[str, Any]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
            raise SleuthError(f"cannot read session file {path}: {err}",
                              hint="move it away to start a new session") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise SleuthError(f"{path} is not a Sleuth session file")
        return data

    @classmethod
    def spec_of(cls, path: str | Path) -> tuple[str, dict[str, Any]]:
        """The spec a saved session names, and its scalar params (as --set would give
        them), so that a game resumes from the file alone."""
        data = cls._read(Path(path))
        spec, params = data.get("spec"), data.get("params")
        if not isinstance(spec, str) or not isinstance(params, dict):
            raise SleuthError(f"{path} names no spec", hint="give SPEC on the command line")
        return spec, {k: v for k, v in params.items()
                      if isinstance(v, int | float | str | bool)}

    @classmethod
    def open(cls, path: str | Path | None, game: Game, spec: str) -> Session:
        """The session at `path` (resumed if the file exists), or a new one."""
        params = dict(game.model.params)
        if path is None:
            return cls(spec, game.model.game, params)
        path = Path(path)
        if not path.exists():
            session = cls(spec, game.model.game, params, [], path)
            session.save()
            return session
        data = cls._read(path)
        if data.get("game") != game.model.game or data.get("params") != _jsonable(params):
            raise SleuthError(
                f"session {path} belongs to {data.get('game')} with params "
                f"{data.get('params')}, not {game.model.game} with {_jsonable(params)}",
                hint="use the same spec and --set values, or another --session file")
        return cls(spec, game.model.game, params, list(data.get("steps", [])), path)

    def events(self, game: Game) -> list[Event]:
        """The saved steps, checked again against the spec."""
        out = []
        for k, step in enumerate(self.steps, 1):
            if not isinstance(step, dict) or not isinstance(step.get("query"), str) or \
                    not isinstance(step.get("args", {}), dict):
                raise ObservationError(f"{self.path}, step {k}: malformed step",
                                       hint="a step is {query: name, args: {...}, "
                                            "feedback | answer: ...}")
            try:
                out.append(step_event(game, step))
            except ObservationError as err:
                raise ObservationError(f"{self.path}, step {k}: {err.message}",
                                       hint=err.hint) from None
        return out

    def append(self, event: Event) -> None:
        """The step saved, then kept: a save that fails leaves the session as it was, in
        memory and on disk."""
        steps = [*self.steps, event.to_data()]
        self.save(steps)
        self.steps = steps

    def undo(self) -> dict[str, Any] | None:
        """The last step taken back (saved first, as `append` is), or None."""
        if not self.steps:
            return None
        self.save(self.steps[:-1])
        return self.steps.pop()

    def save(self, steps: list[dict[str, Any]] | None = None) -> None:
        """Write the session (with `steps` in place of its own) atomically."""
        if self.path is None:
            return
        data = {"format": FORMAT, "game": self.game, "spec": self.spec,
                "params": _jsonable(self.params),
                "steps": self.steps if steps is None else steps}
        try:
            text = json.dumps(data, indent=1, allow_nan=False) + "\n"
        except ValueError as err:  # a non-finite number: never a file json cannot read
            raise SleuthError(f"the session cannot be saved: {err}") from None
        write_atomically(self.path, text)


def step_event(game: Game, step: dict[str, Any]) -> Event:
    """A saved step (`Event.to_data()`'s form) as a checked event."""
    return make_event(game, step["query"], step.get("args", {}),
                      step["feedback"] if "feedback" in step else step.get("answer"))


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` so that no reader ever sees a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # an ordinary file's permissions (mkstemp gives 0600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(params, default=str))


__all__ = ["Session", "step_event", "write_atomically"]

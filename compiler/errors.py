"""Errors a user can cause, each with a location in the spec file and a hint."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A 1-based position in a spec file (or in text given on the command line)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class SleuthError(Exception):
    """Base of every error Sleuth reports to a user (never a traceback)."""

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.hint = hint

    def __str__(self) -> str:
        text = f"{self.loc}: {self.message}" if self.loc else self.message
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class SpecError(SleuthError):
    """The spec (or a --set override) is malformed or ill-typed."""


class EvaluationError(SleuthError):
    """An expression failed at run time (index out of range, division by zero, ...)."""


class ObservationError(SleuthError):
    """An observation (query arguments, feedback or answer) is malformed or impossible."""


class BudgetError(SleuthError):
    """The work asked for exceeds a configured size budget (memory, size or time)."""


class BackendError(SleuthError):
    """A library a backend runs (a model counter, a diagram) crashed or died: not the
    user's input, but reported as plainly, with its own message and exit status 1."""


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A 'did you mean ...?' hint for a misspelt name, or None."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


# -- options named in an error, as the interface in use takes them

SPEAKING = {"style": "api"}  # "cli" while a command of the command line runs


def speak_as(style: str) -> None:
    """Name options in errors as the `cli` or the `api` (the Python and JSON APIs, the
    page; the default) takes them."""
    SPEAKING["style"] = style


def option(name: str, value: object = None) -> str:
    """An option of the interface in use, named as it takes it: the command line's
    `--backend enum`, the API's `backend="enum"`. `set` is a param: `--set pegs=5` on the
    command line, `pegs=5` (a keyword of `load`) in the API. Upper-case values (N, FILE)
    are placeholders, shown bare."""
    text = "" if value is None else str(value)
    if SPEAKING["style"] == "cli":
        return f"--{name.replace('_', '-')}" + (f" {text}" if text else "")
    if name == "set":
        return text or "load(spec, name=value)"
    if not text:
        return name
    bare = text.isupper() or text.replace(".", "", 1).isdigit()
    return f"{name}={text if bare else repr(text)}"


def said(cli: str, api: str) -> str:
    """Words that differ by interface (a command to run, a call to make)."""
    return cli if SPEAKING["style"] == "cli" else api

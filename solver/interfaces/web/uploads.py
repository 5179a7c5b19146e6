"""An uploaded spec and the data files it reads, checked and kept.

An upload is a spec's text plus its data files: as a mapping of relative names to text
(`files`), or as one zip archive (`zip`, base64). Nothing in it is ever run: the files
are written as data into a staging folder under the uploads folder, the spec is loaded
and compiled from there exactly as `sleuth check` would (its data files must lie beside
it), and only then is the folder renamed into place, named by a digest of its content.
Every error names the upload's own files, never the server's paths.

Limits: MAX_UPLOAD bytes of spec text, MAX_DATA bytes of data in all, MAX_FILES files,
names of plain parts (letters, digits, `._-`) at most DEPTH folders deep, no `..`, no
absolute path, no name that is also another's folder. A zip's members are stored or
deflated only, and are decompressed in CHUNK pieces, counted as they come out: the
sizes a zip declares are never trusted, so a member that lies about its size costs at
most the limit it passes, never what it would unpack to.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
import secrets
import shutil
import zipfile
import zlib
from pathlib import Path
from typing import Any

from sleuth.compiler.api import Loc, SleuthError, load_game

MAX_UPLOAD = 256 * 1024  # bytes of spec text an upload may carry
MAX_DATA = 4 * 1024 * 1024  # bytes of data files one upload may carry, in all
MAX_FILES = 32
CHUNK = 64 * 1024  # bytes a zip member is decompressed by, counted against MAX_DATA
METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
DEPTH = 2  # folders a data file may lie in, below the spec's
PART_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,100}$")
NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")


class Unprocessable(SleuthError):
    """An upload whose spec does not load: the located error, in the upload's names."""

    status = 422


class TooLarge(SleuthError):
    """A request over a limit."""

    status = 413


class Unsupported(SleuthError):
    """An upload in a form the server does not take (a zip compression method)."""

    status = 415

def relative_name(name: str) -> str:
    """A data file's name, checked: relative, plain parts, no `..`."""
    parts = str(name).replace("\\", "/").split("/")
    if str(name).startswith(("/", "\\")) or len(parts) > DEPTH + 1 or not all(
            PART_RE.match(p) and p not in (".", "..") for p in parts):
        raise SleuthError(f"'{name}' is not a name an uploaded file may have",
                          hint="plain names (letters, digits, . _ -) beside the spec or "
                               f"in folders at most {DEPTH} deep; no '..', no absolute path")
    return "/".join(parts)


def unpack(data: dict[str, Any]) -> tuple[str, str, dict[str, bytes]]:
    """(spec name, spec text, {relative name: bytes}) from an upload request: `name` and
    `text` with `files`, or `zip` (base64) holding the spec (`name` picks it among
    several) and its files."""
    files: dict[str, bytes] = {}
    name, text = str(data.get("name") or "upload.yaml"), data.get("text")
    if data.get("zip") is not None:
        try:
            archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(str(data["zip"]),
                                                                  validate=True)))
        except (binascii.Error, ValueError, zipfile.BadZipFile, RuntimeError,
                NotImplementedError):
            raise SleuthError("the zip is not a base64 zip archive") from None
        files = _members(archive)
        specs = [n for n in files if n.endswith((".yaml", ".yml")) and "/" not in n]
        chosen = name if name in specs else (specs[0] if len(specs) == 1 else None)
        if chosen is None:
            raise SleuthError("the zip holds no spec, or several: name the one to check",
                              hint=f"its specs: {', '.join(specs) or 'none'}")
        name, text = chosen, files.pop(chosen).decode("utf-8", errors="replace")
    else:
        raw = data.get("files") or {}
        if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
            raise SleuthError("files must map each data file's name to its text")
        _limits(len(raw), sum(len(v.encode("utf-8")) for v in raw.values()))
        files = {relative_name(k): v.encode("utf-8") for k, v in raw.items()}
        _no_clash(list(files))
    if not isinstance(text, str):
        raise SleuthError("an upload needs the spec's text")
    if len(text.encode("utf-8")) > MAX_UPLOAD:
        raise TooLarge(f"the spec is larger than {MAX_UPLOAD // 1024} KiB",
                       hint="a spec is a page of YAML; its data files travel beside it")
    return name, text, files


def _members(archive: zipfile.ZipFile) -> dict[str, bytes]:
    """The zip's files by relative name, decompressed CHUNK bytes at a time and stopped
    as soon as they pass MAX_DATA in all."""
    members = [m for m in archive.infolist() if not m.is_dir()]
    _limits(len(members), 0)
    for m in members:
        if m.compress_type not in METHODS:
            raise Unsupported(f"'{m.filename}' is compressed in a way uploads do not take "
                              f"(method {m.compress_type})",
                              hint="zip it stored or deflated (zip's default)")
    names = [relative_name(m.filename) for m in members]
    _no_clash(names)
    files: dict[str, bytes] = {}
    total = 0
    try:
        for name, m in zip(names, members, strict=True):
            pieces = []
            with archive.open(m) as member:
                while chunk := member.read(CHUNK):
                    total += len(chunk)
                    _limits(len(members), total)
                    pieces.append(chunk)
            files[name] = b"".join(pieces)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError,
            NotImplementedError) as err:
        raise SleuthError(f"the zip is damaged: {err}",
                          hint="zip the files again") from None
    return files


def _no_clash(names: list[str]) -> None:
    """No two files of one name, and no file that is also another's folder."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise SleuthError(f"the upload holds '{name}' twice")
        seen.add(name)
    for name in names:
        parts = name.split("/")
        for k in range(1, len(parts)):
            if "/".join(parts[:k]) in seen:
                raise SleuthError(f"'{'/'.join(parts[:k])}' is both a file and the folder "
                                  f"of '{name}' in the upload")


def _limits(count: int, size: int) -> None:
    if count > MAX_FILES:
        raise TooLarge(f"an upload carries at most {MAX_FILES} files, not {count}")
    if size > MAX_DATA:
        raise TooLarge(f"the data files are larger than {MAX_DATA // 2**20} MiB in all")


def keep(uploads: Path, name: str, text: str, files: dict[str, bytes]) -> Path:
    """Check the upload as `sleuth check` does, from a staging folder, then keep it in
    `uploads/<digest>-<stem>/`; the spec's path there."""
    stem = NAME_RE.sub("-", Path(name).stem).strip("-.") or "upload"
    digest = hashlib.sha256(text.encode("utf-8"))
    for k in sorted(files):
        digest.update(k.encode("utf-8") + b"\0" + files[k] + b"\0")
    final = uploads / f"{digest.hexdigest()[:12]}-{stem}"
    spec = f"{stem}.yaml"
    if (final / spec).is_file():
        return final / spec
    staging = uploads / f".staging-{secrets.token_hex(6)}"
    try:
        staging.mkdir(parents=True)
        for rel, content in files.items():
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            (staging / rel).write_bytes(content)
        (staging / spec).write_text(text, encoding="utf-8")  # last: the spec's text wins
        try:
            load_game(staging / spec)
        except SleuthError as err:
            raise _in_upload(err, staging) from None
        try:
            staging.rename(final)
        except OSError:  # the same upload, kept meanwhile by another request
            if not (final / spec).is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final / spec


def _in_upload(err: SleuthError, staging: Path) -> Unprocessable:
    """The error with the staging folder's paths made relative to the upload."""
    def clean(text: str | None) -> str | None:
        if text is None:
            return None
        for root in {str(staging), str(staging.resolve())}:
            text = text.replace(root + "/", "").replace(root, ".")
        return text

    loc = None if err.loc is None else Loc(clean(str(err.loc.file)) or "", err.loc.line,
                                           err.loc.col)
    return Unprocessable(clean(err.message) or "", loc, clean(err.hint))


__all__ = ["MAX_DATA", "MAX_FILES", "MAX_UPLOAD", "TooLarge", "Unprocessable", "Unsupported",
           "keep",
           "relative_name", "unpack"]

"""How much a server's pages may store: sessions, uploads and disk, each with a limit.

Every write a request asks for (a new session, an upload, a step) is checked first; a
full quota is a 429 JSON answer that says which limit and how to raise it, and nothing
is written. The disk in use is what the sessions folder holds (sessions and uploaded
specs), measured at most once every DISK_EVERY seconds.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sleuth.compiler.api import SleuthError

SESSIONS = 1000  # session files in the folder
UPLOADS = 200  # uploaded specs kept
DISK_MB = 256  # MiB the sessions folder may hold in all
DISK_EVERY = 1.0  # seconds a disk measurement is trusted for


class QuotaFull(SleuthError):
    """A write refused because a quota of the server is full."""

    status = 429


def folder_bytes(folder: Path) -> int:
    """Bytes of the files under `folder` (what they hold, not their blocks)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


@dataclass
class Quotas:
    """The limits of one server over its sessions folder (`sleuth serve --max-...`)."""

    folder: Path
    sessions: int = SESSIONS
    uploads: int = UPLOADS
    disk_mb: int = DISK_MB
    _disk: tuple[float, int] = (0.0, 0)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def disk_bytes(self) -> int:
        with self._lock:
            when, used = self._disk
            if time.monotonic() - when > DISK_EVERY:
                used = folder_bytes(self.folder)
                self._disk = (time.monotonic(), used)
            return used

    def wrote(self, size: int) -> None:
        """Count `size` bytes written since the last measurement."""
        with self._lock:
            when, used = self._disk
            self._disk = (when, used + size)

    def room(self, size: int) -> None:
        """Refuse a write of about `size` bytes that the disk quota has no room for."""
        if self.disk_bytes() + size > self.disk_mb * 2**20:
            raise QuotaFull(f"the server's sessions folder is full ({self.disk_mb:,} MiB)",
                            hint="delete old sessions or uploads, or start the server "
                                 "with a larger --max-disk-mb")

    def new_session(self) -> None:
        count = sum(1 for _ in self.folder.glob("*.json"))
        if count >= self.sessions:
            raise QuotaFull(f"the server keeps at most {self.sessions:,} sessions",
                            hint="delete old sessions, or start the server with a larger "
                                 "--max-sessions")
        self.room(64 * 1024)

    def new_upload(self, size: int) -> None:
        uploads = self.folder / "specs"
        count = sum(1 for p in uploads.iterdir() if not p.name.startswith(".")) \
            if uploads.is_dir() else 0
        if count >= self.uploads:
            raise QuotaFull(f"the server keeps at most {self.uploads:,} uploaded specs",
                            hint="start the server with a larger --max-uploads")
        self.room(size)


__all__ = ["DISK_MB", "SESSIONS", "UPLOADS", "QuotaFull", "Quotas", "folder_bytes"]

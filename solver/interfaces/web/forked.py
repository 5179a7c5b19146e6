"""Work in a forked copy of the server, so that a long computation never delays an answer.

A suggestion may hold the interpreter's lock for most of a second at a time (a large
`np.unique`, a garbage collection, a compile); on a worker thread that stalls every
other request, and the 2-second first answer with it. `Forked(work, loaded).run()` runs
`work` in a child forked by compiler/guard.py's `in_child`: the child sees the server's
loaded games and beliefs as they are (copy on write: nothing reloaded or replayed),
computes, and sends its answer back; the server's thread only waits on a pipe.

What the child computed once for the game (a feedback matrix, kept in the game's memo)
comes back with the answer and is adopted by the server's copy (`Loaded.adopt`), so the
next child starts from it; an entry that does not pickle is computed again where it is
needed. The entries' arrays travel through a temporary file, read back in one piece
rather than through the pipe and its copies. The child says when it starts compiling kernels
(`compiling`, a byte of memory shared with the server), which a pending answer reports.
`kill()` gives the work up (the page moved on); the child dies with the server.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import signal
import tempfile
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from sleuth.compiler.api import SleuthError, compiling, crash, in_child
from sleuth.solver.interfaces.web.library import Loaded


class GivenUp(SleuthError):
    """A suggestion given up before it was worked out (a newer step was asked about)."""

    status = 409


class Forked:
    """`work()` for the game `loaded`, run in a forked child (see the module's text)."""

    def __init__(self, work: Callable[[], Any], loaded: Loaded, what: str = "a suggestion"):
        self.work = work
        self.loaded = loaded
        self.what = what
        self._flag = mmap.mmap(-1, 1)  # shared with the child: 1 once it compiles
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._killed = False

    @property
    def compiling(self) -> bool:
        """Whether the child said it is compiling kernels."""
        return self._flag[0] == 1

    def run(self) -> Any:
        """The work's answer, after adopting what the child kept for the game; the work's
        SleuthError raised again here; GivenUp after `kill()`."""
        loaded, memo = self.loaded, self.loaded.game.memo
        before = set(memo.own())
        with tempfile.TemporaryFile() as arrays:
            def step() -> tuple[Any, Parcel]:
                loaded.detach()
                compiling.on_first_compile(lambda: self._flag.__setitem__(0, 1))
                answer = self.work()
                return answer, kept(memo.own(), before, arrays)

            end = in_child(step, what=self.what, hold=(loaded.lock,), started=self._started)
            with self._lock:
                self._pid = None
                if self._killed:
                    raise GivenUp(f"{self.what} was given up: the page asked about another "
                                  "step")
            if end.kind == "error":
                raise end.value
            if end.kind != "ok":
                raise crash(self.what, end)
            answer, entries = end.value
            loaded.adopt(unpacked(entries, arrays))
        return answer

    def kill(self) -> None:
        """Give the work up: its child is killed at once (or as soon as it starts)."""
        with self._lock:
            self._killed = True
            if self._pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self._pid, signal.SIGKILL)

    def _started(self, pid: int) -> None:
        with self._lock:
            self._pid = pid
            if self._killed:
                os.kill(pid, signal.SIGKILL)


Parcel = tuple[bytes, list[tuple[int, int]]]  # a pickle, and its arrays' (offset, size)


def kept(entries: dict[Any, Any], before: set[Any], arrays: BinaryIO) -> Parcel:
    """The entries not in `before`, pickled together (an object two keys share stays
    one), their arrays' bytes written to the file `arrays` (a matrix of hundreds of MB
    crosses no pipe, and is read back in one piece); an entry that does not pickle is
    left out."""
    fresh = {}
    for key, value in entries.items():
        if key in before:
            continue
        try:  # the arrays are only looked at here, not copied
            pickle.dumps((key, value), protocol=5, buffer_callback=lambda buffer: None)
        except Exception:  # noqa: BLE001 - a value that does not pickle is made again
            continue
        fresh[key] = value
    buffers: list[pickle.PickleBuffer] = []
    blob = pickle.dumps(fresh, protocol=5, buffer_callback=buffers.append)
    spans = []
    for buffer in buffers:
        raw = buffer.raw()
        spans.append((arrays.tell(), raw.nbytes))
        arrays.write(raw)
    arrays.flush()
    return blob, spans


def unpacked(parcel: Parcel, arrays: BinaryIO) -> dict[Any, Any]:
    """The entries `kept` sent, their arrays read from the file in one piece (the read
    lets other threads run) and used where they lie, not copied again."""
    blob, spans = parcel
    size = os.fstat(arrays.fileno()).st_size
    held = bytearray(size)
    arrays.seek(0)
    if arrays.readinto(held) != size:
        raise OSError("the child's arrays were cut short")
    view = memoryview(held)
    return pickle.loads(blob, buffers=[view[at:at + n] for at, n in spans])


__all__ = ["Forked", "GivenUp"]

"""Long computations the page starts and watches: a design analysis of a spec.

A job runs on a worker thread. It reports its progress (stage, done, total) through the
analysis's own progress hook, which is also where a cancelled job stops: the hook
raises, the analysis unwinds, and the job is marked cancelled. The page polls a job's
state; finished jobs are kept (the newest MAX_KEPT) so a result can be read again.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sleuth.compiler.api import SleuthError

MAX_KEPT = 50
Progress = Callable[[str, int, int], None]


class Cancelled(Exception):
    """Raised in a cancelled job's progress hook."""


class Job:
    def __init__(self, what: str):
        self.id = secrets.token_hex(6)
        self.what = what
        self.state = "queued"  # queued | running | done | failed | cancelled
        self.stage, self.done, self.total = "", 0, 0
        self.result: Any = None
        self.error: dict[str, Any] | None = None
        self.cancel = threading.Event()
        self.started = time.time()

    def progress(self, stage: str, done: int, total: int) -> None:
        if self.cancel.is_set():
            raise Cancelled
        self.stage, self.done, self.total = stage, done, total

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "what": self.what, "state": self.state, "stage": self.stage,
               "done": self.done, "total": self.total,
               "seconds": round(time.time() - self.started, 2)}
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


class Jobs:
    """The jobs of one server, run on at most `workers` threads at once."""

    def __init__(self, workers: int = 2):
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sleuth-job")
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    def start(self, what: str, work: Callable[[Progress], Any],
              error: Callable[[SleuthError], dict[str, Any]]) -> Job:
        job = Job(what)
        with self.lock:
            self.jobs[job.id] = job
            for old in list(self.jobs)[:-MAX_KEPT]:
                if self.jobs[old].state not in ("queued", "running"):
                    del self.jobs[old]

        def run() -> None:
            if job.cancel.is_set():
                job.state = "cancelled"
                return
            job.state = "running"
            try:
                job.result = work(job.progress)
                job.state = "done"
            except Cancelled:
                job.state = "cancelled"
            except SleuthError as err:
                job.error, job.state = error(err), "failed"

        self.pool.submit(run)
        return job

    def get(self, ident: str) -> Job:
        job = self.jobs.get(ident)
        if job is None:
            raise SleuthError(f"no job '{ident}'")
        return job

    def cancel(self, ident: str) -> Job:
        job = self.get(ident)
        job.cancel.set()
        if job.state == "queued":
            job.state = "cancelled"
        return job

    def close(self) -> None:
        for job in self.jobs.values():
            job.cancel.set()
        self.pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["Cancelled", "Job", "Jobs"]

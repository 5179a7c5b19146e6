"""Tasks handed to Dask's workers one per free worker, in the order they are given.

Dask places a task on a worker when it is submitted, by its guess of each worker's
load, and a worker runs the tasks placed on it. Given a level's parts largest first,
the workers do not start them in that order: smaller parts can start before larger
ones, and a part sent later can wait behind small ones while the other worker runs the
large parts one after another, so the split ends later than an even share would.
Priorities do not help: a task already placed on a busy worker waits there while
another worker is free.

So the driver keeps the tasks itself and sends one only to a worker that is free,
naming it: each worker holds one task at a time, and each time one ends the next in
line goes to the worker it ran on. The workers then take the tasks in the given order,
each the next as it becomes free, as a list scheduler does. (Two tasks sent at once
without a worker named can both go to one worker while the other waits.) The name is
binding: with a loose one (`allow_other_workers`), Dask's work stealing can move a task
from a worker still building its game to the busy one, leaving the first idle. A task
costs the driver one round trip more, small beside the split's tasks. A worker that
leaves during a run takes its task with it: the run waits for a worker of that
address, as any Dask task bound to a worker does.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from typing import Any


class Dispatcher:
    """A line of tasks in the driver, sent to the workers at `addresses` one task per
    worker at a time. `put` gives each task a `concurrent.futures.Future` that ends with
    the task's result or error."""

    def __init__(self, client: Any, addresses: list[str]):
        self.client = client
        self.free = list(addresses)  # the workers holding no task of this line
        self.waiting: deque[tuple[Future, Callable[..., Any], tuple]] = deque()
        self.sent: dict[Future, tuple[Any, str]] = {}  # a task sent: its Dask future, worker
        self.lock = threading.RLock()

    def put(self, fn: Callable[..., Any], *args: Any) -> Future:
        """fn(*args), sent when its turn comes; its future."""
        handle: Future = Future()
        with self.lock:
            self.waiting.append((handle, fn, args))
        self._send()
        return handle

    def cancel(self, handles: list[Future]) -> None:
        """These tasks are not wanted: one still waiting is never sent, one sent is
        cancelled on the cluster (it finishes if it has started, unheard)."""
        with self.lock:
            sent = [self.sent.pop(h) for h in handles if h in self.sent]
            for h in handles:
                h.cancel()  # (a task sent is running for its future: it stays so)
            # its worker takes the next task (behind it, if it has started)
            self.free += [address for _, address in sent]
        if sent:
            self.client.cancel([future for future, _ in sent])
        self._send()

    def close(self) -> None:
        """No more tasks go: those waiting are cancelled, and those sent end with
        `CancelledError` for whoever waits on them (the client is closing)."""
        with self.lock:
            self.free = []
            waiting, sent = [h for h, _, _ in self.waiting], list(self.sent)
            self.waiting.clear()
            self.sent.clear()
        for handle in waiting:
            handle.cancel()
        for handle in sent:
            handle.set_exception(CancelledError())

    def _send(self) -> None:
        with self.lock:
            while self.waiting and self.free:
                handle, fn, args = self.waiting.popleft()
                if not handle.set_running_or_notify_cancel():
                    continue  # cancelled while it waited
                address = self.free.pop(0)
                future = self.client.submit(fn, *args, pure=False, workers=[address],
                                            allow_other_workers=False)
                self.sent[handle] = (future, address)
                future.add_done_callback(lambda f, h=handle: self._ended(h, f))

    def _ended(self, handle: Future, future: Any) -> None:
        """A sent task's Dask future has ended (in a thread of the client's)."""
        with self.lock:
            sent = self.sent.get(handle)
            mine = sent is not None and sent[0] is future
            if mine:  # (else cancelled: nobody waits for it, its worker is free again)
                del self.sent[handle]
                self.free.append(sent[1])
        if mine:
            try:
                result = future.result()
            except BaseException as err:  # the task's error, for whoever waits on it
                handle.set_exception(err)
            else:
                handle.set_result(result)
        self._send()


__all__ = ["Dispatcher"]

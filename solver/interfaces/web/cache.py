"""What the server keeps in memory, within a budget: least recently used out first.

The server keeps each loaded game (its hypothesis table, its queries' feedback
matrices) so that the next request on it is fast; without a bound, every (spec, params)
pair a page ever asked for would stay. A `Cache` holds values by key with a measured
size each, and when their sizes pass the budget it drops the least recently used until
they fit again (the newest always stays, even alone over the budget: it is in use).
Whoever holds a dropped value elsewhere hears of it (`on_drop`) and lets go too, and
the memory goes back to the system (`give_back`), so the process shrinks again.

A value's size is measured, not declared: `measured(value, grown)` is the larger of the
numpy arrays reachable from it and the growth of the process's resident memory while
it was built (which also sees what numpy does not: a decision diagram's C heap).
"""

from __future__ import annotations

import ctypes
import gc
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

import numpy as np

V = TypeVar("V")
REACH = 200_000  # objects `reachable_bytes` looks at, at most


def resident_bytes() -> int:
    """The process's resident memory now (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    except OSError:
        return 0


def reachable_bytes(value: Any) -> int:
    """Bytes of the numpy arrays reachable from `value` through Sleuth's own objects and
    the containers they hold, each array's memory counted once."""
    seen: set[int] = set()
    bases: set[int] = set()
    total = 0
    stack = [value]
    while stack and len(seen) < REACH:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            base = obj
            while isinstance(base.base, np.ndarray):
                base = base.base
            if id(base) not in bases:
                bases.add(id(base))
                total += base.nbytes
            continue
        if isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        elif type(obj).__module__.startswith("sleuth"):
            stack.extend(getattr(obj, "__dict__", {}).values())
            for slot in getattr(type(obj), "__slots__", ()):
                if hasattr(obj, slot):
                    stack.append(getattr(obj, slot))
    return total


def measured(value: Any, grown: int) -> int:
    """A value's size: its reachable arrays, or the resident growth it cost if more."""
    return max(reachable_bytes(value), grown, 1)


def give_back() -> None:
    """Free what the dropped values held and hand the free pages back to the system."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class Cache(Generic[V]):
    """Values by key within `budget` bytes, least recently used dropped first."""

    def __init__(self, budget: int, on_drop: Callable[[Hashable, V], None] | None = None):
        self.budget = budget
        self.on_drop = on_drop
        self.lock = threading.Lock()
        self.entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()

    def get(self, key: Hashable) -> V | None:
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return None
            self.entries.move_to_end(key)
            return entry[0]

    def put(self, key: Hashable, value: V, size: int) -> None:
        """Keep `value` (or set the size of the one kept) and drop what no longer fits."""
        with self.lock:
            self.entries[key] = (value, size)
            self.entries.move_to_end(key)
            dropped = []
            while len(self.entries) > 1 and self.used() > self.budget:
                dropped.append(self.entries.popitem(last=False))
        if dropped:
            self._tell(dropped)  # its frame, holding the last references, is gone after
            give_back()

    def _tell(self, dropped: list[tuple[Hashable, tuple[V, int]]]) -> None:
        """Whoever holds the dropped values hears of them; the list is emptied."""
        for old, (gone, _size) in dropped:
            if self.on_drop is not None:
                self.on_drop(old, gone)
        dropped.clear()

    def resize(self, key: Hashable, size: int) -> None:
        """A kept value grew (it built something it keeps): its new size counts."""
        value = self.get(key)
        if value is not None:
            self.put(key, value, size)

    def used(self) -> int:
        return sum(size for _, size in self.entries.values())

    def sizes(self) -> dict[Hashable, int]:
        with self.lock:
            return {k: size for k, (_, size) in self.entries.items()}


__all__ = ["Cache", "give_back", "measured", "reachable_bytes", "resident_bytes"]

"""The one cache mechanism: a `Memo` per object, for values computed once from it.

    self.memo = Memo()                 an object's own store
    @memoised                          a computed attribute kept in self.memo
    memo.get(key, make)                compute once, by key
    memo.own() / memo.put(key, value)  what a copy computed, adopted by the original
    memo.bounded(region, key, make)    kept while a region's byte budget allows (LRU)

A derived object shares entries with the one it came from by naming a parent
and which keys are shared (`Memo(parent, shared=...)`): a restricted game
reuses its game's query spaces and feedback coders, which do not depend on
the hypotheses. Nothing else caches per object, and nothing writes into an
object's `__dict__`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def _unshared(key: Hashable) -> bool:
    """A memo with no parent shares no key (a function, not a lambda: a memo pickles)."""
    return False


class Memo:
    """Values computed once, by key; optionally bounded regions (least recently used out)."""

    def __init__(self, parent: Memo | None = None,
                 shared: Callable[[Hashable], bool] | None = None):
        self._values: dict[Hashable, Any] = {}
        self._regions: dict[str, OrderedDict[Hashable, tuple[Any, int]]] = {}
        self._held: dict[str, int] = {}  # bytes each region holds
        self._parent = parent
        self._shared = shared or _unshared

    def _owner(self, key: Hashable) -> Memo:
        if self._parent is not None and self._shared(key):
            return self._parent._owner(key)
        return self

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        """The value for key, computed by make() the first time."""
        owner = self._owner(key)
        if key not in owner._values:
            owner._values[key] = make()
        return owner._values[key]

    def put(self, key: Hashable, value: Any) -> None:
        self._owner(key)._values[key] = value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._owner(key)._values

    def own(self) -> dict[Hashable, Any]:
        """The values this memo holds itself (not its parent's, nor its regions'): what
        a copy of it computed, to be adopted by the original (`put` each one missing)."""
        return dict(self._values)

    def bounded(self, region: str, key: Hashable, make: Callable[[], T],
                size: Callable[[T], int], capacity: int, largest: int) -> T:
        """The value for key in a region holding at most `capacity` bytes: values larger
        than `largest` are computed and not kept; the least recently used go first."""
        lru = self._regions.setdefault(region, OrderedDict())
        if key in lru:
            lru.move_to_end(key)
            return lru[key][0]
        value = make()
        n = size(value)
        if n <= largest:
            lru[key] = (value, n)
            held = self._held.get(region, 0) + n
            while held > capacity:
                held -= lru.popitem(last=False)[1][1]
            self._held[region] = held
        return value


class memoised(Generic[T]):
    """A computed attribute kept in the object's `memo` (its name is the key)."""

    def __init__(self, fn: Callable[[Any], T]):
        self.fn = fn
        self.key = (fn.__name__,)
        self.__doc__ = fn.__doc__

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return obj.memo.get(self.key, lambda: self.fn(obj))


__all__ = ["Memo", "memoised"]

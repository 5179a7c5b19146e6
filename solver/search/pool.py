"""What a strategy that splits its own search over worker processes asks of them.

The split optimal search (search/split.py) sends tasks to a pool of workers and
rebuilds its game and strategy in each from a recipe. Both are evaluation/cluster.py's
(`Workers`, `Recipe`), which builds strategies by name; a strategy knows them only by
these protocols, so that the strategies never import the evaluation that runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Protocol


class Recipe(Protocol):
    """How a worker rebuilds the game and the strategy a task runs on."""

    def built(self) -> AbstractContextManager[tuple[Any, Any]]:
        """(game, strategy), made once per process, for one task at a time."""
        ...


class Flow(Protocol):
    """Tasks sent one at a time, their results heard as they arrive."""

    def room(self) -> bool: ...

    def send(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def adopt(self, future: Any) -> None: ...

    def cancel(self, futures: list[Any]) -> None: ...

    def arrivals(self) -> Iterator[Any]: ...


class Pool(Protocol):
    """Worker processes that run tasks in the order they are sent."""

    size: int

    def submit(self, fn: Callable[..., Any], items: Iterable[tuple]) -> list[Any]: ...

    def ahead(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def take_opening(self) -> list[Any]: ...

    def cancel(self, futures: list[Any]) -> None: ...

    def results(self, futures: list[Any],
                done: Callable[[int, Any], None] | None = None) -> list[Any]: ...

    def flow(self, window: int | None = None) -> Flow: ...


__all__ = ["Flow", "Pool", "Recipe"]

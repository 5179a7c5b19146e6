"""Sleuth: deduction games as specs, compiled and solved.

    import sleuth
    game = sleuth.load("mastermind")
    belief = sleuth.observe(sleuth.belief(game), "guess", {"g": [1, 1, 2, 2]},
                            {"black": 1, "white": 0})
    print(sleuth.suggest(belief), belief.size, belief.entropy_bits())
    print(sleuth.evaluate(game, strategy="minimax").total)

The API is in `sleuth.solver.interfaces.api` (see docs/api.md); names are loaded
on first use, so `import sleuth` (and the `sleuth` command) stays fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_API = {
    "load": "sleuth.solver.interfaces.api",
    "belief": "sleuth.solver.interfaces.api",
    "observe": "sleuth.solver.interfaces.api",
    "suggest": "sleuth.solver.interfaces.api",
    "strategy": "sleuth.solver.interfaces.api",
    "evaluate": "sleuth.solver.interfaces.api",
    "analyse": "sleuth.solver.interfaces.api",
    "feedback": "sleuth.solver.interfaces.api",
    "simulate": "sleuth.solver.interfaces.api",
    "Suggestion": "sleuth.solver.interfaces.api",
    "STRATEGIES": "sleuth.solver.strategies",
    "BACKENDS": "sleuth.solver.infoset.backends",
    "InformationSet": "sleuth.solver.infoset.protocol",
    "InconsistentObservations": "sleuth.solver.infoset.belief",
    "Game": "sleuth.compiler.api",
    "SleuthError": "sleuth.compiler.api",
    "SpecError": "sleuth.compiler.api",
    "ObservationError": "sleuth.compiler.api",
    "bundled_specs": "sleuth.compiler.api",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        return version("sleuth")
    if name in _API:
        value = getattr(import_module(_API[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'sleuth' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])


__all__ = ["__version__", *_API]

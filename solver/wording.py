"""Counts in words: "1 hypothesis", "2 hypotheses" (every message that counts a noun)."""

from __future__ import annotations

PLURALS = {"hypothesis": "hypotheses", "query": "queries", "class": "classes",
           "secret": "secrets", "remains": "remain", "is": "are"}


def plural(n: int, noun: str) -> str:
    """The noun as it goes with n (its plural from PLURALS, else with an s)."""
    return noun if n == 1 else PLURALS.get(noun, noun + "s")


def counted(n: int, noun: str) -> str:
    """n and the noun, with thousands separators: '1 hypothesis', '1,296 hypotheses'."""
    return f"{n:,} {plural(n, noun)}"


__all__ = ["counted", "plural"]

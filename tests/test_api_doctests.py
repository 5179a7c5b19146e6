"""The public API's docstrings (solver/interfaces/api.py, numpydoc): every example runs
as written and prints what it says."""

from __future__ import annotations

import doctest

import sleuth
from sleuth.solver.interfaces import api

SPEC = "mastermind"  # the examples' code-breaking game (the API's docstring says which)


def test_every_example_in_the_api_s_docstrings_runs_as_written():
    game = sleuth.load(SPEC, pegs=3, colours=3)
    result = doctest.testmod(api, extraglobs={"sleuth": sleuth, "SPEC": SPEC, "game": game},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 20 and result.failed == 0, result


def test_every_public_function_has_an_example():
    for name in api.__all__:
        doc = getattr(api, name).__doc__ or ""
        assert "Examples\n" in doc and ">>> " in doc, name

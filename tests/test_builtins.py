"""The builtins registry, cross-checked entry by entry.

For every builtin (BUILTINS) and every aggregate (AGGREGATES), each of its declared
examples is compiled as the feedback of a probe spec, and its meanings are compared:
the vectorised kernel with the reference interpreter on every (query, hypothesis)
pair of a sample of queries, and the boolean lowering's count of each feedback value
(a decision diagram) with the enumerated partition. An entry without examples, or
whose examples none lower, fails: adding a builtin means showing all its meanings agree.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sleuth.compiler.builtins import AGGREGATES, BUILTINS
from sleuth.compiler.errors import SpecError
from sleuth.compiler.game import load_game_text

PROBE = """
game: Builtins probe
domains:
  N: {{range: "0..3"}}
  Col: {{enum: [red, green, blue]}}
secret:
  x: N
  s: {{seq: N, len: 2}}
  c: Col
queries:
  probe:
    args: {{y: N, t: {{set: N}}, u: {{set: N}}}}
    feedback: "{expr}"
"""
QUERIES = 8  # sampled argument tuples (of 1,024) per example

ENTRIES = [(f"builtin {b.name}", b.examples) for b in BUILTINS.values()] + \
          [(f"aggregate {a.name}", a.examples) for a in AGGREGATES.values()]


def check(expr: str) -> bool:
    """Kernel == interpreter on a sample of queries x every hypothesis; the lowering's
    counts == the enumerated partition (where the expression lowers). Returns whether
    it lowered."""
    game = load_game_text(PROBE.format(expr=expr), f"<{expr}>")
    space = game.space("probe")
    ranks = np.linspace(0, space.size - 1, QUERIES).astype(np.int64)
    table = game.hypotheses
    coder = game.coder("probe")
    codes = game.feedback_matrix("probe", ranks)
    for q, rank in enumerate(ranks):
        args = space.value(int(rank))
        for h in range(table.size):
            want = game.reference_feedback("probe", args, table.value(h))
            assert coder.decode(int(codes[q, h])) == want, (expr, args, table.value(h))
    try:
        symbolic = game.symbolic
        lowered = [symbolic.lowering.feedback_values("probe", space.value(int(r)))
                   for r in ranks]
    except SpecError as err:
        assert "cannot lower" in err.message, err.message
        return False
    for q, formulas in enumerate(lowered):
        by_lowering = {key: n for key, f in formulas.items()
                       if (n := symbolic.count(symbolic.condition(symbolic.base, f)))}
        by_kernel = Counter(tuple(coder.decode(int(c)).values()) for c in codes[q])
        assert by_lowering == dict(by_kernel), expr
    return True


@pytest.mark.parametrize("entry, examples", ENTRIES, ids=[e for e, _ in ENTRIES])
def test_every_meaning_of_every_entry_agrees(entry, examples):
    assert examples, f"{entry} declares no examples to cross-check"
    lowered = [check(expr) for expr in examples]
    assert any(lowered), f"none of {entry}'s examples lowers to boolean form"


def test_registry_covers_every_name_the_language_accepts():
    """Every aggregate is also a builtin name (its one-argument form over a sequence)."""
    assert set(AGGREGATES) <= set(BUILTINS)

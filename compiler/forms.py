"""The forms a response's likelihood may take, one entry each.

A form says how P(answer | hypothesis) follows from the spec's expression:

* `uniform`: no expression; each legal, valid answer equally likely.
* `weight`: P proportional to the expression over the legal, valid answers.
* `density`: P is the expression, a density over continuous answers (no
  normaliser is needed for Bayes' rule, and none is computed).
* `probability`: P is the expression itself, as a source defines it: not
  renormalised. It must lie in [0, 1], and wherever the answers are enumerated
  it must sum to 1 over them (the spec says where every bit of mass goes).

A new form is one entry here; the checker and the likelihood code read its
flags, never its name.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LikelihoodForm:
    name: str
    takes_expression: bool
    normalised: bool  # P is the expression's share over the legal, valid answers of h
    continuous: bool  # the answers may be continuous (nothing is enumerated)
    exact: bool  # the expression is P itself: in [0, 1], summing to 1 over the answers
    example: str


FORMS: dict[str, LikelihoodForm] = {f.name: f for f in (
    LikelihoodForm("uniform", False, True, False, False, "likelihood: uniform"),
    LikelihoodForm("weight", True, True, False, False, "likelihood: {weight: expr}"),
    LikelihoodForm("density", True, False, True, False, "likelihood: {density: expr}"),
    LikelihoodForm("probability", True, False, False, True, "likelihood: {probability: expr}"),
)}
WITH_EXPRESSION = tuple(name for name, f in FORMS.items() if f.takes_expression)

__all__ = ["FORMS", "WITH_EXPRESSION", "LikelihoodForm"]

"""Which queries can be secrets: a guess that could be the code.

A query can be a secret when its arguments have exactly the secret variables'
domains, in order, or sequences of one element domain of which one is a word
list (a guess list that includes the secret's). Each such query is matched to the
secret it equals by product rank (`secret_ranks`), which is what tie-break K and
`--guesses consistent` use.
"""

from __future__ import annotations

import numpy as np

from sleuth.compiler.api import CheckedAction, Domain, Game, domain_size, translate_ranks


def same_domain(a: Domain, b: Domain) -> bool:
    """Same values in the same canonical order."""
    if a.type != b.type or a.sizes != b.sizes or a.length != b.length:
        return False
    if (a.listed is None) != (b.listed is None) or (
            a.listed is not None and not np.array_equal(a.listed, b.listed)):
        return False
    if (a.elem is None) != (b.elem is None):
        return False
    if a.elem is not None and not same_domain(a.elem, b.elem):
        return False
    return len(a.fields) == len(b.fields) and all(
        n1 == n2 and same_domain(d1, d2) for (n1, d1), (n2, d2) in zip(a.fields, b.fields,
                                                                         strict=True))


def can_be_secret(game: Game, action: CheckedAction) -> bool:
    """Whether the action's arguments hold the secret's values: the same domains, in order,
    or sequences of one element domain of which one is a word list (a query then is the
    secret it equals, if there is one)."""
    secret = game.model.secret
    return len(action.args) == len(secret) and all(
        same_domain(a.domain, v.domain) or translate_ranks(v.domain, a.domain, np.zeros(1, int))
        is not None for a, v in zip(action.args, secret, strict=True))


def secret_ranks(game: Game, action: CheckedAction, ranks: np.ndarray) -> np.ndarray | None:
    """Each query's equal secret as a product rank in the secret's product (-1: none), for
    an action whose queries can be secrets; None otherwise."""
    if not can_be_secret(game, action):
        return None
    secret = game.model.secret
    if all(same_domain(a.domain, v.domain) for a, v in zip(action.args, secret, strict=True)):
        return ranks
    digits, r = [], np.asarray(ranks, dtype=np.int64)
    for a in reversed(action.args):
        n = domain_size(a.domain)
        digits.append(r % n)
        r = r // n
    out = np.zeros(len(ranks), dtype=np.int64)
    bad = np.zeros(len(ranks), dtype=bool)
    for a, v, d in zip(action.args, secret, reversed(digits), strict=True):
        mapped = d if same_domain(a.domain, v.domain) else translate_ranks(a.domain, v.domain, d)
        bad |= mapped < 0
        out = out * domain_size(v.domain) + np.maximum(mapped, 0)
    return np.where(bad, -1, out)


__all__ = ["can_be_secret", "same_domain", "secret_ranks"]

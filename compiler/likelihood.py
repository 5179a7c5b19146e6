"""P(answer | hypothesis) for `response` queries, from the spec's likelihood form.

* `uniform`: the responder picks uniformly among the answers that are legal
  (the right shape for the question) and valid (truthful for the hypothesis):
  P = 1 / #(legal and valid answers for h), counted per hypothesis by
  enumerating the whole answer domain.
* `{weight: w}`: P proportional to w over the legal and valid answers of h.
* `{density: f}`: P is the density f(answer, h) where valid (continuous
  answers; no normaliser is needed for Bayes' rule, and none is computed).
* `{probability: f}`: P is f(answer, h) itself, as a source defines it: not
  renormalised; checked to lie in [0, 1] and, wherever every answer is
  computed, to sum to 1 over the answers of each hypothesis.

The forms' flags are in forms.py.

With `tremble: e` the responder is off-model with probability e and then picks
uniformly among the legal answers: P = (1 - e) P_model + e / #legal. An answer
the model calls impossible under every hypothesis is then still evidence, not
a contradiction.

Answers are rows of a kernel block (like query arguments), hypotheses its
columns, so one evaluation gives a whole (answers x hypotheses) matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.check import CheckedAction, Response
from sleuth.compiler.domains import domain_size, from_python, unrank
from sleuth.compiler.enumerate import rank_of, rows_per_chunk, shaped
from sleuth.compiler.errors import BudgetError, ObservationError, option
from sleuth.compiler.game import Game, as_column
from sleuth.compiler.vectorise import Ctx


def response_of(game: Game, action: str) -> tuple[CheckedAction, Response]:
    a = game.model.action(action)
    if a.response is None:
        raise ObservationError(f"'{action}' has a deterministic feedback, not a response")
    return a, a.response


TABLE_BYTES = 8 << 20  # an (answers x hypotheses) table this small is kept for reuse


def answer_likelihood(game: Game, action: str, args: dict[str, Any], answer: Any,
                      index: np.ndarray) -> np.ndarray:
    """P(answer | h, args) for the hypotheses at `index` (answer given as a plain value).

    When the answers are finite and few, P(every answer | every hypothesis) is computed
    in one kernel call per (action, args) and kept (least recently used first out):
    simulations and evaluations meet the same question again and again."""
    _, r = response_of(game, action)
    size = game.hypotheses.size
    if r.form.continuous or domain_size(r.answer.domain) * size * 8 > TABLE_BYTES:
        return _answer_likelihood(game, action, args, answer, index)
    return _likelihood_table(game, action, args)[rank_of(r.answer.domain, answer)][index]


def _likelihood_table(game: Game, action: str, args: dict[str, Any]) -> np.ndarray:
    everyone = np.arange(game.hypotheses.size, dtype=np.int64)
    return game.memo.bounded("likelihood", (action, repr(args)),
                             lambda: _every_answer(game, action, args, everyone),
                             size=lambda table: table.nbytes,
                             capacity=game.budget.likelihood_cache_mb << 20,
                             largest=TABLE_BYTES)


def _answer_likelihood(game: Game, action: str, args: dict[str, Any], answer: Any,
                       index: np.ndarray) -> np.ndarray:
    a, r = response_of(game, action)
    t = r.answer.domain.type
    encoded = from_python(t, answer, game.model.strings)
    answers = shaped(as_column(encoded), "row")
    legal, valid, weight = _evaluate(game, a, r, args, answers, index, 1)
    numerator = np.where(valid[0] & legal[0], weight[0], 0.0)
    if r.form.continuous:
        return numerator
    if r.form.normalised:
        total, legal_count = _normaliser(game, a, r, args, index)
        p = np.divide(numerator, total, out=np.zeros_like(numerator), where=total > 0)
    else:
        p = numerator
        legal_count = _normaliser(game, a, r, args, index)[1] if r.tremble else 0
    return tremble(p, bool(legal[0, 0]), legal_count, r.tremble)


def answer_matrix(game: Game, action: str, args: dict[str, Any],
                  index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(answer ranks, P) with P[k, j] = P(answer k | hypothesis index[j]), for the answers
    that have positive probability under some hypothesis."""
    a, r = response_of(game, action)
    if r.form.continuous:
        raise BudgetError(f"'{action}' has continuous answers (a density); its outcomes "
                          "cannot be enumerated to score it",
                          hint="choose it yourself and record the answer as an observation")
    size = domain_size(r.answer.domain)
    if size * len(index) * 16 > game.budget.memory_bytes:
        raise BudgetError(f"scoring '{action}' needs {size:,} answers x {len(index):,} "
                          "hypotheses, over the memory budget", hint=f'raise {option("memory_mb")}')
    p = _every_answer(game, action, args, index)
    keep = p.any(axis=1)
    return np.flatnonzero(keep).astype(np.int64), p[keep]


def _every_answer(game: Game, action: str, args: dict[str, Any],
                  index: np.ndarray) -> np.ndarray:
    """P[k, j] = P(answer of rank k | hypothesis index[j]), every answer in one block."""
    a, r = response_of(game, action)
    size = domain_size(r.answer.domain)
    answers = shaped(unrank(r.answer.domain, np.arange(size, dtype=np.int64)), "row")
    legal, valid, weight = _evaluate(game, a, r, args, answers, index, size)
    w = np.where(legal & valid, weight, 0.0)
    total = w.sum(axis=0)
    if r.form.normalised:
        p = np.divide(w, total, out=np.zeros_like(w), where=total > 0)
    else:
        p = w
        _check_sums_to_one(a, r, args, total, index)
    return tremble(p, legal, int(legal.sum()), r.tremble)


def _check_sums_to_one(a: CheckedAction, r: Response, args: dict[str, Any],
                       total: np.ndarray, index: np.ndarray) -> None:
    """A `probability` likelihood gives P itself: over every answer it must sum to 1."""
    off = np.flatnonzero(np.abs(total - 1.0) > 1e-6)
    if len(off):
        shown = ", ".join(f"{k}={v}" for k, v in args.items())
        raise ObservationError(
            f"the probabilities of '{a.name}' ({shown}) sum to {total[off[0]]:.6g}, not 1, over "
            f"its legal answers for hypothesis #{int(index[off[0]])}",
            r.likelihood_expr.loc if r.likelihood_expr is not None else None,
            hint="a probability likelihood is not renormalised: give the leftover mass to an "
                 "answer (e.g. the call), or use {weight: expr}")


def tremble(p: np.ndarray, legal: Any, legal_count: int, e: float) -> np.ndarray:
    """(1 - e) p + e / #legal on legal answers (0 on the others): the model's P mixed with
    an off-model responder who picks any legal answer."""
    if not e or not legal_count:
        return p
    return (1 - e) * p + np.where(legal, e / legal_count, 0.0)


def answer_value(game: Game, action: str, rank: int) -> Any:
    """The plain Python value of the answer at canonical rank `rank`."""
    from sleuth.compiler.domains import to_python

    _, r = response_of(game, action)
    encoded = unrank(r.answer.domain, np.array([rank], dtype=np.int64))
    return to_python(r.answer.domain.type, encoded, 0, game.model.strings)


def answer_is_legal(game: Game, action: str, args: dict[str, Any], answer: Any) -> bool:
    a, r = response_of(game, action)
    encoded = from_python(r.answer.domain.type, answer, game.model.strings)
    env = {**game.point_env(a.args, args, "row"), "answer": shaped(as_column(encoded), "row")}
    return all(bool(np.all(game.compiler(c)(Ctx(env)))) for c in r.legal)


def _normaliser(game: Game, a: CheckedAction, r: Response, args: dict[str, Any],
                index: np.ndarray) -> tuple[np.ndarray, int]:
    """Σ over legal and valid answers of the weight (1 for uniform), per hypothesis; and
    the number of legal answers."""
    size = domain_size(r.answer.domain)
    total = np.zeros(len(index))
    count = 0
    step = rows_per_chunk(len(index), game.budget, bytes_per_cell=32)
    for lo in range(0, size, step):
        ranks = np.arange(lo, min(size, lo + step), dtype=np.int64)
        answers = shaped(unrank(r.answer.domain, ranks), "row")
        legal, valid, weight = _evaluate(game, a, r, args, answers, index, len(ranks))
        total += np.where(legal & valid, weight, 0.0).sum(axis=0)
        count += int(legal.sum())
    return total, count


def _evaluate(game: Game, a: CheckedAction, r: Response, args: dict[str, Any], answers: Any,
              index: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """legal (rows, 1), valid (rows, H) and weight (rows, H) for a block of answers."""
    h = len(index)
    env = {**game.hypotheses.env(index), **game.point_env(a.args, args, "row"), "answer": answers}
    ctx = Ctx(env)
    legal = np.ones((rows, 1), dtype=bool)
    for c in r.legal:
        legal &= np.broadcast_to(np.asarray(game.compiler(c)(ctx)), (rows, 1))
    valid = np.ones((rows, h), dtype=bool)
    if r.valid is not None:
        valid = np.broadcast_to(np.asarray(game.compiler(r.valid)(ctx)), (rows, h))
    weight = np.ones((rows, h))
    if r.likelihood_expr is not None:
        w = np.broadcast_to(np.asarray(game.compiler(r.likelihood_expr)(ctx), dtype=float),
                            (rows, h))
        bad = (legal & valid) & ~(np.isfinite(w) & (w >= 0))
        if bad.any():
            raise ObservationError(f"the {r.likelihood} likelihood of '{a.name}' is negative or "
                                   "not finite for a legal, valid answer",
                                   r.likelihood_expr.loc)
        if r.form.exact and ((legal & valid) & (w > 1.0 + 1e-9)).any():
            raise ObservationError(f"the probability likelihood of '{a.name}' exceeds 1 for a "
                                   "legal, valid answer", r.likelihood_expr.loc)
        weight = w
    return legal, valid, weight




__all__ = ["answer_is_legal", "answer_likelihood", "answer_matrix", "answer_value"]

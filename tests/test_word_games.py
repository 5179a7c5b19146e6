"""Jotto and Hangman (specs/jotto.yaml, specs/hangman.yaml) on small word lists, their
optimal totals against a brute force written here: the feedback computed by hand (the
letters two words share, as multisets; the places a letter stands), every query tried at
every set, memoised over frozensets of words."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from sleuth.compiler.game import load_game_text
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import make_strategy
from tests.conftest import ROOT

WORDS = ["stare", "tears", "rates", "crane", "slate", "pious", "lemon", "melon", "adobe",
         "eerie", "shall", "lolly"]  # anagrams (stare/tears/rates, lemon/melon), repeats
MORE = ["aeros", "llama"]  # guesses only


def game_of(tmp_path, name: str, params: dict):
    (tmp_path / "words.txt").write_text("\n".join(WORDS) + "\n")
    (tmp_path / "more.txt").write_text("\n".join(MORE) + "\n")
    text = (ROOT / "specs" / f"{name}.yaml").read_text()
    text = text.replace("wordle-answers.txt", "words.txt").replace("wordle-allowed.txt",
                                                                    "more.txt")
    spec = tmp_path / f"{name}.yaml"
    spec.write_text(text)
    return load_game_text(text, str(spec), params)


def common(a: str, b: str) -> int:
    return sum((Counter(a) & Counter(b)).values())


def brute_jotto(guesses: list[str], anagram_wins: bool) -> int:
    @cache
    def cost(left: frozenset) -> int:
        best = None
        for g in guesses:
            parts: dict = {}
            for w in left:
                won = g == w or (anagram_wins and common(g, w) == 5)
                parts.setdefault((common(g, w), won), set()).add(w)
            going = [frozenset(p) for (_, won), p in parts.items() if not won]
            if any(p == left for p in going):
                continue
            total = len(left) + sum(cost(p) for p in going)
            best = total if best is None else min(best, total)
        return best

    return cost(frozenset(WORDS))


def brute_hangman() -> int:
    letters = sorted(set("".join(WORDS)) | {"z"})

    @cache
    def cost(left: frozenset, used: frozenset) -> int:
        if len(left) == 1:
            return 0
        best = None
        for x in letters:
            if x in used:
                continue
            parts: dict = {}
            for w in left:
                parts.setdefault(tuple(ch == x for ch in w), set()).add(w)
            if len(parts) == 1:
                continue
            total = len(left) + sum(cost(frozenset(p), used | {x}) for p in parts.values())
            best = total if best is None else min(best, total)
        return best

    return cost(frozenset(WORDS), frozenset())


@pytest.mark.parametrize("answers_only, anagram_wins", [(True, False), (False, False),
                                                        (True, True)])
def test_jotto_optimum_equals_the_brute_force(tmp_path, answers_only, anagram_wins):
    game = game_of(tmp_path, "jotto", {"answers_only": answers_only,
                                       "anagram_wins": anagram_wins})
    ev = evaluate_strategy(game, make_strategy("optimal", Candidates(game)), "jotto")
    guesses = WORDS if answers_only else WORDS + MORE
    assert ev.total == brute_jotto(guesses, anagram_wins)


def test_hangman_optimum_equals_the_brute_force(tmp_path):
    game = game_of(tmp_path, "hangman", {})
    ev = evaluate_strategy(game, make_strategy("optimal", Candidates(game)), "hangman")
    assert ev.total == brute_hangman()


def test_jotto_feedback_is_the_multiset_intersection(tmp_path):
    game = game_of(tmp_path, "jotto", {"answers_only": False})
    for g in WORDS + MORE:
        for w in WORDS:
            got = game.reference_feedback("guess", {"w": tuple(g)}, {"answer": tuple(w)})
            assert got == {"common": common(g, w), "won": g == w}

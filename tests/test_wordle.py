"""Wordle (specs/wordle.yaml): sequence domains read from word lists, the duplicate-letter
rule, and the game played end to end.

The feedback is checked three ways: hand-worked pairs (the interpreter and the kernels),
the kernels against the reference interpreter on random pairs, and the kernels' whole
matrix against an independent numpy implementation of the rule written here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sleuth.compiler.api import SleuthError, SpecError, load_game, load_game_text
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.interfaces.cli import main
from sleuth.solver.strategies import make_strategy

ROOT = Path(__file__).resolve().parent.parent
WORDLE = ROOT / "specs" / "wordle.yaml"


@pytest.fixture(scope="module")
def game():
    return load_game(WORDLE)


def marks(game, guess: str, answer: str) -> tuple[str, str]:
    """(interpreter, kernels) marks of one pair, as letters b/y/g."""
    q, h = {"w": tuple(guess)}, {"answer": tuple(answer)}
    return ("".join(game.reference_feedback("guess", q, h)["marks"]),
            "".join(game.kernel_feedback("guess", q, h)["marks"]))


@pytest.mark.parametrize("guess, answer, expected", [
    # S, P absent; the first E is yellow (ABIDE has one E), the second grey; D yellow.
    ("speed", "abide", "bbyby"),
    # LEVEL has two Ls, both elsewhere: both Ls of ALLEY are yellow; E is green.
    ("alley", "level", "byygb"),
    # Three Es against two: the last E is green, the first takes the other one (yellow),
    # the middle one is left grey.
    ("eerie", "three", "ybgbg"),
    # Three Ms against two: M green, A green, the next M yellow (MAXIM's last M), the
    # third M grey; the second A grey (MAXIM's only A is green already).
    ("mamma", "maxim", "ggybb"),
    # Greens come first: the R at the end is green, so only one R is left for the two
    # earlier Rs of ERROR: the first is yellow, the second grey.
    ("error", "roger", "yybyg"),
    ("geese", "those", "bbbgg"),
    ("crane", "crane", "ggggg"),
])
def test_hand_checked_pairs(game, guess, answer, expected):
    assert marks(game, guess, answer) == (expected, expected)


def _random_pairs(game, n: int, seed: int):
    rng = np.random.default_rng(seed)
    queries = rng.integers(game.space("guess").size, size=n)
    hyps = rng.integers(game.hypotheses.size, size=n)
    return queries, hyps


def _kernels_agree(game, n: int, seed: int) -> None:
    queries, hyps = _random_pairs(game, n, seed)
    coder = game.coder("guess")
    order = np.argsort(queries, kind="stable")
    for lo in range(0, n, 2000):
        part = order[lo:lo + 2000]
        codes = game.feedback_matrix("guess", queries[part], hyps[part])
        diagonal = codes[np.arange(len(part)), np.arange(len(part))]
        for k, i in enumerate(part.tolist()):
            q = game.space("guess").value(int(queries[i]))
            h = game.hypotheses.value(int(hyps[i]))
            assert coder.decode(int(diagonal[k])) == game.reference_feedback("guess", q, h)


def test_kernels_agree_with_the_interpreter_on_a_sample(game):
    _kernels_agree(game, 3_000, seed=1)


@pytest.mark.slow
def test_kernels_agree_with_the_interpreter_on_100000_pairs(game):
    _kernels_agree(game, 100_000, seed=2)


def _numpy_marks(guesses: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """The rule written directly: green where equal; then, left to right, yellow while the
    answer has copies of the letter not matched green and not claimed by an earlier
    yellow; codes are base 3 (grey 0, yellow 1, green 2), first letter first."""
    out = np.zeros((len(guesses), len(answers)), dtype=np.int64)
    for q, g in enumerate(guesses):
        green = g[None, :] == answers  # (answers, 5)
        code = np.zeros(len(answers), dtype=np.int64)
        left = {}  # letter -> unmatched copies per answer
        for letter in set(g.tolist()):
            left[letter] = ((answers == letter) & ~green).sum(axis=1)
        for i in range(5):
            mark = np.where(green[:, i], 2, 0)
            use = ~green[:, i] & (left[g[i]] > 0)
            mark[use] = 1
            left[g[i]] = left[g[i]] - use
            code = code * 3 + mark
        out[q] = code
    return out


def test_kernels_match_an_independent_implementation(game):
    words = game.space("guess").columns(np.arange(game.space("guess").size))
    guesses = np.stack(words[0], axis=1)
    answers = np.stack(game.hypotheses.columns[0], axis=1)
    rng = np.random.default_rng(3)
    sample = np.sort(rng.choice(len(guesses), size=300, replace=False))
    expected = _numpy_marks(guesses[sample], answers)
    assert np.array_equal(game.feedback_matrix("guess", sample).astype(np.int64), expected)


def test_the_lists_are_read_as_published(game, capsys):
    assert game.hypotheses.size == 2315
    assert game.space("guess").size == 12972
    main(["check", str(WORDLE)])
    out = capsys.readouterr().out
    assert "2,315" in out and "12,972 of 12,972" in out


def test_answers_only_allows_the_answers(game):
    only = load_game(WORDLE, {"answers_only": True})
    legal = np.concatenate(list(only.space("guess").legal_ranks()))
    assert len(legal) == 2315
    words = {"".join(only.space("guess").value(int(r))["w"]) for r in legal[:50].tolist()}
    answers = {"".join(only.hypotheses.value(i)["answer"]) for i in range(2315)}
    assert words <= answers


def test_a_guess_equal_to_the_answer_is_a_possible_secret(game):
    candidates = Candidates(game)
    (block,) = candidates.blocks
    assert block.secret_like
    # every answer is a guess, and the guess equal to it maps to it
    pos = block.positions_of(game.hypotheses.ranks)
    assert (pos >= 0).all()
    assert ["".join(game.space("guess").value(int(block.ranks[p]))["w"]) for p in pos[:3]] == \
        ["".join(game.hypotheses.value(i)["answer"]) for i in range(3)]


@pytest.mark.slow
def test_evaluate_with_a_forced_opener(tmp_path, capsys):
    tree = tmp_path / "t.json"
    main(["evaluate", str(WORDLE), "--strategy", "minimax", "--first", "salet",
          "--tree", str(tree), "--json"])
    data = json.loads(capsys.readouterr().out)
    document = json.loads(tree.read_text())
    assert document["tree"]["query"]["args"]["w"] == list("salet")
    assert data["total"] == document["total"] and data["secrets"] == 2315
    main(["verify-tree", str(tree), str(WORDLE)])
    assert "every one of 2,315 secrets is reached" in capsys.readouterr().out


def test_a_word_not_listed_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", str(WORDLE), "--first", "salex"])
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert "salex is not one of the 12,972 listed values" in err and "Traceback" not in err


def test_play_takes_words_and_marks(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("play guess crane\nbbbbb\nshow\nquit\n"))
    with pytest.raises(SystemExit):  # (quit)
        main(["play", str(WORDLE)])
    out = capsys.readouterr().out
    assert "guess w=crane -> marks=bbbbb" in out


@pytest.mark.slow
def test_the_entropy_opener_and_every_answer_solved(game):
    ev = evaluate_strategy(game, make_strategy("entropy", Candidates(game)), "wordle")
    assert len(ev.lengths) == 2315 and ev.first_query["args"]["w"] == list("soare")
    # The project's own documented result (docs/results.md: 8,020, worst 6), pinned; the
    # published check is the opener above (soare, the entropy opener of the literature).
    assert (ev.total, ev.worst) == (8020, 6)


SPEC = """\
game: Words
domains:
  Letter: {enum: [a, b, c]}
  Word: {seq: Letter, from: %s}
secret: {x: Word}
queries:
  guess:
    args: {w: Word}
    feedback: {same: "count(w[i] == x[i] for i in 0..1)"}
goal: {stop_when: "same == 2"}
"""


@pytest.mark.parametrize("lines, message", [
    ("ab\nabc\n", "has 3 elements, not 2"),
    ("ab\nad\n", "'d' is not an element of Letter"),
    ("\n\n", "the word lists are empty"),
])
def test_word_list_errors_are_located(tmp_path, lines, message):
    (tmp_path / "w.txt").write_text(lines)
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC % "w.txt")
    with pytest.raises(SpecError, match=message) as err:
        load_game(spec)
    assert err.value.loc is not None and err.value.loc.line == 4


def test_word_lists_are_deduplicated_and_sorted(tmp_path):
    (tmp_path / "a.txt").write_text("ca\nab\n")
    (tmp_path / "b.txt").write_text("ab\nbb\n")
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC % "[a.txt, b.txt]")
    game = load_game(spec)
    assert ["".join(game.hypotheses.value(i)["x"]) for i in range(game.hypotheses.size)] == \
        ["ab", "bb", "ca"]


def test_symbolic_backend_refuses_word_lists():
    with pytest.raises(SleuthError, match="its values are a list"):
        load_game(WORDLE).symbolic.secret  # noqa: B018


def test_a_word_domain_over_digits(tmp_path):
    text = SPEC.replace("Letter: {enum: [a, b, c]}", "Letter: {range: \"0..2\"}") % "w.txt"
    (tmp_path / "w.txt").write_text("01\n22\n")
    (tmp_path / "s.yaml").write_text(text)
    game = load_game_text(text, file=str(tmp_path / "s.yaml"))
    assert game.hypotheses.size == 2 and game.hypotheses.value(1)["x"] == (2, 2)


# ----------------------------------------------------------------------------- hard mode

def _hard_ok(guess: str, before: str, marks: str) -> bool:
    """Hard mode written directly: greens kept in place, and at least as many copies of
    each letter as were marked green or yellow."""
    if any(m == "g" and guess[i] != before[i] for i, m in enumerate(marks)):
        return False
    shown: dict[str, int] = {}
    for ch, m in zip(before, marks, strict=True):
        if m != "b":
            shown[ch] = shown.get(ch, 0) + 1
    return all(guess.count(ch) >= n for ch, n in shown.items())


def _paths(node: dict, path: list[tuple[str, str]]):
    """Every (earlier guesses with marks, guess) along a written tree."""
    if "query" not in node:
        return
    guess = "".join(node["query"]["args"]["w"])
    yield path, guess
    for branch in node["branches"]:
        marks = "".join(branch["feedback"]["marks"])
        yield from _paths(branch, path + [(guess, marks)])


@pytest.mark.slow
def test_hard_mode_keeps_every_hint(tmp_path, capsys):
    tree = tmp_path / "hard.json"
    main(["evaluate", str(WORDLE), "--set", "hard=true", "--set", "answers_only=true",
          "--set", "guesses=10", "--strategy", "most-parts", "--tree", str(tree)])
    document = json.loads(tree.read_text())
    checked = 0
    for path, guess in _paths(document["tree"], []):
        for before, marks in path:
            assert _hard_ok(guess, before, marks), (guess, before, marks)
            checked += 1
    assert checked > 1000
    easy = load_game(WORDLE, {"answers_only": True})
    normal = evaluate_strategy(easy, make_strategy("most-parts", Candidates(easy)), "w")
    # the rule binds: some later guess in normal play breaks it
    assert document["total"] != normal.total


def test_hard_mode_masks_match_the_rule_written_here():
    game = load_game(WORDLE, {"hard": True})
    space = game.space("guess")
    words = ["".join(space.value(r)["w"]) for r in range(space.size)]
    rng = np.random.default_rng(5)
    for _ in range(3):
        before = int(rng.integers(space.size))
        answer = int(rng.integers(game.hypotheses.size))
        code = int(game.feedback_matrix("guess", np.array([before]), np.array([answer]))[0, 0])
        marks = "".join(game.coder("guess").decode(code)["marks"])
        mask = game.history_allows("guess", np.arange(space.size), [(before, code)])
        expected = np.array([_hard_ok(w, words[before], marks) for w in words])
        assert np.array_equal(mask, expected)


def test_play_refuses_a_guess_that_breaks_hard_mode(capsys, monkeypatch):
    import io

    # After CRANE scored grey-grey-green-grey-grey, hard mode needs an A in the middle.
    monkeypatch.setattr("sys.stdin", io.StringIO(
        "play guess crane\nbbgbb\nplay guess stool\nquit\n"))
    with pytest.raises(SystemExit):
        main(["play", str(WORDLE), "--set", "hard=true"])
    out = capsys.readouterr()
    assert "breaks the history rule of 'guess'" in out.out + out.err


def test_searches_refuse_an_active_history_rule():
    candidates = Candidates(load_game(WORDLE, {"hard": True}))
    with pytest.raises(SleuthError, match="does not keep history rules"):
        make_strategy("ismcts", candidates)  # the exact searches keep it (test_history_search)
    # hard mode off: the rule is dropped when the spec is checked
    assert not Candidates(load_game(WORDLE)).history_rules


NO_REPEAT = """\
game: Higher or lower, no number asked twice
params: {n: 6}
domains: {Number: {range: "1..n"}}
secret: {number: Number}
queries:
  guess:
    args: {x: Number}
    history: "x != before.x"
    feedback: 'if number < x then "lower" else if number > x then "higher" else "correct"'
goal: {identify: [number]}
"""


def test_history_second_use_no_repeated_question():
    game = load_game_text(NO_REPEAT)
    candidates = Candidates(game)
    from sleuth.solver.infoset.belief import Belief

    root = Belief.prior(game)
    (block,) = candidates.blocks
    asked = root.branch(Query("guess", 2), candidates).child(
        int(game.coder("guess").encode({"feedback": "higher"})))
    allowed = [int(block.ranks[p]) for p in candidates.allowed(block, asked)]
    assert 2 not in allowed and len(allowed) == 5


@pytest.mark.parametrize("rule, message", [
    ("before.y == 1", "has no field 'y'|no field"),
    ("number == before.x", "depends on the secret"),
])
def test_history_errors(rule, message):
    with pytest.raises(SpecError, match=message):
        load_game_text(NO_REPEAT.replace('"x != before.x"', f'"{rule}"'))

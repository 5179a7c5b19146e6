"""Strategies and exact evaluation: published numbers, tie-break K, two independent paths.

The evaluation recursion (one tree over feedback partitions) is checked
against playing each secret separately; partition counts against the
reference interpreter; scores against definitions written out here.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from sleuth.compiler.errors import SleuthError
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import apply_event, make_event
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.interfaces.cli import cli
from sleuth.solver.strategies import STRATEGIES, Entropy, Scored, make_strategy
from tests.conftest import ROOT, game


def evaluate_json(spec: str, *args: str) -> dict:
    result = CliRunner().invoke(cli, ["evaluate", str(ROOT / "specs" / f"{spec}.yaml"), *args,
                                      "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


# ----------------------------------------------------------------------------- published numbers

def test_knuth_minimax():
    data = evaluate_json("mastermind", "--strategy", "minimax")
    assert data["total"] == 5801 and data["worst"] == 5 and data["secrets"] == 1296
    assert data["first_query"] == {"query": "guess", "args": {"g": [1, 1, 2, 2]}}
    assert data["average_fraction"] == "5801/1296"
    assert sum(data["histogram"].values()) == 1296
    assert sum(int(k) * v for k, v in data["histogram"].items()) == 5801
    for key in ("spec", "strategy", "guesses", "secrets", "total", "average", "worst",
                "histogram", "first_query", "seconds"):
        assert key in data


def test_minimax_consistent_worst_case_is_six():
    data = evaluate_json("mastermind", "--strategy", "minimax", "--guesses", "consistent")
    assert data["worst"] == 6


def test_counterfeit_coin_three_weighings():
    data = evaluate_json("counterfeit-coin", "--strategy", "entropy")
    assert data["histogram"] == {"3": 24}


@pytest.mark.parametrize("k", [3, 5, 7])
def test_binary_search_emerges(k):
    data = evaluate_json("higher-lower", "--strategy", "entropy", "--set", f"n={2**k - 1}")
    assert data["worst"] <= k
    # Halving: 2^(j-1) secrets found with the j-th guess.
    assert data["histogram"] == {str(j): 2 ** (j - 1) for j in range(1, k + 1)}


# ----------------------------------------------------------------------------- two paths

SMALL = {"pegs": 3, "colours": 4}


@pytest.mark.parametrize("name", ["entropy", "minimax", "expected-size", "most-parts",
                                  "random", "random-consistent"])
@pytest.mark.parametrize("guesses", ["any", "consistent"])
def test_tree_equals_one_game_per_secret(name, guesses):
    """The random strategies too: each draw is seeded by the seed and the game so far, so
    one seeded game per secret (a fresh strategy each) must follow the evaluated tree."""
    g = game("mastermind", **SMALL)
    tree = evaluate_strategy(g, make_strategy(name, Candidates(g, guesses), seed=5), "mm")
    assert tree.secrets == 64
    for h in range(g.hypotheses.size):
        t = play_secret(g, make_strategy(name, Candidates(g, guesses), seed=5), h,
                        max_steps=1000)
        assert t.solved and len(t.steps) == tree.lengths[h], h


def test_counterfeit_tree_equals_one_game_per_secret():
    g = game("counterfeit-coin", coins=5)
    tree = evaluate_strategy(g, make_strategy("minimax", Candidates(g)), "cc")
    for h in range(g.hypotheses.size):
        t = play_secret(g, make_strategy("minimax", Candidates(g)), h)
        assert t.solved and len(t.steps) == tree.lengths[h]
        assert t.steps[-1].remaining == 1 or g.hypotheses.size == 1


def test_partitions_equal_reference_interpreter():
    g = game("mastermind", **SMALL)
    c = Candidates(g)
    event = make_event(g, "guess", {"g": [1, 2, 3]}, {"black": 0, "white": 2})
    belief = apply_event(Belief.prior(g), event)
    block = c.blocks[0]
    positions = np.arange(0, len(block.ranks), 7)
    parts = c.parts(block, positions, belief)
    for row, p in zip(parts, positions, strict=True):
        args = g.space("guess").value(int(block.ranks[p]))
        counted = Counter(tuple(g.reference_feedback("guess", args,
                                                      g.hypotheses.value(int(h))).values())
                          for h in belief.index)
        assert sorted(row[row > 0].tolist()) == sorted(counted.values())


def test_scores_follow_their_definitions():
    g = game("mastermind", **SMALL)
    c = Candidates(g)
    belief = Belief.prior(g)
    block = c.blocks[0]
    positions = np.arange(len(block.ranks))
    parts = c.parts(block, positions, belief)
    n = belief.size
    for name, expected in [
        ("minimax", lambda r: max(r)),
        ("expected-size", lambda r: sum(x * x for x in r)),
        ("most-parts", lambda r: -sum(1 for x in r if x)),
        ("entropy", lambda r: -(math.log2(n) - sum(x * math.log2(x) for x in r if x) / n)),
    ]:
        s = make_strategy(name, c).score_block(block, positions, belief)
        want = [expected(row) for row in parts.tolist()]
        assert np.allclose(s.scores, want, rtol=0, atol=1e-12), name


# ----------------------------------------------------------------------------- ties

def test_tie_break_k_prefers_possible_secret_then_canonical_order():
    g = game("mastermind", **SMALL)
    c = Candidates(g)
    # One hypothesis left: every query scores the same; K picks the secret itself.
    for secret in (0, 17, 63):
        belief = Belief(g, np.array([secret]))
        for name in ("entropy", "minimax", "expected-size", "most-parts"):
            q = make_strategy(name, c).choose(belief)
            assert q == Query("guess", int(g.hypotheses.ranks[secret]))
    # Counterfeit coin: no query can be a secret; the first in canonical order wins.
    cc = game("counterfeit-coin")
    q = make_strategy("minimax", Candidates(cc)).choose(Belief.prior(cc))
    assert Candidates(cc).args(q) == {"left": frozenset({1, 2, 3, 4}),
                                      "right": frozenset({5, 6, 7, 8})}


def test_entropy_near_ties_are_settled_exactly():
    g = game("mastermind", **SMALL)
    c = Candidates(g)
    block = c.blocks[0]
    # Σ c log c of 3+3+2 and 4+2+2 differ, but pretend the floats tied.
    parts = np.array([[4, 2, 2], [3, 3, 2], [2, 2, 4]])
    scored = Scored(block, np.array([0, 1, 2]), np.zeros(3), parts)
    kept = Entropy(c).refine([(scored, np.array([0, 1, 2]))])
    assert kept[0][1].tolist() == [1]  # 3^3 3^3 2^2 = 2916 < 4^4 2^2 2^2 = 4096
    # 4,1,1,1,1 and 2,2,2,2 have exactly the same entropy (4^4 = 2^2^4): both kept.
    parts = np.array([[4, 1, 1, 1, 1], [2, 2, 2, 2, 0]])
    scored = Scored(block, np.array([0, 1]), np.zeros(2), parts)
    assert Entropy(c).refine([(scored, np.array([0, 1]))])[0][1].tolist() == [0, 1]


def test_first_choices_of_the_classic_strategies():
    g = game("mastermind")
    c = Candidates(g)
    firsts = {name: c.args(make_strategy(name, c).choose(Belief.prior(g)))["g"]
              for name in ("entropy", "minimax", "expected-size", "most-parts")}
    assert firsts == {"entropy": (1, 2, 3, 4), "minimax": (1, 1, 2, 2),
                      "expected-size": (1, 1, 2, 3), "most-parts": (1, 1, 2, 3)}


# ----------------------------------------------------------------------------- the others

def test_ises_sampled_partition_with_everything_sampled_is_exhaustive_entropy():
    g = game("mastermind", **SMALL)
    c = Candidates(g)
    exhaustive = evaluate_strategy(g, make_strategy("entropy", c), "mm")
    sampled = evaluate_strategy(g, make_strategy("ises-sampled-partition", c, states=10**6,
                                                 budget=60.0), "mm")
    assert sampled.lengths == exhaustive.lengths


def test_algorithm_1_averages_the_posterior_entropies():
    """Over every state once, Algorithm 1's average posterior entropy is the expected
    entropy after the query: sum over parts of (size / n) log2 size (uniform), written
    here from the partition; with weights, the mass-weighted entropies of the parts."""
    from sleuth.solver.strategies.sampled import posterior_entropy

    g = game("mastermind", **SMALL)
    c = Candidates(g)
    (block,) = c.blocks
    root = Belief.prior(g)
    codes = c.codes(block, np.arange(len(block.ranks)), g, root.index)
    got = posterior_entropy(codes, root, np.arange(root.size))
    for q in (0, 5, 13):
        _, sizes = np.unique(codes[q], return_counts=True)
        assert got[q] == pytest.approx(float((sizes * np.log2(sizes)).sum()) / root.size)
    logw = np.log(np.arange(1, root.size + 1, dtype=float))
    weighted = Belief(g, root.index, logw)
    p = weighted.probabilities()
    got = posterior_entropy(codes, weighted, np.arange(root.size))
    for q in (0, 5):
        # every state once: each part's entropy counted once per member, not by mass
        members = [int((codes[q] == code).sum()) for code in np.unique(codes[q])]
        parts = [-(pp * np.log2(pp)).sum() for pp in
                 (p[codes[q] == code] / p[codes[q] == code].sum()
                  for code in np.unique(codes[q]))]
        assert got[q] == pytest.approx(sum(m * h for m, h in zip(members, parts,
                                                                 strict=True)) / root.size)


def test_algorithm_1_draws_states_by_weight_with_replacement():
    g = game("mastermind", **SMALL)
    root = Belief.prior(g)
    logw = np.full(root.size, -50.0)
    logw[7] = 0.0  # one state holds (almost) all the mass
    s = make_strategy("ises-sampled", Candidates(g), seed=4, states=200)
    s.sample_states(Belief(g, root.index, logw), 0.0)
    assert len(s._states) == 200 and set(s._states.tolist()) == {7}
    b = apply_event(root, make_event(g, "guess", {"g": [1, 1, 2]}, {"black": 0, "white": 1}))
    one, two = (make_strategy("ises-sampled", Candidates(g), seed=4, states=200)
                for _ in range(2))
    assert one.choose(b) == two.choose(b)  # seeded


def test_ises_sampled_respects_a_tiny_budget():
    g = game("mastermind")
    c = Candidates(g)
    s = make_strategy("ises-sampled", c, seed=1, states=50, budget=1e-6)
    q = s.choose(Belief.prior(g))
    assert 1 <= s.last_scored < c.size and q.action == "guess"


def test_ises_sampled_with_fixed_iterations_ignores_the_clock():
    """--iterations N: N sampled queries scored whatever the budget (issue 29), so the
    decision is the same on any machine: the same query with a tiny budget and a large
    one, and the work it reports is N queries against m states."""
    g = game("mastermind")
    c = Candidates(g)
    picks = set()
    for budget in (1e-6, 30.0):
        s = make_strategy("ises-sampled", c, seed=1, states=50, budget=budget, iterations=40)
        picks.add(s.choose(Belief.prior(g)))
        assert s.last_scored == 40 and s.work() == {"states": 50, "queries": 40}
    assert len(picks) == 1


@pytest.mark.parametrize("name, key", [("ismcts", "iterations"), ("ises-sampled", "queries")])
def test_a_schedule_fixes_the_work_decision_by_decision(name, key):
    """--schedule N1,N2,...: the k-th decision of a game does Nk, every later one the last,
    whatever the budget; the same game on a rerun. (What a clock run did at each
    decision, for benchmarks/tournament.py --calibrated.)"""
    g = game("mastermind", **SMALL)
    c = Candidates(g)
    runs = []
    for budget in (1e-6, 30.0):
        t = play_secret(g, make_strategy(name, c, seed=4, budget=budget, schedule="3,9,5"), 17)
        runs.append([(s.event.args, s.work) for s in t.steps])
        decided = [s.work[key] for s in t.steps if s.work and s.work[key]]
        want = [3, 9, 5, 5, 5, 5][:len(decided)]
        assert decided == want and len(decided) >= 2
    assert runs[0] == runs[1]
    with pytest.raises(SleuthError, match="schedule needs positive whole numbers"):
        make_strategy(name, c, schedule="3,0")


def test_random_strategies_are_seeded():
    g = game("mastermind", **SMALL)
    b = apply_event(Belief.prior(g), make_event(g, "guess", {"g": [1, 1, 2]},
                                                {"black": 0, "white": 0}))
    for name in ("random", "random-consistent"):
        one = [make_strategy(name, Candidates(g), seed=3).choose(b) for _ in range(2)]
        assert one[0] == one[1]
    c = Candidates(g)
    picks = {make_strategy("random-consistent", c, seed=s).choose(b) for s in range(20)}
    hyp_ranks = set(g.hypotheses.ranks[b.index].tolist())
    assert all(q.rank in hyp_ranks for q in picks) and len(picks) > 1


def test_consistent_guesses_need_a_query_that_can_be_a_secret():
    result = CliRunner().invoke(cli, ["evaluate", str(ROOT / "specs" / "counterfeit-coin.yaml"),
                                      "--guesses", "consistent"])
    assert result.exit_code != 0 and "can be a secret" in str(result.exception)


def test_response_queries_are_scored_by_mutual_information():
    g = game("inkognito")
    c = Candidates(g)
    q = make_strategy("entropy", c).choose(Belief.prior(g))
    # Ambassador questions reveal more (one of 3 equally likely answers per hypothesis,
    # log2 of the answer spread) than player questions (15 answers, mostly overlapping).
    from sleuth.compiler.likelihood import answer_matrix
    from sleuth.solver.strategies import mutual_information

    gains = {}
    for action in ("player_question", "ambassador_question"):
        for topic in ("identity", "build"):
            _, p = answer_matrix(g, action, {"topic": topic}, np.arange(9))
            gains[(action, topic)] = mutual_information(p, np.full(9, 1 / 9))
    best = max(gains.values())
    assert gains[(q.action, c.args(q)["topic"])] == pytest.approx(best)
    assert q == Query("ambassador_question", 0)  # identity first: K's canonical order


def test_every_strategy_is_registered():
    assert set(STRATEGIES) == {"entropy", "ises-sampled", "ises-sampled-partition",
                               "minimax", "expected-size",
                               "most-parts", "likeliest", "random", "random-consistent",
                               "ismcts",
                               "optimal", "optimal-worst", "static", "lookahead", "calibrated",
                               "tree"}


# ----------------------------------------------------------------------------- sleuth solve

def solve_json(spec: str, *args: str) -> dict:
    result = CliRunner().invoke(cli, ["solve", str(ROOT / "specs" / f"{spec}.yaml"), *args,
                                      "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_solve_transcript():
    data = solve_json("counterfeit-coin", "--secret", "fake=7", "--secret", "kind=light")
    assert data["solved"] and data["queries"] == 3 == len(data["steps"])
    remaining = [s["remaining"] for s in data["steps"]]
    assert remaining == sorted(remaining, reverse=True) and remaining[-1] == 1
    assert data["secret"] == {"fake": 7, "kind": "light"}
    for s in data["steps"]:
        assert s["information_bits"] == pytest.approx(math.log2(24) - s["entropy_bits"]
                                                      - sum(x["information_bits"] for x in
                                                            data["steps"][:data["steps"]
                                                                          .index(s)]))


def test_solve_random_answers_are_seeded():
    one = solve_json("inkognito", "--secret", "id=Bubble", "--secret", "bd=thin", "--seed", "4")
    two = solve_json("inkognito", "--secret", "id=Bubble", "--secret", "bd=thin", "--seed", "4")
    assert one == two and one["solved"]


def test_solve_rejects_a_bad_secret(capsys):
    from sleuth.solver.interfaces.cli import main

    for secret, message in (("1237", "7 is outside 1..6"), ("code=[1,2]", "expected 4 values")):
        with pytest.raises(SystemExit) as exit_info:
            main(["solve", str(ROOT / "specs" / "mastermind.yaml"), "--secret", secret])
        err = capsys.readouterr().err
        assert exit_info.value.code == 1 and message in err and "Traceback" not in err


def test_sampled_secrets_follow_the_same_tree():
    g = game("mastermind", **SMALL)
    full = evaluate_strategy(g, make_strategy("minimax", Candidates(g)), "mm")
    sample = evaluate_strategy(g, make_strategy("minimax", Candidates(g)), "mm", secrets=10,
                               seed=7)
    again = evaluate_strategy(g, make_strategy("minimax", Candidates(g)), "mm", secrets=10,
                              seed=7)
    assert sample.secrets == 10 and sample.lengths == again.lengths
    assert all(full.lengths[h] == n for h, n in sample.lengths.items())


WEIGHTED = """\
game: Weighted guess
params: {n: 12}
domains:
  Number: {range: "1..n"}
secret: {number: Number}
prior: {weight: "number * number"}
queries:
  guess:
    args: {x: Number}
    feedback: 'if number < x then "lower" else if number > x then "higher" else "correct"'
goal: {identify: [number], stop_when: 'feedback == "correct"'}
"""


def test_weighted_prior_uses_probability_masses():
    from sleuth.compiler.game import load_game_text

    g = load_game_text(WEIGHTED, "weighted.yaml")
    prior = g.prior
    c = Candidates(g)
    q = make_strategy("entropy", c).choose(Belief.prior(g))

    def gain(x: int) -> float:
        masses = [prior[: x - 1].sum(), prior[x - 1], prior[x:].sum()]
        return -sum(m * math.log2(m) for m in masses if m > 0)

    best = max(range(1, 13), key=gain)
    assert c.args(q) == {"x": best}
    result = evaluate_strategy(g, make_strategy("entropy", c), "weighted.yaml")
    expected = sum(prior[h] * n for h, n in result.lengths.items())
    assert result.to_json()["expected"] == pytest.approx(expected)
    assert result.to_json()["expected"] < float(result.average)  # likely numbers come sooner


# ----------------------------------------------------------------------------- SO-ISMCTS

def test_ismcts_is_reproducible_and_solves_every_secret():
    """With a fixed number of iterations the search is seeded and reproducible; every
    MM(3,3) secret is solved, and its tree statistics add up."""
    g = game("mastermind", pegs=3, colours=3)
    c = Candidates(g)

    def lengths(seed):
        s = make_strategy("ismcts", c, seed, iterations=60)
        return [len(play_secret(g, s, h, max_steps=30).steps) for h in range(g.hypotheses.size)]

    first = lengths(1)
    assert first == lengths(1)
    assert all(1 <= n <= 10 for n in first)
    s = make_strategy("ismcts", c, 2, iterations=40)
    q = s.choose(Belief.prior(g))
    assert s.last_iterations == 40 and q.action == "guess"
    assert s.work() == {"iterations": 40, "states": g.hypotheses.size}


def test_ismcts_plays_the_last_possible_secret():
    g = game("mastermind", pegs=3, colours=3)
    c = Candidates(g)
    belief = Belief(g, np.array([13], dtype=np.int64))
    q = make_strategy("ismcts", c, 0, iterations=5).choose(belief)
    assert c.args(q)["g"] == g.hypotheses.value(13)["code"]


def test_ismcts_on_a_game_without_stop():
    """Higher-lower: the reward counts queries until the number is determined."""
    g = game("higher-lower", n=15)
    s = make_strategy("ismcts", Candidates(g), 3, iterations=200)
    t = play_secret(g, s, 9, max_steps=20)
    assert t.solved and len(t.steps) <= 8


def test_ismcts_refuses_specs_with_random_answers_only():
    g = game("inkognito")
    with pytest.raises(SleuthError, match="deterministic feedback"):
        make_strategy("ismcts", Candidates(g), 0, iterations=5).choose(Belief.prior(g))


def test_every_declared_option_is_a_flag_and_checked():
    """The command line derives its strategy flags from the declarations: every option
    of every strategy is a flag of `evaluate`, with the declaring strategies in its help;
    a flag the chosen strategy does not declare is refused with exit status 1."""
    from click.testing import CliRunner

    from sleuth.solver.interfaces.cli import cli
    from sleuth.solver.strategies import STRATEGIES, option_table

    runner = CliRunner()
    helptext = " ".join(runner.invoke(cli, ["evaluate", "--help"]).output.split())
    for key, (option, users) in option_table().items():
        assert option.flag in helptext, key
        assert f"{', '.join(users)}: {option.help}" in helptext, key
        assert all(key in STRATEGIES[u].options() for u in users)
    path = str(ROOT / "specs" / "counterfeit-coin.yaml")
    refused = runner.invoke(cli, ["evaluate", path, "--strategy", "minimax", "--budget", "1"])
    assert refused.exit_code == 1 and "does not apply to --strategy minimax" in str(
        refused.exception)
    small = str(ROOT / "specs" / "higher-lower.yaml")
    ok = runner.invoke(cli, ["evaluate", small, "--set", "n=7", "--strategy", "ismcts",
                             "--iterations", "10", "--json"])
    assert ok.exit_code == 0, ok.output


def test_entropy_scores_parts_of_billions_without_a_table():
    """A counted belief's parts reach billions (Clue's deals): c log2 c is computed, not
    looked up in a table as large as the largest part (256 GiB at Clue's first turn), and
    a near-tie of such parts is left to rule K rather than settled by multiplying out
    products of billions of factors."""
    from sleuth.solver.strategies.classic import Entropy, nlogn

    parts = np.array([[3 * 10**10, 10**10, 7, 0], [2 * 10**10, 2 * 10**10, 7, 0]])
    n = int(parts[0].sum())
    want = [sum(c * math.log2(c) for c in row if c) / n - math.log2(n) for row in parts]
    got = Entropy(Candidates(game("mastermind"))).score_parts(parts, True, n)
    assert got == pytest.approx(want, rel=1e-12)
    assert nlogn(np.array([5, 0, 1])).tolist() == [5 * math.log2(5), 0.0, 0.0]


def test_the_walks_distinct_codes_are_numpys_unique_on_both_paths():
    from sleuth.solver.evaluation.evaluate import _distinct

    rng = np.random.default_rng(3)
    for n, top in ((0, 5), (1, 5), (40, 3), (1024, 10**9), (1025, 300), (5000, 70_000)):
        codes = rng.integers(0, top, size=n).astype(np.int64)
        got = _distinct(codes)
        assert got == np.unique(codes).tolist() and all(type(c) is int for c in got)

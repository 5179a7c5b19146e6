"""specs/liars-dice.yaml against a brute-force calculation written here.

The rolls are listed as ordered dice (6^d of them), so the multinomial prior
over face counts is a tally, not the spec's factorial formula; the bidding
likelihood is written out from its description (z-scores, the call rule, the
exp(-z / tau) raise weights normalised over every legal answer). The
simulator's bidding rule (examples/liars_dice.py) must give the same
distribution of raises as the spec's likelihood, hypothesis by hypothesis.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter

import numpy as np
import pytest

from sleuth.compiler import load_game
from sleuth.compiler.likelihood import answer_matrix, answer_value
from sleuth.solver.infoset.belief import Belief
from sleuth.solver.infoset.observe import Event, apply_event
from sleuth.solver.interfaces.cli import main as sleuth
from tests.conftest import ROOT

SPEC = ROOT / "specs" / "liars-dice.yaml"
FACES = ("one", "two", "three", "four", "five", "six")
DICE, HIDDEN, LAM, TAU = 3, 4, 1.0, 0.5
sys.path.insert(0, str(ROOT / "examples"))


def small_game(over_all: bool = True):
    return load_game(SPEC, overrides={"dice": DICE, "hidden": HIDDEN, "over_all": over_all})


def brute_prior() -> Counter:
    """Face counts of every ordered roll of DICE dice, with multiplicities."""
    return Counter(tuple(np.bincount(r, minlength=6)) for r in
                   itertools.product(range(6), repeat=DICE))


def z(c, q, f):
    held = c[f] + (c[0] if f else 0)
    p = 1 / 6 if f == 0 else 1 / 3
    return (q - held - 0.5 - HIDDEN * p) / math.sqrt(HIDDEN * p * (1 - p))


def beats(q, f, standing):
    return q > standing[0] or (q == standing[0] and f > standing[1])


def answer_probabilities(c, standing, over_all: bool = True, lam: float = LAM) -> dict:
    """P(answer | roll c, standing bid) by the page's response model, over every legal
    answer: T(B') = phi(z(B')) / sum of phi over every bid above the standing one (z <= LAM,
    else 0), the leftover is the call; a standing bid of z > LAM, or one with no acceptable
    raise, is called; an opening shares all the mass among the acceptable raises.
    over_all False: the previous model (normalised over the acceptable raises)."""
    least = [standing[0] + (g <= standing[1]) for g in range(6)]
    opening = standing[0] == 0
    must = not opening and (z(c, *standing) > lam or all(z(c, least[g], g) > lam
                                                         for g in range(6)))
    phi = {(q, f): math.exp(-z(c, q, f) / TAU) for q in range(1, DICE + HIDDEN + 1)
           for f in range(6) if beats(q, f, standing)}
    ok = {k: v for k, v in phi.items() if z(c, *k) <= lam}
    mass = sum(phi.values()) if over_all and not opening else sum(ok.values())
    p = {k: (0.0 if must else ok.get(k, 0.0) / mass) for k in phi}
    if not opening:
        p["call"] = 1.0 if must else 1.0 - sum(p.values())
    return p


def turn(standing, answer) -> Event:
    bid = ({"quantity": 0, "face": "one"} if answer == "call"
           else {"quantity": answer[0], "face": FACES[answer[1]]})
    return Event("turn", {"standing": {"quantity": standing[0], "face": FACES[standing[1]]}},
                 answer={"call": answer == "call", "bid": bid})


def test_check_and_hypotheses(capsys):
    sleuth(["check", str(SPEC)])
    assert "OK" in capsys.readouterr().out
    g = small_game()
    prior = brute_prior()
    assert g.hypotheses.size == len(prior) == math.comb(DICE + 5, 5)
    rolls = [tuple(g.hypotheses.value(h)["roll"]) for h in range(g.hypotheses.size)]
    assert rolls == sorted(prior)  # canonical order: count sequences, lexicographic
    np.testing.assert_allclose(g.prior, [prior[r] / 6 ** DICE for r in rolls], rtol=1e-12)


@pytest.mark.parametrize("seed, over_all", [(0, True), (1, True), (2, False), (3, True),
                                            (4, False)])
def test_posterior_equals_brute_force(seed, over_all):
    g = small_game(over_all)
    rng = np.random.default_rng(seed)
    prior = brute_prior()
    rolls = sorted(prior)
    truth = rolls[int(rng.integers(len(rolls)))]
    post = {c: prior[c] / 6 ** DICE for c in rolls}
    belief = Belief.prior(g)
    standing = (0, 0)
    for _ in range(3):
        p = answer_probabilities(truth, standing, over_all)
        keys = [k for k in p if p[k] > 0]
        answer = keys[int(rng.choice(len(keys), p=[p[k] for k in keys]))]
        post = {c: w * answer_probabilities(c, standing, over_all)[answer]
                for c, w in post.items()}
        belief = apply_event(belief, turn(standing, answer))
        if answer == "call":
            break
        standing = answer
    total = sum(post.values())
    got = {tuple(g.hypotheses.value(h)["roll"]): p
           for h, p in zip(belief.index, belief.probabilities(), strict=True)}
    for c in rolls:
        assert got.get(c, 0.0) == pytest.approx(post[c] / total, abs=1e-12)
    moved = max(abs(post[c] / total - prior[c] / 6 ** DICE) for c in rolls)
    assert moved > 1e-3  # the bids did say something about the roll


@pytest.mark.parametrize("standing, over_all", [(None, True), ((2, 3), True), ((4, 0), True),
                                               ((5, 5), True), ((2, 3), False), (None, False)])
def test_simulator_bids_as_the_spec_says(standing, over_all):
    """The simulator's ZI bidder, fed the binomial view of HIDDEN unseen dice, raises or
    calls with exactly the spec's likelihood, for every roll; and both are the page's
    formula as the brute force above writes it."""
    import liars_dice as sim
    import liars_dice_rules as rules

    g = small_game(over_all)
    base = standing or (0, 0)
    args = {"standing": {"quantity": base[0], "face": FACES[base[1]]}}
    index = np.arange(g.hypotheses.size)
    ranks, table = answer_matrix(g, "turn", args, index)
    mean, sd = sim.binomial_view(HIDDEN)
    checked = 0
    for h in index:
        roll = np.array(g.hypotheses.value(h)["roll"])
        qs, fs, p, call = rules.choices(standing, sim.held(roll), mean, sd, DICE + HIDDEN,
                                      over_all=over_all)
        expected = {(int(q), int(f)): x for q, f, x in zip(qs, fs, p, strict=True) if x > 0}
        if call > 1e-15:
            expected["call"] = call
        spec = {}
        for k, r in enumerate(ranks):
            if table[k, h] > 1e-15:
                a = answer_value(g, "turn", int(r))
                key = "call" if a["call"] else (a["bid"]["quantity"],
                                                FACES.index(a["bid"]["face"]))
                spec[key] = table[k, h]
        brute = {k: v for k, v in answer_probabilities(tuple(roll), base, over_all).items()
                 if v > 1e-15}
        assert spec.keys() == expected.keys() == brute.keys()
        for key, x in expected.items():
            assert spec[key] == pytest.approx(x, rel=1e-9)
            assert brute[key] == pytest.approx(x, rel=1e-9)
        assert sum(spec.values()) == pytest.approx(1.0, abs=1e-12)
        checked += 1
    assert checked == g.hypotheses.size


def test_symbolic_backend_agrees_on_the_multiset_prior():
    """The multiset is one one-hot group on the diagram; its weighted prior (the
    factorial expression, lowered into weight classes) must give enumeration's numbers."""
    from sleuth.solver.infoset.backends import prior_belief

    g = small_game()
    enum, sdd = Belief.prior(g), prior_belief(g, "sdd")
    assert sdd.size == enum.size == g.hypotheses.size
    assert sdd.entropy_bits() == pytest.approx(enum.entropy_bits(), abs=1e-9)
    for name, values in enum.marginals().items():
        for v, p in values.items():
            assert sdd.marginals()[name][v] == pytest.approx(p, abs=1e-12)


@pytest.mark.slow
def test_simulated_games_are_reproducible():
    """A few games of the simulator, EI and control, on spawned seeds: each game has one
    winner, and the same seed gives the same winners again (the kept likelihood tables,
    warm the second time, must not change a single decision)."""
    import liars_dice as sim

    first = sim.play_block(np.random.SeedSequence(5).spawn(3))
    again = sim.play_block(np.random.SeedSequence(5).spawn(3))
    assert first["ei"].sum() == first["zi"].sum() == 3
    for name in ("ei", "zi"):
        np.testing.assert_array_equal(first[name], again[name])


@pytest.mark.slow
def test_off_model_opponents_need_a_tremble_not_a_crash():
    """Opponents bidding with lambda 2 while EI assumes 1: without a tremble the first
    off-model bid is a clear error (the example prints it and exits 1); with tremble 0.01
    the games are played."""
    import liars_dice as sim

    from sleuth.solver.infoset.belief import InconsistentObservations

    seeds = np.random.SeedSequence(11).spawn(3)
    old = dict(sim.PLAY)
    try:
        sim.PLAY.update(opponent_lambda=2.0, tremble=0.0)
        with pytest.raises(InconsistentObservations, match="likelihood 0"):
            sim.play_block(seeds)
        sim.PLAY.update(tremble=0.01)
        wins = sim.play_block(seeds)
        assert wins["ei"].sum() == wins["zi"].sum() == 3
    finally:
        sim.PLAY.update(old)


LAMBDAS = (0.5, 1.0, 2.0)


@pytest.mark.parametrize("seed, true_lam", [(0, 2.0), (1, 0.5), (2, 1.0)])
def test_lambda_learned_as_a_hidden_param(seed, true_lam):
    """lambda a hidden param (uniform over LAMBDAS), with a tremble: the posterior over
    (roll, lambda) against the brute force, P = (1 - e) T_lambda + e / #legal."""
    e = 0.05
    g = load_game(SPEC, overrides={"dice": DICE, "hidden": HIDDEN, "tremble": e,
                                   "lambda": {"hidden": list(LAMBDAS)}})
    rng = np.random.default_rng(seed)
    prior = brute_prior()
    rolls = sorted(prior)
    truth = rolls[int(rng.integers(len(rolls)))]
    post = {(c, lam): prior[c] / 6 ** DICE / 3 for c in rolls for lam in LAMBDAS}
    belief = Belief.prior(g)
    standing = (0, 0)
    for _ in range(4):
        p = answer_probabilities(truth, standing, lam=true_lam)
        keys = [k for k in p if p[k] > 0]
        answer = keys[int(rng.choice(len(keys), p=[p[k] for k in keys]))]
        for (c, lam), w in post.items():
            probs = answer_probabilities(c, standing, lam=lam)
            post[c, lam] = w * ((1 - e) * probs[answer] + e / len(probs))
        belief = apply_event(belief, turn(standing, answer))
        if answer == "call":
            break
        standing = answer
    total = sum(post.values())
    got = {}
    for h, q in zip(belief.index, belief.probabilities(), strict=True):
        v = g.hypotheses.value(h)
        got[tuple(v["roll"]), float(v["lambda"])] = q
    for key, w in post.items():
        assert got.get(key, 0.0) == pytest.approx(w / total, abs=1e-12)


def test_the_reveal_carries_the_lambda_posterior():
    """EI's Observer, learning lambda: after a round's bids and the reveal, the carried
    posterior of each opponent's lambda is P(lambda | its bids, its real roll), by hand."""
    import liars_dice as sim

    old = dict(sim.PLAY)
    try:
        sim.PLAY.update(learn=True, tremble=0.05, over_all=True)
        rng = np.random.default_rng(4)
        dice = [3, 3, 3]
        rolls = [np.bincount(rng.integers(0, 6, 3), minlength=6) for _ in dice]
        observer = sim.Observer(dice, 0, {})
        hidden = 6  # what each opponent cannot see: the other two players' dice
        bids = [(1, (0, 0), (2, 3)), (2, (2, 3), (3, 1)), (1, (3, 1), (3, 4))]
        for player, standing, bid in bids:
            observer.saw(player, standing if standing != (0, 0) else None, bid)
        observer.saw(2, (3, 4), None)  # seat 2 calls
        observer.reveal(rolls)
        e = 0.05
        for j in (1, 2):
            c = tuple(int(x) for x in rolls[j])
            w = np.ones(3)
            turns = [(s, b) for p, s, b in bids if p == j] + ([((3, 4), "call")] if j == 2
                                                            else [])
            for k, lam in enumerate(LAMBDAS):
                for standing, answer in turns:
                    probs = answer_probabilities_for(c, standing, lam, hidden, 3)
                    w[k] *= (1 - e) * probs[answer] + e / len(probs)
            np.testing.assert_allclose(observer.carried[j], w / w.sum(), rtol=1e-9)
    finally:
        sim.PLAY.update(old)


def answer_probabilities_for(c, standing, lam, hidden, dice) -> dict:
    """answer_probabilities for another table size (the module's DICE and HIDDEN)."""
    global DICE, HIDDEN
    saved = DICE, HIDDEN
    DICE, HIDDEN = dice, hidden
    try:
        return answer_probabilities(c, standing, lam=lam)
    finally:
        DICE, HIDDEN = saved


def test_an_off_model_bid_on_the_command_line(tmp_path, capsys):
    """A bid the page's model (lambda 1) gives probability 0 under every roll: a clear error,
    exit status 1, nothing printed as a traceback; with a tremble, or with lambda hidden
    (a value that explains it), the belief is shown."""
    obs = tmp_path / "bids.yaml"
    obs.write_text("- query: turn\n  args: {standing: {quantity: 12, face: six}}\n"
                   "  answer: {call: false, bid: {quantity: 13, face: six}}\n")
    with pytest.raises(SystemExit) as stop:
        sleuth(["belief", str(SPEC), "--observations", str(obs)])
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert "likelihood 0 under every remaining hypothesis" in err and "tremble" in err
    sleuth(["belief", str(SPEC), "--observations", str(obs), "--set", "tremble=0.01"])
    assert "1 observation" in capsys.readouterr().out
    sleuth(["belief", str(SPEC), "--observations", str(obs),
            "--set", "lambda={hidden: [1, 2, 4]}"])
    out = capsys.readouterr().out
    assert "lambda" in out and "1 observation" in out


@pytest.mark.parametrize("lam", [0.0, 1.0, 2.0])
def test_lambda_at_its_bounds(lam):
    """The spec at lambda 0, 1 and 2: every turn's probabilities sum to 1 (the engine checks
    it) and match the brute force."""
    g = load_game(SPEC, overrides={"dice": DICE, "hidden": HIDDEN, "lambda": lam})
    for standing in [(0, 0), (2, 3), (4, 5)]:
        args = {"standing": {"quantity": standing[0], "face": FACES[standing[1]]}}
        ranks, table = answer_matrix(g, "turn", args, np.arange(g.hypotheses.size))
        np.testing.assert_allclose(table.sum(axis=0), 1.0, atol=1e-12)
        for h in (0, g.hypotheses.size // 2, g.hypotheses.size - 1):
            roll = tuple(g.hypotheses.value(h)["roll"])
            brute = answer_probabilities(roll, standing, lam=lam)
            for k, r in enumerate(ranks):
                a = answer_value(g, "turn", int(r))
                key = "call" if a["call"] else (a["bid"]["quantity"],
                                                FACES.index(a["bid"]["face"]))
                assert table[k, h] == pytest.approx(brute.get(key, 0.0), abs=1e-12)


@pytest.mark.slow
def test_the_study_runs_every_cell():
    import liars_dice as sim

    old = dict(sim.PLAY)
    try:
        cells = sim.study(2, 3, 1)
    finally:
        sim.PLAY.update(old)
    assert sorted(cells) == sorted(sim.STUDY_LAMBDAS)
    for cell in cells.values():
        assert all(len(cell[k]) == 2 for k in ("zi", "assume", "learn"))
        assert np.all((cell["learned"] >= 0) & (cell["learned"] <= 1))


def brute_zi(rolls, dice, player, standing, lam=LAM):
    """The page's zero-intelligence decision by enumeration: every ordered roll of the next
    player B and of the others is played out to find the payoff of each raise (minus the
    probability that B calls it and it is false), B calling when the bid's z-score from its
    own roll exceeds lam. None to call. Ties: least z, then bid order."""
    total = sum(dice)
    b = (player + 1) % len(dice)
    rest = [k for k in range(len(dice)) if k not in (player, b)]
    n_rest = sum(dice[k] for k in rest)

    def zz(counts, unseen, q, f):
        p = 1 / 6 if f == 0 else 1 / 3
        heldf = counts[f] + (counts[0] if f else 0)
        return (q - heldf - 0.5 - unseen * p) / math.sqrt(unseen * p * (1 - p))

    mine = rolls[player]
    own_z = {(q, f): zz(mine, total - dice[player], q, f) for q in range(1, total + 1)
             for f in range(6) if standing is None or beats(q, f, standing)}
    if standing is not None and (zz(mine, total - dice[player], *standing) > lam
                                 or min(own_z.values()) > lam):
        return None, {}
    ok = [k for k, v in own_z.items() if v <= lam] or \
        [k for k, v in own_z.items() if v == min(own_z.values())]
    b_rolls = [np.bincount(r, minlength=6) for r in itertools.product(range(6),
                                                                         repeat=dice[b])]
    r_rolls = [np.bincount(r, minlength=6) for r in itertools.product(range(6),
                                                                         repeat=n_rest)]
    weight = 1 / (len(b_rolls) * len(r_rolls))

    def count(c, f):
        return c[f] + (c[0] if f else 0)

    pay = {}
    for q, f in ok:
        lost = sum(weight for cb in b_rolls for cr in r_rolls
                   if zz(cb, total - dice[b], q, f) > lam
                   and count(mine, f) + count(cb, f) + count(cr, f) < q)
        pay[(q, f)] = -lost
    order = sorted(ok, key=lambda k: (-round(pay[k], 9), round(own_z[k], 9), k))
    return order[0], pay


@pytest.mark.parametrize("seed", range(4))
def test_zi_raises_to_the_best_option_below_lambda(seed):
    """The default ZI (the page's): call once the standing bid's z exceeds lambda, else the
    raise of z <= lambda with the greatest payoff, against an enumeration of the dice."""
    import liars_dice as sim
    import liars_dice_rules as rules

    assert sim.PLAY["decision"] == "best"
    rng = np.random.default_rng(seed)
    dice = [2, 2, 2]
    raised = called = nonzero = 0
    for _ in range(12):
        rolls = [np.bincount(rng.integers(0, 6, d), minlength=6) for d in dice]
        player = int(rng.integers(3))
        standing = None if rng.random() < 0.25 else (int(rng.integers(1, 6)),
                                                     int(rng.integers(6)))
        got = sim.move(standing, rolls, dice, player, None, rng, LAM)
        dice_order = [player, (player + 1) % 3, (player + 2) % 3]
        want, pay = brute_zi([rolls[k] for k in dice_order], dice, 0, standing)
        assert got == want, (rolls, player, standing)
        if pay:  # every candidate's payoff, not only the best one's
            q, f = (np.array(v) for v in zip(*pay, strict=True))
            w = rules.payoff(q, f, sim.held(rolls[player]), LAM, sim.binomial_pmf(2),
                           sim.binomial_pmf(2), 4)
            np.testing.assert_allclose(w, list(pay.values()), atol=1e-12)
            nonzero += int((w < 0).sum())
        raised += got is not None
        called += got is None
    assert raised >= 3 and nonzero >= 10


def test_zi_payoff_prefers_the_raise_the_next_player_will_not_call():
    """The page's example of the rule: facing [5, five], [6, five] pays at least as much as
    [7, five] (the page: "[6,5] is clearly the better choice")."""
    import liars_dice as sim
    import liars_dice_rules as rules

    own = sim.held(np.array([0, 0, 0, 0, 3, 2]))
    x, zr = sim.binomial_pmf(5), sim.binomial_pmf(5)
    w = rules.payoff(np.array([6, 7]), np.array([4, 4]), own, LAM, x, zr, 10)
    assert w[0] >= w[1] and w[1] < 0


def test_ei_count_distribution_under_the_prior_is_the_binomial():
    """EI's posterior count distribution, before any bid, is the binomial ZI assumes (the
    spec's multinomial prior, read back per face), and a sum of them is a convolution."""
    import liars_dice as sim

    observer = sim.Observer([3, 2, 4], me=0)
    for j, d in ((1, 2), (2, 4)):
        np.testing.assert_allclose(observer.count_pmf(j), sim.binomial_pmf(d), atol=1e-12)
    np.testing.assert_allclose(sim.convolved([sim.binomial_pmf(2), sim.binomial_pmf(4)]),
                               sim.binomial_pmf(6), atol=1e-12)

"""`sleuth serve`'s boards and feedback buttons through its JSON API: Minesweeper's
cells shaded by each one's chance of a mine, Mastermind's pegs and Wordle's tiles, Black
Box's box and rays, the buttons being exactly the feedbacks a game can give (each against
a brute force written here), and the specs too large to score or list for a page. The
rest of the API: tests/test_serve.py."""

from __future__ import annotations

import itertools
import json

import pytest

import sleuth
from sleuth.solver.infoset import backends
from sleuth.solver.infoset.backends import prior_belief
from tests.conftest import advised
from tests.test_serve import mastermind_feedback, mastermind_pairs

pytestmark = pytest.mark.e2e  # the second tier: end to end


def minesweeper_answer(cell: int, field: tuple[int, ...], cols: int = 4) -> str:
    """Written here: 'mine', or the mines among the up to eight neighbours."""
    if cell in field:
        return "mine"
    near = sum(1 for d in field if d != cell and abs(d // cols - cell // cols) <= 1
               and abs(d % cols - cell % cols) <= 1)
    return str(near)


def test_minesweeper_is_a_board_shaded_by_each_cell_s_chance_of_a_mine(client):
    st = client.post("/api/sessions", json={"spec": "minesweeper"}).json()
    board = st["board"]
    assert (board["rows"], board["cols"], board["shade"]) == (4, 4, "mine")
    secret, played = (1, 6, 11), []
    fields = list(itertools.combinations(range(16), 3))
    for cell in (0, 15, 5):
        answer = minesweeper_answer(cell, secret)
        st = client.post(f"/api/sessions/{st['id']}/observe", json={
            "query": "probe", "args": {"c": cell},
            "outcome": {"feedback": answer if answer == "mine" else int(answer)}}).json()
        played.append((cell, answer))
        left = [f for f in fields if all(minesweeper_answer(c, f) == a for c, a in played)]
        for k, shown in enumerate(st["board"]["cells"]):
            asked = [a for c, a in played if c == k]
            if asked:
                assert shown == {"seen": asked[-1], "p": None}
            else:
                assert abs(shown["p"] - sum(k in f for f in left) / len(left)) < 1e-9


def test_a_spec_without_a_layout_has_no_board(client):
    assert client.post("/api/sessions", json={"spec": "hangman"}).json()["board"] is None


def test_feedback_buttons_are_the_feedbacks_the_game_can_give(client):
    """Mastermind's 14 pairs and Minesweeper's answers, each against a brute force; a
    game whose pairs are too many to score for a page has a field per component."""
    forms = {s: client.get(f"/api/spec?ref={s}").json()["forms"][0]
             for s in ("mastermind", "minesweeper", "bulls-and-cows")}
    assert [(c["black"], c["white"]) for c in forms["mastermind"]["choices"]] == \
        mastermind_pairs()
    fields = list(itertools.combinations(range(16), 3))
    answers = {minesweeper_answer(c, f) for c in range(16) for f in fields}
    assert sorted(str(c["feedback"]) for c in forms["minesweeper"]["choices"]) == \
        sorted(answers)
    assert forms["bulls-and-cows"]["choices"] is None
    assert [f["name"] for f in forms["bulls-and-cows"]["feedback"]] == ["bulls", "cows"]


def test_mastermind_and_wordle_are_drawn_as_pegs_and_tiles(client):
    st = client.post("/api/sessions", json={"spec": "mastermind"}).json()
    code = [3, 4, 4, 6]
    for guess in ([1, 1, 2, 2], [3, 3, 4, 4]):
        st = client.post(f"/api/sessions/{st['id']}/observe", json={
            "query": "guess", "args": {"g": guess},
            "outcome": mastermind_feedback(guess, code)}).json()
    board = st["board"]
    assert (board["kind"], board["length"], board["turns"]) == ("pegs", 4, None)
    assert [k["name"] for k in board["keys"]] == ["black", "white"]
    assert len(set(board["colours"].values())) == len(board["colours"]) == 6
    assert [(r["code"], r["keys"]) for r in board["rows"]] == [
        ([str(c) for c in g], mastermind_feedback(g, code)) for g in ([1, 1, 2, 2], [3, 3, 4, 4])]
    st = client.post("/api/sessions", json={"spec": "wordle"}).json()
    st = client.post(f"/api/sessions/{st['id']}/observe", json={
        "query": "guess", "args": {"w": "crane"}, "outcome": {"marks": "bybbg"}}).json()
    board = st["board"]
    assert (board["kind"], board["turns"], board["marks"]) == ("tiles", 6, "marks")
    assert board["rows"] == [{"code": list("crane"), "marks": list("bybbg"), "keys": {},
                              "rest": ""}]
    assert list(board["colours"]) == ["b", "y", "g"]  # a click's cycle: grey first


def test_a_set_too_large_to_score_is_sampled_and_never_listed(client, monkeypatch):
    """auto scores every query where (queries x hypotheses) fits SCORED_CELLS (Mastermind:
    1,296 x 1,296 exactly), else samples; the count decides before any listing (Clue's
    deals are never listed for it)."""
    from sleuth.solver.infoset.counted import CountedBelief
    from sleuth.solver.interfaces.web import worksheet

    sid = client.post("/api/sessions", json={"spec": "mastermind"}).json()["id"]
    for cells, scored in ((1296 * 1296, True), (1296 * 1296 - 1, False)):
        monkeypatch.setattr(worksheet, "SCORED_CELLS", cells)
        s = advised(client, f"/api/sessions/{sid}/suggest?strategy=auto").json()
        assert s["scored"] is scored and bool(s["top"]) is scored
        assert s["strategy"] == ("entropy" if scored else "ises-sampled")
    settled = CountedBelief.settled

    def listing(self, exhaustive=False):
        assert not exhaustive, "a set too large to score was listed"
        return settled(self)

    monkeypatch.setattr(CountedBelief, "settled", listing)
    sid = client.post("/api/sessions", json={"spec": "clue"}).json()["id"]
    monkeypatch.setattr(worksheet, "SCORED_CELLS", 10**9)
    s = advised(client, f"/api/sessions/{sid}/suggest?strategy=auto").json()
    assert s["scored"] is False and s["strategy"] == "ises-sampled"


def test_battleship_counts_at_its_params_on_the_counter_that_suits_it(client):
    """Battleship's 10 x 10 fleet is too large to list; the worksheet counts it on the
    counter the CLI chooses (the factored one), and the same count comes from it asked
    by name."""
    s = client.get("/api/spec?ref=battleship").json()
    assert s["error"] is None and s["params"]["n"] == 10
    game = sleuth.load("battleship")
    assert s["hypotheses"] == prior_belief(game, "factored").size > 10**10


@pytest.mark.slow  # the diagram is tried until it passes the budget
def test_a_spec_too_large_at_its_params_still_gives_them(client, monkeypatch):
    """With the decision diagram the only counter to choose, Battleship's 10 x 10 fleet
    passes its memory budget: the counts are null with the budget's error, and the
    params and forms still come, to be narrowed."""
    monkeypatch.setattr(backends, "AUTOMATIC", ("sdd",))
    c = client
    s = c.get("/api/spec?ref=battleship").json()
    assert s["hypotheses"] is None and "memory budget" in s["error"]["message"]
    assert s["params"]["n"] == 10 and s["forms"][0]["name"] == "fire"
    small = json.dumps({"n": 4, "carrier": 0, "battleship": 0, "submarine": 0})
    s = c.get(f"/api/spec?ref=battleship&params={small}").json()
    assert s["error"] is None and s["hypotheses"] == 264


def test_a_cover_game_over_names_the_queries_still_to_ask(client):
    """Battleship on 4 x 4 with a cruiser and a destroyer: once the fleet is known, the
    end names the ship cells not fired at yet, as a search of the fleets left says."""
    params = {"n": 4, "carrier": 0, "battleship": 0, "submarine": 0}
    st = client.post("/api/sessions", json={"spec": "battleship", "params": params}).json()
    game = sleuth.load("battleship", **params)
    fleet = sleuth.simulate(game, "entropy", seed=4)["secret"]
    for _ in range(16):
        s = advised(client, f"/api/sessions/{st['id']}/suggest").json()["suggestion"]
        answer = sleuth.feedback(game, fleet, "fire", s["args"])
        st = client.post(f"/api/sessions/{st['id']}/observe", json={
            "query": "fire", "args": s["args"], "outcome": answer}).json()
        if st["over"]:
            break
    fired = {step["args"]["c"] for step in st["steps"]}
    cells = {c for c in range(16) if sleuth.feedback(game, fleet, "fire", {"c": c})[
        "feedback"] == "hit"}
    assert st["over"]["solved"] and st["over"]["queries"] == len(fired)
    assert st["over"]["finish"] == [f"fire c={c}" for c in sorted(cells - fired)]
    assert st["over"]["finish"]  # this fleet is known before it is all hit


def test_black_box_is_its_box_with_the_rays_and_each_cell_s_chance(client):
    """5 x 5 with 3 atoms: each ray fired shows where it came out (a letter on both
    ports) or its first letter, and each cell the chance it holds an atom, against the
    tracer of tests/test_black_box.py over every layout."""
    from tests.test_black_box import trace

    n, secret = 5, {(1, 2), (3, 3), (4, 5)}
    st = client.post("/api/sessions", json={"spec": "black-box",
                                            "params": {"n": n, "k": 3}}).json()
    fired = []
    for port in (1, 6, 11, 17):
        result, out = trace(n, secret, port)
        st = client.post(f"/api/sessions/{st['id']}/observe", json={
            "query": "fire", "args": {"entry": port},
            "outcome": {"result": result, "exit": out}}).json()
        fired.append((port, result, out))
    board = st["board"]
    assert (board["kind"], board["rows"], board["cols"]) == ("box", 5, 5)
    want, letter = [None] * (4 * n), iter("ABCD")
    for port, result, out in fired:
        if result == "exit":
            want[port - 1] = want[out - 1] = next(letter)
        else:
            want[port - 1] = result[0].upper()
    assert [p["seen"] for p in board["ports"]] == want
    cells = [(r, c) for r in range(1, n + 1) for c in range(1, n + 1)]
    left = [set(a) for a in itertools.combinations(cells, 3)
            if all(trace(n, set(a), p) == (res, out) for p, res, out in fired)]
    assert len(left) == st["hypotheses"]
    for k, (r, c) in enumerate(cells):
        assert board["cells"][k] == pytest.approx(sum((r, c) in a for a in left) / len(left))

"""`sleuth serve` through its JSON API (Starlette's test client): the forms follow the
spec, a whole game is played and saved in `sleuth play`'s session format, a refused
observation changes nothing, the terminal and the page take turns on one session file,
uploads are checked and limited, requests cannot name files, and analyses run as jobs
that can be cancelled. The server under many clients and killed mid-write:
tests/test_serve_load.py; in a real browser: tests/test_browser.py."""

from __future__ import annotations

import itertools
import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

import sleuth
from sleuth.solver.interfaces.cli import cli
from sleuth.solver.interfaces.web.app import create_app
from sleuth.solver.interfaces.web.library import MAX_UPLOAD
from tests.conftest import ROOT, advised, alive

pytestmark = pytest.mark.e2e  # the second tier: end to end

LOCAL = "http://127.0.0.1:8000"  # the Host a test client sends: the server's own


def mastermind_feedback(guess: list[int], code: list[int]) -> dict[str, int]:
    """Written here: blacks by position, whites from the colours' common counts."""
    black = sum(g == c for g, c in zip(guess, code, strict=True))
    common = sum(min(guess.count(x), code.count(x)) for x in set(guess))
    return {"black": black, "white": common - black}


def test_the_page_and_its_assets_come_from_the_server(client):
    page = client.get("/")
    assert page.status_code == 200
    assert "script-src 'self'" in page.headers["content-security-policy"]
    scripts = [f"/static/{s}" for s in re.findall(r'src="/static/([a-z]+\.js)"', page.text)]
    assert scripts[-1] == "/static/app.js" and len(scripts) == 5
    for asset in (*scripts, "/static/style.css"):
        r = client.get(asset)
        assert r.status_code == 200 and r.headers["x-content-type-options"] == "nosniff"
        text = r.text.replace("http://www.w3.org/2000/svg", "")  # a name, not a fetch
        assert "http://" not in text and "https://" not in text
    assert "http" not in page.text.replace("http-equiv", "")


@pytest.mark.parametrize("spec, action, expect", [
    ("mastermind", "guess", {"g": "word"}),
    ("wordle", "guess", {"w": "word"}),
    ("counterfeit-coin", "weigh", {"left": "set", "right": "set"}),
    ("black-box", "fire", {"entry": "int"}),
    ("clue", "suggest", {"suspect": "enum", "weapon": "enum", "room": "enum"}),
])
def test_the_forms_follow_the_spec(client, spec, action, expect):
    forms = {f["name"]: f for f in client.get(
        "/api/spec", params={"ref": spec, "params": "{}"}).json()["forms"]}
    assert {a["name"]: a["field"]["kind"] for a in forms[action]["args"]} == expect
    game = sleuth.load(spec)
    want = [name for name, _, _ in game.model.action(action).feedback]
    assert [c["name"] for c in forms[action]["feedback"]] == want


def test_the_wordle_marks_and_inkognito_answers_get_their_own_fields(client):
    wordle = client.get("/api/spec", params={"ref": "wordle"}).json()["forms"][0]
    marks = sleuth.load("wordle").model.action("guess").feedback[0][2].type
    assert wordle["feedback"][0]["field"] == {"kind": "word", "length": 5,
                                              "letters": list(marks.elem.values)}
    inko = {f["name"]: f for f in client.get(
        "/api/spec", params={"ref": "inkognito"}).json()["forms"]}
    answer = inko["player_question"]["answer"]
    assert answer["kind"] == "record"
    assert [f["field"]["kind"] for f in answer["fields"]] == ["set", "set"]


def test_a_whole_game_played_through_the_api(client):
    code = [3, 1, 6, 6]
    st = client.post("/api/sessions", json={"spec": "mastermind", "params": {}}).json()
    sid, played = st["id"], []
    assert st["flat"] and st["likely"] == [] and st["few"] is None  # 1,296 alike: no ranking
    while st["over"] is None:
        advice = advised(client, f"/api/sessions/{sid}/suggest").json()
        guess = advice["suggestion"]["args"]["g"]
        assert advice["suggestion"]["gain_bits"] == max(q["gain_bits"] for q in advice["top"])
        feedback = mastermind_feedback(guess, code)
        st = client.post(f"/api/sessions/{sid}/observe",
                         json={"query": "guess", "args": {"g": guess},
                               "outcome": feedback}).json()
        played.append({"query": "guess", "args": {"g": guess}, "feedback": feedback})
        assert len(played) < 10
        if st["hypotheses"] <= 50:  # the few left, listed: every code the marks allow
            allowed = {str(list(c)) for c in itertools.product(range(1, 7), repeat=4)
                       if all(mastermind_feedback(p["args"]["g"], list(c)) == p["feedback"]
                              for p in played)}
            assert {h["value"]["code"] for h in st["few"]} == allowed
            assert abs(sum(h["p"] for h in st["few"]) - 1) < 1e-9 and st["likely"] == []
        else:
            assert st["few"] is None
    assert st["over"] == {"solved": True, "queries": len(played),
                          "answer": {"code": str(code)}, "finish": []}
    assert [s["feedback"] for s in st["steps"]] == [p["feedback"] for p in played]
    saved = json.loads((client.sessions / f"{sid}.json").read_text())
    assert saved["format"] == "sleuth-session/1" and saved["steps"] == played
    # the same game through the Python API: the same hypotheses at every step
    belief = sleuth.belief(sleuth.load("mastermind"))
    for step, shown in zip(played, st["steps"], strict=True):
        belief = sleuth.observe(belief, "guess", step["args"], step["feedback"])
        assert shown["hypotheses"] == belief.size
    assert client.get(f"/api/sessions/{sid}/suggest").json()["over"]


def test_a_refused_observation_changes_nothing(client):
    sid = client.post("/api/sessions", json={"spec": "mastermind"}).json()["id"]
    path = client.sessions / f"{sid}.json"
    client.post(f"/api/sessions/{sid}/observe", json={
        "query": "guess", "args": {"g": "1122"}, "outcome": {"black": 1, "white": 0}})
    before = path.read_bytes()
    for bad, message in [
        ({"query": "guess", "args": {"g": "1122"}, "outcome": {"black": 4, "white": 0}},
         "inconsistent observations"),
        ({"query": "guess", "args": {"g": "1179"}, "outcome": {"black": 0, "white": 0}},
         "outside"),
        ({"query": "gues", "args": {}, "outcome": {}}, "gues"),
        ({"query": "guess", "args": {"g": "1122"}, "outcome": {"black": 1}}, "missing"),
    ]:
        r = client.post(f"/api/sessions/{sid}/observe", json=bad)
        assert r.status_code == 400 and message in r.json()["error"]["message"], r.json()
        assert path.read_bytes() == before
    st = client.get(f"/api/sessions/{sid}").json()
    assert len(st["steps"]) == 1 and st["hypotheses"] == 256


def test_undo_and_redo(client):
    sid = client.post("/api/sessions", json={"spec": "mastermind"}).json()["id"]
    one = client.post(f"/api/sessions/{sid}/observe", json={
        "query": "guess", "args": {"g": "1122"}, "outcome": {"black": 1, "white": 0}}).json()
    back = client.post(f"/api/sessions/{sid}/undo", json={}).json()
    assert back["hypotheses"] == 1296 and back["can_redo"] and not back["can_undo"]
    again = client.post(f"/api/sessions/{sid}/redo", json={}).json()
    assert again["hypotheses"] == one["hypotheses"] == 256 and not again["can_redo"]
    assert client.post(f"/api/sessions/{sid}/redo", json={}).status_code == 400


def test_the_terminal_and_the_page_take_turns_on_one_session(client):
    sid = client.post("/api/sessions", json={"spec": "mastermind"}).json()["id"]
    path = client.sessions / f"{sid}.json"
    client.post(f"/api/sessions/{sid}/observe", json={
        "query": "guess", "args": {"g": "1122"}, "outcome": {"black": 1, "white": 0}})
    time.sleep(0.01)  # a distinct modification time
    out = CliRunner().invoke(cli, ["play", "mastermind", "--session", str(path)],
                             input="play guess 3345\n0 1\nquit\n")
    assert out.exit_code == 0, out.output
    st = client.get(f"/api/sessions/{sid}").json()
    assert [s["text"] for s in st["steps"]][1].startswith("guess g=[3, 3, 4, 5]")
    belief = sleuth.belief(sleuth.load("mastermind"))
    belief = sleuth.observe(belief, "guess", {"g": [1, 1, 2, 2]}, {"black": 1, "white": 0})
    belief = sleuth.observe(belief, "guess", {"g": [3, 3, 4, 5]}, {"black": 0, "white": 1})
    assert st["hypotheses"] == belief.size


def test_uploads_are_checked_located_and_limited(client):
    text = ("game: X\nsecret: {x: Colour}\nqueries:\n  q:\n    args: {y: Colour}\n"
            "    feedback: \"x == y\"\n")
    bad = client.post("/api/specs", json={"name": "mine.yaml", "text": text})
    assert bad.status_code == 422
    err = bad.json()["error"]
    col = text.splitlines()[1].index("Colour") + 1  # where `sleuth check` points
    assert err["loc"] == {"file": "mine.yaml", "line": 2, "col": col}, err
    assert "unknown domain 'Colour'" in err["message"]
    big = client.post("/api/specs", json={"name": "big.yaml", "text": "#" * (MAX_UPLOAD + 10)})
    assert big.status_code in (400, 413)
    good = client.post("/api/specs", json={"name": "mine.yaml", "text": (
        "game: Mine\ndomains: {D: {range: '1..4'}}\nsecret: {x: D}\n"
        "queries:\n  q:\n    args: {y: D}\n    feedback: \"x <= y\"\n")})
    assert good.status_code == 201
    ref = good.json()["ref"]
    assert ref in [s["ref"] for s in client.get("/api/specs").json()["specs"]]
    st = client.post("/api/sessions", json={"spec": ref}).json()
    assert st["game"] == "Mine" and st["hypotheses"] == 4
    assert ref.startswith("uploads/") and str(client.sessions) not in json.dumps(
        client.get("/api/specs").json())  # no path of the server's
    assert (client.sessions / "specs" / ref.removeprefix("uploads/")).is_file()


@pytest.mark.parametrize("request_", [
    ("post", "/api/sessions", {"spec": str(ROOT / "specs" / "mastermind.yaml")}),
    ("post", "/api/sessions", {"spec": "/etc/passwd"}),
    ("get", "/api/spec?ref=..%2F..%2Fetc%2Fpasswd", None),
    ("get", "/api/sessions/..%2F..%2Fx", None),
    ("get", "/api/sessions/nothing-here", None),
])
def test_requests_cannot_name_files(client, request_):
    method, url, data = request_
    r = client.request(method, url, json=data)
    assert r.status_code in (400, 404) and "error" in r.json()


def test_the_design_analysis_is_a_job_with_the_cli_numbers(client):
    job = client.post("/api/analyses", json={"spec": "mastermind",
                                             "params": {"pegs": 3, "colours": 4}}).json()
    for _ in range(1200):  # a child process starts, loads the game and plays it
        state = client.get(f"/api/analyses/{job['id']}").json()
        if state["state"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.05)
    assert state["state"] == "done", state
    mine = sleuth.analyse(sleuth.load("mastermind", pegs=3, colours=4)).to_json()
    got = state["result"]
    for key in ("spatial_interest_bits", "temporal_interest_bits", "entropy_per_round",
                "first_moves", "lengths"):
        assert got[key] == mine[key], key


def test_an_analysis_can_be_cancelled(client):
    job = client.post("/api/analyses", json={"spec": "bulls-and-cows", "params": {},
                                             "secrets": 5040}).json()
    client.delete(f"/api/analyses/{job['id']}")
    for _ in range(400):
        state = client.get(f"/api/analyses/{job['id']}").json()
        if state["state"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.05)
    assert state["state"] == "cancelled" and "result" not in state


def analysis_children() -> list[int]:
    """The analysis child processes of this process."""
    import os

    mine = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"web.child" in cmd:
            mine.append(int(pid))
    return mine


def test_a_running_analysis_is_cancelled_within_a_second(client):
    """Wordle's every opener scored, a step with no progress hook inside: cancel kills
    the child process that runs it, and the job says so within a second."""
    job = client.post("/api/analyses", json={"spec": "wordle", "params": {},
                                             "strategy": "entropy"}).json()
    for _ in range(600):
        state = client.get(f"/api/analyses/{job['id']}").json()
        if state["stage"] not in ("", "starting"):
            break
        time.sleep(0.05)
    assert state["state"] == "running" and analysis_children(), state
    time.sleep(1.0)  # well inside the step
    start = time.perf_counter()
    client.delete(f"/api/analyses/{job['id']}")
    while client.get(f"/api/analyses/{job['id']}").json()["state"] != "cancelled":
        assert time.perf_counter() - start < 1.0
        time.sleep(0.02)
    took = time.perf_counter() - start
    while analysis_children() and time.perf_counter() - start < 1.0:
        time.sleep(0.02)
    assert not analysis_children() and took < 1.0, took


def test_panels_per_opponent_and_per_player(client):
    ink = client.post("/api/sessions", json={"spec": "inkognito-table"}).json()
    titles = [p["title"] for p in ink["panels"]]
    assert titles == ["left", "across", "right"]
    assert [r["label"] for r in ink["panels"][0]["rows"]] == ["identities", "builds"]
    game = sleuth.load("inkognito-table")
    marg = sleuth.belief(game).marginals()
    for panel in ink["panels"]:
        for row in panel["rows"]:
            want = marg[f"{row['label']}[{panel['title']}]"]
            assert row["p"] == pytest.approx({str(k): v for k, v in want.items()})


def test_clue_grid_matches_sleuth_belief(client):
    sid = client.post("/api/sessions", json={"spec": "clue"}).json()["id"]
    events = __import__("yaml").safe_load((ROOT / "examples" / "clue-game.yaml").read_text())
    for e in events:
        r = client.post(f"/api/sessions/{sid}/observe", json={
            "query": e["query"], "args": e["args"],
            "outcome": e.get("feedback", e.get("answer"))})
        assert r.status_code == 200, r.json()
    st = r.json()
    out = CliRunner().invoke(cli, ["belief", "clue", "--observations",
                                   str(ROOT / "examples" / "clue-game.yaml"), "--json"])
    want = json.loads(out.output)["marginals"]
    (grid,) = st["grids"]
    assert len(grid["rows"]) == len(want)
    for row in grid["rows"]:
        expect = want[row["label"]]
        assert dict(zip(grid["columns"], row["cells"], strict=True)) == pytest.approx(
            {str(k): v for k, v in expect.items()}, abs=1e-9)
    holders = [p["title"] for p in st["panels"]]
    assert holders == grid["columns"]


def test_serve_checks_its_specs_before_it_listens(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: X\nsecret: {x: Nope}\nqueries: {}\n")
    out = CliRunner().invoke(cli, ["serve", str(bad), "--sessions", str(tmp_path)])
    assert out.exit_code == 1 and "bad.yaml:2:" in str(out.exception or out.output)


def test_label_or_number_and_turn_through_the_web_api(client):
    """Minesweeper's 'mine' or a number, and a spec that reads `turn` (its queries' turn
    filled in by the worksheet, not shown in the form): the same hypotheses as the
    Python API at every step."""
    st = client.post("/api/sessions", json={"spec": "minesweeper", "params": {}}).json()
    sid = st["id"]
    belief = sleuth.belief(sleuth.load("minesweeper"))
    for cell, outcome in ((5, "mine"), (0, 2)):
        st = client.post(f"/api/sessions/{sid}/observe",
                         json={"query": "probe", "args": {"c": cell}, "outcome": outcome})
        assert st.status_code == 200, st.text
        belief = sleuth.observe(belief, "probe", {"c": cell}, outcome)
        assert st.json()["steps"][-1]["hypotheses"] == belief.size
    bad = client.post(f"/api/sessions/{sid}/observe",
                      json={"query": "probe", "args": {"c": 1}, "outcome": "mien"})
    assert bad.status_code == 400 and "did you mean 'mine'" in bad.text
    forms = client.get("/api/spec", params={"ref": "ulam-random", "params": "{}"}).json()
    assert [a["name"] for a in forms["forms"][0]["args"]] == ["s"]
    st = client.post("/api/sessions", json={"spec": "ulam-random", "params": {}}).json()
    sid = st["id"]
    belief = sleuth.belief(sleuth.load("ulam-random"))
    for s, outcome in (([1, 2, 3, 4], True), ([1, 2, 3, 4], False)):
        st = client.post(f"/api/sessions/{sid}/observe",
                         json={"query": "ask", "args": {"s": s}, "outcome": outcome}).json()
        belief = sleuth.observe(belief, "ask", {"s": s}, outcome)
        assert st["steps"][-1]["hypotheses"] == belief.size
    saved = json.loads((client.sessions / f"{sid}.json").read_text())
    assert [step["args"]["turn"] for step in saved["steps"]] == [1, 2]


@pytest.mark.parametrize("ref, params, title", [
    ("mastermind", {}, "Mastermind, 4 pegs, 6 colours"),  # the spec's title
    ("mastermind", {"pegs": 3, "colours": 5}, "Mastermind, 3 pegs, 5 colours"),
    ("black-box", {"n": 5, "k": 3}, "Black Box, 5 x 5, 3 atoms"),
    ("noisy-guess-who", {"lie": 0.2}, "Guess Who (with lies), lie 0.2"),  # no title
])
def test_games_are_titled_by_their_params(client, ref, params, title):
    summary = client.get("/api/spec", params={"ref": ref, "params": json.dumps(params)}).json()
    assert summary["title"] == title
    st = client.post("/api/sessions", json={"spec": ref, "params": params}).json()
    assert st["title"] == title


def test_the_same_observation_twice_needs_repeat(client):
    sid = client.post("/api/sessions", json={"spec": "mastermind"}).json()["id"]
    step = {"query": "guess", "args": {"g": [1, 1, 2, 2]}, "outcome": {"black": 1, "white": 0}}
    assert len(client.post(f"/api/sessions/{sid}/observe", json=step).json()["steps"]) == 1
    again = client.post(f"/api/sessions/{sid}/observe",  # the same, written otherwise
                        json={**step, "args": {"g": "1122"}})
    assert again.status_code == 400
    assert again.json()["error"]["message"] == "the same as step 1"
    assert len(client.get(f"/api/sessions/{sid}").json()["steps"]) == 1
    twice = client.post(f"/api/sessions/{sid}/observe", json={**step, "repeat": True}).json()
    assert len(twice["steps"]) == 2 and twice["hypotheses"] == twice["steps"][0]["hypotheses"]


def test_the_landing_spec_is_a_given_one_else_the_classic(client, tmp_path):
    assert client.get("/api/specs").json()["landing"] == "mastermind"
    given = str(ROOT / "specs" / "counterfeit-coin.yaml")
    with TestClient(create_app([given], tmp_path / "other"), base_url=LOCAL) as other:
        assert other.get("/api/specs").json()["landing"] == "given/counterfeit-coin.yaml"
        st = other.post("/api/sessions", json={"spec": "given/counterfeit-coin.yaml"}).json()
        assert st["spec"] == "given/counterfeit-coin.yaml" and st["hypotheses"] == 24
        saved = json.loads((tmp_path / "other" / f"{st['id']}.json").read_text())
        assert saved["spec"] == given  # the file keeps the path `sleuth play` loads


WORDS = """\
game: Pick a word
domains:
  Word: {from: words.txt}
secret: {w: Word}
queries:
  ask:
    args: {g: Word}
    feedback: "w == g"
"""


def zipped(files: dict[str, str]) -> str:
    import base64
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.parametrize("how", ["files", "zip"])
def test_an_upload_carries_its_data_and_is_played(client, how):
    words = "apple\nberry\ncherry\n"
    request = ({"name": "pick.yaml", "text": WORDS, "files": {"words.txt": words}}
               if how == "files" else
               {"zip": zipped({"pick.yaml": WORDS, "words.txt": words})})
    made = client.post("/api/specs", json=request)
    assert made.status_code == 201, made.json()
    ref = made.json()["ref"]
    kept = client.sessions / "specs" / ref.removeprefix("uploads/")
    assert (kept.parent / "words.txt").read_text() == words
    st = client.post("/api/sessions", json={"spec": ref}).json()
    assert st["hypotheses"] == 3 and st["title"] == "Pick a word"
    for word in ("apple", "berry", "cherry"):  # ask each in turn until the answer
        st = client.post(f"/api/sessions/{st['id']}/observe", json={
            "query": "ask", "args": {"g": word}, "outcome": {"feedback": word == "berry"}}).json()
        if st["over"]:
            break
    assert st["over"] == {"solved": True, "queries": 2, "answer": {"w": "berry"}, "finish": []}


@pytest.mark.parametrize("request_, status, says", [
    ({"name": "pick.yaml", "text": WORDS}, 422, "words.txt"),  # the word list missing
    ({"name": "pick.yaml", "text": WORDS.replace("w == g", "w == nope"),
      "files": {"words.txt": "a\nb\n"}}, 422, "unknown name 'nope'"),
    ({"name": "pick.yaml", "text": WORDS, "files": {"words.txt": "x" * (4 * 2**20 + 1)}},
     413, "larger than 4 MiB"),
    ({"name": "pick.yaml", "text": WORDS, "files": {"../words.txt": "a\n"}}, 400,
     "'../words.txt' is not a name an uploaded file may have"),
    ({"name": "pick.yaml", "text": WORDS, "files": {"/etc/words.txt": "a\n"}}, 400,
     "is not a name"),
    ({"zip": zipped({"pick.yaml": WORDS, "../../words.txt": "a\n"})}, 400, "is not a name"),
])
def test_bad_uploads_are_refused_readably(client, request_, status, says):
    answer = client.post("/api/specs", json=request_)
    assert answer.status_code == status
    error = answer.json()["error"]
    assert says in error["text"]
    assert str(client.sessions) not in json.dumps(error) and "staging" not in json.dumps(error)
    kept = [p for p in (client.sessions / "specs").rglob("*")] if (
        client.sessions / "specs").exists() else []
    assert not [p for p in kept if p.is_file()]  # nothing kept, nothing left staged
    assert not (client.sessions.parent / "words.txt").exists()


def mastermind_pairs() -> list[tuple[int, int]]:
    """Every (black, white) some guess gives some code of MM(4,6), by brute force here."""
    import numpy as np

    codes = np.array(list(itertools.product(range(1, 7), repeat=4)))
    counts = np.stack([(codes == c).sum(axis=1) for c in range(1, 7)], axis=1)
    seen = set()
    for g in range(len(codes)):
        black = (codes == codes[g]).sum(axis=1)
        white = np.minimum(counts, counts[g]).sum(axis=1) - black
        seen |= set(zip(black.tolist(), white.tolist(), strict=True))
    return sorted(seen)


def test_a_suggestion_holding_the_interpreters_lock_delays_no_answer(client, monkeypatch):
    """The suggestion is worked out in a forked child (web/forked.py): one that holds the
    interpreter's lock for 3 s (a C call that never lets go of it, as a long numpy call
    or a compile does) still gets its 202 within ANSWER seconds, and another request
    meanwhile is answered at once; then the suggestion itself comes."""
    import ctypes
    import threading

    from sleuth.solver.interfaces.web import resources
    from sleuth.solver.interfaces.web.worksheet import Worksheet

    sid = client.post("/api/sessions", json={"spec": "counterfeit-coin"}).json()["id"]
    want = advised(client, f"/api/sessions/{sid}/suggest?strategy=minimax").json()
    slow = Worksheet._suggestion

    def holding(self, *args, **kwargs):
        ctypes.PyDLL(None).sleep(3)  # libc's sleep, the interpreter's lock held
        return slow(self, *args, **kwargs)

    monkeypatch.setattr(Worksheet, "_suggestion", holding)
    other: list[float] = []

    def ask_other() -> None:
        time.sleep(0.5)
        start = time.perf_counter()
        client.get(f"/api/sessions/{sid}")
        other.append(time.perf_counter() - start)

    meanwhile = threading.Thread(target=ask_other)
    meanwhile.start()
    start = time.perf_counter()
    first = client.get(f"/api/sessions/{sid}/suggest?strategy=minimax&top=4")  # new work
    took = time.perf_counter() - start
    meanwhile.join()
    assert first.status_code == 202 and first.json()["thinking"], first.text
    assert took < resources.ANSWER + 0.25 and other[0] < 0.5, (took, other)
    while first.status_code == 202:
        time.sleep(0.2)
        first = client.get(f"/api/sessions/{sid}/suggest?strategy=minimax&top=4")
    assert first.json()["suggestion"] == want["suggestion"]


def test_a_suggestion_for_a_step_left_behind_is_given_up(client, monkeypatch):
    """A page that asks about a newer step gives up the suggestion still worked out for
    the step before: its child is killed at once, not left to run."""
    import os

    from sleuth.solver.interfaces.web import resources
    from sleuth.solver.interfaces.web.worksheet import Worksheet

    sessions = next(r.endpoint.__self__ for r in client.app.routes
                    if getattr(r, "path", "") == "/api/sessions/{ident}/suggest")
    sid = client.post("/api/sessions", json={"spec": "mastermind"}).json()["id"]
    slow = Worksheet._suggestion

    def stuck(self, *args, **kwargs):
        time.sleep(60)
        return slow(self, *args, **kwargs)

    monkeypatch.setattr(Worksheet, "_suggestion", stuck)
    monkeypatch.setattr(resources, "WAIT", 0.05)
    monkeypatch.setattr(resources, "ANSWER", 0.1)
    assert client.get(f"/api/sessions/{sid}/suggest?strategy=entropy").status_code == 202
    key = next(k for k in sessions.children if len(k) == 4)
    for _ in range(100):  # the child's pid is known once it has forked
        pid = sessions.children[key]._pid
        if pid is not None:
            break
        time.sleep(0.01)
    assert pid is not None and alive(pid)
    step = client.post(f"/api/sessions/{sid}/observe", json={
        "query": "guess", "args": {"g": [1, 1, 2, 2]}, "outcome": {"black": 0, "white": 0}})
    assert step.status_code == 200, step.text
    monkeypatch.setattr(Worksheet, "_suggestion", slow)
    start = time.perf_counter()
    client.get(f"/api/sessions/{sid}/suggest?strategy=entropy")
    while alive(pid) and time.perf_counter() - start < 5:
        time.sleep(0.02)
    assert not alive(pid) and time.perf_counter() - start < 1.0
    assert key not in sessions.children and os.getpid() != pid


def test_what_the_child_computes_for_the_game_is_kept_by_the_server(client):
    """The feedback matrix a suggestion's child builds comes back and is adopted by the
    server's game (the next child starts from it): the same matrix as one built here.
    (`entropy` asked by name is always worked out in a child; `auto` on a set this
    small would run on the server's thread.)"""
    import numpy as np

    from sleuth.solver.infoset.queries import Candidates

    sessions = next(r.endpoint.__self__ for r in client.app.routes
                    if getattr(r, "path", "") == "/api/sessions/{ident}/suggest")
    sid = client.post("/api/sessions", json={"spec": "counterfeit-coin"}).json()["id"]
    game = sessions.server.sheet(sid).game

    def matrices() -> dict:
        return {k: v for k, v in game.memo.own().items() if k[0] == "matrix"}

    assert not matrices()  # the page's state needs none: the server never built one
    assert advised(client, f"/api/sessions/{sid}/suggest?strategy=entropy").status_code == 200
    kept = matrices()
    assert kept, sorted(map(str, game.memo.own()))
    fresh = sleuth.load("counterfeit-coin")
    Candidates(fresh).keep_matrices()
    for key, matrix in kept.items():
        mine = fresh.memo.own()[key]
        assert np.array_equal(matrix.data, mine.data) and np.array_equal(matrix.book, mine.book)


def test_a_slow_suggestion_answers_pending_then_the_same_advice(client, monkeypatch,
                                                                 tmp_path):
    """A suggestion still being worked out (the first use of the search kernels compiles
    them for a minute) answers 202 "pending" within ANSWER seconds, saying whether kernels
    are being compiled, with a quick provisional query (one the game allows); asked
    again, the same work is found and its answer is the direct one. The work runs in a
    forked child, so the test holds it with files rather than a thread's event."""
    import time

    from sleuth.compiler.api import compiling
    from sleuth.solver.interfaces.web import resources
    from sleuth.solver.interfaces.web.worksheet import Worksheet

    sid = client.post("/api/sessions", json={"spec": "mastermind", "params": {}}).json()["id"]
    want = advised(client, f"/api/sessions/{sid}/suggest?strategy=minimax").json()
    slow = Worksheet._suggestion
    runs, release = tmp_path / "runs", tmp_path / "release"

    def held(self, *args, **kwargs):
        with runs.open("a") as f:
            f.write("run\n")
        deadline = time.monotonic() + 10
        while not release.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return slow(self, *args, **kwargs)

    monkeypatch.setattr(Worksheet, "_suggestion", held)
    monkeypatch.setattr(resources, "WAIT", 0.05)
    monkeypatch.setattr(compiling, "compiling", lambda: True)
    start = time.perf_counter()
    first = client.get(f"/api/sessions/{sid}/suggest?strategy=minimax")
    assert time.perf_counter() - start < resources.ANSWER + 0.5
    assert first.status_code == 202
    got = first.json()
    assert got["pending"] and got["thinking"] and got["compiling"]
    quick = got["provisional"]
    assert quick["provisional"] and quick["strategy"] == "ises-sampled-partition"
    g = quick["suggestion"]["args"]["g"]
    assert quick["suggestion"]["query"] == "guess" and len(g) == 4 and set(g) <= set(range(1, 7))
    again = client.get(f"/api/sessions/{sid}/suggest?strategy=minimax")
    assert again.status_code == 202
    release.touch()
    time.sleep(0.5)
    done = client.get(f"/api/sessions/{sid}/suggest?strategy=minimax")
    # one piece of work, found again
    assert done.status_code == 200 and runs.read_text().count("run") == 1
    got = done.json()
    assert got["suggestion"] == want["suggestion"] and got["top"] == want["top"]

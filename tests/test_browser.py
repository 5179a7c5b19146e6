"""The web page in a real browser: Debian's Chromium, driven headless by Playwright
(no browser is downloaded; .ci/run installs the `chromium` package when it is missing).
A Mastermind game played to the win by clicking, a Wordle game by keyboard alone, the
forms choosing nothing the player did not choose, an upload with its word list, a spec
full of markup shown as text, and the design view's analysis against `sleuth analyse`.
Boards and Clue's detective notes: tests/test_browser_boards.py. The server, browser
and page fixtures are in tests/conftest.py."""

from __future__ import annotations

import json

import httpx
import pytest

import sleuth
from tests.conftest import needs_chromium
from tests.test_serve import mastermind_feedback, mastermind_pairs

pytestmark = [pytest.mark.e2e, needs_chromium]


def until(page, expression: str, timeout: float = 60.0) -> None:
    """Wait until a JavaScript expression holds (polled through the debugging protocol:
    the page's Content-Security-Policy forbids the string evaluation Playwright's
    wait_for_function would do in the page)."""
    import time

    end = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {expression}")
        time.sleep(0.05)


def open_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")


def choose(page, text: str) -> None:
    """Click the feedback button that reads `text`."""
    page.click(f"#fields .choice[title='{text}']")


def test_a_mastermind_game_to_the_win_by_clicking(page, site):
    """Pegs from the palette, the marks from the buttons of the 14 pairs the game can
    give; the board shows each guess as coloured pegs with its key pegs."""
    url, sessions = site
    code = [2, 5, 5, 1]
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    open_page(page, url)
    assert page.input_value("#spec") == "mastermind"  # the landing page's game
    page.click("#new-game")
    page.wait_for_selector("#game:not([hidden])")
    assert page.text_content("#game-title") == "Mastermind, 4 pegs, 6 colours"
    assert page.title() == "Mastermind, 4 pegs, 6 colours — Sleuth"
    page.wait_for_selector("#fields .choice")
    buttons = [c.get_attribute("title") for c in page.query_selector_all("#fields .choice")]
    assert buttons == [f"black {b}, white {w}" for b, w in mastermind_pairs()]
    for turn in range(1, 10):
        page.wait_for_selector("#suggested")
        guess = [int(x) for x in page.text_content("#suggested").split("[")[1].rstrip("]")
                 .split(", ")]
        for colour in guess:  # the pegs, one click each
            page.click(f"#fields .palette [data-value='{colour}']")
        assert page.input_value("#fields .word") == "".join(map(str, guess))
        fb = mastermind_feedback(guess, code)
        choose(page, f"black {fb['black']}, white {fb['white']}")
        page.click("#record")
        until(page, f"document.querySelectorAll('#history tbody tr').length == {turn}")
        row = page.query_selector_all(".pegs-board .line.played")[-1]
        assert [p.text_content() for p in row.query_selector_all(".peg")] == \
            [str(c) for c in guess]
        keys = [k.get_attribute("data-key") for k in row.query_selector_all(".key")]
        assert keys == ["black"] * fb["black"] + ["white"] * fb["white"]
        if page.is_visible("#over"):
            break
    assert page.text_content("#over") == (f"Solved in {turn} quer{'y' if turn == 1 else 'ies'}"
                                          f": code = {code}.")
    assert page.text_content("#hypotheses") == "1"
    assert page.text_content("#hypotheses-noun") == "hypothesis"
    # the end: no advice, nothing more to record, the one code listed, undo still there
    assert not page.is_visible("#advice") and page.is_disabled("#record")
    assert all(f.is_disabled() for f in page.query_selector_all("#fields input, #fields select"))
    assert page.text_content("#likely-title") == "1 left"
    assert page.text_content("#likely li") == f"code = {code} (100.0%)"
    assert page.is_enabled("#undo")
    (cell,) = [c for c in page.query_selector_all("table[data-variable='code'] td")
               if c.get_attribute("data-p") == "1"][:1] or [None]
    assert cell is not None and not page.errors
    # the page's session is `sleuth play`'s file: the same steps, readable by play
    sid = page.evaluate("decodeURIComponent(location.hash.split('=')[1])")
    saved = json.loads((sessions / f"{sid}.json").read_text())
    assert len(saved["steps"]) == turn and saved["steps"][-1]["feedback"]["black"] == 4
    page.click("#undo")  # back into the game: advice and the form again
    until(page, f"document.querySelectorAll('#history tbody tr').length == {turn - 1}")
    assert page.is_visible("#advice") and page.is_enabled("#record") and not page.errors
    # sessions are listed by game, time and steps, not by file name; nothing is missing
    listed = page.text_content("#sessions")
    assert "Mastermind, " in listed and sid not in listed and not missing


def wordle_marks(guess: str, answer: str) -> str:
    """Written here: greens first, then yellows while the answer has the letter left."""
    out, left = ["b"] * 5, {}
    for g, a in zip(guess, answer, strict=True):
        if g != a:
            left[a] = left.get(a, 0) + 1
    for i, (g, a) in enumerate(zip(guess, answer, strict=True)):
        if g == a:
            out[i] = "g"
        elif left.get(g, 0):
            out[i], left[g] = "y", left[g] - 1
    return "".join(out)


def test_a_wordle_game_by_keyboard_alone(page, site):
    """Type the suggested guess and its marks, press Enter; the same Enter again only
    warns; a drop-down starts on nothing and Record refuses it until chosen."""
    url, _ = site
    answer = "abide"
    open_page(page, url)
    page.select_option("#spec", "wordle")
    page.click("#new-game")
    page.wait_for_selector("#game:not([hidden])")
    for turn in range(1, 7):
        page.wait_for_selector("#suggested", timeout=120_000)
        guess = page.text_content("#suggested").split("=")[-1].strip()
        if turn == 1:
            page.focus("#fields .word")  # later turns start there by themselves
        page.keyboard.type(guess)
        page.keyboard.press("Tab")
        page.keyboard.type(wordle_marks(guess, answer))
        page.keyboard.press("Enter")
        until(page, f"document.querySelectorAll('#history tbody tr').length == {turn}")
        row = page.query_selector_all(".tiles-board .line.played")[-1]
        tiles = row.query_selector_all(".tile")
        assert "".join(x.text_content() for x in tiles) == guess
        assert "".join(x.get_attribute("data-mark") for x in tiles) == \
            wordle_marks(guess, answer)
        if page.is_visible("#over"):
            break
        # the form is fresh and the first field has the focus; the same again only warns
        assert [b.input_value() for b in page.query_selector_all("#fields .word")] == ["", ""]
        if turn == 1:
            page.keyboard.type(guess)
            page.keyboard.press("Tab")
            page.keyboard.type(wordle_marks(guess, answer))
            page.keyboard.press("Enter")
            until(page, "!document.getElementById('observe-error').hidden")
            assert "the same as step 1" in page.text_content("#observe-error")
            assert len(page.query_selector_all("#history tbody tr")) == 1
            for box in page.query_selector_all("#fields .word"):
                box.fill("")
            # the marks can also be clicked on the tiles: the third twice is grey, yellow
            page.focus("#fields [data-name='w'] .word")
            page.keyboard.type(guess)
            page.click("#fields .preview .tile >> nth=2")
            page.click("#fields .preview .tile >> nth=2")
            assert page.input_value("#fields [data-name='marks'] .word") == "bby"
            for box in page.query_selector_all("#fields .word"):
                box.fill("")
            page.focus("#fields .word")
    queries = f"{turn} quer{'y' if turn == 1 else 'ies'}"
    assert page.text_content("#over") == f"Solved in {queries}: answer = {answer}."
    assert not page.errors


def refused(page) -> str:
    """Press Record and wait for the page to refuse: the error it shows."""
    page.click("#record")
    until(page, "!document.getElementById('observe-error').hidden")
    return page.text_content("#observe-error")


def test_a_number_field_starts_empty(page, site):
    """Higher or lower (1..100): the guess is typed, never pre-filled."""
    url, _ = site
    open_page(page, url)
    page.select_option("#spec", "higher-lower")
    page.click("#new-game")
    page.wait_for_selector("#game:not([hidden])")
    assert page.input_value("#fields [data-name='x'] input") == ""
    choose(page, "higher")
    assert refused(page) == "choose a value for x"
    page.fill("#fields [data-name='x'] input", "50")
    choose(page, "higher")
    page.click("#record")
    until(page, "document.querySelectorAll('#history tbody tr').length == 1")
    assert page.text_content("#hypotheses") == "50" and not page.errors


def test_nothing_is_chosen_that_the_player_did_not_choose(page, site):
    """Mastermind's feedback buttons start with none pressed; Bulls and Cows' drop-downs
    (too many queries to list its feedback pairs for a page) start on nothing."""
    url, _ = site
    open_page(page, url)
    page.click("#new-game")  # Mastermind, the landing page's game
    page.wait_for_selector("#game:not([hidden])")
    assert not page.query_selector_all("#fields .choice input:checked")
    page.fill("#fields .word", "1122")
    assert refused(page) == "choose the feedback"
    page.select_option("#spec", "bulls-and-cows")
    page.click("#new-game")
    until(page, "document.getElementById('game-title').textContent.startsWith('Bulls')")
    assert page.input_value("#fields [data-name='bulls'] select") == ""
    page.fill("#fields .word", "1234")
    assert refused(page) == "choose a value for bulls"
    assert not page.query_selector_all("#history tbody tr")


def test_an_upload_with_its_word_list_is_played_and_a_bad_one_refused(page, site, tmp_path):
    from tests.test_serve import WORDS

    url, sessions = site
    (tmp_path / "pick.yaml").write_text(WORDS)
    (tmp_path / "words.txt").write_text("apple\nberry\ncherry\n")
    open_page(page, url)
    page.click("details summary")
    page.set_input_files("#upload-file", [str(tmp_path / "pick.yaml")])  # no word list
    page.click("#upload")
    until(page, "!document.getElementById('spec-error').hidden")
    refused = page.text_content("#spec-error")
    assert refused == "pick.yaml:3:16: cannot read words.txt: No such file or directory"
    assert str(sessions) not in refused
    page.set_input_files("#upload-file", [str(tmp_path / "pick.yaml"), str(tmp_path / "words.txt")])
    page.click("#upload")
    until(page, "document.getElementById('spec').value.endsWith('pick.yaml')")
    assert not page.is_visible("#spec-error")
    page.click("#new-game")
    page.wait_for_selector("#game:not([hidden])")
    assert page.text_content("#game-title") == "Pick a word"
    for turn, word in enumerate(("apple", "berry"), 1):
        page.select_option("#fields [data-name='g'] select", word)
        choose(page, str(word == "berry").lower())
        page.click("#record")
        until(page, f"document.querySelectorAll('#history tbody tr').length == {turn}")
    assert page.text_content("#over") == "Solved in 2 queries: w = berry."
    assert not page.errors


MARKUP = """\
game: "<img src=x onerror='window.__xss=1'><script>window.__xss=2</script>"
about: "<b onmouseover='window.__xss=3'>bold?</b>"
params: {note: "<svg onload='window.__xss=4'>"}
domains: {D: {range: "1..3"}}
secret: {x: D}
queries:
  ask:
    args: {y: D}
    feedback: 'if x == y then "<i>yes</i>" else "</td><script>window.__xss=5</script>"'
"""


def test_spec_text_is_shown_as_text_never_run(page, site):
    url, _ = site
    open_page(page, url)
    with httpx.Client(base_url=url) as http:
        ref = http.post("/api/specs", json={"name": "<x>.yaml", "text": MARKUP}).json()["ref"]
        sid = http.post("/api/sessions", json={"spec": ref}).json()["id"]
        http.post(f"/api/sessions/{sid}/observe", json={
            "query": "ask", "args": {"y": 1},
            "outcome": "</td><script>window.__xss=5</script>"})
    open_page(page, f"{url}/#session={sid}")
    page.wait_for_selector("#history tbody tr")
    page.select_option("#action", "ask")
    assert "<img src=x" in page.text_content("#game-title")
    assert "</td><script>" in page.text_content("#history")
    buttons = page.eval_on_selector_all("#fields .choice", "cs => cs.map(c => c.textContent)")
    assert "<i>yes</i>" in buttons
    assert page.evaluate("window.__xss") is None
    assert page.query_selector("#game img, #game script, #game b, #game i") is None
    assert not page.errors


def test_the_design_view_runs_and_cancels_an_analysis(page, site):
    url, _ = site
    open_page(page, url)
    page.click("#tab-design")
    page.select_option("#design-spec-a", "mastermind")
    page.wait_for_selector("#design-params-a input[data-param='pegs']")
    page.fill("#design-params-a input[data-param='pegs']", "3")
    page.fill("#design-params-a input[data-param='colours']", "4")
    page.click("#analyse")
    page.wait_for_selector(".report .spatial", timeout=60_000)
    mine = sleuth.analyse(sleuth.load("mastermind", pegs=3, colours=4))
    assert page.text_content(".report .spatial") == f"{mine.spatial:.3f} bits"
    assert page.text_content(".report .temporal") == f"{mine.temporal:.3f} bits"
    assert len(page.query_selector_all(".report svg")) == 2
    # a long one, cancelled
    page.select_option("#design-spec-a", "bulls-and-cows")
    page.wait_for_selector("#design-params-a input[data-param='digits']")
    page.fill("#design-secrets", "5040")
    page.click("#analyse")
    page.wait_for_selector("#cancel:not([hidden])")
    page.click("#cancel")
    until(page, "document.querySelector('.report .stage').textContent.startsWith('cancelled')")
    assert not page.errors


FOREIGN = """<!doctype html><html><body><form id="f" method="post" enctype="text/plain"
action="{url}/api/sessions"><input name='{{"spec": "mastermind", "x": "' value='"}}'>
</form><script>
async function attack() {{
  const body = JSON.stringify({{spec: "mastermind"}});
  const tries = [
    fetch("{url}/api/sessions", {{method: "POST", mode: "no-cors", body,
                                   headers: {{"Content-Type": "text/plain"}}}}),
    fetch("{url}/api/sessions", {{method: "POST", body,
                                   headers: {{"Content-Type": "application/json"}}}}),
    fetch("{url}/api/sessions", {{method: "POST", mode: "no-cors"}}),
  ];
  for (const t of tries) {{ try {{ await t; }} catch (e) {{}} }}
  document.title = "tried";
  document.getElementById("f").submit();
}}
attack();
</script></body></html>"""


def test_a_page_from_another_origin_cannot_create_a_session(page, site):
    """A foreign page (another port of loopback: another origin) POSTs a new session as
    a simple text/plain fetch, as a JSON fetch (which needs a preflight the server
    never grants) and as a form: none makes a session file."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    from sleuth.solver.interfaces.web.app import serving

    url, sessions = site
    before = sorted(sessions.glob("*.json"))
    evil = Starlette(routes=[Route("/", lambda request: HTMLResponse(FOREIGN.format(url=url)))])
    evil.state.jobs = type("NoJobs", (), {"close": lambda self: None})()
    with serving(evil) as foreign:
        assert foreign != url
        refused: list[int] = []
        page.on("response", lambda r: refused.append(r.status) if "/api/" in r.url else None)
        page.goto(foreign)  # the fetches, then the form, which navigates to its answer
        page.wait_for_url(f"{url}/api/sessions", timeout=30_000)
        page.wait_for_load_state()
    assert sorted(sessions.glob("*.json")) == before
    assert refused and all(s in (403, 415) for s in refused), refused

"""Boards and grids in a real browser, as in tests/test_browser.py (the server, browser
and page fixtures are in tests/conftest.py): a Minesweeper game on its board, a Black
Box game by its ports, and Clue's detective-notes grid through a whole game and
against `sleuth belief`."""

from __future__ import annotations

import json

import httpx
import pytest
from click.testing import CliRunner

from sleuth.solver.interfaces.cli import cli
from tests.conftest import ROOT, needs_chromium
from tests.test_browser import choose, open_page, until

pytestmark = [pytest.mark.e2e, needs_chromium]


def test_a_minesweeper_game_on_its_board(page, site):
    """Click the open cell least likely to hold a mine, answer for a field fixed here,
    until the layout is known: the board shows each answer where it was asked."""
    from tests.test_serve_boards import minesweeper_answer

    url, _ = site
    secret = (1, 6, 11)
    open_page(page, url)
    page.select_option("#spec", "minesweeper")
    page.click("#new-game")
    page.wait_for_selector("table.board td")
    assert page.text_content("table.board caption") == "chance of mine"
    for turn in range(1, 17):
        cells = page.query_selector_all("table.board td.open")
        best = min(cells, key=lambda td: float(td.text_content()))
        cell = int(best.get_attribute("data-cell"))
        best.click()
        assert page.input_value("#fields [data-name='c'] select") == str(cell)
        choose(page, minesweeper_answer(cell, secret))
        page.click("#record")
        until(page, f"document.querySelectorAll('#history tbody tr').length == {turn}")
        shown = page.text_content(f"table.board td[data-cell='{cell}']")
        assert shown == minesweeper_answer(cell, secret)
        if page.is_visible("#over"):
            break
    assert page.text_content("#over").startswith(f"Solved in {turn} quer")
    assert f"field = {list(secret)}" in page.text_content("#over") and not page.errors


def test_a_black_box_game_by_its_ports(page, site):
    """5 x 5 with 3 atoms: each ray fired by a click on its port, its outcome from the
    tracer of tests/test_black_box.py, until no ray can tell the rest apart."""
    from tests.test_black_box import trace

    url, _ = site
    atoms = {(1, 2), (3, 3), (4, 5)}
    open_page(page, url)
    page.select_option("#spec", "black-box")
    page.wait_for_selector("#spec-params input[data-param='n']")
    page.fill("#spec-params input[data-param='n']", "5")
    page.fill("#spec-params input[data-param='k']", "3")
    page.click("#new-game")
    page.wait_for_selector("table.box")
    assert len(page.query_selector_all("table.box td.port")) == 20
    for turn in range(1, 21):
        page.wait_for_selector("#suggested")
        port = int(page.text_content("#suggested").split("=")[1])
        page.click(f"table.box td[data-port='{port}']")
        result, out = trace(5, atoms, port)
        choose(page, f"result {result}, exit {out}")
        page.click("#record")
        until(page, f"document.querySelectorAll('#history tbody tr').length == {turn}")
        shown = page.text_content(f"table.box td[data-port='{port}']")
        assert shown == (result[0].upper() if result != "exit" else
                         page.text_content(f"table.box td[data-port='{out}']"))
        if page.is_visible("#over"):
            break
    assert "atoms = [1, 12, 19]" in page.text_content("#over")
    assert [int(td.get_attribute("data-cell")) for td in
            page.query_selector_all("table.box td.cell.dark")] == [1, 12, 19]
    assert not page.errors


def clue_shower(owner: dict[str, str], cards: list[str], players: int = 6) -> str:
    """Written here: the first player after p1, in seat order, holding one of the cards."""
    for k in range(1, players):
        p = f"p{k + 1}"
        if any(owner[c] == p for c in cards):
            return p
    return "nobody"


def test_a_whole_clue_game_in_the_detective_notes(page, site):
    """You are p1 (Plum, Knife, Library): ask what the advice suggests, record who showed
    a card and the card shown, until the notes know the envelope; then accuse."""
    import random

    url, _ = site
    suspects = ["Scarlet", "Mustard", "White", "Green", "Peacock", "Plum"]
    weapons = ["Candlestick", "Knife", "LeadPipe", "Revolver", "Rope", "Wrench"]
    rooms = ["Kitchen", "Ballroom", "Conservatory", "DiningRoom", "BilliardRoom",
             "Library", "Lounge", "Hall", "Study"]
    envelope = ["Peacock", "Rope", "Lounge"]
    rest = [c for c in suspects + weapons + rooms
            if c not in envelope + ["Plum", "Knife", "Library"]]
    random.Random(5).shuffle(rest)
    owner = {c: "envelope" for c in envelope} | {c: "p1" for c in ("Plum", "Knife", "Library")}
    owner |= {c: f"p{2 + k // 3}" for k, c in enumerate(rest)}
    open_page(page, url)
    page.select_option("#spec", "clue")
    page.click("#new-game")
    until(page, "document.getElementById('game-title').textContent.startsWith('Clue')")
    asked = 0
    for _ in range(40):
        page.wait_for_selector("#suggested", timeout=120_000)
        page.click("#use-suggestion")
        asked += 1
        cards = [page.input_value(f"#fields [data-name='{a}'] select")
                 for a in ("suspect", "weapon", "room")]
        steps = len(page.query_selector_all("#history tbody tr"))
        if page.input_value("#action") == "accuse":
            choose(page, str(sorted(cards) == sorted(envelope)).lower())
        else:
            who = clue_shower(owner, cards)
            choose(page, who)
            if who != "nobody":  # the card shown to you
                page.click("#record")
                until(page, f"document.querySelectorAll('#history tbody tr').length == "
                            f"{steps + 1}")
                steps += 1
                page.select_option("#action", "shown")
                page.select_option("#fields [data-name='card'] select",
                                   next(c for c in cards if owner[c] == who))
                page.select_option("#fields [data-name='by'] select", who)
                choose(page, "true")
        page.click("#record")
        until(page, f"document.querySelectorAll('#history tbody tr').length == {steps + 1}")
        if page.is_visible("#over"):
            break
    over = page.text_content("#over")  # the cards shown are observations, not queries
    assert over.startswith(f"Solved in {asked} queries: owner = ") and "Peacock envelope" in over
    assert "Rope envelope" in over and "Lounge envelope" in over
    notes = page.evaluate("""() => {
        const t = document.querySelector("table[data-variable='owner']");
        const cols = [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent);
        return Object.fromEntries([...t.tBodies[0].rows].map((r) => [r.cells[0].textContent,
            cols[[...r.cells].slice(1).findIndex((c) => c.dataset.p === "1")]]));
    }""")
    assert notes == owner  # every card's owner known in the notes at the end
    assert not page.is_visible("#advice") and page.is_disabled("#record")
    assert not page.errors


def test_clues_grid_in_the_page_is_sleuth_belief(page, site):
    url, _ = site
    events = __import__("yaml").safe_load((ROOT / "examples" / "clue-game.yaml").read_text())
    with httpx.Client(base_url=url, timeout=60) as http:
        sid = http.post("/api/sessions", json={"spec": "clue"}).json()["id"]
        for e in events:
            r = http.post(f"/api/sessions/{sid}/observe", json={
                "query": e["query"], "args": e["args"], "outcome": e["feedback"]})
            assert r.status_code == 200, r.text
    open_page(page, f"{url}/#session={sid}")
    page.wait_for_selector("table[data-variable='owner'] td")
    grid = page.evaluate("""() => {
        const t = document.querySelector("table[data-variable='owner']");
        const cols = [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent);
        const cells = (r) => [...r.cells].slice(1).map((c, j) => [cols[j], Number(c.dataset.p)]);
        return [...t.tBodies[0].rows].map((r) => [r.cells[0].textContent,
                                                  Object.fromEntries(cells(r))]);
    }""")
    out = CliRunner().invoke(cli, ["belief", "clue", "--observations",
                                   str(ROOT / "examples" / "clue-game.yaml"), "--json"])
    want = json.loads(out.output)["marginals"]
    assert len(grid) == len(want) == 21
    for card, row in grid:
        assert row == pytest.approx({str(k): v for k, v in want[f"owner[{card}]"].items()},
                                    abs=1e-12), card
    # the envelope column: three cards known, as `sleuth belief` says
    assert sum(row["envelope"] == pytest.approx(1) for _, row in grid) == sum(
        want[f"owner[{c}]"]["envelope"] == pytest.approx(1) for c, _ in grid)
    assert len(page.query_selector_all("#panels table")) == len(grid[0][1])
    assert not page.errors


"""The web worksheet's screenshots in docs/: a Mastermind game two guesses in (also at
390 px, a phone's width), a Minesweeper game on its board mid-game and at the end (both
widths), Clue's
detective notes after examples/clue-game.yaml, Inkognito's table (a panel per
opponent), and the design view comparing Mastermind with black-peg Mastermind, both
4 pegs and 6 colours. Needs Chromium (`apt-get install chromium`) and Playwright
(`pip install -e '.[test]'`).

    python examples/serve_screenshots.py [--out docs]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import httpx
import yaml

from sleuth.solver.interfaces.web.app import create_app, serving

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def settle(page, selector: str, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while not page.evaluate(f"!!document.querySelector({selector!r})"):
        if time.monotonic() > end:
            raise TimeoutError(selector)
        time.sleep(0.1)


def mine_answer(cell: int, field: tuple[int, ...] = (1, 6, 11), cols: int = 4) -> str:
    if cell in field:
        return "mine"
    return str(sum(1 for d in field if d != cell and abs(d // cols - cell // cols) <= 1
                   and abs(d % cols - cell % cols) <= 1))


def shots(page, out: Path, name: str) -> None:
    """The page at 1280 px and at 390 px (a phone), as name.png and name-390.png."""
    time.sleep(0.5)
    for width, suffix in ((1280, ""), (390, "-390")):
        page.set_viewport_size({"width": width, "height": 900})
        time.sleep(0.3)
        page.screenshot(path=str(out / f"{name}{suffix}.png"), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1100})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs"))
    args = parser.parse_args()
    out = Path(args.out)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as tmp, serving(create_app([], Path(tmp))) as url, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto(url)
        settle(page, "body[data-ready='1']")
        # Mastermind, two guesses in (the secret is 3 4 4 6)
        page.select_option("#spec", "mastermind")
        page.click("#new-game")
        for black, white in [(0, 2), (1, 1)]:
            settle(page, "#use-suggestion")
            page.click("#use-suggestion")
            page.select_option("#fields [data-name='black'] select", str(black))
            page.select_option("#fields [data-name='white'] select", str(white))
            page.click("#record")
            time.sleep(0.5)
        settle(page, "#use-suggestion")
        page.screenshot(path=str(out / "serve-worksheet.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})  # a phone at the table
        time.sleep(0.5)
        page.screenshot(path=str(out / "serve-worksheet-390.png"), full_page=True)
        page.set_viewport_size({"width": 1400, "height": 1100})
        # Minesweeper on its board: mid-game and at the end, at both widths (the mines
        # are at 1, 6 and 11; each probe is the open cell least likely to hold one)
        page.goto(url)
        settle(page, "body[data-ready='1']")
        page.select_option("#spec", "minesweeper")
        page.click("#new-game")
        for turn in range(1, 17):
            settle(page, "table.board td.open")
            cells = page.query_selector_all("table.board td.open")
            best = min(cells, key=lambda td: float(td.text_content() or 1))
            cell = int(best.get_attribute("data-cell"))
            best.click()
            page.select_option("#fields [data-name='feedback'] select", mine_answer(cell))
            page.click("#record")
            settle(page, f"#history tbody tr:nth-child({turn})")
            if turn == 3:
                shots(page, out, "serve-minesweeper-mid")
            if page.is_visible("#over"):
                break
        shots(page, out, "serve-minesweeper-end")
        # Clue's detective notes, and Inkognito's table
        with httpx.Client(base_url=url, timeout=120) as http:
            clue = http.post("/api/sessions", json={"spec": "clue"}).json()["id"]
            for e in yaml.safe_load((ROOT / "examples" / "clue-game.yaml").read_text()):
                http.post(f"/api/sessions/{clue}/observe", json={
                    "query": e["query"], "args": e["args"], "outcome": e["feedback"]})
            ink = http.post("/api/sessions", json={"spec": "inkognito-table"}).json()["id"]
        for name, sid in [("serve-clue.png", clue), ("serve-inkognito.png", ink)]:
            page.goto(f"{url}/#session={sid}")
            settle(page, "#grids table")
            time.sleep(1.0)
            page.screenshot(path=str(out / name), full_page=True)
        # the design view, side by side
        page.click("#tab-design")
        page.select_option("#design-spec-a", "mastermind")
        page.select_option("#design-spec-b", "black-peg-mastermind")
        settle(page, "#design-params-b input[data-param='pegs']")
        page.check("#design-compare")
        page.click("#analyse")
        end = time.monotonic() + 300
        while len(page.query_selector_all(".report .spatial")) < 2:
            if time.monotonic() > end:
                raise TimeoutError("the analyses")
            time.sleep(0.2)
        page.screenshot(path=str(out / "serve-design.png"), full_page=True)
        browser.close()
    print("wrote", ", ".join(f"docs/serve-{n}.png" for n in (
        "worksheet", "worksheet-390", "minesweeper-mid(-390)", "minesweeper-end(-390)",
        "clue", "inkognito", "design")))


if __name__ == "__main__":
    main()

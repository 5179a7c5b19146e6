"""The web worksheet's screenshots in docs/: each game with a board played in the page
from its landing form, at mid-game and at the end, at 1280 px and at 390 px (a phone's
width): Mastermind (pegs from the palette, the marks from buttons), Wordle (typed),
Minesweeper and Battleship (grids, shaded by the chance of a mine or a hit), Clue
(the detective notes) and Black Box (its box, the rays at its ports); then Inkognito's
table (a panel per opponent) and the design view comparing Mastermind with black-peg
Mastermind. Every move is the page's own suggestion; the answers come from a secret
fixed here, through `sleuth.feedback`. Needs Chromium (`apt-get install chromium`) and
Playwright (`pip install -e '.[test]'`).

    python examples/serve_screenshots.py [--out docs] [--only GAME]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import httpx

import sleuth
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


def shots(page, out: Path, name: str) -> None:
    """The page at 1280 px and at 390 px (a phone), as name.png and name-390.png."""
    time.sleep(0.5)
    for width, suffix in ((1280, ""), (390, "-390")):
        page.set_viewport_size({"width": width, "height": 900})
        time.sleep(0.3)
        page.screenshot(path=str(out / f"{name}{suffix}.png"), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1100})


def history(page) -> int:
    return len(page.query_selector_all("#history tbody tr"))


def record(page, steps: int) -> None:
    page.click("#record")
    end = time.monotonic() + 120
    while history(page) < steps + 1:
        if time.monotonic() > end:
            raise TimeoutError(page.text_content("#observe-error"))
        time.sleep(0.1)


def choose(page, text: str) -> None:
    page.click(f"#fields .choice[title='{text}']")


def answered(page, game, secret, query: str, args: dict, shown) -> None:
    """The secret's feedback to the query, pressed as its button (`shown` labels it)."""
    choose(page, shown(sleuth.feedback(game, secret, query, args)))
    record(page, history(page))


def play(page, out: Path, name: str, game, secret, move, mid: int) -> None:
    """Play to the end, each move by `move(page, game, secret)`; shots at `mid` moves and
    at the end."""
    for turn in range(1, 60):
        move(page, game, secret)
        if turn == mid:
            shots(page, out, f"serve-{name}-mid")
        if page.is_visible("#over"):
            break
    shots(page, out, f"serve-{name}-end")


def mastermind(page, game, secret) -> None:
    settle(page, "#suggested")
    guess = [int(x) for x in page.text_content("#suggested").split("[")[1].rstrip("]").split(", ")]
    for colour in guess:
        page.click(f"#fields .palette [data-value='{colour}']")
    answered(page, game, secret, "guess", {"g": guess},
             lambda fb: f"black {fb['black']}, white {fb['white']}")


def wordle(page, game, secret) -> None:
    settle(page, "#suggested")
    guess = page.text_content("#suggested").split("=")[-1].strip()
    steps = history(page)
    page.focus("#fields [data-name='w'] .word")
    page.keyboard.type(guess)
    page.keyboard.press("Tab")
    page.keyboard.type("".join(sleuth.feedback(game, secret, "guess", {"w": guess})["marks"]))
    page.keyboard.press("Enter")
    while history(page) == steps:
        time.sleep(0.1)


def grid(query: str, cell: str):
    def move(page, game, secret) -> None:
        settle(page, "#use-suggestion")
        page.click("#use-suggestion")
        at = int(page.input_value(f"#fields [data-name='{cell}'] :is(select, input)"))
        answered(page, game, secret, query, {cell: at}, lambda fb: str(fb["feedback"]))
    return move


def ports(page, game, secret) -> None:
    settle(page, "#suggested")
    port = int(page.text_content("#suggested").split("=")[1])
    page.click(f"table.box td[data-port='{port}']")
    answered(page, game, secret, "fire", {"entry": port},
             lambda fb: f"result {fb['result']}, exit {fb['exit']}")


def clue(page, game, owner) -> None:
    settle(page, "#use-suggestion")
    page.click("#use-suggestion")
    cards = [page.input_value(f"#fields [data-name='{a}'] select")
             for a in ("suspect", "weapon", "room")]
    args = dict(zip(("suspect", "weapon", "room"), cards, strict=True))
    action = page.input_value("#action")
    fb = sleuth.feedback(game, {"owner": owner}, action, args)
    value = next(iter(fb.values()))
    choose(page, str(value).lower() if isinstance(value, bool) else value)
    record(page, history(page))
    if action == "suggest" and value != "nobody":  # the card shown to you
        page.select_option("#action", "shown")
        page.select_option("#fields [data-name='card'] select",
                           next(c for c in cards if owner[CARDS.index(c)] == value))
        page.select_option("#fields [data-name='by'] select", value)
        choose(page, "true")
        record(page, history(page))


CARDS = ["Scarlet", "Mustard", "White", "Green", "Peacock", "Plum", "Candlestick", "Knife",
         "LeadPipe", "Revolver", "Rope", "Wrench", "Kitchen", "Ballroom", "Conservatory",
         "DiningRoom", "BilliardRoom", "Library", "Lounge", "Hall", "Study"]
# the deal of examples/clue-game.yaml (you are p1; the envelope holds Peacock, Rope, Lounge)
DEAL = ["p4", "p3", "p6", "p2", "envelope", "p1", "p4", "p1", "p5", "p2", "envelope", "p4",
        "p3", "p5", "p3", "p5", "p6", "p1", "envelope", "p6", "p2"]


def start(page, url: str, spec: str, params: dict | None = None) -> None:
    page.goto(url)
    settle(page, "body[data-ready='1']")
    page.select_option("#spec", spec)
    settle(page, "#spec-params label")
    for k, v in (params or {}).items():
        page.fill(f"#spec-params input[data-param='{k}']", str(v))
    page.click("#new-game")
    settle(page, "#game:not([hidden])")


GAMES = {  # spec, params, secret, move, moves before the mid-game shot
    "mastermind": ("mastermind", {}, [3, 4, 4, 6], mastermind, 2),
    "wordle": ("wordle", {}, "abide", wordle, 2),
    "minesweeper": ("minesweeper", {}, [1, 6, 11], grid("probe", "c"), 3),
    "battleship": ("battleship", {"n": 7, "carrier": 0, "battleship": 0, "submarine": 0},
                   None, grid("fire", "c"), 6),
    "clue": ("clue", {}, DEAL, clue, 6),
    "black-box": ("black-box", {"n": 5, "k": 3}, [1, 12, 19], ports, 2),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs"))
    parser.add_argument("--only", choices=[*GAMES, "others"])
    args = parser.parse_args()
    out = Path(args.out)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as tmp, serving(create_app([], Path(tmp))) as url, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        for name, (spec, params, secret, move, mid) in GAMES.items():
            if args.only not in (None, name):
                continue
            game = sleuth.load(spec, **params)
            if secret is None:  # a fleet drawn by the prior, seeded
                secret = sleuth.simulate(game, "entropy", seed=3)["secret"]
            start(page, url, spec, params)
            play(page, out, name, game, secret, move, mid)
            print("wrote", f"docs/serve-{name}-{{mid,end}}{{,-390}}.png")
        if args.only not in (None, "others"):
            return
        # Inkognito's table
        with httpx.Client(base_url=url, timeout=120) as http:
            ink = http.post("/api/sessions", json={"spec": "inkognito-table"}).json()["id"]
        page.goto(f"{url}/#session={ink}")
        settle(page, "#grids table")
        time.sleep(1.0)
        page.screenshot(path=str(out / "serve-inkognito.png"), full_page=True)
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
    print("wrote docs/serve-inkognito.png, docs/serve-design.png")


if __name__ == "__main__":
    main()

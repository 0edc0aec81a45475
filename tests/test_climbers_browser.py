"""The Climbers played on the table alone, in a real browser (headless Chromium driven by Playwright): from the
lobby to the end of the game, every move of the human seat made by clicks on the canvas (a figure's step, a
block picked and placed, the blocking stone laid on the free top it goes on) and by the buttons beside the
pointer's line (skip to the block move, leave it, keep the stone), never by the move list. The clicks each move
took are counted (docs/serve.md gives the figures).

Without Chromium or Playwright the tests are skipped, except in CI (`CI=true`).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from browser_support import body, create_in_lobby, open_page, require_browser, wait_until  # noqa: E402
from serve_support import ROOMY  # noqa: E402

from tower.app.serve.run import ServerThread  # noqa: E402

SHOTS = Path(os.environ["TOWER_SERVE_SHOTS"]) if os.environ.get("TOWER_SERVE_SHOTS") else None

require_browser()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("climbers") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=ROOMY) as srv:
        yield srv


def snap(page) -> dict:
    return page.evaluate("() => window.towerPage.snapshot")


_CLICKABLE = """([point, layer, index]) => {
  const p = window.towerPage;
  const [x, y] = p.view.project(point);
  const e = document.elementFromPoint(x, y);
  if (!e || e.tagName !== 'CANVAS') return null;
  const hit = p.view.pickAt(x, y);
  return hit && hit.layer === layer && (index === null || hit.index === index) ? [x, y] : null;
}"""


def at_item(page, layer: str, items) -> tuple[float, float, int] | None:
    """A point of the canvas where the page's own picking finds one of `items` ((index, point) pairs) of
    `layer`: (x, y, index), or None when none is in view."""
    for index, point in items:
        xy = page.evaluate(_CLICKABLE, [point, layer, index])
        if xy is not None:
            return xy[0], xy[1], index
    return None


def shot(page, name: str, tmp_path: Path) -> None:
    path = (SHOTS or tmp_path) / f"climbers-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))


class Seat:
    """One human seat's page, playing by pointing: each step's move by canvas clicks or a button; the clicks
    each move took, by kind of move."""

    def __init__(self, page, tmp_path: Path) -> None:
        self.page = page
        self.tmp = tmp_path
        self.clicks: dict[str, list[int]] = {}
        self.seen: set[str] = set()  # which checks of the words have run

    def _sent(self, kind: str, clicks: int, n: str) -> None:
        wait_until(lambda: body(self.page, "n") != n, 30, f"the {kind} to be played")
        self.clicks.setdefault(kind, []).append(clicks)

    def button(self, move: str, kind: str) -> None:
        n = body(self.page, "n")
        self.page.click(f"#step-actions button[data-move='{move}']")
        self._sent(kind, 1, n)

    def step(self, prefer_skip: bool) -> None:
        page = self.page
        s = snap(page)
        moves, prompt = s["moves"], s["prompt"] or ""
        if prompt.startswith("Step 2"):
            if s["blocks"]:
                self.block_move(s)
            else:
                self.button("skip", "skip")
        elif prompt.startswith("Step 4"):
            if "keep" in self.clicks:  # kept in the first turn, laid in the next
                self.target_move(s, "stone")
            else:
                self.check_words(s, "keep")
                self.button("skip", "keep")
        else:  # a figure step
            step = "1" if prompt.startswith("Step 1") else "3"
            if f"refusal{step}" not in self.seen:
                self.refused_click(s, step)
            if ("skip" in moves and (prefer_skip or not any(m.startswith("fig ") for m in moves))
                    or not self.target_move(s, "figure")):
                self.button("skip", "skip" if step == "1" else "leave")

    def check_words(self, s: dict, what: str) -> None:
        """The buttons beside the pointer's line say the step's choices in words; the stone moves of the list are
        sorted as people count (c2 before c10), and the one under the pointer is drawn on the table."""
        if what in self.seen:
            return
        self.seen.add(what)
        page = self.page
        said = page.text_content("#step-actions")
        assert "keep the blocking stone" in said, said
        listed = [b.get_attribute("data-move") for b in page.query_selector_all("#moves button")]
        stones = [m.split()[1] for m in listed if m.startswith("stone ")]
        assert stones == sorted(stones, key=lambda b: (b[0], int(b[1:]))), stones
        button = page.query_selector(f"#moves button[data-move='stone {stones[-1]}']")
        button.scroll_into_view_if_needed()
        button.hover()
        wait_until(lambda: stones[-1] in page.evaluate("() => window.towerPage.scene.stones.map((s) => s.block)"),
                   5, "the stone drawn for the move under the pointer")
        shot(page, "keep", self.tmp)
        page.mouse.move(5, 5)

    def refused_click(self, s: dict, step: str) -> None:
        """A click on a block that the step cannot use says what the step allows, in the pointer's line."""
        scene = s["scene"]
        items = [(i, [b["origin"][0] + b["size"][0] / 2, b["origin"][1] + b["size"][1] / 2,
                      b["origin"][2] + b["size"][2]]) for i, b in enumerate(scene["blocks"])]
        found = at_item(self.page, "blocks", items)
        if found is None:
            return
        x, y, i = found
        self.page.mouse.move(x, y)
        block = scene["blocks"][i]["id"]
        wait_until(lambda: (body(self.page, "point") or "").startswith(f"block {block}"), 5, "the block's id")
        self.page.mouse.click(x, y)
        said = self.page.text_content("#point-status")
        assert f"block {block}" in said and f"step {step}" in said, said
        assert "refused" in self.page.get_attribute("#point-status", "class")
        assert self.page.text_content("#message") == ""  # not the red line: nothing went wrong
        self.seen.add(f"refusal{step}")
        if step == "1":
            shot(self.page, "refused", self.tmp)

    def target_move(self, s: dict, kind: str) -> bool:
        """A lit cell clicked twice: a figure's destination, or a free top for the stone (False: none in view,
        and the step may be skipped instead)."""
        page = self.page
        markers = s["scene"]["markers"]
        prefix = "fig " if kind == "figure" else "stone "
        cells = {tuple(c["cell"]) for c in s["cells"] if any(m.startswith(prefix) for m in c["moves"])}
        items = [(i, [m["cell"][0] + 0.5, m["cell"][1] + 0.5, m["cell"][2] + 0.02]) for i, m in enumerate(markers)
                 if m["kind"] == "target" and tuple(m["cell"]) in cells]
        assert items, f"no lit cell for the {kind}"
        if kind == "figure":  # a cell reached in several ways first (ladders), then the far ones
            ways = {tuple(c["cell"]): len(c["moves"]) for c in s["cells"]}
            items = sorted(items[::-1], key=lambda it: -min(ways[tuple(markers[it[0]]["cell"])], 2))
        found = at_item(page, "targets", items)
        if found is None and kind == "figure" and "skip" in s["moves"]:
            return False  # every lit cell behind the tower from here: the step is skipped instead
        assert found is not None, (f"no lit cell for the {kind} is in view", s["prompt"], len(items))
        x, y, i = found
        n = body(page, "n")
        page.mouse.move(x, y)
        page.mouse.click(x, y)
        chosen = page.evaluate("() => window.towerPage.chosen")
        assert chosen and chosen.startswith(prefix), chosen
        ways = next(c["moves"] for c in s["cells"] if c["cell"] == markers[i]["cell"])
        clicks = 2
        if len(ways) > 1 and "ways" not in self.seen:
            # several ways to this cell (one ladder or another): R turns to the next, and the line says which
            page.keyboard.press("r")
            assert page.evaluate("() => window.towerPage.chosen") == ways[1]
            assert f"2 of {len(ways)} ways here" in body(page, "point")
            self.seen.add("ways")
            clicks, kind = 3, "figure, another way"
        if kind == "stone":
            # the stone is drawn on the block it would block before the second click
            drawn = page.evaluate("() => window.towerPage.scene.stones.map((s) => s.block)")
            assert chosen.split()[1] in drawn
            shot(page, "stone-chosen", self.tmp)
        page.mouse.click(x, y)
        self._sent(kind, clicks, n)
        return True

    def block_move(self, s: dict) -> None:
        """A block outlined in orange clicked, then a click where its ghost shows a legal place."""
        page = self.page
        scene = s["scene"]
        ids = [b["id"] for b in scene["blocks"]]

        def top(b):
            return [b["origin"][0] + b["size"][0] / 2, b["origin"][1] + b["size"][1] / 2, b["origin"][2] + b["size"][2]]

        n = body(page, "n")
        for bid in s["blocks"]:
            found = at_item(page, "blocks", [(ids.index(bid), top(scene["blocks"][ids.index(bid)]))])
            if found is None:
                continue
            x, y, _ = found
            page.mouse.move(x, y)
            page.mouse.click(x, y)
            wait_until(lambda b=bid: page.evaluate("() => window.towerPage.block") == b, 20, "the placements")
            placements = page.evaluate("() => window.towerPage.aim.ps.placements")
            shapes = page.evaluate("() => window.towerPage.aim.ps.shapes")
            for p in placements:
                size = shapes[p["shape"]]["size"]
                x, y = page.evaluate("(p) => window.towerPage.view.project(p)",
                                     [p["origin"][0] + size[0] / 2, p["origin"][1] + size[1] / 2, p["origin"][2]])
                if page.evaluate("([x, y]) => (document.elementFromPoint(x, y) || {}).tagName", [x, y]) != "CANVAS":
                    continue
                page.mouse.move(x, y)
                if page.evaluate("() => window.towerPage.aim.current") is not None:
                    page.mouse.click(x, y)
                    self._sent("block", 2, n)
                    return
            page.keyboard.press("Escape")
        raise AssertionError("no block could be moved by pointing")


def play_from_the_lobby(browser, server, tmp_path, players: int, seed: int, rounds: int) -> Seat:
    # a short game (max_rounds): the suite's time is shared
    lobby = create_in_lobby(browser, server.url, "climbers", ["human"] + ["ai:random"] * (players - 1), seed,
                            {"max_rounds": str(rounds)})
    url = lobby.get_attribute("#seat-links a", "href")
    page = open_page(browser, url)
    seat = Seat(page, tmp_path)
    deadline = time.time() + 240
    turns = 0
    while body(page, "over") != "true":
        assert time.time() < deadline, "the game did not end in time"
        if body(page, "your-turn") == "true" and page.evaluate("() => !window.towerPage.sending"):
            s = snap(page)
            if (s["prompt"] or "").startswith("Step 1"):
                turns += 1
            seat.step(prefer_skip=turns % 2 == 0)  # a figure move in the first turn, a skip in the second
        time.sleep(0.05)
    assert page.text_content("#outcome"), "the end is said in words"
    assert not page.errors, page.errors
    page.context.close()  # its feed too: a client may hold only so many (websockets_per_client)
    lobby.context.close()
    return seat


@pytest.mark.parametrize("players, seed, rounds", [(2, 7, 2), (4, 3, 2)])
def test_a_whole_game_of_the_climbers_by_pointing_and_buttons(browser, server, tmp_path, players, seed, rounds):
    seat = play_from_the_lobby(browser, server, tmp_path, players, seed, rounds)
    kinds = seat.clicks
    assert {"block", "stone", "keep"} <= set(kinds) and {"figure", "figure, another way"} & set(kinds), kinds
    assert "skip" in kinds or "leave" in kinds, kinds
    assert {"refusal1", "refusal3"} & seat.seen
    # the clicks each move took: a button is one, a place on the table two (choose, play), R for another way
    assert all(c == 1 for k in ("skip", "leave", "keep") for c in kinds.get(k, []))
    assert all(c == 2 for k in ("figure", "block", "stone") for c in kinds.get(k, []))
    assert all(c == 3 for c in kinds.get("figure, another way", []))
    print(players, "players: clicks per move", {k: v for k, v in kinds.items()})


def test_keys_after_a_button_and_the_blocks_in_the_move_list(browser, server, tmp_path):
    """S plays the step's skip while a button still has the focus (Hint, just clicked: the page must not swallow
    the letter keys, only Enter and Space, which the button takes itself); in the block move, the move list holds
    a button for each block that may be moved, and a click on one picks it up as a click on the block does."""
    lobby = create_in_lobby(browser, server.url, "climbers", ["human", "ai:random"], 7)
    page = open_page(browser, lobby.get_attribute("#seat-links a", "href"))
    wait_until(lambda: body(page, "your-turn") == "true" and (snap(page)["prompt"] or "").startswith("Step 1"), 60,
               "the first step")
    assert "skip" in snap(page)["moves"]
    n = body(page, "n")
    page.click("#hint")
    wait_until(lambda: page.text_content("#hint-text"), 30, "the hint")
    assert page.evaluate("() => document.activeElement && document.activeElement.id") == "hint"
    page.keyboard.press("s")
    wait_until(lambda: body(page, "n") != n, 30, "S to play the skip")
    wait_until(lambda: (snap(page)["prompt"] or "").startswith("Step 2"), 30, "the block move")
    s = snap(page)
    assert s["blocks"], "some block may be moved in the first turn"
    listed = page.eval_on_selector_all("#moves button[data-block]", "bs => bs.map((b) => b.dataset.block)")
    assert sorted(listed) == sorted(s["blocks"])
    digits = [int(b[1:]) for b in listed if b.startswith("h")]
    assert digits == sorted(digits), listed  # as people count: h2 before h10
    shot(page, "block-list", tmp_path)
    page.click(f"#moves button[data-block='{listed[0]}']")
    wait_until(lambda: page.evaluate("() => window.towerPage.block") == listed[0], 20, "the placements")
    assert page.eval_on_selector_all("#moves button[data-move]", "bs => bs.length") > 0, "its places are listed"
    assert not page.errors, page.errors
    page.context.close()
    lobby.context.close()

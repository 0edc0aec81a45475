"""`tower serve` as a newcomer uses it, in headless Chromium (Debian's `chromium`) driven by Playwright: every game,
player count and rule option created through the lobby page; every game played to the end by clicking in two
seats' pages (The Climbers' blocks placed by pointing, not from the list); a block aimed and placed in two clicks,
with "why not here" in words and the wheel turning it; the move lists in words, the how-to-play, Diabolo's doubler
question; seat names, the rematch, the "your turn" signal and the games this browser joined.

Without Chromium or Playwright the tests are skipped, except in CI (`CI=true`).
"""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path

import pytest

from tests.browser_support import VIEWPORT, body, open_page, play_by_pointing, require_browser, wait_until
from tests.serve_support import ROOMY
from tower.app.serve.run import ServerThread

SHOTS = Path(os.environ["TOWER_SERVE_SHOTS"]) if os.environ.get("TOWER_SERVE_SHOTS") else None


require_browser()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("newcomer") / "games.sqlite"), ai_pause=0, limits=ROOMY,
                      workers=2) as srv:
        yield srv


def js(page, expr: str, arg=None):
    return page.evaluate(f"(arg) => {expr}", arg)


def shot(page, name: str, tmp_path: Path, clip=None) -> Path:
    path = (SHOTS or tmp_path) / f"newcomer-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), clip=clip)
    return path


# --- the lobby: every game, player count and option, through the page -------------------------------------------

def _lobby(browser, server, context=None):
    page = open_page(browser, server.url + "/", context)
    page.wait_for_selector("body[data-ready='true']")
    return page


def _create(page, game: str, players: int, seats: list[str] | None = None, options: dict | None = None,
            build: tuple[str, object] | None = None) -> dict:
    """Fill the lobby's form as a person does and press Create game; the request body and the answer."""
    page.select_option("#game", game)
    page.select_option("#players", str(players))
    for i, kind in enumerate(seats or ["human"] * players):
        page.select_option(f"select[name=seat{i}]", kind)
    for name, value in (options or {}).items():
        field = page.locator(f"[name='option-{name}']")
        tag = field.evaluate("(e) => e.tagName + ':' + e.type")
        if tag.startswith("SELECT"):
            field.select_option(json.dumps(value))
        elif tag.endswith("checkbox"):
            field.set_checked(bool(value))
        else:
            field.fill(str(value))
    if build is not None:
        kind, value = build
        page.select_option("[data-build-option]", kind)
        if kind == "file":
            page.set_input_files("input[type=file][name^=option-]", value)
        elif kind == "lab":
            page.fill("input[type=url][name^=option-]", value)
    page.evaluate("() => { document.getElementById('links').hidden = true; }")
    with page.expect_response(lambda r: r.url.endswith("/api/games") and r.request.method == "POST") as info:
        page.click("#create")
    resp = info.value
    answer = resp.json()
    assert resp.status == 201, (game, players, options, answer)
    page.wait_for_selector("#links:not([hidden])")
    return {"sent": json.loads(resp.request.post_data), "answer": answer}


def _option_values(g: dict) -> list[tuple[str, object]]:
    """Every value the lobby offers for every option: each choice of a list, both sides of a switch, and a small
    value of a free number or text (the default is the form's own, created with every player count)."""
    out = []
    for name, default in g["options"].items():
        if name == g["build_option"]:
            continue  # a choice of its own: see the build test
        choices = g["choices"].get(name)
        if choices:
            out += [(name, v) for v in choices if v != default]
        elif isinstance(default, bool):
            out.append((name, not default))
        elif isinstance(default, int):
            out.append((name, max(1, default // 50)))
        else:
            out.append((name, SMALL_TEXT.get(name, default)))
    return out


SMALL_TEXT = {"values": "1,2,3,4,5", "deck": "heart=6,7=12,switch=4",
              "specials": "2:5,4:must,6:9"}


def test_the_lobby_creates_every_game_with_every_player_count_and_option(browser, server):
    """The issue: The Climbers could not be created at all ("expected an object, got str at $.options.start")."""
    page = _lobby(browser, server)
    catalogue = js(page, "fetch('/api/catalogue').then((r) => r.json())")
    made = 0
    for g in catalogue["games"]:
        # every option has a label and a one-line explanation on the form, not its code name alone
        page.select_option("#game", g["name"])
        for name in g["options"]:
            row = page.locator("#options .option", has=page.locator(f"[name='option-{name}']"))
            text = row.inner_text()
            assert g["help"][name]["label"] in text and g["help"][name]["text"] in text and g["help"][name]["text"]
        assert page.locator("#how-text p").count() >= 2
        for players in g["players"]:
            done = _create(page, g["name"], players)
            assert len(done["answer"]["seats"]) == players and done["sent"]["options"] == {}
            made += 1
        for name, value in _option_values(g):
            done = _create(page, g["name"], g["default_players"], options={name: value})
            assert done["sent"]["options"] == {name: value}, (g["name"], name)
            made += 1
    assert made > 30
    assert not page.errors, page.errors


def test_the_climbers_start_tower_is_random_a_build_file_or_a_lab_link(browser, server, tmp_path):
    from tower.app.serve.client import Client
    from tower.climbers.build import build_to_json
    from tower.climbers.setup import random_start_tower

    doc = build_to_json(random_start_tower(12345))
    path = tmp_path / "my-tower.json"
    path.write_text(json.dumps(doc))
    lab = server.url + "/lab#build=" + base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")
    page = _lobby(browser, server)
    api = Client(server.url)

    def shapes(answer):
        seat = answer["seats"][0]
        view = api.state(answer["id"], seat["token"])["view"]
        return sorted((b["id"], tuple(b["size"])) for b in view["build"]["blocks"])

    mine = sorted((b["id"], tuple(b["size"])) for b in doc["blocks"])
    random_game = _create(page, "climbers", 2)
    assert "start" not in random_game["sent"]["options"] and shapes(random_game["answer"]) != mine
    from_file = _create(page, "climbers", 2, build=("file", str(path)))
    assert from_file["sent"]["options"]["start"] == doc and shapes(from_file["answer"]) == mine
    from_lab = _create(page, "climbers", 3, build=("lab", lab))
    assert from_lab["sent"]["options"]["start"] == doc and shapes(from_lab["answer"]) == mine
    # the lab's own link (/lab/ID on this server): the lobby asks the lab for its build (the lab answered here by
    # the browser itself, so this test does not depend on the lab's server code)
    page.route("**/api/lab/abc123", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps({"id": "abc123", "build": doc})))
    from_lab_page = _create(page, "climbers", 2, build=("lab", server.url + "/lab/abc123"))
    assert from_lab_page["sent"]["options"]["start"] == doc and shapes(from_lab_page["answer"]) == mine
    page.unroute("**/api/lab/abc123")
    # a broken lab link is told in words on the form, nothing is sent
    page.select_option("[data-build-option]", "lab")
    page.fill("input[type=url][name^=option-]", server.url + "/lab#nothing")
    page.click("#create")
    wait_until(lambda: "no build" in page.text_content("#create-error"), 10, "the error")
    assert not page.errors, page.errors


# --- aiming a block: the ghost under the pointer, two clicks, why not, the wheel ---------------------------------

def _canvas_point(page, point) -> tuple[float, float] | None:
    """The page pixel of a scene point if the canvas itself is there (not the text laid over it)."""
    x, y = js(page, "window.towerPage.view.project(arg)", point)
    free = js(page, "document.elementFromPoint(arg[0], arg[1]) === document.querySelector('#view canvas')", [x, y])
    return (x, y) if free else None


def _click_a_movable_block(page) -> str:
    snap = js(page, "window.towerPage.snapshot")
    blocks = snap["scene"]["blocks"]
    ids = [b["id"] for b in blocks]
    for bid in snap["blocks"]:
        b = blocks[ids.index(bid)]
        top = [b["origin"][0] + b["size"][0] / 2, b["origin"][1] + b["size"][1] / 2, b["origin"][2] + b["size"][2]]
        at = _canvas_point(page, top)
        if at is None:
            continue
        hit = js(page, "window.towerPage.view.pickAt(arg[0], arg[1])", list(at))
        if hit == {"layer": "blocks", "index": ids.index(bid)}:
            page.mouse.click(*at)
            wait_until(lambda: js(page, "window.towerPage.aim !== null"), 20, "the placements")
            return bid
    raise AssertionError("no movable block could be clicked")


def _aim_points(page, limit: int = 400):
    """(placement, page pixel) for placements whose footprint centre is visible, in a fixed shuffled order."""
    import random

    ps = js(page, "({placements: window.towerPage.aim.ps.placements, shapes: window.towerPage.aim.ps.shapes})")
    order = list(range(len(ps["placements"])))
    random.Random(len(order)).shuffle(order)
    for i in order[:limit]:
        p = ps["placements"][i]
        sx, sy, _ = ps["shapes"][p["shape"]]["size"]
        at = _canvas_point(page, [p["origin"][0] + sx / 2, p["origin"][1] + sy / 2, p["origin"][2]])
        if at is not None:
            yield p, at


def _aim_and_place(page) -> str:
    """The block step by pointing: click a movable block, move to where one of its placements shows, click."""
    _click_a_movable_block(page)
    n = body(page, "n")
    for _p, at in _aim_points(page):
        page.mouse.move(*at)
        current = js(page, "window.towerPage.aim && window.towerPage.aim.current")
        if current is not None:
            page.mouse.click(*at)
            wait_until(lambda: body(page, "n") != n, 20, "the block move")
            return current["text"]
    raise AssertionError("no placement could be aimed at")


def test_a_block_goes_where_the_pointer_is_in_two_clicks_with_why_not_and_the_wheel(browser, server, tmp_path):
    from tower.app.serve.client import Client
    from viewer.placement import Aim, BlockPlacements

    api = Client(server.url)
    g = api.create("climbers", seats=["human", "ai:greedy"], seed=7)
    page = open_page(browser, g["seats"][0]["url"])
    page.wait_for_selector("body[data-your-turn='true']")
    page.click("#moves button[data-move='skip']")  # the optional figure step
    page.wait_for_selector("body[data-n='1']")
    page.evaluate("() => document.addEventListener('pointerup', () => { window.clicks = (window.clicks || 0) + 1; })")
    block = _click_a_movable_block(page)
    assert page.is_visible("#aim") and "wheel" in page.text_content("#aim .keys")
    # the page filters the placements itself: the same answers as viewer/placement.py for the same data
    doc = js(page, "fetch(`/api/games/${arg[0]}/placements?token=${arg[1]}&block=${arg[2]}`).then((r) => r.json())",
             [g["id"], g["seats"][0]["token"], block])
    ps = BlockPlacements.from_json(doc)
    points = [[x + 0.37, y + 0.61, z] for x in range(6, 26, 1) for y in range(6, 26, 2) for z in (0, 2)]
    points += [[x + 0.5, y + 0.5, 3.0] for x in range(10, 20) for y in range(10, 20)]
    normals = [[0, 0, 1], [1, 0, 0], [0, -1, 0]]
    page_side = js(page, """arg.points.flatMap((pt) => arg.normals.map((nm) => {
        const a = window.towerPage.aim; const s = a.ps.spot(pt, nm);
        return s ? [a.ps.options(s).map((i) => a.ps.placements[i].text), a.ps.options(s).length ? null : a.ps.whyNot(s)]
                 : null; }))""", {"points": points, "normals": normals})
    python_side = []
    for pt in points:
        for nm in normals:
            aim = Aim(ps)
            spot = aim.point(pt, nm)
            python_side.append(None if spot is None else [[ps.placements[i].text for i in aim.options],
                                                          aim.why_not()])
    assert page_side == python_side
    assert any(x and x[0] for x in python_side) and any(x and x[1] for x in python_side)
    # no clutter: only the aimed ghost is drawn, one block
    assert js(page, "window.towerPage.scene.ghosts.length") == 0
    # where nothing can go, the page says why, in the game's words
    blocks = js(page, "window.towerPage.snapshot.scene.blocks")
    fx = min(b["origin"][0] for b in blocks) - 4
    fy = (min(b["origin"][1] for b in blocks) + max(b["origin"][1] + b["size"][1] for b in blocks)) // 2
    page.mouse.move(*_canvas_point(page, [fx + 0.5, fy + 0.5, 0]))
    assert js(page, "window.towerPage.aim.current") is None
    status = page.text_content("#aim-status")
    assert status.startswith(f"not at ({fx},{fy}): ") and "touch the construction" in status, status
    shot(page, "aim-why-not", tmp_path)
    assert page.text_content("#message") == ""  # not in the red error box
    # the ghost follows the pointer; the wheel turns it to another shape or face up at the same spot
    for _p, at in _aim_points(page):
        page.mouse.move(*at)
        aim = js(page, "({options: window.towerPage.aim.options.length, current: window.towerPage.aim.current})")
        if aim["options"] > 1:
            break
    first = aim["current"]
    shot(page, "aim-ghost", tmp_path)
    shot(page, "aim-ghost-close", tmp_path, clip={"x": max(0, at[0] - 160), "y": max(0, at[1] - 160),
                                                   "width": 320, "height": 320})
    page.mouse.wheel(0, 120)
    second = js(page, "window.towerPage.aim.current")
    assert second["text"] != first["text"] and "turns it" in page.text_content("#aim-status")
    page.keyboard.press("r")
    page.keyboard.press("Shift+R")
    assert js(page, "window.towerPage.aim.current")["text"] == second["text"]
    # the list still offers every placement, in words, as the keyboard's and screen reader's way
    buttons = page.locator("#moves button[data-move^='block ']")
    assert buttons.count() == len(ps.placements)
    assert buttons.first.inner_text().startswith(f"put block {block} at ")
    # the second click places it: exactly the placement shown under the pointer
    n = body(page, "n")
    page.mouse.click(*at)
    wait_until(lambda: body(page, "n") != n, 20, "the block move")
    state = server.server.tables[g["id"]].state
    assert str(state.history[-1]) == second["text"]
    assert js(page, "window.clicks") == 2  # the block, then the spot
    wait_until(lambda: page.is_hidden("#aim"), 10, "the aiming line to go")
    assert not page.errors, page.errors


# --- every game from the lobby to the end, two people clicking in their own pages ---------------------------------

SHORT = {  # small option values and AI seats keep each game to a few dozen clicks
    "climbers": (2, ["human", "human"], {"max_rounds": 1}),
    "diabolo": (3, ["human", "human", "ai:greedy"], {"hand_size": 3, "values": "1,2,3,4,5"}),
    "seventh-heaven": (4, ["human", "human", "ai:greedy", "ai:greedy"],
                       {"track_length": 15, "hand_size": 4, "play_for_places": False}),
    "partners": (4, ["human", "human", "ai:greedy", "ai:greedy"], {"move_limit": 24}),
}


def _click_listed_move(page, k: int) -> str:
    """Click a move in the list (not always the first: people choose); its words must not be its code."""
    buttons = page.query_selector_all("#moves button[data-move]")
    b = buttons[k % len(buttons)]
    move, said = b.get_attribute("data-move"), b.inner_text()
    assert said != move and len(said) > len(move) / 2, (move, said)
    b.click()
    return move


@pytest.mark.parametrize("game", list(SHORT))
def test_every_game_from_the_lobby_to_the_end_by_clicking_in_two_seats(browser, server, tmp_path, game):
    from tower.app.serve.client import Client
    from tower.games import load_record

    players, seats, options = SHORT[game]
    context = browser.new_context(viewport=VIEWPORT)
    lobby = _lobby(browser, server, context)
    made = _create(lobby, game, players, seats, options)["answer"]
    links = [a.get_attribute("href") for a in lobby.query_selector_all("#seat-links a")]
    assert len(links) == 2
    pages = [open_page(browser, links[0], context), open_page(browser, links[1])]
    for p in pages:
        p.wait_for_selector("body[data-n]")
        assert p.locator("#how-text p").count() >= 2  # how to play, in words, on the game's page
    # seat names: plain text for everyone, with a length cap
    pages[0].fill("#name", "Ada <b>the bold</b>")
    pages[0].click("#name-form button")
    wait_until(lambda: "(Ada <b>the bold</b>)" in pages[1].inner_text("#players"), 10, "the name on the other page")
    assert pages[1].locator("#players b").count() == 0
    pages[1].fill("#name", "x" * 30)
    assert pages[1].input_value("#name") == "x" * 24  # the field stops at the cap ...
    refused = js(pages[1], "fetch(location.pathname.replace('/play/', '/api/games/') + '/name' + location.search, "
                 "{method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: arg})})"
                 ".then(async (r) => [r.status, await r.json()])", "x" * 30)
    assert refused[0] == 400 and "at most 24 characters" in refused[1]["error"]  # ... and so does the server
    clicks, asked, aimed = 0, 0, 0
    pointed: list[int] = []  # the clicks each card move took
    deadline = time.time() + 240
    while not all(body(p, "over") == "true" for p in pages):
        assert time.time() < deadline, f"{game} did not end in time"
        for p in pages:
            if body(p, "your-turn") != "true" or body(p, "over") == "true":
                continue
            # the tab says it is this seat's turn, in its title and its icon
            assert p.title().startswith("(your turn) ") and body(p, "signal") == "your-turn"
            assert p.get_attribute("#favicon", "href").startswith("data:image/png")
            n = body(p, "n")
            snap = js(p, "window.towerPage.snapshot")
            if snap["prompt"] and "Double your gain" in snap["prompt"]:
                asked += 1  # Diabolo's doubler question, with its consequence, next to the buttons
                assert "spent for this round" in p.text_content("#prompt")
                said = [b.inner_text() for b in p.query_selector_all("#moves button[data-move]")]
                assert sorted(w.split(":")[0] for w in said) == ["no", "yes"]
            if snap["construction"] and snap["blocks"]:
                _aim_and_place(p)  # pointing, not the list
                aimed += 1
            elif snap["construction"] and "skip" in snap["moves"]:
                p.click("#moves button[data-move='skip']")
            elif snap["construction"]:
                _click_listed_move(p, clicks)
            else:  # a card game: on the canvas only, a card and then where it goes
                _move, took = play_by_pointing(p, clicks)
                pointed.append(took)
            clicks += 1
            wait_until(lambda p=p, n=n: body(p, "n") != n, 30, "the move to be shown")
        time.sleep(0.02)
    assert clicks >= 4
    if game == "climbers":
        assert aimed >= 2
    else:  # every card move by pointing, mostly a card and its target
        assert len(pointed) == clicks and sorted(pointed)[len(pointed) // 2] == 2, pointed
        print(game, "clicks per move", sorted(pointed))
    record = Client(server.url).record(made["id"])
    final = load_record(record)
    outcome = [p.text_content("#outcome") for p in pages]
    assert outcome[0] == outcome[1] == final.outcome_text()
    assert not any(p.title().startswith("(your turn)") for p in pages)
    # after the end the log tells every move as the record does: no "has chosen whether to double" left
    assert "has chosen whether" not in pages[1].inner_text("#log")
    # the rematch: the same table, each page handed its own seat's new link
    pages[0].click("#rematch")
    for p in pages:
        wait_until(lambda p=p: p.is_visible("#rematch-link"), 20, "the rematch link")
    again = [p.get_attribute("#rematch-link", "href") for p in pages]
    assert again[0] != again[1] and all(made["id"] not in u for u in again)
    new_id = again[0].split("/play/")[1].split("?")[0]
    row = server.server.tables[new_id].row
    assert (row.game, row.seats, row.options) == (final.name, seats, options)
    # the lobby lists the games this browser joined
    lobby.reload()
    lobby.wait_for_selector("body[data-ready='true']")
    assert made["id"] in " ".join(a.get_attribute("href") for a in lobby.query_selector_all("#joined a"))
    shot(pages[0], f"end-{game}", tmp_path)
    for p in pages:
        assert not p.errors, p.errors
    context.close()


def test_the_list_is_the_keyboard_way_to_place_a_block_and_the_log_says_it_in_words(browser, server):
    from tower.app.serve.client import Client

    api = Client(server.url)
    g = api.create("climbers", seats=["human", "ai:greedy"], seed=11)
    page = open_page(browser, g["seats"][0]["url"])
    page.wait_for_selector("body[data-your-turn='true']")
    page.focus("#moves button[data-move='skip']")
    page.keyboard.press("Enter")  # a list button, from the keyboard
    page.wait_for_selector("body[data-n='1']")
    _click_a_movable_block(page)
    button = page.locator("#moves button[data-move^='block ']").nth(3)
    text, said = button.get_attribute("data-move"), button.inner_text()
    button.click()
    # the choice from the list is aimed at and drawn like a pointed one, then Play places it
    assert js(page, "window.towerPage.aim.current.text") == text
    assert js(page, "window.towerPage.view.aimGhost.label") == text
    assert said in page.text_content("#chosen-text")
    page.click("#play-chosen")
    page.wait_for_selector("body[data-n='2']")
    assert str(server.server.tables[g["id"]].state.history[1]) == text
    wait_until(lambda: f"P0 red: {said}" in page.inner_text("#log"), 10, "the move in words in the log")
    assert not page.errors, page.errors


def test_a_click_where_nothing_can_go_on_another_orange_block_picks_that_one(browser, server):
    from tower.app.serve.client import Client

    g = Client(server.url).create("climbers", seats=["human", "ai:greedy"], seed=7)
    page = open_page(browser, g["seats"][0]["url"])
    page.wait_for_selector("body[data-your-turn='true']")
    page.click("#moves button[data-move='skip']")
    page.wait_for_selector("body[data-n='1']")
    first = _click_a_movable_block(page)
    snap = js(page, "window.towerPage.snapshot")
    for b in snap["scene"]["blocks"]:
        if b["id"] == first or b["id"] not in snap["blocks"]:
            continue
        at = _canvas_point(page, [b["origin"][0] + b["size"][0] / 2, b["origin"][1] + b["size"][1] / 2,
                                  b["origin"][2] + b["size"][2]])
        ids = [x["id"] for x in snap["scene"]["blocks"]]
        if at is None or js(page, "window.towerPage.view.pickAt(arg[0], arg[1])", list(at)) != {
                "layer": "blocks", "index": ids.index(b["id"])}:
            continue
        page.mouse.move(*at)
        if js(page, "window.towerPage.aim.current") is None:
            page.mouse.click(*at)
            wait_until(lambda b=b: js(page, "window.towerPage.block") == b["id"], 20, "the other block picked")
            assert body(page, "n") == "1" and js(page, "window.towerPage.aim.ps.block") == b["id"]
            assert not page.errors, page.errors
            return
    pytest.fail("no other movable block where the first cannot go")

"""`tower serve` in a real browser, used as people use it: headless Chromium (Debian's `chromium`) driven by
Playwright. Two seats of a Diabolo game, created in the lobby, play it to the end by clicking in two browser
contexts; a Climbers seat moves a block by clicking it and then where it should go; every game's page is screenshotted
and its canvas checked for the scene's colours; a page reconnects by itself after the server is killed and
started again; spectators and the replay page work.

Without Chromium or Playwright the tests are skipped, except in CI (`CI=true`), where `.ci/run` installs both.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from browser_support import body, create_in_lobby, open_page, require_browser, wait_until  # noqa: E402
from serve_support import ROOMY  # noqa: E402

from tower.app.serve.client import Client  # noqa: E402
from tower.app.serve.run import ServerThread  # noqa: E402
from viewer.scene import ALL_RGB, BACKGROUND_RGB, TABLE_RGB  # noqa: E402

SHOTS = Path(os.environ.get("TOWER_SERVE_SHOTS", "")) if os.environ.get("TOWER_SERVE_SHOTS") else None


require_browser()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("browser") / "games.sqlite"), ai_pause=0, workers=2, limits=ROOMY) as srv:
        yield srv


def canvas_colours(page, scene: dict, name: str, tmp_path: Path) -> dict[str, float]:
    """Screenshot the page (kept for people to look at) and classify the canvas's pixels by nearest scene colour;
    the share of each colour name."""
    import imageio.v3 as iio

    path = (SHOTS or tmp_path) / f"serve-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    img = iio.imread(page.locator("#view canvas").screenshot())[:, :, :3].reshape(-1, 3).astype(float)
    names = sorted(set(scene["palette"]) | {"table", "background"})
    refs = np.array([TABLE_RGB if n == "table" else BACKGROUND_RGB if n == "background" else ALL_RGB[n]
                     for n in names], dtype=float)
    nearest = np.argmin(((img[:, None, :] - refs[None, :, :]) ** 2).sum(axis=2), axis=1)
    close = np.sqrt(((img - refs[nearest]) ** 2).sum(axis=1)) < 60  # lit faces are a little darker or lighter
    return {n: float(np.mean((nearest == i) & close)) for i, n in enumerate(names)}


def snapshot(page) -> dict:
    return page.evaluate("() => window.towerPage.snapshot")


# --- Diabolo: two people, two browsers, a whole game by clicking -----------------------------------------------

def test_two_seats_play_a_diabolo_game_to_the_end_by_clicking(browser, server, tmp_path):
    # a shorter game (hand_size, values): the suite's time is shared
    lobby = create_in_lobby(browser, server.url, "diabolo", ["human", "human", "ai:greedy"],
                            options={"hand_size": "3", "values": "1,2,3,4,5"})
    links = [a.get_attribute("href") for a in lobby.query_selector_all("#seat-links a")]
    spectator = lobby.get_attribute("#spectator-link", "href")
    assert len(links) == 2 and all("/play/" in u and "token=" in u for u in links)
    pages = [open_page(browser, u) for u in links]
    for p in pages:
        p.wait_for_selector("body[data-n]")
    watcher = open_page(browser, spectator)
    watcher.wait_for_selector("body[data-n]")
    clicks = 0
    deadline = time.time() + 300
    while not all(body(p, "over") == "true" for p in pages):
        assert time.time() < deadline, "the game did not end in time"
        for p in pages:
            if body(p, "your-turn") == "true" and body(p, "over") != "true":
                n = body(p, "n")
                buttons = p.query_selector_all("#moves button")
                buttons[clicks % len(buttons)].click()  # people do not always pick the first card
                clicks += 1
                wait_until(lambda p=p, n=n: body(p, "n") != n, 20, "the move to be shown")
        time.sleep(0.02)
    assert clicks > 20
    outcome = [p.text_content("#outcome") for p in pages]
    record = Client(server.url).record(links[0].split("/play/")[1].split("?")[0])
    from tower.games import load_record

    final = load_record(record)
    assert outcome[0] == outcome[1] == final.outcome_text() and "wins" in outcome[0]
    assert pages[0].get_attribute("#record-link", "href").endswith("/record")
    wait_until(lambda: body(watcher, "over") == "true", 20, "the spectator to see the end")
    assert watcher.text_content("#outcome") == outcome[0]
    for i, p in enumerate(pages):
        shares = canvas_colours(p, snapshot(p)["scene"], f"diabolo-seat{i}", tmp_path)
        assert shares["table"] > 0.03 and sum(v > 0.002 for v in shares.values()) >= 4, shares
        assert not p.errors, p.errors
    # the replay page of the finished game steps through it
    replay = open_page(browser, server.url + pages[0].get_attribute("#replay-link", "href"))
    replay.wait_for_selector("body[data-ready='true']")
    assert replay.is_hidden("#outcome")  # the end is not told before the steps reach it
    replay.click("#next")
    wait_until(lambda: body(replay, "k") == "1", 10, "the replay to step")
    first = final.restart()
    said = first.move_words(final.history[0])  # the move in words, as the game page's log says it
    assert said != str(final.history[0]) and said in replay.text_content("#step"), replay.text_content("#step")
    assert said in replay.text_content("#log li") and replay.is_hidden("#outcome")
    replay.screenshot(path=str((SHOTS or tmp_path) / "serve-replay-words.png"))
    replay.click("#last")
    wait_until(lambda: replay.is_visible("#outcome"), 10, "the end told at the last step")
    assert final.outcome_text() == replay.text_content("#outcome")
    assert not replay.errors


# --- The Climbers: a block moved by clicking it and then where it goes ------------------------------------------

def _click_item(page, layer: str, indices, point_of) -> int:
    """Click (with the mouse) a point of an item of `layer` that the page's own picking finds there; the index."""
    for i in indices:
        x, y = page.evaluate("(p) => window.towerPage.view.project(p)", point_of(i))
        hit = page.evaluate("([x, y]) => window.towerPage.view.pickAt(x, y)", [x, y])
        if hit and hit["layer"] in layer.split("|") and hit["index"] == i:
            page.mouse.click(x, y)
            return i
    raise AssertionError(f"no {layer} item could be clicked")


def test_a_climbers_figure_steps_and_a_block_moves_by_clicking(browser, server, tmp_path):
    """A click on a green cell and another moves the figure; a click on a block picks it, its ghost follows the
    pointer, and a click places the block there."""
    api = Client(server.url)
    g = api.create("climbers", seats=["human", "ai:greedy"], seed=7)
    page = open_page(browser, g["seats"][0]["url"])
    page.wait_for_selector("body[data-your-turn='true']")
    shares = canvas_colours(page, snapshot(page)["scene"], "climbers", tmp_path)
    faces = [n for n in ("red", "yellow", "dark-blue", "light-blue", "purple", "grey") if shares.get(n, 0) > 0.002]
    assert shares["table"] > 0.03 and len(faces) >= 4, shares
    # the optional figure step first: a click on a green target cell chooses it, a second click plays it
    snap = snapshot(page)
    markers = snap["scene"]["markers"]
    targets = [i for i, m in enumerate(markers) if m["kind"] == "target"]
    assert targets and snap["cells"]

    def cell_centre(i):
        x, y, z = markers[i]["cell"]
        return [x + 0.5, y + 0.5, z + 0.02]

    step = _click_item(page, "targets", targets, cell_centre)
    cell = markers[step]["cell"]
    choices = next(c["moves"] for c in snap["cells"] if c["cell"] == cell)
    wait_until(lambda: page.evaluate("() => window.towerPage.chosen") in choices, 10, "the chosen step")
    # the chosen step shows the figure there (a ghost figure): a click on the cell or on that figure plays it
    x, y = page.evaluate("(p) => window.towerPage.view.project(p)", cell_centre(step))
    hit = page.evaluate("([x, y]) => window.towerPage.view.pickAt(x, y)", [x, y])
    assert hit["layer"] == "ghost_figs" or hit == {"layer": "targets", "index": step}, hit
    page.mouse.click(x, y)
    wait_until(lambda: body(page, "n") == "1", 20, "the figure step")
    state = server.server.tables[g["id"]].state
    assert str(state.history[0]) in choices
    snap = snapshot(page)
    assert snap["blocks"], "no block may move"
    scene = snap["scene"]
    ids = [b["id"] for b in scene["blocks"]]

    def top(b):
        return [b["origin"][0] + b["size"][0] / 2, b["origin"][1] + b["size"][1] / 2, b["origin"][2] + b["size"][2]]

    picked = _click_item(page, "blocks", [ids.index(b) for b in snap["blocks"]], lambda i: top(scene["blocks"][i]))
    block = ids[picked]
    wait_until(lambda: page.evaluate("() => window.towerPage.block") == block, 20, "the placements")
    placements = page.evaluate("() => window.towerPage.aim.ps.placements")
    shapes = page.evaluate("() => window.towerPage.aim.ps.shapes")
    assert placements and all(p["text"].split()[1] == block for p in placements)
    # the ghost follows the pointer: the placement under it is drawn, and a click there places the block
    for p in placements:
        size = shapes[p["shape"]]["size"]
        x, y = page.evaluate("(p) => window.towerPage.view.project(p)",
                             [p["origin"][0] + size[0] / 2, p["origin"][1] + size[1] / 2, p["origin"][2]])
        if page.evaluate("([x, y]) => document.elementFromPoint(x, y).tagName", [x, y]) != "CANVAS":
            continue
        page.mouse.move(x, y)
        current = page.evaluate("() => window.towerPage.aim.current")
        if current is not None:
            break
    else:
        raise AssertionError("no placement could be aimed at")
    canvas_colours(page, page.evaluate("() => window.towerPage.scene"), "climbers-aim", tmp_path)
    page.mouse.click(x, y)
    wait_until(lambda: int(body(page, "n")) >= 2, 20, "the block move")
    state = server.server.tables[g["id"]].state
    assert str(state.history[1]) == current["text"]
    moved = next(b for b in snapshot(page)["scene"]["blocks"] if b["id"] == block)
    assert moved["origin"] == current["origin"]
    assert not page.errors, page.errors


# --- every game's page, a spectator, and pages that reconnect --------------------------------------------------

@pytest.mark.parametrize("game", ["seventh-heaven", "partners"])
def test_each_card_game_page_draws_the_seats_table_and_hand(browser, server, tmp_path, game):
    api = Client(server.url)
    g = api.create(game, seats=["human"] + ["ai:greedy"] * 3, seed=2)
    page = open_page(browser, g["seats"][0]["url"])
    page.wait_for_selector("body[data-n]")
    snap = snapshot(page)
    hand = [b for b in snap["scene"]["blocks"] if b["id"].startswith("hand-")]
    assert len(hand) == len(api.state(g["id"], g["seats"][0]["token"])["view"]["hand"])
    shares = canvas_colours(page, snap["scene"], game, tmp_path)
    assert shares["table"] > 0.03 and sum(v > 0.002 for v in shares.values()) >= 4, shares
    labels = page.query_selector_all(".labels .label")
    assert len(labels) == len(snap["scene"]["labels"])
    watcher = open_page(browser, g["spectator_url"])
    watcher.wait_for_selector("body[data-n]")
    assert not [b for b in snapshot(watcher)["scene"]["blocks"] if b["id"].startswith("hand-")]
    assert not page.errors and not watcher.errors


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(db: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "tower", "serve", "--db", str(db), "--port", str(port),
                             "--ai-pause", "0", "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert "lobby is at" in proc.stdout.readline()
    return proc


def test_an_open_page_reconnects_by_itself_after_the_server_is_killed(browser, tmp_path):
    db, port = tmp_path / "games.sqlite", _free_port()
    proc = _serve(db, port)
    try:
        url = f"http://127.0.0.1:{port}"
        g = Client(url).create("diabolo", seats=["human"] * 3, seed=5)
        page = open_page(browser, g["seats"][0]["url"])
        page.wait_for_selector("body[data-connected='true']")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        page.wait_for_selector("#connection:not([hidden])", timeout=15000)
        proc = _serve(db, port)
        page.wait_for_selector("body[data-connected='true']", timeout=30000)
        # the restarted server pushes the next move to the page as before
        api = Client(url)
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        p = api.state(g["id"], tokens[0])["to_move"]
        api.move(g["id"], tokens[p], api.state(g["id"], tokens[p])["legal_moves"][0])
        wait_until(lambda: body(page, "n") == "1", 20, "the page to show the move")
        assert page.is_hidden("#connection")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)


# --- the card games' pointing: the page walks the click paths as the window's controller does ---------------------

_WALK = """(arg) => {
  return import('/static/js/cardpoint.js').then(({ CardPointer }) => {
    const ptr = new CardPointer(arg.table);
    return arg.steps.map(([what, key]) => {
      const out = what === 'click' ? ptr.click(key) : ptr.point(key);
      const d = ptr.decorate(arg.scene);
      return [out, ptr.message, ptr.targets(), ptr.words(), ptr.current(),
              d.blocks.map((b) => [b.id, b.origin, b.size, b.faces, b.selected]), d.labels.map((l) => l.text), d.hover];
    });
  });
}"""


@pytest.mark.parametrize("game, players", [("seventh-heaven", 2), ("partners", 4), ("diabolo", 3)])
def test_the_page_walks_a_card_games_click_paths_as_the_window_does(browser, server, game, players):
    import random

    from viewer.cards.pointing import CardPointer, CardTable
    from viewer.scene_json import scene_from_json

    api = Client(server.url)
    g = api.create(game, seats=["human"] * players, seed=3)
    page = open_page(browser, g["seats"][0]["url"])
    page.wait_for_selector("body[data-your-turn='true']")
    snap = snapshot(page)
    doc, scene_doc = snap["pointing"], snap["scene"]
    table, scene = CardTable.from_json(doc), scene_from_json(scene_doc)
    rng = random.Random(1)
    keys = [s["key"] for s in doc["spots"]] + [None]
    steps = []
    for _ in range(60):  # clicks mostly along paths (so moves get played), some anywhere, and pointing
        ptr = CardPointer(table)
        for what, key in steps:
            (ptr.click if what == "click" else ptr.point)(key)
        lit = ptr.targets()
        key = rng.choice(lit) if lit and rng.random() < 0.7 else rng.choice(keys)
        steps.append(("point" if rng.random() < 0.3 else "click", key))
    page_side = page.evaluate(_WALK, {"table": doc, "scene": scene_doc, "steps": steps})
    ptr = CardPointer(table)
    python_side = []
    for what, key in steps:
        out = ptr.click(key) if what == "click" else ptr.point(key)
        d = ptr.decorate(scene)
        python_side.append([out, ptr.message, ptr.targets(), ptr.words(), ptr.current(),
                            [[b.id, list(b.origin), list(b.size), list(b.faces), b.selected] for b in d.blocks],
                            [lab.text for lab in d.labels], d.hover])
    def rounded(v):
        if isinstance(v, list | tuple):
            return [rounded(x) for x in v]
        return round(v, 6) if isinstance(v, float) else v

    for k, (a, b) in enumerate(zip(rounded(page_side), rounded(python_side), strict=True)):
        assert a == b, (k, steps[k], [(x, y) for x, y in zip(a, b, strict=True) if x != y][:2])
    assert any(step[0] is not None for step in python_side), "no move was played on the way"
    assert not page.errors, page.errors


# --- Partners: two pawns on one square, each reached by pointing ---------------------------------------------------

_SPOT_AT = """([x, y]) => {
  const p = window.towerPage, hit = p.view.pickAt(x, y);
  return hit ? p.pointer.spotAt(hit.layer, hit.index, p.scene) : null;
}"""


def test_two_partners_pawns_on_one_square_are_both_reached_by_pointing(browser, server, tmp_path):
    """Two pawns on their seat's home stand side by side: pointing at each one says which it is, and a click on
    the second one plays that pawn's move."""
    import random

    from browser_support import click_spot

    api = Client(server.url)
    g = api.create("partners", seats=["human"] * 4, seed=0)
    tokens = {s["seat"]: s["token"] for s in g["seats"]}
    rng = random.Random(0)
    for _ in range(15):  # random moves to a position where blue's two pawns share the home square
        p = api.state(g["id"], tokens[0])["to_move"]
        api.move(g["id"], tokens[p], rng.choice(api.state(g["id"], tokens[p])["legal_moves"]))
    st = api.state(g["id"], tokens[2])
    assert st["to_move"] == 2
    page = open_page(browser, next(s["url"] for s in g["seats"] if s["seat"] == 2))
    page.wait_for_selector("body[data-your-turn='true']")
    snap = snapshot(page)
    locations = snap["scene"]["figures"]
    shared = [i for i, where in enumerate(st["view"]["locations"]) if where == 66]
    assert len(shared) == 2
    cells = [locations[i]["cell"] for i in shared]
    assert cells[0] != cells[1], "two pawns on one square are drawn apart"
    assert click_spot(page, "card:0")  # the card lifts: both pawns light up
    found = {}
    for i in shared:
        x0, y0, z = locations[i]["cell"]
        for du, dv in [(0.5, 0.5), (0.4, 0.5), (0.6, 0.5), (0.5, 0.4), (0.5, 0.6)]:
            for h in (0.9, 0.6, 1.2):
                x, y = page.evaluate("(p) => window.towerPage.view.project(p)", [x0 + du, y0 + dv, z + h])
                key = page.evaluate(_SPOT_AT, [x, y])
                if key and key.startswith("pawn:") and key not in found:
                    found[key] = (x, y)
    assert len(found) == 2, found
    for key, (x, y) in found.items():
        page.mouse.move(x, y)
        label = page.evaluate("(k) => window.towerPage.pointer.spots.get(k).label", key)
        pawn = label.split(" (")[0]  # "blue pawn 2": the words say which pawn of the square a click moves
        wait_until(lambda pawn=pawn: pawn in (body(page, "point") or ""), 5, f"the words for {key}")
    page.screenshot(path=str((SHOTS or tmp_path) / "serve-partners-shared-square.png"))
    key, (x, y) = list(found.items())[1]
    n = body(page, "n")
    page.mouse.click(x, y)  # the card's one move with this pawn: this click plays it
    wait_until(lambda: body(page, "n") != n, 20, "the move")
    record_move = server.server.tables[g["id"]].state.history[-1]
    assert key.split(":")[1] in str(record_move), (key, str(record_move))
    assert not page.errors, page.errors
    page.context.close()  # its feed too: a client may hold only so many (websockets_per_client)


# --- the rough edges a newcomer hits: hints, the log's numbers -------------------------------------------------

def test_a_hint_is_a_hint_shown_on_the_table_not_an_error(browser, server, tmp_path):
    """A hint has its own quiet line (not the red line of refusals) and is shown on the table: in a card game
    its card lifted and the place it goes lit; in The Climbers the figure drawn where it would step."""
    api = Client(server.url)
    g = api.create("seventh-heaven", seats=["human", "ai:greedy", "ai:greedy"], seed=4)
    page = open_page(browser, g["seats"][0]["url"])
    page.wait_for_selector("body[data-your-turn='true']")
    # a move of the list under the pointer is drawn on the table as its clicks would: its card lifted
    button = page.locator("#moves button").nth(2)
    button.hover()
    listed = button.get_attribute("data-move")
    walk = page.evaluate("() => window.towerPage.pointer.chosen")
    first = page.evaluate("(t) => { const p = window.towerPage.pointer; const k = p.table.moves.findIndex((m) => "
                          "m[0] === t); return p.table.paths.find(([m]) => m === k)[1][0]; }", listed)
    assert walk == [first], (walk, first)
    page.mouse.move(5, 5)  # away from the list: the table as it was
    wait_until(lambda: page.evaluate("() => window.towerPage.pointer.chosen") == [], 5, "the walk put back")
    page.click("#hint")
    wait_until(lambda: page.text_content("#hint-text").startswith("hint:"), 20, "the hint")
    assert page.text_content("#message") == ""
    assert "hint-text" in page.get_attribute("#hint-text", "class")
    colour = page.evaluate("() => getComputedStyle(document.getElementById('hint-text')).color")
    red = page.evaluate("() => getComputedStyle(document.getElementById('message')).color")
    assert colour != red
    hinted = page.evaluate("() => window.towerPage.hinted")
    ptr = page.evaluate("() => ({chosen: window.towerPage.pointer.chosen, hover: window.towerPage.pointer.hover,"
                        " targets: window.towerPage.pointer.targets()})")
    assert ptr["chosen"] and ptr["chosen"][0].startswith("card:"), ptr  # the hinted card is lifted
    scene = page.evaluate("() => window.towerPage.scene")
    card = next(b for b in scene["blocks"] if b["id"] == "hand-" + ptr["chosen"][0].split(":")[1])
    assert card["selected"]
    if ptr["hover"] is not None:  # where it goes: lit as the place under the pointer
        assert ptr["hover"] in ptr["targets"]
        assert any(b["id"].startswith(f"spot:{ptr['hover']}:") and "lit-hover" in b["faces"] for b in scene["blocks"])
    page.screenshot(path=str((SHOTS or tmp_path) / "serve-hint-cards.png"))
    # with two equal cards in hand the hint says which one it lifted (either plays the move)
    twins = page.evaluate("""() => import('/static/js/cardpoint.js').then(({ CardPointer }) => {
      const spot = (i) => ({ key: `card:${i}`, label: 'your red 3', items: [`hand-${i}`], figures: [], box: [], text: '' });
      const ptr = new CardPointer({ spots: [spot(0), spot(1), spot(2)].map((s, i) => (i === 1 ? { ...s, label: 'your red 5' } : s)),
        paths: [[0, ['card:2', 'pawn:red']]], moves: [['red 3', 'play red 3']], why: {}, hint: '', palette: {}, chips: [0, 0, 0, 1, 1] });
      const card = ptr.showMove('red 3');
      return [card.key, ptr.chosen, ptr.hover, ptr.twinWords(card)];
    })""")
    assert twins[:3] == ["card:2", ["card:2"], "pawn:red"] and "you hold 2 of them" in twins[3] \
        and "2nd from the left" in twins[3], twins
    # the hinted move plays with the clicks the table now asks for (or Play)
    n = body(page, "n")
    page.click("#play-chosen")
    wait_until(lambda: body(page, "n") != n, 20, "the hinted move")
    assert str(server.server.tables[g["id"]].state.history[0]) == hinted
    assert not page.errors, page.errors
    page.context.close()  # its feed too: a client may hold only so many (websockets_per_client)
    # The Climbers: the hinted figure step drawn on the table
    g = api.create("climbers", seats=["human", "ai:random"], seed=7)
    page = open_page(browser, g["seats"][0]["url"])
    page.wait_for_selector("body[data-your-turn='true']")
    page.click("#hint")
    wait_until(lambda: page.text_content("#hint-text").startswith("hint:"), 30, "the hint")
    hinted = page.evaluate("() => window.towerPage.hinted")
    assert page.evaluate("() => window.towerPage.chosen") == hinted and page.text_content("#message") == ""
    if hinted.startswith("fig "):
        drawn = page.evaluate("() => window.towerPage.scene.ghost_figures.map((f) => f.cell)")
        assert drawn and drawn[0][:2] == [int(v) for v in hinted.split()[1].split(",")[:2]], drawn
    page.screenshot(path=str((SHOTS or tmp_path) / "serve-hint-climbers.png"))
    assert not page.errors, page.errors
    page.context.close()


def test_the_log_numbers_moves_past_99_in_full(browser, server, tmp_path):
    """A long game's log: the list's numbers past 100 fit beside their moves (none loses its first digit)."""
    api = Client(server.url)
    g = api.create("partners", seats=["ai:random"] * 4, seed=5)
    watcher = open_page(browser, g["spectator_url"])
    wait_until(lambda: int(body(watcher, "n") or 0) >= 120 or body(watcher, "over") == "true", 120, "120 moves")
    values = watcher.evaluate("() => [...document.querySelectorAll('#log li')].map((li) => li.value)")
    assert max(values) > 100, values
    # the marker ("120.") is drawn in the list's left padding: it must fit there, in the log's own font
    fits = watcher.evaluate("""() => {
      const ol = document.getElementById('log'), style = getComputedStyle(ol);
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = `${style.fontSize} ${style.fontFamily}`;
      const widest = Math.max(...[...ol.children].map((li) => ctx.measureText(`${li.value}. `).width));
      return [widest, parseFloat(style.paddingLeft)];
    }""")
    assert fits[0] < fits[1], fits
    watcher.screenshot(path=str((SHOTS or tmp_path) / "serve-log-past-100.png"))
    assert not watcher.errors, watcher.errors
    watcher.context.close()

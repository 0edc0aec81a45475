"""The lab page in a real browser (Debian's Chromium driven headless by Playwright), used as people use it: a
three-block tower built by clicking, one block overhung until the verdict turns to falling, undone, redone and
dropped (the animation runs), saved, checked by `tower check`, and reopened by its link. Screenshots are written
for people to look at (`TOWER_LAB_SHOTS=DIR` keeps them; docs/images/lab-*.png come from such a run).

Without Chromium or Playwright the tests are skipped, except in CI (`CI=true`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.browser_support import body, open_page, require_browser, wait_until
from tests.serve_support import ROOMY
from tower.app.serve.run import ServerThread
from viewer.scene import PALETTE

AWAY = (1100, 740)  # a point of the panel, off the 3D view
SHOTS = Path(os.environ["TOWER_LAB_SHOTS"]) if os.environ.get("TOWER_LAB_SHOTS") else None


require_browser()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("lab") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=ROOMY) as srv:
        yield srv


def open_lab(browser, url: str):
    """The lab page at `url`, once its script is ready (downloads allowed: the tests save builds)."""
    page = open_page(browser, url, accept_downloads=True)
    page.wait_for_selector("body[data-ready='true']", timeout=60_000)
    return page


def shot(page, name: str, tmp_path: Path) -> np.ndarray:
    """Screenshot the page (kept for people to look at); the canvas's pixels."""
    import imageio.v3 as iio

    path = (SHOTS or tmp_path) / f"lab-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    return iio.imread(page.locator("#view canvas").screenshot())[:, :, :3]


def point(page, p) -> tuple[float, float]:
    x, y = page.evaluate("(p) => window.towerLab.view.project(p)", p)
    return x, y


def click_at(page, p, edits: bool = True) -> None:
    """Move the mouse to a point of the scene (grid units), so the ghost follows, and click there; wait for the
    server's answer when the click makes an edit."""
    before = body(page, "answers")
    x, y = point(page, p)
    page.mouse.move(x - 3, y)
    page.mouse.move(x, y)
    page.mouse.click(x, y)
    if edits:
        wait_until(lambda: body(page, "answers") != before and body(page, "busy") == "false" or body(page, "message"),
                   60, f"the edit at {p}")
        assert not body(page, "message"), body(page, "message")


def blocks(page) -> list[dict]:
    return page.evaluate("() => window.towerLab.state.build.blocks")


def colour_share(img: np.ndarray, rgb) -> float:
    d = np.sqrt(((img.reshape(-1, 3).astype(float) - np.array(rgb, dtype=float)) ** 2).sum(axis=1))
    return float(np.mean(d < 40))


def test_build_overhang_undo_drop_save_and_reopen(browser, server, tmp_path):
    page = open_lab(browser, server.url + "/lab")
    assert "/lab/" in page.url and body(page, "blocks") == "0"
    page.select_option("#rules", "flag")  # the game's rules, problems outlined instead of refused
    wait_until(lambda: page.evaluate("() => window.towerLab.state.rules") == "flag", 30, "the rule set")

    # a cube on the table, a cube on top of it, a lying double cube on top of that: all by pointing and clicking
    page.select_option("#kind", "cube")
    page.select_option("#top", "red")
    assert page.eval_on_selector_all("#front option", "(os) => os.map((o) => o.value)") == \
        ["dark-blue", "light-blue", "purple", "grey"]  # only colourings a block can have: not the top's pair
    page.select_option("#front", "purple")
    click_at(page, [1.0, 1.0, 0.0])
    assert [(b["origin"], b["size"]) for b in blocks(page)] == [([0, 0, 0], [2, 2, 2])]
    faces = blocks(page)[0]["faces"]
    assert (faces["+z"], faces["-z"], faces["-y"], faces["+y"]) == ("red", "yellow", "purple", "grey")
    x, y = point(page, [1.0, 1.0, 2.0])
    page.mouse.move(x, y)
    wait_until(lambda: "(0, 0, 2)" in (body(page, "aim") or ""), 10, "the ghost to snap onto the cube")
    click_at(page, [1.0, 1.0, 2.0])
    page.select_option("#kind", "double-cube")
    page.select_option("#size", "4x2x2")
    page.select_option("#top", "yellow")
    x, y = point(page, [1.0, 1.0, 4.0])
    page.mouse.move(x, y)
    wait_until(lambda: "(-1, 0, 4)" in (body(page, "aim") or ""), 10, "the ghost on top, centred on the pointer")
    shot(page, "ghost", tmp_path)
    click_at(page, [1.0, 1.0, 4.0])
    built = blocks(page)
    assert [(b["id"], b["origin"], b["size"]) for b in built] == [
        ("c1", [0, 0, 0], [2, 2, 2]), ("c2", [0, 0, 2], [2, 2, 2]), ("d1", [-1, 0, 4], [4, 2, 2])]
    assert built[2]["faces"]["+z"] == "yellow"
    assert body(page, "verdict") == "stable"
    assert "STABLE" in page.text_content("#verdict")
    page.mouse.move(*AWAY)  # off the canvas: no ghost in the picture
    img = shot(page, "tower", tmp_path)
    assert colour_share(img, PALETTE["yellow"]) > 0.005 and colour_share(img, PALETTE["dark-blue"]) > 0.002
    # the contact forces of the standing tower: arrows drawn by the page from the server's scene, words beside
    page.check("#show-forces")
    wait_until(lambda: "forces" in (body(page, "overlays") or ""), 60, "the forces")
    assert "contacts carry" in page.text_content("#explain")
    kinds = page.evaluate("() => window.towerLab.overlay.scene.arrows.map((a) => a.kind)")
    assert kinds.count("force-certain") >= 3 and "tilt" in kinds  # what every contact must carry
    assert "in every distribution" in page.text_content("#explain")
    # the words keep the structure of `tower check --forces`: a heading, its lines, their lines further in
    left = dict(page.eval_on_selector_all(
        "#explain li:not(.legend)", "(ls) => ls.map((l) => [l.textContent, l.getBoundingClientRect().left])"))
    heading = next(x for t, x in left.items() if t.startswith("forces:"))
    part = next(x for t, x in left.items() if t.startswith("in every distribution"))
    detail = next(x for t, x in left.items() if t.startswith("3 are determinate"))
    assert heading < part < detail, left
    shot(page, "forces", tmp_path)
    page.uncheck("#show-forces")
    wait_until(lambda: not body(page, "overlays") or page.evaluate("() => window.towerLab.overlay") is None, 30,
               "the forces to go")

    # overhang the double cube: select it, Move, and point beside the tower: it snaps onto the top of c2 again
    page.check("input[name=tool][value=select]")
    click_at(page, [1.0, 1.0, 6.0], edits=False)
    wait_until(lambda: body(page, "selected") == "d1", 10, "d1 to be selected")
    page.click("#move")
    click_at(page, [3.1, 1.0, 0.0])
    moved = [b for b in blocks(page) if b["id"] == "d1"][0]
    assert moved["origin"] == [1, 0, 4]
    assert body(page, "verdict") == "collapses" and body(page, "legal") == "false"
    assert "unsupported" in page.text_content("#problems")
    assert "falls" in page.text_content("#verdict")
    # how it starts to fall: d1 tinted, an arrow from its centre, the axis it turns about, and what they mean
    kinds = page.evaluate("() => window.towerLab.state.scene.arrows.map((a) => a.kind)")
    assert "motion" in kinds and "motion-axis" in kinds
    assert "how each starts to move" in page.text_content("#explain")
    page.mouse.move(*AWAY)
    shot(page, "overhang", tmp_path)

    # undo back to the standing tower (the key), redo the overhang (the button)
    page.keyboard.press("Control+z")
    wait_until(lambda: body(page, "verdict") == "stable", 30, "undo")
    assert [b for b in blocks(page) if b["id"] == "d1"][0]["origin"] == [-1, 0, 4]
    page.click("#redo")
    wait_until(lambda: body(page, "verdict") == "collapses", 30, "redo")

    # weakest direction, forces and removal map, a push on a face
    page.check("#show-forces")
    wait_until(lambda: "forces" in (body(page, "overlays") or ""), 60, "the forces")
    assert "forces: none" in page.text_content("#explain")  # it falls: no distribution holds it up

    # drop it: the server's trajectory, played in the page; the blocks that moved outlined
    page.click("#drop")
    wait_until(lambda: body(page, "dropping") in ("true", "done"), 60, "the drop to start")
    time.sleep(0.3)
    shot(page, "drop", tmp_path)
    wait_until(lambda: body(page, "dropping") == "done", 30, "the drop to end")
    assert int(body(page, "drop-frames")) > 5
    assert "d1" in body(page, "dropped").split(",")
    assert body(page, "drop-verdict") == "collapses"
    shot(page, "dropped", tmp_path)

    # save: the build file from the download link; `tower check` says what the page said
    with page.expect_download() as dl:
        page.click("#download")
    path = tmp_path / "saved.json"
    dl.value.save_as(path)
    saved = json.loads(path.read_text())
    assert [b["id"] for b in saved["blocks"]] == ["c1", "c2", "d1"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    quick = subprocess.run([sys.executable, "-m", "tower", "check", "--json", "--statics-only", str(path)],
                           capture_output=True, text=True, env=env, timeout=120)
    assert json.loads(quick.stdout)["stability"]["verdict"] == body(page, "verdict")
    full = subprocess.run([sys.executable, "-m", "tower", "check", "--json", str(path)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert json.loads(full.stdout)["stability"]["verdict"] == body(page, "drop-verdict")

    # the lab link reopens the same build, in another browser context
    link = page.get_attribute("#link", "href")
    again = open_lab(browser, link)
    assert [(b["id"], b["origin"]) for b in blocks(again)] == [(b["id"], b["origin"]) for b in saved["blocks"]]
    assert body(again, "verdict") == "collapses"
    assert not page.errors and not again.errors, page.errors + again.errors


def test_a_bad_upload_is_one_line_and_changes_nothing(browser, server, tmp_path):
    page = open_lab(browser, server.url + "/lab")
    click_at(page, [1.0, 1.0, 0.0])
    assert page.text_content("#history").startswith("1 edit; last: ")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 3, 2]}]}))
    page.set_input_files("#upload", str(bad))
    wait_until(lambda: body(page, "message"), 30, "the refusal")
    message = body(page, "message")
    assert message.startswith("bad.json: at $.blocks[0].size:") and "\n" not in message
    assert len(blocks(page)) == 1 and body(page, "blocks") == "1"
    good = tmp_path / "good.json"
    subprocess.run([sys.executable, "-m", "tower", "new", "--seed", "2", "-o", str(good)], check=True,
                   env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}, capture_output=True)
    page.set_input_files("#upload", str(good))
    wait_until(lambda: body(page, "blocks") == "35", 60, "the start tower")
    # a figure put on the table beside the tower, by pointing
    page.check("input[name=tool][value=figure]")
    page.select_option("#colour", "red")
    x0 = min(b["origin"][0] for b in blocks(page)) - 3
    click_at(page, [x0 + 0.5, 4.5, 0.0])
    figures = page.evaluate("() => window.towerLab.state.build.figures")
    assert figures == [{"color": "red", "cell": [x0, 4, 0]}]
    page.check("input[name=tool][value=push]")
    # a block of the front row (nothing stands in front of its -y side), the rightmost (nearest the camera)
    c = min((b for b in blocks(page) if b["origin"][2] == 0), key=lambda b: (b["origin"][1], -b["origin"][0]))
    # the -y side of a block on the table: pushing it toward +y
    click_at(page, [c["origin"][0] + c["size"][0] / 2, c["origin"][1], c["size"][2] / 2], edits=False)
    wait_until(lambda: body(page, "push"), 60, "the push test")
    assert body(page, "push").split()[:2] == [c["id"], "+y"]
    assert "push test on" in page.text_content("#explain")
    # seconds of work on 35 blocks: the page says so at once and the toggles wait for the answer
    said = page.evaluate("""() => { document.querySelector('#show-removal').click();
      return [document.querySelector('#working').hidden, document.querySelector('#working').textContent,
              document.querySelector('#show-removal').disabled, document.querySelector('#show-forces').disabled]; }""")
    assert said == [False, "working out the removal map and the push test…", True, True], said
    wait_until(lambda: "removal" in (body(page, "overlays") or ""), 120, "the removal map")
    assert page.is_hidden("#working") and page.is_enabled("#show-removal") and page.is_enabled("#show-forces")
    tints = page.evaluate("() => window.towerLab.overlay.scene.blocks.map((b) => b.tint)")
    assert len(tints) == 35 and set(tints) <= {"safe", "risky", "brings-down"} and "safe" in tints
    assert "removal map" in page.text_content("#explain")
    arrows = page.evaluate("() => window.towerLab.overlay.scene.arrows.map((a) => a.kind)")
    assert "push" in arrows and "tilt" in arrows  # the push test and the weakest direction stay drawn
    page.mouse.move(*AWAY)
    shot(page, "start-tower", tmp_path)
    assert not page.errors, page.errors


def test_a_climbers_position_opens_in_the_lab_from_the_game_and_replay_pages(browser, server, tmp_path):
    from tower.app.serve.client import Client

    api = Client(server.url)
    g = api.create("climbers", seats=["human", "ai:greedy"], seed=3)
    seat = g["seats"][0]
    view = api.state(g["id"], seat["token"])["view"]
    game = open_page(browser, seat["url"])
    game.wait_for_selector("#open-lab:not([hidden])", timeout=60_000)
    with game.context.expect_page() as new:
        game.click("#open-lab")
    lab = new.value
    lab.wait_for_selector("body[data-ready='true']", timeout=60_000)
    built = lab.evaluate("() => window.towerLab.state.build")
    assert [(b["id"], b["origin"], b["size"]) for b in built["blocks"]] == \
        [(b["id"], b["origin"], b["size"]) for b in view["build"]["blocks"]]
    assert sorted(f["color"] for f in built.get("figures", [])) == sorted(f["color"] for f in view["build"]["figures"])
    assert body(lab, "verdict") in ("stable", "marginal", "collapses")
    # a card game's page offers no lab
    card = api.create("diabolo", seats=["human", "ai:greedy", "ai:greedy"], seed=1)
    other = open_page(browser, card["seats"][0]["url"])
    other.wait_for_selector("body[data-n]", timeout=60_000)
    assert other.is_hidden("#open-lab")
    assert not game.errors



def test_the_page_reads_the_refusals_answer_as_the_controller_judges_every_placement(browser, server):
    """The page takes the server's compact refusals answer back to each placement of the block in hand (the listed
    ones; `elsewhere` where the footprint touches no block and no figure: placement.js `refusal`, `touches`): at
    every placement it offers round a build with figures, for a new block and for a block moved from under
    another (refused anywhere on the bare table), it says what the edit there gets from the controller."""
    from tower.app.lab.controller import LabController
    from tower.app.lab.refusals import placement_edit
    from tower.app.serve.client import Client
    from tower.climbers.build import parse_build
    from viewer.placement import BlockPlacements, Shape, column_heights

    build = {"format": "tower-build/1", "blocks": [
        {"id": "a", "origin": [0, 0, 0], "size": [2, 2, 2]}, {"id": "b", "origin": [4, 0, 0], "size": [2, 2, 2]},
        {"id": "c", "origin": [0, 0, 2], "size": [2, 2, 2]}],
        "figures": [{"color": "purple", "cell": [4, 1, 2]}, {"color": "red", "cell": [-3, 3, 0]}]}
    status, lab = Client(server.url).request("POST", "/api/lab", {"build": build, "rules": "strict"})
    assert status == 201, lab
    ctl = LabController(parse_build(build), rules="strict")
    page = open_lab(browser, server.url + lab["url"])

    def check(block: str, kind: str) -> list:
        page.mouse.move(*point(page, [3.0, -3.0, 0.0]))
        wait_until(lambda: page.evaluate("() => { const h = window.towerLab.refusalsInHand(); "
                                         "return !!h && h.said.every(([, , w]) => w !== undefined); }"), 30,
                   "the refusals")
        hand = page.evaluate("() => window.towerLab.refusalsInHand()")
        shapes = [Shape(tuple(s["size"]), s["top"], tuple(s["faces"])) for s in hand["shapes"]]
        heights = column_heights(ctl.build.blocks, None if block == "new" else block)
        figures = [(f.cell[0], f.cell[1]) for f in ctl.build.figures]
        ps = BlockPlacements.resting(block, shapes, heights, hand["area"], -100, 200, figures)
        assert hand["block"] == block and [p.text for p in ps.placements] == [t for t, _, _ in hand["said"]]
        for p, (_, touches, said) in zip(ps.placements, hand["said"], strict=True):
            assert touches == ps.touches(p), p.text  # the page's rule is the controller's
            why = ctl.refusal(placement_edit(block, kind, ps.shapes[p.shape], p.origin))
            assert said == (why and f"{why.rule}: {why.message}"), (p.text, said)
        return [said for _, _, said in hand["said"]]

    page.select_option("#kind", "double-cube")  # three ways to lie
    said = check("new", "double-cube")
    assert sum(w is not None for w in said) > 50 and any(w and w.startswith("figure") for w in said)
    page.check("input[name=tool][value=select]")
    page.mouse.click(*point(page, [5.0, 0.0, 1.0]))  # b's side: the purple figure stands on it
    wait_until(lambda: page.evaluate("() => window.towerLab.selected") == "b", 30, "b selected")
    page.click("#move")
    said = check("b", "")  # on the bare table the figure is left in the air; where b still holds it, fine
    assert said.count(None) >= 2 and sum(bool(w and w.startswith("figure-not-on-surface")) for w in said) > 500
    assert not page.errors, page.errors


def test_the_ghost_says_a_refusal_before_the_click_a_block_is_dragged_and_quick_clicks_wait(browser, server,
                                                                                              tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = open_page(browser, server.url + "/lab", context)
    page.wait_for_selector("body[data-ready='true']", timeout=60_000)
    # every control within a 1280 x 800 screen, the empty table with its grid and a hint
    for sel in ["#undo", "#redo", "#drop", "#reset-view", "input[name=tool][value=push]", "#kind", "#front",
                "#show-removal", "#rules", "#new-empty", "#new-random", "#open-file", "#download", "#link"]:
        box = page.locator(sel).bounding_box()
        assert box and box["y"] + box["height"] <= 800 and box["x"] + box["width"] <= 1280, (sel, box)
    assert page.is_visible("#hint") and "click" in page.text_content("#hint")
    assert page.evaluate("() => window.towerLab.view.three.children.some((o) => o.userData.key)")  # the grid
    shot(page, "empty", tmp_path)
    # quick clicks while the edits are on their way: none is lost, each waits its turn (the page says how many
    # wait) and is aimed at the build it will act on; five at five points of the table, then three at one point
    # (in front of and on what the earlier ones put there, or refused in words)
    at = [point(page, p) for p in ([1.0, 1.0, 0.0], [1.0, 6.0, 0.0], [-3.0, 6.0, 0.0], [-3.0, 1.0, 0.0],
                                   [1.0, 10.0, 0.0])]
    # the five clicks in one go, as a quick hand makes them: the first edit is still on its way for the others
    waiting = page.evaluate("""(at) => {
      const canvas = document.querySelector('#view canvas');
      const waiting = [];
      for (const [x, y] of at) {
        for (const type of ['pointermove', 'pointerdown', 'pointerup']) {
          canvas.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, button: 0, buttons: type === 'pointerdown' ? 1 : 0,
            bubbles: true, pointerId: 1, isPrimary: true }));
        }
        waiting.push(Number(document.body.dataset.queued || 0));
      }
      return waiting;
    }""", at)
    assert waiting == [0, 1, 2, 3, 4], waiting
    assert "4 clicks waiting" in page.text_content("#aim")
    wait_until(lambda: body(page, "blocks") == "5" and body(page, "busy") == "false", 60, "five blocks")
    assert body(page, "queued") == "0"
    assert len({tuple(b["origin"]) for b in blocks(page)}) == 5 and all(b["origin"][2] == 0 for b in blocks(page))
    assert not body(page, "message"), body(page, "message")
    assert page.is_hidden("#hint")
    for _ in range(3):
        page.mouse.click(*point(page, [1.0, 1.0, 0.0]))
    wait_until(lambda: int(body(page, "blocks")) + int(body(page, "refused-edits") or 0) == 8 and
               body(page, "busy") == "false", 60, "three more clicks answered")
    # the game's rules (strict): the ghost says where a block would be refused, in the refusal colour and words,
    # before the click; the click is refused with exactly those words
    made = blocks(page)
    top = max(made, key=lambda b: b["origin"][2] + b["size"][2])
    edge = [top["origin"][0] + top["size"][0] - 0.2, top["origin"][1] + 1.0, top["origin"][2] + top["size"][2]]
    page.mouse.move(*point(page, edge))
    wait_until(lambda: body(page, "refused"), 30, "the ghost to say it is refused")
    said = body(page, "refused")
    assert said.startswith("unsupported: the new cube has") and "c6" not in said, said
    assert body(page, "aim") == f"not here: {said}"  # the block named once, not twice
    assert page.is_visible("#tip-text") and said in page.text_content("#tip-text")
    assert page.evaluate("() => window.towerLab.aim.refused") == said
    shot(page, "refused", tmp_path)
    count = len(made)
    page.mouse.click(*point(page, edge))
    wait_until(lambda: body(page, "message"), 30, "the refusal")
    assert said.split(": ", 1)[1] in body(page, "message") and len(blocks(page)) == count
    # a block dragged with the select tool: it leaves its place while it moves, the camera stays
    page.check("input[name=tool][value=select]")
    camera = page.evaluate("() => window.towerLab.view.camera.position.toArray()")
    start = point(page, [top["origin"][0] + 1.0, top["origin"][1] + 1.0, top["origin"][2] + top["size"][2]])
    end = point(page, [7.0, -1.0, 0.0])
    page.mouse.move(*start)
    page.mouse.down()
    for k in range(1, 7):
        page.mouse.move(start[0] + (end[0] - start[0]) * k / 6, start[1] + (end[1] - start[1]) * k / 6)
    hidden = page.evaluate(f"() => !window.towerLab.view.scene.blocks.some((b) => b.id === '{top['id']}')")
    still = page.evaluate("() => window.towerLab.view.camera.position.toArray()") == camera  # no orbit
    shot(page, "drag", tmp_path)
    page.mouse.up()
    wait_until(lambda: body(page, "busy") == "false" and
               next(b for b in blocks(page) if b["id"] == top["id"])["origin"] != top["origin"], 30, "the drag")
    moved = next(b for b in blocks(page) if b["id"] == top["id"])
    assert hidden and moved["origin"][2] == 0 and moved["origin"][0] >= 4, moved
    assert still
    # a game record opened in the lab is named as one, as `tower check` names it
    record = tmp_path / "game.json"
    record.write_text(json.dumps({"format": "game-record/1", "game": "climbers", "players": 2, "seed": 1,
                                  "moves": []}))
    page.set_input_files("#upload", str(record))
    wait_until(lambda: "game record" in (body(page, "message") or ""), 30, "the record refused")
    assert body(page, "message").startswith("game.json: at $.format: this is a game record, not a build")
    assert not page.errors, page.errors
    # a lab link that leads nowhere: its controls are off, a new lab can still be started
    gone = open_page(browser, server.url + "/lab/nosuchlab", context)
    gone.wait_for_selector("body[data-ready='true']", timeout=60_000)
    assert body(gone, "fatal") and all(gone.is_disabled(s) for s in ("#undo", "#redo", "#drop", "#kind", "#rules"))
    assert gone.is_enabled("#new-empty") and gone.is_enabled("#open-file")
    gone.click("#new-empty")
    wait_until(lambda: gone.is_enabled("#drop") and body(gone, "blocks") == "0", 30, "a new lab")
    context.close()


def _grid_wall(courses: int) -> dict:
    """physics.builds.running_bond_wall as a tower-build/1 file (grid units): 95 blocks for 10 courses."""
    out = []
    for z in range(courses):
        short = int(courses > 1 and (courses - 1 - z) % 2 == 0)
        out += [{"id": f"w{z}_{i}", "origin": [2 * short + 4 * i, 0, 2 * z], "size": [4, 2, 2]}
                for i in range(courses - short)]
    return {"format": "tower-build/1", "blocks": out}


def test_the_removal_map_is_drawn_as_found_and_kept_when_the_budget_stops_it(browser, tmp_path):
    """A 95-block wall's removal map on a server whose lab jobs get 2 CPU seconds: the page says how far it is
    ("removal map: k of 95 blocks") and tints the blocks found; stopped by the budget, it keeps them, says which
    limit stopped it and how to raise it, and unticks the box."""
    from dataclasses import replace

    from tower.app.serve.client import Client

    with ServerThread(str(tmp_path / "games.sqlite"), ai_pause=0, workers=1,
                      limits=replace(ROOMY, lab_cpu_seconds=2)) as srv:
        status, lab = Client(srv.url).request("POST", "/api/lab", {"build": _grid_wall(10), "rules": "free"})
        assert status == 201, lab
        page = open_lab(browser, srv.url + lab["url"])
        page.evaluate("""() => { window.seenWorking = new Set();
          new MutationObserver(() => window.seenWorking.add(document.querySelector('#working').textContent))
            .observe(document.querySelector('#working'), {childList: true, characterData: true, subtree: true}); }""")
        page.click("#show-removal")
        wait_until(lambda: body(page, "removal-stopped") is not None, 120, "the removal map stopped by its budget")
        seen = page.evaluate("() => [...window.seenWorking]")
        counts = [int(t.split()[2]) for t in seen if t.startswith("removal map: ") and t.endswith(" of 95 blocks")]
        assert counts and max(counts) >= 1, seen  # the progress line, with blocks found while it worked
        kept = int(body(page, "removal-stopped"))
        assert 1 <= kept < 95
        tints = page.evaluate("() => window.towerLab.overlay.scene.blocks.filter((b) => b.tint).map((b) => b.tint)")
        assert len(tints) == kept and set(tints) <= {"safe", "risky", "brings-down"}
        said = body(page, "message")
        assert f"too big for this server: the removal map stopped after {kept} of 95 blocks" in said, said
        assert "lab_cpu_seconds" in said and "tower serve --limit lab_cpu_seconds=" in said
        assert "tower lab --limit lab_cpu_seconds=" in said
        assert not page.is_checked("#show-removal") and page.is_hidden("#working")
        assert "stopped after" in page.text_content("#explain")
        page.mouse.move(*AWAY)
        shot(page, "removal-stopped", tmp_path)
        assert not page.errors, page.errors
        page.close()

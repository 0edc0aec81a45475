"""The lab in the desktop window (`tower view FILE --edit`), offscreen, driven through its VTK interactor: mouse
moves, clicks and keys go in as interactor events, as a window system delivers them; the build, the controller's
verdict and the picture are checked afterwards (the PNGs are written for people to look at)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("vtkmodules")

from tests.test_viewer_interaction import click, hover, press  # noqa: E402
from tower.app import stability  # noqa: E402
from tower.app.lab.controller import LabController  # noqa: E402
from tower.climbers.build import load_build  # noqa: E402
from viewer.lab_window import LabWindow  # noqa: E402
from viewer.scene import PALETTE  # noqa: E402

SIZE = (900, 640)
SHOTS = Path(os.environ["TOWER_LAB_SHOTS"]) if os.environ.get("TOWER_LAB_SHOTS") else None


@pytest.fixture
def window(tmp_path):
    made = []

    def make(rules: str = "flag", **kw) -> LabWindow:
        win = LabWindow(LabController(rules=rules, physics=stability), off_screen=True, window_size=SIZE,
                        save_path=tmp_path / "built.json", **kw)
        made.append(win)
        return win

    yield make
    for win in made:
        win.r.close()


def at(win: LabWindow, point) -> tuple[float, float]:
    return win.r.project(point)


def put(win: LabWindow, point) -> None:
    """Point at a spot of the scene (the ghost follows), then click there."""
    x, y = at(win, point)
    hover(win, x, y)
    click(win, x, y)


def share(img: np.ndarray, rgb) -> float:
    d = np.sqrt(((img.reshape(-1, 3).astype(float) - np.array(rgb, dtype=float)) ** 2).sum(axis=1))
    return float(np.mean(d < 40))


def test_blocks_are_placed_by_pointing_and_clicking_then_undone_turned_and_deleted(window, tmp_path,
                                                                                   monkeypatch) -> None:
    win = window()
    x, y = at(win, (1.0, 1.0, 0.0))
    hover(win, x, y)
    assert [g.origin for g in win.shown.ghosts] == [(0, 0, 0)]  # the ghost follows, snapped to the grid
    click(win, x, y)
    assert [(b.id, b.origin) for b in win.ctl.build.blocks] == [("c1", (0, 0, 0))]
    hover(win, *at(win, (1.0, 1.0, 2.0)))
    assert [g.origin for g in win.shown.ghosts] == [(0, 0, 2)]  # onto the top of the cube
    click(win, *at(win, (1.0, 1.0, 2.0)))
    for _ in range(2):
        press(win, "k")  # cube -> double cube -> grey
    assert win.kind == "grey" and win.top == "grey"
    for _ in range(3):
        press(win, "k")  # half cube, cube, double cube again
    assert win.kind == "double-cube"
    while win.size != (4, 2, 2):
        press(win, "o")
    put(win, (1.0, 1.0, 4.0))
    assert [(b.id, b.origin, b.size) for b in win.ctl.build.blocks][-1] == ("d1", (-1, 0, 4), (4, 2, 2))
    assert win.ctl.analysis()["stability"]["verdict"] == "stable"
    win.r.iren.InvokeEvent("LeaveEvent")  # the pointer leaves the window: no ghost
    assert win.shown.ghosts == []
    img = win.r.image()
    if SHOTS:
        win.r.screenshot(SHOTS / "lab-window.png")
    assert share(img, PALETTE["dark-blue"]) > 0.002 and share(img, (255, 0, 60)) > 0.0005  # d1's problem outlined
    # the contact forces and the removal map, drawn from the physics' answers (the scene's arrows and tints);
    # while they are worked out (seconds on a large build) the window says so
    drawn = []
    update = win.r.update
    monkeypatch.setattr(win.r, "update", lambda scene, **kw: (drawn.append(scene.lines[0]), update(scene, **kw))[1])
    press(win, "f")
    assert drawn[0] == "working out the contact forces..." and "working" not in win.shown.lines[0], drawn
    monkeypatch.undo()
    assert sum(a.kind == "force-certain" for a in win.shown.arrows) >= 3 and any(a.kind == "tilt" for a in win.shown.arrows)
    win.r.iren.InvokeEvent("LeaveEvent")
    if SHOTS:
        win.r.screenshot(SHOTS / "lab-window-forces.png")
    press(win, "f")
    press(win, "v")
    assert {b.tint for b in win.shown.blocks} <= {"safe", "risky", "brings-down"}
    assert win.shown.blocks[win.shown.block_index("d1")].tint == "safe"
    press(win, "v")
    assert not win.shown.arrows or all(a.kind == "tilt" for a in win.shown.arrows)
    # undo and redo with the keys
    press(win, "u")
    assert len(win.ctl.build.blocks) == 2
    press(win, "y")
    assert len(win.ctl.build.blocks) == 3
    # select d1, move it out over the edge: the verdict turns to falling, the problem is outlined
    press(win, "s")
    click(win, *at(win, (1.0, 1.0, 6.0)))
    assert win.ctl.selected == "d1"
    press(win, "m")
    put(win, (3.1, 1.0, 0.0))
    assert win.ctl.build.block("d1").origin == (1, 0, 4)
    assert win.ctl.analysis()["stability"]["verdict"] == "collapses"
    assert win.shown.blocks[win.shown.block_index("d1")].problems == ("unsupported",)
    assert any("COLLAPSES" in line for line in win.shown.lines)
    if SHOTS:
        win.r.iren.InvokeEvent("LeaveEvent")
        win.r.screenshot(SHOTS / "lab-window-overhang.png")
    # drop it: the frames play on the window's timer (here at once)
    press(win, "d")
    assert win.queue and "d1" in win.message
    frames = len(win.queue)
    win.run_queue()
    assert frames > 5 and not win.queue
    press(win, "Escape")
    # turn and delete the selected block; w saves the build to its file
    win.ctl.select("d1")
    press(win, "t")
    assert win.ctl.build.block("d1").size == (2, 4, 2)
    press(win, "Delete")
    assert [b.id for b in win.ctl.build.blocks] == ["c1", "c2"]
    press(win, "w")
    assert [b.id for b in load_build(tmp_path / "built.json").blocks] == ["c1", "c2"]


def test_a_refused_edit_is_announced_by_the_ghost_and_said_naming_the_rule(window, tmp_path) -> None:
    win = window(rules="strict")
    put(win, (1.0, 1.0, 0.0))
    press(win, "k")  # a double cube, standing
    put(win, (1.0, 1.0, 2.0))
    before = win.ctl.build
    win.ctl.select("d1")
    press(win, "m")
    # the block being moved leaves its place: its own top is never offered, the cube under it is
    hover(win, *at(win, (1.0, 1.0, 6.0)))
    assert all(b.id != "d1" for b in win.shown.blocks)
    hover(win, *at(win, (1.8, 1.0, 2.0)))  # the cube's top, right half: the ghost goes half off it
    assert win.refusal.startswith("unsupported: block d1 has 2 of 4"), win.refusal
    ghost = win.shown.ghosts[0]
    assert set(ghost.faces) == {"refused"} and any(line.startswith("refused here: unsupported")
                                                   for line in win.shown.lines[:2])
    assert any(lab.text.startswith("refused here: unsupported") for lab in win.shown.labels)
    if SHOTS:
        win.r.screenshot(SHOTS / "lab-window-refused.png")
    click(win, *at(win, (1.8, 1.0, 2.0)))
    assert win.ctl.build is before
    assert win.message.startswith("refused: unsupported")
    assert win.shown.lines[0].startswith("refused: unsupported")
    # a new block: the refusal calls it "the new cube", not by an id no one has seen
    press(win, "Escape")
    press(win, "a")
    while win.kind != "cube":
        press(win, "k")
    hover(win, *at(win, (1.8, 1.0, 6.0)))  # the double cube's top, right half
    assert win.refusal.startswith("unsupported: the new cube has 2 of 4"), win.refusal


def test_a_block_is_dragged_to_its_new_place_and_the_camera_stays(window) -> None:
    from tests.test_viewer_interaction import drag

    win = window(rules="strict")
    put(win, (1.0, 1.0, 0.0))
    put(win, (7.0, 1.0, 0.0))
    press(win, "s")
    camera = win.r.camera.GetPosition()
    # press on c2's top, drag onto c1's top, release: c2 now stands on c1; the camera did not orbit
    drag(win, at(win, (7.0, 1.0, 2.0)), at(win, (1.0, 1.0, 2.0)), during=lambda: (
        ("c2" not in [b.id for b in win.shown.blocks]) or pytest.fail("the dragged block stays drawn")))
    assert win.ctl.build.block("c2").origin == (0, 0, 2), win.ctl.build.block("c2")
    assert win.r.camera.GetPosition() == camera
    assert win.tool == "select" and win.ctl.selected == "c2"
    # dragged where the rules refuse it (half off c1): it stays, and the rule is said
    drag(win, at(win, (1.0, 1.0, 4.0)), at(win, (1.8, 1.0, 2.0)))
    assert win.ctl.build.block("c2").origin == (0, 0, 2)
    assert win.message.startswith("refused: unsupported")


def test_tower_view_edit_says_in_one_line_what_is_wrong(tmp_path) -> None:
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(Path(__file__).parents[1])
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text('{"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 2, 2]}]}')
    bad.write_text('{"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 2, 3]}]}')
    for args, says in [([str(good), "--edit"], "needs a display"), ([str(bad), "--edit"], "$.blocks[0].size"),
                       ([str(good), "--edit", "--screenshot", str(tmp_path / "x.png")], "--edit opens the window")]:
        out = subprocess.run([sys.executable, "-m", "tower", "view", *args], capture_output=True, text=True,
                             env=env, timeout=120)
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and says in out.stderr, out.stderr
    assert not (tmp_path / "x.png").exists()

"""The Climbers in the desktop play window, every step by pointing: a figure's step (a green cell clicked
twice), a block picked and placed (two clicks), the blocking stone laid on a lit free top (two clicks), and the
moves that name no place by their keys (`s`: skip to the block move, leave it, keep the stone). Driven through
the window's VTK interactor, offscreen; and once more in a real X window under Xvfb (`xvfb-run`), where it is
installed (then only there: the suite's time is shared). The picture is written for people to look at
(TOWER_WINDOW_SHOTS)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("vtkmodules")

from tests.test_viewer_interaction import click, hover, press  # noqa: E402
from tower.games import new_game  # noqa: E402
from viewer.play_window import PlayWindow  # noqa: E402

SIZE = (1100, 720)
SHOTS = Path(os.environ["TOWER_WINDOW_SHOTS"]) if os.environ.get("TOWER_WINDOW_SHOTS") else None
ON_SCREEN = os.environ.get("TOWER_WINDOW_ON_SCREEN") == "1"  # set by the Xvfb run below


def _inside(win, x: float, y: float) -> bool:
    w, h = win.r.ren_win.GetSize()
    return 2 < x < w - 2 and 2 < y < h - 2


def _click_target(win, kind: str) -> int:
    """Click a lit cell whose moves start with `kind` twice (choose, then play); the clicks it took."""
    cells = win.ctl.target_cells()
    n = len(win.ctl.state.history)
    for i, m in enumerate(win.shown.markers):
        if m.kind != "target" or not any(t.startswith(kind) for t in cells.get(tuple(m.cell), [])):
            continue
        x, y = win.r.project((m.cell[0] + 0.5, m.cell[1] + 0.5, m.cell[2] + 0.02))
        if not _inside(win, x, y) or win.r.pick(round(x), round(y)) != ("targets", i):
            continue
        hover(win, x, y)
        click(win, x, y)
        assert str(win.ctl.current_move).startswith(kind), win.ctl.current_move
        if kind == "stone":  # chosen: the stone is drawn on the top it would block
            assert any(s.block == win.ctl.current_move.block for s in win.shown.stones)
        click(win, x, y)
        win.run_queue()
        assert len(win.ctl.state.history) == n + 1
        return 2
    raise AssertionError(f"no lit cell for {kind} could be clicked")


def _block_move(win) -> int:
    """Click a block that may move, then a spot where its ghost stands legally; the clicks it took."""
    n = len(win.ctl.state.history)
    for block in win.ctl.movable_blocks():
        b = win.shown.blocks[win.shown.block_index(block)]
        x, y = win.r.project((b.origin[0] + b.size[0] / 2, b.origin[1] + b.size[1] / 2, b.origin[2] + b.size[2]))
        if not _inside(win, x, y) or win.r.pick_block(round(x), round(y)) != block:
            continue
        hover(win, x, y)
        # the block under the pointer is said by its id, with what a click does
        assert any(f"block {block}: click to pick it up" in line for line in win.shown.menu), win.shown.menu
        click(win, x, y)
        if win.ctl.selected_block != block:
            continue
        for p in win.ctl.aim.ps.placements:
            sx, sy, _ = win.ctl.aim.ps.shapes[p.shape].size
            px, py = win.r.project((p.origin[0] + sx / 2, p.origin[1] + sy / 2, p.origin[2]))
            if not _inside(win, px, py):
                continue
            hover(win, px, py)
            if win.ctl.aim.current is not None:
                click(win, px, py)
                win.run_queue()
                if len(win.ctl.state.history) == n + 1:
                    return 2
        press(win, "Escape")
    raise AssertionError("no block could be moved by pointing")


def play_turns(win, turns: int) -> dict[str, list[int]]:
    """The human seat's turns by pointing and keys only; the clicks (or keys) each move took, by kind."""
    clicks: dict[str, list[int]] = {}
    done = 0
    while done < turns and not win.ctl.state.is_over:
        win.run_queue()
        while win.busy:
            win.tick()
        st = win.ctl.state
        phase = st.phase
        keys = {k for k, _ in win.ctl.action_keys()}
        if phase == "figure1":
            if done == 0:  # a click on a block in step 1 says what the step takes
                b = win.shown.blocks[-1]
                x, y = win.r.project((b.origin[0] + b.size[0] / 2, b.origin[1] + b.size[1] / 2,
                                      b.origin[2] + b.size[2]))
                block = win.r.pick_block(round(x), round(y))
                if block is not None:
                    click(win, x, y)
                    assert f"block {block}: step 1 moves your figure" in win.ctl.message, win.ctl.message
                    assert len(win.ctl.state.history) == 0
            if done == 0 and win.ctl.target_cells():
                kind = ("figure", _click_target(win, "fig "))
            else:
                assert "s" in keys
                kind = ("skip", 1)
                press(win, "s")
        elif phase == "block":
            kind = ("block", _block_move(win)) if win.ctl.movable_blocks() else ("skip", 1)
            if kind[0] == "skip":
                press(win, "s")
        elif phase == "figure2":
            if "s" in keys:
                # the panel says the step's choices in words beside their keys, wrapped, never cut off
                assert any("[s] leave the figure where it is" in line for line in win.shown.menu)
                kind = ("leave", 1)
                press(win, "s")
            else:
                kind = ("figure", _click_target(win, "fig "))
        else:
            if "keep" in clicks:
                kind = ("stone", _click_target(win, "stone "))
            else:
                assert any("[s] keep the blocking stone" in line for line in win.shown.menu)
                kind = ("keep", 1)
                press(win, "s")
            done += 1
        win.run_queue()
        clicks.setdefault(kind[0], []).append(kind[1])
    return clicks


@pytest.mark.skipif(shutil.which("xvfb-run") is not None and not ON_SCREEN,
                    reason="run in a real X window by the test below (the suite's time is shared)")
def test_the_climbers_by_pointing_and_keys_in_the_play_window(tmp_path) -> None:
    win = PlayWindow(new_game("climbers", 2, seed=7), ["human", "ai:random"], off_screen=not ON_SCREEN,
                     window_size=SIZE)
    try:
        clicks = play_turns(win, 2)
        assert {"figure", "block", "leave", "keep", "stone"} <= set(clicks), clicks
        assert all(c == 2 for k in ("figure", "block", "stone") for c in clicks[k])
        # the panel's lines fit its width: long moves and log entries are wrapped, not cut off
        from viewer.play import MENU_WIDTH

        assert all(len(line) <= MENU_WIDTH for line in win.shown.menu), win.shown.menu
        path = (SHOTS or tmp_path) / ("climbers-window-xvfb.png" if ON_SCREEN else "climbers-window.png")
        path.parent.mkdir(parents=True, exist_ok=True)
        win.r.screenshot(path)
        print("CLICKS", json.dumps(clicks))
    finally:
        win.r.close()


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run is not installed")
def test_the_same_turns_in_a_real_x_window_under_xvfb(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "TOWER_OFF_SCREEN", "WAYLAND_DISPLAY",
                                                             "VTK_DEFAULT_OPENGL_WINDOW")}
    env["TOWER_WINDOW_ON_SCREEN"] = "1"
    env.setdefault("TOWER_WINDOW_SHOTS", str(tmp_path))
    proc = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x900x24", sys.executable, "-m", "pytest", "-q",
                           "-s", "-n0", "-p", "no:cacheprovider",
                           f"{__file__}::test_the_climbers_by_pointing_and_keys_in_the_play_window"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=Path(__file__).parents[1])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "CLICKS" in proc.stdout

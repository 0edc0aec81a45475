"""The real play and replay windows, offscreen, driven through their VTK interactor: key presses and mouse clicks
go in as interactor events, exactly as a window system delivers them, and the game state and the picture are
checked afterwards."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("vtkmodules")

from tower.games import new_game  # noqa: E402
from viewer.play_window import MOVE_FRAMES, PlayWindow  # noqa: E402
from viewer.scene import PALETTE  # noqa: E402

SIZE = (800, 600)


def press(win, keysym: str) -> None:
    """A key as the window system sends it: KeyPress, Char (VTK's own one-letter keys listen there), KeyRelease."""
    iren = win.r.iren
    code = keysym if len(keysym) == 1 else {"Return": "\r", "Escape": "\x1b"}.get(keysym, "\0")
    iren.SetEventInformation(0, 0, 0, 0, code, 0, keysym)
    for event in ("KeyPressEvent", "CharEvent", "KeyReleaseEvent"):
        iren.InvokeEvent(event)


def click(win, x: float, y: float, drag: int = 0) -> None:
    iren = win.r.iren
    iren.SetEventInformation(int(round(x)), int(round(y)), 0, 0, "\0", 0, "")
    iren.InvokeEvent("LeftButtonPressEvent")
    iren.SetEventInformation(int(round(x)) + drag, int(round(y)), 0, 0, "\0", 0, "")
    iren.InvokeEvent("LeftButtonReleaseEvent")


def drag(win, start, end, steps: int = 6, during=None) -> None:
    """Press the left button at `start`, move in `steps` to `end` with it down, release there (display pixels);
    `during()` is called at each step."""
    iren = win.r.iren
    iren.SetEventInformation(int(round(start[0])), int(round(start[1])), 0, 0, "\0", 0, "")
    iren.InvokeEvent("LeftButtonPressEvent")
    for k in range(1, steps + 1):
        x = start[0] + (end[0] - start[0]) * k / steps
        y = start[1] + (end[1] - start[1]) * k / steps
        iren.SetEventInformation(int(round(x)), int(round(y)), 0, 0, "\0", 0, "")
        iren.InvokeEvent("MouseMoveEvent")
        if during is not None:
            during()
    iren.SetEventInformation(int(round(end[0])), int(round(end[1])), 0, 0, "\0", 0, "")
    iren.InvokeEvent("LeftButtonReleaseEvent")


def hover(win, x: float, y: float) -> None:
    iren = win.r.iren
    iren.SetEventInformation(int(round(x)), int(round(y)), 0, 0, "\0", 0, "")
    iren.InvokeEvent("MouseMoveEvent")


def top_centre(win, block_id: str) -> tuple[int, int]:
    """The pixel (as a click reports it: whole numbers) of the middle of a block's top."""
    b = win.shown.blocks[win.shown.block_index(block_id)]
    x, y = win.r.project((b.origin[0] + b.size[0] / 2, b.origin[1] + b.size[1] / 2, b.origin[2] + b.size[2]))
    return round(x), round(y)


def shows_colour(img: np.ndarray, x: float, y: float, rgb: tuple[int, int, int]) -> bool:
    """Does the pixel at display (x, y) show `rgb` under some lighting factor (the faces are shaded)?"""
    p = img[img.shape[0] - 1 - int(round(y)), int(round(x))].astype(float)
    c = np.asarray(rgb, dtype=float)
    k = np.clip(p @ c / (c @ c), 0.5, 1.3)
    return float(np.linalg.norm(p - k * c)) < 30


@pytest.fixture
def window():
    made = []

    def make(game: str, seats: list[str], seed: int = 1, **kw):
        win = PlayWindow(new_game(game, len(seats), seed=seed), seats, off_screen=True, window_size=SIZE, **kw)
        made.append(win)
        return win

    yield make
    for win in made:
        win.r.close()


def block_step(win) -> None:
    """Play the optional first figure move, so the Climbers turn is at its block step."""
    press(win, "Return")
    win.run_queue()
    assert win.ctl.state.phase == "block"


# --- keys --------------------------------------------------------------------------------------------------

def test_arrow_keys_move_the_cursor_and_enter_plays_the_move(window) -> None:
    win = window("climbers", ["human", "human"])
    moves = win.ctl.state.legal_moves()
    press(win, "Right")
    press(win, "Right")
    press(win, "Left")
    press(win, "Down")
    assert win.ctl.index == 2
    said = win.ctl.state.move_words(moves[2])
    assert ("> " + said)[:56] in win.shown.menu  # the menu speaks in words
    press(win, "Return")
    assert win.ctl.state.history[-1] == moves[2]
    win.run_queue()
    assert win.r.scene is win.shown and any(said[:40] in line for line in win.shown.menu)  # the log too


def test_vtk_built_in_keys_are_replaced_by_the_camera_presets(window) -> None:
    win = window("climbers", ["human", "human"])
    cam = win.r.camera
    positions = {}
    for key in ("2", "3", "4", "1"):
        press(win, key)
        positions[key] = tuple(np.round(cam.GetPosition(), 4))
        assert win.r.preset == int(key)
    assert len(set(positions.values())) == 4
    assert not win.r.ren_win.GetStereoRender()  # VTK's own '3' would switch stereo on
    press(win, "w")  # VTK's wireframe key: must do nothing
    assert win.r.actors["blocks"].GetProperty().GetRepresentation() == 2  # surface
    press(win, "4")
    press(win, "r")
    assert tuple(np.round(cam.GetPosition(), 4)) == positions["1"]


def test_hint_undo_save_and_load_from_the_keyboard(window, tmp_path) -> None:
    from tower.games import load_record
    from tower.games.ai import make_agent

    path = tmp_path / "game.json"
    win = window("climbers", ["human", "human"], save_path=path)
    press(win, "h")
    expected = make_agent("ai:greedy", seed=0).choose(new_game("climbers", 2, seed=1))
    assert win.ctl.current_move == expected and win.ctl.message == f"hint: {expected}"
    press(win, "Return")
    win.run_queue()
    assert win.ctl.state.history == [expected]
    press(win, "k")
    assert load_record(path).history == [expected]
    press(win, "u")
    assert win.ctl.state.history == []
    press(win, "l")
    assert win.ctl.state.history == [expected] and win.ctl.message.startswith("loaded")
    path.write_text("{not json")
    press(win, "l")
    assert win.ctl.state.history == [expected] and win.ctl.message.startswith("cannot load")


def test_card_game_menu_previews_the_move_before_enter(window) -> None:
    win = window("diabolo", ["human", "ai:random", "ai:random"], seed=3)
    while not win.ctl.human_to_move:
        win.tick()
        win.run_queue()
    for _ in range(len(win.ctl.moves)):
        if win.shown.ghosts:
            break
        press(win, "Right")
    assert win.shown.ghosts and win.r.actors["ghost_sel"].GetVisibility()
    move = win.ctl.current_move
    before = len(win.ctl.state.history)
    press(win, "Return")
    assert win.ctl.state.history[before] == move


def test_hotseat_hand_over_hides_the_cards_until_enter(window) -> None:
    win = window("diabolo", ["human", "human", "human"], seed=3)
    for _ in range(20):
        press(win, "Return")
        win.run_queue()
        if win.ctl.handover:
            break
    assert win.ctl.handover
    assert not win.r.meshes["blocks"].n_points and "Hand over" in win.shown.title
    press(win, "Return")
    assert not win.ctl.handover and win.r.meshes["blocks"].n_points


# --- mouse -------------------------------------------------------------------------------------------------

def test_a_click_selects_the_block_drawn_at_that_pixel(window) -> None:
    win = window("climbers", ["human", "human"])
    block_step(win)
    img = win.r.image()
    tried = 0
    for block in win.ctl.movable_blocks():
        x, y = top_centre(win, block)
        top = win.shown.blocks[win.shown.block_index(block)].faces[4]
        if win.r.pick_block(x, y) != block or not shows_colour(img, x, y, PALETTE[top]):
            continue  # something else is drawn over this block's top
        press(win, "Escape")
        click(win, x, y)
        assert win.ctl.selected_block == block
        assert win.shown.blocks[win.shown.block_index(block)].selected
        assert all(m.block == block for m in win.ctl.moves)
        tried += 1
    assert tried >= 3


def test_a_drag_is_not_a_click_and_the_sky_picks_nothing(window) -> None:
    win = window("climbers", ["human", "human"])
    block_step(win)
    x, y = top_centre(win, win.ctl.movable_blocks()[0])
    click(win, x, y, drag=30)
    assert win.ctl.selected_block is None
    click(win, 3, SIZE[1] - 3)
    assert win.ctl.selected_block is None and win.ctl.state.phase == "block"


def test_hover_outlines_the_movable_block_under_the_mouse(window) -> None:
    win = window("climbers", ["human", "human"])
    block_step(win)
    for block in win.ctl.movable_blocks():
        x, y = top_centre(win, block)
        if win.r.pick_block(x, y) == block:
            hover(win, x, y)
            assert win.ctl.hover == block and win.r.meshes["hover"].n_cells == 12
            hover(win, 3, SIZE[1] - 3)
            assert win.ctl.hover is None and not win.r.actors["hover"].GetVisibility()
            return
    pytest.fail("no movable block visible")


def wheel(win, x: float, y: float, backward: bool = True) -> None:
    iren = win.r.iren
    iren.SetEventInformation(int(round(x)), int(round(y)), 0, 0, "\0", 0, "")
    iren.InvokeEvent("MouseWheelBackwardEvent" if backward else "MouseWheelForwardEvent")


def test_a_picked_block_follows_the_pointer_and_a_second_click_places_it(window, tmp_path) -> None:
    """Two clicks: the block, then where it goes. In between the ghost (one, solid) follows the mouse over the
    tower and the table, the wheel turns it at the same spot without zooming, and where nothing can go the
    window says why in the game's words."""
    win = window("climbers", ["human", "human"])
    block_step(win)
    block = next(b for b in win.ctl.movable_blocks() if win.r.pick_block(*top_centre(win, b)) == b)
    click(win, *top_centre(win, block))
    aim = win.ctl.aim
    assert aim is not None and aim.ps.block == block and len(aim.ps.placements) == len(win.ctl.moves)
    assert len(win.shown.ghosts) <= 1  # no clutter: at most the one aimed placement
    # the table far from the tower: nothing legal, and the reason in words
    bx = win.shown.bounds()
    x, y = win.r.project((bx[0] - 4.5, (bx[2] + bx[3]) / 2, 0.0))
    hover(win, x, y)
    assert aim.current is None and not win.shown.ghosts
    assert "touch the construction" in " ".join(win.shown.menu)
    # over a spot with several shapes: one ghost, there; the wheel turns it and the camera stays
    for p in aim.ps.placements:
        sx, sy, _ = aim.ps.shapes[p.shape].size
        x, y = win.r.project((p.origin[0] + sx / 2, p.origin[1] + sy / 2, p.origin[2]))
        hover(win, round(x), round(y))
        if aim.current is not None and len(aim.options) > 1:
            break
    else:
        pytest.fail("no spot with several shapes could be pointed at")
    assert [g.label for g in win.shown.ghosts] == [aim.current.text] and win.shown.ghosts[0].selected
    win.r.screenshot(tmp_path / "aim.png")
    first, camera = aim.current, win.r.camera.GetPosition()
    wheel(win, x, y)
    assert aim.current != first and aim.current.origin[2] == first.origin[2]
    assert win.r.camera.GetPosition() == camera and [g.label for g in win.shown.ghosts] == [aim.current.text]
    press(win, "r")
    press(win, "R")
    chosen = aim.current
    click(win, x, y)
    assert str(win.ctl.state.history[-1]) == chosen.text and len(win.ctl.state.history) == 2
    assert len(win.queue) == MOVE_FRAMES  # the block travels to its new place
    win.run_queue()
    placed = win.shown.blocks[win.shown.block_index(block)]
    assert placed.origin == chosen.origin


def test_clicking_a_highlighted_target_cell_moves_the_figure(window) -> None:
    win = window("climbers", ["human", "human"])
    targets = [(i, m) for i, m in enumerate(win.shown.markers) if m.kind == "target"]
    assert len(targets) > 3
    for i, m in targets:
        x, y = win.r.project((m.cell[0] + 0.5, m.cell[1] + 0.5, m.cell[2]))
        if win.r.pick(x, y) == ("targets", i):
            break
    else:
        pytest.fail("no target cell visible")
    click(win, x, y)
    assert tuple(win.ctl.current_move.cell) == m.cell and not win.ctl.state.history
    assert [f.cell for f in win.shown.ghost_figures] == [m.cell]
    click(win, x, y)
    assert win.ctl.state.history[-1].kind == "fig" and tuple(win.ctl.state.history[-1].cell) == m.cell


def test_whatif_removes_the_clicked_block_plays_pybullet_and_restores(window) -> None:
    pytest.importorskip("pybullet")
    from tower.app import stability

    win = window("climbers", ["human", "human"], physics=stability)
    before = win.ctl.state.to_json()
    press(win, "x")
    assert win.ctl.whatif
    # the lowest, most loaded visible block: taking it away makes the most happen
    block = next(b.id for b in sorted(win.shown.blocks, key=lambda b: b.origin[2])
                 if win.r.pick_block(*top_centre(win, b.id)) == b.id)
    n = len(win.shown.blocks)
    click(win, *top_centre(win, block))
    assert win.ctl.removed == block and win.queue
    assert win.r.meshes["blocks"].n_cells == 6 * (n - 1)
    still = np.array(win.r.meshes["blocks"].points)
    win.run_queue()
    assert win.r.meshes["blocks"].n_cells == 6 * (n - 1)
    assert win.ctl.message.startswith(f"without {block}")
    moved = np.abs(np.array(win.r.meshes["blocks"].points) - still).max()
    assert moved > 0  # bodies settled at least a little in the simulation
    press(win, "x")
    assert not win.ctl.whatif and win.r.meshes["blocks"].n_cells == 6 * n
    assert win.ctl.state.to_json() == before


def test_ai_moves_animate_in_steps(window) -> None:
    win = window("climbers", ["human", "ai:random"])
    for _ in range(8):  # the human's turn: Enter plays the first listed move of each step
        if not win.ctl.human_to_move:
            break
        press(win, "Return")
        win.run_queue()
    assert not win.ctl.human_to_move
    before = win.shown
    win.tick()
    assert len(win.ctl.state.history) and win.ctl.log_lines()[-1].startswith(win.ctl.state.player_label(1))
    assert len(win.queue) == MOVE_FRAMES
    frames = []
    while win.queue:
        win.tick()
        frames.append(win.r.scene)
    assert frames[-1] is win.shown and frames[0] is not before


# --- the replay window -------------------------------------------------------------------------------------

def test_replay_window_steps_with_the_keys_and_the_slider(tmp_path) -> None:
    from viewer.replay import ReplayWindow

    state = new_game("seventh-heaven", 3, seed=2)
    for _ in range(5):
        state.apply(state.legal_moves()[0])
    w = ReplayWindow(state.record(), off_screen=True)
    try:
        press(w, "Right")
        press(w, "Right")
        assert w.k == 2 and w.r.scene.title.endswith("move 2/5")
        assert w.slider.GetRepresentation().GetValue() == 2
        press(w, "End")
        assert w.k == 5
        press(w, "Home")
        press(w, "Left")
        assert w.k == 0 and w.r.scene.title.endswith("move 0/5")
        w.show(3.4)  # what the slider calls
        assert w.k == 3
    finally:
        w.r.close()


# --- closing, the timer, the camera -----------------------------------------------------------------------

def test_q_closes_the_play_window(window) -> None:
    win = window("diabolo", ["human", "ai:random", "ai:random"])
    press(win, "q")
    assert win.closed and win.r.iren is None


def test_q_closes_the_view_and_replay_windows() -> None:
    from tower.climbers.setup import random_start_tower
    from viewer.replay import ReplayWindow
    from viewer.scene import build_scene
    from viewer.view import view_window

    r = view_window(build_scene(random_start_tower(1)), off_screen=True)
    press(type("W", (), {"r": r})(), "q")
    assert r.closed
    state = new_game("diabolo", 3, seed=1)
    state.apply(state.legal_moves()[0])
    w = ReplayWindow(state.record(), off_screen=True)
    press(w, "q")
    assert w.r.closed


def count_renders(win) -> list[int]:
    count = [0]
    win.r.ren_win.AddObserver("StartEvent", lambda *_: count.__setitem__(0, count[0] + 1))
    return count


def timer_tick(win) -> None:
    win.r.iren.InvokeEvent("TimerEvent")


def test_the_timer_runs_only_while_there_is_something_to_play(window) -> None:
    win = window("climbers", ["human", "ai:random"])
    renders = count_renders(win)
    assert win.timer is None  # a person to move and nothing animating: no timer at all
    for _ in range(25):
        timer_tick(win)  # (a stray tick changes nothing either)
    assert renders[0] == 0
    while win.ctl.human_to_move:
        press(win, "Return")
        win.run_queue()
    assert win.timer is not None  # the AI is to move: the timer runs it
    for _ in range(500):
        if win.timer is None:
            break
        timer_tick(win)
    assert win.timer is None and win.ctl.human_to_move
    assert any(e.player == 1 for e in win.ctl.log)  # the AI moved, animated by the timer
    assert renders[0] > 8
    before = renders[0]
    for _ in range(25):
        timer_tick(win)
    assert renders[0] == before  # idle again: nothing is drawn


def _heading(win) -> float:
    cam = win.r.camera
    (px, py, _), (fx, fy, _) = cam.GetPosition(), cam.GetFocalPoint()
    return float(np.degrees(np.arctan2(py - fy, px - fx)))


def _figure_bearing(win) -> float:
    from viewer.play_window import active_figure_heading

    hx, hy = active_figure_heading(win.shown)
    return float(np.degrees(np.arctan2(hy, hx)))


def test_the_camera_turns_to_the_figure_of_the_player_to_move(window) -> None:
    win = window("climbers", ["human", "human", "human"], seed=2)
    assert abs((_heading(win) - _figure_bearing(win) + 180) % 360 - 180) < 1
    first = win.ctl.state.current_player
    while win.ctl.state.current_player == first:
        press(win, "Return")  # the first listed move of each step, until the turn passes
        win.run_queue()
    assert abs((_heading(win) - _figure_bearing(win) + 180) % 360 - 180) < 1
    x, y = win.r.project([c + 0.5 for c in next(f for f in win.shown.figures if f.current).cell])
    assert 0 < x < SIZE[0] and 0 < y < SIZE[1]


def test_a_click_where_the_picked_block_cannot_go_on_another_movable_block_picks_that_one(window) -> None:
    win = window("climbers", ["human", "human"])
    block_step(win)
    movable = [b for b in win.ctl.movable_blocks() if win.r.pick_block(*top_centre(win, b)) == b]
    click(win, *top_centre(win, movable[0]))
    for other in movable[1:]:
        hover(win, *top_centre(win, other))
        if win.ctl.aim.current is None:  # the first block cannot go there
            click(win, *top_centre(win, other))
            assert win.ctl.selected_block == other and win.ctl.aim.ps.block == other
            assert len(win.ctl.state.history) == 1  # nothing was played
            return
    pytest.fail("every movable block's top takes the first block: no place to try")


# --- the card games: played by pointing in the window (viewer.cards.pointing) -------------------------------------

def spot_pixel(win, key: str) -> tuple[int, int] | None:
    """A pixel where the window's own picking finds the card game's spot `key` (None: not in view)."""
    ptr, scene = win.ctl.pointer, win.shown
    spot = ptr.table.spots[key]
    points = [(b.origin[0] + u * b.size[0], b.origin[1] + u * b.size[1], b.origin[2] + b.size[2])
              for b in scene.blocks if b.id in spot.items or b.id.startswith(f"spot:{key}:") for u in (0.5, 0.3, 0.7)]
    points += [(scene.figures[f].cell[0] + 0.5, scene.figures[f].cell[1] + 0.5,
                scene.figures[f].cell[2] + 0.6 * scene.figures[f].scale) for f in spot.figures]
    w, h = win.r.window_size
    for p in points:
        x, y = (round(v) for v in win.r.project(p))
        if 0 < x < w and 0 < y < h:
            hit = win.r.pick(x, y)
            if hit is not None and ptr.spot_at(hit[0], hit[1], scene) == key:
                return x, y
    return None


def point_and_play(win, choice: int) -> int:
    """Play a legal move of the card game in the window by hovering and clicking its spots: the click path of move
    `choice` (modulo), or the next one in view; the clicks it took."""
    table = win.ctl.pointer.table
    n = len(win.ctl.state.history)
    for k in range(len(table.paths)):
        i, path = table.paths[(choice + k) % len(table.paths)]
        clicks = 0
        for key in [*path, path[-1]]:
            at = spot_pixel(win, key)
            if at is None:
                break
            hover(win, *at)
            if win.ctl.pointer is not None and key != path[0]:
                assert win.ctl.message, "the place under the pointer says what a click does"
            click(win, *at)
            clicks += 1
            if len(win.ctl.state.history) > n:
                assert str(win.ctl.state.history[n]) == table.moves[i][0]
                return clicks
        press(win, "Escape")
    raise AssertionError("no move of the card game could be played by clicking in the window")


@pytest.mark.parametrize("game, seats, options", [
    ("seventh-heaven", ["human", "ai:random"], {"track_length": 15, "hand_size": 4}),
    ("partners", ["human", "ai:random", "ai:random", "ai:random"], {"move_limit": 24}),
    ("diabolo", ["human", "ai:random", "ai:random"], {"hand_size": 3, "values": "1,2,3,4,5"}),
])
def test_each_card_game_is_played_to_the_end_by_clicking_in_the_window(window, game, seats, options) -> None:
    win = PlayWindow(new_game(game, len(seats), seed=2, options=options), seats, off_screen=True, window_size=SIZE)
    try:
        took = []
        while not win.ctl.state.is_over:
            while win.busy:
                win.tick()
            if win.ctl.state.is_over:
                break
            took.append(point_and_play(win, len(took)))
            assert len(took) < 200
        assert took and sorted(took)[len(took) // 2] == 2, took
    finally:
        win.r.close()


def test_partners_exchange_a_click_on_the_partners_pawn_hands_the_card_over(window) -> None:
    win = window("partners", ["human", "ai:greedy", "ai:greedy", "ai:greedy"])
    table = win.ctl.pointer.table
    give, path = next((i, p) for i, p in table.paths if p[1] == "partner")
    click(win, *spot_pixel(win, path[0]))
    view = win.ctl.state.view(0)
    partner = next(q for team in view["teams"] if 0 in team for q in team if q != 0)
    fig = win.shown.figures[4 * partner]  # a pawn in his base: it covers most of its square
    x, y = (round(v) for v in win.r.project((fig.cell[0] + 0.5, fig.cell[1] + 0.5, fig.cell[2] + 0.6 * fig.scale)))
    assert win.r.pick(x, y)[0] == "figures"
    hover(win, x, y)
    assert win.ctl.message.startswith("click to play: hand the"), win.ctl.message
    click(win, x, y)
    assert [str(m) for m in win.ctl.state.history[:1]] == [table.moves[give][0]], win.ctl.message

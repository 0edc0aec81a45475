"""The play window: keys and mouse -> `PlayController` -> a new scene -> in-place update of the renderer.

Thin by design: every decision is the controller's (and through it the game's). Animations (a move's pieces
travelling, the camera turning to the player to move, the what-if collapse) are queues of frames the window's
timer plays one per tick. The timer runs only while there is something to play or an AI to move: an idle window
draws nothing and uses no CPU. A test drives the same code offscreen by sending key, mouse and timer events to
the interactor.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from viewer.play import PlayController
from viewer.poses import set_block_poses
from viewer.renderer import SceneRenderer

PLAY_SIZE = (1280, 820)
TICK_MS = 40
MOVE_FRAMES = 8  # a move takes about a third of a second
TURN_FRAMES = 8  # the camera's turn to the player to move, as long as a move
CLICK_SLOP = 4  # pixels the mouse may travel between press and release and still count as a click


def camera_keys(r: SceneRenderer) -> dict[str, Callable[[], Any]]:
    keys: dict[str, Callable[[], Any]] = {str(n): (lambda n=n: r.camera_preset(n)) for n in range(1, 5)}
    keys["r"] = r.reset_camera
    return keys


def active_figure_heading(scene: Any) -> tuple[float, float] | None:
    """The horizontal direction from the middle of the construction to the figure of the player to move (None
    without such a figure, or when it stands in the middle, where every side sees it)."""
    current = [f for f in scene.figures if f.current]
    if not current or not scene.blocks:
        return None
    b = scene.bounds()
    x, y = current[0].cell[0] + 0.5 - (b[0] + b[1]) / 2, current[0].cell[1] + 0.5 - (b[2] + b[3]) / 2
    return (x, y) if np.hypot(x, y) >= 1.0 else None


class ClickOrDrag:
    """Mouse buttons of a window: a press and release within CLICK_SLOP pixels is a click (`self.click(x, y)`);
    anything longer is a camera drag, left to VTK's interactor."""

    r: SceneRenderer
    press: tuple[int, int] | None = None

    def click(self, x: int, y: int) -> None:
        raise NotImplementedError

    def _on_press(self, *_: Any) -> bool | None:
        self.press = self.r.event_position()
        return None  # the camera may orbit with this press

    def _on_release(self, *_: Any) -> None:
        if self.press is None:
            return
        (x0, y0), (x, y) = self.press, self.r.event_position()
        self.press = None
        if abs(x - x0) + abs(y - y0) <= CLICK_SLOP:  # not a camera drag
            self.click(x, y)


class PlayWindow(ClickOrDrag):
    """A renderer, the controller, the key map, the mouse handlers and an animation queue."""

    def __init__(self, state: Any, seats: list[str], *, off_screen: bool = False,
                 window_size: tuple[int, int] = PLAY_SIZE, save_path: str | Path | None = None,
                 physics: Any = None) -> None:
        self.ctl = PlayController(state, seats, save_path=save_path, physics=physics)
        self.shown = self.ctl.scene()
        self.r = SceneRenderer(self.shown, off_screen=off_screen, window_size=window_size, interactive=True)
        self.queue: list[Callable[[], None]] = []
        self.press: tuple[int, int] | None = None
        self.timer: int | None = None  # the VTK timer while one runs
        self.facing: int | None = None  # the player the camera last turned to
        keys = {"Right": lambda: self.menu(1), "Down": lambda: self.menu(1), "n": lambda: self.menu(1),
                "Left": lambda: self.menu(-1), "Up": lambda: self.menu(-1), "p": lambda: self.menu(-1),
                "b": lambda: self.menu(-1), "Return": self.confirm, "KP_Enter": self.confirm,
                "space": self.confirm, "Escape": lambda: self.act(self.ctl.deselect),
                "u": lambda: self.act(self.ctl.undo), "h": lambda: self.act(self.ctl.hint),
                "k": lambda: self.act(self.ctl.save), "l": lambda: self.act(self.ctl.load)}
        if self.ctl.state.construction:
            keys["x"] = lambda: self.act(self.ctl.toggle_whatif)
            keys["s"] = lambda: self.action("s")  # the step's skip: skip to the block move, leave it, keep it
            keys["P"] = lambda: self.action("P")  # pass the whole turn
            keys["r"] = lambda: self.turn(1)  # aiming a block: turn it; otherwise the camera's reset
            keys["R"] = lambda: self.turn(-1)
        cam = camera_keys(self.r)
        if "r" in keys:
            self._reset = cam.pop("r")
        keys = {**cam, **keys}
        self.r.bind_keys(keys)
        self.r.on_wheel(self._on_wheel)
        iren = self.r.iren
        self.r.on_left_button(self._on_press, self._on_release)
        iren.AddObserver("MouseMoveEvent", self._on_move)
        iren.AddObserver("TimerEvent", self._on_timer)
        self._face_player(animate=False)
        self.schedule()

    @property
    def closed(self) -> bool:
        return self.r.closed

    # --- showing ---------------------------------------------------------------------------------------------
    def show_scene(self, scene: Any = None) -> None:
        self.shown = scene if scene is not None else self.ctl.scene()
        self.r.update(self.shown, render=True)

    def act(self, fn: Callable[[], Any]) -> None:
        """Run a controller call that changes no pieces' places (or, like undo and load, jumps), then redraw."""
        if self.queue:
            return  # an animation is playing: input waits for it
        fn()
        self.show_scene()
        self._face_player()
        self.schedule()

    def menu(self, step: int) -> None:
        self.act(lambda: self.ctl.cycle(step))

    def confirm(self) -> None:
        if self.queue:
            return
        before = self.shown
        if self.ctl.confirm():
            self.animate_move(before)
        else:
            self.show_scene()
            self._face_player()
        self.schedule()

    def action(self, key: str) -> None:
        """A key of a move that names no place on the table (The Climbers' skip, pass): play it."""
        if self.queue:
            return
        before = self.shown
        if self.ctl.action(key):
            self.animate_move(before)
        else:
            self.show_scene()
        self.schedule()

    def animate_move(self, before: Any) -> None:
        """Queue the frames of the move just made: pieces travel from where `before` had them; then the camera
        turns to the next player's figure."""
        from viewer.motion import tween_frames

        after = self.ctl.scene()
        if before.blocks or before.figures:
            for frame in tween_frames(before, after, MOVE_FRAMES)[:-1]:
                self.queue.append(lambda f=frame: self.r.update(f, render=True))
        self.queue.append(lambda: (self.show_scene(after), self._face_player()))

    def _face_player(self, animate: bool = True) -> None:
        """In a construction game, turn the camera toward the figure of the player to move when that player
        changes (an animated turn of TURN_FRAMES frames), so the active figure never hides behind the tower."""
        if not self.ctl.state.construction:
            return
        player = self.ctl.state.current_player
        if player is None or player == self.facing:
            return
        self.facing = player
        target = active_figure_heading(self.shown)
        if target is None or self.r.preset != 1:
            return
        if not animate:
            self.r.turn_to(target, render=False)
            return
        start = self.r.heading or (0.75, -1.0)  # preset 1's usual direction
        a0, a1 = np.arctan2(start[1], start[0]), np.arctan2(target[1], target[0])
        turn = (a1 - a0 + np.pi) % (2 * np.pi) - np.pi  # the short way round
        frames = [a0 + turn * k / TURN_FRAMES for k in range(1, TURN_FRAMES + 1)]
        self.queue[:0] = [lambda a=a: self.r.turn_to((np.cos(a), np.sin(a))) for a in frames]

    def tick(self) -> bool:
        """One timer step: the next animation frame, else one AI move (animated). False when there was nothing
        to do (the timer then stops)."""
        if self.queue:
            self.queue.pop(0)()
            return True
        before = self.shown
        if self.ctl.ai_step():
            self.animate_move(before)
            return True
        return False

    @property
    def busy(self) -> bool:
        """Is there anything for the timer to do: an animation frame, or an AI seat to move?"""
        ctl = self.ctl
        return bool(self.queue) or (not ctl.handover and ctl.state.current_player in ctl.agents)

    def schedule(self) -> None:
        """Start the timer if there is work for it (it stops itself when there is none)."""
        if self.busy and self.timer is None and not self.closed:
            self.timer = self.r.iren.CreateRepeatingTimer(TICK_MS)

    def _on_timer(self, *_: Any) -> None:
        if not self.tick() and not self.busy and self.timer is not None:
            self.r.iren.DestroyTimer(self.timer)
            self.timer = None

    def run_queue(self) -> None:
        """Play every queued frame now (tests; the window's timer does it one per tick)."""
        while self.queue:
            self.queue.pop(0)()

    # --- mouse -----------------------------------------------------------------------------------------------

    def turn(self, step: int) -> None:
        """r / R: turn the block being aimed (shape, face up); without one, r resets the camera."""
        if self.ctl.aim is None:
            if step > 0:
                self._reset()
            return
        if not self.queue and self.ctl.turn(step):
            self.show_scene()

    def _on_wheel(self, step: int) -> bool:
        if self.ctl.aim is None or self.queue:
            return False
        if self.ctl.turn(step):
            self.show_scene()
        return True

    def aim(self, x: int, y: int) -> None:
        """The pointer at display pixel (x, y) while a block is picked: the ghost goes there."""
        hit = self.r.surface_at(x, y)
        if self.ctl.aim_at(*(hit if hit is not None else (None,))):
            self.show_scene()

    def _on_move(self, *_: Any) -> None:
        if self.press is not None or self.queue:
            return
        if self.ctl.aim is not None:
            self.aim(*self.r.event_position())
            return
        if self.ctl.pointer is not None:  # a card game: the spot under the pointer says what a click does
            if self.ctl.card_point(self.spot_at(*self.r.event_position())):
                self.show_scene()
            return
        hit = self.r.pick(*self.r.event_position()) if self.ctl.state.construction else None
        block = self.shown.blocks[hit[1]].id if hit is not None and hit[0] == "blocks" else None
        if self.ctl.hover_block(block):
            self.show_scene()

    def spot_at(self, x: int, y: int) -> str | None:
        """The card game's spot drawn at display pixel (x, y), or None."""
        hit = self.r.pick(x, y)
        return None if hit is None or self.ctl.pointer is None else \
            self.ctl.pointer.spot_at(hit[0], hit[1], self.shown)

    def click(self, x: int, y: int) -> None:
        """A click at display pixel (x, y): whatever is drawn there goes to the controller."""
        if self.queue:
            return
        if self.ctl.aim is not None and not self.ctl.whatif:
            # aiming: the click places the block where the pointer is, or says why it cannot go there
            self.aim(x, y)
            before = self.shown
            if self.ctl.place():
                self.animate_move(before)
            else:
                # nothing can go here, but a click on another block that may move picks that one instead
                other = self.r.pick_block(x, y)
                if other is not None and other != self.ctl.selected_block and other in self.ctl.movable_blocks():
                    self.ctl.click_block(other)
                    self.aim(x, y)
                self.show_scene()
            self.schedule()
            return
        hit = self.r.pick(x, y)
        if hit is None:
            if self.ctl.pointer is not None:  # a card game: a click on nothing puts the chosen card back
                self.act(lambda: self.ctl.card_click(None))
            return
        layer, index = hit
        if self.ctl.whatif and layer == "blocks" and self.ctl.removed is None:
            self.whatif(self.shown.blocks[index].id)
            return
        before = self.shown
        if self.ctl.click(layer, index, self.shown):
            self.animate_move(before)
        else:
            self.show_scene()
        self.schedule()

    # --- what-if ---------------------------------------------------------------------------------------------
    def whatif(self, block_id: str) -> None:
        """Take the block away, then play the PyBullet trajectory of what remains; x or Esc restores."""
        from physics.units import UNIT_M

        frames = self.ctl.whatif_remove(block_id)
        self.show_scene()  # the construction without the block, before anything moves
        for frame in frames:
            self.queue.append(lambda f=frame: self._pose(f["poses"], UNIT_M))
        self.schedule()

    def _pose(self, poses: dict[str, Any], unit_m: float) -> None:
        set_block_poses(self.r, poses, unit_m)
        self.r.render()

    def show(self) -> None:
        self.r.show(title=f"tower-sim: {self.ctl.state.title or self.ctl.state.name}")


def play_window(state: Any, seats: list[str], save_path: str | Path | None = None, physics: Any = None) -> int:
    """The interactive window (needs a display); keys and mouse as in the window's help line."""
    from viewer.renderer import require_display

    require_display("the play window", "tower play GAME --text plays in the terminal")
    PlayWindow(state, seats, save_path=save_path, physics=physics).show()
    return 0

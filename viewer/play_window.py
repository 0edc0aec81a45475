"""The play window: keys and mouse -> `PlayController` -> a new scene -> in-place update of the renderer.

Thin by design: every decision is the controller's (and through it the game's). Animations (a move's pieces
travelling, the what-if collapse) are queues of frames the window's timer plays one per tick; a test drives the
same code offscreen by sending key and mouse events to the interactor and calling `tick()`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from viewer.play import PlayController
from viewer.render import SceneRenderer, set_block_poses

PLAY_SIZE = (1280, 820)
TICK_MS = 40
MOVE_FRAMES = 8  # a move takes about a third of a second
CLICK_SLOP = 4  # pixels the mouse may travel between press and release and still count as a click


def quiet_style(plotter: Any) -> None:
    """Stop VTK's built-in one-letter keys (3 = stereo, w = wireframe, e = exit, r = its own reset...): with an
    observer for CharEvent on the style, VTK calls the observer instead of its own OnChar."""
    style = plotter.iren.style  # the object PyVista installs again when the window opens
    if style is not None:
        style.AddObserver("CharEvent", lambda *_: None)


def bind_keys(plotter: Any, keys: dict[str, Callable[[], Any]]) -> None:
    """Replace PyVista's default keys (b = pick mode, v, Up/Down zoom...) with `keys`; q still quits."""
    plotter.iren.clear_key_event_callbacks()
    plotter.add_key_event("q", plotter._prep_for_close)
    for key, fn in keys.items():
        plotter.add_key_event(key, fn)


def camera_keys(r: SceneRenderer) -> dict[str, Callable[[], Any]]:
    keys: dict[str, Callable[[], Any]] = {str(n): (lambda n=n: r.camera_preset(n)) for n in range(1, 5)}
    keys["r"] = r.reset_camera
    return keys


class PlayWindow:
    """A renderer, the controller, the key map, the mouse handlers and an animation queue."""

    def __init__(self, state: Any, seats: list[str], *, off_screen: bool = False,
                 window_size: tuple[int, int] = PLAY_SIZE, save_path: str | Path | None = None,
                 physics: Any = None) -> None:
        self.ctl = PlayController(state, seats, save_path=save_path, physics=physics)
        self.shown = self.ctl.scene()
        self.r = SceneRenderer(self.shown, off_screen=off_screen, window_size=window_size)
        self.queue: list[Callable[[], None]] = []
        self.press: tuple[int, int] | None = None
        pl = self.r.plotter
        keys = {"Right": lambda: self.menu(1), "Down": lambda: self.menu(1), "n": lambda: self.menu(1),
                "Left": lambda: self.menu(-1), "Up": lambda: self.menu(-1), "p": lambda: self.menu(-1),
                "b": lambda: self.menu(-1), "Return": self.confirm, "KP_Enter": self.confirm,
                "space": self.confirm, "Escape": lambda: self.act(self.ctl.deselect),
                "u": lambda: self.act(self.ctl.undo), "h": lambda: self.act(self.ctl.hint),
                "k": lambda: self.act(self.ctl.save), "l": lambda: self.act(self.ctl.load),
                "x": lambda: self.act(self.ctl.toggle_whatif)}
        keys.update(camera_keys(self.r))
        quiet_style(pl)
        bind_keys(pl, keys)
        iren = pl.iren
        iren.add_observer("LeftButtonPressEvent", self._on_press)
        iren.add_observer("LeftButtonReleaseEvent", self._on_release)
        iren.add_observer("MouseMoveEvent", self._on_move)
        if not off_screen:
            pl.add_timer_event(max_steps=10**9, duration=TICK_MS, callback=lambda _step: self.tick())

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

    def animate_move(self, before: Any) -> None:
        """Queue the frames of the move just made: pieces travel from where `before` had them."""
        from viewer.motion import tween_frames

        after = self.ctl.scene()
        if before.blocks or before.figures:
            for frame in tween_frames(before, after, MOVE_FRAMES)[:-1]:
                self.queue.append(lambda f=frame: self.r.update(f, render=True))
        self.queue.append(lambda: self.show_scene(after))

    def tick(self) -> None:
        """One timer step: the next animation frame, else one AI move (animated)."""
        if self.queue:
            self.queue.pop(0)()
            return
        before = self.shown
        if self.ctl.ai_step():
            self.animate_move(before)

    def run_queue(self) -> None:
        """Play every queued frame now (tests; the window's timer does it one per tick)."""
        while self.queue:
            self.queue.pop(0)()

    # --- mouse -----------------------------------------------------------------------------------------------
    def _position(self) -> tuple[int, int]:
        return tuple(self.r.plotter.iren.interactor.GetEventPosition())  # type: ignore[return-value]

    def _on_press(self, *_: Any) -> None:
        self.press = self._position()

    def _on_release(self, *_: Any) -> None:
        if self.press is None:
            return
        (x0, y0), (x, y) = self.press, self._position()
        self.press = None
        if abs(x - x0) + abs(y - y0) <= CLICK_SLOP:  # not a camera drag
            self.click(x, y)

    def _on_move(self, *_: Any) -> None:
        if self.press is not None or self.queue:
            return
        hit = self.r.pick(*self._position()) if self.ctl.state.construction else None
        block = self.shown.blocks[hit[1]].id if hit is not None and hit[0] == "blocks" else None
        if self.ctl.hover_block(block):
            self.show_scene()

    def click(self, x: int, y: int) -> None:
        """A click at display pixel (x, y): whatever is drawn there goes to the controller."""
        if self.queue:
            return
        hit = self.r.pick(x, y)
        if hit is None:
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

    # --- what-if ---------------------------------------------------------------------------------------------
    def whatif(self, block_id: str) -> None:
        """Take the block away, then play the PyBullet trajectory of what remains; x or Esc restores."""
        from physics.units import UNIT_M

        frames = self.ctl.whatif_remove(block_id)
        self.show_scene()  # the construction without the block, before anything moves
        for frame in frames:
            self.queue.append(lambda f=frame: self._pose(f["poses"], UNIT_M))

    def _pose(self, poses: dict[str, Any], unit_m: float) -> None:
        set_block_poses(self.r, poses, unit_m)
        self.r.render()

    def show(self) -> None:
        self.r.plotter.show(title=f"tower-sim: {self.ctl.state.name}")


def play_window(state: Any, seats: list[str], save_path: str | Path | None = None, physics: Any = None) -> int:
    """The interactive window (needs a display); keys and mouse as in the window's help line."""
    from viewer.render import require_display

    require_display("the play window", "tower play GAME --text plays in the terminal")
    PlayWindow(state, seats, save_path=save_path, physics=physics).show()
    return 0

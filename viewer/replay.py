"""Game records as animations (offscreen GIF) or in a window with a slider and keys.

Each frame is the scene of the game after k moves, replayed through the game API (the record's moves are
applied by the game, which checks them). Card games are shown as player 0 sees them: a replay reveals no hand
but that one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

GIF_SIZE = (640, 480)
MAX_GIF_FRAMES = 240  # longer games are sampled evenly; a GIF of thousands of frames helps nobody
FRAME_S = 0.5


def states(record: dict[str, Any] | str | Path) -> list[Any]:
    """The state after each prefix of the record's moves (index 0 = the start)."""
    from tower.games import load_record, new_game
    from tower.games.reader import read_json

    doc = read_json(record) if isinstance(record, (str, Path)) else record
    final = load_record(doc)  # validates every move (BadInput names the JSON path)
    state = new_game(final.name, final.num_players, final.seed, final.options)
    out = [state.clone()]
    for move in final.history:
        state.apply(move)
        out.append(state.clone())
    return out


def frame_scene(state: Any, k: int, total: int, player: int = 0):
    from viewer.view import state_scene

    scene = state_scene(state, player=player, title=f"{state.name}: move {k}/{total}")
    if k and state.history:
        scene.lines = [f"last: {state.history[-1]}"[:80]] + scene.lines
    return scene


def render_gif(record: dict[str, Any] | str | Path, path: str | Path, size: tuple[int, int] = GIF_SIZE) -> int:
    """Write the game as an animated GIF (atomically); returns the number of frames."""
    import imageio.v3 as iio

    from tower.games.fileio import atomic_write_bytes
    from viewer.renderer import SceneRenderer

    seq = states(record)
    total = len(seq) - 1
    picks = list(range(len(seq)))
    if len(picks) > MAX_GIF_FRAMES:
        step = len(picks) / MAX_GIF_FRAMES
        picks = sorted({int(i * step) for i in range(MAX_GIF_FRAMES)} | {len(seq) - 1})
    r = SceneRenderer(window_size=size)
    frames = []
    try:
        for n, k in enumerate(picks):
            r.update(frame_scene(seq[k], k, total), reset_camera=(n == 0))
            frames.append(r.image())
    finally:
        r.close()
    durations = [FRAME_S * 1000] * (len(frames) - 1) + [FRAME_S * 4000]  # hold the final position
    data = iio.imwrite("<bytes>", frames, extension=".gif", duration=durations, loop=0)
    atomic_write_bytes(path, data)
    return len(frames)


class ReplayWindow:
    """A window with a move slider; keys Left/Right step, Home/End jump, 1-4 camera presets, r reset."""

    def __init__(self, record: dict[str, Any] | str | Path, *, off_screen: bool = False) -> None:
        from viewer.play_window import camera_keys
        from viewer.renderer import SceneRenderer

        self.seq = states(record)
        self.total = len(self.seq) - 1
        self.k = 0
        self.r = SceneRenderer(frame_scene(self.seq[0], 0, self.total), off_screen=off_screen, interactive=True)
        self.slider = self._add_slider()
        keys = {"Right": lambda: self.step(1), "Left": lambda: self.step(-1), "Home": lambda: self.step(-self.total),
                "End": lambda: self.step(self.total)}
        keys.update(camera_keys(self.r))
        self.r.bind_keys(keys)

    def _add_slider(self):
        """A move slider along the bottom of the window (VTK's slider widget); dragging it calls `show`."""
        from vtkmodules.vtkInteractionWidgets import vtkSliderRepresentation2D, vtkSliderWidget

        rep = vtkSliderRepresentation2D()
        rep.SetMinimumValue(0)
        rep.SetMaximumValue(max(self.total, 1))
        rep.SetValue(0)
        rep.SetTitleText("move")
        rep.SetLabelFormat("%.0f")
        for coord, (x, y) in ((rep.GetPoint1Coordinate(), (0.25, 0.06)), (rep.GetPoint2Coordinate(), (0.95, 0.06))):
            coord.SetCoordinateSystemToNormalizedDisplay()
            coord.SetValue(x, y)
        rep.SetSliderLength(0.02)
        rep.SetTubeWidth(0.004)
        rep.SetTitleHeight(0.025)
        rep.SetLabelHeight(0.025)
        for prop in (rep.GetTubeProperty(), rep.GetCapProperty()):
            prop.SetColor(0.35, 0.35, 0.4)
        rep.GetSliderProperty().SetColor(0.2, 0.45, 0.8)
        for text in (rep.GetTitleProperty(), rep.GetLabelProperty()):
            text.SetColor(0.1, 0.1, 0.12)
            text.ShadowOff()
        widget = vtkSliderWidget()
        widget.SetInteractor(self.r.iren)
        widget.SetRepresentation(rep)
        widget.SetAnimationModeToAnimate()
        widget.AddObserver("InteractionEvent", self._on_slider)
        widget.EnabledOn()
        return widget

    def _on_slider(self, widget: Any, _event: str) -> None:
        self.show(widget.GetRepresentation().GetValue())

    def show(self, k: float) -> None:
        """Show the position after `k` moves (the slider's callback)."""
        k = max(0, min(self.total, int(round(k))))
        if k != self.k or self.r.scene is None:
            self.k = k
            self.r.update(frame_scene(self.seq[k], k, self.total), render=True)

    def step(self, d: int) -> None:
        k = max(0, min(self.total, self.k + d))
        self.slider.GetRepresentation().SetValue(k)  # before the render, so the slider is drawn where it now is
        self.show(k)


def replay_window(record: dict[str, Any] | str | Path) -> int:
    """The replay window (needs a display)."""
    from viewer.renderer import require_display

    require_display("the replay window", "tower replay RECORD --gif out.gif or --text")
    ReplayWindow(record).r.show("tower-sim replay")
    return 0

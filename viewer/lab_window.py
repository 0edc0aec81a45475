"""The lab in the desktop window (`tower view FILE --edit`): keys and mouse -> the lab controller -> its scene.

The controller (`tower.app.lab.controller.LabController`, handed in by the application: the viewer imports no
application code) holds the build, the history and the rule set and judges every edit; this window only maps
input to it and draws `ctl.scene(ghost)`, as the browser's lab page does. A test drives it offscreen by sending
key, mouse and timer events to the interactor (tests/test_lab_window.py).

Keys: a add blocks, s select, k next kind, o next orientation, c next top colour, t turn the selected block,
m move it (click where), Delete/x delete it, u undo, y redo, d drop it (PyBullet), f contact forces,
v removal map, w save, Esc clear, 1-4 camera presets, r fit the camera, q quit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from viewer.play_window import CLICK_SLOP, PLAY_SIZE, TICK_MS, ClickOrDrag, camera_keys
from viewer.poses import set_block_poses
from viewer.renderer import SceneRenderer
from viewer.scene import SceneGhost

#: Columns round the build offered to the pointer; the lab's table: |x|, |y| <= TABLE_HALF (the controller's).
NEAR = 12
TABLE_HALF = 100


#: the physics overlays that take a while, in the words of the line saying the window is working them out
OVERLAY_WORDS = {"forces": "the contact forces", "removal": "the removal map"}


class LabWindow(ClickOrDrag):
    """A renderer, the lab controller, the tool state (what a click does) and the drop animation's queue."""

    def __init__(self, ctl: Any, *, off_screen: bool = False, window_size: tuple[int, int] = PLAY_SIZE,
                 save_path: str | Path | None = None) -> None:
        self.ctl = ctl
        self.save_path = Path(save_path) if save_path else None
        self.tool = "add"  # "add", "select" or "move" (the selected block follows the pointer)
        self.kind = "cube"
        self.size = ctl.sizes(self.kind)[0]
        self.top = "red"
        self.ghost: Any = None
        self.aimed: dict[str, Any] | None = None  # the edit a click makes now
        self.message = ""
        self.queue: list[Callable[[], None]] = []
        self.timer: int | None = None
        self.press: tuple[int, int] | None = None
        self._aiming: tuple[Any, Any] | None = None  # (what it was made for, the Aim over the block in hand)
        self.refused: dict[str, Any] = {}  # where the rules refuse the block in hand (`ctl.refusals`)
        self.refusal = ""  # the rule that refuses the ghost's place now, in words ("" where it may go)
        self.dragging: dict[str, Any] | None = None  # a block pressed on with the select tool: a drag moves it
        self.show_overlays: list[str] = []  # "forces", "removal": the physics overlays on show
        self.shown = self.scene()
        self.r = SceneRenderer(self.shown, off_screen=off_screen, window_size=window_size, interactive=True)
        keys: dict[str, Callable[[], Any]] = {
            "a": lambda: self.set_tool("add"), "s": lambda: self.set_tool("select"), "k": self.next_kind,
            "o": self.next_size, "c": self.next_top, "t": lambda: self.selected_edit({"op": "turn", "axis": "z"}),
            "m": self.start_move, "Delete": lambda: self.selected_edit({"op": "delete"}),
            "x": lambda: self.selected_edit({"op": "delete"}), "u": lambda: self.run(self.ctl.undo),
            "y": lambda: self.run(self.ctl.redo), "d": self.drop, "w": self.save, "Escape": self.clear,
            "f": lambda: self.toggle("forces"), "v": lambda: self.toggle("removal")}
        keys.update(camera_keys(self.r))
        keys["r"] = self.fit
        self.r.bind_keys(keys)
        self.fitted: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self.fit()
        self.r.on_left_button(self._on_press, self._on_release)
        self.r.iren.AddObserver("MouseMoveEvent", self._on_move)
        self.r.iren.AddObserver("LeaveEvent", self._on_leave)
        self.r.iren.AddObserver("TimerEvent", self._on_timer)

    # --- what is shown ---------------------------------------------------------------------------------------------
    def scene(self) -> Any:
        # the block being moved leaves its place while its ghost follows the pointer
        hidden = self.ctl.selected if self.tool == "move" else None
        try:
            scene = self.ctl.scene(ghost=self.ghost, title="tower lab", show=self.show_overlays, hidden=hidden,
                                   refused=self.refusal)
        except ValueError as exc:  # no physics for the overlays: the build is still shown
            self.show_overlays = []
            self.message = f"refused: {exc}"
            scene = self.ctl.scene(ghost=self.ghost, title="tower lab", hidden=hidden, refused=self.refusal)
        tool = {"add": f"add: {self.kind} {'x'.join(map(str, self.size))}, {self.top} on top (k kind, o orientation, "
                       "c colour)",
                "select": "select: click a block, or drag it to move it (t turn, m move, Delete, Esc)",
                "move": f"move {self.ctl.selected}: {'release' if self.dragging else 'click'} where it goes"}[self.tool]
        scene.lines = [tool, f"rules: {self.ctl.rules}; u undo, y redo, d drop it, f forces, v removal map, w save"] \
            + scene.lines
        if not self.ctl.build.blocks:
            scene.lines.insert(0, "an empty table: point at it and click to put a block there (k: another kind)")
        if self.refusal:
            scene.lines.insert(0, f"refused here: {self.refusal}")
        if self.message:
            scene.lines.insert(0, self.message)
        return scene

    def redraw(self) -> None:
        # the forces and the removal map take seconds on a large build, with the window still: say so first
        todo = [OVERLAY_WORDS[k] for k in self.show_overlays if k in OVERLAY_WORDS and not self.ctl.explained(k)]
        if todo and self.ctl.build.blocks and self.ctl.physics is not None and not self.r.closed:
            waiting = [o for o in self.show_overlays if self.ctl.explained(o)]
            shown, self.show_overlays = self.show_overlays, waiting
            try:
                scene = self.scene()
            finally:
                self.show_overlays = shown
            scene.lines.insert(0, f"working out {' and '.join(todo)}...")
            self.r.update(scene, render=True)
        self.shown = self.scene()
        lo, hi = self.work_area()
        f = self.fitted
        grown = f is None or any(a < b for a, b in zip(lo, f[0], strict=True)) or \
            any(a > b for a, b in zip(hi, f[1], strict=True))
        self.r.update(self.shown, render=not grown)
        if grown:
            self.fit()

    def work_area(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The blocks' bounds with a margin, and at least a 10 x 10 x 6 part of the table round the middle (an
        empty table is no unit box to zoom into)."""
        lo, hi = [-4, -4, 0], [6, 6, 6]
        for b in self.ctl.build.blocks:
            for i in range(3):
                lo[i] = min(lo[i], b.origin[i] - 1)
                hi[i] = max(hi[i], b.origin[i] + b.size[i] + 1)
        return tuple(lo), tuple(hi)

    def fit(self) -> None:
        """Camera preset 1 fitted to the work area (the camera fits a scene's bounds, ghosts included: the area
        is lent to it as one ghost, never drawn)."""
        lo, hi = self.work_area()
        self.fitted = (lo, hi)
        real = self.r.scene
        area = SceneGhost("work-area", lo, tuple(h - v for h, v in zip(hi, lo, strict=True)), ("grey",) * 6)
        self.r.scene = replace(real, ghosts=[*real.ghosts, area])
        try:
            self.r.reset_camera()
        finally:
            self.r.scene = real

    def run(self, fn: Callable[[], Any]) -> bool:
        """Run one controller call; a refusal becomes the message (its rule named), never an exception."""
        if self.queue:
            return False
        try:
            words = fn()
        except ValueError as exc:  # IllegalMove and BadInput both: "rule: message" / "at $.x: message"
            self.message = f"refused: {exc}"
            self.redraw()
            return False
        self.message = words if isinstance(words, str) else ""
        self.ghost = None
        self.redraw()
        return True

    # --- tools -----------------------------------------------------------------------------------------------------
    def toggle(self, overlay: str) -> None:
        """Show or hide a physics overlay (contact forces, the removal map), computed once per build."""
        if overlay in self.show_overlays:
            self.show_overlays.remove(overlay)
        else:
            self.show_overlays.append(overlay)
        self.redraw()

    def set_tool(self, tool: str) -> None:
        self.tool = tool
        self.ghost = None
        self.aimed = None
        self.redraw()

    def next_kind(self) -> None:
        kinds = self.ctl.kinds()
        self.kind = kinds[(kinds.index(self.kind) + 1) % len(kinds)]
        self.size = self.ctl.sizes(self.kind)[0]
        self._fit_top()
        self.set_tool("add")

    def next_size(self) -> None:
        sizes = self.ctl.sizes(self.kind)
        self.size = sizes[(sizes.index(self.size) + 1) % len(sizes)]
        self._fit_top()
        self.redraw()

    def next_top(self) -> None:
        tops = self.ctl.tops(self.size)
        self.top = tops[(tops.index(self.top) + 1) % len(tops)] if self.top in tops else tops[0]
        self.redraw()

    def _fit_top(self) -> None:
        tops = self.ctl.tops(self.size)
        if self.top not in tops:
            self.top = tops[0]

    def start_move(self) -> None:
        if self.ctl.selected:
            self.set_tool("move")

    def selected_edit(self, op: dict[str, Any]) -> None:
        if self.ctl.selected:
            self.run(lambda: self.ctl.edit({**op, "block": self.ctl.selected}))

    def clear(self) -> None:
        self.queue.clear()
        self.ctl.select(None)
        self.message = ""
        self.set_tool("add" if self.tool == "add" else "select")

    def save(self) -> None:
        from tower.climbers.build import save_build

        if self.save_path is None:
            self.message = "no file to save to"
        else:
            save_build(self.ctl.build, self.save_path)
            self.message = f"saved {self.save_path}"
        self.redraw()

    # --- pointing ----------------------------------------------------------------------------------------------------
    def hit(self, x: float, y: float) -> tuple[np.ndarray, np.ndarray, str | None] | None:
        """Where display pixel (x, y) meets a block face (point, face normal, block id) or the table."""
        from vtkmodules.vtkRenderingCore import vtkCellPicker

        picker = vtkCellPicker()
        picker.SetTolerance(0.0005)
        picker.PickFromListOn()
        picker.AddPickList(self.r.actors["blocks"])
        if picker.Pick(x, y, 0, self.r.renderer) and picker.GetCellId() >= 0:
            ids = self.r.meshes["blocks"].cell_array("block_id")
            block = self.shown.blocks[int(ids[picker.GetCellId()])].id
            return np.array(picker.GetPickPosition()), np.round(picker.GetPickNormal()), block
        ren = self.r.renderer
        ends = []
        for depth in (0.0, 1.0):
            ren.SetDisplayPoint(x, y, depth)
            ren.DisplayToWorld()
            w = ren.GetWorldPoint()
            ends.append(np.array(w[:3]) / w[3])
        near, far = ends
        if abs(far[2] - near[2]) < 1e-12:
            return None
        t = near[2] / (near[2] - far[2])
        if not 0 <= t <= 1:
            return None
        return near + t * (far - near), np.array([0.0, 0.0, 1.0]), None

    def placements(self) -> Any:
        """The shared placement controller (`viewer.placement`) for the block in hand: a new block (every
        orientation of its kind, the chosen one first) or the one being moved, at every corner near the build,
        resting on the highest column under it; made once per build and choice, then only looked up."""
        from viewer.placement import Aim, BlockPlacements, Shape, column_heights
        from viewer.scene import face_names

        moving = self.tool == "move" and self.ctl.selected
        key = (id(self.ctl.build), self.ctl.selected if moving else None, self.kind, self.size, self.top)
        if self._aiming is not None and self._aiming[0] == key:
            return self._aiming[1]
        blocks = self.ctl.build.blocks
        if moving:
            b = self.ctl.block(self.ctl.selected)
            shapes = [Shape(b.size, face_names(b)[4], face_names(b))]
            block = b.id
        else:
            sizes = [self.size] + [s for s in self.ctl.sizes(self.kind) if s != self.size]
            shapes = [Shape(s, self.top, face_names(self.ctl.ghost(self.kind, s, self.top, (0, 0, 0))))
                      for s in sizes]
            block = "new"
        heights = column_heights(blocks, block if moving else None)
        figures = [(f.cell[0], f.cell[1]) for f in self.ctl.build.figures]
        lo = [min([0] + [b.origin[i] for b in blocks]) - NEAR for i in (0, 1)]
        hi = [max([2] + [b.origin[i] + b.size[i] for b in blocks]) + NEAR for i in (0, 1)]
        area = tuple(max(-TABLE_HALF, min(TABLE_HALF, v)) for v in (lo[0], lo[1], hi[0], hi[1]))
        aim = Aim(BlockPlacements.resting(block, shapes, heights, area, -TABLE_HALF, 2 * TABLE_HALF, figures))
        self._aiming = (key, aim)
        # where the rules would refuse it, worked out once with the placements: the ghost says so before a click
        # (the placements that touch something one by one, the others once per shape: `BlockPlacements.refusal`)
        self.refused = self.ctl.refusals(block, shapes, area, self.kind)
        return aim

    def aim(self, x: float, y: float) -> None:
        """The pointer is at display pixel (x, y): the ghost follows (no judge is asked), in the refusal colour
        where the rules would refuse it."""
        hit = self.hit(x, y)
        self.ghost, self.aimed, self.refusal = None, None, ""
        if hit is not None:
            point, normal, block = hit
            if self.tool in ("add", "move"):
                aim = self.placements()
                aim.point(point, normal)
                cur = aim.current
                if cur is not None:
                    shape = aim.ps.shapes[cur.shape]
                    self.refusal = aim.ps.refusal(cur, **self.refused) or ""
                    if aim.ps.block == "new":
                        self.ghost = self.ctl.ghost(self.kind, shape.size, self.top, cur.origin)
                        self.aimed = {"op": "add", "kind": self.kind, "origin": list(cur.origin),
                                      "size": list(shape.size), "top": self.top}
                    else:
                        self.ghost = replace(self.ctl.block(aim.ps.block), origin=cur.origin)
                        self.aimed = {"op": "move", "block": aim.ps.block, "origin": list(cur.origin)}
            elif self.tool == "select" and block is not None:
                self.aimed = {"select": block}
        self.redraw()

    def click(self, x: float, y: float) -> None:
        """A click at display pixel (x, y): aim there, then do what the tool does."""
        if self.queue:
            self.queue.clear()
            self.redraw()
            return
        self.aim(x, y)
        aimed = self.aimed
        if aimed is None:
            if self.tool == "select":
                self.ctl.select(None)
                self.redraw()
            return
        if "select" in aimed:
            self.ctl.select(aimed["select"])
            self.redraw()
            return
        if self.run(lambda: self.ctl.edit(aimed)) and aimed["op"] == "move":
            self.tool = "select"
            self.redraw()


    # --- dragging a block (the select tool): press on it, drag, release where it goes --------------------------------
    def _on_press(self, *_: Any) -> bool:
        super()._on_press()
        if self.tool != "select" or self.queue:
            return False
        hit = self.hit(*self.press)  # type: ignore[misc]
        if hit is None or hit[2] is None:
            return False
        self.dragging = {"block": hit[2], "started": False}
        return True  # the window keeps the press: the camera does not orbit while a block is dragged

    def _on_release(self, *_: Any) -> None:
        drag, self.dragging = self.dragging, None
        if drag is None or not drag["started"]:
            super()._on_release()
            return
        self.press = None
        self.aim(*self.r.event_position())
        aimed = self.aimed
        self.tool = "select"
        if aimed is not None and aimed.get("op") == "move":
            self.run(lambda: self.ctl.edit(aimed))
        else:
            self.message = "nothing can go there: the block stays where it was"
            self.ghost = None
            self.redraw()

    def _on_move(self, *_: Any) -> None:
        drag = self.dragging
        if drag is not None and self.press is not None:
            x, y = self.r.event_position()
            if not drag["started"] and abs(x - self.press[0]) + abs(y - self.press[1]) > CLICK_SLOP:
                drag["started"] = True
                self.ctl.select(drag["block"])
                self.tool = "move"
            if drag["started"]:
                self.aim(x, y)
            return
        if self.press is None and not self.queue and self.tool in ("add", "move"):
            self.aim(*self.r.event_position())

    def _on_leave(self, *_: Any) -> None:
        if self.ghost is not None:
            self.ghost, self.aimed = None, None
            self.redraw()

    # --- drop it ----------------------------------------------------------------------------------------------------
    def drop(self) -> None:
        """PyBullet's run of the build, played frame by frame on the window's timer; any click or Esc ends it."""
        try:
            result = self.ctl.drop()
        except ValueError as exc:
            self.message = f"refused: {exc}"
            self.redraw()
            return
        self.ghost = None
        self.message = result["words"]
        scene = self.ctl.drop_scene(result)  # the trajectory as the scene's animation, as the page plays it
        self.shown = scene
        self.r.update(scene, render=True)
        for frame in scene.frames:
            self.queue.append(lambda f=frame: self._pose(f.poses))
        self.schedule()

    def _pose(self, poses: dict[str, Any]) -> None:
        set_block_poses(self.r, poses, 1.0)  # the drop's poses are in grid units already
        self.r.render()

    def schedule(self) -> None:
        if self.queue and self.timer is None and not self.r.closed:
            self.timer = self.r.iren.CreateRepeatingTimer(TICK_MS)

    def _on_timer(self, *_: Any) -> None:
        if self.queue:
            self.queue.pop(0)()
        elif self.timer is not None:
            self.r.iren.DestroyTimer(self.timer)
            self.timer = None

    def run_queue(self) -> None:
        """Play every queued frame now (tests; the window's timer does it one per tick)."""
        while self.queue:
            self.queue.pop(0)()

    def show(self) -> None:
        self.r.show(title="tower-sim: tower lab")


def lab_window(ctl: Any, save_path: str | Path | None = None) -> int:
    """The lab in an interactive window (needs a display)."""
    from viewer.renderer import require_display

    require_display("the lab window", "tower lab FILE opens the lab in the browser")
    LabWindow(ctl, save_path=save_path).show()
    return 0

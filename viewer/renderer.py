"""Scene -> VTK: a render window with one actor per layer (`viewer.layers`), updated in place.

The actors are created once; `SceneRenderer.update(scene)` only replaces the data of those meshes, so a new frame
costs one render, not a rebuild of the pipeline. VTK is used directly (`viewer.mesh`), not through PyVista's
plotting layer, whose import (matplotlib with it) cost more than a second before every picture.
"""

from __future__ import annotations

import os

# Without a display VTK first tries X11 (slow, with a warning) before falling back to EGL; ask for EGL directly.
if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")

from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from viewer import mesh as vm  # noqa: E402
from viewer.camera import fit_view  # noqa: E402
from viewer.layers import _LAYERS, EDGE_RGB, PICKABLE, layer_meshes  # noqa: E402
from viewer.mesh import Mesh  # noqa: E402
from viewer.pictures import save_png  # noqa: E402
from viewer.scene import BACKGROUND_RGB, Scene  # noqa: E402

WINDOW_SIZE = (960, 720)
LABEL_FONT = 13

#: Off-screen only: windows are not opened (tests set it; `require_display` and the windows' `show` read it).
OFF_SCREEN = os.environ.get("TOWER_OFF_SCREEN") == "1"

#: Which scene fields each group of layers is drawn from: `update` redraws a group only if these changed.
_GROUPS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("table", "shadow"): ("table", "shadow", "blocks"),
    ("blocks", "selected", "movable", "problems"): ("blocks", "markers"),
    ("hover",): ("blocks", "hover"),
    ("targets",): ("markers",),
    ("figures",): ("figures",),
    ("ghost_figs",): ("ghost_figures",),
    ("stones",): ("stones",),
    ("ladders",): ("ladders",),
    ("ghosts", "ghost_sel"): ("ghosts",),
    ("arrows",): ("arrows",),
}


_STYLE: dict[str, dict] = {
    # the table and its shadow are unlit: a flat, neutral ground whose colour is exactly TABLE_RGB
    "table": {"lighting": False},
    "shadow": {"lighting": False},
    "blocks": {"show_edges": True, "edge_color": EDGE_RGB, "line_width": 1.6, "ambient": 0.5, "diffuse": 0.55,
               "specular": 0.12, "specular_power": 20},
    "figures": {"ambient": 0.25, "diffuse": 0.75, "specular": 0.45, "specular_power": 30, "smooth_shading": True},
    "stones": {"ambient": 0.25, "diffuse": 0.75, "specular": 0.3, "specular_power": 20},
    "ladders": {"ambient": 0.3, "diffuse": 0.7},
    "ghosts": {"opacity": 0.18, "show_edges": True, "edge_color": (255, 255, 255), "line_width": 1.0},
    # the chosen placement is drawn solid (a translucent one vanished behind the faint others), white-edged
    "ghost_sel": {"opacity": 1.0, "show_edges": True, "edge_color": (255, 255, 255), "line_width": 3.5,
                  "ambient": 0.5, "diffuse": 0.55},
    "ghost_figs": {"opacity": 0.75, "ambient": 0.6, "diffuse": 0.5},
    "hover": {"line_width": 3.0, "lighting": False},
    "problems": {"line_width": 4.0, "lighting": False},
    "movable": {"line_width": 2.0, "lighting": False},
    "selected": {"line_width": 4.0, "lighting": False},
    "targets": {"lighting": False},
    "arrows": {"ambient": 0.45, "diffuse": 0.6, "specular": 0.2, "specular_power": 20},
}
#: Legend rows (viewer.overlays) drawn at the bottom left: a colour swatch and its text each, this far apart
#: (a fraction of the window's height).
LEGEND_ROWS, LEGEND_STEP = 8, 0.036
#: Layers drawn over everything else (their own depth buffer): the physics overlays' arrows.
OVERLAY_LAYERS = ("arrows",)


#: The property colour of every layer. The faces take their colours from the cells; what is left of the property
#: colour is the tint of the specular highlights, a pale blue the pictures were tuned with.
HIGHLIGHT_RGB = (173, 216, 230)


class SceneRenderer:
    """A VTK render window with one actor per layer; `update(scene)` swaps the meshes' data in place.

    Camera presets: 1 isometric (front right), 2 front, 3 side, 4 top; `reset_camera()` = preset 1. Windows
    (`interactive=True`) also get an interactor: `bind_keys`, mouse observers, timers, `show`, `close`.
    """

    def __init__(self, scene: Scene | None = None, *, off_screen: bool = True,
                 window_size: tuple[int, int] = WINDOW_SIZE, interactive: bool = False) -> None:
        import vtkmodules.vtkInteractionStyle  # noqa: F401  (the interactor styles' factory overrides)
        import vtkmodules.vtkRenderingFreeType  # noqa: F401  (text)
        import vtkmodules.vtkRenderingOpenGL2  # noqa: F401  (the OpenGL implementations of the classes above)
        from vtkmodules.vtkRenderingCore import vtkRenderer, vtkRenderWindow

        self.ren_win = vtkRenderWindow()
        self.ren_win.SetSize(*window_size)
        self.ren_win.SetOffScreenRendering(bool(off_screen))
        # MSAA multiplies the cost of every frame on a software renderer (llvmpipe): 8x MSAA made frames
        # three times slower here, so edges are kept crisp by the dark outlines and FXAA is not used either.
        self.ren_win.SetMultiSamples(0)
        self.renderer = vtkRenderer()
        # a plain background: the gradient cost about 10 ms of CPU per frame on llvmpipe
        self.renderer.SetBackground(*[c / 255 for c in BACKGROUND_RGB])
        self.ren_win.AddRenderer(self.renderer)
        # the physics arrows (forces, pushes) are drawn in a layer of their own over the blocks, sharing the
        # camera: a force network inside a tower stays visible through the (translucent) blocks around it
        self.ren_win.SetNumberOfLayers(2)
        self.overlay = vtkRenderer()
        self.overlay.SetLayer(1)
        self.overlay.InteractiveOff()
        self.overlay.SetActiveCamera(self.renderer.GetActiveCamera())
        self.ren_win.AddRenderer(self.overlay)
        self._setup_lights()
        self.iren = None
        self.closed = False
        if interactive:
            self._make_interactor()
        self.meshes: dict[str, Mesh] = {}
        self.actors: dict[str, object] = {}
        self._keys: dict[tuple[str, ...], tuple] = {}  # what each layer group was last drawn from
        self._posed = False  # set_block_poses moved points: the next update redraws everything
        self.scene: Scene | None = None
        for name in _LAYERS:
            self._add_layer(name)
        # overlay fonts shrink with a small window, so the status text and the menu do not run into each other
        width = window_size[0]
        self.text = self._add_text(size=max(10, round(15 * min(1.0, width / 1100))))
        # the menu and log of the play window, top right
        self.menu_text = self._add_text(x=0.985, right=True, size=max(9, round(13 * min(1.0, width / 1280))))
        self.labels, self.label_mesh = self._add_labels()
        self.legend = [self._add_legend_row(k, size=max(10, round(14 * min(1.0, width / 1100))))
                       for k in range(LEGEND_ROWS)]
        self.preset = 1
        #: (x, y) of a horizontal direction preset 1 looks from instead of the front right (`turn_to`)
        self.heading: tuple[float, float] | None = None
        if scene is not None:
            self.update(scene, reset_camera=True)

    @property
    def window_size(self) -> tuple[int, int]:
        w, h = self.ren_win.GetSize()
        return int(w), int(h)

    @property
    def camera(self):
        return self.renderer.GetActiveCamera()

    # layers ----------------------------------------------------------------------------------------------
    def _add_layer(self, name: str) -> None:
        from vtkmodules.vtkFiltersCore import vtkPolyDataNormals
        from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

        mesh = Mesh()
        style = _STYLE[name]
        mapper = vtkPolyDataMapper()
        if style.get("smooth_shading"):
            # point normals averaged over the faces around each point: the pawns look round
            normals = vtkPolyDataNormals()
            normals.ComputeCellNormalsOff()
            normals.SplittingOff()
            normals.SetInputData(mesh)
            mapper.SetInputConnection(normals.GetOutputPort())
        else:
            mapper.SetInputData(mesh)
        # colours come straight from the cell array "rgb" (uint8), not through a lookup table
        mapper.SetScalarModeToUseCellFieldData()
        mapper.SelectColorArray("rgb")
        mapper.SetColorModeToDirectScalars()
        mapper.ScalarVisibilityOn()
        mapper.InterpolateScalarsBeforeMappingOn()
        # no coincident-topology offset for the outlines: they sit just outside the faces (GAP), so the plain
        # depth test hides their back edges (an offset made those poke through the blocks)
        mapper.SetResolveCoincidentTopologyToOff()
        actor = vtkActor()
        actor.SetMapper(mapper)
        prop = actor.GetProperty()
        prop.SetColor(*[c / 255 for c in HIGHLIGHT_RGB])
        prop.SetPointSize(5.0)
        prop.SetSpecularPower(style.get("specular_power", 100.0))
        prop.SetAmbient(style.get("ambient", 0.0))
        prop.SetDiffuse(style.get("diffuse", 1.0))
        prop.SetSpecular(style.get("specular", 0.0))
        prop.SetOpacity(style.get("opacity", 1.0))
        prop.SetLineWidth(style.get("line_width", 1.0))
        prop.SetLighting(style.get("lighting", True))
        if style.get("smooth_shading"):
            prop.SetInterpolationToPhong()
        else:
            prop.SetInterpolationToFlat()
        if "edge_color" in style:
            prop.EdgeVisibilityOn()
            prop.SetEdgeColor(*[c / 255 for c in style["edge_color"]])
        actor.SetVisibility(False)
        (self.overlay if name in OVERLAY_LAYERS else self.renderer).AddActor(actor)
        self.meshes[name] = mesh
        self.actors[name] = actor

    def _setup_lights(self) -> None:
        from vtkmodules.vtkRenderingCore import vtkLight

        self.renderer.AutomaticLightCreationOff()
        self.overlay.AutomaticLightCreationOff()
        # key light high front-left, fill from the right, a weak back light: faces of a block differ in brightness
        # so the box shape reads even where two faces share a colour
        # (camera coordinates: x right, y up, z towards the viewer)
        for pos, intensity in (((-1.0, 1.8, 2.2), 0.7), ((1.8, 0.0, 1.6), 0.45), ((0.0, -0.5, 1.0), 0.15)):
            # camera lights stay fixed relative to the view, so every preset is lit alike
            light = vtkLight()
            light.SetLightTypeToCameraLight()
            light.SetPosition(*pos)
            light.SetFocalPoint(0, 0, 0)
            light.SetIntensity(intensity)
            light.SetPositional(False)
            self.renderer.AddLight(light)
            self.overlay.AddLight(light)

    def _add_text(self, x: float = 0.015, right: bool = False, size: int = 15):
        from vtkmodules.vtkRenderingCore import vtkTextActor

        actor = vtkTextActor()
        actor.SetInput(" ")
        prop = actor.GetTextProperty()
        prop.SetFontSize(size)
        if right:  # anchored at its top right corner, the lines themselves still left-aligned
            prop.SetJustificationToRight()
        prop.SetColor(0.1, 0.1, 0.12)
        prop.SetBackgroundColor(1.0, 1.0, 1.0)
        prop.SetBackgroundOpacity(0.8)
        prop.SetFrame(True)
        prop.SetFrameColor(0.6, 0.6, 0.65)
        prop.SetVerticalJustificationToTop()
        prop.SetFontFamilyToCourier()  # fixed width keeps the overlay's columns aligned
        actor.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
        actor.GetPositionCoordinate().SetValue(x, 0.98)
        self.renderer.AddViewProp(actor)
        return actor

    def _add_legend_row(self, row: int, size: int) -> tuple[Any, Any]:
        """A swatch (a blank text with a coloured background) and its text, `row` lines above the bottom."""
        from vtkmodules.vtkRenderingCore import vtkTextActor

        out = []
        for x, frame in ((0.015, True), (0.045, False)):
            actor = vtkTextActor()
            actor.SetInput(" ")
            prop = actor.GetTextProperty()
            prop.SetFontSize(size)
            prop.SetFontFamilyToCourier()
            prop.SetColor(0.1, 0.1, 0.12)
            prop.SetBackgroundColor(1.0, 1.0, 1.0)
            prop.SetBackgroundOpacity(0.85)
            prop.SetFrame(frame)
            prop.SetFrameColor(0.3, 0.3, 0.32)
            actor.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
            actor.GetPositionCoordinate().SetValue(x, 0.015 + LEGEND_STEP * row)
            actor.SetVisibility(False)
            self.renderer.AddViewProp(actor)
            out.append(actor)
        return out[0], out[1]

    def _set_legend(self, scene: Scene) -> None:
        from viewer.scene import ALL_RGB

        entries = list(scene.legend)[:LEGEND_ROWS]
        for k, (swatch, text) in enumerate(self.legend):
            row = len(entries) - 1 - k  # the first entry on top
            if row < 0:
                swatch.SetVisibility(False)
                text.SetVisibility(False)
                continue
            e = entries[row]
            swatch.SetInput("   ")
            swatch.GetTextProperty().SetBackgroundColor(*[c / 255 for c in ALL_RGB.get(e.colour, (128, 128, 128))])
            swatch.GetTextProperty().SetBackgroundOpacity(1.0)
            text.SetInput(e.text)
            swatch.SetVisibility(True)
            text.SetVisibility(True)

    def _add_labels(self):
        """One 2D actor drawing every scene label (a string point array), facing the viewer, never hidden."""
        from vtkmodules.vtkRenderingCore import vtkActor2D
        from vtkmodules.vtkRenderingLabel import vtkLabeledDataMapper

        mesh = Mesh()
        mapper = vtkLabeledDataMapper()
        mapper.SetInputData(mesh)
        mapper.SetLabelModeToLabelFieldData()
        mapper.SetFieldDataName("label")
        prop = mapper.GetLabelTextProperty()
        prop.SetFontSize(LABEL_FONT)
        prop.SetBold(True)
        prop.SetItalic(False)
        prop.SetShadow(False)
        prop.SetColor(0.08, 0.08, 0.1)
        prop.SetBackgroundColor(1.0, 1.0, 1.0)
        prop.SetBackgroundOpacity(0.85)
        prop.SetJustificationToCentered()
        prop.SetVerticalJustificationToCentered()
        actor = vtkActor2D()
        actor.SetMapper(mapper)
        actor.SetVisibility(False)
        self.renderer.AddViewProp(actor)
        return actor, mesh

    def _set_labels(self, scene: Scene) -> None:
        if scene.labels:
            self.label_mesh.shallow_copy(vm.labelled_points(np.array([lab.position for lab in scene.labels],
                                                                     dtype=float), [lab.text for lab in scene.labels]))
        else:
            self.label_mesh.shallow_copy(Mesh())
        self.labels.SetVisibility(bool(scene.labels))

    def update(self, scene: Scene, *, reset_camera: bool = False, render: bool = False) -> None:
        """Show `scene`: the layer meshes get the new data in place (no actors added or removed)."""
        want: set[str] = set()
        for layers, fields in _GROUPS.items():
            key = tuple(_frozen(getattr(scene, f)) for f in fields)
            if self._keys.get(layers) != key or self._posed:
                self._keys[layers] = key
                want.update(layers)
        self._posed = False
        new = layer_meshes(scene, want)
        for name in new:
            mesh = self.meshes[name]
            data = new[name]
            mesh.shallow_copy(data if data.n_points else Mesh())
            self.actors[name].SetVisibility(bool(data.n_points))
        if self.scene is None or _frozen(scene.labels) != _frozen(self.scene.labels):
            self._set_labels(scene)
        self.actors["blocks"].GetProperty().SetOpacity(scene.block_opacity)
        self._set_legend(scene)
        lines = ([scene.title] if scene.title else []) + list(scene.lines)
        self.text.SetInput("\n".join(lines) if lines else " ")
        self.text.SetVisibility(bool(lines))
        # right-justification would also right-align the lines: pad them to one width instead
        width = max((len(m) for m in scene.menu), default=0)
        self.menu_text.SetInput("\n".join(m.ljust(width) for m in scene.menu) if scene.menu else " ")
        self.menu_text.SetVisibility(bool(scene.menu))
        first = self.scene is None
        self.scene = scene
        if reset_camera or first:
            self.camera_preset(self.preset, render=False)
        if render:
            self.render()

    def render(self) -> None:
        if not self.closed:
            self.ren_win.Render()

    # camera ----------------------------------------------------------------------------------------------
    def camera_preset(self, number: int, render: bool = True) -> None:
        """1 isometric front-right, 2 front, 3 right side, 4 top; anything else = 1.

        The camera looks from the preset's direction and stands as close as it can while every block, figure,
        ladder and ghost stays inside the window, below the overlay text and left of the menu (`fit_view`).
        """
        scene = self.scene
        b = scene.bounds() if scene else (0, 1, 0, 1, 0, 1)
        corners = np.array([[x, y, z] for x in b[:2] for y in b[2:4] for z in b[4:]], dtype=float)
        directions = {1: (0.75, -1.0, 0.72), 2: (0.0, -1.0, 0.3), 3: (1.0, 0.0, 0.3), 4: (0.0, -0.001, 1.0)}
        if scene is not None and scene.flat:
            directions[1] = (0.3, -1.0, 1.6)  # a board reads best from above, still with some depth
        self.preset = number if number in directions else 1
        up = (0.0, 1.0, 0.0) if self.preset == 4 else (0.0, 0.0, 1.0)
        if self.preset == 1 and self.heading is not None:
            # turned to face a direction (the figure whose player is to move), at the preset's elevation
            flat = float(np.hypot(*directions[1][:2]))
            hx, hy = self.heading
            directions[1] = (flat * hx, flat * hy, directions[1][2])
        w, h = self.window_size
        position, focal = fit_view(corners, directions[self.preset], up, 30.0, w / h, self._free_rect(w, h))
        cam = self.camera
        cam.SetViewAngle(30.0)
        cam.SetFocalPoint(*focal)
        cam.SetPosition(*position)
        cam.SetViewUp(*up)
        self.renderer.ResetCameraClippingRange()
        if render:
            self.render()

    def _free_rect(self, w: int, h: int) -> tuple[float, float, float, float]:
        """The part of the window (normalised -1..1) not covered by the overlay text (top) or menu (right)."""
        bb = [0.0] * 4
        top = 0.94
        if self.text.GetVisibility():
            self.text.GetBoundingBox(self.renderer, bb)
            top = min(top, 1 - 2 * (bb[3] - bb[2] + 0.02 * h + 16) / h)
        right = 0.95
        if self.menu_text.GetVisibility():
            self.menu_text.GetBoundingBox(self.renderer, bb)
            right = min(right, 1 - 2 * (bb[1] - bb[0] + 0.015 * w + 40) / w)  # labels stick out of points
        rows = sum(1 for swatch, _ in self.legend if swatch.GetVisibility())
        bottom = -0.95 + 2 * LEGEND_STEP * rows  # the legend's rows at the bottom left
        return (-0.95, max(right, -0.2), min(bottom, 0.0), max(top, 0.0))

    def reset_camera(self) -> None:
        """Preset 1 (facing the direction it was turned to, if any)."""
        self.camera_preset(1)

    def turn_to(self, heading: tuple[float, float] | None, render: bool = True) -> None:
        """Preset 1, looking from the horizontal direction `heading` (None: the usual front right)."""
        if heading is not None:
            n = float(np.hypot(*heading))
            heading = (heading[0] / n, heading[1] / n) if n > 1e-9 else None
        self.heading = heading
        self.camera_preset(1, render=render)

    # picking ---------------------------------------------------------------------------------------------
    def pick(self, x: float, y: float) -> tuple[str, int] | None:
        """(layer, index) of what is drawn at display pixel (x, y) (origin bottom left), or None.

        The index is into the scene's list for that layer: blocks -> scene.blocks, ghosts and ghost_sel ->
        scene.ghosts, targets -> scene.markers, figures -> scene.figures, ghost_figs -> scene.ghost_figures.
        """
        from vtkmodules.vtkRenderingCore import vtkCellPicker

        if self.scene is None:
            return None
        picker = vtkCellPicker()
        picker.SetTolerance(0.0005)
        picker.PickFromListOn()
        for name in PICKABLE:
            if self.actors[name].GetVisibility():
                picker.AddPickList(self.actors[name])
        if not picker.Pick(x, y, 0, self.renderer) or picker.GetCellId() < 0:
            return None
        hit = picker.GetActor()
        name = next(n for n in PICKABLE if self.actors[n] is hit)
        mesh = self.meshes[name]
        ids = mesh.cell_array("block_id")
        ids = mesh.cell_array("item_id") if ids is None else ids
        return name, int(ids[picker.GetCellId()])

    def surface_at(self, x: float, y: float) -> tuple[tuple[float, float, float], tuple[float, float, float]] | None:
        """(point, normal) where display pixel (x, y) meets a block face or the table, in grid units; the normal
        is the face's, pointing out of it toward the camera; None where neither is (the sky). Aiming a block
        placement reads it (`viewer.placement`): ghosts, figures and everything else are looked through."""
        from vtkmodules.vtkRenderingCore import vtkCellPicker

        if self.scene is None:
            return None
        picker = vtkCellPicker()
        picker.SetTolerance(0.0005)
        picker.PickFromListOn()
        for name in ("blocks", "table"):
            if self.actors[name].GetVisibility():
                picker.AddPickList(self.actors[name])
        if not picker.Pick(x, y, 0, self.renderer) or picker.GetCellId() < 0:
            return None
        point = np.array(picker.GetPickPosition(), dtype=float)
        if picker.GetActor() is self.actors["table"]:
            return (float(point[0]), float(point[1]), 0.0), (0.0, 0.0, 1.0)
        normal = np.round(np.array(picker.GetPickNormal(), dtype=float))
        if normal @ (np.array(self.camera.GetPosition()) - point) < 0:  # the face seen is the outside
            normal = -normal
        return (float(point[0]), float(point[1]), float(point[2])), tuple(float(v) for v in normal)

    def on_wheel(self, fn: Callable[[int], bool]) -> None:
        """`fn(+1 | -1)` on each wheel step (backward: +1); if it returns True the camera does not zoom."""
        self._wheel = fn

    def _on_wheel(self, style: Any, event: str) -> None:
        step = 1 if event == "MouseWheelBackwardEvent" else -1
        if self._wheel is not None and self._wheel(step):
            return
        (style.OnMouseWheelBackward if step > 0 else style.OnMouseWheelForward)()

    def pick_block(self, x: float, y: float) -> str | None:
        """The id of the block under display pixel (x, y), or None (other things in front count as misses)."""
        hit = self.pick(x, y)
        if hit is None or hit[0] != "blocks":
            return None
        return self.scene.blocks[hit[1]].id  # type: ignore[union-attr]

    def project(self, point: Sequence[float]) -> tuple[float, float]:
        """Display coordinates of a world point (grid units)."""
        ren = self.renderer
        ren.SetWorldPoint(*point, 1.0)
        ren.WorldToDisplay()
        x, y, _ = ren.GetDisplayPoint()
        return x, y

    # output ----------------------------------------------------------------------------------------------
    def image(self) -> np.ndarray:
        """The current frame as an (H, W, 3) uint8 array (renders first)."""
        from vtkmodules.util.numpy_support import vtk_to_numpy
        from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter

        self.render()
        grab = vtkWindowToImageFilter()
        grab.SetInput(self.ren_win)
        grab.SetInputBufferTypeToRGB()
        grab.ShouldRerenderOff()
        grab.ReadFrontBufferOn()
        grab.Update()
        out = grab.GetOutput()
        w, h, _ = out.GetDimensions()
        return vtk_to_numpy(out.GetPointData().GetScalars()).reshape(h, w, 3)[::-1].copy()

    def screenshot(self, path: str | Path) -> None:
        """Write the current frame as a PNG, atomically."""
        save_png(self.image(), path)

    # windows: interactor, keys, timers ------------------------------------------------------------------
    def _make_interactor(self) -> None:
        from vtkmodules.vtkInteractionStyle import vtkInteractorStyleTrackballCamera
        from vtkmodules.vtkRenderingCore import vtkRenderWindowInteractor

        self.iren = vtkRenderWindowInteractor()
        self.iren.SetRenderWindow(self.ren_win)
        style = vtkInteractorStyleTrackballCamera()  # left drag orbits, right drag and the wheel zoom
        # VTK's own one-letter keys (3 stereo, w wireframe, e/q exit, r its own reset, p pick, ...) are switched
        # off: with an observer for CharEvent on the style, VTK calls the observer instead of its own OnChar
        style.AddObserver("CharEvent", lambda *_: None)
        # the style takes the mouse while a button is down (it orbits the camera), so the interactor's own
        # observers never see the release: press and release are observed on the style, which then orbits too
        self._left: tuple[list[Callable[[], Any]], list[Callable[[], Any]]] = ([], [])
        style.AddObserver("LeftButtonPressEvent", self._left_down)
        style.AddObserver("LeftButtonReleaseEvent", self._left_up)
        # the wheel zooms unless a handler takes it (aiming a block: the wheel turns it)
        self._wheel: Callable[[int], bool] | None = None
        style.AddObserver("MouseWheelForwardEvent", self._on_wheel)
        style.AddObserver("MouseWheelBackwardEvent", self._on_wheel)
        self.iren.SetInteractorStyle(style)
        self._key_map: dict[str, Callable[[], Any]] = {}
        self.iren.AddObserver("KeyPressEvent", self._on_key)

    def on_left_button(self, press: Callable[[], Any], release: Callable[[], Any]) -> None:
        """Call `press` and `release` when the left mouse button goes down and up. The camera orbits with the left
        button too, unless `press` returns True: then the window keeps that press (a drag that moves a block) and
        the camera does not move until the button is released."""
        self._left[0].append(press)
        self._left[1].append(release)

    def _left_down(self, style: Any, _event: str) -> None:
        self._taken = any([bool(fn()) for fn in self._left[0]])
        if not self._taken:
            style.OnLeftButtonDown()

    def _left_up(self, style: Any, _event: str) -> None:
        if not getattr(self, "_taken", False):
            style.OnLeftButtonUp()
        self._taken = False
        for fn in self._left[1]:
            fn()

    def bind_keys(self, keys: dict[str, Callable[[], Any]]) -> None:
        """Key symbols (VTK's names: "Right", "Return", "q", ...) -> what they do; `q` closes the window."""
        self._key_map = {"q": self.close, **keys}

    def _on_key(self, *_: Any) -> None:
        fn = self._key_map.get(self.iren.GetKeySym())
        if fn is not None:
            fn()

    def event_position(self) -> tuple[int, int]:
        x, y = self.iren.GetEventPosition()
        return int(x), int(y)

    def show(self, title: str) -> None:
        """Open the window and run its event loop until it is closed (`q`, the close button)."""
        self.ren_win.SetWindowName(title)
        if OFF_SCREEN:  # tests: the wiring has run, there is no window to wait on
            self.render()
            return
        self.iren.Initialize()
        self.render()
        self._running = True
        self.iren.Start()
        self._running = False
        self.close()

    _running = False

    def close(self) -> None:
        """Close the window and free it; harmless twice. In a running window (a key handler) it ends the event
        loop, and `show` frees the window once the loop has returned."""
        if self.closed:
            return
        if self._running:
            self.iren.TerminateApp()
            return
        self.closed = True
        self.ren_win.Finalize()
        if self.iren is not None:
            self.iren.SetRenderWindow(None)
            self.iren = None

def _frozen(value: object) -> object:
    """A comparable snapshot of a scene field (lists become tuples; the dataclasses inside are frozen)."""
    return tuple(value) if isinstance(value, list) else value

def render_scene(scene: Scene, path: str | Path | None = None, window_size: tuple[int, int] = WINDOW_SIZE,
                 preset: int = 1) -> np.ndarray:
    """One offscreen picture of `scene` (written to `path` if given); returns the image array."""
    r = SceneRenderer(window_size=window_size)
    try:
        r.preset = preset
        r.update(scene, reset_camera=True)
        img = r.image()
    finally:
        r.close()
    if path is not None:
        save_png(img, path)
    return img

def require_display(what: str, instead: str = "tower view FILE --screenshot out.png writes a picture") -> None:
    """BadInput (exit 2, one line) instead of a window that cannot open: Linux without X11 or Wayland."""
    import sys

    from tower.games.errors import BadInput

    if OFF_SCREEN or not sys.platform.startswith("linux"):
        return
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise BadInput(f"{what} needs a display (DISPLAY is not set); instead, {instead}", "")

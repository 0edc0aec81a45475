"""`tower view FILE`: a build or a game record, on screen or written to PNG / glTF / HTML without a window."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tower.climbers.build import BUILD_FORMAT, Build, parse_build
from tower.games.errors import BadInput, unknown_id
from tower.games.reader import read_json
from viewer.physics_words import fall_parts

RECORD_FORMAT = "game-record/1"


# --- what to show ------------------------------------------------------------------------------------------

def statics_verdict(build: Build, physics: Any) -> dict[str, Any] | str:
    """The statics judge's verdict with its evidence (`Verdict.to_json(detail=True)`), or why there is none."""
    try:
        return physics.judge_build(build, statics_only=True).to_json(detail=True)
    except Exception as exc:  # noqa: BLE001 - the viewer must still show the build when physics fails
        return f"stability: not available ({type(exc).__name__})"


def stability_lines(build: Build, physics: Any, doc: dict[str, Any] | str | None = None) -> list[str]:
    """The statics judge's verdict and tilt margin as overlay lines (the picture does not wait for the PyBullet
    run; `tower check` runs both judges); a note instead if the physics judges are not available. `doc`: the
    verdict already asked for (statics_verdict)."""
    doc = statics_verdict(build, physics) if doc is None else doc
    if isinstance(doc, str):
        return [doc]
    statics = doc.get("statics") or {}
    line = f"stability (statics judge): {doc.get('verdict', '?')}"
    if statics.get("stable") and statics.get("tilt_margin_deg") is not None:
        line += f", tilt margin {statics['tilt_margin_deg']:.1f} deg"
    out = [line]
    failure = statics.get("failure") or {}
    if not statics.get("stable") and failure.get("blocks"):  # how it starts to fall, as `tower check` says it
        out += ["falls:"] + [f"  {part}" for part in fall_parts(failure, most_groups=3, most_names=4)]
    elif not statics.get("stable") and statics.get("mechanism"):
        falling = statics["mechanism"]
        out.append("falls: " + ", ".join(falling[:6]) + (" ..." if len(falling) > 6 else ""))
    return out


def legality_lines(violations: list[Any]) -> list[str]:
    errors = [v for v in violations if getattr(v, "level", "error") == "error"]
    if not violations:
        return ["legal"]
    out = ["ILLEGAL" if errors else "legal (with warnings)"]
    for v in violations[:5]:
        if getattr(v, "level", "error") != "error":  # a warning is about the build as a whole: its own words
            out.append(f"  {v.rule}: {v.message}")
            continue
        who = f" {', '.join(v.blocks[:3])}" if v.blocks else (f" {v.figure} figure" if v.figure else "")
        out.append(f"  {v.rule}:{who}")
    if len(violations) > 5:
        out.append(f"  ... {len(violations) - 5} more")
    return out


def build_view_scene(build: Build, title: str = "", physics: Any = None):
    """Scene of a build with its legality problems flagged and, given the physics judges (see `viewer.Physics`),
    the verdict in the overlay text and, for a build that falls, how it starts to fall (overlays.with_failure)."""
    from tower.climbers.legality import check_build
    from viewer.overlays import with_failure
    from viewer.scene import build_scene

    violations = check_build(build)
    lines = [f"{len(build.blocks)} blocks, {len(build.figures)} figures"] + legality_lines(violations)
    doc = statics_verdict(build, physics) if physics is not None else None
    if doc is not None:
        lines += stability_lines(build, physics, doc)
    scene = build_scene(build, violations, title=title, lines=lines)
    return with_failure(scene, doc["statics"]) if isinstance(doc, dict) else scene


#: The overlays `tower view --forces / --removal-map` asks for.
EXPLAIN = ("forces", "removal-map")


def explain_scene(scene, build: Build, physics: Any, explain: Any = ()):
    """The scene with the physics overlays named in `explain` (EXPLAIN): contact forces with the weakest tilt
    direction, or the removal map's block classes; the legend says what the colours and sizes mean."""
    from viewer import overlays

    if "forces" in explain:  # the tilt first, as the lab draws it: its legend row above the forces' rows
        statics = physics.judge_build(build, statics_only=True).to_json(detail=True)["statics"]
        scene = overlays.with_weakest_tilt(scene, statics)
        scene = overlays.with_forces(scene, physics.forces(build).to_json())
    if "removal-map" in explain:
        # the statics judge alone, like the verdict line above: the picture does not wait for PyBullet runs
        scene = overlays.with_removal_map(scene, physics.removal(build, statics_only=True).to_json())
    return scene


def scene_for_document(doc: Any, source: str, physics: Any = None, explain: Any = ()):
    """A Scene for a parsed file: a tower-build/1 build or a game-record/1 record (replayed to its end).
    `explain`: physics overlays for a build (EXPLAIN; a record is refused with them)."""
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt == RECORD_FORMAT and explain:
        raise BadInput(f"--{explain[0]} shows a build's physics; this is a game record", "$.format", source)
    if fmt == RECORD_FORMAT:
        from tower.games import load_record

        try:
            state = load_record(doc)
        except BadInput as exc:
            raise exc.in_source(source) from None
        return state_scene(state, title=f"{Path(source).name}: {state.name}, move {len(state.history)}")
    try:
        build = parse_build(doc)
    except BadInput as exc:
        if fmt not in (BUILD_FORMAT, None):
            raise BadInput(f"unsupported format {fmt!r} (expected {BUILD_FORMAT!r} or {RECORD_FORMAT!r})"[:200],
                           "$.format", source) from None
        raise exc.in_source(source) from None
    scene = build_view_scene(build, title=Path(source).name, physics=physics)
    return explain_scene(scene, build, physics, explain) if explain and physics is not None else scene


def state_scene(state: Any, player: int | None = None, title: str = ""):
    """The scene of a game state as `player` sees it (default: the player to move, else 0)."""
    from viewer.games import scene_for_view

    if player is None:
        player = state.current_player if state.current_player is not None else 0
    return scene_for_view(state.layout, state.view(player), title=title)


# --- outputs -----------------------------------------------------------------------------------------------

#: What `--html` needs (the `html` extra): PyVista's web export, trame and its VTK/PyVista parts; nest_asyncio2
#: lets trame start its exporter outside an event loop.
HTML_MODULES = ("pyvista", "trame", "trame_vtk", "trame_pyvista", "nest_asyncio2")


def _html_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in HTML_MODULES)


def _atomic_export(path: str | Path, write) -> None:
    """Let `write(tmp_path)` produce the file in a private folder, then hand its bytes to the project's one atomic
    writer (temp file beside `path`, the usual permissions, rename into place)."""
    from tower.games.fileio import atomic_write_bytes

    p = Path(path)
    with tempfile.TemporaryDirectory() as folder:
        tmp = os.path.join(folder, p.name if p.suffix else p.name + ".tmp")
        write(tmp)
        atomic_write_bytes(p, Path(tmp).read_bytes())


def _export_html(renderer, path: str) -> None:
    """The scene as a self-contained web page (vtk.js), through PyVista's trame export (the `html` extra)."""
    import logging
    import warnings


    # trame starts a background download of a WebAssembly viewer that this static export never uses; offline it
    # fails, and asyncio would log that orphaned task's traceback at exit
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    pl = scene_plotter(renderer)
    try:
        with warnings.catch_warnings():
            # PyVista points at plotter.trame.export_html, which exists only with trame_pyvista; the call is the same
            from pyvista.core.errors import PyVistaDeprecationWarning

            warnings.simplefilter("ignore", PyVistaDeprecationWarning)
            try:
                pl.export_html(path)
            except ImportError as exc:
                raise BadInput(f"--html: the web export failed: {str(exc).splitlines()[0]}", "", path) from None
    finally:
        pl.close()


def scene_plotter(renderer, notebook: bool = False):
    """A PyVista plotter holding what `renderer` (a SceneRenderer) shows: each layer with faces, coloured per
    point, and the renderer's camera. For the web export and the notebook's inline view."""
    import pyvista as pv

    from viewer.gltf import gltf_ready

    pl = pv.Plotter(off_screen=True, notebook=notebook, window_size=list(renderer.window_size))
    for name, mesh, opacity in _visible_meshes(renderer):
        pl.add_mesh(pv.wrap(gltf_ready(mesh)), scalars="rgb", rgb=True, name=name, opacity=opacity)
    cam = renderer.camera
    pl.camera.position, pl.camera.focal_point = cam.GetPosition(), cam.GetFocalPoint()
    pl.camera.up = cam.GetViewUp()
    return pl


def _visible_meshes(renderer):
    """(layer name, mesh, opacity) of every layer with faces on show."""
    for name, mesh in renderer.meshes.items():
        actor = renderer.actors[name]
        if mesh.n_cells and mesh.GetNumberOfPolys() and actor.GetVisibility():
            yield name, mesh, actor.GetProperty().GetOpacity()


def write_outputs(scene, screenshot: str | None = None, gltf: str | None = None,
                  html: str | None = None, trajectory: list[dict] | None = None) -> list[tuple[str, str]]:
    """Write the requested files of `scene` (pictures rendered offscreen; the glTF written from the scene itself,
    with `trajectory`, PyBullet frames, as its animation); returns (path, what it holds) for each."""
    if html and not _html_available():
        # checked before anything is written: no partial set of outputs
        raise BadInput("--html needs the optional web-export packages (pip install 'tower-sim[html]'); "
                       "use --screenshot or --gltf", "", html)
    if gltf:
        check_gltf_name(gltf)
    written = []
    what = scene.title or "the scene"
    if screenshot or html:
        from viewer.renderer import SceneRenderer

        r = SceneRenderer(scene)
        try:
            if screenshot:
                r.screenshot(screenshot)
                w, h = r.window_size
                written.append((screenshot, f"a {w}x{h} PNG picture of {what}"))
            if html:
                _atomic_export(html, lambda tmp: _export_html(r, tmp))
                written.append((html, f"a self-contained web page of {what} (opens offline; drag to turn it)"))
        finally:
            r.close()
    if gltf:
        from tower.games.fileio import atomic_write_bytes
        from viewer.gltf import gltf_file_bytes

        atomic_write_bytes(gltf, gltf_file_bytes(scene, gltf, trajectory))
        kind = "binary glTF (GLB)" if gltf.lower().endswith(".glb") else "glTF (JSON, buffer embedded)"
        fall = f", with the PyBullet fall as its animation ({trajectory[-1]['t']:.1f} s)" if trajectory else ""
        written.insert(1 if screenshot else 0, (gltf, f"{kind} of {what}: a node per block named by its id, metres, "
                                                      f"+Y up{fall}"))
    return written


def check_gltf_name(path: str) -> None:
    """`--gltf FILE` must name its kind: .glb (binary) or .gltf (JSON text)."""
    from viewer.gltf import SUFFIXES

    if Path(path).suffix.lower() not in SUFFIXES:
        raise BadInput("--gltf: the file name must end in .glb (binary glTF) or .gltf (JSON glTF)", "", path)


def view_file(path: str, screenshot: str | None = None, gltf: str | None = None, html: str | None = None,
              physics: Any = None, remove: Sequence[str] = (), fall: bool = False,
              explain: Any = ()) -> list[tuple[str, str]]:
    """Show a build or record; with any output given, write those files instead of opening a window (returned as
    (path, what it holds)). With the physics judges (`viewer.Physics`) a build's verdict is shown too, and the
    overlays named in `explain` (EXPLAIN).

    `remove`: block ids taken away first (a build only). `fall` (or any `remove`): the glTF export carries the
    PyBullet run of the build (without those blocks) as an animation.
    """
    doc = read_json(path)
    trajectory = None
    if remove or fall:
        build = _build_of(doc, str(path), "--remove" if remove else "--fall")
        known = {b.id for b in build.blocks}
        for block_id in remove:
            if block_id not in known:
                raise BadInput(f"--remove {block_id}: {unknown_id('block', block_id, known)}", "", str(path))
        build = build.without(set(remove))
        title = Path(path).name + (f" without {', '.join(remove)}" if remove else "")
        scene = build_view_scene(build, title=title, physics=physics)
        if explain and physics is not None:
            scene = explain_scene(scene, build, physics, tuple(explain))
        if gltf and physics is not None:
            check_gltf_name(gltf)
            trajectory = physics.fall(build).trajectory
    else:
        scene = scene_for_document(doc, str(path), physics, tuple(explain))
    if screenshot or gltf or html:
        return write_outputs(scene, screenshot, gltf, html, trajectory)
    show_window(scene)
    return []


def _build_of(doc: Any, source: str, option: str) -> Build:
    """The build of a document, for options that take blocks away or simulate (a record is refused)."""
    if isinstance(doc, dict) and doc.get("format") == RECORD_FORMAT:
        raise BadInput(f"{option} works on a build (tower-build/1), not on a game record", "$.format", source)
    try:
        return parse_build(doc)
    except BadInput as exc:
        raise exc.in_source(source) from None


def show_window(scene) -> int:
    """The interactive window: mouse to orbit/zoom, keys 1-4 camera presets, r reset, q quit."""
    from viewer.renderer import require_display

    require_display("the viewer window")
    view_window(scene).show("tower-sim viewer")
    return 0


def view_window(scene, off_screen: bool = False):
    """The viewer's renderer with its window keys bound (camera presets, q closes)."""
    from viewer.play_window import camera_keys
    from viewer.renderer import SceneRenderer

    r = SceneRenderer(scene, off_screen=off_screen, interactive=True)
    r.bind_keys(camera_keys(r))
    return r

"""Scenes inline in Jupyter (examples/explore.ipynb, docs/notebook.md): PyVista's Jupyter backend "html", which
puts the scene into the notebook as a self-contained vtk.js page (turn and zoom it with the mouse; no server, no
network), or a still picture.

What is drawn is exactly what the desktop viewer draws (the layers of `viewer.renderer.SceneRenderer`). The "html"
backend comes with the `html` extra (trame); without it `show` gives the still picture and says so in one line.
"""

from __future__ import annotations

import importlib.util
import logging
from typing import Any

#: The size of an inline view, pixels.
SIZE = (760, 520)
#: What PyVista's "html" backend needs beyond the test install: the packages of the `html` extra.
HTML_MODULES = ("trame", "trame_vtk", "trame_vuetify", "trame_pyvista")
#: The one line under a still picture that `show` gives instead of the 3D view.
STILL_NOTE = "A still picture: for the interactive 3D view install the html extra (pip install 'tower-sim[html]')."


def interactive() -> bool:
    """Whether the interactive inline view can be drawn here (the `html` extra is installed)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in HTML_MODULES)
    except (ImportError, ValueError):  # a package half there (a parent without the module) counts as absent
        return False


def show(scene: Any, size: tuple[int, int] = SIZE) -> Any:
    """The scene in 3D inline, as an HTML output (an iframe holding the vtk.js page) that any notebook front end
    shows, interactive, offline; without the `html` extra, the still picture and a line saying how to get the 3D
    view."""
    if not interactive():
        print(STILL_NOTE)
        return picture(scene, size)
    from IPython.display import HTML

    from viewer.renderer import SceneRenderer
    from viewer.view import scene_plotter

    # trame's exporter starts a background download of a WebAssembly viewer that the vtk.js page never uses;
    # offline that fails, and asyncio would log the orphaned task's traceback into the notebook
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    renderer = SceneRenderer(scene, window_size=size)
    try:
        pl = scene_plotter(renderer, notebook=True)
    finally:
        renderer.close()
    try:
        widget = pl.show(jupyter_backend="html", return_viewer=True)
    finally:
        pl.close()
    return HTML(f"<div>{widget.value}</div>")  # IPython warns about a bare iframe


def picture(scene: Any, size: tuple[int, int] = SIZE) -> Any:
    """A still PNG of the scene (the viewer's offscreen render), for front ends that show no HTML."""
    from IPython.display import Image

    from viewer.pictures import png_bytes
    from viewer.renderer import SceneRenderer

    renderer = SceneRenderer(scene, window_size=size)
    try:
        return Image(data=png_bytes(renderer.image()), format="png")
    finally:
        renderer.close()

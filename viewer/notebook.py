"""Scenes inline in Jupyter (examples/explore.ipynb, docs/notebook.md): PyVista's Jupyter backend "html", which
puts the scene into the notebook as a self-contained vtk.js page (turn and zoom it with the mouse; no server, no
network), or a still picture.

What is drawn is exactly what the desktop viewer draws (the layers of `viewer.renderer.SceneRenderer`).
"""

from __future__ import annotations

import logging
from typing import Any

#: The size of an inline view, pixels.
SIZE = (760, 520)


def show(scene: Any, size: tuple[int, int] = SIZE) -> Any:
    """The scene in 3D inline, as an HTML output (an iframe holding the vtk.js page) that any notebook front end
    shows, interactive, offline."""
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

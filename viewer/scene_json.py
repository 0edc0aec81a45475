"""A `Scene` as plain JSON, and back: what the browser client of `tower serve` draws.

The browser draws exactly the pure scene the desktop viewer draws (`viewer.games.scene_for_view` builds it from
what one seat may see); this module only changes its form. Colours stay names, and the document carries the
palette that turns them into RGB, so both renderers colour a face alike. Grid units throughout, as in the scene.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from viewer.scene import (
    ALL_RGB,
    BACKGROUND_RGB,
    PROBLEM_RGB,
    SELECT_RGB,
    TABLE_RGB,
    Scene,
    SceneBlock,
    SceneFigure,
    SceneGhost,
    SceneLabel,
    SceneLadder,
    SceneMarker,
    SceneStone,
)

SCENE_FORMAT = "tower-scene/1"
#: Scene field -> the dataclass of its items (the list layers).
ITEM_TYPES: dict[str, type] = {
    "blocks": SceneBlock,
    "figures": SceneFigure,
    "stones": SceneStone,
    "ladders": SceneLadder,
    "ghosts": SceneGhost,
    "markers": SceneMarker,
    "labels": SceneLabel,
    "ghost_figures": SceneFigure,
}
#: Colours the renderers use besides the named ones: the table, the background, problems, the selection.
FIXED_RGB = {"table": TABLE_RGB, "background": BACKGROUND_RGB, "problem": PROBLEM_RGB, "select": SELECT_RGB}


def _plain(value: Any) -> Any:
    """Tuples become lists and floats that are whole stay floats (JSON keeps 2.0 as 2.0)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _item(obj: Any) -> dict[str, Any]:
    return {f.name: _plain(getattr(obj, f.name)) for f in fields(obj)}


def scene_to_json(scene: Scene) -> dict[str, Any]:
    """The scene as a JSON-able dict: every field of `Scene`, items as objects, plus the palette of every colour
    name the scene uses."""
    out: dict[str, Any] = {"format": SCENE_FORMAT}
    used: set[str] = set()
    for f in fields(scene):
        value = getattr(scene, f.name)
        if f.name in ITEM_TYPES:
            out[f.name] = [_item(v) for v in value]
            for v in value:
                used.update(getattr(v, "faces", ()))
                if hasattr(v, "colour"):
                    used.add(v.colour)
        else:
            out[f.name] = _plain(value)
    out["palette"] = {name: list(ALL_RGB[name]) for name in sorted(used) if name in ALL_RGB}
    out["fixed"] = {k: list(v) for k, v in FIXED_RGB.items()}
    return out


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def scene_from_json(data: dict[str, Any]) -> Scene:
    """Inverse of `scene_to_json` (the palette is implied by the colour names)."""
    kwargs: dict[str, Any] = {}
    for f in fields(Scene):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name in ITEM_TYPES:
            cls = ITEM_TYPES[f.name]
            kwargs[f.name] = [cls(**{k: _tuples(v) for k, v in item.items()}) for item in value]
        elif f.name in ("lines", "menu"):
            kwargs[f.name] = list(value)
        else:
            kwargs[f.name] = _tuples(value)
    return Scene(**kwargs)

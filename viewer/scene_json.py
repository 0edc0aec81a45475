"""A `Scene` as plain JSON, and back: what the browser client of `tower serve` draws.

The browser draws exactly the pure scene the desktop viewer draws (`viewer.games.scene_for_view` builds it from
what one seat may see); this module only changes its form. Colours stay names, and the document carries the
palette that turns them into RGB, so both renderers colour a face alike. Grid units throughout, as in the scene.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from tower.schemas import validate
from viewer.scene import (
    ALL_RGB,
    BACKGROUND_RGB,
    PROBLEM_RGB,
    SELECT_RGB,
    TABLE_RGB,
    Scene,
    SceneArrow,
    SceneBlock,
    SceneFigure,
    SceneFrame,
    SceneGhost,
    SceneLabel,
    SceneLadder,
    SceneLegendEntry,
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
    "arrows": SceneArrow,
    "legend": SceneLegendEntry,
    "frames": SceneFrame,
}
#: Colours the renderers use besides the named ones: the table, the background, problems, the selection.
FIXED_RGB = {"table": TABLE_RGB, "background": BACKGROUND_RGB, "problem": PROBLEM_RGB, "select": SELECT_RGB}
_SCENE_FIELDS = [f.name for f in fields(Scene)]


def _item(obj: Any) -> dict[str, Any]:
    """A scene item's fields by name; its tuples stay tuples (`json.dumps` writes them as arrays): the server
    builds one scene per seat per move, so this is kept cheap."""
    return dict(vars(obj))


def scene_to_json(scene: Scene) -> dict[str, Any]:
    """The scene as a JSON-able dict: every field of `Scene`, items as objects, plus the palette of every colour
    name the scene uses."""
    out: dict[str, Any] = {"format": SCENE_FORMAT}
    used: set[str] = set()
    for name in _SCENE_FIELDS:
        value = getattr(scene, name)
        if name in ITEM_TYPES:
            out[name] = [_item(v) for v in value]
            for v in value:
                faces = getattr(v, "faces", None)
                if faces:
                    used.update(faces)
                tint = getattr(v, "tint", None)
                if tint:
                    used.add(tint)
                colour = getattr(v, "colour", None)
                if colour:
                    used.add(colour)
        else:
            out[name] = list(value) if isinstance(value, list) else value
    out["palette"] = {name: ALL_RGB[name] for name in sorted(used) if name in ALL_RGB}
    out["fixed"] = dict(FIXED_RGB)
    return out


def _tuples(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_tuples(v) for v in value)
    return value


def scene_from_json(data: dict[str, Any]) -> Scene:
    """Inverse of `scene_to_json` (the palette is implied by the colour names); a document that breaks the
    `tower-scene/1` schema is a BadInput naming the JSON path."""
    validate(data, SCENE_FORMAT)
    kwargs: dict[str, Any] = {}
    for f in fields(Scene):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name in ITEM_TYPES:
            cls = ITEM_TYPES[f.name]
            kwargs[f.name] = [cls(**{k: _tuples(v) for k, v in item.items()}) for item in value]
        elif f.name in ("lines", "menu", "moved"):
            kwargs[f.name] = list(value)
        else:
            kwargs[f.name] = _tuples(value)
    return Scene(**kwargs)

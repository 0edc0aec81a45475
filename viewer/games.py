"""Scenes from what one player may see (`state.view(player)`), by the table layout the game declares."""

from __future__ import annotations

from typing import Any


def scene_for_view(layout: str, view: dict[str, Any], title: str = "", **overlays: Any):
    """The scene of `view` for a game laid out as `layout` (its `GameState.layout`)."""
    if layout == "tower":
        from viewer.scene import scene_from_climbers_view

        scene = scene_from_climbers_view(view, **overlays)
    else:
        from viewer.cards import card_scene

        scene = card_scene(layout, view, **overlays)
    if title:
        scene.title = title
    return scene

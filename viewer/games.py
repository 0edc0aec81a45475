"""Scenes from a game's `state.view(player)`: the one dispatch point from a game name to its pure scene."""

from __future__ import annotations

from typing import Any

from tower.games.errors import BadInput


def scene_for_view(game: str, view: dict[str, Any], title: str = "", **overlays: Any):
    """The scene of `view` (what one player may see) for `game`."""
    if game == "climbers":
        from viewer.scene import scene_from_climbers_view

        scene = scene_from_climbers_view(view, **overlays)
    else:
        try:
            from viewer.cards import card_scene
        except ImportError:
            raise BadInput(f"the viewer cannot show {game} games yet", "$.game") from None
        scene = card_scene(game, view, **overlays)
    if title:
        scene.title = title
    return scene

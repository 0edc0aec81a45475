"""Pure scenes of the three card games, built from `state.view(player)` only (what that player may see); one
module a game, and the table of layouts (`GameState.layout` -> scene function) that picks one.

Board spaces and cards are flat boxes (`SceneBlock`s, so they share the block layer and its picking ids), pawns
are figures. Card values, special spaces and seats are `SceneLabel`s; the overlay text repeats in words what a
player needs. Grid units as everywhere in the viewer; a board space is 2 x 2 units.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from viewer.cards.diabolo import diabolo_scene
from viewer.cards.partners import partners_scene
from viewer.cards.seventh_heaven import seventh_heaven_scene
from viewer.scene import Scene

#: table layout (`GameState.layout`) -> its scene
SCENES = {"heaven-track": seventh_heaven_scene, "partners-track": partners_scene, "diabolo-rows": diabolo_scene}


def card_scene(layout: str, view: dict[str, Any], lines: Sequence[str] = (), names: Sequence[str] | None = None,
               **_: Any) -> Scene:
    """The scene of a card game's view laid out as `layout` (players called `names`, the game's labels);
    an unknown layout is BadInput."""
    from tower.games.errors import BadInput

    if layout not in SCENES:
        raise BadInput(f"the viewer knows no table layout {layout!r}", "$.game")
    return SCENES[layout](view, lines, names)

"""What the three card games' scenes share: cards and spaces as flat boxes, pawns, labels, the overlay text.

Each game's scene (one module each in this package) is built from `state.view(player)` only (what that player may see).

Board spaces and cards are flat boxes (`SceneBlock`s, so they share the block layer and its picking ids), pawns
are figures. Card values, special spaces and seats are `SceneLabel`s (text that always faces the viewer); the
overlay text repeats what a player needs in words. Grid units as everywhere in the viewer; a board space is
2 x 2 units.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from viewer.scene import Scene, SceneBlock, SceneFigure, SceneLabel

CARD_W, CARD_D, CARD_H = 1.6, 2.4, 0.12  # a card lying flat: 3.2 x 4.8 cm, a little thick so it casts an edge


def box(id: str, origin: Sequence[float], size: Sequence[float], top: str, sides: str | None = None) -> SceneBlock:
    s = sides or top
    return SceneBlock(id, tuple(origin), tuple(size), (s, s, s, s, top, s))  # type: ignore[arg-type]


HAND_GAP = 1.0  # between two cards of the hand: room for the value labels
HAND_ROW = 7  # cards per row of the hand; a longer hand takes a second row in front


def card(id: str, x: float, y: float, colour: str, z: float = 0.0, scale: float = 1.0) -> SceneBlock:
    return box(id, (x, y, z), (CARD_W * scale, CARD_D * scale, CARD_H), colour, "card")


def hand_row(hand: Sequence[str], colour_of, y: float, text_of=str,
              scale: float = 1.0) -> tuple[list[SceneBlock], list[SceneLabel]]:
    """The hand as face-up cards centred on x = 0 in rows of HAND_ROW (the first row at `y`, more rows in front),
    each labelled with its value."""
    w, d = CARD_W * scale, CARD_D * scale
    step = w + HAND_GAP
    cards, labels = [], []
    for i, c in enumerate(hand):
        row, k = divmod(i, HAND_ROW)
        in_row = min(HAND_ROW, len(hand) - row * HAND_ROW)
        x = -(in_row * step - HAND_GAP) / 2 + k * step
        yy = y - row * (d + 0.8)
        cards.append(card(f"hand-{i}", x, yy, colour_of(c), scale=scale))
        labels.append(label(x + w / 2, yy + d / 2, CARD_H, text_of(c)))
    return cards, labels


def label(x: float, y: float, z: float, text: str) -> SceneLabel:
    return SceneLabel((float(x), float(y), float(z) + 0.05), str(text))


def pawn(colour: str, x: float, y: float, z: float, scale: float = 1.0) -> SceneFigure:
    # SceneFigure cells are cell corners: the renderer stands the pawn at cell + 0.5
    return SceneFigure(colour, (x - 0.5, y - 0.5, z), scale=scale)  # type: ignore[arg-type]


def finish(scene: Scene, lines: Sequence[str], labels: Sequence[SceneLabel] = ()) -> Scene:
    b = scene.bounds()
    scene.table = (b[0] - 3, b[1] + 3, b[2] - 3, b[3] + 3)
    scene.shadow = False  # the contact shadow is for towers; under a flat board it is just a dark patch
    scene.flat = True
    scene.lines = list(lines) + scene.lines
    scene.labels = list(labels) + scene.labels
    return scene


def namer(names: Sequence[str] | None, view: dict[str, Any] | None = None):
    """How to name player p: the given names, else the labels the view carries (the game's `player_label`), else
    the seat ("P2")."""
    names = names or (view or {}).get("labels")
    return (lambda p: names[p]) if names else (lambda p: f"P{p}")


def seat_text(name, you: int | None) -> str:
    """Whose eyes the scene is seen through: a seat, or a spectator's (a public view has no seat)."""
    return f"you are {name(you)}" if you is not None else "you are watching (public view: no hand is shown)"


def wrap(label: str, items: Sequence[str], width: int = 64) -> list[str]:
    out, line = [], label
    for item in items:
        if len(line) + len(item) + 1 > width:
            out.append(line)
            line = "  "
        line += " " + item
    out.append(line)
    return out


# --- In 7th Heaven -----------------------------------------------------------------------------------------

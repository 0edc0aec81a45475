"""Diabolo's table: the scoring rows of cards, the doublers and the hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from viewer.cards.common import (
    CARD_D,
    CARD_H,
    CARD_W,
    box,
    card,
    finish,
    hand_row,
    label,
    namer,
    seat_text,
    wrap,
)
from viewer.scene import Scene, SceneBlock, SceneLabel


def diabolo_card_colour(card: str) -> str:
    return card.split()[0] if card.split() and card.split()[0] in ("red", "yellow", "green", "purple", "blue") \
        else "white"


def diabolo_card_text(card: str) -> str:
    """A hand card's label: the number (the card shows its colour); other cards keep their text."""
    words = card.split()
    return words[-1] if len(words) == 2 and diabolo_card_colour(card) != "white" else card


DIABOLO_STEP = CARD_W + 0.35  # from one card of a row to the next


def diabolo_slot(row: int, side: str, k: int) -> tuple[float, float]:
    """Where the k-th card of a row's side lies (x, y of its corner): devil cards leftwards from the row's card,
    angel cards rightwards."""
    y = (2 - row) * 3.2
    return (-1.4 - CARD_W - k * DIABOLO_STEP, y) if side == "devil" else (1.4 + k * DIABOLO_STEP, y)


#: the discard pile (x, y of its corner): left of the hand
DIABOLO_DISCARDS = (-15.0, -11.5)


def diabolo_scene(view: dict[str, Any], lines: Sequence[str] = (), names: Sequence[str] | None = None) -> Scene:
    """Five heaven/hell rows: hell (devil) cards to the left, heaven (angel) cards to the right; the hand."""
    name = namer(names, view)
    blocks: list[SceneBlock] = []
    labels: list[SceneLabel] = []
    rows = view.get("rows", [])
    scoring = view.get("scoring_row")
    cur = view.get("current_player")
    you = view.get("player")  # None: a spectator's public view
    text = [f"Diabolo - {seat_text(name, you)}; {name(cur) if cur is not None else 'nobody'} to act "
            f"({view.get('phase', '')}), round {view.get('round')}/{view.get('rounds')}",
            "scores: " + "  ".join(f"{name(p)}: {s}" for p, s in enumerate(view.get("scores", [])))]
    longest = max([len(r.get("devil", [])) for r in rows] + [len(r.get("angel", [])) for r in rows] + [3])
    for r, row in enumerate(rows):
        y = (2 - r) * 3.2
        colour = row.get("colour", "white")
        blocks.append(box(f"row-{r}", (-1.0, y, 0.25), (2.0, CARD_D, 0.5), colour, "black" if row.get("closed")
                           else colour))
        for side in ("devil", "angel"):
            for k, value in enumerate(row.get(side, [])):
                x, _ = diabolo_slot(r, side, k)
                blocks.append(card(f"{side}-{r}-{k}", x, y, colour, z=0.25))
                labels.append(label(x + CARD_W / 2, y + CARD_D / 2, 0.25 + CARD_H, value))
        # each side's sum just beyond its last card; a closed or scoring row says so beside the heaven sum
        devil, angel = row.get("devil", []), row.get("angel", [])
        note = "closed" if row.get("closed") else ("scoring" if scoring == colour else "")
        # (one card's width further out than the last card: a previewed card goes in that place)
        labels.append(label(-1.4 - (len(devil) + 1) * DIABOLO_STEP - 1.0, y + CARD_D / 2, 0.3, f"sum {sum(devil)}"))
        labels.append(label(1.4 + (len(angel) + 1) * DIABOLO_STEP + 1.0, y + CARD_D / 2, 0.3,
                             f"sum {sum(angel)}" + (f" {note}" if note else "")))
    # a dark slab on the hell side and a light one on the heaven side make the two halves readable; they grow
    # with the longest row
    half = 1.4 + longest * DIABOLO_STEP + 3.0
    blocks.append(box("hell", (-half, -7.5, 0), (half - 1, 17, 0.25), "black"))
    blocks.append(box("heaven", (1, -7.5, 0), (half - 1, 17, 0.25), "white"))
    labels.append(label(-half / 2, 9.1, 0.3, "HELL (devil)"))
    labels.append(label(half / 2, 9.1, 0.3, "HEAVEN (angel)"))
    # the discarded cards (a forced discard), face up, the last on top
    discards = view.get("discards", [])
    dx, dy = DIABOLO_DISCARDS
    blocks.append(card("discard", dx, dy, diabolo_card_colour(discards[-1]) if discards else "card"))
    labels.append(label(dx + CARD_W / 2, dy + CARD_D / 2, CARD_H,
                        diabolo_card_text(discards[-1]) if discards else "discards"))
    hand = view.get("hand", [])
    cards, card_labels = hand_row(hand, diabolo_card_colour, y=-11.5, text_of=diabolo_card_text)
    blocks += cards
    labels += card_labels
    if you is not None:
        text += wrap("your hand:", hand)
    shown = [f"{name(p)}: {' '.join(cs)}" for p, cs in enumerate(view.get("shown", [])) if cs]
    if shown:
        text += wrap("shown:", shown)
    if view.get("my_doubler") is not None:
        text.append(f"your doubler card: {'still in your hand' if view.get('my_doubler') else 'used'}"
                    + (f"; scoring the {scoring} row: double its points for you?" if scoring else ""))
    held = [name(p) for p, d in enumerate(view.get("doublers", [])) if d]
    if held:
        text.append("doubler cards still in hand: " + ", ".join(held))
    if scoring and view.get("decided"):
        # who has answered already, never what: the answers are shown together once the last one is in
        text.append("answered (shown when all have): " + ", ".join(name(p) for p in view["decided"]))
    return finish(Scene(blocks=blocks), text + list(lines), labels)

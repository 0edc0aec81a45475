"""In 7th Heaven's table: the winding track with its special spaces, the pawns, the partner cards and the hand."""

from __future__ import annotations

import math
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
    pawn,
    seat_text,
    wrap,
)
from viewer.scene import Scene

SEVENTH_COLOURS = {"red": "red", "blue": "blue", "grey": "grey", "yellow": "yellow", "green": "green",
                   "pink": "pink", "white": "white"}

SEVENTH_SPECIALS = {2: ("green", "2->5"), 6: ("green", "6->9"), 13: ("red", "13->10"),
                    4: ("purple", "4 swap!"), 8: ("yellow", "8 swap?"), 14: ("yellow", "14 swap?")}


def seventh_specials(view: dict[str, Any]) -> dict[int, tuple[str, str]]:
    """Space -> (tile colour, label) of the special spaces the game's view names (its `specials` option; the
    standard ones for a view without them): jumps forward green, back red; a forced swap purple, a may-swap
    yellow."""
    spec = view.get("specials")
    if not spec:
        return SEVENTH_SPECIALS
    out: dict[int, tuple[str, str]] = {}
    for src, dst in spec.get("jumps", {}).items():
        out[int(src)] = ("green" if int(dst) > int(src) else "red", f"{src}->{dst}")
    for i in spec.get("must_swap", []):
        out[int(i)] = ("purple", f"{i} swap!")
    for i in spec.get("may_swap", []):
        out[int(i)] = ("yellow", f"{i} swap?")
    return out


SEVENTH_PAWN_SCALE = 1.2


def seventh_card_colour(card: str) -> str:
    for c in SEVENTH_COLOURS:
        if card.startswith(c):
            return SEVENTH_COLOURS[c]
    return "gold"  # the text cards


def seventh_card_text(card: str) -> str:
    """A card's label: its value (the card shows its colour), or its name for the text cards."""
    colour = seventh_card_colour(card)
    return card[len(colour):] if colour != "gold" and len(card) > len(colour) else card


def seventh_track(length: int) -> list[tuple[float, float, float]]:
    """Centre of each space's top: a rising arc of 260 degrees that starts in front of the default camera and
    ends high at the back left, so the tall last spaces hide nothing behind them."""
    out = []
    for i in range(length + 1):
        angle = math.radians(-110 + 260 * i / max(length, 1))
        out.append((9 * math.cos(angle), 9 * math.sin(angle), 0.45 * i + 0.3))
    return out


def seventh_pawns(view: dict[str, Any]) -> list[tuple[str, float, float, float]]:
    """The pawns as the scene draws them, in the order of its figures: (colour, x, y, z of the foot's centre);
    pawns sharing a space stand side by side."""
    length = int(view.get("track_length", 20))
    positions = seventh_track(length)
    by_space: dict[int, list[str]] = {}
    for colour, space in view.get("pawns", {}).items():
        by_space.setdefault(min(max(int(space), 0), length), []).append(colour)
    out = []
    for space, colours in by_space.items():
        x, y, z = positions[space]
        for k, colour in enumerate(colours):
            out.append((colour, x + (k % 3 - 1) * 0.6, y + (k // 3 - 0.5) * 0.7, z))
    return out


BESIDE = -1  # the holder of a partner card lying beside the board (4-5 players)


def seventh_partner_cards(view: dict[str, Any]) -> list[tuple[str, str, int, float, float]]:
    """The face-up partner cards as the scene lays them: (block id, colour, holder or BESIDE, x, y); each
    holder's before him in seat order, then the cards nobody holds, beside the board."""
    holders: dict[int, list[str]] = {}
    for colour, holder in view.get("partners", {}).items():
        holders.setdefault(BESIDE if holder is None else int(holder), []).append(colour)
    out = []
    seats = sorted(p for p in holders if p != BESIDE)
    for p in seats + ([BESIDE] if BESIDE in holders else []):
        x0 = 13 + 5 * (p if p != BESIDE else (max(seats, default=-1) + 1))
        for k, colour in enumerate(holders[p]):
            out.append((f"partner-{p}-{k}" if p != BESIDE else f"partner-beside-{k}", colour, p,
                        x0 + k * (CARD_W + 0.2), -4.0))
    return out


#: where the draw pile and the discard pile lie, right of the hand (x, y of the draw pile; the discard pile is one
#: card further right)
SEVENTH_PILES = (12.5, -16.0)


def seventh_heaven_scene(view: dict[str, Any], lines: Sequence[str] = (), names: Sequence[str] | None = None) -> Scene:
    """The track as a stair rising from the Garden Party to 7th Heaven, the six pawns, partner cards, the piles,
    the hand."""
    name = namer(names, view)
    length = int(view.get("track_length", 20))
    blocks, figures, labels = [], [], []
    positions = seventh_track(length)
    specials = seventh_specials(view)
    for i, (x, y, z) in enumerate(positions):
        colour = "gold" if i == length else ("grey" if i == 0 else specials.get(i, ("tile",))[0])
        blocks.append(box(f"space-{i}", (x - 1, y - 1, 0), (2, 2, z), colour, "tile"))
        text = "7th Heaven" if i == length else "start" if i == 0 else specials.get(i, ("", ""))[1]
        if text:
            # outside the arc, so the label never covers the pawns standing on the space
            k = 1.3 if i else 1.45
            labels.append(label(x * k, y * k, z, text))
    for colour, x, y, z in seventh_pawns(view):
        figures.append(pawn(SEVENTH_COLOURS.get(colour, "white"), x, y, z, SEVENTH_PAWN_SCALE))
    # partner cards: one face-up card per pawn colour, laid before its holder (or beside the board)
    you = view.get("you")  # None: a spectator's public view
    holders: dict[int, list[str]] = {}
    for block_id, colour, p, x, y in seventh_partner_cards(view):
        blocks.append(card(block_id, x, y, colour))
        holders.setdefault(p, []).append(colour)
        if len(holders[p]) == 1:
            who = "beside the board" if p == BESIDE else name(p) + (" (you)" if p == you else "")
            labels.append(label(x + CARD_W, y - 1.0, CARD_H, who))
    holders.pop(BESIDE, None)
    # the draw pile (face down, as high as the cards left) and the discard pile (its top card face up)
    px, py = SEVENTH_PILES
    deck = int(view.get("deck", 0) or 0)
    blocks.append(box("deck", (px, py, 0), (CARD_W, CARD_D, CARD_H * (1 + min(deck, 60) / 10)), "board", "card"))
    labels.append(label(px + CARD_W / 2, py - 0.8, CARD_H, f"deck {deck}"))
    top = (view.get("discard") or [None])[-1]
    blocks.append(card("discard", px + CARD_W + 1.0, py, seventh_card_colour(top) if top else "card"))
    labels.append(label(px + 1.5 * CARD_W + 1.0, py + CARD_D / 2, CARD_H,
                        seventh_card_text(top) if top else "discard"))
    hand = view.get("hand", [])
    cards, card_labels = hand_row(hand, seventh_card_colour, y=-16, text_of=seventh_card_text)
    blocks += cards
    labels += card_labels
    cur = view.get("current_player")
    text = [f"In 7th Heaven - {seat_text(name, you)}; "
            f"{name(cur) if cur is not None else 'nobody'} to act ({view.get('phase', '')})"]
    if you is not None:
        text.append("you play for the pawns whose partner cards lie before you: "
                    + ("+".join(holders.get(you, [])) or "none"))
    text.append("partners: " + "  ".join(f"{name(p)}: {'+'.join(cs)}" for p, cs in sorted(holders.items())))
    if you is not None:
        text += wrap("your hand:", hand)
    text.append(f"deck {view.get('deck', '?')}, discard top: {(view.get('discard') or ['-'])[-1]}"
                + (f"; last move: {view['last_move']}" if view.get("last_move") else ""))
    scene = Scene(blocks=blocks, figures=figures)
    return finish(scene, list(text) + list(lines), labels)


# --- Partners ------------------------------------------------------------------------------------------------

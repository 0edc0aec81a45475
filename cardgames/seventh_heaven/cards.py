"""The sympathy cards of In 7th Heaven: coloured and white numbers, arrows and the eight text cards (the counts are
rule options), and what the text cards' numbers are.

Cards are small ints ("kinds"; copies of one kind are identical), hands are lists of kinds.
"""

from __future__ import annotations

from typing import Any

from cardgames.seventh_heaven.board import COLOURS

# --- the sympathy cards -------------------------------------------------------------------------------------
HAND_SIZE = 12
FORWARD = (1, 2, 3, 4, 5)
BACKWARD = (-1, -2)
VALUES = FORWARD + BACKWARD
FORWARD_COPIES = 2  # per colour: two each of +1..+5 ...
BACKWARD_COPIES = 1  # ... and one each of -1, -2: 12 per colour, 72 in all
WHITE_SETS = 1  # white jokers: the same 12 values once
ARROW_COPIES = 1  # one arrow per colour and one white arrow
TEXT_CARDS = ("heart", "mushroom", "cards3", "pepper", "snail", "foot", "cloud", "finger")
MUSHROOM_MAX = 4  # take 1-4 cards
THREE_CARDS = 3  # everybody discards 3 and draws 3
PEPPER_STEPS = 3  # the last pawn(s) forward 3
SNAIL_STEPS = 2  # the first pawn(s) back 2
FOOT_MAX = 3  # the first pawn forward 1-3
CLOUD_STEPS = 3  # the first pawn(s) back 3

# Card kinds: 0..41 coloured numbers (colour * 7 + value index), 42..48 white numbers, 49..54 coloured arrows,
# 55 the white arrow, 56..63 the text cards.
NUM, ARROW, TEXT = 0, 1, 2
WHITE = -1
KIND_NAME: list[str] = []
KIND_TYPE: list[int] = []
KIND_COLOUR: list[int] = []
KIND_VALUE: list[int] = []


def _add_kind(name: str, kind_type: int, colour: int, value: int) -> None:
    KIND_NAME.append(name)
    KIND_TYPE.append(kind_type)
    KIND_COLOUR.append(colour)
    KIND_VALUE.append(value)


for _c, _colour in enumerate(COLOURS):
    for _v in VALUES:
        _add_kind(f"{_colour}{_v:+d}", NUM, _c, _v)
for _v in VALUES:
    _add_kind(f"white{_v:+d}", NUM, WHITE, _v)
for _c, _colour in enumerate(COLOURS):
    _add_kind(f"{_colour}>", ARROW, _c, 0)
_add_kind("white>", ARROW, WHITE, 0)
TEXT_BASE = len(KIND_NAME)
for _name in TEXT_CARDS:
    _add_kind(_name, TEXT, WHITE, 0)
KIND = {name: k for k, name in enumerate(KIND_NAME)}
HEART, MUSHROOM, CARDS3, PEPPER, SNAIL, FOOT, CLOUD, FINGER = range(TEXT_BASE, TEXT_BASE + 8)
CARD_ALIASES = {"3cards": "cards3", "three-cards": "cards3", "pepper-pot": "pepper", "pepperpot": "pepper"}

def build_deck(options: dict[str, Any]) -> list[int]:
    """The sympathy cards for these options, in a fixed order (shuffled by the caller)."""
    deck: list[int] = []
    ncol = options["colours"]

    def numbers(colour_base: int, copies_scale: int) -> None:
        for i, v in enumerate(VALUES):
            copies = options["forward_copies"] if v > 0 else options["backward_copies"]
            deck.extend([colour_base + i] * (copies * copies_scale))

    for c in range(ncol):
        numbers(c * len(VALUES), 1)
    numbers(KIND["white+1"], options["white_sets"])
    for c in range(ncol):
        deck.extend([KIND[f"{COLOURS[c]}>"]] * options["arrow_copies"])
    deck.extend([KIND["white>"]] * options["arrow_copies"])
    if options["text_cards"]:
        deck.extend(range(TEXT_BASE, TEXT_BASE + len(TEXT_CARDS)))
    return deck


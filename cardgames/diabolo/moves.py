"""Diabolo's moves: placing a card on a row's devil or angel side, the forced discard, and the doubler answer;
their texts, and each move made once for fast move generation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from cardgames.diabolo.cards import (
    ANGEL,
    COLOUR_INDEX,
    COLOURS,
    DEVIL,
    MAX_VALUE,
    NKINDS,
    SIDES,
    kind,
    kind_colour,
    kind_value,
)
from cardgames.moves import CardMove, split_move
from tower.games.base import GameState
from tower.games.errors import BadInput

SIDE_WORDS = {"angel": ANGEL, "heaven": ANGEL, "right": ANGEL, "devil": DEVIL, "hell": DEVIL, "left": DEVIL}
YES_WORDS = {"yes": True, "y": True, "no": False, "n": False}
VERBS = ("place", "discard", "double")


@dataclass(frozen=True)
class DiaboloMove(CardMove):
    """One decision. Text forms (lower case; `heaven`/`right` mean angel, `hell`/`left` devil):

    ``place red 5 angel`` / ``place red 5 devil`` puts a red 5 from the hand beside the red row;
    ``discard blue 3`` when no card of the hand can be placed; ``double yes`` / ``double no`` commits (or not)
    the doubler for the row being scored.
    """

    verb: str
    colour: str = ""
    value: int = 0
    side: str = ""  # place: "angel" or "devil"; double: "yes" or "no"

    __hash__ = CardMove.__hash__

    def __post_init__(self) -> None:
        if self.verb == "double":
            if self.side not in ("yes", "no") or self.colour or self.value:
                raise BadInput(f"a doubler move is 'double yes' or 'double no', got {self!r}")
            text, k, s = f"double {self.side}", -1, int(self.side == "yes")
        elif self.verb in ("place", "discard"):
            if self.colour not in COLOUR_INDEX:
                raise BadInput(f"unknown colour {self.colour!r} (one of {', '.join(COLOURS)})")
            if not isinstance(self.value, int) or isinstance(self.value, bool) or not 1 <= self.value <= MAX_VALUE:
                raise BadInput(f"a card value is 1-{MAX_VALUE}, got {self.value!r}")
            k = kind(COLOUR_INDEX[self.colour], self.value)
            if self.verb == "place":
                if self.side not in ("angel", "devil"):
                    raise BadInput(f"a card goes to the 'angel' or 'devil' side, got {self.side!r}")
                text, s = f"place {self.colour} {self.value} {self.side}", SIDES.index(self.side)
            else:
                if self.side:
                    raise BadInput(f"a discard names no side, got {self.side!r}")
                text, s = f"discard {self.colour} {self.value}", -1
        else:
            raise BadInput(f"a move starts with one of {', '.join(VERBS)}, got {self.verb!r}")
        self._set_text(text)
        object.__setattr__(self, "_kind", k)
        object.__setattr__(self, "_side", s)


    @classmethod
    def parse(cls, text: str, state: GameState | None = None) -> Self:
        verb, rest = split_move(text, VERBS)
        if verb == "double":
            if len(rest) != 1 or rest[0] not in YES_WORDS:
                raise BadInput(f"say 'double yes' or 'double no': {text!r}")
            return cls("double", side="yes" if YES_WORDS[rest[0]] else "no")
        want = 3 if verb == "place" else 2
        if len(rest) != want:
            example = "place red 5 angel" if verb == "place" else "discard blue 3"
            raise BadInput(f"expected e.g. '{example}': {text!r}")
        if rest[0] not in COLOUR_INDEX:
            raise BadInput(f"unknown colour {rest[0]!r} (one of {', '.join(COLOURS)}): {text!r}")
        if not (rest[1].isdecimal() and len(rest[1]) <= 2) or not 1 <= int(rest[1]) <= MAX_VALUE:
            raise BadInput(f"a card value is 1-{MAX_VALUE}, got {rest[1]!r}: {text!r}")
        side = ""
        if verb == "place":
            if rest[2] not in SIDE_WORDS:
                raise BadInput(f"a card goes to the 'angel' or 'devil' side, got {rest[2]!r}: {text!r}")
            side = SIDES[SIDE_WORDS[rest[2]]]
        return cls(verb, rest[0], int(rest[1]), side)


# the moves, made once: PLACE[k][side], DISCARD[k], DOUBLE_NO / DOUBLE_YES
PLACE = [[DiaboloMove("place", COLOURS[kind_colour(k)], kind_value(k), s) for s in SIDES] for k in range(NKINDS)]
DISCARD = [DiaboloMove("discard", COLOURS[kind_colour(k)], kind_value(k)) for k in range(NKINDS)]
# PLACE_OPTIONS[k][mask]: the placements of card k on a row whose open sides are `mask` (bit 1 angel, bit 0 devil)
PLACE_OPTIONS = [[[], [PLACE[k][DEVIL]], [PLACE[k][ANGEL]], [PLACE[k][ANGEL], PLACE[k][DEVIL]]] for k in range(NKINDS)]
DOUBLE_NO = DiaboloMove("double", side="no")
DOUBLE_YES = DiaboloMove("double", side="yes")

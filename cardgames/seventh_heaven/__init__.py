"""In 7th Heaven (Im 7. Himmel, Wolfgang Kramer, FX Schmid 1989), 2-6 players (docs/seventh-heaven.md).

The package follows the rule text: `board` (the partner colours, the track and its special spaces), `cards` (the
sympathy cards), `moves` (every choice a card offers, as a text), `state` (set-up, the opening, turns, exchanges,
special spaces, 7th Heaven and the places, the 2-3 player rules, the text cards, what each player sees) and
`search` (the AI players' hooks); `encoding` serves the OpenSpiel and PettingZoo adapters.
"""

from cardgames.seventh_heaven.board import (
    COLOUR_INDEX,
    COLOURS,
    MIN_TRACK,
    SPECIALS,
    START,
    TRACK_LENGTH,
    Board,
    make_board,
)
from cardgames.seventh_heaven.cards import (
    FORWARD,
    HAND_SIZE,
    KIND,
    KIND_COLOUR,
    KIND_NAME,
    KIND_TYPE,
    KIND_VALUE,
    MUSHROOM_MAX,
    TEXT_CARDS,
    build_deck,
)
from cardgames.seventh_heaven.moves import SeventhHeavenMove
from cardgames.seventh_heaven.state import SeventhHeavenState

__all__ = [
    "COLOUR_INDEX", "COLOURS", "FORWARD", "HAND_SIZE", "KIND", "KIND_COLOUR", "KIND_NAME", "KIND_TYPE", "KIND_VALUE",
    "MIN_TRACK", "MUSHROOM_MAX", "SPECIALS", "START", "TEXT_CARDS", "TRACK_LENGTH", "Board", "SeventhHeavenMove",
    "SeventhHeavenState", "build_deck", "make_board",
]

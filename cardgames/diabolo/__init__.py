"""Diabolo (heaven/hell), Michael Schacht, AMIGO 2006, 3-5 players (docs/diabolo.md).

The package follows the rule text: `cards` (the five colours, the values per colour, the heaven/hell rows and when
a round ends), `moves` (placing, the forced discard and the doubler answer as texts), `state` (the deal, turns,
scoring, rounds, what each player sees) and `search` (the AI players' hooks); `encoding` serves the OpenSpiel and
PettingZoo adapters.
"""

from cardgames.diabolo.cards import (
    ANGEL,
    COLOUR_INDEX,
    COLOURS,
    DEVIL,
    HAND_SIZE,
    MAX_CARDS,
    MAX_PER_SIDE,
    MAX_VALUE,
    NKINDS,
    ROW_CLOSES_AT,
    SIDES,
    VALUES,
    card_text,
    kind,
    kind_colour,
    kind_value,
    parse_values,
)
from cardgames.diabolo.moves import DiaboloMove
from cardgames.diabolo.state import DiaboloState

__all__ = [
    "ANGEL", "COLOUR_INDEX", "COLOURS", "DEVIL", "HAND_SIZE", "MAX_CARDS", "MAX_PER_SIDE", "MAX_VALUE", "NKINDS", "ROW_CLOSES_AT", "SIDES",
    "VALUES", "DiaboloMove", "DiaboloState", "card_text", "kind", "kind_colour", "kind_value", "parse_values",
]

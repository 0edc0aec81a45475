"""Partners (Thomas Bisgaard): a team race game on a track, driven by cards (docs/partners.md).

The package follows the rule text: `cards` (the deck and what each card does), `track` (seats, pawns, homes,
walls, the finish zones, how a pawn walks), `moves` (move texts and the legal moves of a position), `state` (the
game: the deal, the exchange, turns, the winner, what each player sees) and `search` (the AI players' hooks);
`encoding` serves the OpenSpiel and PettingZoo adapters.
"""

from cardgames.partners.cards import (
    CARD_NAMES,
    CARD_ORDER,
    CARD_RANK,
    LEAVE_CARDS,
    STANDARD_DECK,
    STEP_VALUES,
    card_name,
    parse_card,
    parse_deck,
)
from cardgames.partners.moves import ACTIONS, PartnersMove
from cardgames.partners.state import PartnersState
from cardgames.partners.track import (
    BASE,
    COLOURS,
    FINISH,
    LETTERS,
    PAWNS_PER_PLAYER,
    SECTION,
    Track,
    parse_pawn,
    pawn_name,
)

__all__ = [
    "ACTIONS", "BASE", "CARD_NAMES", "CARD_ORDER", "CARD_RANK", "COLOURS", "FINISH", "LEAVE_CARDS", "LETTERS",
    "PAWNS_PER_PLAYER", "SECTION", "STANDARD_DECK", "STEP_VALUES", "PartnersMove", "PartnersState", "Track",
    "card_name", "parse_card", "parse_deck", "parse_pawn", "pawn_name",
]

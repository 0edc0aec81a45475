"""Diabolo's cards and rows: five colours of number cards (the values per colour are a rule option), the hand
size, the heaven/hell rows with their devil and angel sides, and when a round ends.

Cards are small ints ("kinds"; copies of one kind are identical), numbered so that sorting kinds sorts the move
texts (colour names alphabetically, then values); a hand is a short list of kinds.
"""

from __future__ import annotations

from tower.games.errors import BadInput

# --- the cards ----------------------------------------------------------------------------------------------
COLOURS = ("red", "yellow", "green", "purple", "blue")  # also the order in which the rows are scored
VALUES = "1,1,1,1,2,2,2,3,3,3,4,4,5,5"  # per colour: 14 number cards, 70 in all (option `values`)
MAX_VALUE = 9  # the `values` option may use 1-9 (one digit: kind order stays text order)
MIN_CARDS, MAX_CARDS = 5, 20  # cards per colour the `values` option may ask for
NKINDS = len(COLOURS) * MAX_VALUE
HAND_SIZE = 6
DOUBLERS = 1  # one doubler card per player, back in hand every round

# --- placing ------------------------------------------------------------------------------------------------
DEVIL, ANGEL = 0, 1  # left of the heaven/hell card: devil points; right: angel points
SIDES = ("devil", "angel")
MAX_PER_SIDE = 3
ROW_CLOSES_AT = 5
BOTH_OPEN = 3  # a row's open sides as bits: 2 the angel side takes a card, 1 the devil side

# --- end of a round -----------------------------------------------------------------------------------------
CLOSED_ROWS_TO_END = 2
CLOSED_ROWS_TO_END_5P = 3  # with 5 players
#: the phases of a round: cards are placed, then the rows are scored (asking for doublers), and at last the end
PLAY, DOUBLE, OVER = "play", "double", "over"

COLOUR_INDEX = {name: c for c, name in enumerate(COLOURS)}
ALPHA_COLOURS = sorted(range(len(COLOURS)), key=lambda c: COLOURS[c])
ALPHA_RANK = [ALPHA_COLOURS.index(c) for c in range(len(COLOURS))]
KIND_COLOUR = [ALPHA_COLOURS[k // MAX_VALUE] for k in range(NKINDS)]
KIND_VALUE = [k % MAX_VALUE + 1 for k in range(NKINDS)]


def kind(colour: int, value: int) -> int:
    """The kind of a card: its colour's rank among the sorted colour names, then its value."""
    return ALPHA_RANK[colour] * MAX_VALUE + value - 1


def kind_colour(k: int) -> int:
    return KIND_COLOUR[k]


def kind_value(k: int) -> int:
    return KIND_VALUE[k]


def card_text(k: int) -> str:
    return f"{COLOURS[kind_colour(k)]} {kind_value(k)}"


def parse_values(text: str) -> list[int]:
    """The `values` option: comma-separated card values of one colour (1-9), e.g. the default VALUES."""
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise BadInput(f"option 'values' must be comma-separated whole numbers, got {text!r}", "$.options.values") from None
    if not MIN_CARDS <= len(values) <= MAX_CARDS or not all(1 <= v <= MAX_VALUE for v in values):
        raise BadInput(f"option 'values' needs {MIN_CARDS}-{MAX_CARDS} values of 1-{MAX_VALUE}, got {text!r}",
                       "$.options.values")
    return sorted(values)


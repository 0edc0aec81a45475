"""Partners' cards: the deck (a rule option), their names, and what each card does.

Cards are short codes (``"H"`` the heart, ``"1"`` the 1/14, ``"4"`` the back-4, ``"S"`` the switch, ...): hands,
records and moves store them. The rule text lists the cards' values last; everything else reads them from here.
"""

from __future__ import annotations

from tower.games.errors import BadInput

#: card code -> its name in move texts and views, in deck order
CARD_NAMES = {
    "H": "heart", "1": "1/14", "2": "2", "3": "3", "4": "-4", "5": "5", "6": "6", "7": "7", "8": "8",
    "9": "9", "10": "10", "12": "12", "13": "13", "S": "switch",
}
CARD_ORDER = tuple(CARD_NAMES)
CARD_RANK = {code: i for i, code in enumerate(CARD_ORDER)}

# --- the deck (a standing ruling: 110 cards; the `deck` option overrides the counts) ------------------------------
STANDARD_DECK = {"H": 6, **{code: 8 for code in CARD_ORDER if code != "H"}}
HAND_SIZE = 4
DEALS_PER_DEALER = 3

# --- the value of the cards ---------------------------------------------------------------------------------------
#: the cards with the heart symbol: they bring a pawn out of the base
LEAVE_CARDS = frozenset({"H", "8", "13"})
#: card -> the step counts it allows (forward > 0, backward < 0); the 7 and the switch are special
STEP_VALUES: dict[str, tuple[int, ...]] = {
    "1": (1, 14), "2": (2,), "3": (3,), "4": (-4,), "5": (5,), "6": (6,), "8": (8,), "9": (9,),
    "10": (10,), "12": (12,), "13": (13,),
}
SEVEN = 7
#: step count -> the card that gives it
CARD_OF_STEPS = {v: card for card, values in STEP_VALUES.items() for v in values}

_NAME_TO_CARD = {name: code for code, name in CARD_NAMES.items()}
_NAME_TO_CARD.update({"h": "H", "s": "S", "back4": "4", "14": "1", "1": "1", "-4": "4", "4": "4"})


def card_name(code: str) -> str:
    return CARD_NAMES[code]


def parse_card(text: str) -> str:
    """Card code from its name (``heart``, ``1/14``, ``-4``, ``7``, ``switch``); BadInput otherwise."""
    code = _NAME_TO_CARD.get(text.strip().lower())
    if code is None:
        raise BadInput(f"unknown card {text!r} (one of: {', '.join(CARD_NAMES.values())})", "$.card")
    return code


def parse_deck(spec: str) -> dict[str, int]:
    """The `deck` option: ``standard`` or counts like ``heart=6,1/14=8,...`` (unnamed cards: 0)."""
    if spec == "standard":
        return dict(STANDARD_DECK)
    counts = dict.fromkeys(CARD_ORDER, 0)
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, eq, value = part.partition("=")
        if not eq or not (value.strip().isdecimal() and len(value.strip()) <= 4):
            raise BadInput(f"deck entry {part!r} must look like name=count (count 0-9999)", "$.options.deck")
        counts[parse_card(name)] = int(value)
    return counts


def unique(cards: list[str]) -> list[str]:
    """Distinct cards of a hand, in deck order (hands are few: each answer is remembered)."""
    key = tuple(cards)
    out = _UNIQUE.get(key)
    if out is None:
        if len(_UNIQUE) > 100_000:  # a bound; hands of up to five cards make far fewer
            _UNIQUE.clear()
        out = _UNIQUE[key] = sorted(set(cards), key=CARD_RANK.__getitem__)
    return out


_UNIQUE: dict[tuple[str, ...], list[str]] = {}

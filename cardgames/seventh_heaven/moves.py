"""In 7th Heaven's moves: every choice a card offers is part of a move (which pawn a white card moves, which
partner card is taken, how many cards the mushroom draws ...), so people and AIs choose from the same
`legal_moves()` list. Their texts, and the common moves made once.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Self

from cardgames.moves import CardMove, split_move
from cardgames.seventh_heaven.board import COLOUR_INDEX, COLOURS
from cardgames.seventh_heaven.cards import (
    CARD_ALIASES,
    FINGER,
    FOOT_MAX,
    HEART,
    KIND,
    KIND_NAME,
    MUSHROOM_MAX,
)
from tower.games.base import GameState
from tower.games.errors import BadInput

#: the phases of a turn: a card is played; a special space asks for a partner swap; the three-cards card asks
#: everybody to discard; the game is over
PLAY, SWAP, DISCARD, OVER = "play", "swap", "discard", "over"

VERBS = ("play", "trade", "swap", "keep", "discard")


@dataclass(frozen=True)
class SeventhHeavenMove(CardMove):
    """One decision. Text forms (all lower case):

    ``play red+3`` / ``play red>`` move the same-colour pawn; ``play white+3 blue`` / ``play white> blue`` move any
    pawn; ``trade blue+3`` takes the blue partner card instead of moving (2-3 players: ``trade blue+3 give red``);
    ``play heart blue [give red]``, ``play mushroom 3``, ``play cards3``, ``play pepper``, ``play snail``,
    ``play foot 2 red``, ``play cloud``, ``play finger red``; after landing on 4, 8 or 14: ``swap blue [give red]``
    or (8, 14 only) ``keep``; after the three-cards card: ``discard red+3``.
    """

    verb: str
    card: str = ""
    colour: str = ""  # the pawn moved, or the partner card taken
    n: int = 0  # mushroom: cards taken; foot: spaces
    give: str = ""  # 2-3 players: which own partner card is handed over

    __hash__ = CardMove.__hash__

    def __post_init__(self) -> None:
        parts = [self.verb]
        if self.card:
            parts.append(self.card)
        if self.card in ("mushroom", "foot"):
            parts.append(str(self.n))
        if self.colour:
            parts.append(self.colour)
        if self.give:
            parts += ["give", self.give]
        self._set_text(" ".join(parts))


    @classmethod
    def parse(cls, text: str, state: GameState | None = None) -> Self:
        verb, rest = split_move(text, VERBS)
        card = ""
        if verb in ("play", "trade", "discard"):
            if not rest:
                raise BadInput(f"{verb!r} needs a card, e.g. '{verb} red+3': {text!r}")
            card = CARD_ALIASES.get(rest[0], rest[0])
            if card not in KIND:
                raise BadInput(f"unknown card {rest[0]!r} (e.g. red+3, white-1, blue>, white>, heart, foot)")
            rest = rest[1:]
        colour, give, n = "", "", 0
        i = 0
        while i < len(rest):
            word = rest[i]
            if word == "give" and i + 1 < len(rest) and rest[i + 1] in COLOUR_INDEX and not give:
                give = rest[i + 1]
                i += 2
                continue
            if word.isdecimal() and len(word) <= 3 and card in ("mushroom", "foot") and not n:
                n = int(word)
            elif word in COLOUR_INDEX and not colour:
                colour = word
            else:
                raise BadInput(f"cannot read {word!r} in move {text!r}")
            i += 1
        return cls(verb, card, colour, n, give)


INTERN: dict[tuple[str, str, str, int, str], SeventhHeavenMove] = {}


def mv(verb: str, card: str = "", colour: str = "", n: int = 0, give: str = "") -> SeventhHeavenMove:
    """Moves are values: one shared object per distinct move keeps move generation cheap."""
    key = (verb, card, colour, n, give)
    move = INTERN.get(key)
    if move is None:
        move = INTERN[key] = SeventhHeavenMove(verb, card, colour, n, give)
    return move


TEXT_KEY = attrgetter("_text")
# the common moves, made once: PLAY_CARD[k] plays card k, PLAY_ON[k][c] names pawn c, TRADE_CARD[k] exchanges
PLAY_CARD = [mv("play", name) for name in KIND_NAME]
PLAY_ON = [[mv("play", name, colour) for colour in COLOURS] for name in KIND_NAME]
TRADE_CARD = [mv("trade", name) for name in KIND_NAME]
# the moves of the cards with choices (index: the colour named, or 1 + the colour of the partner card handed over)
_GIVEN = [""] + list(COLOURS)
TRADE_GIVE = [[mv("trade", name, "", 0, g) for g in _GIVEN] for name in KIND_NAME]
HEART_ON = [[mv("play", "heart", t, 0, g) for g in _GIVEN] for t in COLOURS]
HEART_BARE = PLAY_CARD[HEART]
MUSHROOM_TAKE = [mv("play", "mushroom", "", n) for n in range(MUSHROOM_MAX + 1)]
FOOT_ON = [[mv("play", "foot", colour, n) for n in range(FOOT_MAX + 1)] for colour in COLOURS]
FOOT_BARE = mv("play", "foot", "", 1)
FINGER_ON = [mv("play", "finger", colour) for colour in COLOURS]
FINGER_BARE = PLAY_CARD[FINGER]
DISCARD_CARD = [mv("discard", name) for name in KIND_NAME]


TEXT_CARD_WORDS = {
    "mushroom": "the mushroom: take {n} cards",
    "cards3": "the three cards: everybody throws away 3 cards and draws 3",
    "pepper": "the pepper pot: the last pawn(s) forward 3",
    "snail": "the snail: the first pawn(s) back 2",
    "cloud": "the cloud: the first pawn(s) back 3",
    "foot": "the foot: the first pawn ({colour}) forward {n}",
    "finger": "the finger: the {colour} partner pawn forward to the next pawn",
    "heart": "the heart: take the {colour} partner card",
}


def card_words(card: str) -> str:
    """`red+3` -> "red +3", `white>` -> "white arrow"."""
    if card.endswith(">"):
        return f"{card[:-1]} arrow"
    colour, sign, n = card.rpartition("+") if "+" in card else card.rpartition("-")
    return f"{colour} {sign}{n}" if colour else card


def move_words(move: SeventhHeavenMove) -> str:
    """A move in words: "play red +3: the red pawn moves", "trade blue +3: take the blue partner card"."""
    give = f", handing over the {move.give} partner card" if move.give else ""
    if move.verb == "play" and move.card in TEXT_CARD_WORDS:
        return "play " + TEXT_CARD_WORDS[move.card].format(n=move.n, colour=move.colour) + give
    if move.verb == "play":
        pawn = move.colour or move.card.rstrip(">").split("+")[0].split("-")[0]
        if move.card.endswith(">"):
            how = "up to the next pawn ahead"
        else:
            n = int(move.card.rsplit("+", 1)[1]) if "+" in move.card else -int(move.card.rsplit("-", 1)[1])
            how = f"forward {n}" if n > 0 else f"back {-n}"
        return f"play {card_words(move.card)}: the {pawn} pawn {how}"
    if move.verb == "trade":
        return f"play {card_words(move.card)} to take the {move.card.split('+')[0].split('-')[0].rstrip('>')} " \
               f"partner card instead of moving{give}"
    if move.verb == "swap":
        return f"swap partner cards: take the {move.colour} one{give}"
    if move.verb == "keep":
        return "keep the partner card"
    if move.verb == "discard":
        return f"throw away {card_words(move.card)} (three cards)"
    return str(move)

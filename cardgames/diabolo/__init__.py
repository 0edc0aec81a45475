"""Diabolo (heaven/hell), Michael Schacht, AMIGO 2006, 3-5 players.

The module follows the rule text from top to bottom: the cards and the five heaven/hell rows, the deal, a turn
(draw, then place a card beside the row of its colour), the placing rules (3 per side, a row closes at 5 cards),
the end of a round (2 closed rows, 3 with 5 players), the scoring of every row (angel points win: the highest hand
sum gains it, doubled by a committed doubler; devil points win: the highest hand sum loses it; equal: nothing) and
the next rounds. Rulings where the text is silent are listed in docs/diabolo.md.

Cards are small ints ("kinds"; copies of one kind are identical), numbered so that sorting kinds sorts the move
texts (colour names alphabetically, then values); a hand is a short list of kinds.
"""

from __future__ import annotations

import math
import random
from bisect import insort
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from cardgames.moves import TextMove, split_move
from tower.games.base import GameState, Move
from tower.games.errors import BadInput, IllegalMove

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

# --- end of a round -----------------------------------------------------------------------------------------
CLOSED_ROWS_TO_END = 2
CLOSED_ROWS_TO_END_5P = 3  # with 5 players

# --- the AI -------------------------------------------------------------------------------------------------
ROLLOUT_RANDOM = 0.1  # share of uniformly random moves in search playouts (the rest follow a quick estimate)
BALANCE_SCALE = 4.0  # how many points of lead make an open row's outcome "likely" in the estimates
DOUBLER_RESERVE = 3.0  # points a still-unused doubler is worth while later angel rows may come
# how strongly a search re-deal believes the others' placements: an unseen card of a colour goes to a player's
# hand with weight exp(INFER_WEIGHT x that player's lean in the colour this round), the pile with weight 1
INFER_WEIGHT = 0.7
ROUND_SPREAD = 9.0  # spread (standard deviation) of one player's points in a round: search copies stop at
#                     the round's end and draw the later rounds' points from a normal distribution this wide

PLAY, DOUBLE, OVER = "play", "double", "over"

COLOUR_INDEX = {name: c for c, name in enumerate(COLOURS)}
SIDE_WORDS = {"angel": ANGEL, "heaven": ANGEL, "right": ANGEL, "devil": DEVIL, "hell": DEVIL, "left": DEVIL}
YES_WORDS = {"yes": True, "y": True, "no": False, "n": False}
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


# --- moves --------------------------------------------------------------------------------------------------
VERBS = ("place", "discard", "double")


@dataclass(frozen=True)
class DiaboloMove(TextMove):
    """One decision. Text forms (lower case; `heaven`/`right` mean angel, `hell`/`left` devil):

    ``place red 5 angel`` / ``place red 5 devil`` puts a red 5 from the hand beside the red row;
    ``discard blue 3`` when no card of the hand can be placed; ``double yes`` / ``double no`` commits (or not)
    the doubler for the row being scored.
    """

    verb: str
    colour: str = ""
    value: int = 0
    side: str = ""  # place: "angel" or "devil"; double: "yes" or "no"

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
        self._set_text(text, text)
        object.__setattr__(self, "_kind", k)
        object.__setattr__(self, "_side", s)

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

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
BOTH_OPEN = 3
DOUBLE_NO = DiaboloMove("double", side="no")
DOUBLE_YES = DiaboloMove("double", side="yes")
TANH_OFFSET = 3 * MAX_VALUE * 2  # row balances lie within +-(3 cards x 9) and one more card
TANH = [math.tanh((i - TANH_OFFSET) / BALANCE_SCALE) for i in range(2 * TANH_OFFSET + 1)]


def _lean(balance: int, closed: bool) -> float:
    """How surely a row ends angel (+1) or devil (-1): exact once closed, an estimate while open."""
    if closed:
        return (balance > 0) - (balance < 0)
    return TANH[balance + TANH_OFFSET]


def _result_view(entry: list[Any]) -> dict[str, Any]:
    """One scored row as the public sees it."""
    c, devil, angel, doubled, sums, points = entry
    return {"colour": COLOURS[c], "devil": devil, "angel": angel,
            "outcome": "gain" if angel > devil else "loss" if devil > angel else "none",
            "doubled": list(doubled), "sums": None if sums is None else list(sums), "points": list(points)}


class DiaboloState(GameState):
    """The state of one game of Diabolo."""

    name: ClassVar[str] = "diabolo"
    title: ClassVar[str] = "Diabolo"
    credit: ClassVar[str] = "Michael Schacht, AMIGO 2006"
    layout: ClassVar[str] = "diabolo-rows"
    encoding: ClassVar[str | None] = "cardgames.diabolo.encoding"
    move_type: ClassVar[type[Move]] = DiaboloMove
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 5
    default_players: ClassVar[int] = 4
    # per round: every turn draws one card (at most MAX_CARDS * 5 - 3 * 4), every row asks each player once
    max_game_length: ClassVar[int] = 5 * (MAX_CARDS * len(COLOURS) + len(COLOURS) * 5)
    default_options: ClassVar[dict[str, Any]] = {"values": VALUES, "hand_size": HAND_SIZE}
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {"hand_size": tuple(range(3, 11))}

    def __init__(self, players: int, seed: int | None = 0, options: dict[str, Any] | None = None) -> None:
        super().__init__(players, seed, options)
        self.values = parse_values(self.options["values"])
        self.hand_size = self.options["hand_size"]
        self.deck_kinds = [kind(c, v) for c in range(len(COLOURS)) for v in self.values]
        if players * self.hand_size >= len(self.deck_kinds):
            raise BadInput(f"{len(self.deck_kinds)} cards are too few to deal {self.hand_size} to {players} players",
                           "$.options")
        self.colour_total = sum(self.values)
        self.to_end = CLOSED_ROWS_TO_END_5P if players == 5 else CLOSED_ROWS_TO_END
        self.scores = [0] * players
        self.round = 0
        self.dealer = players - 1  # so that seat 0, left of the first dealer, begins
        # public scoring log of the current (or last) round: [colour, devil, angel, doubled, sums|None, points]
        self.results: list[list[Any]] = []
        self.horizon = False  # search copies end with the round and guess the later rounds (see determinize)
        self.guessed_winners: list[int] | None = None
        self.last_mover = -1  # who made the last move (public)
        self._proj: list[float] = []
        self._proj_key = -1
        self._deal()

    # --- the deal ---------------------------------------------------------------------------------------
    def _deal(self) -> None:
        """Shuffle all number cards, deal the hands, hand back the doublers; left of the dealer begins."""
        n = self.num_players
        # a shuffle by random sort keys: uniform, seeded, and much quicker than random.shuffle
        deck = sorted(self.deck_kinds, key=lambda _k, r=self.rng.random: r())
        self.hands = []
        for _ in range(n):
            self.hands.append(sorted(deck[-self.hand_size:]))  # hands stay sorted: moves come out in order
            del deck[-self.hand_size:]
        self.deck = deck  # face down; the top card is the last
        self.discards: list[int] = []  # face up, public
        self.shown: list[list[int]] = [[] for _ in range(n)]  # cards known to all, from a shown hand
        # public: per player and colour, the angel points minus the devil points placed this round
        self.leans = [[0] * len(COLOURS) for _ in range(n)]
        self.rows = [[[], []] for _ in COLOURS]  # rows[colour][side] = values placed there
        self.row_sums = [[0, 0] for _ in COLOURS]
        self.closed = [False] * len(COLOURS)
        self.open_sides = [BOTH_OPEN] * len(COLOURS)  # bit 1: the angel side takes a card, bit 0: the devil side
        self.nclosed = 0
        self.doubler = [True] * n
        self.phase = PLAY
        self.turn = (self.dealer + 1) % n
        self.scoring_row = -1
        self.asking: list[int] = []  # doubler decisions still to come for the row being scored
        self.commits: dict[int, bool] = {}  # decided so far, hidden until the row is scored
        self._legal: list[Move] | None = None
        self._start_turn()

    def _start_turn(self) -> None:
        """A turn begins with drawing a card; an empty draw pile ends the round (docs: a ruling)."""
        if not self.deck:
            self._start_scoring()
            return
        insort(self.hands[self.turn], self.deck.pop())

    # --- who is playing ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        if self.phase == PLAY:
            return self.turn
        if self.phase == DOUBLE:
            return self.asking[0]
        return None

    # --- legal moves ------------------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self._legal is None:
            self._legal = self._generate()
        return list(self._legal)

    def _generate(self) -> list[Move]:
        if self.phase == OVER:
            return []
        if self.phase == DOUBLE:
            return [DOUBLE_NO, DOUBLE_YES]
        hand = self.hands[self.turn]  # sorted, and kind order is text order ("angel" < "devil" follows)
        out: list[Move] = []
        open_sides = self.open_sides
        prev = -1
        for k in hand:
            if k != prev:
                out += PLACE_OPTIONS[k][open_sides[KIND_COLOUR[k]]]
                prev = k
        if not out:  # nothing fits: show the hand and discard a card
            out = [DISCARD[k] for k in sorted(set(hand))]
        return out

    def can_place(self, player: int) -> bool:
        """Whether `player` holds a card of a row that is still open (an open row always has a free side)."""
        closed = self.closed
        return any(not closed[KIND_COLOUR[k]] for k in self.hands[player])

    # --- why a move is illegal --------------------------------------------------------------------------
    def explain(self, move: Move) -> IllegalMove | None:
        if self.phase == OVER:
            return IllegalMove("game-over", "the game is over")
        if not isinstance(move, DiaboloMove):
            return IllegalMove("wrong-game", f"{move!r} is not a diabolo move")
        k, verb = move._kind, move.verb  # type: ignore[attr-defined]
        if self.phase == DOUBLE:
            if verb != "double":
                return IllegalMove("scoring-in-progress",
                                   f"the {COLOURS[self.scoring_row]} row is being scored: say 'double yes' or 'double no'")
            return None
        if verb == "double":
            return IllegalMove("no-doubler-decision", "doublers are committed only when a row with more angel "
                                                      "points is scored")
        if k not in self.hands[self.turn]:
            return IllegalMove("not-in-hand", f"you hold no {card_text(k)}")
        c = kind_colour(k)
        if verb == "discard":
            if self.can_place(self.turn):
                return IllegalMove("must-place", "a card may be discarded only when no card of the hand can be placed")
            return None
        if self.closed[c]:
            return IllegalMove("row-closed", f"the {COLOURS[c]} row has {ROW_CLOSES_AT} cards and is closed")
        side = move._side  # type: ignore[attr-defined]
        if len(self.rows[c][side]) >= MAX_PER_SIDE:
            return IllegalMove("side-full", f"the {SIDES[side]} side of the {COLOURS[c]} row already has "
                                            f"{MAX_PER_SIDE} cards")
        return None

    # --- a turn -----------------------------------------------------------------------------------------
    def _apply(self, move: Move) -> None:
        self._legal = None
        k, side = move._kind, move._side  # type: ignore[attr-defined]
        if self.phase == DOUBLE:
            self.last_mover = self.asking.pop(0)
            self._commit(self.last_mover, bool(side))
            return
        p = self.last_mover = self.turn
        self.hands[p].remove(k)
        if move.verb == "discard":
            self.discards.append(k)
            # the hand was shown: everyone now knows what is left in it
            self.shown[p] = sorted(self.hands[p])
            self._next_turn()
            return
        shown = self.shown[p]
        if shown and k in shown:
            shown.remove(k)
        c = KIND_COLOUR[k]
        row = self.rows[c]
        row[side].append(KIND_VALUE[k])
        self.row_sums[c][side] += KIND_VALUE[k]
        self.leans[p][c] += KIND_VALUE[k] if side == ANGEL else -KIND_VALUE[k]
        if len(row[side]) >= MAX_PER_SIDE:
            self.open_sides[c] &= ~(1 << side)
        if len(row[DEVIL]) + len(row[ANGEL]) >= ROW_CLOSES_AT:
            self.closed[c] = True
            self.open_sides[c] = 0
            self.nclosed += 1
            if self.nclosed >= self.to_end:
                self._start_scoring()
                return
        self._next_turn()

    def _next_turn(self) -> None:
        self.turn = (self.turn + 1) % self.num_players
        self._start_turn()

    # --- scoring ----------------------------------------------------------------------------------------
    def colour_sum(self, player: int, colour: int) -> int:
        """The sum of `player`'s hand cards of `colour`."""
        return sum(KIND_VALUE[k] for k in self.hands[player] if KIND_COLOUR[k] == colour)

    def colour_sums(self, player: int) -> list[int]:
        """`player`'s hand sum per colour."""
        sums = [0] * len(COLOURS)
        for k in self.hands[player]:
            sums[KIND_COLOUR[k]] += KIND_VALUE[k]
        return sums

    def _start_scoring(self) -> None:
        self.phase = DOUBLE
        self.results = []
        self.scoring_row = -1
        self._next_row()

    def _next_row(self) -> None:
        """Score rows in order until one needs doubler decisions (more angel points, doublers left)."""
        n = self.num_players
        while self.scoring_row + 1 < len(COLOURS):
            self.scoring_row += 1
            c = self.scoring_row
            if self.row_sums[c][ANGEL] > self.row_sums[c][DEVIL]:
                first = (self.dealer + 1) % n
                self.asking = [p for p in (*range(first, n), *range(first)) if self.doubler[p]]
                if self.asking:
                    self.commits = {}
                    return
            self._score_row(c)
        self._end_round()

    def _commit(self, player: int, yes: bool) -> None:
        self.commits[player] = yes
        if not self.asking:
            self._score_row(self.scoring_row)
            self._next_row()

    def _score_row(self, c: int) -> None:
        """More angel points: the highest hand sums gain them; more devil points: they lose them."""
        devil, angel = self.row_sums[c]
        n = self.num_players
        doubled = sorted(p for p, yes in self.commits.items() if yes)
        for p in doubled:
            self.doubler[p] = False  # spent once committed, whether it pays or not
        self.commits = {}
        points = [0] * n
        sums = None
        if angel != devil:  # the hands' cards of this colour are shown and compared
            sums = [self.colour_sum(p, c) for p in range(n)]
            top = max(sums)
            if top > 0:
                for p in range(n):
                    if sums[p] == top:  # ties for the highest sum all score
                        points[p] = top * (2 if p in doubled else 1) if angel > devil else -top
                        self.scores[p] += points[p]
        self.results.append([c, devil, angel, doubled, sums, points])

    def _end_round(self) -> None:
        self.round += 1
        self.asking = []
        if self.round >= self.num_players:  # as many rounds as players
            self.phase = OVER
            self.scoring_row = -1
            return
        if self.horizon:
            # a search copy: the later rounds are drawn, not played (their deals are unknown anyway)
            spread = ROUND_SPREAD * math.sqrt(self.num_players - self.round)
            final = [s + self.rng.gauss(0.0, spread) for s in self.scores]
            best = max(final)
            self.guessed_winners = [p for p in range(self.num_players) if final[p] == best]
            self.phase = OVER
            self.scoring_row = -1
            return
        self.dealer = (self.dealer + 1) % self.num_players
        keep = self.results
        self._deal()
        self.results = keep  # the last round's scoring stays on show

    # --- the end ----------------------------------------------------------------------------------------
    def result(self) -> dict[str, Any]:
        best = max(self.scores)
        if self.guessed_winners is not None:
            return {"winners": list(self.guessed_winners), "scores": list(self.scores), "rounds": self.round,
                    "guessed": True}
        return {"winners": [p for p in range(self.num_players) if self.scores[p] == best],
                "scores": list(self.scores), "rounds": self.round}

    # --- what a player sees -----------------------------------------------------------------------------
    def public_move(self, move: Move, player: int) -> str:
        """A doubler answer stays secret until every player has answered (all answer at the same time)."""
        if move.verb == "double":  # type: ignore[attr-defined]
            return f"{self.player_label(player)} has chosen whether to double"
        return str(move)

    def public_view(self) -> dict[str, Any]:
        """What everybody sees: the rows, scores, hand sizes, the draw pile's size, discards and shown cards, who
        still holds a doubler, who has answered the doubler question (never the answer) and the last scoring."""
        return {
            "game": self.name,
            "players": self.num_players,
            "labels": [self.player_label(p) for p in range(self.num_players)],
            "round": self.round + (self.phase != OVER),
            "rounds": self.num_players,
            "dealer": self.dealer,
            "phase": self.phase,
            "current_player": self.current_player,
            "rows": [{"colour": COLOURS[c], "devil": list(self.rows[c][DEVIL]), "angel": list(self.rows[c][ANGEL]),
                      "closed": self.closed[c]} for c in range(len(COLOURS))],
            "scoring_row": COLOURS[self.scoring_row] if self.phase == DOUBLE else None,
            "decided": sorted(self.commits),  # who has chosen already, never what
            "scores": list(self.scores),
            "hand_sizes": [len(h) for h in self.hands],
            "shown": [[card_text(k) for k in s] for s in self.shown],
            "deck_size": len(self.deck),
            "discards": [card_text(k) for k in self.discards],
            "doublers": list(self.doubler),
            "results": [_result_view(r) for r in self.results],
            "last_move": (self.public_move(self.history[-1], self.last_mover) if self.history else None),
        }

    def view(self, player: int) -> dict[str, Any]:
        """The public view plus `player`'s hand, his doubler and his own pending doubler answer."""
        return {
            **self.public_view(),
            "player": player,
            "hand": [card_text(k) for k in sorted(self.hands[player])],
            "my_commitment": self.commits.get(player),
            "my_doubler": self.doubler[player],
        }

    def outcome_text(self) -> str:
        """"P2 wins with 39 points; scores: P0 12, P1 -3, P2 39" (a shared first place: "P1 and P2 share ...")."""
        res = self.result()
        winners = res["winners"]
        names = " and ".join(self.player_label(p) for p in winners)
        top = res["scores"][winners[0]]
        head = f"{names} {'wins' if len(winners) == 1 else 'share the win'} with {top} points"
        return head + "; scores: " + ", ".join(f"{self.player_label(p)} {x}" for p, x in enumerate(res["scores"]))

    def describe(self, player: int) -> str:
        v = self.view(player)
        label = self.player_label
        lines = [f"Diabolo, round {v['round']} of {v['rounds']}; you are {label(player)}; dealer {label(v['dealer'])}"]
        lines.append("rows: cards on the devil side (left) count against, on the angel side (right) for; a side "
                     f"holds {MAX_PER_SIDE} cards, a row closes at {ROW_CLOSES_AT}")
        width = 3 * 2 + 2
        for r in v["rows"]:
            devil = " ".join(map(str, r["devil"])).rjust(width)
            angel = " ".join(map(str, r["angel"])).ljust(width)
            mark = "closed" if r["closed"] else ""
            lines.append(f"  {r['colour']:>6}  devil {devil} | {angel} angel  "
                         f"({sum(r['devil'])}:{sum(r['angel'])}) {mark}".rstrip())
        lines.append("scores: " + ", ".join(f"{label(p)} {s}" for p, s in enumerate(v["scores"])))
        lines.append("cards in hand: " + ", ".join(f"{label(p)} {s}" for p, s in enumerate(v["hand_sizes"]))
                     + f"; draw pile {v['deck_size']}")
        lines.append("doublers (each player's one doubler per round; 'in hand' can still double a gain, 'spent' was "
                     "committed to a scored row): "
                     + ", ".join(f"{label(p)} {'in hand' if d else 'spent'}" for p, d in enumerate(v["doublers"])))
        for p, cards in enumerate(v["shown"]):
            if cards and p != player:
                lines.append(f"{label(p)} had to show the hand and still holds: {', '.join(cards)}")
        if v["discards"]:
            lines.append("discarded: " + ", ".join(v["discards"]))
        for r in v["results"]:
            pts = ", ".join(f"{label(p)} {x:+d}" for p, x in enumerate(r["points"]) if x)
            doubled = f"; doubled by {', '.join(label(p) for p in r['doubled'])}" if r["doubled"] else ""
            lines.append(f"scored {r['colour']}: devil {r['devil']} v angel {r['angel']}: {r['outcome']}"
                         + (f" ({pts})" if pts else "") + doubled)
        if v["last_move"]:
            lines.append(f"last move: {v['last_move']}")
        lines.append("your hand: " + (", ".join(v["hand"]) or "empty"))
        if v["phase"] == DOUBLE:
            answered = ", ".join(label(p) for p in v["decided"]) or "nobody yet"
            mine = v["my_commitment"]
            lines.append(f"scoring the {v['scoring_row']} row (more angel points): every player with a doubler in "
                         "hand answers in secret whether to commit it (double yes / double no); the answers are "
                         f"shown together once all are in. Answered: {answered}"
                         + ("" if mine is None else f"; your answer: {'yes' if mine else 'no'}"))
        elif v["phase"] == OVER:
            lines.append("game over: " + self.outcome_text())
        return "\n".join(lines)

    # --- saving -----------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        d = self.base_json()
        d.update({
            "scores": list(self.scores), "round": self.round, "dealer": self.dealer, "phase": self.phase,
            "turn": self.turn, "hands": [sorted(h) for h in self.hands],
            "deck": list(self.deck), "discards": list(self.discards), "shown": [list(s) for s in self.shown],
            "rows": [[list(r[DEVIL]), list(r[ANGEL])] for r in self.rows], "doubler": list(self.doubler),
            "scoring_row": self.scoring_row, "asking": list(self.asking),
            "commits": [[p, yes] for p, yes in sorted(self.commits.items())],
            "results": [list(r) for r in self.results], "leans": [list(x) for x in self.leans],
            "last_mover": self.last_mover,
        })
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        try:
            state = cls(data["players"], data["seed"], data["options"])
            state.load_base_json(data)
            state.scores = list(data["scores"])
            state.round, state.dealer, state.phase = data["round"], data["dealer"], data["phase"]
            state.turn = data["turn"]
            state.hands = [sorted(cards) for cards in data["hands"]]
            state.deck, state.discards = list(data["deck"]), list(data["discards"])
            state.shown = [list(s) for s in data["shown"]]
            state.rows = [[list(r[0]), list(r[1])] for r in data["rows"]]
            state.row_sums = [[sum(r[0]), sum(r[1])] for r in state.rows]
            state.closed = [len(r[0]) + len(r[1]) >= ROW_CLOSES_AT for r in state.rows]
            state.nclosed = sum(state.closed)
            state.open_sides = [0 if closed else (len(r[ANGEL]) < MAX_PER_SIDE) << 1 | (len(r[DEVIL]) < MAX_PER_SIDE)
                                for r, closed in zip(state.rows, state.closed, strict=True)]
            state.doubler = list(data["doubler"])
            state.scoring_row, state.asking = data["scoring_row"], list(data["asking"])
            state.commits = {p: yes for p, yes in data["commits"]}
            state.results = [list(r) for r in data["results"]]
            state.leans = [list(x) for x in data["leans"]]
            state.last_mover = int(data.get("last_mover", -1))
            state._legal = None
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise BadInput(f"not a diabolo state: {exc}") from None
        return state

    def clone(self) -> Self:
        """A fast copy (MCTS clones a lot): only the mutable containers are copied."""
        new = self._copy(random.Random())
        new.rng.setstate(self.rng.getstate())
        return new

    def _copy(self, rng: random.Random) -> Self:
        """A copy drawing its future randomness from `rng`."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.rng = rng
        new._proj_key = -1
        new.history = list(self.history)
        new.scores = list(self.scores)
        new.hands = [h[:] for h in self.hands]
        new.deck = list(self.deck)
        new.discards = list(self.discards)
        new.shown = [list(s) for s in self.shown]
        new.leans = [list(x) for x in self.leans]
        new.rows = [[r[0][:], r[1][:]] for r in self.rows]
        new.row_sums = [s[:] for s in self.row_sums]
        new.closed = list(self.closed)
        new.open_sides = list(self.open_sides)
        new.doubler = list(self.doubler)
        new.asking = list(self.asking)
        new.commits = dict(self.commits)
        new.results = list(self.results)  # entries are never changed once written
        return new

    def determinize(self, player: int, rng: random.Random) -> Self:
        """Re-deal what `player` cannot see: the other hands (beyond shown cards), the draw pile and the other
        players' undisclosed doubler choices for the row being scored.

        During scoring, cards of colours already revealed by a scored row stay where they are; the unseen cards
        of the other colours are re-dealt among the other hands and the draw pile, each hand keeping its size.
        """
        # the copy draws from the searcher's generator: the real one would foretell the next deals
        new = self._copy(rng)
        new.horizon = True
        revealed = {r[0] for r in self.results if r[4] is not None} \
            if self.phase == DOUBLE else set()
        pool: list[int] = []
        counts: list[int] = [0] * self.num_players
        kept_deck: list[int] = []
        for k in self.deck:
            (kept_deck if kind_colour(k) in revealed else pool).append(k)
        for p in range(self.num_players):
            if p == player:
                continue
            known = list(self.shown[p])
            keep: list[int] = []
            for k in new.hands[p]:
                if k in known:
                    known.remove(k)
                    keep.append(k)
                elif KIND_COLOUR[k] in revealed:
                    keep.append(k)
                else:
                    pool.append(k)
                    counts[p] += 1
            new.hands[p] = keep
        rng.shuffle(pool)
        if INFER_WEIGHT:
            pool = self._deal_by_leans(pool, counts, rng)
        for p in range(self.num_players):
            if counts[p]:
                new.hands[p].extend(pool[-counts[p]:])
                new.hands[p].sort()
                del pool[-counts[p]:]
        new.deck = kept_deck + pool
        rng.shuffle(new.deck)
        if self.phase == DOUBLE:
            # the others' hidden choices: re-guessed from their re-dealt hands
            c = self.scoring_row
            new.commits = {p: (yes if p == player else new._wants_double(p, c)) for p, yes in self.commits.items()}
        new._legal = None
        return new

    def _deal_by_leans(self, pool: list[int], counts: list[int], rng: random.Random) -> list[int]:
        """`pool` reordered so that, cut from the end by `counts`, each card more likely lands with a player who
        placed its colour on the angel side this round (the greedy estimate keeps a colour it leads and puts
        colours it does not lead on the devil side), and the rest is the pile."""
        n = self.num_players
        weight = [[math.exp(INFER_WEIGHT * x) for x in self.leans[p]] for p in range(n)]
        room = list(counts)
        pile = len(pool) - sum(counts)
        hands: list[list[int]] = [[] for _ in range(n)]
        rest: list[int] = []
        for k in pool:
            c = KIND_COLOUR[k]
            x = rng.random() * (pile + sum(room[p] * weight[p][c] for p in range(n)))
            for p in range(n):
                x -= room[p] * weight[p][c]
                if x < 0 and room[p]:
                    hands[p].append(k)
                    room[p] -= 1
                    break
            else:
                if pile > 0:
                    rest.append(k)
                    pile -= 1
                else:  # rounding left x just above 0: the card goes to a hand with room
                    p = max(range(n), key=room.__getitem__)
                    hands[p].append(k)
                    room[p] -= 1
        for p in reversed(range(n)):  # the caller cuts hands off the end, seat 0 first
            rest += hands[p]
        return rest

    # --- the AI hooks ---------------------------------------------------------------------------------------
    def _wants_double(self, player: int, colour: int) -> bool:
        """A quick doubler policy reading all hands (used on determinized copies only)."""
        mine = self.colour_sum(player, colour)
        if mine <= 0:
            return False
        return all(self.colour_sum(q, colour) <= mine for q in range(self.num_players) if q != player)

    def heuristic(self, player: int) -> float:
        """Score plus the expected result of the rows still to score (the search ranks players by it).

        Reads all hands: the agents call it on determinized copies only.
        """
        key = len(self.history)
        if self._proj_key != key:  # the search asks for every player in turn: project once
            self._proj, self._proj_key = self._projection(), key
        return self.scores[player] + self._proj[player]

    # MCTS playouts stop at once (tower.games.ai reads this): the leaf is valued by `rewards`, from each player's own
    # view. Playouts reading the re-dealt hands played far worse (see docs/diabolo.md).
    rollout_depth = 0

    def rewards(self) -> list[float]:
        """The search's graded reward: each player's chance to win, from the scores plus the projected rows
        (`heuristic`) and a normal spread of ROUND_SPREAD per round still to come. Exact shares once the game is
        really over. A chance instead of one drawn winner keeps the search's signal from drowning in noise."""
        n = self.num_players
        left = n - self.round  # rounds not played to the end, the current one included
        if self.phase == OVER and self.guessed_winners is None or left <= 0:
            return self.win_shares()
        if self.phase == OVER:
            values = self.scores
        elif self.phase == DOUBLE:
            values = [self.heuristic(p) for p in range(n)]
        else:
            values = [self.scores[p] + self._own_view_value(p) for p in range(n)]
        scale = 2.0 * ROUND_SPREAD * math.sqrt(left)  # Phi(d / (sqrt 2 sigma)) = (1 + erf(d / 2 sigma)) / 2
        chances = [math.prod(0.5 * (1.0 + math.erf((values[p] - values[q]) / scale)) for q in range(n) if q != p)
                   for p in range(n)]
        total = sum(chances)
        return [x / total for x in chances]

    def _own_view_value(self, player: int) -> float:
        """The greedy estimate of this round's open rows for `player`, from `player`'s own view only."""
        others, _ = self._estimates(player)
        mine = self.colour_sums(player)
        total = 0.0
        for c in range(len(COLOURS)):
            devil, angel = self.row_sums[c]
            lean = _lean(angel - devil, len(self.rows[c][0]) + len(self.rows[c][1]) >= ROW_CLOSES_AT)
            total += self._colour_value(mine[c], lean, others[c], self.num_players)
        return total

    def _projection(self) -> list[float]:
        """Expected points per player from the rows not yet scored this round (all hands known)."""
        n = self.num_players
        out = [0.0] * n
        if self.phase == OVER:
            return out
        ended = self.phase == DOUBLE
        start = self.scoring_row if ended else 0
        all_sums = [self.colour_sums(p) for p in range(n)]
        best_gain = [0.0] * n  # the best row for a doubler still in hand
        for c in range(start, len(COLOURS)):
            devil, angel = self.row_sums[c]
            lean = _lean(angel - devil, self.closed[c] or ended)
            if not lean:
                continue
            sums = [all_sums[p][c] for p in range(n)]
            top = max(sums)
            if top <= 0:
                continue
            for p in range(n):
                if sums[p] == top:
                    out[p] += lean * top
                    if lean > 0 and self.doubler[p]:
                        if ended and c == self.scoring_row and p in self.commits:
                            if self.commits[p]:
                                out[p] += top  # committed for this very row
                        elif lean * top > best_gain[p]:
                            best_gain[p] = lean * top
        for p in range(n):
            if self.doubler[p] and not (ended and self.commits.get(p)):
                out[p] += best_gain[p]
        return out

    def _estimates(self, player: int) -> tuple[list[float], float]:
        """From `player`'s information only: the expected hand sum of one other player per colour, and how
        likely a given unseen card sits in another player's hand rather than in the draw pile."""
        n = self.num_players
        unseen = [float(self.colour_total)] * len(COLOURS)
        mine = self.colour_sums(player)
        for c in range(len(COLOURS)):
            unseen[c] -= self.row_sums[c][0] + self.row_sums[c][1] + mine[c]
        for k in self.discards:
            unseen[kind_colour(k)] -= kind_value(k)
        others = sum(map(len, self.hands)) - len(self.hands[player])
        share = others / max(1, others + len(self.deck))
        return [max(0.0, u) * share / (n - 1) for u in unseen], share

    def _colour_value(self, mine: int, lean: float, other: float, n: int) -> float:
        """Expected points from one colour: mine if my sum is likely the highest, minus the others' share."""
        if not lean:
            return 0.0
        # chance that no other player beats `mine`; 1.6 x the mean stands in for the best of the others
        p_top = 1.0 / (1.0 + math.exp((1.6 * other - mine) / 1.5)) if mine else 0.0
        return lean * (mine * p_top - (1.0 - p_top) * 1.6 * other / (n - 1))

    def greedy_score(self, move: Move, player: int) -> float:
        """The greedy player's one-move estimate, from `player`'s own view only."""
        n = self.num_players
        others, _ = self._estimates(player)
        k, side = move._kind, move._side  # type: ignore[attr-defined]
        if move.verb == "double":
            c = self.scoring_row
            mine = self.colour_sum(player, c)
            p_top = 1.0 / (1.0 + math.exp((1.6 * others[c] - mine) / 1.5)) if mine else 0.0
            later = any(self.row_sums[r][ANGEL] > self.row_sums[r][DEVIL] for r in range(c + 1, len(COLOURS)))
            gain = mine * p_top - (DOUBLER_RESERVE if later else 0.0)
            return gain if side else 0.0
        total = 0.0
        my_sums = self.colour_sums(player)
        for c in range(len(COLOURS)):
            devil, angel = self.row_sums[c]
            mine = my_sums[c]
            count = len(self.rows[c][0]) + len(self.rows[c][1])
            if kind_colour(k) == c:
                mine -= kind_value(k)
                if move.verb == "place":
                    if side == ANGEL:
                        angel += kind_value(k)
                    else:
                        devil += kind_value(k)
                    count += 1
            total += self._colour_value(mine, _lean(angel - devil, count >= ROW_CLOSES_AT), others[c], n)
        return total

    def random_move(self, rng: random.Random) -> Move:
        """A uniformly random legal move (the random player's hook: no copy of the move list)."""
        if self._legal is None:
            self._legal = self._generate()
        return self._legal[int(rng.random() * len(self._legal))]

    def rollout_move(self, rng: random.Random) -> Move:
        """Playout policy: mostly the best quick estimate reading the (determinized) hands, sometimes random."""
        if self._legal is None:
            self._legal = self._generate()
        moves = self._legal
        if len(moves) == 1 or rng.random() < ROLLOUT_RANDOM:
            return moves[int(rng.random() * len(moves))]
        if self.phase == DOUBLE:
            return DOUBLE_YES if self._wants_double(self.asking[0], self.scoring_row) else DOUBLE_NO
        if moves[0].verb == "discard":
            return moves[int(rng.random() * len(moves))]
        p = self.turn
        n = self.num_players
        # per colour: my sum and the best other sum, read once
        mine_c = self.colour_sums(p)
        other_c = [0] * len(COLOURS)
        for q in range(n):
            if q != p:
                for c, x in enumerate(self.colour_sums(q)):
                    if x > other_c[c]:
                        other_c[c] = x
        share = 1.0 / (n - 1)
        rows, row_sums = self.rows, self.row_sums
        best, best_value = moves[0], -math.inf
        for move in moves:
            k, side = move._kind, move._side  # type: ignore[attr-defined]
            c, v = KIND_COLOUR[k], KIND_VALUE[k]
            devil, angel = row_sums[c]
            d = angel - devil
            closes = len(rows[c][0]) + len(rows[c][1]) + 1 >= ROW_CLOSES_AT
            before = TANH[d + TANH_OFFSET]
            d += v if side == ANGEL else -v
            after = ((d > 0) - (d < 0)) if closes else TANH[d + TANH_OFFSET]
            mine, other = mine_c[c], other_c[c]
            stake_before = mine if mine >= other else -other * share
            mine -= v
            stake_after = mine if mine >= other else -other * share
            value = after * stake_after - before * stake_before
            if value > best_value:
                best, best_value = move, value
        return best

"""Partners (Thomas Bisgaard): a team race game on a track, driven by cards.

The module follows the rule text top to bottom: set-up (teams, pawns, track, deck), the deal and the partner
exchange, turns (leaving the base, the wall, impossible turns, captures), the finish zone, the winner, and
finally the value of each card. Rulings where the text is silent are documented in docs/partners.md.

Board model (locations are small ints so cloning and move generation stay cheap):
- ``BASE`` (-1): the pawn waits in its owner's base.
- ``0 .. T-1``: the counted track spaces, ``T = 16 * players``. Seat ``q``'s first counted space is ``16 q``.
- ``T + q``: seat ``q``'s home. It lies between spaces ``16 q - 1`` and ``16 q`` and is never counted.
- ``T + N + 4 p + d``: seat ``p``'s finish zone, ``d = 0`` at the entrance (the text's case 4, the largest)
  to ``d = 3`` at the dead end (the text's case 1, the first one to fill).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from tower.games.base import GameState, Move
from tower.games.errors import BadInput, IllegalMove

# --- set-up ----------------------------------------------------------------------------------------
#: Seat colours in clockwise order; partners sit opposite (4 players: yellow+blue against red+green).
COLOURS = ("yellow", "red", "blue", "green", "purple", "orange")
LETTERS = "yrbgpo"
PAWNS_PER_PLAYER = 4
SECTION = 16  # counted spaces per seat section of the track
FINISH = 4  # spaces in each finish zone
BASE = -1

# --- the deck (README ruling: 110 cards, an option) -----------------------------------------------
#: card code -> text name. Codes are what hands, records and moves store.
CARD_NAMES = {
    "H": "heart", "1": "1/14", "2": "2", "3": "3", "4": "-4", "5": "5", "6": "6", "7": "7", "8": "8",
    "9": "9", "10": "10", "12": "12", "13": "13", "S": "switch",
}
CARD_ORDER = tuple(CARD_NAMES)
STANDARD_DECK = {"H": 6, **{code: 8 for code in CARD_ORDER if code != "H"}}
HAND_SIZE = 4
DEALS_PER_DEALER = 3

# --- the value of the cards -----------------------------------------------------------------------
LEAVE_CARDS = frozenset({"H", "8", "13"})  # the cards with the heart symbol
#: card -> the step counts it allows (forward > 0, backward < 0); 7 and switch are special.
STEP_VALUES: dict[str, tuple[int, ...]] = {
    "1": (1, 14), "2": (2,), "3": (3,), "4": (-4,), "5": (5,), "6": (6,), "8": (8,), "9": (9,),
    "10": (10,), "12": (12,), "13": (13,),
}
SEVEN = 7
#: step count -> the card that gives it
CARD_OF_STEPS = {v: card for card, values in STEP_VALUES.items() for v in values}

CARD_RANK = {code: i for i, code in enumerate(CARD_ORDER)}
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


def pawn_name(pawn: int) -> str:
    return f"{LETTERS[pawn // PAWNS_PER_PLAYER]}{pawn % PAWNS_PER_PLAYER + 1}"


def parse_pawn(text: str) -> int:
    text = text.strip().lower()
    if len(text) != 2 or text[0] not in LETTERS or text[1] not in "1234":
        raise BadInput(f"bad pawn {text!r} (a colour letter {'/'.join(LETTERS)} and 1-4, like y2)", "$.pawns")
    return LETTERS.index(text[0]) * PAWNS_PER_PLAYER + int(text[1]) - 1


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


# --- why a walk fails (cheap codes while searching; messages for people) -------------------------
E_BASE, E_PLACED, E_NO_BOUNCE, E_WALL, E_JUMP, E_WALL_BACK, E_STACK = range(-10, -3)
WALK_ERRORS = {
    E_BASE: ("in-base", "{p} is in its base: only a card with the heart brings it out"),
    E_PLACED: ("finish-order", "{p} has reached its place in the finish zone and cannot move any more"),
    E_NO_BOUNCE: ("finish-order", "{p} cannot go that far into the finish zone: no pawn jumps another there, "
                  "and a part of a 7 never backs up"),
    E_WALL: ("wall", "{p} cannot pass a home with its owner's pawn on it: that is a wall"),
    E_JUMP: ("finish-order", "{p} would jump a pawn in the finish zone"),
    E_WALL_BACK: ("wall", "{p} cannot pass that wall backwards: only the wall's owner may"),
    E_STACK: ("stack", "{p} cannot land on a space holding two or more pawns (passing it is fine)"),
}


def walk_error(code: int, pawn: int) -> tuple[str, str]:
    rule, text = WALK_ERRORS[code]
    return rule, text.format(p=pawn_name(pawn))


# --- moves -------------------------------------------------------------------------------------------
ACTIONS = ("give", "out", "step", "seven", "switch", "discard")


@dataclass(frozen=True, slots=True)
class PartnersMove(Move):
    """One decision. `action` is one of:

    ``give`` (exchange `card` with the partner), ``out`` (leave the base with a heart card), ``step``
    (move `pawns[0]` by `steps[0]`, negative with -4), ``seven`` (the 7 split, parts in playing order),
    ``switch`` (swap `pawns`), ``discard`` (no card can be used: the hand goes).
    """

    action: str
    card: str = ""
    pawns: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()

    def __str__(self) -> str:
        a = self.action
        if a == "give":
            return f"give {CARD_NAMES[self.card]}"
        if a == "out":
            return f"{CARD_NAMES[self.card]} out"
        if a == "step":
            return f"{self.steps[0]} {pawn_name(self.pawns[0])}"
        if a == "seven":
            return "7: " + " ".join(f"{pawn_name(p)}+{s}" for p, s in zip(self.pawns, self.steps, strict=True))
        if a == "switch":
            return f"switch {pawn_name(self.pawns[0])} {pawn_name(self.pawns[1])}"
        return "discard"

    def sort_key(self) -> Any:
        return (CARD_RANK.get(self.card, -1), ACTIONS.index(self.action), self.pawns, self.steps)

    @classmethod
    def parse(cls, text: str, state: GameState | None = None) -> Self:
        """Read ``give 7``, ``heart out``, ``5 y2``, ``-4 y2``, ``7: y1+3 y2+4``, ``switch y1 r3``, ``discard``."""
        words = text.strip().lower().replace(":", " : ").split()
        if not words:
            raise BadInput("empty move", "$")
        head = words[0]
        if words == ["discard"]:
            return cls("discard")
        if head == "give" and len(words) == 2:
            return cls("give", parse_card(words[1]))
        if len(words) == 2 and words[1] == "out":
            card = parse_card(head)
            if card not in LEAVE_CARDS:
                raise BadInput(f"{CARD_NAMES[card]} cannot bring a pawn out (heart, 8 or 13 can)", "$")
            return cls("out", card)
        if head in ("switch", "s") and len(words) == 3:
            a, b = parse_pawn(words[1]), parse_pawn(words[2])
            return cls("switch", "S", tuple(sorted((a, b))))
        if head == "7":
            parts = [w for w in words[1:] if w != ":"]
            if not parts:
                raise BadInput("a 7 needs parts like 7: y1+3 y2+4", "$")
            pawns, steps = [], []
            for part in parts:
                name, plus, count = part.partition("+")
                if not plus or not (count.isdecimal() and len(count) <= 2):
                    raise BadInput(f"bad part {part!r} of a 7 (like y1+3)", "$")
                pawns.append(parse_pawn(name))
                steps.append(int(count))
            return cls("seven", "7", tuple(pawns), tuple(steps))
        if len(words) == 2:
            try:
                steps = int(head)
            except ValueError:
                raise BadInput(f"cannot read move {text!r}", "$") from None
            if steps not in CARD_OF_STEPS:
                raise BadInput(f"no card moves {steps} (use 1..14 as on the cards, -4 to go back)", "$")
            return cls("step", CARD_OF_STEPS[steps], (parse_pawn(words[1]),), (steps,))
        raise BadInput(
            f"cannot read move {text!r} (examples: give 7, heart out, 5 y2, -4 y2, 7: y1+3 y2+4, switch y1 r3, "
            "discard)", "$"
        )

    def to_json(self) -> Any:
        return str(self)

    @classmethod
    def from_json(cls, data: Any) -> Self:
        if not isinstance(data, str):
            raise BadInput(f"a partners move is a text like '5 y2', got {data!r}", "$")
        return cls.parse(data)


# --- AI settings (tuned with benchmarks/bench_partners.py) ------------------------------------------
ROLLOUT_RANDOM = 0.2  # share of random moves in playouts, so they do not all follow one line
ROLLOUT_SAMPLE = 6  # 7s and switches looked at in full per playout move before sampling the rest
# the search's leaf value is 0.5 + 0.5 tanh(REWARD_GAIN x heuristic): an ordinary move shifts the heuristic by
# about 0.01, which must show against the exploration term
REWARD_GAIN = 10.0


# --- the game ----------------------------------------------------------------------------------------
class PartnersState(GameState):
    """A game of Partners: 4 players (or the 6-player edition) in teams of two sitting opposite."""

    name: ClassVar[str] = "partners"
    title: ClassVar[str] = "Partners"
    credit: ClassVar[str] = "Thomas Bisgaard (Denmark)"
    layout: ClassVar[str] = "partners-track"
    encoding: ClassVar[str | None] = "cardgames.partners.encoding"
    move_type = PartnersMove
    min_players = 4
    max_players = 6
    player_counts = (4, 6)  # teams of two sitting opposite; 6 is the six-player edition
    default_players = 4
    max_game_length = 20_000
    default_options: ClassVar[dict[str, Any]] = {"deck": "standard", "home_stack": True, "move_limit": 6000}
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {}

    def __init__(self, players: int = 4, seed: int | None = 0, options: dict[str, Any] | None = None) -> None:
        super().__init__(players, seed, options)
        if players % 2:
            raise BadInput("partners needs teams of two sitting opposite: 4 or 6 players", "$.players")
        self.deck_counts = parse_deck(self.options["deck"])
        if sum(self.deck_counts.values()) < HAND_SIZE * players + 1:
            raise BadInput("the deck is too small to deal", "$.options.deck")
        if not 1 <= self.options["move_limit"] <= self.max_game_length:
            raise BadInput(f"move_limit must be 1..{self.max_game_length}", "$.options.move_limit")
        n = players
        self.track = SECTION * n
        self.loc: list[int] = [BASE] * (PAWNS_PER_PLAYER * n)
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.deck: list[str] = [c for c in CARD_ORDER for _ in range(self.deck_counts[c])]
        self.discard: list[str] = []
        self.gives: list[str | None] = [None] * n  # cards chosen for the exchange, not yet swapped
        self.gave: list[str | None] = [None] * n  # what each player gave this deal (he and his partner know)
        self.received: list[str | None] = [None] * n
        #: the card a player knows his partner still holds (the one he gave, until a card of that kind is played)
        self.known: list[str | None] = [None] * n
        self.dealer = n - 1  # so seat 0 (yellow) starts the first deal
        self.deals_left = DEALS_PER_DEALER
        self.phase = "exchange"
        self.turn = 0
        self.winner_team: int | None = None
        self.moves_played = 0
        #: who made each move of `history` (public: the log names the players)
        self.movers: list[int] = []
        self._legal: list[PartnersMove] | None = None
        self.rng.shuffle(self.deck)
        self._deal()

    # --- geometry helpers ----------------------------------------------------------------------------
    def partner(self, player: int) -> int:
        return (player + self.num_players // 2) % self.num_players

    def team_of(self, player: int) -> int:
        return player % (self.num_players // 2)

    def teams(self) -> list[list[int]]:
        half = self.num_players // 2
        return [[t, t + half] for t in range(half)]

    def home(self, seat: int) -> int:
        return self.track + seat

    def finish(self, seat: int, depth: int = 0) -> int:
        return self.track + self.num_players + FINISH * seat + depth

    def relative(self, pawn: int, where: int | None = None) -> float:
        """How far `pawn` has come: 0 own home, 1..64 counted spaces, 65..68 finish, -1 base."""
        where = self.loc[pawn] if where is None else where
        owner = pawn // PAWNS_PER_PLAYER
        t = self.track
        if where == BASE:
            return -1
        if where >= t + self.num_players:
            return t + 1 + (where - self.finish(owner))
        if where >= t:  # someone's home: half a space before that seat's first counted space
            q = where - t
            return 0 if q == owner else (SECTION * (q - owner)) % t + 0.5
        return (where - SECTION * owner) % t + 1

    def in_finish(self, where: int) -> bool:
        return where >= self.track + self.num_players

    def all_home(self, seat: int) -> bool:
        b = seat * PAWNS_PER_PLAYER
        return min(self.loc[b:b + PAWNS_PER_PLAYER]) >= self.track + self.num_players

    def controlled(self, player: int) -> int:
        """Whose pawns `player` moves: his own, or his partner's once all his are in the finish."""
        return self.partner(player) if self.all_home(player) else player

    def wall(self, seat: int, loc: list[int] | None = None) -> bool:
        """A pawn of `seat` on its own home is a wall."""
        loc = self.loc if loc is None else loc
        h = self.track + seat
        b = seat * PAWNS_PER_PLAYER
        return h in (loc[b], loc[b + 1], loc[b + 2], loc[b + 3])

    def blocked(self, pawn: int, loc: list[int] | None = None) -> bool:
        """In the finish with every deeper space filled: the pawn has reached its place for good."""
        loc = self.loc if loc is None else loc
        where = loc[pawn]
        f = self.finish(pawn // PAWNS_PER_PLAYER)
        if where < f or where >= f + FINISH:
            return False
        for x in range(where + 1, f + FINISH):
            if x not in loc:
                return False
        return True

    # --- the deal and the exchange -------------------------------------------------------------------
    def _deal(self) -> None:
        """Deal four cards each; a dealer deals three times, then the next one shuffles everything."""
        n = self.num_players
        if self.deals_left == 0:
            self.dealer = (self.dealer + 1) % n
            self.deals_left = DEALS_PER_DEALER
            self.deck.extend(self.discard)
            self.discard.clear()
            self.rng.shuffle(self.deck)
        if len(self.deck) < HAND_SIZE * n:  # only with a small custom deck
            self.deck.extend(self.discard)
            self.discard.clear()
            self.rng.shuffle(self.deck)
        self.deals_left -= 1
        for _ in range(HAND_SIZE):
            for k in range(1, n + 1):
                self.hands[(self.dealer + k) % n].append(self.deck.pop())
        for hand in self.hands:
            hand.sort(key=CARD_ORDER.index)
        self.gives = [None] * n
        self.gave = [None] * n
        self.received = [None] * n
        self.known = [None] * n
        self.phase = "exchange"
        self.turn = (self.dealer + 1) % n

    def _swap(self) -> None:
        """Both teams swap at once, face down."""
        for p in range(self.num_players):
            card = self.gives[self.partner(p)]
            assert card is not None
            self.hands[p].append(card)
            self.hands[p].sort(key=CARD_ORDER.index)
            self.received[p] = card
            self.gave[p] = self.known[p] = self.gives[p]
        self.gives = [None] * self.num_players
        self.phase = "play"
        self.turn = (self.dealer + 1) % self.num_players

    # --- the game API ------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.phase == "over" else self.turn

    def legal_moves(self) -> list[PartnersMove]:
        if self._legal is None:
            self._legal = self._generate()
        return list(self._legal)

    def random_move(self, rng: random.Random) -> PartnersMove:
        """A uniform draw from `legal_moves()`: the very same `rng.choice` on the same list, so a random player
        makes the same moves with or without this hook; it only saves copying the list."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return rng.choice(legal)

    def _generate(self) -> list[PartnersMove]:
        """The legal moves, built in sort order: by card, then action, pawns, steps."""
        if self.phase == "over":
            return []
        player = self.turn
        hand = self.hands[player]
        cards = _unique(hand)
        if self.phase == "exchange":
            return [_GIVE_MOVES[c] for c in cards]
        seat = self.controlled(player)
        loc = self.loc
        t = self.track
        fin = t + self.num_players
        first = seat * PAWNS_PER_PLAYER
        can_leave = BASE in loc[first:first + PAWNS_PER_PLAYER]
        walls = [q for q in range(self.num_players) if t + q in loc and self.wall(q, loc)]
        start = SECTION * seat
        n_seats = self.num_players
        # what each pawn's moves depend on, worked out once for all the cards
        pawns = []
        for pawn in range(first, first + PAWNS_PER_PLAYER):
            here = loc[pawn]
            if here == BASE:
                continue
            if here >= fin:
                if not self.blocked(pawn, loc):  # a placed pawn has no move with any card: skip it once here
                    pawns.append((pawn, 2, here, 0, 0, False, False, 0))
            elif here >= t:
                pawns.append((pawn, 1, SECTION * (here - t), 0, 0, False, False, 0))
            else:
                boundary = (here // SECTION + 1) * SECTION
                q = here // SECTION
                pawns.append((pawn, 0, here, (here - start) % t, boundary,
                              bool(walls) and (boundary // SECTION) % n_seats in walls,
                              bool(walls) and q != seat and q in walls, here % SECTION))
        moves: list[PartnersMove] = []
        for c in cards:
            if c == "7":
                moves.extend(sorted(self._seven_moves(player), key=_parts_key))
                continue
            if c == "S":
                free = self._switchable()
                moves.extend(_switch_move(a, b) for i, a in enumerate(free) for b in free[i + 1:])
                continue
            if can_leave and c in LEAVE_CARDS:
                moves.append(_OUT_MOVES[c])
            values = STEP_VALUES.get(c)
            if not values:
                continue
            table = _STEP_MOVES[c]
            for pawn, kind, here, rel, boundary, ahead, behind, offset in pawns:
                for v in values:
                    if kind == 0 and (v < 0 or rel + v < t):
                        # the _move fast path inlined (this loop is the hottest of the game): on the track, not
                        # reaching the finish, at most one home passed
                        pos = here + v
                        if v > 0:
                            if ahead and pos >= boundary:
                                continue
                            if pos >= t:
                                pos -= t
                        else:
                            if behind and offset < -v:
                                continue
                            if pos < 0:
                                pos += t
                    elif kind == 1:
                        # on a home (its own, or another's after a switch): no home passed, the finish is far
                        pos = (here + v - 1) % t if v > 0 else (here + v) % t
                    else:
                        if self._move(loc, pawn, v, True, dry=True) >= 0:
                            moves.append(table[pawn][v])
                        continue
                    if pos in loc and loc.count(pos) >= 2:
                        continue
                    moves.append(table[pawn][v])
        return moves or [DISCARD]

    def _switchable(self) -> list[int]:
        """Pawns on the track or a home, alone on their space (not in a base or a finish zone)."""
        loc = self.loc
        fin = self.track + self.num_players
        return [p for p, w in enumerate(loc) if 0 <= w < fin and loc.count(w) == 1]

    def _seven_moves(self, player: int) -> list[PartnersMove]:
        """The 7 split, fast. Pawns whose walks (start, spaces within reach, the pawn or wall that stops them)
        share nothing cannot affect each other, so they fall into independent groups: a lone pawn just lists
        its step counts, a group of pawns that can meet is searched in every order, and the groups' splits
        are combined. If the last own pawns could reach the finish (handing the rest of the 7 to the
        partner's pawns) the full search decides."""
        loc = self.loc
        seat = self._controlled_in(player, loc)
        t = self.track
        fin = t + self.num_players
        first = seat * PAWNS_PER_PLAYER
        cands = [p for p in range(first, first + PAWNS_PER_PLAYER)
                 if loc[p] != BASE and not (loc[p] >= fin and self.blocked(p, loc))]
        if not cands:
            return []
        paths = {p: self._path(loc, p, SEVEN) for p in cands}
        outside = [p for p in range(first, first + PAWNS_PER_PLAYER) if loc[p] < fin]
        if seat == player and all(p in paths and self.relative(p) + SEVEN > t for p in outside):
            return self._seven_search(player)
        groups: list[list[int]] = []
        reach: list[set[int]] = []
        for p in cands:
            cells, stop = paths[p]
            mine = {loc[p], *cells}
            if stop is not None:
                mine.add(stop)
            group = [p]
            for i in range(len(groups) - 1, -1, -1):
                if reach[i] & mine:
                    group = groups.pop(i) + group
                    mine |= reach.pop(i)
            groups.append(sorted(group))
            reach.append(mine)
        tables: list[dict[int, list[tuple[tuple[int, ...], tuple[int, ...]]]]] = []
        for group in groups:
            if len(group) == 1:
                p = group[0]
                table = {0: [((), ())]}
                for s, c in enumerate(paths[p][0], 1):
                    if c >= t or loc.count(c) < 2:  # a stack is passed, never landed on
                        table[s] = [((p,), (s,))]
                tables.append(table)
            else:
                tables.append(self._seven_group(group))
        # combine the groups' splits breadth-first; `room[i]`, the most the groups from i on can use, prunes
        # partial splits that could never add up to 7
        room = [0] * (len(tables) + 1)
        for i in range(len(tables) - 1, -1, -1):
            room[i] = room[i + 1] + max(tables[i])
        partial: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = [(SEVEN, (), ())]
        for i in range(len(tables) - 1):
            table, after = tables[i], room[i + 1]
            partial = [(left - used, pawns + ps, steps + ss) for left, pawns, steps in partial
                       for used, splits in table.items() if used <= left and left - used <= after
                       for ps, ss in splits]
        last = tables[-1]
        return [_seven_move(pawns + ps, steps + ss) for left, pawns, steps in partial
                for ps, ss in last.get(left, ())]

    def _seven_group(self, group: list[int]) -> dict[int, list[tuple[tuple[int, ...], tuple[int, ...]]]]:
        """Every distinct outcome of moving some of `group` (pawns that can meet) 1..7 spaces in all, by amount
        used; each outcome spelled by its first split in sort order."""
        results: dict[int, dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]]] = {}
        seen: set[tuple[Any, ...]] = set()
        stack: list[tuple[list[int], int, int, tuple[int, ...], tuple[int, ...]]] = [(self.loc[:], 0, SEVEN, (), ())]
        while stack:
            loc, moved, left, pawns, steps = stack.pop()
            state_key = (*loc, moved, left)
            if state_key in seen:
                continue
            seen.add(state_key)
            for pawn in group:
                if moved >> pawn & 1 or loc[pawn] == BASE:
                    continue
                for s, nxt in self._seven_steps(loc, pawn, left):
                    parts = ((*pawns, pawn), (*steps, s))
                    by_key = results.setdefault(SEVEN - left + s, {})
                    key = tuple(nxt)
                    old = by_key.get(key)
                    if old is None or parts < old:
                        by_key[key] = parts
                    if s < left:
                        stack.append((nxt, moved | 1 << pawn, left - s, *parts))
        table = {0: [((), ())]}
        for used, by_key in results.items():
            table[used] = list(by_key.values())
        return table

    def _seven_search(self, player: int) -> list[PartnersMove]:
        """All distinct outcomes of splitting 7 over pawns, each moved once, forward, in some order.

        Orders that end in the same position collapse to one move (the first in sort order), which keeps
        the list short; `apply` still accepts any legal order.
        """
        results: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        seen: set[tuple[Any, ...]] = set()
        stack: list[tuple[list[int], int, int, tuple[int, ...], tuple[int, ...]]] = [(self.loc[:], 0, SEVEN, (), ())]
        while stack:
            loc, moved, left, pawns, steps = stack.pop()
            state_key = (*loc, moved, left)
            if state_key in seen:
                continue
            seen.add(state_key)
            seat = self._controlled_in(player, loc)
            first = seat * PAWNS_PER_PLAYER
            for pawn in range(first, first + PAWNS_PER_PLAYER):
                if moved >> pawn & 1 or loc[pawn] == BASE:
                    continue
                for s, nxt in self._seven_steps(loc, pawn, left):
                    if s == left:  # all 7 used: an outcome; keep its first spelling in sort order
                        key = tuple(nxt)
                        parts = ((*pawns, pawn), (*steps, s))
                        old = results.get(key)
                        if old is None or parts < old:
                            results[key] = parts
                    else:
                        stack.append((nxt, moved | 1 << pawn, left - s, (*pawns, pawn), (*steps, s)))
        return [_seven_move(p, s) for p, s in results.values()]

    def _seven_steps(self, loc: list[int], pawn: int, left: int) -> Iterator[tuple[int, list[int]]]:
        """One part of a 7: each count s (1..left) `pawn` can go, with the pawns' places after it. Landing on a
        lone pawn on the track sends that pawn to its base; a stack of two is passed, never landed on."""
        cells, _ = self._path(loc, pawn, left)
        for s, c in enumerate(cells, 1):
            nxt = loc[:]
            if c < self.track and c in loc:
                if loc.count(c) >= 2:
                    continue
                nxt[nxt.index(c)] = BASE
            nxt[pawn] = c
            yield s, nxt

    def _controlled_in(self, player: int, loc: list[int]) -> int:
        b = player * PAWNS_PER_PLAYER
        if min(loc[b:b + PAWNS_PER_PLAYER]) >= self.track + self.num_players:
            return self.partner(player)
        return player

    # --- moving a pawn: the wall, the finish zone, captures ----------------------------------------
    def _move(self, loc: list[int], pawn: int, n: int, bounce: bool, dry: bool = False) -> int:
        """Walk `pawn` `n` spaces (backwards if negative) on `loc`: the destination, or an error code < 0.

        Unless `dry`, `loc` is updated, including a capture. `bounce`: in the finish zone a pawn that cannot go
        on forward backs up for the rest of the count (not for the parts of a 7).
        """
        here = loc[pawn]
        owner = pawn >> 2
        t = self.track
        fin = t + self.num_players
        f0 = fin + FINISH * owner  # own finish entrance
        last = (SECTION * owner - 1) % t  # own last counted space, before own home
        if here == BASE:
            return E_BASE
        if here < t and (n < 0 or (here - SECTION * owner) % t + n < t):
            # the common case, on the track and not reaching the finish: at most one home is passed
            # (no count reaches 16), so arithmetic replaces the walk
            if n > 0:
                pos = here + n
                boundary = (here // SECTION + 1) * SECTION
                if pos >= t:
                    pos -= t
                if here + n >= boundary:
                    q = (boundary // SECTION) % self.num_players
                    if t + q in loc and self.wall(q, loc):
                        return E_WALL
            else:
                pos = here + n
                if pos < 0:
                    pos += t
                if here % SECTION < -n:
                    q = here // SECTION
                    if q != owner and t + q in loc and self.wall(q, loc):
                        return E_WALL_BACK
            if pos in loc:
                if loc.count(pos) >= 2:
                    return E_STACK
                if not dry:
                    loc[loc.index(pos)] = BASE  # captured: back to its base, whoever it belongs to
            if not dry:
                loc[pawn] = pos
            return pos
        if here >= fin and self.blocked(pawn, loc):
            return E_PLACED
        loc[pawn] = -2  # off the board while walking, so it never blocks itself
        forward = n > 0
        k = n if forward else -n
        pos = here
        err = 0
        while k:
            if forward:
                if pos >= fin:
                    nxt = pos + 1
                    if nxt == f0 + FINISH or nxt in loc:
                        if not bounce:
                            err = E_NO_BOUNCE
                            break
                        forward = False
                        continue
                    pos = nxt
                elif pos >= t:
                    pos = SECTION * (pos - t)
                elif pos == last:
                    if f0 in loc:
                        if not bounce:
                            err = E_NO_BOUNCE
                            break
                        forward = False
                        continue
                    pos = f0
                else:
                    nxt = pos + 1
                    if nxt == t:
                        nxt = 0
                    if nxt % SECTION == 0 and t + nxt // SECTION in loc and self.wall(nxt // SECTION, loc):
                        err = E_WALL
                        break
                    pos = nxt
            else:
                if pos >= fin:
                    if pos == f0:
                        pos = last
                    else:
                        pos -= 1
                        if pos in loc:
                            err = E_JUMP
                            break
                elif pos >= t:
                    pos = (SECTION * (pos - t) - 1) % t
                else:
                    if pos % SECTION == 0:
                        q = pos // SECTION
                        if q != owner and t + q in loc and self.wall(q, loc):
                            err = E_WALL_BACK
                            break
                    pos = pos - 1 if pos else t - 1
            k -= 1
        if not err and pos < t and loc.count(pos) >= 2:
            err = E_STACK
        loc[pawn] = here
        if err:
            return err
        if not dry:
            if pos < t and pos in loc:
                for i, w in enumerate(loc):
                    if w == pos:
                        loc[i] = BASE  # captured: back to its base, whoever it belongs to
            loc[pawn] = pos
        return pos

    def _path(self, loc: list[int], pawn: int, k: int) -> tuple[list[int], int | None]:
        """The spaces `pawn` reaches going 1..k forward without bouncing, and the occupied space or wall
        (a home) that cut the walk short (None if nothing did). Landing is not checked here."""
        here = loc[pawn]
        owner = pawn >> 2
        t = self.track
        fin = t + self.num_players
        f0 = fin + FINISH * owner
        last = (SECTION * owner - 1) % t
        cells: list[int] = []
        pos = here
        loc[pawn] = -2
        stop = None
        for _ in range(k):
            if pos >= fin:
                nxt = pos + 1
                if nxt == f0 + FINISH:
                    break
                if nxt in loc:
                    stop = nxt
                    break
            elif pos >= t:
                nxt = SECTION * (pos - t)
            elif pos == last:
                nxt = f0
                if f0 in loc:
                    stop = nxt
                    break
            else:
                nxt = pos + 1 if pos + 1 < t else 0
                if nxt % SECTION == 0 and self.wall(nxt // SECTION, loc):
                    stop = t + nxt // SECTION
                    break
            cells.append(nxt)
            pos = nxt
        loc[pawn] = here
        return cells, stop

    def _leave(self, seat: int, loc: list[int], dry: bool = False) -> tuple[str, str] | None:
        """Bring `seat`'s lowest-numbered base pawn to its home (None if done, else the rule broken)."""
        first = seat * PAWNS_PER_PLAYER
        pawn = next((p for p in range(first, first + PAWNS_PER_PLAYER) if loc[p] == BASE), None)
        if pawn is None:
            return ("base-empty", f"{COLOURS[seat]} has no pawn left in its base")
        h = self.track + seat
        if dry:
            return None
        for i, w in enumerate(loc):
            if w == h and (i // PAWNS_PER_PLAYER != seat or not self.options["home_stack"]):
                loc[i] = BASE  # a stranger on the home (put there by a switch) is captured
        loc[pawn] = h
        return None

    # --- checking and applying moves ---------------------------------------------------------------
    def explain(self, move: Move) -> IllegalMove | None:
        """Why `move` is illegal now, naming the rule (None if it is legal)."""
        if self.phase == "over":
            return IllegalMove("game-over", "the game is over")
        if not isinstance(move, PartnersMove):
            return IllegalMove("wrong-game", f"{move!r} is not a partners move")
        p = self.turn
        hand = self.hands[p]
        if self.phase == "exchange":
            if move.action != "give":
                return IllegalMove("exchange", "first every player gives his partner one card, face down")
            if move.card not in hand:
                return IllegalMove("not-in-hand", f"you hold no {CARD_NAMES.get(move.card, move.card)}")
            return None
        if move.action == "give":
            return IllegalMove("exchange", "the exchange is over for this deal; play a card")
        if move.action == "discard":
            if self.legal_moves() != [PartnersMove("discard")]:
                return IllegalMove("must-play", "you can use a card, so you must play one")
            return None
        if self._legal is not None:
            for m in self._legal:
                if m is move:  # the AI hands back one of our own objects: known legal
                    return None
        if move.card not in hand:
            return IllegalMove("not-in-hand", f"you hold no {CARD_NAMES.get(move.card, move.card)}")
        err = self._play(p, move, self.loc[:])
        return None if err is None else IllegalMove(*err)

    def _own_check(self, player: int, pawn: int, loc: list[int]) -> tuple[str, str] | None:
        if not 0 <= pawn < len(loc):
            return ("no-such-pawn", f"there is no pawn {pawn_name(pawn)} in a {self.num_players}-player game")
        seat = self._controlled_in(player, loc)
        owner = pawn // PAWNS_PER_PLAYER
        if owner == seat:
            return None
        if owner == self.partner(player):
            return ("partner-help", "you move your partner's pawns only once all yours are in the finish")
        return ("own-pawns", f"{pawn_name(pawn)} is not yours to move (only the switch touches other pawns)")

    def _play(self, player: int, move: PartnersMove, loc: list[int]) -> tuple[str, str] | None:
        """Carry out a card play on `loc` (a copy or the real board); the broken rule if it is illegal."""
        a = move.action
        if a == "out":
            if move.card not in LEAVE_CARDS:
                return ("leave-card", "only a card with the heart (heart, 8, 13) brings a pawn out of the base")
            return self._leave(self._controlled_in(player, loc), loc)
        if a == "step":
            if len(move.pawns) != 1 or len(move.steps) != 1 or move.steps[0] not in STEP_VALUES.get(move.card, ()):
                return ("card-value", f"the {CARD_NAMES.get(move.card, move.card)} does not move {move.steps}")
            pawn = move.pawns[0]
            err = self._own_check(player, pawn, loc)
            if err:
                return err
            res = self._move(loc, pawn, move.steps[0], True)
            return walk_error(res, pawn) if res < 0 else None
        if a == "seven":
            if move.card != "7" or len(move.pawns) != len(move.steps) or not move.pawns:
                return ("seven", "a 7 lists its parts, like 7: y1+3 y2+4")
            if any(s < 1 for s in move.steps) or sum(move.steps) != SEVEN:
                return ("seven-total", "all 7 spaces must be used, each part at least 1")
            if len(set(move.pawns)) != len(move.pawns):
                return ("seven-once", "each pawn is moved only once with a 7")
            for pawn, s in zip(move.pawns, move.steps, strict=True):
                err = self._own_check(player, pawn, loc)
                if err:
                    return err
                res = self._move(loc, pawn, s, False)
                if res < 0:
                    return walk_error(res, pawn)
            return None
        if a == "switch":
            if move.card != "S" or len(move.pawns) != 2:
                return ("switch", "the switch names two pawns, like switch y1 r3")
            x, y = move.pawns
            if x == y or not (0 <= x < len(loc) and 0 <= y < len(loc)):
                return ("switch", "the switch swaps two different pawns")
            fin = self.track + self.num_players
            for pawn in (x, y):
                w = loc[pawn]
                if w == BASE:
                    return ("switch-base", f"{pawn_name(pawn)} is in its base, not on the board")
                if w >= fin:
                    return ("switch-finish", f"{pawn_name(pawn)} is in a finish zone and cannot be switched")
                if loc.count(w) > 1:
                    return ("switch-stack", f"{pawn_name(pawn)} shares its space with another pawn")
            loc[x], loc[y] = loc[y], loc[x]
            return None
        return ("not-legal", f"{move} is not a move")

    def _apply(self, move: Move) -> None:
        assert isinstance(move, PartnersMove)
        p = self.turn
        n = self.num_players
        self._legal = None
        self.movers.append(p)
        if move.action == "give":
            self.hands[p].remove(move.card)
            self.gives[p] = move.card
            for k in range(1, n + 1):
                q = (p + k) % n
                if self.gives[q] is None:
                    self.turn = q
                    break
            else:
                self._swap()
            return
        self.moves_played += 1
        mate = self.partner(p)
        if move.action == "discard":
            self.discard.extend(self.hands[p])
            if self.known[mate] in self.hands[p]:
                self.known[mate] = None  # the partner's card has left the hand
            self.hands[p].clear()
        else:
            self.hands[p].remove(move.card)
            self.discard.append(move.card)
            if self.known[mate] == move.card:
                self.known[mate] = None  # maybe his card, maybe another copy: the partner can't be sure
            if move.action == "step":  # already checked by explain: just walk
                self._move(self.loc, move.pawns[0], move.steps[0], True)
            else:
                err = self._play(p, move, self.loc)
                assert err is None, err
            # only the player's team can have brought pawns home (a switch never touches a finish zone), and
            # only if the card moved a pawn into a finish zone
            if (move.pawns and move.action != "switch" and max(self.loc[q] for q in move.pawns) >= self.track
                    + self.num_players and self.all_home(p) and self.all_home(mate)):
                self.winner_team = self.team_of(p)
                self.phase = "over"
                return
        if self.moves_played >= self.options["move_limit"]:
            self.phase = "over"  # a draw: the table gave up (never seen in ordinary play)
            return
        for k in range(1, n + 1):
            q = (p + k) % n
            if self.hands[q]:
                self.turn = q
                return
        self._deal()

    def result(self) -> dict[str, Any]:
        teams = self.teams()
        home = [sum(1 for pawn in range(PAWNS_PER_PLAYER * s, PAWNS_PER_PLAYER * (s + 1))
                    if self.in_finish(self.loc[pawn])) for s in range(self.num_players)]
        team_home = [home[a] + home[b] for a, b in teams]
        winners = [] if self.winner_team is None else list(teams[self.winner_team])
        return {
            "winners": winners,
            "scores": [team_home[self.team_of(p)] for p in range(self.num_players)],
            "teams": teams,
            "winning_team": self.winner_team,
            "pawns_home": home,
            "moves": self.moves_played,
        }

    # --- what a player sees ------------------------------------------------------------------------
    def where_text(self, where: int) -> str:
        """A location as people say it: base, space 1..64 (yellow's first space is 1), home-r, finish-y1."""
        t = self.track
        if where == BASE:
            return "base"
        if where < t:
            return str(where + 1)
        if where < t + self.num_players:
            return f"home-{LETTERS[where - t]}"
        seat, depth = divmod(where - t - self.num_players, FINISH)
        return f"finish-{LETTERS[seat]}{FINISH - depth}"  # the text's numbering: 1 is the deepest case

    def player_label(self, player: int) -> str:
        """The seat and its colour, e.g. "P1 red"."""
        return f"P{player} {COLOURS[player]}"

    def public_move(self, move: Move, player: int) -> str:
        """A card given in the exchange is face down: the others learn only that one was given."""
        assert isinstance(move, PartnersMove)
        if move.action == "give":
            return f"{self.player_label(player)} passed a card to the partner"
        return str(move)

    def public_view(self) -> dict[str, Any]:
        """What everybody sees: the pawns, the cards played, hand sizes, who has given in the exchange (never
        which card), whose turn it is and the recent moves as told to all."""
        recent = min(12, len(self.movers))  # a state saved before `movers` existed has none
        log = [self.public_move(m, p) if m.action == "give" else f"{self.player_label(p)}: {m}"  # type: ignore[attr-defined]
               for m, p in zip(self.history[len(self.history) - recent:], self.movers[-recent:], strict=True)]
        return {
            "game": self.name,
            "players": self.num_players,
            "colours": [COLOURS[s] for s in range(self.num_players)],
            "labels": [self.player_label(s) for s in range(self.num_players)],
            "teams": self.teams(),
            "phase": self.phase,
            "current_player": self.current_player,
            "dealer": self.dealer,
            "deals_left": self.deals_left,
            "pawns": {pawn_name(i): self.where_text(w) for i, w in enumerate(self.loc)},
            "locations": list(self.loc),
            "hand_sizes": [len(h) for h in self.hands],
            "exchanged": [g is not None for g in self.gives],
            "discard": [CARD_NAMES[c] for c in self.discard],
            "deck_size": len(self.deck),
            "moves_played": self.moves_played,
            "log": log,
            "winners": self.result()["winners"] if self.phase == "over" else [],
        }

    def view(self, player: int) -> dict[str, Any]:
        """The public view plus what `player` alone (with his partner, for the exchange) knows: his hand, the card
        he is giving, what he gave and received this deal, and the card he knows his partner still holds."""
        def name(card: str | None) -> str | None:
            return None if card is None else CARD_NAMES[card]

        return {
            **self.public_view(),
            "you": player,
            "hand": [CARD_NAMES[c] for c in self.hands[player]],
            "giving": name(self.gives[player]),
            "gave": name(self.gave[player]),
            "received": name(self.received[player]),
            "partner_holds": name(self.known[player]),
        }

    def outcome_text(self) -> str:
        """"P0 yellow and P2 blue win: all eight pawns home; pawns home: yellow+blue 8, red+green 5"."""
        res = self.result()
        homes = "; pawns home: " + ", ".join(
            "+".join(COLOURS[s] for s in team) + f" {res['scores'][team[0]]}" for team in res["teams"])
        if not res["winners"]:
            return (f"nobody wins: the game stopped at the move limit ({self.options['move_limit']} card plays)"
                    + homes)
        names = " and ".join(self.player_label(p) for p in res["winners"])
        return f"{names} win: all {2 * PAWNS_PER_PLAYER} pawns of the team are home" + homes

    def describe(self, player: int) -> str:
        """A terminal picture of `view(player)`: each seat's pawns, the hand, the exchange, the last moves."""
        v = self.view(player)
        lines = []
        for seat, label in enumerate(v["labels"]):
            pawns = [f"{pawn_name(seat * PAWNS_PER_PLAYER + i)}:{v['pawns'][pawn_name(seat * PAWNS_PER_PLAYER + i)]}"
                     for i in range(PAWNS_PER_PLAYER)]
            marks = []
            if seat == player:
                marks.append("you")
            elif seat == self.partner(player):
                marks.append("partner")
            if seat == v["dealer"]:
                marks.append("dealer")
            if seat == v["current_player"]:
                marks.append("to play")
            tag = f" ({', '.join(marks)})" if marks else ""
            lines.append(f"{label:<9} home before space {SECTION * seat + 1:>2}, {v['hand_sizes'][seat]} cards"
                         f"{tag}: {' '.join(pawns)}")
        lines.append(f"places: base = in the base; 1-{self.track} = a track space (1 is yellow's first); home-r = "
                     "on red's home; finish-b1..4 = blue's finish zone (1 is the deepest case)")
        lines.append(f"phase: {v['phase']}; your hand: {', '.join(v['hand']) or '-'}")
        if v["phase"] == "exchange":
            given = [v["labels"][s] for s, done in enumerate(v["exchanged"]) if done]
            lines.append("exchange: each player passes one card face down to the partner; given so far: "
                         + (", ".join(given) or "nobody"))
        if v["giving"]:
            lines.append(f"you are giving: {v['giving']} (your partner receives it when everybody has given)")
        if v["gave"] or v["received"]:
            lines.append(f"this deal's exchange: you gave {v['gave']}, you received {v['received']}")
        if v["partner_holds"]:
            lines.append(f"your partner still holds the {v['partner_holds']} you gave (until a card of that kind "
                         "is played)")
        if v["discard"]:
            lines.append(f"last card played: {v['discard'][-1]} ({len(v['discard'])} in the middle)")
        if v["log"]:
            lines.append("last moves: " + "; ".join(v["log"][-8:]))
        if v["phase"] == "over":
            lines.append("game over: " + self.outcome_text())
        return "\n".join(lines)

    # --- saving, copying, hidden information -------------------------------------------------------
    _FIELDS = ("loc", "hands", "deck", "discard", "gives", "gave", "received", "known", "dealer", "deals_left",
               "phase", "turn", "winner_team", "moves_played", "movers")

    def to_json(self) -> dict[str, Any]:
        data = self.base_json()
        for key in self._FIELDS:
            value = getattr(self, key)
            data[key] = [list(x) for x in value] if key == "hands" else (list(value) if isinstance(value, list)
                                                                         else value)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        try:
            state = cls(data["players"], data["seed"], data["options"])
            for key in cls._FIELDS:
                value = data[key] if key != "movers" else data.get(key, [])
                setattr(state, key, [list(x) for x in value] if key == "hands" else
                        (list(value) if isinstance(value, list) else value))
            state.load_base_json(data)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, BadInput):
                raise
            raise BadInput(f"not a partners state: {exc}", "$") from None
        state._legal = None
        return state

    def clone(self) -> Self:
        """A fast copy (no JSON): MCTS clones a lot."""
        new = self._copy()
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        return new

    def _copy(self) -> Self:
        """Everything but the random generator, which is shared until the caller replaces it."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.loc = self.loc[:]
        new.hands = [h[:] for h in self.hands]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.gives = self.gives[:]
        new.gave = self.gave[:]
        new.received = self.received[:]
        new.known = self.known[:]
        new.history = self.history[:]
        new.movers = self.movers[:]
        return new

    def determinize(self, player: int, rng: random.Random) -> Self:
        """Re-deal what `player` cannot see: other hands, the cards in the exchange, the deck order."""
        new = self._copy()  # gets its own generator below
        n = self.num_players
        mate = self.partner(player)
        counts = dict(self.deck_counts)
        keep = self.known[player]  # kept up to date from public plays only (see _apply)
        for c in (*self.hands[player], *self.discard, self.gives[player], keep):
            if c is not None:
                counts[c] -= 1
        pool = [c for c in CARD_ORDER for _ in range(counts[c])]
        rng.shuffle(pool)
        for q in range(n):
            if q == player:
                continue
            size = len(self.hands[q])
            hand = [keep] if q == mate and keep is not None else []
            while len(hand) < size:
                hand.append(pool.pop())
            hand.sort(key=CARD_ORDER.index)
            new.hands[q] = hand
            if self.gives[q] is not None:
                new.gives[q] = pool.pop()
            if q != mate:
                new.known[q] = new.gave[q] = new.received[q] = None
        new.known[mate] = new.gave[mate] = None  # what the partner knows about my hand is not mine to guess
        new.deck = pool
        new.rng = random.Random(rng.random())
        new._legal = None
        return new

    # --- AI hooks ------------------------------------------------------------------------------------
    def progress(self, pawn: int, where: int | None = None) -> float:
        """Rough worth of a pawn's place: 0 in the base, more the further it came, most in the finish."""
        where = self.loc[pawn] if where is None else where
        if where == BASE:
            return 0.0
        r = self.relative(pawn, where)
        if r > self.track:  # in the finish: a big bonus, and deeper is better
            return 20.0 + r + 6.0 * (r - self.track)
        return 12.0 + r

    def _progress_table(self) -> list[list[float]]:
        """progress() for every pawn and location (index location + 1), made once per table size."""
        table = _PROGRESS_TABLES.get(self.num_players)
        if table is None:
            size = self.track + self.num_players * (1 + FINISH) + 1
            table = [[self.progress(p, w - 1) for w in range(size)] for p in range(len(self.loc))]
            _PROGRESS_TABLES[self.num_players] = table
        return table

    def heuristic(self, player: int, loc: list[int] | None = None) -> float:
        """Team progress minus the best other team's, scaled to about [-1, 1]."""
        loc = self.loc if loc is None else loc
        table = self._progress_table()
        half = self.num_players // 2
        if half == 2:  # the usual game, spelled out because the AI calls this very often
            a = (table[0][loc[0] + 1] + table[1][loc[1] + 1] + table[2][loc[2] + 1] + table[3][loc[3] + 1]
                 + table[8][loc[8] + 1] + table[9][loc[9] + 1] + table[10][loc[10] + 1] + table[11][loc[11] + 1])
            b = (table[4][loc[4] + 1] + table[5][loc[5] + 1] + table[6][loc[6] + 1] + table[7][loc[7] + 1]
                 + table[12][loc[12] + 1] + table[13][loc[13] + 1] + table[14][loc[14] + 1]
                 + table[15][loc[15] + 1])
            diff = a - b if player % 2 == 0 else b - a
        else:
            totals = [0.0] * half
            for pawn, w in enumerate(loc):
                totals[(pawn // PAWNS_PER_PLAYER) % half] += table[pawn][w + 1]
            diff = totals[player % half] - max(totals[t] for t in range(half) if t != player % half)
        return diff / (2 * PAWNS_PER_PLAYER * (self.track + 40))

    # the search (tower.games.ai MCTSAgent) values a node by `rewards` at once instead of playing out: playouts of
    # this long game are noisy and slow (docs/partners.md has the measurements)
    rollout_depth = 0
    # measured against the greedy team (benchmarks/bench_partners.py, n=100 each): 600 iterations won 65-67 %
    # at c = 0.1, 0.3 and 1.0; 200 iterations 59 %
    search_exploration = 0.3
    search_iterations = 600

    def rewards(self) -> list[float]:
        """The search's graded reward per player: 1 for the winning team, 0 for the others at the end; before
        it 0.5 + 0.5 tanh(REWARD_GAIN x heuristic), so every margin of progress counts."""
        if self.phase == "over":
            return self.win_shares()
        return [0.5 + 0.5 * math.tanh(REWARD_GAIN * self.heuristic(p)) for p in range(self.num_players)]

    def win_shares(self) -> list[float]:
        """A team's win is each partner's whole win (a draw at the move limit wins nobody anything)."""
        winners = self.result()["winners"]
        return [1.0 if p in winners else 0.0 for p in range(self.num_players)]

    #: how much a card is worth keeping (rough, for the exchange)
    _KEEP = {"H": 3, "1": 5, "2": 2, "3": 2, "4": 6, "5": 3, "6": 3, "7": 7, "8": 5, "9": 4, "10": 4, "12": 4,
             "13": 6, "S": 6}

    def greedy_score(self, move: PartnersMove, player: int) -> float:
        """One-move look-ahead: team progress after the move, with a nudge to give the partner what he lacks."""
        if move.action == "give":
            mate = self.partner(player)
            need = 0.0
            in_base = sum(1 for i in range(PAWNS_PER_PLAYER) if self.loc[mate * PAWNS_PER_PLAYER + i] == BASE)
            if move.card in LEAVE_CARDS and in_base:
                need += 2.0 + in_base
            return need - self._KEEP[move.card]
        if move.action == "discard":
            return 0.0
        loc = self.loc[:]
        self._play(player, move, loc)
        value = self.heuristic(player, loc)
        # a tie-break that keeps the strong cards for later
        return value - 0.0005 * self._KEEP[move.card]

    def rollout_move(self, rng: random.Random) -> PartnersMove:
        """Playouts: the greedy choice, scored cheaply (a step only changes its own pawn and maybe a victim);
        sometimes a random move, and only a sample of the many 7 and switch moves is looked at."""
        moves = self.legal_moves()
        if len(moves) == 1 or rng.random() < ROLLOUT_RANDOM:
            return rng.choice(moves)
        p = self.turn
        if self.phase == "exchange":
            return max(moves, key=lambda m: self.greedy_score(m, p))
        table = self._progress_table()
        loc = self.loc
        t = self.track
        half = self.num_players // 2
        team = p % half
        best = moves[0]
        best_value = -1e9
        others = 0
        for m in moves:
            a = m.action
            if a == "step":
                pawn = m.pawns[0]
                here = loc[pawn]
                dest = self._move(loc, pawn, m.steps[0], True, dry=True)
                value = table[pawn][dest + 1] - table[pawn][here + 1]
                if dest < t and dest in loc:
                    victim = loc.index(dest)
                    loss = table[victim][dest + 1]
                    value += -loss if (victim // PAWNS_PER_PLAYER) % half == team else loss
            elif a == "out":
                seat = self._controlled_in(p, loc)
                value = table[seat * PAWNS_PER_PLAYER][t + seat + 1]
            else:
                others += 1
                if others > ROLLOUT_SAMPLE and rng.random() < 0.7:
                    continue
                after = loc[:]
                self._play(p, m, after)
                value = self._diff(loc, after, team)
            value -= 0.05 * self._KEEP[m.card]
            if value > best_value:
                best, best_value = m, value
        return best

    def _diff(self, before: list[int], after: list[int], team: int) -> float:
        """Change of (own team's progress - the others') from `before` to `after`."""
        table = self._progress_table()
        half = self.num_players // 2
        total = 0.0
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            if a != b:
                change = table[i][a + 1] - table[i][b + 1]
                total += change if (i // PAWNS_PER_PLAYER) % half == team else -change
        return total


DISCARD = PartnersMove("discard")
_OUT_MOVES = {card: PartnersMove("out", card) for card in LEAVE_CARDS}
#: card -> pawn -> steps -> the move; step moves are few and made very often, so each is made once
_STEP_MOVES: dict[str, list[dict[int, PartnersMove]]] = {
    card: [{v: PartnersMove("step", card, (pawn,), (v,)) for v in values}
           for pawn in range(PAWNS_PER_PLAYER * len(COLOURS))]
    for card, values in STEP_VALUES.items()
}
_GIVE_MOVES = {card: PartnersMove("give", card) for card in CARD_ORDER}
_SWITCH_MOVES: dict[tuple[int, int], PartnersMove] = {}


def _switch_move(a: int, b: int) -> PartnersMove:
    move = _SWITCH_MOVES.get((a, b))
    if move is None:
        move = _SWITCH_MOVES[(a, b)] = PartnersMove("switch", "S", (a, b))
    return move


_SEVEN_MOVES: dict[tuple[tuple[int, ...], tuple[int, ...]], PartnersMove] = {}


def _seven_move(pawns: tuple[int, ...], steps: tuple[int, ...]) -> PartnersMove:
    """7 splits are many and recur all game long: make each once."""
    move = _SEVEN_MOVES.get((pawns, steps))
    if move is None:
        move = _SEVEN_MOVES[(pawns, steps)] = PartnersMove("seven", "7", pawns, steps)
    return move


def _parts_key(move: PartnersMove) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return move.pawns, move.steps  # the sort key among moves of one card and action


_PROGRESS_TABLES: dict[int, list[list[float]]] = {}


def _unique(cards: list[str]) -> list[str]:
    """Distinct cards of a hand, in deck order."""
    return sorted(set(cards), key=CARD_RANK.__getitem__)

"""Partners' moves: their text, what a card does to the pawns, and the legal moves of a position.

In the rule text's order: the exchange (``give``), leaving the base (``heart out``), plain steps (``5 y2``,
``-4 y2``), the 7 split (``7: y1+3 y2+4``), the switch (``switch y1 r3``) and the impossible turn (``discard``).
Functions here read a position (a `Track` and a pawn list ``loc``); the state (state.py) owns the position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Self

from cardgames.moves import CardMove
from cardgames.partners.cards import (
    CARD_NAMES,
    CARD_OF_STEPS,
    CARD_ORDER,
    CARD_RANK,
    LEAVE_CARDS,
    SEVEN,
    STEP_VALUES,
    parse_card,
)
from cardgames.partners.track import (
    BASE,
    COLOURS,
    FINISH,
    PAWNS_PER_PLAYER,
    SECTION,
    Track,
    parse_pawn,
    pawn_name,
    walk_error,
)
from tower.games.base import GameState
from tower.games.errors import BadInput

ACTIONS = ("give", "out", "step", "seven", "switch", "discard")
#: the parts of a 7 split: the pawns and their counts, in playing order
Parts = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class PartnersMove(CardMove):
    """One decision. `action` is one of:

    ``give`` (exchange `card` with the partner), ``out`` (leave the base with a heart card), ``step``
    (move `pawns[0]` by `steps[0]`, negative with -4), ``seven`` (the 7 split, parts in playing order),
    ``switch`` (swap `pawns`), ``discard`` (no card can be used: the hand goes).
    """

    action: str
    card: str = ""
    pawns: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()

    __hash__ = CardMove.__hash__

    def __post_init__(self) -> None:
        self._set_text(_text(self))

    def sort_key(self) -> Any:
        """Card by card in deck order, then action, pawns and steps (the order `legal_moves()` is built in)."""
        return (CARD_RANK.get(self.card, -1), ACTIONS.index(self.action), self.pawns, self.steps)

    @classmethod
    def parse(cls, text: str, state: GameState | None = None) -> Self:
        """Read ``give 7``, ``heart out``, ``5 y2``, ``-4 y2``, ``7: y1+3 y2+4``, ``switch y1 r3``, ``discard``."""
        if not isinstance(text, str):
            raise BadInput(f"a partners move is a text like '5 y2', got {text!r}", "$")
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


def _text(m: PartnersMove) -> str:
    a = m.action
    if a == "give":
        return f"give {CARD_NAMES[m.card]}"
    if a == "out":
        return f"{CARD_NAMES[m.card]} out"
    if a == "step":
        return f"{m.steps[0]} {pawn_name(m.pawns[0])}"
    if a == "seven":
        return "7: " + " ".join(f"{pawn_name(p)}+{s}" for p, s in zip(m.pawns, m.steps, strict=True))
    if a == "switch":
        return f"switch {pawn_name(m.pawns[0])} {pawn_name(m.pawns[1])}"
    return "discard"


# --- the moves, each made once (move generation hands out these objects) ------------------------------------------
DISCARD = PartnersMove("discard")
GIVE_MOVES = {card: PartnersMove("give", card) for card in CARD_ORDER}
OUT_MOVES = {card: PartnersMove("out", card) for card in LEAVE_CARDS}
#: card -> pawn -> steps -> the move
STEP_MOVES: dict[str, list[dict[int, PartnersMove]]] = {
    card: [{v: PartnersMove("step", card, (pawn,), (v,)) for v in values}
           for pawn in range(PAWNS_PER_PLAYER * len(COLOURS))]
    for card, values in STEP_VALUES.items()
}
#: pawn a -> pawn b (a < b) -> the switch of the two
SWITCH_MOVES = [[PartnersMove("switch", "S", (a, b)) if a < b else DISCARD for b in range(PAWNS_PER_PLAYER * len(COLOURS))]
                for a in range(PAWNS_PER_PLAYER * len(COLOURS))]
_SEVEN_MOVES: dict[tuple[tuple[int, ...], tuple[int, ...]], PartnersMove] = {}


def seven_move(pawns: tuple[int, ...], steps: tuple[int, ...]) -> PartnersMove:
    """7 splits are many and recur all game long: make each once."""
    move = _SEVEN_MOVES.get((pawns, steps))
    if move is None:
        move = _SEVEN_MOVES[(pawns, steps)] = PartnersMove("seven", "7", pawns, steps)
    return move


# --- what a card does ---------------------------------------------------------------------------------------------
def own_check(board: Track, player: int, pawn: int, loc: list[int]) -> tuple[str, str] | None:
    """Whether `player` may move `pawn`: his own, or his partner's once all his own are home."""
    if not 0 <= pawn < len(loc):
        return ("no-such-pawn", f"there is no pawn {pawn_name(pawn)} in a {board.players}-player game")
    seat = board.controlled_in(player, loc)
    owner = pawn // PAWNS_PER_PLAYER
    if owner == seat:
        return None
    if owner == board.partner(player):
        return ("partner-help", "you move your partner's pawns only once all yours are in the finish")
    return ("own-pawns", f"{pawn_name(pawn)} is not yours to move (only the switch touches other pawns)")


def play_card(board: Track, player: int, move: PartnersMove, loc: list[int]) -> tuple[str, str] | None:
    """Carry out a card play on `loc` (a copy or the real board); the broken rule if it is illegal."""
    a = move.action
    if a == "out":
        if move.card not in LEAVE_CARDS:
            return ("leave-card", "only a card with the heart (heart, 8, 13) brings a pawn out of the base")
        return board.leave(board.controlled_in(player, loc), loc)
    if a == "step":
        if len(move.pawns) != 1 or len(move.steps) != 1 or move.steps[0] not in STEP_VALUES.get(move.card, ()):
            return ("card-value", f"the {CARD_NAMES.get(move.card, move.card)} does not move {move.steps}")
        pawn = move.pawns[0]
        err = own_check(board, player, pawn, loc)
        if err:
            return err
        res = board.walk(loc, pawn, move.steps[0], True)
        return walk_error(res, pawn) if res < 0 else None
    if a == "seven":
        if move.card != "7" or len(move.pawns) != len(move.steps) or not move.pawns:
            return ("seven", "a 7 lists its parts, like 7: y1+3 y2+4")
        if any(s < 1 for s in move.steps) or sum(move.steps) != SEVEN:
            return ("seven-total", "all 7 spaces must be used, each part at least 1")
        if len(set(move.pawns)) != len(move.pawns):
            return ("seven-once", "each pawn is moved only once with a 7")
        for pawn, s in zip(move.pawns, move.steps, strict=True):
            err = own_check(board, player, pawn, loc)
            if err:
                return err
            res = board.walk(loc, pawn, s, False)
            if res < 0:
                return walk_error(res, pawn)
        return None
    if a == "switch":
        if move.card != "S" or len(move.pawns) != 2:
            return ("switch", "the switch names two pawns, like switch y1 r3")
        x, y = move.pawns
        if x == y or not (0 <= x < len(loc) and 0 <= y < len(loc)):
            return ("switch", "the switch swaps two different pawns")
        for pawn in (x, y):
            w = loc[pawn]
            if w == BASE:
                return ("switch-base", f"{pawn_name(pawn)} is in its base, not on the board")
            if w >= board.fin:
                return ("switch-finish", f"{pawn_name(pawn)} is in a finish zone and cannot be switched")
            if loc.count(w) > 1:
                return ("switch-stack", f"{pawn_name(pawn)} shares its space with another pawn")
        loc[x], loc[y] = loc[y], loc[x]
        return None
    return ("not-legal", f"{move} is not a move")


# --- the legal moves of a position --------------------------------------------------------------------------------
def exchange_moves(cards: list[str]) -> list[PartnersMove]:
    """The exchange: give one card of the hand (`cards`: its distinct cards in deck order)."""
    return [GIVE_MOVES[c] for c in cards]


def card_plays(board: Track, loc: list[int], cards: list[str], player: int) -> list[PartnersMove]:
    """Every legal card play of `player` holding `cards` (distinct, in deck order), built in sort order: by card,
    then action, pawns, steps; `[DISCARD]` if no card can be used."""
    seat = board.controlled_in(player, loc)
    first = seat * PAWNS_PER_PLAYER
    occupied = set(loc)  # one pass over the pawns answers "is anyone there" for the rest of the call
    # no two pawns share a place outside the bases: no landing place can be a stack
    single = len(occupied) - (BASE in occupied) == len(loc) - loc.count(BASE)
    taken = -1  # the own finish cases taken, as bits (worked out once a pawn needs them)
    # each pawn's step moves by card, with what decides them (made once per pawn and place)
    rows = _STEP_TABLES.get(board.players) or _new_step_tables(board)
    tables = []
    can_leave = False
    for pawn in range(first, first + PAWNS_PER_PLAYER):
        here = loc[pawn]
        if here < 0:
            can_leave = True
            continue
        table = rows[pawn][here] or _step_table(board, pawn, here)
        depth = table.depth
        if depth >= 0:
            if taken < 0:
                f0 = here - depth
                taken = ((f0 in occupied) | (f0 + 1 in occupied) << 1 | (f0 + 2 in occupied) << 2
                         | (f0 + 3 in occupied) << 3)
            if taken >> depth + 1 == _DEEPER[depth]:
                continue  # every deeper case is taken: it has reached its place for good, no card moves it
        tables.append(table)
    walls = -1  # the seats with a wall, as bits (worked out when a step passes a home)
    moves: list[PartnersMove] = []
    for c in cards:
        if c == "7":
            moves.extend(seven_moves(board, loc, player, occupied, single))
            continue
        if c == "S":
            free = switchable(board, loc, single)
            for i, a in enumerate(free):
                moves += map(SWITCH_MOVES[a].__getitem__, free[i + 1:])
            continue
        if can_leave and c in LEAVE_CARDS:
            moves.append(OUT_MOVES[c])
        if c not in STEP_VALUES:
            continue
        for table in tables:
            plain, places, passing, routed = table[c]
            if single:
                moves += plain
            else:
                for move, pos in zip(plain, places, strict=True):
                    if not (pos in occupied and loc.count(pos) >= 2):  # a stack is passed, never landed on
                        moves.append(move)
            for move, pos, seat_passed in passing:
                if walls < 0:
                    t = board.size
                    walls = 0
                    for q in range(board.players):
                        if t + q in occupied and board.wall(q, loc):
                            walls |= 1 << q
                if walls >> seat_passed & 1:
                    continue  # a wall stands on the home the pawn would pass
                if single or not (pos in occupied and loc.count(pos) >= 2):
                    moves.append(move)
            for move, routes in routed:
                if taken < 0:
                    f0 = board.finish(seat)
                    taken = ((f0 in occupied) | (f0 + 1 in occupied) << 1 | (f0 + 2 in occupied) << 2
                             | (f0 + 3 in occupied) << 3)
                pos = routes.get(taken)
                if pos is None:
                    pos = routes[taken] = board.route(loc, table.pawn, move.steps[0], True, taken)
                if pos >= 0 and (single or not (pos < board.size and pos in occupied and loc.count(pos) >= 2)):
                    moves.append(move)
    return moves or [DISCARD]


#: depth in the finish zone -> the deeper cases as bits, all taken
_DEEPER = tuple((1 << FINISH - 1 - d) - 1 for d in range(FINISH))
#: a pawn's step moves by one card, in sort order (larger counts come later and pass more): the moves that pass
#: no home and their destinations; (move, destination, seat) for those passing that seat's home (a wall there
#: stops them); (move, routes) for those reaching the finish zone or starting in it, whose destination
#: `Track.route` finds from the owner's finish cases taken (routes remembers it by those cases, as bits).
StepMoves = tuple[tuple[PartnersMove, ...], tuple[int, ...], tuple[tuple[PartnersMove, int, int], ...],
                  tuple[tuple[PartnersMove, dict[int, int]], ...]]


class _PawnSteps(dict[str, StepMoves]):
    """The step moves of one pawn on one place, by card (`Track.walk` worked out once, for a card when first
    asked)."""

    __slots__ = ("board", "pawn", "here", "depth")

    def __init__(self, board: Track, pawn: int, here: int) -> None:
        super().__init__()
        self.board = board
        self.pawn = pawn
        self.here = here
        # the depth in its finish zone, -1 outside it
        self.depth = here - board.finish(pawn // PAWNS_PER_PLAYER) if here >= board.fin else -1

    def __missing__(self, card: str) -> StepMoves:
        board, pawn, here = self.board, self.pawn, self.here
        t = board.size
        owner = pawn // PAWNS_PER_PLAYER
        rel = (here - SECTION * owner) % t
        plain: list[PartnersMove] = []
        places: list[int] = []
        passing: list[tuple[PartnersMove, int, int]] = []
        routed: list[tuple[PartnersMove, dict[int, int]]] = []
        for v in STEP_VALUES[card]:
            move = STEP_MOVES[card][pawn][v]
            if here >= board.fin or (here < t and v > 0 and rel + v >= t):
                routed.append((move, {}))
                continue
            if here >= t:
                # on a home (its own, or another's after a switch): no home passed, the finish is far
                start = SECTION * (here - t)
                pos, passed = (start + v - 1) % t if v > 0 else (start + v) % t, -1
            elif v > 0:
                boundary = (here // SECTION + 1) * SECTION
                pos, passed = (here + v) % t, (boundary // SECTION) % board.players if here + v >= boundary else -1
            else:
                q = here // SECTION
                pos, passed = (here + v) % t, q if here % SECTION < -v and q != owner else -1
            if passed < 0 and not passing:
                plain.append(move)
                places.append(pos)
            else:
                passing.append((move, pos, passed if passed >= 0 else board.players))
        steps = self[card] = (tuple(plain), tuple(places), tuple(passing), tuple(routed))
        return steps


#: seats -> pawn -> place -> its _PawnSteps (made when first needed)
_STEP_TABLES: dict[int, list[list[_PawnSteps | None]]] = {}


def _new_step_tables(board: Track) -> list[list[_PawnSteps | None]]:
    size = board.fin + FINISH * board.players
    rows: list[list[_PawnSteps | None]] = [[None] * size for _ in range(board.pawns)]
    _STEP_TABLES[board.players] = rows
    return rows


def _step_table(board: Track, pawn: int, here: int) -> _PawnSteps:
    steps = _STEP_TABLES[board.players][pawn][here] = _PawnSteps(board, pawn, here)
    return steps


def _parts_key(move: PartnersMove) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return move.pawns, move.steps  # the sort key among moves of one card and action


def switchable(board: Track, loc: list[int], single: bool = False) -> list[int]:
    """Pawns on the track or a home, alone on their space (not in a base or a finish zone). `single`: the caller
    knows that no two pawns share a place outside the bases."""
    fin = board.fin
    if single:
        return [p for p, w in enumerate(loc) if 0 <= w < fin]
    return [p for p, w in enumerate(loc) if 0 <= w < fin and loc.count(w) == 1]


# --- the 7 split --------------------------------------------------------------------------------------------------
#: the sorted 7 splits of pawns that cannot meet, by (pawn, the step counts it may take as a bit mask) for each:
#: such splits recur all game long, so they are combined and sorted once
_SEVEN_SPLITS: dict[tuple[tuple[int, int], ...], list[PartnersMove]] = {}
_SEVEN_SPLITS_MAX = 20_000  # entries kept before the memo starts afresh (a bound, never reached in a game)
#: the splits of a group of pawns that can meet, by what they depend on (see _seven_keys)
_GROUP_SPLITS: dict[Any, dict[int, list[tuple[tuple[int, ...], tuple[int, ...]]]]] = {}


def seven_moves(board: Track, loc: list[int], player: int, occupied: set[int] | None = None,
                single: bool | None = None) -> list[PartnersMove]:
    """The 7 split in sort order (by pawns, then steps), fast. Pawns whose walks (start, spaces within reach, the
    pawn or wall that stops them) share nothing cannot affect each other, so they fall into independent groups: a
    lone pawn just lists its step counts, a group of pawns that can meet is searched in every order, and the
    groups' splits are combined. If the last own pawns could reach the finish (handing the rest of the 7 to the
    partner's pawns) the full search decides."""
    seat = board.controlled_in(player, loc)
    t = board.size
    fin = board.fin
    first = seat * PAWNS_PER_PLAYER
    cands = [p for p in range(first, first + PAWNS_PER_PLAYER)
             if loc[p] != BASE and not (loc[p] >= fin and board.blocked(p, loc))]
    if not cands:
        return []
    paths = {p: board.path(loc, p, SEVEN) for p in cands}
    outside = [p for p in range(first, first + PAWNS_PER_PLAYER) if loc[p] < fin]
    if seat == player and all(p in paths and board.relative(p, loc[p]) + SEVEN > t for p in outside):
        return sorted(seven_search(board, loc, player), key=_parts_key)
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
    if occupied is None or single is None:
        occupied = set(loc)
        single = len(occupied) - (BASE in occupied) == len(loc) - loc.count(BASE)
    parts = _seven_keys(board, loc, groups, paths, occupied, single)
    key = None if parts is None else (board.players, *parts)
    if key is not None:
        known = _SEVEN_SPLITS.get(key)
        if known is not None:
            return known
    tables: list[dict[int, list[tuple[tuple[int, ...], tuple[int, ...]]]]] = []
    for i, group in enumerate(groups):
        if len(group) == 1:
            p = group[0]
            table = {0: [((), ())]}
            for s, c in enumerate(paths[p][0], 1):
                if c >= t or loc.count(c) < 2:  # a stack is passed, never landed on
                    table[s] = [((p,), (s,))]
            tables.append(table)
        elif parts is None:
            tables.append(_seven_group(board, loc, group))
        else:  # a group's splits recur too, in other combinations
            part = parts[i]
            ranked = part[0] == "track"
            key = part[2:] if ranked else part  # on the track, the same for any pawns so placed
            table = _GROUP_SPLITS.get(key)
            if table is None:
                if len(_GROUP_SPLITS) >= _SEVEN_SPLITS_MAX:
                    _GROUP_SPLITS.clear()
                table = _seven_group(board, loc, group)
                if ranked:  # remembered by the pawns' ranks in the group
                    rank = {p: r for r, p in enumerate(group)}
                    table = {used: [(tuple(rank[p] for p in ps), ss) for ps, ss in splits]
                             for used, splits in table.items()}
                _GROUP_SPLITS[key] = table
            if ranked:
                table = {used: [(tuple(group[r] for r in ps), ss) for ps, ss in splits]
                         for used, splits in table.items()}
            tables.append(table)
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
    moves = sorted((seven_move(pawns + ps, steps + ss) for left, pawns, steps in partial
                    for ps, ss in last.get(left, ())), key=_parts_key)
    if key is not None:
        if len(_SEVEN_SPLITS) >= _SEVEN_SPLITS_MAX:
            _SEVEN_SPLITS.clear()
        _SEVEN_SPLITS[key] = moves
    return moves


def _seven_keys(board: Track, loc: list[int], groups: list[list[int]],
                paths: dict[int, tuple[Sequence[int], int | None]], occupied: set[int],
                single: bool) -> list[Any] | None:
    """What the 7 splits of each group depend on, when that is little enough to remember them by; None when the
    splits must be worked out afresh.

    A lone pawn's splits depend only on the counts it may take. A group of pawns that can meet depends only on
    where its pawns stand, where the walls are and which of the owner's finish cases are taken: the other pawns can
    only be captured, which changes nothing for the group's walks, as long as no space holds two pawns (checked:
    then the splits are worked out afresh). On the track, away from the finish, only the distances count."""
    t = board.size
    parts: list[Any] = []
    for group in groups:
        if len(group) == 1:
            p = group[0]
            cells = paths[p][0]
            if single:  # every count the path allows may be taken
                parts.append((p, (1 << len(cells) + 1) - 2))
            else:
                parts.append((p, sum(1 << s for s, c in enumerate(cells, 1) if c >= t or loc.count(c) < 2)))
            continue
        if not single:
            return None
        if all(loc[p] < t and (loc[p] - SECTION * (p // PAWNS_PER_PLAYER)) % t + SEVEN < t for p in group):
            # all on the track, too far from the finish zone to reach it: where the pawns stand counts only
            # relative to each other and to the homes they could pass (and whether a wall stands there)
            base = loc[group[0]]
            in_reach = set()  # the walls within reach, by distance (a home without a wall changes nothing)
            for p in group:
                boundary = (loc[p] // SECTION + 1) * SECTION
                if loc[p] + SEVEN >= boundary and board.wall((boundary // SECTION) % board.players, loc):
                    in_reach.add((boundary - base) % t)
            # the splits name the group's pawns by their rank in it: the same for any pawns so placed
            parts.append(("track", tuple(group), tuple((loc[p] - base) % t for p in group), *sorted(in_reach)))
            continue
        f0 = board.finish(group[0] // PAWNS_PER_PLAYER)
        taken = (f0 in occupied) | (f0 + 1 in occupied) << 1 | (f0 + 2 in occupied) << 2 | (f0 + 3 in occupied) << 3
        walls = 0
        for q in range(board.players):
            if t + q in occupied and board.wall(q, loc):
                walls |= 1 << q
        parts.append(("near", walls, taken, *(loc[p] for p in group), *group))
    return parts


def _seven_parts(board: Track, start: list[int],
                 movers: Callable[[list[int]], Iterable[int]]) -> Iterator[tuple[list[int], int, Parts]]:
    """Every way of using part or all of a 7, each pawn moved once, forward, in some order: (the pawns' places
    after it, the count used, its parts). `movers(loc)`: the pawns that may take a part from position `loc`.
    Positions reached again with the same pawns moved and the same count left are not explored twice."""
    seen: set[tuple[Any, ...]] = set()
    stack: list[tuple[list[int], int, int, tuple[int, ...], tuple[int, ...]]] = [(start[:], 0, SEVEN, (), ())]
    while stack:
        loc, moved, left, pawns, steps = stack.pop()
        state_key = (*loc, moved, left)
        if state_key in seen:
            continue
        seen.add(state_key)
        for pawn in movers(loc):
            if moved >> pawn & 1 or loc[pawn] == BASE:
                continue
            for s, nxt in _seven_steps(board, loc, pawn, left):
                parts = ((*pawns, pawn), (*steps, s))
                yield nxt, SEVEN - left + s, parts
                if s < left:
                    stack.append((nxt, moved | 1 << pawn, left - s, *parts))


def _seven_group(board: Track, start: list[int], group: list[int]) -> dict[int, list[Parts]]:
    """Every distinct outcome of moving some of `group` (pawns that can meet) 1..7 spaces in all, by amount
    used; each outcome spelled by its first split in sort order."""
    results: dict[int, dict[tuple[int, ...], Parts]] = {}
    for nxt, used, parts in _seven_parts(board, start, lambda _loc: group):
        by_key = results.setdefault(used, {})
        key = tuple(nxt)
        old = by_key.get(key)
        if old is None or parts < old:
            by_key[key] = parts
    table = {0: [((), ())]}
    for used, by_key in results.items():
        table[used] = list(by_key.values())
    return table


def seven_search(board: Track, start: list[int], player: int) -> list[PartnersMove]:
    """All distinct outcomes of splitting 7 over pawns, each moved once, forward, in some order (the pawns of
    the player, then his partner's once his own are home).

    Orders that end in the same position collapse to one move (the first in sort order), which keeps
    the list short; a state still accepts any legal order.
    """
    def movers(loc: list[int]) -> range:
        first = board.controlled_in(player, loc) * PAWNS_PER_PLAYER
        return range(first, first + PAWNS_PER_PLAYER)

    results: dict[tuple[int, ...], Parts] = {}
    for nxt, used, parts in _seven_parts(board, start, movers):
        if used == SEVEN:  # all 7 used: an outcome; keep its first spelling in sort order
            key = tuple(nxt)
            old = results.get(key)
            if old is None or parts < old:
                results[key] = parts
    return [seven_move(p, s) for p, s in results.values()]


def _seven_steps(board: Track, loc: list[int], pawn: int, left: int) -> Iterator[tuple[int, list[int]]]:
    """One part of a 7: each count s (1..left) `pawn` can go, with the pawns' places after it. Landing on a
    lone pawn on the track sends that pawn to its base; a stack of two is passed, never landed on."""
    cells, _ = board.path(loc, pawn, left)
    t = board.size
    for s, c in enumerate(cells, 1):
        nxt = loc[:]
        if c < t and c in loc:
            if loc.count(c) >= 2:
                continue
            nxt[nxt.index(c)] = BASE
        nxt[pawn] = c
        yield s, nxt


def _pawn_words(pawn: int) -> str:
    return f"{COLOURS[pawn // PAWNS_PER_PLAYER]} pawn {pawn % PAWNS_PER_PLAYER + 1}"


def move_words(move: PartnersMove) -> str:
    """A move in words: "play the 5: yellow pawn 2 forward 5"."""
    card = CARD_NAMES.get(move.card, move.card)
    if move.action == "give":
        return f"hand the {card} to the partner"
    if move.action == "out":
        return f"play the {card}: bring a pawn out of the base onto its home"
    if move.action == "step":
        n = move.steps[0]
        way = f"back {-n}" if n < 0 else f"forward {n}"
        return f"play the {card}: {_pawn_words(move.pawns[0])} {way}"
    if move.action == "seven":
        parts = ", ".join(f"{_pawn_words(p)} forward {n}" for p, n in zip(move.pawns, move.steps, strict=True))
        return f"play the 7: {parts}"
    if move.action == "switch":
        a, b = move.pawns
        return f"play the switch: swap {_pawn_words(a)} and {_pawn_words(b)}"
    if move.action == "discard":
        return "throw the hand away (no card in it can be used)"
    return str(move)

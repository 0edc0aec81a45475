"""The search's playouts of In 7th Heaven, made fast: the same moves as `rollout_move` followed by `_apply`, drawn
from the same random numbers, so a search decides exactly as it did with the slow path (tests compare the two).

A playout spends its time choosing a card to play. The slow path lists the legal moves, sorts them by text and
prices each one; here each distinct card in hand is priced once, the moves come from tables made at import, and
only the few moves with the best price (or, for the random share, the whole list) are sorted. Swaps and discards
for the three-cards card are priced the same way; only the opening play, once a game, takes the slow path.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from cardgames.seventh_heaven.board import COLOUR_INDEX, START
from cardgames.seventh_heaven.cards import (
    CARDS3,
    CLOUD_STEPS,
    FINGER,
    FOOT,
    FOOT_MAX,
    HEART,
    KIND,
    KIND_COLOUR,
    KIND_NAME,
    KIND_TYPE,
    KIND_VALUE,
    MUSHROOM,
    MUSHROOM_MAX,
    NUM,
    PEPPER,
    PEPPER_STEPS,
    SNAIL,
    SNAIL_STEPS,
    TEXT,
    WHITE,
)
from cardgames.seventh_heaven.moves import (
    DISCARD,
    DISCARD_CARD,
    FINGER_BARE,
    FINGER_ON,
    FOOT_BARE,
    FOOT_ON,
    HEART_BARE,
    HEART_ON,
    MUSHROOM_TAKE,
    OVER,
    PLAY,
    PLAY_CARD,
    PLAY_ON,
    SWAP,
    TEXT_KEY,
    TRADE_CARD,
    TRADE_GIVE,
    SeventhHeavenMove,
)

#: the state a playout runs on, a `SeventhHeavenState`: not imported, as state.py imports this module (through
#: search.py) and the package has no import cycles, not even for type checking
SeventhHeavenState = Any

ROLLOUT_RANDOM = 0.25  # share of random moves in search playouts (the rest follow a quick estimate)


def playout(state: SeventhHeavenState, rng: random.Random, limit: int) -> None:
    """Play on until the game is over or `limit` moves are made, each move `rollout_move(rng)` and applied without
    asking again whether it is legal (as the search's `_play` does)."""
    history = state.history
    apply = state._apply
    gains = _gains(state.length, state.board.jumps)
    for _ in range(limit):
        phase = state.phase
        if phase == PLAY and not state.opening:
            move = choose(state, state.turn, rng, gains)
        elif phase == SWAP:
            move = _choose_swap(state, rng)
        elif phase == DISCARD:
            move = _choose_discard(state, rng)
        elif phase == OVER:
            return
        else:  # the opening play, once a game
            move = state.rollout_move(rng)  # type: ignore[assignment]
        apply(move)
        history.append(move)


_GAINS: dict[tuple[int, tuple[tuple[int, int], ...]], list[list[int]]] = {}


def _gains(length: int, jumps: dict[int, int]) -> list[list[int]]:
    """gains[space][k]: how far number card k takes a pawn from `space`, after a jump (0 for other cards); one
    table per board."""
    key = (length, tuple(sorted(jumps.items())))
    table = _GAINS.get(key)
    if table is None:

        def land(space: int) -> int:  # never behind the start nor past 7th Heaven; then a jump
            space = min(length, max(START, space))
            return jumps.get(space, space)

        table = _GAINS[key] = [[land(here + KIND_VALUE[k]) - here if KIND_TYPE[k] == NUM else 0
                                for k in range(len(KIND_NAME))] for here in range(length + 1)]
    return table


def choose(state: SeventhHeavenState, p: int, rng: random.Random, gains: list[list[int]]) -> SeventhHeavenMove:
    """`rollout_move(rng)` in the play phase after the opening: the move `p` plays (`gains` from `_gains`)."""
    kinds = set(state.hands[p])
    if len(kinds) == 1:  # one card may offer one move only: then no random number is drawn
        listing = state._generate()
        if len(listing) == 1 or rng.random() < ROLLOUT_RANDOM:
            return rng.choice(listing)
    elif rng.random() < ROLLOUT_RANDOM:  # two cards offer two moves at least
        return rng.choice(state._generate())  # a random move: the listing decides
    pos, length, holder = state.pos, state.length, state.holder
    lead = max(pos)
    live: range | list[int] = range(state.ncol)
    if lead >= length:  # some pawns are in 7th Heaven: the leader is the first of the others
        live = [c for c, q in enumerate(pos) if q < length]
        lead = max([pos[c] for c in live]) if live else length
    pairs = state.pairs
    if pairs or holder.count(p) != 1:
        mine = [c for c in live if holder[c] == p]
    else:  # 4-6 players hold one partner card each
        c = holder.index(p)
        mine = [c] if pos[c] < length else []
    # 4-6 players: a trade hands over the first own partner card still on the track (else costs nothing)
    own = pos[mine[0]] if mine else -1
    top = -1e9
    best: list[SeventhHeavenMove] = []
    others: list[tuple[float, SeventhHeavenMove]] = []  # the moves of white and text cards, priced below
    weight: list[float] | None = None  # per pawn, for white and text cards
    for k in kinds:
        c = KIND_COLOUR[k]
        if c < 0:
            if weight is None:
                weight = [1.0 if h == p else -0.1 if h < 0 else -0.6 if q >= lead else -0.25
                          for h, q in zip(holder, pos, strict=True)]
            _price_rare(state, k, live, weight, mine, others.append)
            continue
        # a coloured number or arrow: a space of its pawn's progress is worth +1 to an own partner, less than
        # nothing to a rival's (the leader's the least); a dead card is a free pass
        here = pos[c]
        h = holder[c]
        if here >= length:
            value = -0.2
        else:
            gain = gains[here][k] if KIND_TYPE[k] == NUM else _arrow_gain(state, here)
            value = gain * (1.0 if h == p else -0.1 if h < 0 else -0.6 if here >= lead else -0.25)
        if value > top:
            top, best = value, [PLAY_CARD[k]]
        elif value == top:
            best.append(PLAY_CARD[k])
        if here < length and h != p:  # or take its partner card: worth the gap between the two pawns
            if pairs:
                trades = TRADE_GIVE[k]
                for g in mine:
                    others.append((float(here - pos[g]) - 0.5, trades[g + 1]))
                continue
            value = float(here - own) - 0.5 if mine else -0.5
            if value > top:
                top, best = value, [TRADE_CARD[k]]
            elif value == top:
                best.append(TRADE_CARD[k])
    for value, move in others:
        if value > top:
            top, best = value, [move]
        elif value == top:
            best.append(move)
    if len(best) > 1:
        best.sort(key=TEXT_KEY)  # ties are broken at random in the order of legal_moves()
    return rng.choice(best)


def _choose_swap(state: SeventhHeavenState, rng: random.Random) -> SeventhHeavenMove:
    """`rollout_move(rng)` after landing on a swap space: a swap is worth the gap between the two pawns."""
    listing = state._generate()
    if len(listing) == 1 or rng.random() < ROLLOUT_RANDOM:
        return rng.choice(listing)
    pos, holder, length, p = state.pos, state.holder, state.length, state.turn
    mine = [c for c, h in enumerate(holder) if h == p and pos[c] < length]
    top = -1e9
    best: list[SeventhHeavenMove] = []
    for move in listing:  # in order: ties stay in the order of legal_moves()
        if move.verb == "keep":
            value = 0.0
        else:
            take = COLOUR_INDEX[move.colour]
            value = float(pos[take] - pos[COLOUR_INDEX[move.give] if move.give else mine[0] if mine else take])
        if value > top:
            top, best = value, [move]
        elif value == top:
            best.append(move)
    return rng.choice(best)


def _choose_discard(state: SeventhHeavenState, rng: random.Random) -> SeventhHeavenMove:
    """`rollout_move(rng)` for the three-cards card: throw away text cards first, then cards of rivals' colours,
    own partner's numbers last (lowest first)."""
    p = state.discard_queue[0]
    listing = sorted([DISCARD_CARD[k] for k in set(state.hands[p])], key=TEXT_KEY)
    if len(listing) == 1 or rng.random() < ROLLOUT_RANDOM:
        return rng.choice(listing)
    holder = state.holder
    top = -1e9
    best: list[SeventhHeavenMove] = []
    for move in listing:
        k = KIND[move.card]
        c = KIND_COLOUR[k]
        value = -(KIND_VALUE[k] if c >= 0 and holder[c] == p else 0.5 if c == WHITE else 0.0)
        if value > top:
            top, best = value, [move]
        elif value == top:
            best.append(move)
    return rng.choice(best)


def _price_rare(state: SeventhHeavenState, k: int, live: range | list[int], weight: list[float], mine: list[int],
                add: Callable[[tuple[float, SeventhHeavenMove]], None]) -> None:
    """The moves of white card or text card `k` that may be the best, with their quick estimates (as
    `_quick_value`); a move another of this card's moves beats is left out (it cannot be among the best)."""
    pos, holder = state.pos, state.holder
    kind_type = KIND_TYPE[k]
    if kind_type != TEXT:  # a white number or arrow names the pawn
        if not live:
            add((-0.2, PLAY_CARD[k]))
            return
        if kind_type == NUM:
            gains = _gains(state.length, state.board.jumps)
            values = [gains[pos[c]][k] * weight[c] - 0.3 for c in live]
        else:
            values = [_arrow_gain(state, pos[c]) * weight[c] - 0.3 for c in live]
        top = max(values)
        on = PLAY_ON[k]
        for c, value in zip(live, values, strict=True):
            if value == top:
                add((value, on[c]))
    elif k == HEART:
        p = state.turn
        takes = [t for t in live if holder[t] != p]
        if takes and (mine or not state.pairs):
            for t in takes:
                if state.pairs:
                    for g in mine:
                        add((float(pos[t] - pos[g]), HEART_ON[t][g + 1]))
                else:
                    add((float(pos[t] - pos[mine[0] if mine else t]), HEART_ON[t][0]))
        else:
            add((0.0, HEART_BARE))
    elif k == MUSHROOM:  # worth 0.4 a card: taking the most is best
        most = min(MUSHROOM_MAX, len(state.deck))
        add((0.4 * most, MUSHROOM_TAKE[most]))
    elif k == FOOT:  # n spaces of the first pawn: all of them for an own partner, one for a rival
        leaders = state._front()
        if leaders:
            for c in leaders:
                n = FOOT_MAX if weight[c] > 0 else 1
                add((n * weight[c], FOOT_ON[c][n]))
        else:
            add((0.0, FOOT_BARE))
    elif k == FINGER:
        if mine:
            for c in mine:
                nxt = state._next_ahead(pos[c])
                add((0.0 if nxt is None else float(nxt - pos[c]), FINGER_ON[c]))
        else:
            add((0.0, FINGER_BARE))
    elif k == CARDS3:
        add((0.0, PLAY_CARD[k]))
    elif k == PEPPER:
        add((sum(PEPPER_STEPS * weight[g] for g in state._back()), PLAY_CARD[k]))
    else:
        step = -(SNAIL_STEPS if k == SNAIL else CLOUD_STEPS)
        add((sum(step * weight[g] for g in state._front()), PLAY_CARD[k]))


def _arrow_gain(state: SeventhHeavenState, here: int) -> int:
    """How far an arrow takes a pawn from `here`: up to the next pawn ahead (then a jump), else nowhere."""
    to = state._next_ahead(here)
    to = here if to is None else to
    return state.board.jumps.get(to, to) - here

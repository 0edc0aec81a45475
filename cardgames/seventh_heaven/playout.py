"""The search's playouts of In 7th Heaven, made fast: the same moves as `rollout_move` followed by `_apply`, drawn
from the same random numbers, so a search decides exactly as it did with the slow path (tests compare the two).

A playout spends its time choosing a card to play. The slow path lists the legal moves, sorts them by text and
prices each one; here each distinct card in hand is priced once, the moves come from tables made at import, and
only the few moves with the best price (or, for the random share, the whole list) are sorted. Swaps, discards for
the three-cards card and the opening play are rare in a playout and take the slow path.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from cardgames.seventh_heaven.board import COLOURS, START
from cardgames.seventh_heaven.cards import (
    CARDS3,
    CLOUD_STEPS,
    FINGER,
    FOOT,
    FOOT_MAX,
    HEART,
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
)
from cardgames.seventh_heaven.moves import (
    PLAY,
    PLAY_CARD,
    PLAY_ON,
    TEXT_KEY,
    TRADE_CARD,
    SeventhHeavenMove,
    mv,
)

if TYPE_CHECKING:
    from cardgames.seventh_heaven.state import SeventhHeavenState

ROLLOUT_RANDOM = 0.25  # share of random moves in search playouts (the rest follow a quick estimate)

# the moves a card offers, made once (index: colour, or the colour + 1 of the partner card handed over)
_NO_GIVE = [""] + list(COLOURS)
TRADE_GIVE = [[mv("trade", name, "", 0, g) for g in _NO_GIVE] for name in KIND_NAME]
HEART_ON = [[mv("play", "heart", t, 0, g) for g in _NO_GIVE] for t in COLOURS]
HEART_BARE = PLAY_CARD[HEART]
MUSHROOM_TAKE = [mv("play", "mushroom", "", n) for n in range(MUSHROOM_MAX + 1)]
FOOT_ON = [[mv("play", "foot", colour, n) for n in range(FOOT_MAX + 1)] for colour in COLOURS]
FOOT_BARE = mv("play", "foot", "", 1)
FINGER_ON = [mv("play", "finger", colour) for colour in COLOURS]
FINGER_BARE = PLAY_CARD[FINGER]


def playout(state: SeventhHeavenState, rng: random.Random, limit: int) -> None:
    """Play on until the game is over or `limit` moves are made, each move `rollout_move(rng)` and applied without
    asking again whether it is legal (as the search's `_play` does)."""
    history = state.history
    apply = state._apply
    gains = _gains(state.length, state.board.jumps)
    for _ in range(limit):
        if state.phase != PLAY or state.opening:
            if state.current_player is None:
                return
            move = state.rollout_move(rng)
        else:
            move = choose(state, state.turn, rng, gains)
        apply(move)
        history.append(move)


_GAINS: dict[tuple[int, tuple[tuple[int, int], ...]], list[list[int]]] = {}


def _gains(length: int, jumps: dict[int, int]) -> list[list[int]]:
    """gains[space][k]: how far number card k takes a pawn from `space`, after a jump (0 for other cards); one
    table per board."""
    key = (length, tuple(sorted(jumps.items())))
    table = _GAINS.get(key)
    if table is None:
        table = _GAINS[key] = [
            [jumps.get(min(length, max(START, here + KIND_VALUE[k])), min(length, max(START, here + KIND_VALUE[k])))
             - here if KIND_TYPE[k] == NUM else 0 for k in range(len(KIND_NAME))]
            for here in range(length + 1)]
    return table


def choose(state: SeventhHeavenState, p: int, rng: random.Random, gains: list[list[int]]) -> SeventhHeavenMove:
    """`rollout_move(rng)` in the play phase after the opening: the move `p` plays (`gains` from `_gains`)."""
    kinds = set(state.hands[p])
    if len(kinds) == 1:  # then the moves may be one, and no random number is drawn: the slow path decides
        return state.rollout_move(rng)  # type: ignore[return-value]
    # two cards give two moves at least, so a random number is drawn; a random move takes the listing as it is
    if rng.random() < ROLLOUT_RANDOM:
        return rng.choice(state._generate())
    pos, length, holder, ncol = state.pos, state.length, state.holder, state.ncol
    live = [c for c in range(ncol) if pos[c] < length]
    lead = max([pos[c] for c in live]) if live else length
    # a space of progress is worth +1 to an own partner, less than nothing to a rival, the leader's the least
    weight = [1.0 if holder[c] == p else -0.1 if holder[c] < 0 else -0.6 if pos[c] >= lead else -0.25
              for c in range(ncol)]
    mine = [c for c in live if holder[c] == p]
    pairs = state.pairs
    top = -1e9
    best: list[SeventhHeavenMove] = []
    others: list[tuple[float, SeventhHeavenMove]] = []  # the moves of the rarer cards, priced below
    add = others.append
    for k in kinds:
        c = KIND_COLOUR[k]
        if c >= 0:  # a coloured number or arrow
            here = pos[c]
            if here >= length:
                value = -0.2  # a dead card is a free pass
            elif KIND_TYPE[k] == NUM:
                value = gains[here][k] * weight[c]
            else:
                to = state._next_ahead(here)
                to = here if to is None else to
                value = (state.board.jumps.get(to, to) - here) * weight[c]
            if value > top:
                top, best = value, [PLAY_CARD[k]]
            elif value == top:
                best.append(PLAY_CARD[k])
            if here < length and holder[c] != p:
                if pairs:
                    trades = TRADE_GIVE[k]
                    for g in mine:
                        add((float(here - pos[g]) - 0.5, trades[g + 1]))
                else:
                    add((float(here - pos[mine[0] if mine else c]) - 0.5, TRADE_CARD[k]))
            continue
        kind_type = KIND_TYPE[k]
        if kind_type != TEXT:  # a white number or arrow names the pawn
            if not live:
                add((-0.2, PLAY_CARD[k]))
                continue
            on = PLAY_ON[k]
            for c2 in live:
                here = pos[c2]
                if kind_type == NUM:
                    gain = gains[here][k]
                else:
                    to = state._next_ahead(here)
                    to = here if to is None else to
                    gain = state.board.jumps.get(to, to) - here
                add((gain * weight[c2] - 0.3, on[c2]))
        elif k == HEART:
            takes = [t for t in live if holder[t] != p]
            if takes and (mine or not pairs):
                for t in takes:
                    if pairs:
                        for g in mine:
                            add((float(pos[t] - pos[g]), HEART_ON[t][g + 1]))
                    else:
                        add((float(pos[t] - pos[mine[0] if mine else t]), HEART_ON[t][0]))
            else:
                add((0.0, HEART_BARE))
        elif k == MUSHROOM:
            most = min(MUSHROOM_MAX, len(state.deck))
            for n in range(1, most + 1) if most else (0,):
                add((0.4 * n, MUSHROOM_TAKE[n]))
        elif k == FOOT:
            leaders = state._front()
            if leaders:
                for c2 in leaders:
                    for n in range(1, FOOT_MAX + 1):
                        add((n * weight[c2], FOOT_ON[c2][n]))
            else:
                add((0.0, FOOT_BARE))
        elif k == FINGER:
            if mine:
                for c2 in mine:
                    nxt = state._next_ahead(pos[c2])
                    add((0.0 if nxt is None else float(nxt - pos[c2]), FINGER_ON[c2]))
            else:
                add((0.0, FINGER_BARE))
        elif k == CARDS3:
            add((0.0, PLAY_CARD[k]))
        elif k == PEPPER:
            add((sum(PEPPER_STEPS * weight[g] for g in state._back()), PLAY_CARD[k]))
        else:
            step = -(SNAIL_STEPS if k == SNAIL else CLOUD_STEPS)
            add((sum(step * weight[g] for g in state._front()), PLAY_CARD[k]))
    for value, move in others:
        if value > top:
            top, best = value, [move]
        elif value == top:
            best.append(move)
    if len(best) > 1:
        best.sort(key=TEXT_KEY)  # ties are broken at random in the order of legal_moves()
    return rng.choice(best)

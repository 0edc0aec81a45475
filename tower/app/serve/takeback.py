"""The server's undo rule: when may a seat take its last move back?

A seat may take back its own last move, together with any AI moves made after it, when

1. no other human seat has moved since (a human's answer is never taken away from them), and
2. none of the moves taken back showed the asking seat anything that was hidden before it: no card drawn, no
   card of an AI's hidden hand played in reply. Otherwise the take-back would let the seat look ahead (at the
   draw pile, at a hand) and choose again.

Rule 2 is checked without asking the game's name: each move is replayed on re-dealt copies of the position
(`state.determinize(seat, rng)`, which re-deals everything the seat cannot see); if a copy cannot play the
moves, or the seat would see something else afterwards, the moves revealed something. In a game of perfect
information (The Climbers) nothing is hidden and rule 2 always holds. The game must not be over: its record,
seed included, is public once it ends.
"""

from __future__ import annotations

import random

from tower.app.serve.errors import Refused
from tower.games.base import GameState, Move
from tower.games.errors import IllegalMove

#: Re-deals tried per take-back; a drawn card matches a random re-deal only by chance, so a few suffice.
REDEALS = 4


def plan_take_back(state: GameState, movers: list[int], seats: list[str], seat: int, rng: random.Random) -> int:
    """How many moves stay after `seat` takes its last move back; raises `Refused` (nothing changed) when the
    rule above forbids it."""
    if state.is_over:
        raise Refused(409, "game-over", "the game is over: its moves stand")
    if seat not in movers:
        raise Refused(409, "nothing-to-undo", "you have made no move to take back")
    last = len(movers) - 1 - movers[::-1].index(seat)
    since = [p for p in movers[last + 1:] if seats[p] == "human"]
    if since:
        raise Refused(409, "moved-since", f"{state.player_label(since[0])} has moved since: your move stands")
    before = state.restart()
    for move in state.history[:last]:
        before.apply(move)
    if reveals(before, state.history[last:], seat, rng):
        raise Refused(409, "revealed", "taking this back would let you choose again after seeing what was hidden "
                                       "(a card drawn or a hand shown): your move stands")
    return last


def reveals(before: GameState, moves: list[Move], seat: int, rng: random.Random, tries: int = REDEALS) -> bool:
    """Did playing `moves` from `before` show `seat` something it could not see in `before`?"""
    if before.perfect_information:
        return False
    after = before.clone()
    for move in moves:
        after.apply(move)
    seen = after.view(seat)
    for _ in range(tries):
        copy = before.determinize(seat, rng)
        try:
            for move in moves:
                copy.apply(move)
        except IllegalMove:
            return True
        if copy.view(seat) != seen:
            return True
    return False

"""What the AI players read of an In 7th Heaven game (the `GameState` AI hooks): re-dealing the hidden cards, the
value of a position, the greedy player's move values and the playout policy.

`SeventhHeavenSearch` is a base class of `SeventhHeavenState` (state.py); its methods read the state's fields. The
measurements behind the settings are in docs/seventh-heaven.md.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Self

from cardgames.seventh_heaven.board import COLOUR_INDEX, START, Board
from cardgames.seventh_heaven.cards import (
    CLOUD,
    CLOUD_STEPS,
    FINGER,
    FOOT,
    KIND,
    KIND_COLOUR,
    KIND_TYPE,
    KIND_VALUE,
    MUSHROOM,
    NUM,
    PEPPER,
    PEPPER_STEPS,
    SNAIL,
    SNAIL_STEPS,
    TEXT,
    WHITE,
)
from cardgames.seventh_heaven.moves import OVER, SeventhHeavenMove
from cardgames.seventh_heaven.playout import ROLLOUT_RANDOM, playout
from tower.games.base import Move, shuffle


class SeventhHeavenSearch:
    """The AI hooks of `SeventhHeavenState`."""

    if TYPE_CHECKING:  # the state's fields these hooks read
        board: Board
        length: int
        ncol: int
        num_players: int
        pairs: bool
        phase: str
        pos: list[int]
        holder: list[int]
        hands: list[list[int]]
        deck: list[int]
        rng: random.Random
        stop_at_winner: bool
        current_player: int | None
        _legal: list[SeventhHeavenMove] | None

        def clone(self) -> Self: ...
        def _copy(self) -> Self: ...
        def legal_moves(self) -> list[Move]: ...
        def partners_of(self, player: int) -> list[int]: ...
        def finished(self, player: int) -> bool: ...
        def result(self) -> dict: ...
        def _apply(self, move: Move) -> None: ...
        def _back(self) -> list[int]: ...
        def _front(self) -> list[int]: ...
        def _next_ahead(self, space: int) -> int | None: ...

    # --- hidden information -------------------------------------------------------------------------------------
    def determinize(self, player: int, rng: random.Random) -> Self:
        """Re-deal the other hands and the deck order from the cards `player` cannot see."""
        new = self._copy()
        pool = list(new.deck)
        for q in range(new.num_players):
            if q != player:
                pool.extend(new.hands[q])
        shuffle(pool, rng)
        for q in range(new.num_players):
            if q != player:
                size = len(new.hands[q])
                new.hands[q] = pool[len(pool) - size:]
                del pool[len(pool) - size:]
        new.deck = pool
        new.rng = random.Random(rng.random())
        new.stop_at_winner = True  # a search only scores the winner, so its playouts may stop there
        return new

    # --- the value of a position and of a move -----------------------------------------------------------------
    def _progress(self, player: int) -> float:
        """How far `player`'s partner pawns are, in track lengths (both count with 2-3 players)."""
        cols = self.partners_of(player)
        if not cols:
            return 0.0
        if self.finished(player):
            return 2.0
        vals = sorted((min(self.pos[c], self.length) / self.length for c in cols), reverse=True)
        if self.pairs:
            # the first partner in 7th Heaven is worth a lot (it wins if nobody gets both in), the second wins
            return vals[0] + 0.5 * vals[-1] + (0.5 if vals[0] >= 1.0 else 0.0)
        return vals[0]

    def heuristic(self, player: int) -> float:
        """Own partner progress against the best rival's (public information only)."""
        mine = self._progress(player)
        rivals = [self._progress(q) for q in range(self.num_players) if q != player]
        return mine - max(rivals, default=0.0)

    def greedy_score(self, move: Move, player: int) -> float:
        """One move ahead: advance your own partner, hinder the leader."""
        child = self.clone()
        child._apply(move)
        if child.phase == OVER:
            winners = child.result()["winners"]
            return 10.0 if player in winners else -10.0
        return child.heuristic(player)

    def rollout_move(self, rng: random.Random) -> Move:
        """Playout policy: mostly the move with the best quick estimate for the mover, sometimes a random one."""
        legal = self._legal if self._legal is not None else self.legal_moves()
        if len(legal) == 1 or rng.random() < ROLLOUT_RANDOM:
            return rng.choice(legal)
        p = self.current_player
        assert p is not None
        weight, mine = self._quick_weights(p)
        best: list[Move] = []
        best_value = -1e9
        for m in legal:
            value = self._quick_value(m, p, weight, mine)  # type: ignore[arg-type]
            if value > best_value:
                best, best_value = [m], value
            elif value == best_value:
                best.append(m)
        return rng.choice(best)

    def playout(self, rng: random.Random, limit: int) -> None:
        """The search's playout, made fast (playout.py): the moves of `rollout_move` from the same numbers."""
        playout(self, rng, limit)  # type: ignore[arg-type]

    def search_priors(self, moves: list[Move]) -> list[float]:
        """The playouts' quick estimate of each move for the player to move (a widening search tries the best
        first)."""
        p = self.current_player
        assert p is not None
        weight, mine = self._quick_weights(p)
        return [self._quick_value(m, p, weight, mine) for m in moves]  # type: ignore[arg-type]

    def _quick_weights(self, p: int) -> tuple[list[float], list[int]]:
        """Worth to p of one space of progress per pawn (own partner +1, a rival's negative, the leader's most),
        and p's partners still on the track."""
        pos, length, holder = self.pos, self.length, self.holder
        live = [q for q in pos if q < length]
        lead = max(live) if live else length
        weight = [
            1.0 if holder[c] == p else -0.1 if holder[c] < 0 else -0.6 if pos[c] >= lead else -0.25
            for c in range(self.ncol)
        ]
        return weight, [c for c in range(self.ncol) if holder[c] == p and pos[c] < length]

    def _quick_value(self, m: SeventhHeavenMove, p: int, weight: list[float], mine: list[int]) -> float:
        """A cheap one-move estimate without copying the state (used by playouts only)."""
        pos, length = self.pos, self.length
        verb = m.verb
        if verb == "keep":
            return 0.0
        if verb == "swap" or verb == "trade" or (m.card == "heart" and m.colour):
            take = COLOUR_INDEX[m.colour] if verb != "trade" else KIND_COLOUR[KIND[m.card]]
            given = COLOUR_INDEX[m.give] if m.give else (mine[0] if mine else take)
            return float(pos[take] - pos[given]) - (0.5 if verb == "trade" else 0.0)
        k = KIND[m.card]
        c = KIND_COLOUR[k]
        if verb == "discard":
            return -(KIND_VALUE[k] if c >= 0 and weight[c] > 0 else 0.5 if c == WHITE else 0.0)
        kind_type = KIND_TYPE[k]
        if kind_type != TEXT:
            if c == WHITE:
                c = COLOUR_INDEX.get(m.colour, -1)
            if c < 0 or pos[c] >= length:
                return -0.2  # a dead card is a free pass
            if kind_type == NUM:
                target = pos[c] + KIND_VALUE[k]
                target = START if target < START else length if target > length else target
            else:
                nxt = self._next_ahead(pos[c])
                target = pos[c] if nxt is None else nxt
            target = self.board.jumps.get(target, target)
            return (target - pos[c]) * weight[c] - (0.3 if KIND_COLOUR[k] == WHITE else 0.0)
        if k == MUSHROOM:
            return 0.4 * m.n
        if k == PEPPER or k == SNAIL or k == CLOUD:
            group = self._back() if k == PEPPER else self._front()
            step = PEPPER_STEPS if k == PEPPER else -(SNAIL_STEPS if k == SNAIL else CLOUD_STEPS)
            return sum(step * weight[g] for g in group)
        if k == FOOT and m.colour:
            return m.n * weight[COLOUR_INDEX[m.colour]]
        if k == FINGER and m.colour:
            c = COLOUR_INDEX[m.colour]
            nxt = self._next_ahead(pos[c])
            return 0.0 if nxt is None else float(nxt - pos[c])
        return 0.0

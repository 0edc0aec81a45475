"""Information states for OpenSpiel's solvers: what one player has seen of a game, move after move.

A player's information state is the sequence of their views, `view(player)` at the start and after every move.
The view is the one gate for private information, so nothing it hides can enter, and two histories the player
cannot tell apart give the same sequence (perfect recall: the player forgets nothing they saw).

- **string**: the current view as canonical JSON, then a digest of all the views so far (a BLAKE2b chain, 128
  bits): equal for histories the player cannot tell apart, different (but for a collision) for the others.
- **tensor**: the observation vector of the current view (`features.observation`, and the marks of a move being
  chosen), then the last `recall` moves as the player saw them, most recent first: who moved (seat counted from
  the player), whether the move was hidden from the player (a card passed face down, a doubler answer before all
  are in), and, when it was not, the move's action ids. With `recall` at least the game's length it recalls every
  move; what the player drew is in the current view only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tower.games.base import GameState, Move
from tower.games.interop.actions import MoveCodec


def canonical(data: Any) -> str:
    """JSON with sorted keys and no spaces: one text for one view."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _fold(digest: bytes, view: dict[str, Any]) -> bytes:
    return hashlib.blake2b(digest + canonical(view).encode(), digest_size=16).digest()


def is_public(state: GameState, move: Move, player: int) -> bool:
    """Whether everybody learns `move` (made by `player`) as it is: the game tells it in full (`public_move`)."""
    return state.public_move(move, player) == str(move)


@dataclass
class Trail:
    """The views and moves of one game so far, as each player saw them."""

    digests: list[bytes]  # per player: the chain of their views
    moves: list[tuple[int, tuple[int, ...], bool]] = field(default_factory=list)  # (mover, action ids, public)

    @classmethod
    def start(cls, state: GameState) -> Trail:
        return cls([_fold(b"", state.view(p)) for p in range(state.num_players)])

    def add(self, state: GameState, mover: int, ids: tuple[int, ...], public: bool) -> None:
        """One move more: `state` is the game after it."""
        self.moves.append((mover, ids, public))
        self.digests = [_fold(d, state.view(p)) for p, d in enumerate(self.digests)]

    def copy(self) -> Trail:
        return Trail(list(self.digests), list(self.moves))

    @classmethod
    def replay(cls, state: GameState, codec: MoveCodec) -> Trail:
        """The trail of `state`'s game, replayed from its start (`restart`) through its history."""
        game = state.restart()
        trail = cls.start(game)
        for move in state.history:
            mover = game.current_player
            assert mover is not None
            ids = tuple(codec.offsets[f] + v for f, v in enumerate(codec.key(game, move)))
            game.apply(move)
            trail.add(game, mover, ids, is_public(game, move, mover))
        return trail

    def string(self, view: dict[str, Any], player: int) -> str:
        return f"{canonical(view)} seen {self.digests[player].hex()}"


def recall_size(codec: MoveCodec, players: int, recall: int) -> int:
    """Length of the recall part of the tensor: per move, the mover's seat, a hidden flag and the action ids."""
    return recall * (players + 1 + codec.num_actions)


def recall_vector(trail: Trail, codec: MoveCodec, player: int, players: int, recall: int) -> np.ndarray:
    """The last `recall` moves as `player` saw them (most recent first; zeros where the game is younger)."""
    width = players + 1 + codec.num_actions
    out = np.zeros((recall, width), np.float32)
    for row, (mover, ids, public) in enumerate(reversed(trail.moves[-recall:] if recall else [])):
        out[row, (mover - player) % players] = 1.0
        if public or mover == player:
            out[row, players + 1 + np.asarray(ids, np.int64)] = 1.0
        else:
            out[row, players] = 1.0
    return out.reshape(-1)

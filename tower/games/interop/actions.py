"""Integer action ids for every game's moves: the one encoding OpenSpiel and PettingZoo share.

A move is written as a fixed number of *fields*, each a small integer with a fixed bound (a Climbers block move:
which block, which size and top colour, which cell, where each pushed figure goes). Field `f` owns the id range
`offsets[f] .. offsets[f] + sizes[f] - 1`, so the game has `sum(sizes)` distinct actions whatever the position.
No hashing and no per-position numbering: an id means the same thing in every state, and every legal move has
ids inside the bound (the table in `stepper` checks both facts for each position and fails loudly otherwise).

A player chooses a move one field at a time; `stepper` skips the fields the earlier choices already decide.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from tower.games.base import GameState, Move
from tower.games.registry import game_class

Key = tuple[int, ...]


class EncodingError(ValueError):
    """A legal move that the encoding cannot represent (a bound too small, or two moves with one key)."""


class MoveCodec:
    """The fields of one game's moves: names, bounds, the key of a move and a text for a field value."""

    def __init__(self, game: str, fields: tuple[tuple[str, int], ...],
                 key: Callable[[GameState, Move], Key], describe: Callable[[GameState | None, int, int], str]):
        self.game = game
        self.field_names = tuple(name for name, _ in fields)
        self.field_sizes = tuple(size for _, size in fields)
        self.offsets = tuple(sum(self.field_sizes[:f]) for f in range(len(fields)))
        self.num_actions = sum(self.field_sizes)
        self._key = key
        self._describe = describe

    @property
    def num_fields(self) -> int:
        return len(self.field_sizes)

    def key(self, state: GameState, move: Move) -> Key:
        """The field values of `move` in `state` (EncodingError if a value is out of its bound)."""
        try:
            key = self._key(state, move)
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            raise EncodingError(f"{self.game}: cannot encode the move {move}: {exc}") from None
        for name, size, value in zip(self.field_names, self.field_sizes, key, strict=True):
            if not 0 <= value < size:
                raise EncodingError(f"{self.game}: the move {move} has {name} {value}, outside 0..{size - 1}")
        return key

    def keys(self, state: GameState, moves: list[Move] | tuple[Move, ...]) -> np.ndarray:
        """The keys of many moves as the rows of an array, their bounds checked at once."""
        try:
            keys = np.array([self._key(state, m) for m in moves], dtype=np.int64).reshape(len(moves), self.num_fields)
            fits = bool(((keys >= 0) & (keys < np.array(self.field_sizes))).all())
        except (KeyError, ValueError, IndexError, TypeError):
            fits = False
        if not fits:
            for m in moves:
                self.key(state, m)  # raises EncodingError naming the first move that does not fit
        return keys

    def action(self, field: int, value: int) -> int:
        return self.offsets[field] + value

    def split(self, action: int) -> tuple[int, int]:
        """(field, value) of an action id; ValueError if the id is outside the game's range."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1} for {self.game}")
        field = max(f for f, off in enumerate(self.offsets) if off <= action)
        return field, action - self.offsets[field]

    def describe(self, action: int, state: GameState | None = None) -> str:
        """A short text for one action id (the field it sets and the value)."""
        field, value = self.split(action)
        return self._describe(state, field, value)


_CODECS: dict[str, MoveCodec] = {}


def encoding_module(game: str) -> Any:
    """The module a game names as its `encoding` (it defines `codec()` and `observation(view, player, players)`);
    BadInput for an unknown game, EncodingError for a game that declares none."""
    cls = game_class(game)
    if cls.encoding is None:
        raise EncodingError(f"the game {game!r} declares no action encoding (GameState.encoding)")
    return importlib.import_module(cls.encoding)


def codec_for(game: str) -> MoveCodec:
    """The action encoding of game `game` (BadInput for an unknown game, EncodingError if none is written)."""
    codec = _CODECS.get(game)
    if codec is None:
        codec = _CODECS[game] = encoding_module(game).codec()
    return codec

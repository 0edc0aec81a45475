"""A game driven by integer action ids, one decision at a time (the core of both adapters).

At each position the legal moves become a table of keys (`actions.MoveCodec.key`). A move is chosen field by
field: the first field is always asked; after each answer, the fields on which all remaining moves agree are
filled in without asking; when every field is fixed exactly one move is left and it is applied to the game.
So a card game move is usually one action, a Climbers block move three (block, shape, cell).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tower.games.base import GameState, Move
from tower.games.interop.actions import EncodingError, MoveCodec, codec_for
from tower.games.registry import game_class


@dataclass(frozen=True)
class MoveTable:
    """The legal moves of one position and their keys (row i of `keys` is the key of `moves[i]`)."""

    moves: tuple[Move, ...]
    keys: np.ndarray  # (moves, fields) int64

    @classmethod
    def build(cls, state: GameState, codec: MoveCodec) -> MoveTable:
        moves = tuple(state.legal_moves())
        keys = codec.keys(state, moves)
        if len(np.unique(keys, axis=0)) != len(moves):
            seen: dict[tuple[int, ...], Move] = {}
            for move, row in zip(moves, keys.tolist(), strict=True):
                other = seen.setdefault(tuple(row), move)
                if other is not move:
                    raise EncodingError(f"{codec.game}: the moves {other} and {move} have the same action key")
        return cls(moves, keys)


def final_returns(state: GameState) -> list[float]:
    """Per player: the winners share 1 (all share it when nobody wins); 0 before the end."""
    n = state.num_players
    if not state.is_over:
        return [0.0] * n
    winners = state.result().get("winners") or list(range(n))
    return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]


class Stepper:
    """A `GameState` plus the part of a move chosen so far (`fixed`: field values, in field order)."""

    def __init__(self, state: GameState, codec: MoveCodec | None = None, fixed: tuple[int, ...] = ()):
        self.state = state
        self.codec = codec or codec_for(state.name)
        self.fixed: tuple[int, ...] = ()
        #: the field values of the last move applied (its whole key), for the information states
        self.last_key: tuple[int, ...] = ()
        self._table: MoveTable | None = None
        self._rows: np.ndarray | None = None  # rows of the table that agree with `fixed`
        self._legal: list[int] | None = None
        for f, value in enumerate(fixed):  # restore a pending choice (one field at a time, as played)
            if f == len(self.fixed):
                self._narrow(f, value, apply=False)
        if self.fixed != tuple(fixed) or len(self.fixed) >= self.codec.num_fields:
            raise EncodingError(f"{self.codec.game}: the pending choice {list(fixed)} does not fit this position")

    # --- reading -----------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return self.state.current_player

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def table(self) -> MoveTable:
        if self._table is None:
            self._table = MoveTable.build(self.state, self.codec)
        return self._table

    def rows(self) -> np.ndarray:
        if self._rows is None:
            self._rows = np.arange(len(self.table().moves))
        return self._rows

    def candidates(self) -> list[Move]:
        """The legal moves that agree with the choice so far."""
        moves = self.table().moves
        return [moves[i] for i in self.rows()]

    def legal_actions(self) -> list[int]:
        """Sorted ids of the values the next field may take ([] when the game is over)."""
        if self.state.is_over:
            return []
        if self._legal is None:
            f = len(self.fixed)
            values = np.unique(self.table().keys[self.rows(), f])
            self._legal = [self.codec.offsets[f] + int(v) for v in values]
        return list(self._legal)

    def pending_actions(self) -> list[int]:
        """The ids of the fields fixed so far in the move being chosen (asked or implied)."""
        return [self.codec.offsets[f] + v for f, v in enumerate(self.fixed)]

    def action_text(self, action: int) -> str:
        """The whole move if this action settles it, else what the action chooses."""
        try:
            field, value = self.codec.split(action)
        except ValueError as exc:
            return str(exc)
        if not self.state.is_over and field == len(self.fixed) and action in self.legal_actions():
            rows = self.rows()[self.table().keys[self.rows(), field] == value]
            if len(rows) == 1:
                return str(self.table().moves[int(rows[0])])
        return self.codec.describe(action, self.state)

    def actions_for(self, move: Move) -> list[int]:
        """The actions that play `move` from the start of a decision (the fields that would be asked)."""
        probe = Stepper(self.state, self.codec)
        probe._table = self.table()
        key = self.codec.key(self.state, move)
        out = []
        while True:
            f = len(probe.fixed)
            action = self.codec.offsets[f] + key[f]
            if action not in probe.legal_actions():
                raise ValueError(f"{move} is not a legal move now")
            out.append(action)
            if probe._narrow(f, key[f], apply=False) is not None:
                return out

    # --- changing ----------------------------------------------------------------------------------------
    def apply_action(self, action: int) -> Move | None:
        """Take one decision; returns the game move when this action completes one (it is then applied)."""
        if self.state.is_over:
            raise ValueError("the game is over")
        if action not in self.legal_actions():
            raise ValueError(f"action {action} ({self.codec.describe(action, self.state)}) is not legal now"
                             if 0 <= action < self.codec.num_actions else f"action {action} is out of range")
        field, value = self.codec.split(action)
        return self._narrow(field, value)

    def _narrow(self, field: int, value: int, apply: bool = True) -> Move | None:
        """Fix `field` to `value`, then every later field the remaining moves agree on; apply a finished move."""
        keys = self.table().keys
        rows = self.rows()
        rows = rows[keys[rows, field] == value]
        if not len(rows):
            return None
        fixed = [*self.fixed, value]
        while len(fixed) < keys.shape[1]:
            column = keys[rows, len(fixed)]
            if (column != column[0]).any():
                break
            fixed.append(int(column[0]))
        self._rows, self._legal = rows, None
        self.fixed = tuple(fixed)
        if len(fixed) < keys.shape[1]:
            return None
        move = self.table().moves[int(rows[0])]
        if apply:
            self.state.apply(move)
            self.last_key = self.fixed
            self.fixed, self._table, self._rows, self._legal = (), None, None, None
        return move

    def copy(self) -> Stepper:
        """An independent copy (the game is cloned; the move table, never changed, is shared)."""
        new = Stepper.__new__(Stepper)
        new.state = self.state.clone()
        new.codec, new.fixed, new.last_key = self.codec, self.fixed, self.last_key
        new._table, new._rows, new._legal = self._table, self._rows, self._legal
        return new

    def returns(self) -> list[float]:
        return final_returns(self.state)

    # --- saving ------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"state": self.state.to_json(), "fixed": list(self.fixed)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Stepper:
        state = game_class(data["state"]["game"]).from_json(data["state"])
        return cls(state, fixed=tuple(data["fixed"]))

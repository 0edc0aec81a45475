"""Integer action ids for every game's moves: the one encoding OpenSpiel and PettingZoo share.

A move is written as a fixed number of *fields*, each a small integer with a fixed bound (a Climbers block move:
which block, which size and top colour, which cell, where each pushed figure goes). Field `f` owns the id range
`offsets[f] .. offsets[f] + sizes[f] - 1`, so the game has `sum(sizes)` distinct actions whatever the position.
No hashing and no per-position numbering: an id means the same thing in every state, and every legal move has
ids inside the bound (the table in `stepper` checks both facts for each position and fails loudly otherwise).

A player chooses a move one field at a time; `stepper` skips the fields the earlier choices already decide.
"""

from __future__ import annotations

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


# --- The Climbers ---------------------------------------------------------------------------------------------
def _climbers() -> MoveCodec:
    from itertools import permutations

    from tower.climbers.blocks import COLOURS, KINDS
    from tower.climbers.game import BOARD, ClimbersState

    ladders: tuple[tuple[str, ...], ...] = ((), ("short",), ("long",), ("short", "long"), ("long", "short"))
    ladder_index = {seq: i for i, seq in enumerate(ladders)}
    sizes = sorted({p for kind in KINDS for p in permutations(kind.dims)})
    size_index = {s: i for i, s in enumerate(sizes)}
    ncol = len(COLOURS)
    max_blocks = 64  # the game has 35 blocks; hand-made positions may add some
    max_pushes = ClimbersState.max_players  # a block covers at most every figure on the table
    cells = BOARD * BOARD
    fig0, stone0 = 2, 2 + cells * len(ladders)
    block0 = stone0 + max_blocks
    none = (0,) * max_pushes

    def key(state: GameState, m: Any) -> Key:
        kind = m.kind
        if kind == "skip":
            return (0, 0, 0, *none)
        if kind == "pass":
            return (1, 0, 0, *none)
        if kind == "fig":
            x, y, _ = m.cell
            return (fig0 + (x * BOARD + y) * len(ladders) + ladder_index[m.ladders], 0, 0, *none)
        b = state.index[m.block]  # type: ignore[attr-defined]
        if kind == "stone":
            return (stone0 + b, 0, 0, *none)
        x, y, _ = m.cell
        if len(m.pushes) > max_pushes:
            raise ValueError(f"more than {max_pushes} pushes")
        targets = [1 + to[0] * BOARD + to[1] for _, to in m.pushes]
        targets += [0] * (max_pushes - len(targets))
        return (block0 + b, size_index[m.size] * ncol + m.top, x * BOARD + y, *targets)

    def block_id(state: GameState | None, b: int) -> str:
        ids = getattr(state, "ids", None)
        return ids[b] if ids is not None and b < len(ids) else f"#{b}"

    def describe(state: GameState | None, field: int, v: int) -> str:
        if field == 0:
            if v < fig0:
                return ("skip", "pass")[v]
            if v < stone0:
                cell, lad = divmod(v - fig0, len(ladders))
                text = f"fig {cell // BOARD},{cell % BOARD}"
                return text + (" " + "+".join(ladders[lad]) if ladders[lad] else "")
            if v < block0:
                return f"stone {block_id(state, v - stone0)}"
            return f"block {block_id(state, v - block0)}"
        if field == 1:
            s, top = divmod(v, ncol)
            return f"{'x'.join(map(str, sizes[s]))} {COLOURS[top]} up"
        if field == 2:
            return f"at {v // BOARD},{v % BOARD}"
        return "no push" if v == 0 else f"push figure {field - 2} to {(v - 1) // BOARD},{(v - 1) % BOARD}"

    fields = (("head", block0 + max_blocks), ("shape", len(sizes) * ncol), ("cell", cells),
              *((f"push{j + 1}", cells + 1) for j in range(max_pushes)))
    return MoveCodec("climbers", fields, key, describe)


# --- In 7th Heaven --------------------------------------------------------------------------------------------
def _seventh_heaven() -> MoveCodec:
    from cardgames.seventh_heaven import COLOUR_INDEX, COLOURS, KIND, KIND_NAME, MUSHROOM_MAX

    nk = len(KIND_NAME)
    verb_base = {"play": 0, "trade": nk, "discard": 2 * nk}
    swap, keep = 3 * nk, 3 * nk + 1

    def key(state: GameState, m: Any) -> Key:
        if m.verb == "swap":
            head = swap
        elif m.verb == "keep":
            head = keep
        else:
            head = verb_base[m.verb] + KIND[m.card]
        colour = 1 + COLOUR_INDEX[m.colour] if m.colour else 0
        give = 1 + COLOUR_INDEX[m.give] if m.give else 0
        return (head, colour, m.n, give)

    def describe(state: GameState | None, field: int, v: int) -> str:
        if field == 0:
            if v >= swap:
                return ("swap", "keep")[v - swap]
            verb = ("play", "trade", "discard")[v // nk]
            return f"{verb} {KIND_NAME[v % nk]}"
        if field == 1:
            return "no colour" if v == 0 else COLOURS[v - 1]
        if field == 2:
            return str(v)
        return "give nothing" if v == 0 else f"give {COLOURS[v - 1]}"

    fields = (("card", keep + 1), ("colour", len(COLOURS) + 1), ("number", MUSHROOM_MAX + 1),
              ("give", len(COLOURS) + 1))
    return MoveCodec("seventh-heaven", fields, key, describe)


# --- Partners -------------------------------------------------------------------------------------------------
def _partners() -> MoveCodec:
    from cardgames.partners import (
        ACTIONS,
        CARD_NAMES,
        CARD_ORDER,
        CARD_RANK,
        COLOURS,
        PAWNS_PER_PLAYER,
        pawn_name,
    )

    ncards = len(CARD_ORDER)
    max_parts = 7  # a 7 split into single steps; other cards name one or two pawns
    min_step, max_step = -4, 14
    slots = max_step - min_step + 2  # slot 0: a pawn without a step count (a switch)
    pawns = PAWNS_PER_PLAYER * len(COLOURS)

    def key(state: GameState, m: Any) -> Key:
        head = ACTIONS.index(m.action) * ncards + CARD_RANK.get(m.card, 0)
        if len(m.pawns) > max_parts:
            raise ValueError(f"more than {max_parts} parts")
        parts = []
        for j, pawn in enumerate(m.pawns):
            slot = m.steps[j] - min_step + 1 if j < len(m.steps) else 0
            if not 0 <= slot < slots:
                raise ValueError(f"step count {m.steps[j]}")
            parts.append(1 + pawn * slots + slot)
        return (head, *parts, *([0] * (max_parts - len(parts))))

    def describe(state: GameState | None, field: int, v: int) -> str:
        if field == 0:
            action, card = divmod(v, ncards)
            return ACTIONS[action] if ACTIONS[action] == "discard" else f"{ACTIONS[action]} {CARD_NAMES[CARD_ORDER[card]]}"
        if v == 0:
            return "no more pawns"
        pawn, slot = divmod(v - 1, slots)
        return pawn_name(pawn) + (f"{slot + min_step - 1:+d}" if slot else "")

    fields = (("card", len(ACTIONS) * ncards), *((f"part{j + 1}", 1 + pawns * slots) for j in range(max_parts)))
    return MoveCodec("partners", fields, key, describe)


# --- Diabolo --------------------------------------------------------------------------------------------------
def _diabolo() -> MoveCodec:
    from cardgames.diabolo import COLOUR_INDEX, NKINDS, SIDES, card_text, kind

    discard0, double0 = 2 * NKINDS, 3 * NKINDS

    def key(state: GameState, m: Any) -> Key:
        if m.verb == "double":
            return (double0 + (m.side == "yes"),)
        k = kind(COLOUR_INDEX[m.colour], m.value)
        return (2 * k + SIDES.index(m.side),) if m.verb == "place" else (discard0 + k,)

    def describe(state: GameState | None, field: int, v: int) -> str:
        if v >= double0:
            return ("double no", "double yes")[v - double0]
        if v >= discard0:
            return f"discard {card_text(v - discard0)}"
        return f"place {card_text(v // 2)} {SIDES[v % 2]}"

    return MoveCodec("diabolo", (("move", double0 + 2),), key, describe)


_FACTORIES: dict[str, Callable[[], MoveCodec]] = {
    "climbers": _climbers,
    "seventh-heaven": _seventh_heaven,
    "partners": _partners,
    "diabolo": _diabolo,
}
_CODECS: dict[str, MoveCodec] = {}


def codec_for(game: str) -> MoveCodec:
    """The action encoding of game `game` (BadInput for an unknown game, EncodingError if none is written)."""
    game_class(game)  # a clear error for unknown names
    codec = _CODECS.get(game)
    if codec is None:
        factory = _FACTORIES.get(game)
        if factory is None:
            raise EncodingError(f"no action encoding for the game {game!r} yet (see tower/interop/actions.py)")
        codec = _CODECS[game] = factory()
    return codec

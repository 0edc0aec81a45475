"""Blocking stones: where a player may lay his one stone.

On any free surface: the top of a block that shows at least one cell free of figures and stones, even where
other blocks cover part of that top. The block under a stone cannot be entered, crossed, covered or moved until
the stone's owner plays again; then the stone leaves the game (`game.ClimbersState._end_turn`).
"""

from __future__ import annotations

from typing import Any

from tower.climbers.moves import ClimbersMove

#: The state these functions serve: `game.ClimbersState`, which imports this module (named, not imported, so that
#: imports point one way).
ClimbersState = Any


def free_cells(state: ClimbersState, i: int) -> list[tuple[int, int]]:
    """The cells of block i's top that show (no block on them) and carry no figure."""
    board = state.board
    if i in state.blocked():
        return []
    figures = {f[:2] for f in state.figures}
    return [c for c in board.footprint_cells(i) if board.topb[c] == i and c not in figures]


def stone_moves(state: ClimbersState) -> list[ClimbersMove]:
    """The stone moves of the player to move (none once his stone is used)."""
    if state.stone_used[state.player]:
        return []
    return [ClimbersMove("stone", block=state.ids[i]) for i in range(len(state.ids)) if free_cells(state, i)]


def stone_cells(state: ClimbersState) -> dict[str, list[tuple[int, int, int]]]:
    """Where each stone move of the player to move points: block id -> the free cells of its top (x, y, height of
    the top), the places a person clicks to lay the stone there."""
    board = state.board
    out: dict[str, list[tuple[int, int, int]]] = {}
    for move in stone_moves(state):
        i = state.index[move.block]
        z = int(board.top(i))
        out[move.block] = [(int(x), int(y), z) for x, y in free_cells(state, i)]
    return out

"""Why a move of The Climbers is refused: the rule it breaks, first in the order of the rule text.

`why(state, move)` is called only for a move that is not among the legal ones; it names the rule (the
`IllegalMove.rule` of docs/climbers.md) and says in words what is wrong.
"""

from __future__ import annotations

from typing import Any

from tower.climbers.blocks import COLOURS, placements_shapes
from tower.climbers.board import BOARD, NO_BLOCK, Z_MAX
from tower.climbers.figures import flat
from tower.climbers.moves import ClimbersMove

#: The state these functions serve: `game.ClimbersState`, which imports this module (named, not imported, so that
#: imports point one way).
ClimbersState = Any


def why(state: ClimbersState, move: ClimbersMove) -> tuple[str, str]:
    """(rule, message) for a move that is not legal now."""
    p, phase = state.player, state.phase
    start = state.turn_start[2]
    if move.kind == "pass":
        return "pass-only-first", "a whole turn can be passed only before anything else in it"
    if move.kind == "skip":
        if phase in ("figure2", "block"):
            return "net-height", ("this figure left the table this turn: it must end the turn higher than it began "
                                  f"it (height {start})")
        return "not-now", "nothing to skip here"
    if move.kind == "fig":
        if phase not in ("figure1", "figure2"):
            return "wrong-phase", f"the figure moves before and after the block move, not in the {phase} step"
        return _why_figure(state, p, move)
    if move.kind == "block":
        if phase != "block":
            return "wrong-phase", f"a block is moved in the block step, not in the {phase} step"
        if move in state.block_moves(net_height=False):
            return "net-height", ("after this block move the figure, which left the table this turn, could no "
                                  f"longer end the turn higher than it began it (height {start})")
        return _why_block(state, move)
    if move.kind == "stone":
        if phase != "stone":
            return "wrong-phase", "the blocking stone is laid at the end of the turn"
        if state.stone_used[p]:
            return "stone-used", "each player has one blocking stone per game"
        if move.block not in state.index:
            return "unknown-block", f"there is no block {move.block}"
        return "stone-not-on-free-top", (f"block {move.block} shows no cell of its top free of figures and stones "
                                         "(a stone needs a free surface)")
    return "unknown", "not a move of this game"


def _why_figure(state: ClimbersState, p: int, move: ClimbersMove) -> tuple[str, str]:
    dest = move.cell
    assert dest is not None
    x, y, z = dest
    if not (0 <= x < BOARD and 0 <= y < BOARD):
        return "off-table", f"{dest} is off the table area"
    if int(state.heights[x, y]) != z:
        return "figure-not-on-surface", f"a figure stands on a column top: the top at ({x},{y}) is {state.heights[x, y]}"
    for lad in move.ladders:
        if not (state.short[p] if lad == "short" else state.long[p]):
            return "ladder-used", f"the {lad} ladder of {state.colours[p]} is already used"
    if z == 0 and not state._near()[x, y]:
        return "far-from-tower", ("on the table a figure walks freely, so only table cells next to the tower (one "
                                  "step from a block, diagonals included) are offered")
    if not state.ground(p).ok[flat(x, y)]:
        b = int(state.topb[x, y])
        if b in state.blocked():
            return "blocked-block", f"block {state.ids[b]} carries a blocking stone: it cannot be entered"
        if any(f[:2] == (x, y) for q, f in enumerate(state.figures) if q != p):
            return "cell-occupied", f"another figure stands on {dest}"
        return "wrong-colour", (f"{state.colours[p]} may stand only on {state.colours[p]}, grey or the table; "
                                f"{state.ids[b]} shows {COLOURS[state.block_top_colour(b)]}")
    if move in state.figure_moves(p, net_height=False):
        if state.phase == "figure1":
            return "net-height", ("this move leaves the figure no higher than it began the turn (height "
                                  f"{state.turn_start[2]}), and no block move followed by a second figure move "
                                  "of this turn could bring it higher: there is no such continuation")
        return "net-height", ("a figure that leaves the table must end its turn higher than it began it "
                              f"(height {state.turn_start[2]})")
    return "unreachable", ("no path of orthogonal steps reaches it: without a ladder a step rises at most 1, "
                           "the short ladder bridges exactly 2, the long one 2 to 4, each once; every cell "
                           "entered must be free, of the figure's colour, grey or the table")


def _why_block(state: ClimbersState, move: ClimbersMove) -> tuple[str, str]:
    if move.block not in state.index:
        return "unknown-block", f"there is no block {move.block}"
    board = state.board
    i = state.index[move.block]
    if i == state.last_moved:
        return "last-moved", f"{move.block} was moved in the previous turn: the next player may not move it"
    if i in state.blocked():
        return "blocked-block", f"{move.block} carries a blocking stone"
    if i not in state.movable_blocks():
        return "not-free", f"{move.block} has something on its top (a block or a figure)"
    shapes = {(s, t) for s, t, _ in placements_shapes(tuple(int(v) for v in board.size[i]),  # type: ignore[arg-type]
                                                      tuple(int(v) for v in board.faces[i]))}  # type: ignore[arg-type]
    if (move.size, move.top) not in shapes:
        return "no-such-rotation", f"{move.block} cannot be turned to extents {move.size} with {COLOURS[move.top]} up"  # type: ignore[index]
    x, y, z = move.cell  # type: ignore[misc]
    sx, sy, sz = move.size  # type: ignore[misc]
    if x < 0 or y < 0 or x + sx > BOARD or y + sy > BOARD or z < 0 or z + sz > Z_MAX:
        return "off-table", "the block would leave the table area"
    probe = board.copy()
    probe.lift(i)
    cols = probe.heights[x:x + sx, y:y + sy]
    if (probe.occ[x:x + sx, y:y + sy, z:z + sz] != NO_BLOCK).any():
        return "overlap", "the block would overlap another block"
    if int(cols.max()) != z or int(cols.min()) != z:
        return "unsupported", "every cell under a block must be a block top (or the table): no holes, no overhangs"
    if z == 0 and any(x <= fx < x + sx and y <= fy < y + sy for fx, fy, _ in state.figures):
        return "figure-under", "a block is not laid over a figure standing on the table"
    stoned = state.blocked()
    if any(int(t) in stoned for t in probe.topb[x:x + sx, y:y + sy].ravel()):
        return "blocked-block", "a block carrying a blocking stone cannot be covered"
    if (move.cell, move.size) == (tuple(int(v) for v in board.origin[i]), tuple(int(v) for v in board.size[i])):
        return "same-place", "a moved block must end somewhere else"
    if z == 0:
        return "no-contact", "at least one face must touch the construction flush, with a shared area"
    return "figure-push", "figures under the block cannot all be pushed to free cells of the same top face"

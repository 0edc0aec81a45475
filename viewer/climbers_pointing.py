"""The Climbers played by pointing, what the window's controller and the browser page share: which cells a click
chooses a move by, which moves are buttons (and keys) beside the pointer's line, lists sorted as people count,
and what a click the step does not take says instead.

Every step of a turn is reached on the table: a figure move by its destination cell, a block move by the block
and then where it goes (`viewer.placement`), the blocking stone by a free cell of the top it goes on. The moves
that name no place (`skip` in its three meanings, `pass`) are buttons. The game decides legality: these are the
legal moves, placed where a person points.
"""

from __future__ import annotations

import re
from typing import Any

#: Moves that name no place on the table: buttons beside the page's pointer line, and these keys (the window's
#: `p` goes back through the menu: pass is Shift+P there).
ACTION_KEYS = {"skip": "s", "pass": "P"}

#: What each step of a turn takes by pointing (said when a click there does nothing).
STEP_ALLOWS = {
    "figure1": "step 1 moves your figure: click a green cell (twice), or skip to the block move",
    "block": "step 2 moves a block: click a block outlined in orange, then where it goes",
    "figure2": "step 3 moves your figure again: click a green cell (twice), or leave it",
    "stone": "step 4 lays your blocking stone: click a lit free top (twice), or keep it",
}


def natural_key(text: str) -> list[Any]:
    """Sort key that counts as people do: c1, c2, ..., c10 (digit runs compare as numbers)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def move_cells(state: Any, moves: list[Any]) -> dict[tuple[int, int, int], list[str]]:
    """Cell -> the moves (text) a click on it chooses, in order: a figure move's destination, and each free cell
    of a top a stone may be laid on (`tower.climbers.stones.stone_cells`)."""
    from tower.climbers.stones import stone_cells

    out: dict[tuple[int, int, int], list[str]] = {}
    for m in moves:
        if getattr(m, "kind", None) == "fig":
            out.setdefault(tuple(m.cell), []).append(str(m))
    if any(getattr(m, "kind", None) == "stone" for m in moves):
        for block, cells in stone_cells(state).items():
            for c in cells:
                out.setdefault(c, []).append(f"stone {block}")
    return dict(sorted(out.items()))


def refusal(state: Any, block: str | None) -> str:
    """What a click on `block` (None: on nothing) that chooses no move says: why that block cannot be used now
    and what this step takes instead."""
    phase = state.phase
    allows = STEP_ALLOWS.get(phase, "")
    if phase == "figure2" and not any(str(m) == "skip" for m in state.legal_moves()):
        allows = ("step 3 moves your figure again: it left the table this turn, so it must end higher than it "
                  "began: click a green cell (twice)")
    if block is None:
        return allows
    if phase == "block":
        return f"block {block} cannot move now ({_why_stuck(state, block)}): {allows}"
    if phase == "stone":
        return f"no stone on block {block}: its top shows no free cell; {allows}"
    return f"block {block}: {allows}"


def _why_stuck(state: Any, block: str) -> str:
    i = state.index.get(block)
    if i is None:
        return "no such block"
    if i == state.last_moved:
        return "the previous player moved it"
    if i in state.blocked():
        return "a blocking stone lies on it"
    if state.board.carries_block(i) or any(f[:2] in set(state.board.footprint_cells(i)) and
                                           f[2] == state.board.top(i) for f in state.figures):
        return "something stands on it"
    return "it has no legal place to go"

"""How a figure moves: where it may step, the breadth-first search over its destinations, and whether it can
still climb above a height.

A step goes to an orthogonally adjacent column the figure may enter (its own colour, grey or the table; no
stone, no other figure). Without a ladder it changes height by at most one unit (with the `free` descent option
it may drop any height); the short ladder bridges exactly 2 units up, the long one 2 to 4, each once. A figure
move is any chain of steps, so the searches run over states (column, ladders left).

The searches are plain Python over flat lists (the fastest way to walk a few hundred states): the board is
padded by one column of non-enterable cells all round, so a step never needs a bounds check. A column is
`flat(x, y)`; a search state is `column * 4 + ladders`, with ladders left as bits (2: short, 1: long).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from tower.climbers.blocks import GREY, TOP
from tower.climbers.board import BOARD, Board
from tower.climbers.placement import window_max

SHORT_LADDER = (2,)  # rises a short ladder bridges in one step
LONG_LADDER = (2, 3, 4)
SHORT, LONG = 2, 1  # ladder bits of a search state
W = BOARD + 2  # padded row length
OFFSETS = (W, -W, 1, -1)  # the four orthogonal neighbours of a flat column
_RISE0 = 64  # rises are looked up at rise + _RISE0


def flat(x: int, y: int) -> int:
    return (x + 1) * W + y + 1


def unflat(k: int) -> tuple[int, int]:
    x, y = divmod(k, W)
    return x - 1, y - 1


def ladder_bits(short: bool, long: bool) -> int:
    return SHORT * short + LONG * long


def _step_table(free_descent: bool) -> list[list[tuple[tuple[int, str | None], ...]]]:
    """table[ladders][rise + _RISE0]: the (ladders left, ladder used) of every way to make a step of `rise`."""
    table = []
    for lad in range(4):
        row = []
        for rise in range(-_RISE0, _RISE0):
            ways: list[tuple[int, str | None]] = []
            if -1 <= rise <= 1 or (rise < -1 and free_descent):
                ways.append((lad, None))
            if lad & SHORT and rise in SHORT_LADDER:
                ways.append((lad & ~SHORT, "short"))
            if lad & LONG and rise in LONG_LADDER:
                ways.append((lad & ~LONG, "long"))
            row.append(tuple(ways))
        table.append(row)
    return table


STEPS = {False: _step_table(False), True: _step_table(True)}


def enterable(board: Board, colour: int, stoned: set[int], others: list[tuple[int, int]]) -> np.ndarray:
    """Columns a figure of colour index `colour` may enter: its colour, grey or the table; not the visible
    top of a block carrying a stone; not a column where another figure stands."""
    topb = board.topb
    tops = np.where(topb >= 0, board.faces[np.clip(topb, 0, None), TOP], -1)
    ok = (topb < 0) | (tops == GREY) | (tops == colour)
    for b in stoned:
        ok &= topb != b
    for x, y in others:
        ok[x, y] = False
    return ok


class Ground:
    """What one figure walks on: column heights and enterable columns as flat padded lists."""

    __slots__ = ("h", "ok", "free_descent")

    def __init__(self, heights: np.ndarray, ok: np.ndarray, free_descent: bool) -> None:
        hp = np.zeros((W, W), dtype=np.int32)
        hp[1:-1, 1:-1] = heights
        okp = np.zeros((W, W), dtype=bool)
        okp[1:-1, 1:-1] = ok
        self.h: list[int] = hp.ravel().tolist()
        self.ok: list[bool] = okp.ravel().tolist()
        self.free_descent = free_descent

    def patched(self, heights: dict[int, int], ok: dict[int, bool]) -> Ground:
        """A copy with some columns changed (a block moved): the rest is shared work already done."""
        new = object.__new__(Ground)
        new.h = self.h.copy()
        new.ok = self.ok.copy()
        new.free_descent = self.free_descent
        for k, v in heights.items():
            new.h[k] = v
        for k, e in ok.items():
            new.ok[k] = e
        return new


def walk(ground: Ground, start: int, lad: int, preds: dict[int, list[int]] | None = None) -> dict[int, int]:
    """Every state reachable from (start, lad), each with the state it was first reached from (-1 for the
    start): breadth first, so following the links back gives a shortest walk. With `preds`, every link (not
    only the first) is recorded backwards, for the searches that run from the destinations back."""
    h, ok = ground.h, ground.ok
    table = STEPS[ground.free_descent]
    s0 = start * 4 + lad
    parent = {s0: -1}
    queue = deque([s0])
    while queue:
        s = queue.popleft()
        k, lad = s >> 2, s & 3
        z = h[k] - _RISE0
        row = table[lad]
        for n in (k + W, k - W, k + 1, k - 1):
            if not ok[n]:
                continue
            for nlad, _ in row[h[n] - z]:
                ns = n * 4 + nlad
                if preds is not None:
                    preds.setdefault(ns, []).append(s)
                if ns not in parent:
                    parent[ns] = s
                    queue.append(ns)
    return parent


def rises(ground: Ground, start: int, lad: int, above: int, seen: dict[int, int] | None = None) -> bool:
    """Whether a figure on column `start` with ladders `lad` can reach a column higher than `above`.

    The same search as `walk`, answering only yes or no: it stops at the first higher column, and a state is
    not explored when the same column was already reached with every ladder it has (more ladders reach more).
    `seen` (column -> the ladder sets it was reached with, as bits 1 << ladders) receives what was explored.
    """
    h, ok = ground.h, ground.ok
    if h[start] > above:
        return True
    table = STEPS[ground.free_descent]
    if seen is None:
        seen = {}
    seen[start] = 1 << lad
    # a ladder set is dominated when a superset was reached: masks of the supersets of each set
    supersets = (0b1111, 0b1010, 0b1100, 0b1000)
    queue = deque([start * 4 + lad])
    while queue:
        s = queue.popleft()
        k, lad = s >> 2, s & 3
        z = h[k] - _RISE0
        row = table[lad]
        for n in (k + W, k - W, k + 1, k - 1):
            if not ok[n]:
                continue
            for nlad, _ in row[h[n] - z]:
                if h[n] > above:
                    return True
                got = seen.get(n, 0)
                if got & supersets[nlad]:
                    continue
                seen[n] = got | (1 << nlad)
                queue.append(n * 4 + nlad)
    return False


def path_to(parent: dict[int, int], state: int, h: list[int]) -> tuple[tuple[int, int, int], ...]:
    """The walk to `state` (cells with their heights), start first."""
    cells = []
    s = state
    while s != -1:
        x, y = unflat(s >> 2)
        cells.append((x, y, h[s >> 2]))
        s = parent[s]
    return tuple(reversed(cells))


def ladders_used(parent: dict[int, int], state: int) -> tuple[str, ...]:
    """The ladders used on the walk to `state`, in the order they were used."""
    used = []
    s = state
    while parent[s] != -1:
        before, after = parent[s] & 3, s & 3
        if before != after:
            used.append("short" if before & SHORT and not after & SHORT else "long")
        s = parent[s]
    return tuple(reversed(used))


def table_walk(ground: Ground, start: int) -> dict[int, int]:
    """Table columns reachable from `start` over the table alone (where figures walk freely), each with its
    predecessor on a shortest walk."""
    h, ok = ground.h, ground.ok
    prev = {start: -1}
    queue = deque([start])
    while queue:
        k = queue.popleft()
        for n in (k + W, k - W, k + 1, k - 1):
            if ok[n] and h[n] == 0 and n not in prev:
                prev[n] = k
                queue.append(n)
    return prev


def near_tower(heights: np.ndarray) -> np.ndarray:
    """Table cells within one step (orthogonal or diagonal) of a block column."""
    pad = np.zeros((BOARD + 2, BOARD + 2), dtype=bool)
    pad[1:-1, 1:-1] = heights > 0
    return window_max(pad, 3, 3)

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


class Pieces:
    """The free table of a ground in connected pieces: a figure walks freely on the table, so a search takes a
    whole piece in one step, and leaves it by any column beside it (`border`)."""

    __slots__ = ("labels", "_pairs", "_extra")

    def __init__(self, labels: list[int], pairs: tuple[np.ndarray, np.ndarray],
                 extra: dict[int, tuple[int, ...]] | None = None) -> None:
        self.labels = labels  # the piece of each column (0: not free table)
        self._pairs = pairs  # every (piece, column beside it that is not free table), sorted by piece
        self._extra = extra or {}  # more such columns per piece (a block laid on the table)

    @classmethod
    def of(cls, hs: np.ndarray, oks: np.ndarray) -> Pieces:
        table = oks & (hs == 0)
        free = table.tolist()
        labels = [0] * len(free)
        count = 0
        for k in np.flatnonzero(table).tolist():  # breadth first from each cell not labelled yet
            if labels[k]:
                continue
            count += 1
            labels[k] = count
            queue = [k]
            for at in queue:
                for nb in (at + W, at - W, at + 1, at - 1):
                    if free[nb] and not labels[nb]:
                        labels[nb] = count
                        queue.append(nb)
        labels = np.array(labels, dtype=np.int64)
        n = len(table)
        pieces, columns = [], []
        for d in OFFSETS:
            lo, hi = max(0, -d), n - max(0, d)
            ks = np.flatnonzero(table[lo:hi] & ~table[lo + d:hi + d]) + lo
            pieces.append(labels[ks])
            columns.append(ks + d)
        piece, column = np.concatenate(pieces), np.concatenate(columns)
        order = np.argsort(piece, kind="stable")
        return cls(labels.tolist(), (piece[order], column[order]))

    def border(self, piece: int) -> list[int]:
        """The columns beside a piece that are not free table (a figure leaves the piece by them)."""
        pieces, columns = self._pairs
        lo, hi = np.searchsorted(pieces, [piece, piece + 1])
        return sorted({*columns[lo:hi].tolist(), *self._extra.get(piece, ())})

    def columns(self, piece: int) -> list[int]:
        return [k for k, label in enumerate(self.labels) if label == piece]

    def splits(self, cells: list[int], h: list[int], ok: list[bool]) -> bool:
        """Whether covering `cells` (free table) may split a piece (see `covered`)."""
        return self.covered(cells, h, ok) is None

    def covered(self, cells: list[int], h: list[int], ok: list[bool]) -> Pieces | None:
        """The pieces once a block covers `cells` of free table, if that cannot split a piece: the cells form a
        rectangle, and the free table round it (corners included) is one unbroken run along the ring, so a walk
        across the rectangle can go round it. None: label again."""
        xs = [k // W for k in cells]
        ys = [k % W for k in cells]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        if len(set(cells)) != (x1 - x0 + 1) * (y1 - y0 + 1):
            return None
        ring = [x * W + y0 - 1 for x in range(x0 - 1, x1 + 2)] + [(x1 + 1) * W + y for y in range(y0, y1 + 2)]
        ring += [x * W + y1 + 1 for x in range(x1, x0 - 2, -1)] + [(x0 - 1) * W + y for y in range(y1, y0 - 1, -1)]
        free = [h[k] == 0 and ok[k] for k in ring]
        if sum(1 for j in range(len(free)) if free[j] and not free[j - 1]) > 1:
            return None
        labels_round = {self.labels[k] for k, f in zip(ring, free, strict=True) if f}
        if len(labels_round) != 1 or 0 in labels_round:
            return None
        piece = labels_round.pop()
        labels = self.labels.copy()
        for k in cells:
            labels[k] = 0
        extra = dict(self._extra)
        beside = {k for k, f in zip(ring, free, strict=True) if f}
        extra[piece] = (*extra.get(piece, ()), *(k for k in cells if {k + W, k - W, k + 1, k - 1} & beside))
        return Pieces(labels, self._pairs, extra)

    def uncovered(self, cells: list[int], h: list[int], ok: list[bool]) -> Pieces | None:
        """The pieces once a block lifted off the table frees `cells` (one rectangle), if they join at most one
        piece (they are a new piece if they touch none). None: label again."""
        inside = set(cells)
        around = [n for k in cells for n in (k + W, k - W, k + 1, k - 1) if n not in inside]
        touching = {self.labels[n] for n in around if self.labels[n] and h[n] == 0 and ok[n]}
        if len(touching) > 1:
            return None
        piece = touching.pop() if touching else max(self.labels) + 1 + len(self._extra)
        labels = self.labels.copy()
        for k in cells:
            labels[k] = piece
        extra = dict(self._extra)
        # a border column that is now free table is harmless: stepping there finds the piece already reached
        extra[piece] = (*extra.get(piece, ()), *(n for n in around if not (h[n] == 0 and ok[n])))
        return Pieces(labels, self._pairs, extra)


class Ground:
    """What one figure walks on: column heights and enterable columns as flat padded lists, and the free table
    in pieces (`pieces()`, worked out when first asked for and carried over to a patched copy where it can)."""

    __slots__ = ("h", "ok", "free_descent", "_arrays", "_pieces", "_base")

    def __init__(self, heights: np.ndarray, ok: np.ndarray, free_descent: bool) -> None:
        hp = np.zeros((W, W), dtype=np.int32)
        hp[1:-1, 1:-1] = heights
        okp = np.zeros((W, W), dtype=bool)
        okp[1:-1, 1:-1] = ok
        self.h: list[int] = hp.ravel().tolist()
        self.ok: list[bool] = okp.ravel().tolist()
        self.free_descent = free_descent
        self._arrays = (hp.ravel(), okp.ravel())
        self._pieces: Pieces | None = None
        #: a patched copy: the ground it was patched from, and the free table the patch took and gave
        self._base: tuple[Ground, list[int], list[int]] | None = None

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
        changed = list({*heights, *ok})
        new._arrays = self._arrays
        new._pieces, new._base = self._pieces, None
        h0, ok0, h1, ok1 = self.h, self.ok, new.h, new.ok
        lost = [k for k in changed if h0[k] == 0 and ok0[k] and not (h1[k] == 0 and ok1[k])]
        won = [k for k in changed if h1[k] == 0 and ok1[k] and not (h0[k] == 0 and ok0[k])]
        if lost or won:  # the free table changed: its pieces are worked out again (`pieces`)
            new._pieces = None
            new._base = (self, lost, won)
        if changed:
            hs, oks = self._arrays[0].copy(), self._arrays[1].copy()
            hs[changed] = [h1[k] for k in changed]
            oks[changed] = [ok1[k] for k in changed]
            new._arrays = (hs, oks)
        return new

    def pieces(self) -> Pieces:
        if self._pieces is None:
            if self._base is not None:  # a block moved on the table: mostly no piece splits or merges
                ground, lost, won = self._base
                found: Pieces | None = ground.pieces()
                if found is not None and won:
                    found = found.uncovered(won, self.h, self.ok)
                if found is not None and lost:
                    found = found.covered(lost, self.h, self.ok)
                self._pieces = found
            if self._pieces is None:
                self._pieces = Pieces.of(*self._arrays)
        return self._pieces


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


def rises(ground: Ground, start: int, lad: int, above: int, seen: dict[int, int] | None = None,
          goals: dict[int, int] | None = None) -> bool:
    """Whether a figure on column `start` with ladders `lad` can reach a column higher than `above`.

    The same search as `walk`, answering only yes or no: it stops at the first higher column; a state is not
    explored when the same column was already reached with every ladder it has (more ladders reach more); and a
    piece of free table is one node, left from any column beside it (`Pieces`). `seen` (column -> the
    ladder sets it was reached with, as bits 1 << ladders) receives what was explored. `goals` (column -> the
    ladder sets, as bits, with which reaching it is known to lead higher) lets it stop early.
    """
    h, ok = ground.h, ground.ok
    if h[start] > above:
        return True
    table = STEPS[ground.free_descent]
    pieces = len(h)  # node ids: a column, or `pieces` + the number of a piece of free table
    borders: dict[int, list[int]] = {}
    labels: list[int] = []

    def node(k: int) -> int:
        if h[k] != 0 or not ok[k]:
            return k
        if not labels:
            labels.extend(ground.pieces().labels)
        return pieces + labels[k]

    start_node = node(start)
    reached: dict[int, int] = {start_node: 1 << lad}
    # a ladder set is dominated when a superset was reached: masks of the supersets of each set
    supersets = (0b1111, 0b1010, 0b1100, 0b1000)
    queue = deque([(start_node, lad)])
    found = False
    while queue and not found:
        at, lad = queue.popleft()
        row = table[lad]
        if at >= pieces:
            if at not in borders:
                borders[at] = ground.pieces().border(at - pieces)
            z, around = -_RISE0, borders[at]
        else:
            z, around = h[at] - _RISE0, (at + W, at - W, at + 1, at - 1)
        for n in around:
            if not ok[n]:
                continue
            for nlad, _ in row[h[n] - z]:
                if h[n] > above:
                    found = True
                    break
                nn = node(n) if h[n] == 0 else n
                if goals and goals.get(nn, 0) >> nlad & 1:
                    found = True
                    break
                got = reached.get(nn, 0)
                if got & supersets[nlad]:
                    continue
                reached[nn] = got | (1 << nlad)
                queue.append((nn, nlad))
            if found:
                break
    if seen is not None and not found:
        for at, bits in reached.items():
            for k in ground.pieces().columns(at - pieces) if at >= pieces else (at,):
                seen[k] = seen.get(k, 0) | bits
    return found


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

"""The net-height rule, judged exactly at the end of the turn.

A figure that left the table during its turn must end the turn higher than it began it. It may go down or
sideways first, since only the end counts: a first figure move that does not end higher is legal exactly when
some legal block move, followed by some second figure move, brings the figure higher than it began. In the block
step, while the figure is not yet higher, exactly the block moves after which a second figure move can still
rise are legal. (With no block move possible at all the block step is skipped, and the rise must exist in the
tower as it stands.)

Both questions come down to: after block move m, can the figure, from where it stands (or where m pushes it),
reach a column higher than the turn's start? `Riser.rises_after` answers that exactly: it patches the columns m
changes into the figure's ground (`figures.Ground`) and searches from the figure (`figures.rises`). Trying every
block move that way would cost seconds, so three cheaper tests come first:

- A rise the tower already offers survives every block move that changes no column of one rising walk (the
  columns the block leaves and covers). One such move is enough for a first figure move; in the block step,
  only the moves that touch every known rising walk are searched.
- When the tower offers no rise, a block move can only create one if it changes a column next to where the
  figure can already walk (`reach`), and either puts a standable top higher than the start within a step or a
  ladder of some column, uncovers such a top, or changes a column next to one from which the figure could
  climb higher (`upward`, an over-estimate that lets every ladder be used again and again). These are necessary
  conditions, computed for all block moves at once with numpy; only the moves that pass are searched.
- A search that fails explores everything the figure can reach after m; any other destination of the first
  figure move found among those states fails with m too, without a search of its own.

Cost: per figure step one breadth-first search over the figure's reach for each group of destinations that
reach the same places, a few numpy passes over the ~11,000 rows of the block table, and one bounded search per
candidate block move actually tried (each a few hundred states at most, stopping at the first higher column).
`benchmarks/bench_climbers.py` measures it on random mid-game positions (docs/climbers.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

from tower.climbers.blockmoves import BlockTable, Placements, figure_masks, lifted_top, push_options
from tower.climbers.blocks import GREY, TOP
from tower.climbers.board import BOARD, NO_BLOCK, Board
from tower.climbers.figures import LONG, SHORT, Ground, W, flat, rises, unflat, walk
from tower.climbers.moves import Cell, ClimbersMove
from tower.climbers.placement import window_max, window_or

_SUPERSETS = (0b1111, 0b1010, 0b1100, 0b1000)  # ladder sets (as bits) that include ladder set 0..3


class Riser:
    """One player's figure on one board, with the block moves of the turn: the net-height searches."""

    def __init__(self, board: Board, pl: Placements, ground: Ground, colour: int, others: list[Cell],
                 stoned: set[int], above: int, stands: Callable[[int, Cell], bool] | None = None) -> None:
        """`ground`: where the figure may walk now (the other figures as obstacles); `above`: the height it
        must get above (where it began the turn); `stands(row, figure cell)`: the physics judge's verdict on an
        overhanging placement (support=physical)."""
        self.board, self.pl, self.ground = board, pl, ground
        self.colour, self.others, self.stoned, self.above = colour, others, stoned, above
        self.stands = stands
        self.keep_others, self.push_others = figure_masks(pl, board, others)
        self._lifted: dict[int, tuple[list[int], list[int], list[bool]]] = {}
        self._standable_tops = (GREY, colour)
        self._touch_cache: dict[tuple[bytes, str], np.ndarray] = {}
        self._foot_rows: dict[tuple[int, int], np.ndarray] | None = None
        self._up: dict[int, bytearray] = {}
        # rows in a fixed spread-out order, for tests that need one row of a kind
        self._sample = (np.arange(len(pl)) * 7919 % max(len(pl), 1)).tolist()[:512] if len(pl) else []

    # --- the exact test --------------------------------------------------------------------------------------
    def _standable(self, b: int) -> bool:
        return b == NO_BLOCK or (int(self.board.faces[b, TOP]) in self._standable_tops and b not in self.stoned)

    def _vacated(self, i: int) -> tuple[list[int], list[int], list[bool]]:
        """Block i's footprint once it is lifted: flat columns, heights, whether the figure may enter them."""
        if i not in self._lifted:
            hs, tops = lifted_top(self.board, i)
            fx, fy = self.board.footprint(i)
            cols = [flat(fx.start + a, fy.start + b) for a in range(hs.shape[0]) for b in range(hs.shape[1])]
            self._lifted[i] = (cols, hs.ravel().tolist(), [self._standable(int(b)) for b in tops.ravel().tolist()])
        return self._lifted[i]

    def rises_after(self, i: int, origin: Cell, size: Cell, top: int, pushes: tuple[tuple[Cell, Cell], ...],
                    figure: Cell, ladders: int, walks: list | None = None,
                    explore: bool = True) -> tuple[bool, dict[int, int] | None]:
        """Whether the figure on `figure` with `ladders` left can get above the start height after block i is
        put at `origin` (extents `size`, colour `top` up, pushing `pushes`; with no extents, only lifted off).
        Returns the answer and, when it is no and `explore` is asked for, what the search explored (column ->
        ladder sets reached, as bits)."""
        heights: dict[int, int] = {}
        ok: dict[int, bool] = {}
        cols, hs, enter = self._vacated(i)
        for k, h, e in zip(cols, hs, enter, strict=True):
            heights[k] = h
            ok[k] = e
        z = origin[2] + size[2] if size else 0
        standable = top in self._standable_tops
        for x in range(origin[0], origin[0] + (size[0] if size else 0)):
            for y in range(origin[1], origin[1] + size[1]):
                k = flat(x, y)
                heights[k] = z
                ok[k] = standable
        start = flat(figure[0], figure[1])
        for src, dst in pushes:
            if src[:2] == figure[:2]:
                start = flat(dst[0], dst[1])
            else:
                ok[flat(dst[0], dst[1])] = False
        ground = self.ground.patched(heights, ok)
        if ground.h[start] > self.above:
            return True, None
        seen: dict[int, int] | None = {} if explore else None
        found = rises(ground, start, ladders, self.above, seen, _goals(walks, heights.keys() | ok.keys()))
        return found, None if found else seen

    def _row_rises(self, r: int, figure: Cell, ladders: int, walks: list | None = None,
                   explore: bool = True) -> tuple[bool, dict[int, int] | None]:
        pl = self.pl
        size, top = pl.shapes[int(pl.shape[r])]
        origin = (int(pl.x[r]), int(pl.y[r]), int(pl.z[r]))
        return self.rises_after(int(pl.block[r]), origin, size, top, (), figure, ladders, walks, explore)

    def _walks_touched(self, parent: dict[int, int], highs: list[int]) -> np.ndarray:
        """Per row, the walks to `highs` whose columns it leaves or covers, one bit per walk (a row that does
        not touch them all leaves one rising walk alone)."""
        pl = self.pl
        marks = np.zeros((BOARD, BOARD), dtype=np.int64)
        for bit, s in enumerate(highs):
            while s != -1:
                marks[unflat(s >> 2)] |= 1 << bit
                s = parent[s]
        left = np.zeros(len(self.board), dtype=np.int64)
        for i in np.unique(pl.block).tolist():
            left[i] = np.bitwise_or.reduce(marks[self.board.footprint(i)], axis=None)
        touched = left[pl.block] if len(pl) else np.zeros(0, dtype=np.int64)
        for (fx, fy), rows in self._footprints().items():
            touched[rows] |= window_or(marks, fx, fy)[pl.x[rows], pl.y[rows]]
        return touched

    @staticmethod
    def _push_spares(move: ClimbersMove, touched: int, walks: list, figure: Cell) -> bool:
        """Whether a pushing move leaves a rising walk alone: its block does (`touched`: the walks it leaves or
        covers a column of), it does not push the figure itself, and nobody is pushed onto that walk."""
        if any(src[:2] == figure[:2] for src, _ in move.pushes):
            return False
        targets = [flat(dst[0], dst[1]) for _, dst in move.pushes]
        return any(not touched >> j & 1 and not any(k in last for k in targets)
                   for j, (last, _, _) in enumerate(walks))

    def _table_spared(self, rows: np.ndarray, walks: list) -> np.ndarray:
        """Per row of `rows`: sure to keep a rise, because its block is laid on the table without splitting a
        piece of free table (the figure walks round it), and neither that nor lifting the block changes a block
        column of a known rising walk or a table cell where it steps on or off a block."""
        pl = self.pl
        pieces = self.ground.pieces()
        h, ok = self.ground.h, self.ground.ok
        out = np.zeros(len(rows), dtype=bool)
        done: dict[tuple, bool] = {}
        for n, r in enumerate(rows.tolist()):
            if pl.z[r] != 0:
                continue
            i, x0, y0, x1, y1 = int(pl.block[r]), int(pl.x[r]), int(pl.y[r]), int(pl.x1[r]), int(pl.y1[r])
            key = (i, x0, y0, x1, y1)
            if key not in done:
                cells = [flat(x, y) for x in range(x0, x1) for y in range(y0, y1)]
                left = self._vacated(i)[0]
                touched = {*cells, *left}
                near = any(x0 - 1 <= k // W - 1 <= x1 and y0 - 1 <= k % W - 1 <= y1 for k in left)
                done[key] = (not near and any(not touched & fixed for _, _, fixed in walks)
                             and not pieces.splits(cells, h, ok))
            out[n] = done[key]
        return out

    def _lifting_fails(self, figure: Cell, ladders: int, rows: np.ndarray) -> np.ndarray:
        """Rows (of `rows`, pushing nobody) sure to leave no rise: their block, only lifted off, leaves none, and
        the figure cannot step onto it at its new place from anywhere it then reaches (every walk avoiding the
        new place is a walk of the tower with the block lifted off). One search per block, not per row."""
        pl = self.pl
        out = np.zeros(len(pl), dtype=bool)
        lift = _max_rise(ladders)
        free = self.ground.free_descent
        start = flat(figure[0], figure[1])
        standable = np.isin(pl.tops, self._standable_tops)[pl.shape]
        for i in np.unique(pl.block[rows]).tolist():
            cols, hs, enter = self._vacated(i)
            ground = self.ground.patched(dict(zip(cols, hs, strict=True)), dict(zip(cols, enter, strict=True)))
            seen: dict[int, int] = {}
            if rises(ground, start, ladders, self.above, seen):
                continue
            bits = np.zeros(W * W, dtype=np.int64)
            for k in seen:
                bits[k] = 1 << ground.h[k]
            mine = rows[pl.block[rows] == i]
            z1 = pl.z1.astype(np.int64)
            onto = standable & _ring_has(pl, self._footprints(), bits.reshape(W, W), z1 - lift,
                                         np.full_like(z1, 62) if free else z1 + 1, mine)
            out[mine[~onto[mine]]] = True
        return out

    # --- the masks of the cheap tests ---------------------------------------------------------------------------
    def _touches(self, grid: np.ndarray, name: str) -> np.ndarray:
        """Rows whose block leaves or covers a column of `grid` (bool over the board)."""
        key = (np.packbits(grid).tobytes(), name)
        if key in self._touch_cache:
            return self._touch_cache[key]
        pl = self.pl
        per_block = np.array([bool(grid[self.board.footprint(i)].any()) for i in range(len(self.board))],
                             dtype=bool)
        hits = per_block[pl.block] if len(pl) else np.zeros(0, dtype=bool)
        for (fx, fy), rows in self._footprints().items():
            hits[rows] |= window_max(grid, fx, fy)[pl.x[rows], pl.y[rows]]
        self._touch_cache[key] = hits
        return hits

    def _footprints(self) -> dict[tuple[int, int], np.ndarray]:
        """The rows of each footprint (extents along x and y)."""
        if self._foot_rows is None:
            pl = self.pl
            by_foot: dict[tuple[int, int], list[int]] = {}
            for sid, (size, _) in enumerate(pl.shapes):
                by_foot.setdefault(size[:2], []).append(sid)
            self._foot_rows = {f: np.flatnonzero(np.isin(pl.shape, sids)) for f, sids in by_foot.items()}
        return self._foot_rows

    def upward(self, ladders: int) -> bytearray:
        """Columns (flat, as a byte each) from which the figure could get above the start height if it could use
        the ladders it has as often as it likes (an over-estimate of where a climb can start): a backward search
        from the higher columns."""
        if ladders in self._up:
            return self._up[ladders]
        h, ok = self.ground.h, self.ground.ok
        reach = _max_rise(ladders)
        free = self.ground.free_descent
        up = bytearray(len(h))
        queue = deque(k for k in range(len(h)) if ok[k] and h[k] > self.above)
        for k in queue:
            up[k] = 1
        while queue:
            n = queue.popleft()
            for k in (n + W, n - W, n + 1, n - 1):
                if up[k] or not ok[k]:
                    continue
                rise = h[n] - h[k]
                if rise <= reach and (rise >= -1 or free) and (rise <= 1 or ladders):
                    up[k] = 1
                    queue.append(k)
        self._up[ladders] = up
        return up

    def candidates(self, reach: dict[int, int], ladders: int, rows: np.ndarray) -> np.ndarray:
        """Of `rows`, those that may create a rise the tower does not offer now, the likeliest first.

        A new rising walk must enter a changed column from where the figure can walk now (`reach`), with a
        step it can make, and leave the last changed column onto one from which it could climb higher
        (`upward`), again with a possible step, unless that changed column is higher than the start itself.
        Both are tested for the block's new top (all rows at once, with bit masks of the heights around each
        footprint) and for the columns it leaves (per block).
        """
        pl = self.pl
        h = self.ground.h
        up = self.upward(ladders)
        reach_bits = np.zeros((W, W), dtype=np.int64)
        up_bits = np.zeros((W, W), dtype=np.int64)
        for k in reach:
            reach_bits.flat[k] = 1 << h[k]
        for k in np.flatnonzero(np.frombuffer(bytes(up), dtype=np.uint8)).tolist():
            up_bits.flat[k] = 1 << h[k]
        lift = _max_rise(ladders)
        free = self.ground.free_descent
        z1 = pl.z1.astype(np.int64)
        standable = np.isin(pl.tops, self._standable_tops)[pl.shape]
        # onto the new top from a column the figure reaches: a rise of at most `lift`, a drop of at most 1
        enter_new = standable & _ring_has(pl, self._footprints(), reach_bits, z1 - lift, np.full_like(z1, 62) if free else z1 + 1)
        # off it onto a column that climbs on (or it is itself higher than the start)
        leave_new = standable & ((z1 > self.above) | _ring_has(pl, self._footprints(), up_bits, np.zeros_like(z1) if free else z1 - 1,
                                                                  z1 + lift))
        enter_old, leave_old = self._vacated_steps(reach, up, lift, free)
        ok = (enter_new | enter_old[pl.block]) & (leave_new | leave_old[pl.block])
        picked = rows[ok[rows]]
        first = enter_new[picked] & (z1[picked] > self.above)
        return np.concatenate([picked[first], picked[~first]])

    def _vacated_steps(self, reach: dict[int, int], up: bytearray, lift: int,
                       free: bool) -> tuple[np.ndarray, np.ndarray]:
        """Per block: whether, once it is lifted, a column it leaves can be entered from where the figure
        reaches now, and whether one can be left onto a column that climbs on (or is higher than the start)."""
        h = self.ground.h
        n = len(self.board)
        enter, leave = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        for i in np.unique(self.pl.block).tolist():  # the blocks that can move
            cols, hs, oks = self._vacated(i)
            inside = set(cols)
            for t, ht, ok in zip(cols, hs, oks, strict=True):
                if not ok:
                    continue
                if ht > self.above:
                    leave[i] = True
                for nb in (t + W, t - W, t + 1, t - 1):
                    if nb in inside:
                        continue
                    if nb in reach and ht - h[nb] <= lift and (free or ht - h[nb] >= -1):
                        enter[i] = True
                    if up[nb] and h[nb] - ht <= lift and (free or h[nb] - ht >= -1):
                        leave[i] = True
        return enter, leave

    # --- the two questions ----------------------------------------------------------------------------------
    def masks_for(self, figure: Cell) -> tuple[np.ndarray, np.ndarray]:
        """(keep, pushing) over the rows with the mover standing on `figure` (see `figure_masks`)."""
        keep, pushing = self.keep_others, self.push_others
        x, y, z = figure
        cover = self.pl.covering(x, y)
        if z > 0:
            keep = keep & (self.pl.block != int(self.board.topb[x, y]))
            pushing = pushing | cover
        else:
            keep = keep & ~cover
        return keep, pushing

    def block_step(self, table: BlockTable, figure: Cell, ladders: int) -> BlockTable:
        """The moves of `table` after which the figure on `figure` can still get above the start height."""
        pl = self.pl
        k0 = flat(figure[0], figure[1])
        rows = table.rows
        kept = np.zeros(len(pl), dtype=bool)
        if rises(self.ground, k0, ladders, self.above):
            # keep the moves that leave one rising walk alone; search the others
            parent = walk(self.ground, k0, ladders)
            highs = [s for s in parent if self.ground.h[s >> 2] > self.above]
            highs.sort(key=lambda s: _walk_length(parent, s))
            walks: list | None = [_walk_states(parent, s, self.ground.h) for s in highs[:8]]
            touched_walks = self._walks_touched(parent, highs[:8])
            spared = touched_walks != (1 << len(walks)) - 1
            rest = rows[~spared[rows]]
            spared[rest] = self._table_spared(rest, walks)
            kept[rows] = spared[rows]
            searched = np.ones(len(pl), dtype=bool)  # every pushing or overhanging move is searched
            searched[rows[spared[rows]]] = False
            searched &= ~self._lifting_fails(figure, ladders, rows[~spared[rows]])
            todo = rows[searched[rows]]
        else:
            walks = None
            reach = _reach(self.ground, k0, ladders)
            searched = np.zeros(len(pl), dtype=bool)
            searched[self.candidates(reach, ladders, np.arange(len(pl)))] = True
            if not self._face_reached(figure, ladders, reach):
                searched |= pl.covering(figure[0], figure[1])  # pushing the figure itself
            todo = rows[searched[rows]]
        tried: dict[tuple, bool] = {}
        for r in todo.tolist():
            key = self._row_key(r)
            if key not in tried:
                tried[key] = self._row_rises(r, figure, ladders, walks, explore=False)[0]
            kept[r] = tried[key]
        extra, extra_rows = [], []
        for m, r in zip(table.extra, table.extra_rows, strict=True):
            if walks and self._push_spares(m, int(touched_walks[r]), walks, figure) or \
                    searched[r] and self._move_rises(m, figure, ladders, walks):
                extra.append(m)
                extra_rows.append(r)
        return BlockTable(pl, np.flatnonzero(kept), extra, extra_rows)

    def first_moves(self, destinations: list[tuple[Cell, int]], rising: set[int],
                    toward: dict[int, int]) -> list[bool]:
        """For each (cell, ladders left) a first figure move that does not end higher could go to: whether
        some block move and second figure move still bring the figure above the start height. `rising` holds
        the search states (column * 4 + ladders) from which the tower as it stands offers a rise, `toward`
        one step of a rising walk from each of them."""
        out = []
        groups: list[tuple[dict[int, int], list[int]]] = []  # (what a destination reaches, its candidates)
        failed: dict[tuple, list[dict[int, int]]] = {}  # move -> what its fruitless searches explored
        good: list[int] = []  # rows that made a rise for an earlier destination: tried first
        everything = np.arange(len(self.pl))
        for cell, ladders in destinations:
            keep, pushing = self.masks_for(cell)
            plain = keep & ~pushing & ~self.pl.overhang
            state = flat(cell[0], cell[1]) * 4 + ladders
            if not plain.any() and not self._has_other_moves(keep, pushing, cell):
                out.append(state in rising)  # no block move at all: the block step is skipped
                continue
            if state in rising:
                if self._leaves_alone(plain, _toward_columns(toward, state, self.ground.h, self.above)):
                    out.append(True)  # a move that leaves the rising walk alone
                    continue
                order = everything
            else:
                group = next((g for g in groups if g[0].get(state >> 2, 0) & _SUPERSETS[ladders]), None)
                if group is None:  # a destination that reaches no more than an earlier one shares its candidates
                    reach = _reach(self.ground, state >> 2, ladders)
                    group = (reach, self.candidates(reach, ladders, everything).tolist())
                    groups.append(group)
                # a move that pushes the figure itself starts the second move elsewhere: searched unless that is
                # a place the figure reaches anyway
                own = [] if self._face_reached(cell, ladders, group[0]) else \
                    np.flatnonzero(keep & pushing & self.pl.covering(cell[0], cell[1])).tolist()
                order = np.array(good + group[1] + own, dtype=np.int64)
            out.append(self._any_rises(order, keep, pushing, cell, ladders, failed, good))
        return out

    def _leaves_alone(self, plain: np.ndarray, columns: set[int]) -> bool:
        """Whether one of the `plain` rows changes none of `columns` (flat): a few rows tried one by one first
        (most rows keep clear of one walk), then all of them at once."""
        pl = self.pl
        tried = 0
        for r in self._sample:
            if not plain[r]:
                continue
            x0, y0, x1, y1 = int(pl.x[r]), int(pl.y[r]), int(pl.x1[r]), int(pl.y1[r])
            cells = {flat(x, y) for x in range(x0, x1) for y in range(y0, y1)}
            if not (cells | set(self._vacated(int(pl.block[r]))[0])) & columns:
                return True
            tried += 1
            if tried == 24:
                break
        grid = np.zeros((BOARD, BOARD), dtype=bool)
        for k in columns:
            grid[unflat(k)] = True
        return bool((plain & ~self._touches(grid, "walk")).any())

    def _face_reached(self, cell: Cell, ladders: int, reach: dict[int, int]) -> bool:
        """Whether the figure on `cell` (a block top) reaches every free cell of that top, so that a push along
        it starts the second move from a place it reaches anyway."""
        if cell[2] == 0:
            return True
        b = int(self.board.topb[cell[0], cell[1]])
        taken = {f[:2] for f in self.others}
        return all(reach.get(flat(x, y), 0) & _SUPERSETS[ladders] for x, y in self.board.footprint_cells(b)
                   if self.board.topb[x, y] == b and (x, y) not in taken)

    def _has_other_moves(self, keep: np.ndarray, pushing: np.ndarray, cell: Cell) -> bool:
        """A legal block move that pushes figures aside or overhangs (there is no plain one)."""
        pl = self.pl
        figures = [*self.others, cell]
        for r in np.flatnonzero(keep).tolist():
            if pl.overhang[r]:
                if not pushing[r] and self.stands is not None and self.stands(r, cell):
                    return True
                continue
            size, _ = pl.shapes[int(pl.shape[r])]
            origin = (int(pl.x[r]), int(pl.y[r]), int(pl.z[r]))
            if next(push_options(self.board, int(pl.block[r]), origin, size, figures), None) is not None:
                return True
        return False

    def _any_rises(self, order: np.ndarray, keep: np.ndarray, pushing: np.ndarray, cell: Cell, ladders: int,
                   failed: dict[tuple, list[dict[int, int]]], good: list[int]) -> bool:
        """Whether one of the rows in `order` (the legal ones with the mover on `cell`) brings a rise."""
        pl = self.pl
        k = flat(cell[0], cell[1])
        figures = [*self.others, cell]
        tried: set[tuple] = set()
        for r in order.tolist():
            key = self._row_key(r)
            if key in tried or not keep[r]:
                continue
            tried.add(key)
            if pushing[r]:
                if pl.overhang[r]:
                    continue  # an overhang never pushes
                size, top = pl.shapes[int(pl.shape[r])]
                origin = (int(pl.x[r]), int(pl.y[r]), int(pl.z[r]))
                i = int(pl.block[r])
                if any(self.rises_after(i, origin, size, top, pushes, cell, ladders)[0]
                       for pushes in push_options(self.board, i, origin, size, figures)):
                    return True
                continue
            if any(e.get(k, 0) & _SUPERSETS[ladders] for e in failed.get(key, ())):
                continue  # a search with this move already reached this destination and found no rise
            up, explored = self._row_rises(r, cell, ladders)
            if up and pl.overhang[r] and not (self.stands is not None and self.stands(r, cell)):
                continue
            if up:
                if r not in good:
                    good.insert(0, r)
                return True
            if explored is not None:
                failed.setdefault(key, []).append(explored)
        return False

    def _move_rises(self, move: ClimbersMove, figure: Cell, ladders: int,
                    walks: list | None = None) -> bool:
        return self.rises_after(self.board.index[move.block], move.cell, move.size, move.top,  # type: ignore[arg-type,index]
                                move.pushes, figure, ladders, walks)[0]

    def _row_key(self, r: int) -> tuple:
        pl = self.pl
        size, top = pl.shapes[int(pl.shape[r])]
        # the same block at the same place gives the figure the same ground whatever the top colour, as long
        # as the figure may (or may not) stand on it in both cases
        return int(pl.block[r]), int(pl.x[r]), int(pl.y[r]), int(pl.z[r]), size, top in self._standable_tops


def _max_rise(ladders: int) -> int:
    """The largest rise of one step with these ladders in hand."""
    return 4 if ladders & LONG else 2 if ladders & SHORT else 1


def _ring_has(pl: Placements, feet: dict[tuple[int, int], np.ndarray], bits: np.ndarray, lo: np.ndarray,
              hi: np.ndarray, only: np.ndarray | None = None) -> np.ndarray:
    """Per row (of `only`, or all): whether a column beside its new footprint (orthogonally) has a height in
    [lo, hi]; `bits` is the padded board with bit h set where a column of height h counts, `feet` the rows of
    each footprint."""
    out = np.zeros(len(pl), dtype=bool)
    lo = np.clip(lo, 0, 62)
    hi = np.clip(hi, -1, 62)
    band = np.where(hi >= lo, (np.left_shift(np.int64(1), hi + 1) - 1) ^ (np.left_shift(np.int64(1), lo) - 1), 0)
    for (fx, fy), rows in feet.items():
        if only is not None:
            rows = np.intersect1d(rows, only, assume_unique=True)
            if not len(rows):
                continue
        col = window_or(bits, 1, fy)
        row = window_or(bits, fx, 1)
        x, y = pl.x[rows], pl.y[rows]
        ring = col[x, y + 1] | col[x + fx + 1, y + 1] | row[x + 1, y] | row[x + 1, y + fy + 1]
        out[rows] = (ring & band[rows]) != 0
    return out


def _reach(ground: Ground, k: int, ladders: int) -> dict[int, int]:
    """Every column reachable from (k, ladders) with the ladder sets reached there (bits)."""
    out: dict[int, int] = {}
    for s in walk(ground, k, ladders):
        out[s >> 2] = out.get(s >> 2, 0) | (1 << (s & 3))
    return out


def _walk_length(parent: dict[int, int], s: int) -> int:
    n = 0
    while parent[s] != -1:
        s = parent[s]
        n += 1
    return n


def _walk_states(parent: dict[int, int], s: int,
                 h: list[int]) -> tuple[dict[int, int], list[tuple[int, int, int]], set[int]]:
    """A rising walk: the last place of each column on it; its steps on blocks as (place, column, the ladder
    sets, as bits, that do at least as well as the walk's there), for `_goals`; and the columns a block move
    must leave alone for the walk to stay open when the table is walked round (its block columns, its start,
    and the table cells where it steps on or off a block), for `Riser._table_spared`."""
    states = []
    while s != -1:
        states.append(s)
        s = parent[s]
    states.reverse()
    cols = [st >> 2 for st in states]
    last = {k: j for j, k in enumerate(cols)}
    fixed = {k for k in cols if h[k] > 0} | {cols[0]}
    fixed |= {cols[j] for j in range(len(cols)) if h[cols[j]] == 0 and
              ((j > 0 and h[cols[j - 1]] > 0) or (j + 1 < len(cols) and h[cols[j + 1]] > 0))}
    return last, [(j, k, _SUPERSETS[st & 3]) for j, (k, st) in enumerate(zip(cols, states, strict=True))
                  if h[k] > 0], fixed


def _goals(walks: list[tuple[dict[int, int], list[tuple[int, int, int]]]] | None,
           changed: set[int]) -> dict[int, int] | None:
    """Where a search may stop, sure of a rise: on a known rising walk after the last column a block move changed
    (from there on the walk is intact), with at least the ladders the walk had there (block tops only: a piece
    of free table is left by its border anyway)."""
    if not walks:
        return None
    goals: dict[int, int] = {}
    for last, steps, _ in walks:
        cut = max((last[k] for k in changed if k in last), default=-1)
        for j, k, bits in steps:
            if j > cut:
                goals[k] = goals.get(k, 0) | bits
    return goals


def _toward_columns(toward: dict[int, int], s: int, h: list[int], above: int) -> set[int]:
    """The columns of the rising walk from state s (following `toward` up to a higher column)."""
    columns = set()
    while True:
        columns.add(s >> 2)
        if h[s >> 2] > above or s not in toward:
            return columns
        s = toward[s]

"""The Climbers: state, turn structure, figure and block moves, blocking stones, end of game.

A turn, as the rules have it: an optional figure move; one block move (or pass the whole turn); an optional
second figure move; then, once per game, the blocking stone. Each step is one decision (one `ClimbersMove`),
so people and AIs choose through the same list of legal moves.

Geometry lives in numpy arrays over a fixed board: `occ` (which block fills each cell), `heights` (the
height map) and `topb` (the block on top of each column). Figures stand on column tops.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import permutations, product
from typing import Any, ClassVar, Self

import numpy as np

from tower.climbers.blocks import COLOURS, GREY, PLAYER_COLOURS, TOP, Colouring, placements_shapes
from tower.climbers.build import Block, Build, Figure, Stone, build_to_json, parse_build
from tower.climbers.moves import Cell, ClimbersMove
from tower.climbers.placement import side_contact, window_max, window_max_min
from tower.climbers.setup import random_start_tower
from tower.games.base import GameState, Judge
from tower.games.errors import BadInput, IllegalMove

BOARD = 32  # cells per side of the table area in play
Z_MAX = 48  # no tower gets near 96 cm
TOWER_AT = (11, 12)  # where the start tower's minimum corner goes on the board
SHORT_LADDER = (2,)  # rises a short ladder bridges in one step
LONG_LADDER = (2, 3, 4)
NO_BLOCK = -1
RISE_TRIES = 30  # random_move: draws of a block move before listing all (net-height rule)
ROLLOUT_RANDOM = 0.15  # share of random moves in the search player's playouts
SEARCH_WIDTH = 24  # block moves `search_moves` offers a search player
PHASES = ("figure1", "block", "figure2", "stone")


@dataclass(frozen=True)
class BlockTable:
    """Legal block moves without pushes as parallel arrays (one row a move), and the pushing ones as moves."""

    block: np.ndarray
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    shape: np.ndarray  # index into `shapes`
    shapes: list[tuple[Cell, int]]  # (size, top colour)
    extra: list[ClimbersMove]

    def __len__(self) -> int:
        return len(self.block) + len(self.extra)


class ClimbersState(GameState):
    name: ClassVar[str] = "climbers"
    title: ClassVar[str] = "The Climbers"
    credit: ClassVar[str] = "Holger Lanz, Chili Spiele 2007/08 (Die Aufsteiger)"
    perfect_information: ClassVar[bool] = True
    layout: ClassVar[str] = "tower"
    construction: ClassVar[bool] = True
    encoding: ClassVar[str | None] = "tower.climbers.encoding"
    focused_search: ClassVar[bool] = True
    move_type = ClimbersMove
    min_players = 2
    max_players = 5
    default_players = 3
    max_game_length = 4 * 5 * 200 + 10
    default_options: ClassVar[dict[str, Any]] = {
        "support": "strict",  # rulings: strict (full support) or physical (overhangs the physics judge accepts)
        "descent": "one-unit",  # rulings: one-unit (at most 1 down per step) or free
        "max_rounds": 200,  # safety cap; ends the game as if the last chance had failed
    }
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "support": ("strict", "physical"),
        "descent": ("one-unit", "free"),
    }

    def __init__(self, players: int, seed: int | None = 0, options: dict[str, Any] | None = None, *,
                 judge: Judge | None = None, build: Build | None = None) -> None:
        super().__init__(players, seed, options, judge=judge)
        if not isinstance(self.options["max_rounds"], int) or self.options["max_rounds"] < 1:
            raise BadInput("option 'max_rounds' must be at least 1", "$.options.max_rounds")
        if self.options["support"] == "physical" and self.judge is None:
            raise BadInput("option 'support': 'physical' needs a physics judge handed in as judge= (the CLI "
                           "hands one in; in Python: tower.app.stability.statics_stands)", "$.options.support")
        build = build if build is not None else random_start_tower(self.rng.getrandbits(32))
        self._load_blocks(build)
        self.colours = PLAYER_COLOURS[:players]
        self.figures: list[Cell] = self._start_cells(players)
        self.short = [True] * players
        self.long = [True] * players
        self.stone: list[int | None] = [None] * players  # block index while the stone lies
        self.stone_used = [False] * players
        self.player = 0
        self.phase = "figure1"
        self.last_moved: int | None = None  # block moved in the previous player's turn
        self.moved_now: int | None = None
        self.turn_start = self.figures[0]
        self.climbed = False  # the figure left the table this turn (the net-height rule applies)
        self.turn = 0
        self.round = 0
        self.round_leader = False  # someone ended a turn strictly highest this round
        self.last_chance = False
        self.over = False
        self.reached = [0] * players  # turn number at which each figure reached its present height
        self._moves_cache: list[ClimbersMove] | None = None
        self._table_cache: BlockTable | None = None
        self._paths_cache: list[set[tuple[int, int]]] | None = None  # rising paths (net-height rule)

    @classmethod
    def position(cls, players: int, build: Build, figures: list[Cell], *, short: list[bool] | None = None,
                 long: list[bool] | None = None, player: int = 0, options: dict[str, Any] | None = None,
                 seed: int = 0, judge: Judge | None = None) -> Self:
        """A hand-made position (for tests and puzzles): the blocks exactly where `build` puts them (no shift
        to TOWER_AT), the figures on the given cells, the ladders each player still has (default: all), and
        `player` to start a fresh turn."""
        state = cls(players, seed, options, judge=judge, build=build)
        state._place_exact(build)
        if len(figures) != players:
            raise BadInput(f"{players} players need {players} figures", "$.figures")
        state.figures = [tuple(int(v) for v in f) for f in figures]  # type: ignore[misc]
        state.short = list(short) if short is not None else [True] * players
        state.long = list(long) if long is not None else [True] * players
        state.player = player
        state.turn_start = state.figures[player]
        return state

    # --- geometry ----------------------------------------------------------------------------------------
    def _load_blocks(self, build: Build) -> None:
        self.ids = [b.id for b in build.blocks]
        self.index = {b: i for i, b in enumerate(self.ids)}
        n = len(build.blocks)
        self.origin = np.zeros((n, 3), dtype=np.int32)
        self.size = np.zeros((n, 3), dtype=np.int32)
        self.faces = np.zeros((n, 6), dtype=np.int8)
        shift = np.array([*TOWER_AT, 0])
        minx = min(b.origin[0] for b in build.blocks)
        miny = min(b.origin[1] for b in build.blocks)
        shift = shift - np.array([minx, miny, 0])
        for i, b in enumerate(build.blocks):
            self.origin[i] = np.array(b.origin) + shift
            self.size[i] = b.size
            self.faces[i] = b.faces
        self.occ = np.full((BOARD, BOARD, Z_MAX), NO_BLOCK, dtype=np.int16)
        for i in range(n):
            if self._slices(i) is None:
                raise BadInput(f"block {self.ids[i]} lies outside the {BOARD}x{BOARD} table area", "$.blocks")
            self.occ[self._slices(i)] = i
        self._recompute_columns(slice(None), slice(None))

    def _slices(self, i: int) -> tuple[slice, slice, slice] | None:
        o, s = self.origin[i], self.size[i]
        if (o < 0).any() or o[0] + s[0] > BOARD or o[1] + s[1] > BOARD or o[2] + s[2] > Z_MAX:
            return None
        return slice(o[0], o[0] + s[0]), slice(o[1], o[1] + s[1]), slice(o[2], o[2] + s[2])

    def _recompute_columns(self, sx: slice, sy: slice) -> None:
        if not hasattr(self, "heights"):
            self.heights = np.zeros((BOARD, BOARD), dtype=np.int32)
            self.topb = np.full((BOARD, BOARD), NO_BLOCK, dtype=np.int32)
        occ = self.occ[sx, sy]
        filled = occ != NO_BLOCK
        top = Z_MAX - np.argmax(filled[:, :, ::-1], axis=2)
        anyf = filled.any(axis=2)
        h = np.where(anyf, top, 0)
        self.heights[sx, sy] = h
        ix, iy = np.indices(h.shape, sparse=True)
        self.topb[sx, sy] = np.where(anyf, occ[ix, iy, np.maximum(h - 1, 0)], NO_BLOCK)

    def _start_cells(self, players: int) -> list[Cell]:
        """Figures start on the table around the construction, spread round it.

        The construction's minimum corner sits at TOWER_AT; a cell beyond its far sides that a large start tower
        covers moves outwards to the first table cell.
        """
        cx, cy = TOWER_AT[0] + 4, TOWER_AT[1] + 3
        far_x, far_y = TOWER_AT[0] + 11, TOWER_AT[1] + 10
        while far_x < BOARD - 1 and self.heights[far_x, cy] > 0:
            far_x += 1
        while far_y < BOARD - 1 and self.heights[cx, far_y] > 0:
            far_y += 1
        ring = [(cx, TOWER_AT[1] - 3), (far_x, cy), (cx, far_y), (TOWER_AT[0] - 3, cy),
                (TOWER_AT[0] - 3, TOWER_AT[1] - 3)]
        return [(x, y, 0) for x, y in ring[:players]]

    def block_top_colour(self, i: int) -> int:
        return int(self.faces[i, TOP])

    def height(self, p: int) -> int:
        return self.figures[p][2]

    # --- public queries ----------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.over else self.player

    def to_build(self) -> Build:
        """The construction with figures and stones, as a tower-build/1 Build."""
        blocks = [Block(self.ids[i], tuple(int(v) for v in self.origin[i]), tuple(int(v) for v in self.size[i]),
                        tuple(int(v) for v in self.faces[i])) for i in range(len(self.ids))]  # type: ignore[arg-type]
        figures = [Figure(self.colours[p], self.figures[p]) for p in range(self.num_players)]
        stones = [Stone(self.colours[p], self.ids[b]) for p, b in enumerate(self.stone) if b is not None]
        return Build(blocks, figures, stones)

    def blocked(self) -> set[int]:
        return {b for b in self.stone if b is not None}

    def movable_blocks(self) -> list[int]:
        """Blocks with a completely free top: no block, figure or stone on it; not moved last turn."""
        out = []
        blocked = self.blocked()
        fig_on = {int(self.topb[x, y]) for x, y, z in self.figures if z > 0}
        for i in range(len(self.ids)):
            if i == self.last_moved or i in blocked or i in fig_on:
                continue
            o, s = self.origin[i], self.size[i]
            cols = self.topb[o[0]:o[0] + s[0], o[1]:o[1] + s[1]]
            if (cols == i).all():
                out.append(i)
        return out

    # --- figure movement ---------------------------------------------------------------------------------
    def _enterable(self, p: int) -> np.ndarray:
        """Columns whose top player p may enter: own colour, grey or the table; no stone; in bounds."""
        colour = COLOURS.index(self.colours[p])
        tops = np.where(self.topb >= 0, self.faces[np.clip(self.topb, 0, None), TOP], -1)
        ok = (self.topb < 0) | (tops == GREY) | (tops == colour)
        for b in self.blocked():
            o, s = self.origin[b], self.size[b]
            ok[o[0]:o[0] + s[0], o[1]:o[1] + s[1]] &= self.topb[o[0]:o[0] + s[0], o[1]:o[1] + s[1]] != b
        for q, (x, y, _) in enumerate(self.figures):
            if q != p:
                ok[x, y] = False
        return ok

    def figure_moves(self, p: int) -> list[ClimbersMove]:
        """Every distinct (destination, ladders used) the figure can reach this step, with a shortest path.

        A breadth-first search over (cell, short ladder left, long ladder left). The net-height rule needs to
        know, for a destination that is not higher than the turn's start, whether the figure could still rise
        from there in its second move: a backward search from every higher state answers that for all
        destinations at once.
        """
        ok_arr = self._enterable(p)
        ok = ok_arr.tolist()  # plain lists: the search below is Python, and list indexing is its fastest path
        h = self.heights.tolist()
        free_descent = self.options["descent"] == "free"
        start = self.figures[p]
        Key = tuple[int, int, bool, bool]
        key0: Key = (start[0], start[1], self.short[p], self.long[p])
        parent: dict[Key, Key | None] = {key0: None}
        used_at: dict[Key, tuple[str, ...]] = {key0: ()}
        preds: dict[Key, list[Key]] = {}
        queue = deque([key0])
        last = BOARD - 1
        want_preds = self.phase == "figure1"  # only the first figure move asks whether a rise stays possible
        while queue:
            key = queue.popleft()
            x, y, sh, lo = key
            used = used_at[key]
            z = h[x][y]
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if not (0 <= nx <= last and 0 <= ny <= last) or not ok[nx][ny]:
                    continue
                rise = h[nx][ny] - z
                steps = []
                if -1 <= rise <= 1 or (rise < -1 and free_descent):
                    steps.append(((nx, ny, sh, lo), used))
                if rise >= 2:
                    if sh and rise in SHORT_LADDER:
                        steps.append(((nx, ny, False, lo), used + ("short",)))
                    if lo and rise in LONG_LADDER:
                        steps.append(((nx, ny, sh, False), used + ("long",)))
                for nkey, nused in steps:
                    if want_preds:
                        preds.setdefault(nkey, []).append(key)
                    if nkey not in parent:
                        parent[nkey] = key
                        used_at[nkey] = nused
                        queue.append(nkey)
        base_h = self.turn_start[2]
        on_table_start = start[2] == 0 and not self.climbed
        table_prev = self._table_tree(start, ok_arr) if on_table_start else {}
        can_rise: set[Key] = set()
        if self.phase == "figure1":
            frontier = deque(k for k in parent if h[k[0]][k[1]] > base_h)
            while frontier:
                k = frontier.popleft()
                for q in preds.get(k, ()):
                    if q not in can_rise:
                        can_rise.add(q)
                        frontier.append(q)
        near = self._near_tower()
        moves = []
        for key in parent:
            if key == key0:
                continue
            x, y = key[0], key[1]
            dest = (x, y, h[x][y])
            if (x, y) in table_prev:
                if key[2:] != key0[2:] or not near[x, y]:
                    continue  # free table ground: only the cells next to the tower matter, and no ladders
                moves.append(ClimbersMove("fig", cell=dest, path=self._tree_path(table_prev, dest)))
                continue
            if dest[2] <= base_h:
                if self.phase == "figure2" or key not in can_rise:
                    continue  # net-height rule: a figure that left the table ends the turn higher
            moves.append(ClimbersMove("fig", cell=dest, ladders=used_at[key], path=self._path(parent, key)))
        return moves

    def _table_tree(self, start: Cell, ok: np.ndarray) -> dict[tuple[int, int], tuple[int, int] | None]:
        """Table cells reachable from `start` over the table alone (where figures move freely), each with its
        predecessor on a shortest walk (breadth first)."""
        free = (ok & (self.heights == 0)).tolist()
        prev: dict[tuple[int, int], tuple[int, int] | None] = {(start[0], start[1]): None}
        queue = deque([(start[0], start[1])])
        last = BOARD - 1
        while queue:
            c = queue.popleft()
            x, y = c
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= n[0] <= last and 0 <= n[1] <= last and free[n[0]][n[1]] and n not in prev:
                    prev[n] = c
                    queue.append(n)
        return prev

    @staticmethod
    def _tree_path(prev: dict, dest: Cell) -> tuple[Cell, ...]:
        """A shortest walk over the table alone."""
        cells = []
        k: tuple[int, int] | None = (dest[0], dest[1])
        while k is not None:
            cells.append((k[0], k[1], 0))
            k = prev[k]
        return tuple(reversed(cells))

    def _path(self, parent: dict, key: tuple) -> tuple[Cell, ...]:
        cells = []
        k = key
        while k is not None:
            cells.append((k[0], k[1], int(self.heights[k[0], k[1]])))
            k = parent[k]
        return tuple(reversed(cells))

    def _near_tower(self) -> np.ndarray:
        """Table cells within one step (orthogonal or diagonal) of a block column."""
        pad = np.zeros((BOARD + 2, BOARD + 2), dtype=bool)
        pad[1:-1, 1:-1] = self.heights > 0
        return window_max(pad, 3, 3)

    # --- block movement ----------------------------------------------------------------------------------
    def _lift(self, i: int) -> tuple[slice, slice]:
        """Take block i out of the grid (returns its footprint slices); `_drop` puts a block in."""
        sl = self._slices(i)
        assert sl is not None
        self.occ[sl] = NO_BLOCK
        self._recompute_columns(sl[0], sl[1])
        return sl[0], sl[1]

    def _drop(self, i: int) -> None:
        sl = self._slices(i)
        assert sl is not None
        self.occ[sl] = i
        self._recompute_columns(sl[0], sl[1])

    def _figure_map(self) -> np.ndarray:
        fm = np.full((BOARD, BOARD), -1, dtype=np.int32)
        for q, (x, y, _) in enumerate(self.figures):
            fm[x, y] = q
        return fm

    def block_moves(self) -> list[ClimbersMove]:
        """Every legal block move."""
        table = self.block_table()
        moves = [self._table_move(table, k) for k in range(len(table.block))]
        return moves + list(table.extra)

    def _table_move(self, table: BlockTable, k: int) -> ClimbersMove:
        i = int(table.block[k])
        size, top = table.shapes[int(table.shape[k])]
        return ClimbersMove("block", cell=(int(table.x[k]), int(table.y[k]), int(table.z[k])), block=self.ids[i],
                            size=size, top=top)

    def block_table(self) -> BlockTable:
        """Legal block moves as arrays (no pushes), plus the few moves that push figures, as Move objects.

        All movable blocks at once: one height map per block lifted out, stacked, and per footprint one pass of
        sliding-window maxima/minima over the stack, cut to the construction's bounding box plus a margin (a
        legal position touches the construction, so it lies inside). Positions come out of numpy masks, so no
        Python loop runs over positions; the rows come in the order block, shape, position.
        """
        if self._table_cache is not None:
            return self._table_cache
        figure_map = self._figure_map()
        has_fig = figure_map >= 0
        stoned = np.zeros((BOARD, BOARD), dtype=bool)
        for b in self.blocked():
            stoned |= self.topb == b
        # a block is not laid over a figure on the table (it steps aside by itself), so those cells count as
        # blocked; figures on block tops may be pushed
        stoned |= has_fig & (self.heights == 0)
        has_fig &= self.heights > 0
        physical = self.options["support"] == "physical"
        shapes: list[tuple[Cell, int]] = []
        shape_ids: dict[tuple[Cell, int], int] = {}
        parts: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, int]] = []
        extra: list[ClimbersMove] = []
        movable = self.movable_blocks()
        cols = np.nonzero(self.heights.any(axis=1))[0], np.nonzero(self.heights.any(axis=0))[0]
        if movable:
            # the crop: a legal window touches a column (contact) or rests on columns (support), so it lies within
            # its longest side plus the contact ring of the construction
            margin = 1 + int(self.size[movable].max())
            x0, x1 = max(0, int(cols[0][0]) - margin), min(BOARD, int(cols[0][-1]) + 1 + margin)
            y0, y1 = max(0, int(cols[1][0]) - margin), min(BOARD, int(cols[1][-1]) + 1 + margin)
            stack = np.empty((len(movable), x1 - x0, y1 - y0), dtype=np.int16)  # small ints: less to stream
            stack[:] = self.heights[x0:x1, y0:y1]
            infos = []
            by_foot: dict[tuple[int, int], list[int]] = {}
            for k, i in enumerate(movable):
                o, s = self.origin[i], self.size[i]
                below = self.occ[o[0]:o[0] + s[0], o[1]:o[1] + s[1], :o[2]] != NO_BLOCK
                lifted = np.where(below.any(axis=2), o[2] - np.argmax(below[:, :, ::-1], axis=2), 0) if o[2] else 0
                stack[k, o[0] - x0:o[0] + s[0] - x0, o[1] - y0:o[1] + s[1] - y0] = lifted
                old = ((int(o[0]), int(o[1]), int(o[2])), (int(s[0]), int(s[1]), int(s[2])))
                colouring: Colouring = tuple(int(v) for v in self.faces[i])  # type: ignore[assignment]
                shp = placements_shapes(old[1], colouring)
                infos.append((i, old, shp))
                for size, _top, _faces in shp:
                    ks = by_foot.setdefault(size[:2], [])
                    if not ks or ks[-1] != k:
                        ks.append(k)
            sub_stoned = stoned[x0:x1, y0:y1]
            sub_fig = has_fig[x0:x1, y0:y1]
            foot: dict[tuple[int, int], tuple[dict[int, int], np.ndarray, np.ndarray, np.ndarray]] = {}
            for (fx, fy), ks in by_foot.items():
                heights = stack[ks]
                hi, lo = window_max_min(heights, fx, fy)
                ok = hi == lo
                on_table = hi == 0
                if on_table.any():
                    ok &= ~on_table | side_contact(heights, fx, fy, hi, 0)
                ok &= ~window_max(sub_stoned, fx, fy)
                foot[(fx, fy)] = ({k: n for n, k in enumerate(ks)}, hi, ok, window_max(sub_fig, fx, fy))
            for k, (i, old, shp) in enumerate(infos):
                found: dict[Cell, tuple[np.ndarray, np.ndarray, np.ndarray, list]] = {}
                lifted = False  # block i is taken out of the grid only when pushes or overhangs need it
                try:
                    for size, top, _faces in shp:
                        fx, fy, fz = size
                        pos, hi_all, ok_all, figs = foot[(fx, fy)]
                        hi = hi_all[pos[k]]
                        key = (size, top)
                        sid = shape_ids.setdefault(key, len(shapes))
                        if sid == len(shapes):
                            shapes.append(key)
                        if size not in found:
                            ok = ok_all[pos[k]] & (hi + fz <= Z_MAX)
                            if size == old[1] and x0 <= old[0][0] < x1 and y0 <= old[0][1] < y1:
                                ok[old[0][0] - x0, old[0][1] - y0] = False  # a block must end somewhere else
                            pushing = ok & figs
                            push_list: list[tuple[Cell, tuple[tuple[Cell, Cell], ...]]] = []
                            if pushing.any():
                                ok &= ~figs
                                if not lifted:
                                    self._lift(i)  # the lifted block may have covered part of a top face
                                    lifted = True
                                for x, y in zip(*np.nonzero(pushing), strict=True):
                                    cell = (int(x) + x0, int(y) + y0, int(hi[x, y]))
                                    push_list.extend((cell, pushes) for pushes in
                                                     self._push_options(i, cell, size, figure_map))
                            xs, ys = np.nonzero(ok)
                            found[size] = (xs + x0, ys + y0, hi[xs, ys], push_list)
                        xs, ys, zs, push_list = found[size]
                        extra.extend(ClimbersMove("block", cell=cell, block=self.ids[i], size=size, top=top,
                                                  pushes=pushes) for cell, pushes in push_list)
                        if len(xs):
                            parts.append((i, xs, ys, zs, sid))
                        if physical:
                            if not lifted:
                                self._lift(i)
                                lifted = True
                            hi_full = window_max_min(self.heights, fx, fy)[0]
                            for _, cell, _, _ in self._overhang_candidates(i, size, top, hi_full,
                                                                           window_max(stoned, fx, fy),
                                                                           window_max(has_fig, fx, fy), old):
                                extra.append(ClimbersMove("block", cell=cell, block=self.ids[i], size=size,
                                                          top=top))
                finally:
                    if lifted:
                        self._drop(i)
        if parts:
            counts = [len(p[1]) for p in parts]
            block = np.repeat(np.array([p[0] for p in parts], dtype=np.int16), counts)
            x = np.concatenate([p[1] for p in parts])
            y = np.concatenate([p[2] for p in parts])
            z = np.concatenate([p[3] for p in parts])
            shape = np.repeat(np.array([p[4] for p in parts], dtype=np.int16), counts)
        else:
            block = x = y = z = shape = np.zeros(0, dtype=np.int16)
        self._table_cache = BlockTable(block, x, y, z, shape, shapes, extra)
        return self._table_cache

    def _overhang_candidates(self, i, size, top, hi, blocked_here, figs, old):
        """`physical` option: rests on its highest supports, overhangs allowed if the judge says it stands."""
        fx, fy, fz = size
        lo = window_max_min(self.heights, fx, fy)[1]
        cand = (hi != lo) & (hi > 0) & (hi + fz <= Z_MAX) & ~blocked_here & ~figs
        for x, y in zip(*np.nonzero(cand), strict=True):
            cell = (int(x), int(y), int(hi[x, y]))
            if (cell, size) == old:
                continue
            probe = self.to_build()
            b = probe.blocks[i]
            probe.blocks[i] = Block(b.id, cell, size, b.faces)
            if self.judge(probe, b.id):  # type: ignore[misc]
                yield i, cell, (size, top), ()

    def _push_options(self, i: int, origin: Cell, size: Cell,
                      figure_map: np.ndarray) -> Iterator[tuple[tuple[Cell, Cell], ...]]:
        """Ways to push the figures the new block would cover onto free cells of the same top face."""
        x0, y0, z = origin
        covered = [(int(x), int(y)) for x, y in zip(*np.nonzero(figure_map[x0:x0 + size[0], y0:y0 + size[1]] >= 0),
                                                   strict=True)]
        covered = [(x0 + x, y0 + y) for x, y in covered]
        per_fig: list[list[Cell]] = []
        occupied = {(x, y) for x, y, _ in self.figures}
        for x, y in covered:
            b = int(self.topb[x, y])
            o, s = self.origin[b], self.size[b]
            ox, oy, top = int(o[0]), int(o[1]), int(o[2] + s[2])
            face = self.topb[ox:ox + s[0], oy:oy + s[1]] == b
            # cells the new block leaves uncovered
            face[max(0, x0 - ox):max(0, x0 + size[0] - ox), max(0, y0 - oy):max(0, y0 + size[1] - oy)] = False
            free = [(ox + int(cx), oy + int(cy), top) for cx, cy in zip(*np.nonzero(face), strict=True)
                    if (ox + int(cx), oy + int(cy)) not in occupied]
            if not free:
                return
            per_fig.append(free)
        sources = [(x, y, int(self.heights[x, y])) for x, y in covered]
        for targets in product(*per_fig):
            if len(set(targets)) == len(targets):
                yield tuple(sorted(zip(sources, targets, strict=True)))

    # --- stones ------------------------------------------------------------------------------------------
    def stone_moves(self) -> list[ClimbersMove]:
        p = self.player
        if self.stone_used[p]:
            return []
        fig_on = {int(self.topb[x, y]) for x, y, z in self.figures if z > 0}
        blocked = self.blocked()
        out = []
        for i in range(len(self.ids)):
            o, s = self.origin[i], self.size[i]
            if i in fig_on or i in blocked:
                continue
            if (self.topb[o[0]:o[0] + s[0], o[1]:o[1] + s[1]] == i).all():
                out.append(ClimbersMove("stone", block=self.ids[i]))
        return out

    # --- the turn ----------------------------------------------------------------------------------------
    def legal_moves(self) -> list[ClimbersMove]:
        if self.over:
            return []
        if self._moves_cache is None:
            moves = self._phase_moves()
            moves.sort(key=ClimbersMove.sort_key)
            self._moves_cache = moves
        return list(self._moves_cache)

    def _phase_moves(self) -> list[ClimbersMove]:
        p = self.player
        if self.phase == "figure1":
            return self.figure_moves(p) + [ClimbersMove("skip"), ClimbersMove("pass")]
        if self.phase == "block":
            moves = self.block_moves()
            if self._needs_rise():
                moves = self._keeping_a_rise(moves)
            return moves or [ClimbersMove("skip")]
        if self.phase == "figure2":
            moves = self.figure_moves(p)
            return moves if self._needs_rise() else moves + [ClimbersMove("skip")]
        return self.stone_moves() + [ClimbersMove("skip")]

    def random_move(self, rng: random.Random) -> ClimbersMove:
        """A legal move drawn uniformly, without building every block move as an object."""
        if self.phase == "block" and self._moves_cache is None:
            table = self.block_table()
            needs_rise = self._needs_rise()
            for _ in range(RISE_TRIES if needs_rise else 1):
                if not len(table):
                    break
                k = rng.randrange(len(table))
                move = self._table_move(table, k) if k < len(table.block) else table.extra[k - len(table.block)]
                # net-height rule: drawing again until a move keeps a rise is still uniform over the legal ones
                if not needs_rise or self._keeping_a_rise([move]):
                    return move
        return rng.choice(self.legal_moves())


    def _needs_rise(self) -> bool:
        return self.climbed and self.figures[self.player][2] <= self.turn_start[2]

    def _keeping_a_rise(self, moves: list[ClimbersMove]) -> list[ClimbersMove]:
        """The block moves after which the figure can still end the turn higher (net-height rule).

        A block move changes only the columns it leaves and the ones it covers, so a move that keeps clear of
        every cell of at least one rising path is fine at once; only the others are tried out on a copy.
        """
        if self._paths_cache is None:
            probe = self.clone()
            probe.phase = "figure2"
            self._paths_cache = [set((c[0], c[1]) for c in m.path) for m in probe.figure_moves(self.player)]
        paths = self._paths_cache
        standable = (GREY, COLOURS.index(self.colours[self.player]))
        tried: dict[tuple, bool] = {}
        out = []
        for m in moves:
            i = self.index[m.block]  # type: ignore[index]
            o, sz = self.origin[i], self.size[i]
            touched = {(x, y) for x in range(o[0], o[0] + sz[0]) for y in range(o[1], o[1] + sz[1])}
            x0, y0, _ = m.cell  # type: ignore[misc]
            touched |= {(x, y) for x in range(x0, x0 + m.size[0]) for y in range(y0, y0 + m.size[1])}  # type: ignore[index]
            if not m.pushes and any(not (p & touched) for p in paths):
                out.append(m)
                continue
            # the same block at the same place gives the figure the same ground whatever the top colour, as long
            # as the figure may (or may not) stand on it in both cases
            key = (m.block, m.cell, m.size, m.top in standable, m.pushes)
            if key not in tried:
                tried[key] = self._rise_after(m)
            if tried[key]:
                out.append(m)
        return out

    def _rise_after(self, move: ClimbersMove) -> bool:
        probe = self.clone()
        probe._apply_block(move)
        return probe._can_rise(self.player)

    def _can_rise(self, p: int) -> bool:
        """Whether figure p can still get higher than at the start of its turn in one figure move.

        The same search as `figure_moves` (over cell and ladders left), answering only yes or no: it stops at
        the first higher cell and keeps no paths. On the table a figure walks freely, so each connected piece of
        free table counts as one node (labelled by scipy), entered from any of its cells and left from any cell
        on its border; everything else is a cell. States are ints: node * 4 + ladders left (short 2, long 1).
        """
        target = self.turn_start[2]
        heights = self.heights
        if int(heights.max()) <= target:
            return False
        ok_arr = self._enterable(p)
        table_arr = ok_arr & (heights == 0)
        from scipy import ndimage  # here, not at the top: it is 60 % of this module's import time

        labels_arr, pieces = ndimage.label(table_arr)
        cells = BOARD * BOARD
        # border steps of every table piece: (piece, block column entered), found with four shifted masks
        border: list[list[int]] = [[] for _ in range(pieces + 1)]
        tower = ok_arr & (heights > 0)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            sx = slice(max(0, -dx), BOARD - max(0, dx))
            sy = slice(max(0, -dy), BOARD - max(0, dy))
            tx = slice(max(0, dx), BOARD - max(0, -dx))
            ty = slice(max(0, dy), BOARD - max(0, -dy))
            xs, ys = np.nonzero(table_arr[sx, sy] & tower[tx, ty])
            src = labels_arr[sx, sy][xs, ys].tolist()
            dst = ((xs + tx.start) * BOARD + ys + ty.start).tolist()
            for a, b in zip(src, dst, strict=True):
                border[a].append(b)
        ok = ok_arr.ravel().tolist()
        h = heights.ravel().tolist()
        label = labels_arr.ravel().tolist()
        free_descent = self.options["descent"] == "free"
        x, y, _ = self.figures[p]
        c0 = x * BOARD + y
        lad0 = 2 * self.short[p] + self.long[p]
        node0 = cells + label[c0] if h[c0] == 0 and label[c0] else c0
        seen = bytearray((cells + pieces + 1) * 4)
        seen[node0 * 4 + lad0] = 1
        queue = deque([node0 * 4 + lad0])
        last = BOARD - 1

        def steps_up(rise: int, lad: int) -> list[int]:
            out = [lad] if -1 <= rise <= 1 or (rise < -1 and free_descent) else []
            if lad & 2 and rise in SHORT_LADDER:
                out.append(lad & 1)
            if lad & 1 and rise in LONG_LADDER:
                out.append(lad & 2)
            return out

        while queue:
            s = queue.popleft()
            node, lad = s >> 2, s & 3
            if node >= cells:  # a table piece: leave it from its border
                for n in border[node - cells]:
                    for nlad in steps_up(h[n], lad):
                        if h[n] > target:
                            return True
                        ns = n * 4 + nlad
                        if not seen[ns]:
                            seen[ns] = 1
                            queue.append(ns)
                continue
            cx, cy = divmod(node, BOARD)
            z = h[node]
            for n, inside in ((node + BOARD, cx < last), (node - BOARD, cx > 0), (node + 1, cy < last),
                              (node - 1, cy > 0)):
                if not inside or not ok[n]:
                    continue
                rise = h[n] - z
                for nlad in steps_up(rise, lad):
                    if h[n] > target:
                        return True
                    ns = ((cells + label[n]) if h[n] == 0 else n) * 4 + nlad
                    if not seen[ns]:
                        seen[ns] = 1
                        queue.append(ns)
        return False

    def explain(self, move: ClimbersMove) -> IllegalMove | None:  # type: ignore[override]
        if self.over:
            return IllegalMove("game-over", "the game is over")
        if self._is_legal(move):
            return None
        return IllegalMove(*self._why(move))

    def _is_legal(self, move: ClimbersMove) -> bool:
        """Membership in `legal_moves()`, without listing every block move where that can be avoided."""
        if self._moves_cache is not None or move.kind != "block" or self.phase != "block":
            return move in self.legal_moves()
        table = self.block_table()
        i = self.index.get(move.block, -1)  # type: ignore[arg-type]
        sid = next((k for k, shape in enumerate(table.shapes) if shape == (move.size, move.top)), -1)
        x, y, z = move.cell  # type: ignore[misc]
        found = bool(((table.block == i) & (table.x == x) & (table.y == y) & (table.z == z)
                      & (table.shape == sid)).any()) and not move.pushes
        found = found or move in table.extra
        return found and (not self._needs_rise() or bool(self._keeping_a_rise([move])))

    def _why(self, move: ClimbersMove) -> tuple[str, str]:
        """The rule a refused move breaks (the first one found, in the order of the rule text)."""
        p, phase = self.player, self.phase
        if move.kind == "pass":
            return "pass-only-first", "a whole turn can be passed only before anything else in it"
        if move.kind == "skip":
            if phase == "figure2" or phase == "block":
                return "net-height", ("this figure left the table this turn: it must end the turn higher than "
                                      f"it began it (height {self.turn_start[2]})")
            return "not-now", "nothing to skip here"
        if move.kind == "fig":
            if phase not in ("figure1", "figure2"):
                return "wrong-phase", f"the figure moves before and after the block move, not in the {phase} step"
            return self._why_figure(p, move)
        if move.kind == "block":
            if phase != "block":
                return "wrong-phase", f"a block is moved in the block step, not in the {phase} step"
            if self._needs_rise() and move in self.block_moves():
                return "net-height", ("after this block move the figure, which left the table this turn, could no "
                                      f"longer end the turn higher than it began it (height {self.turn_start[2]})")
            return self._why_block(move)
        if move.kind == "stone":
            if phase != "stone":
                return "wrong-phase", "the blocking stone is laid at the end of the turn"
            if self.stone_used[p]:
                return "stone-used", "each player has one blocking stone per game"
            if move.block not in self.index:
                return "unknown-block", f"there is no block {move.block}"
            return "stone-not-on-free-top", f"block {move.block} has no free top face (a block, figure or stone on it)"
        return "unknown", "not a move of this game"

    def _why_figure(self, p: int, move: ClimbersMove) -> tuple[str, str]:
        dest = move.cell
        assert dest is not None
        x, y, z = dest
        if not (0 <= x < BOARD and 0 <= y < BOARD):
            return "off-table", f"{dest} is off the table area"
        if int(self.heights[x, y]) != z:
            return "figure-not-on-surface", f"a figure stands on a column top: the top at ({x},{y}) is {self.heights[x, y]}"
        for lad in move.ladders:
            if not (self.short[p] if lad == "short" else self.long[p]):
                return "ladder-used", f"the {lad} ladder of {self.colours[p]} is already used"
        ok = self._enterable(p)
        if not ok[x, y]:
            b = int(self.topb[x, y])
            if b in self.blocked():
                return "blocked-block", f"block {self.ids[b]} carries a blocking stone: it cannot be entered"
            if any(f[:2] == (x, y) for q, f in enumerate(self.figures) if q != p):
                return "cell-occupied", f"another figure stands on {dest}"
            return "wrong-colour", (f"{self.colours[p]} may stand only on {self.colours[p]}, grey or the table; "
                                    f"{self.ids[b]} shows {COLOURS[self.block_top_colour(b)]}")
        reachable = ClimbersMove("fig", cell=dest, ladders=move.ladders)
        unrestricted = self.clone()
        unrestricted.climbed = False
        unrestricted.turn_start = (0, 0, -99)
        if reachable in unrestricted.figure_moves(p):
            return "net-height", ("a figure that leaves the table must end its turn higher than it began it "
                                  f"(height {self.turn_start[2]})")
        return "unreachable", ("no path of orthogonal steps reaches it: without a ladder a step rises at most 1, "
                               "the short ladder bridges exactly 2, the long one 2 to 4, each once; every cell "
                               "entered must be free, of the figure's colour, grey or the table")

    def _why_block(self, move: ClimbersMove) -> tuple[str, str]:
        if move.block not in self.index:
            return "unknown-block", f"there is no block {move.block}"
        i = self.index[move.block]
        if i == self.last_moved:
            return "last-moved", f"{move.block} was moved in the previous turn: the next player may not move it"
        if i in self.blocked():
            return "blocked-block", f"{move.block} carries a blocking stone"
        if i not in self.movable_blocks():
            return "not-free", f"{move.block} has something on its top (a block or a figure)"
        shapes = {(s, t) for s, t, _ in placements_shapes(tuple(int(v) for v in self.size[i]),
                                                          tuple(int(v) for v in self.faces[i]))}
        if (move.size, move.top) not in shapes:
            return "no-such-rotation", f"{move.block} cannot be turned to extents {move.size} with {COLOURS[move.top]} up"
        probe = self.clone()
        probe._lift(i)
        x, y, z = move.cell
        sx, sy, sz = move.size
        if x < 0 or y < 0 or x + sx > BOARD or y + sy > BOARD or z < 0 or z + sz > Z_MAX:
            return "off-table", "the block would leave the table area"
        cols = probe.heights[x:x + sx, y:y + sy]
        if (probe.occ[x:x + sx, y:y + sy, z:z + sz] != NO_BLOCK).any():
            return "overlap", "the block would overlap another block"
        if int(cols.max()) != z or int(cols.min()) != z:
            return "unsupported", "every cell under a block must be a block top (or the table): no holes, no overhangs"
        under = [(fx, fy) for fx, fy, fz in self.figures if x <= fx < x + sx and y <= fy < y + sy]
        if z == 0 and under:
            return "figure-under", "a block is not laid over a figure standing on the table"
        stoned = self.blocked()
        if any(int(t) in stoned for t in probe.topb[x:x + sx, y:y + sy].ravel()):
            return "blocked-block", "a block carrying a blocking stone cannot be covered"
        if (move.cell, move.size) == (tuple(int(v) for v in self.origin[i]), tuple(int(v) for v in self.size[i])):
            return "same-place", "a moved block must end somewhere else"
        if z == 0:
            return "no-contact", "at least one face must touch the construction flush, with a shared area"
        return "figure-push", "figures under the block cannot all be pushed to free cells of the same top face"

    def _apply(self, move: ClimbersMove) -> None:  # type: ignore[override]
        p = self.player
        if move.kind == "pass":
            self._end_turn()
        elif move.kind == "skip":
            self._advance()
        elif move.kind == "fig":
            self._apply_figure(p, move)
            self._advance()
        elif move.kind == "block":
            self._apply_block(move)
            self._advance()
        elif move.kind == "stone":
            self.stone[p] = self.index[move.block]  # type: ignore[index]
            self.stone_used[p] = True
            self._advance()
        self._moves_cache = None
        self._table_cache = None
        self._paths_cache = None

    def _apply_figure(self, p: int, move: ClimbersMove) -> None:
        # the state's own path, never the caller's: a move typed without a path (or with a made-up one) must not
        # dodge the net-height rule by hiding that it left the table
        legal = self.legal_moves()
        path = legal[legal.index(move)].path if move in legal else move.path
        path = path or (self.figures[p], move.cell)
        if any(c[2] > 0 for c in path):
            self.climbed = True
        for lad in move.ladders:
            if lad == "short":
                self.short[p] = False
            else:
                self.long[p] = False
        if move.cell[2] != self.figures[p][2]:  # type: ignore[index]
            self.reached[p] = self.turn
        self.figures[p] = move.cell  # type: ignore[assignment]

    def _apply_block(self, move: ClimbersMove) -> None:
        self._moves_cache = None
        self._table_cache = None
        i = self.index[move.block]  # type: ignore[index]
        self._lift(i)
        size = move.size
        colouring = tuple(int(v) for v in self.faces[i])
        for s, top, faces in placements_shapes(tuple(int(v) for v in self.size[i]), colouring):  # type: ignore[arg-type]
            if s == size and top == move.top:
                self.faces[i] = faces
                break
        self.origin[i] = move.cell
        self.size[i] = size
        self._drop(i)
        for src, dst in move.pushes:
            for q, f in enumerate(self.figures):
                if f == src:
                    self.figures[q] = dst
        self.moved_now = i

    def _advance(self) -> None:
        nxt = PHASES.index(self.phase) + 1
        if nxt == len(PHASES) or (PHASES[nxt] == "stone" and self.stone_used[self.player]):
            self._end_turn()
        else:
            self.phase = PHASES[nxt]

    def _end_turn(self) -> None:
        p = self.player
        n = self.num_players
        me = self.figures[p][2]
        # "climb higher than all the others": the figure rose this turn and ends strictly highest; a leader
        # who merely stays on top makes no progress, and the game must end when nobody makes any
        sole_leader = me > self.turn_start[2] and all(me > self.figures[q][2] for q in range(n) if q != p)
        self.last_moved = self.moved_now
        self.moved_now = None
        self.turn += 1
        if self.last_chance:
            self.last_chance = False
            if not sole_leader:
                self.over = True
                return
            self.round_leader = True  # the first player made it: play goes on with this round
        elif sole_leader:
            self.round_leader = True
        self.player = (p + 1) % n
        if self.player == 0:
            self.round += 1
            if not self.round_leader or self.round >= self.options["max_rounds"]:
                if self.round >= self.options["max_rounds"]:
                    self.over = True
                    return
                self.last_chance = True
            self.round_leader = False
        q = self.player
        if self.stone[q] is not None:
            self.stone[q] = None  # the stone leaves the game when its owner's turn comes round again
        self.phase = "figure1"
        self.turn_start = self.figures[q]
        self.climbed = False

    # --- result ------------------------------------------------------------------------------------------
    def ranking(self) -> list[int]:
        """Players best first: higher figure first; equal heights: whoever got there later ranks higher."""
        return sorted(range(self.num_players), key=lambda q: (-self.figures[q][2], -self.reached[q], q))

    def result(self) -> dict[str, Any]:
        order = self.ranking()
        return {"winners": [order[0]], "scores": [self.figures[q][2] for q in range(self.num_players)],
                "ranking": order, "rounds": self.round, "turns": self.turn}

    def heuristic(self, player: int) -> float:
        ladders = 0.6 * self.short[player] + 1.0 * self.long[player]
        return self.figures[player][2] + 0.3 * ladders

    # --- AI hooks (tower.games.ai): cheap one-move scores, no copy of the state per move --------------------------
    # a playout move costs ~2 ms (block table, figure moves): short playouts ranked by `heuristic` leave the
    # search player more iterations, and won more often against greedy (docs/climbers.md)
    rollout_depth: ClassVar[int] = 8

    def _rises_for(self, player: int) -> set[int]:
        """The rises player's figure can make in one step with the ladders it still has."""
        rises = {1}
        if self.short[player]:
            rises.update(SHORT_LADDER)
        if self.long[player]:
            rises.update(LONG_LADDER)
        return rises

    def _block_scores(self, table: BlockTable, player: int) -> np.ndarray:
        """`greedy_score` of every row of a block table at once (numpy)."""
        fx, fy, fz = self.figures[player]
        own = COLOURS.index(self.colours[player])
        sizes = np.array([s for s, _ in table.shapes], dtype=np.int64).reshape(-1, 3)
        tops = np.array([t for _, t in table.shapes], dtype=np.int64)
        sx, sy, sz = (sizes[table.shape, a] for a in range(3))
        x, y = table.x.astype(np.int64), table.y.astype(np.int64)
        beside_x = (x - 1 <= fx) & (fx <= x + sx) & (y <= fy) & (fy < y + sy)
        beside_y = (x <= fx) & (fx < x + sx) & (y - 1 <= fy) & (fy <= y + sy)
        inside = (x <= fx) & (fx < x + sx) & (y <= fy) & (fy < y + sy)
        colour_ok = (tops[table.shape] == own) | (tops[table.shape] == GREY)
        rise = table.z.astype(np.int64) + sz - fz
        climbable = np.isin(rise, sorted(self._rises_for(player)))
        good = (beside_x | beside_y) & ~inside & colour_ok & climbable
        # a rise without a ladder is worth a little more than the same rise by ladder
        return np.where(good, rise + 0.5 * (rise == 1), 0.0)

    def greedy_score(self, move: ClimbersMove, player: int) -> float:
        """The greedy player's one-move value: height gained now, then mobility (a place to climb next).

        A figure move scores its rise (ladders cost a little: they are mobility kept for later). A block move
        is not tried out: it scores the rise it offers if its new top lands orthogonally next to the player's
        figure, shows the player's colour or grey, and is within reach of a step or a ladder the player still
        has. A blocking stone scores a little when it lies next to another figure. Skip and pass score 0.
        """
        if move.kind == "fig":
            gain = move.cell[2] - self.figures[player][2]  # type: ignore[index]
            return 10.0 * gain - 0.6 * len(move.ladders) - (0.05 if gain <= 0 else 0.0)
        if move.kind == "block":
            sx, sy, sz = move.size  # type: ignore[misc]
            x, y, z = move.cell  # type: ignore[misc]
            fx, fy, fz = self.figures[player]
            beside = ((x - 1 <= fx <= x + sx and y <= fy < y + sy) or (x <= fx < x + sx and y - 1 <= fy <= y + sy))
            inside = x <= fx < x + sx and y <= fy < y + sy
            rise = z + sz - fz
            if (beside and not inside and move.top in (COLOURS.index(self.colours[player]), GREY)
                    and rise in self._rises_for(player)):
                return rise + 0.5 * (rise == 1)
            return 0.0
        if move.kind == "stone":
            i = self.index[move.block]  # type: ignore[index]
            o, sz3 = self.origin[i], self.size[i]
            return 0.1 * sum(1 for q, (x, y, _) in enumerate(self.figures) if q != player
                             and o[0] - 1 <= x <= o[0] + sz3[0] and o[1] - 1 <= y <= o[1] + sz3[1])
        return 0.0

    def rollout_move(self, rng: random.Random) -> ClimbersMove:
        """The playout policy of the search player: mostly greedy (best `greedy_score`, ties at random), now
        and then a random move; block moves are scored straight off the block table."""
        if rng.random() < ROLLOUT_RANDOM:
            return self.random_move(rng)
        p = self.player
        if self.phase == "block" and self._moves_cache is None:
            table = self.block_table()
            if len(table.block):
                scores = self._block_scores(table, p)
                best = float(scores.max())
                if best > 0:
                    rows = np.flatnonzero(scores == best)
                    move = self._table_move(table, int(rows[rng.randrange(len(rows))]))
                    if not self._needs_rise() or self._keeping_a_rise([move]):
                        return move
            return self.random_move(rng)
        moves = self.legal_moves()
        values = [self.greedy_score(m, p) for m in moves]
        best = max(values)
        return rng.choice([m for m, v in zip(moves, values, strict=True) if v == best])

    def search_moves(self) -> list[ClimbersMove]:
        """The moves the search player's tree expands (tower.games.ai `MCTSAgent`): every figure, stone, skip and
        pass move, and the best-scored block moves."""
        p = self.player
        if self.phase != "block" or self._moves_cache is not None:
            return self.legal_moves()
        table = self.block_table()
        if not len(table.block):
            return self.legal_moves()
        scores = self._block_scores(table, p)
        order = np.argsort(-scores, kind="stable")
        if not self._needs_rise():
            return [self._table_move(table, int(k)) for k in order[:SEARCH_WIDTH]]
        # net-height rule: keep the best-scored moves that leave a way up, without listing every legal move
        out = []
        for k in order[:4 * SEARCH_WIDTH]:
            move = self._table_move(table, int(k))
            if self._keeping_a_rise([move]):
                out.append(move)
                if len(out) == SEARCH_WIDTH:
                    break
        return out or self.legal_moves()

    # --- serialisation -----------------------------------------------------------------------------------
    def view(self, player: int) -> dict[str, Any]:
        """Everything in The Climbers is public."""
        return {
            "game": self.name, "build": build_to_json(self.to_build()), "current_player": self.current_player,
            "phase": self.phase, "round": self.round, "turn": self.turn, "last_chance": self.last_chance,
            "last_moved": None if self.last_moved is None else self.ids[self.last_moved],
            "players": [{"colour": self.colours[q], "figure": list(self.figures[q]), "height": self.figures[q][2],
                         "short_ladder": self.short[q], "long_ladder": self.long[q],
                         "stone": "unused" if not self.stone_used[q] else
                         (self.ids[self.stone[q]] if self.stone[q] is not None else "spent")}
                        for q in range(self.num_players)],
            "over": self.over,
        }

    def to_json(self) -> dict[str, Any]:
        d = self.base_json()
        d.update({
            "build": build_to_json(self.to_build()), "figures": [list(f) for f in self.figures],
            "short": self.short, "long": self.long, "stone": self.stone, "stone_used": self.stone_used,
            "player": self.player, "phase": self.phase, "last_moved": self.last_moved, "moved_now": self.moved_now,
            "turn_start": list(self.turn_start), "climbed": self.climbed, "turn": self.turn, "round": self.round,
            "round_leader": self.round_leader, "last_chance": self.last_chance, "over": self.over,
            "reached": self.reached,
        })
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        build = parse_build(data["build"])
        state = cls(data["players"], data["seed"], data["options"], build=build)
        # the build is stored in board coordinates already: undo the start-tower shift
        state._place_exact(build)
        state.load_base_json(data)
        state.figures = [tuple(f) for f in data["figures"]]  # type: ignore[misc]
        for key in ("short", "long", "stone", "stone_used", "player", "phase", "last_moved", "moved_now", "climbed",
                    "turn", "round", "round_leader", "last_chance", "over", "reached"):
            setattr(state, key, list(data[key]) if isinstance(data[key], list) else data[key])
        state.turn_start = tuple(data["turn_start"])  # type: ignore[assignment]
        state._moves_cache = None
        state._table_cache = None
        return state

    def _place_exact(self, build: Build) -> None:
        self.occ[:] = NO_BLOCK
        for i, b in enumerate(build.blocks):
            self.origin[i] = b.origin
            self.occ[self._slices(i)] = i
        self._recompute_columns(slice(None), slice(None))

    def clone(self) -> Self:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for key in ("origin", "size", "faces", "occ", "heights", "topb"):
            setattr(new, key, getattr(self, key).copy())
        for key in ("figures", "short", "long", "stone", "stone_used", "reached", "history"):
            setattr(new, key, list(getattr(self, key)))
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        new._moves_cache = self._moves_cache
        new._table_cache = self._table_cache
        return new

    def describe(self, player: int) -> str:
        lines = [f"round {self.round}, turn {self.turn}: {self.colours[self.player]} to play, step {self.phase}"
                 + ("  [LAST CHANCE]" if self.last_chance else "")]
        for q in range(self.num_players):
            lad = "+".join(n for n, has in (("short", self.short[q]), ("long", self.long[q])) if has) or "none"
            st = "unused" if not self.stone_used[q] else (self.ids[self.stone[q]] if self.stone[q] is not None else "spent")
            lines.append(f"  {self.colours[q]:>10}: figure at {self.figures[q]} height {self.figures[q][2]}, "
                         f"ladders {lad}, stone {st}")
        moves = self.legal_moves()
        kinds: dict[str, int] = {}
        for m in moves:
            kinds[m.kind] = kinds.get(m.kind, 0) + 1
        lines.append("  legal: " + ", ".join(f"{n} {k}" for k, n in kinds.items()))
        figs = [str(m) for m in moves if m.kind == "fig"]
        if figs:
            lines.append("  figure moves: " + ", ".join(figs[:20]) + (" ..." if len(figs) > 20 else ""))
        movable = sorted({m.block for m in moves if m.kind == "block"})
        if movable:
            lines.append("  movable blocks: " + " ".join(movable) + "   (type 'moves' for all placements)")
        return "\n".join(lines)


__all__ = ["ClimbersState", "ClimbersMove", "BOARD", "Z_MAX", "permutations"]

"""Where the blocks can go: every legal block move of a position, as parallel numpy arrays.

Two stages, because the figures change more often than the blocks do:

1. `placements(board, ...)`: every place each movable block can go on this board, whoever stands where: full
   support, a face touching the construction, no stone covered, somewhere else than before. All movable blocks
   at once: one height map per block lifted out, stacked, and per footprint one pass of sliding-window maxima
   and minima over the stack, cut to the construction's bounding box plus a margin (a legal position touches
   the construction, so it lies inside). No Python loop runs over positions. Cached by the game under the
   board's version.
2. `legal_table(placements, ...)`: the figures taken into account: a block a figure stands on stays put, a block
   is not laid over a figure standing on the table, and figures on a top face the block covers are pushed aside
   onto free cells of that face (one move per way to push them). With the `physical` support option, the
   overhanging placements the physics judge accepts are added.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import product

import numpy as np

from tower.climbers.blocks import Colouring, Size, placements_shapes
from tower.climbers.board import BOARD, NO_BLOCK, Z_MAX, Board
from tower.climbers.moves import Cell, ClimbersMove
from tower.climbers.placement import side_contact, window_max, window_max_min


@dataclass(frozen=True)
class Placements:
    """Every place each movable block can go, one row a placement, in the order block, shape, position."""

    block: np.ndarray  # block index
    x: np.ndarray  # new minimum corner
    y: np.ndarray
    z: np.ndarray
    shape: np.ndarray  # index into `shapes`
    overhang: np.ndarray  # rests on its highest supports only (support=physical): the judge must accept it
    shapes: list[tuple[Size, int]]  # (extents, top colour)
    sizes: np.ndarray  # (shapes, 3) extents of each shape
    tops: np.ndarray  # top colour of each shape

    x1: np.ndarray  # the far corner: x + extent along x
    y1: np.ndarray
    z1: np.ndarray  # the new top
    cache: dict = field(default_factory=dict, compare=False, repr=False)  # what is derived (`movelist`)

    def __len__(self) -> int:
        return len(self.block)

    def covering(self, x: int, y: int) -> np.ndarray:
        """Rows whose new footprint covers column (x, y)."""
        return (self.x <= x) & (x < self.x1) & (self.y <= y) & (y < self.y1)


def movable_blocks(board: Board, last_moved: int | None, stoned: set[int]) -> list[int]:
    """Blocks free of other blocks on top, not moved in the previous player's turn, carrying no stone (figures
    are taken into account later: `legal_table`)."""
    return [i for i in range(len(board)) if i != last_moved and i not in stoned and not board.carries_block(i)]


def placements(board: Board, last_moved: int | None, stoned: set[int], physical: bool) -> Placements:
    """Every place every movable block can go on `board` (see the module docstring)."""
    covered_stone = np.zeros((BOARD, BOARD), dtype=bool)
    for b in stoned:
        covered_stone |= board.topb == b  # a stone's block can be neither moved nor covered
    movable = movable_blocks(board, last_moved, stoned)
    shapes: list[tuple[Size, int]] = []
    shape_ids: dict[tuple[Size, int], int] = {}
    parts: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, int, bool]] = []
    if movable:
        heights = board.heights
        cols = np.nonzero(heights.any(axis=1))[0], np.nonzero(heights.any(axis=0))[0]
        margin = 1 + int(board.size[movable].max())
        x0, x1 = max(0, int(cols[0][0]) - margin), min(BOARD, int(cols[0][-1]) + 1 + margin)
        y0, y1 = max(0, int(cols[1][0]) - margin), min(BOARD, int(cols[1][-1]) + 1 + margin)
        stack = np.empty((len(movable), x1 - x0, y1 - y0), dtype=np.int16)  # small ints: less to stream
        stack[:] = heights[x0:x1, y0:y1]
        infos = []
        by_foot: dict[tuple[int, int], list[int]] = {}
        for k, i in enumerate(movable):
            o, s = board.origin[i], board.size[i]
            stack[k, o[0] - x0:o[0] + s[0] - x0, o[1] - y0:o[1] + s[1] - y0] = board.heights_under(i)
            old = ((int(o[0]), int(o[1]), int(o[2])), (int(s[0]), int(s[1]), int(s[2])))
            colouring: Colouring = tuple(int(v) for v in board.faces[i])  # type: ignore[assignment]
            shp = placements_shapes(old[1], colouring)
            infos.append((i, old, shp))
            for size, _top, _faces in shp:
                ks = by_foot.setdefault(size[:2], [])
                if not ks or ks[-1] != k:
                    ks.append(k)
        no_stone = ~covered_stone[x0:x1, y0:y1]
        foot: dict[tuple[int, int], tuple[dict[int, int], np.ndarray, np.ndarray, np.ndarray]] = {}
        for (fx, fy), ks in by_foot.items():
            hs = stack[ks]
            hi, lo = window_max_min(hs, fx, fy)
            free = ~window_max(~no_stone, fx, fy)
            ok = (hi == lo) & free
            on_table = hi == 0
            if on_table.any():
                ok &= ~on_table | side_contact(hs, fx, fy, hi, 0)
            over = (hi != lo) & (hi > 0) & free if physical else None
            foot[(fx, fy)] = ({k: n for n, k in enumerate(ks)}, hi, ok, over)  # type: ignore[assignment]
        for k, (i, old, shp) in enumerate(infos):
            found: dict[Size, list[tuple[np.ndarray, np.ndarray, np.ndarray, bool]]] = {}
            for size, top, _faces in shp:
                sid = shape_ids.setdefault((size, top), len(shapes))
                if sid == len(shapes):
                    shapes.append((size, top))
                if size not in found:  # the positions depend on the extents only, not on the colour up
                    found[size] = _positions(foot[size[:2]], k, size, old, (x0, y0), (x1, y1))
                parts.extend((i, xs, ys, zs, sid, overhang) for xs, ys, zs, overhang in found[size])
    if parts:
        counts = [len(p[1]) for p in parts]
        block = np.repeat(np.array([p[0] for p in parts], dtype=np.int32), counts)
        x = np.concatenate([p[1] for p in parts]).astype(np.int32)
        y = np.concatenate([p[2] for p in parts]).astype(np.int32)
        z = np.concatenate([p[3] for p in parts]).astype(np.int32)
        shape = np.repeat(np.array([p[4] for p in parts], dtype=np.int32), counts)
        overhang = np.repeat(np.array([p[5] for p in parts], dtype=bool), counts)
    else:
        block = x = y = z = shape = np.zeros(0, dtype=np.int32)
        overhang = np.zeros(0, dtype=bool)
    sizes = np.array([s for s, _ in shapes], dtype=np.int32).reshape(-1, 3)
    tops = np.array([t for _, t in shapes], dtype=np.int32)
    extents = sizes[shape] if len(shape) else np.zeros((0, 3), dtype=np.int32)
    return Placements(block, x, y, z, shape, overhang, shapes, sizes, tops, x + extents[:, 0], y + extents[:, 1],
                      z + extents[:, 2])


def _positions(foot: tuple[dict[int, int], np.ndarray, np.ndarray, np.ndarray | None], k: int, size: Size,
               old: tuple[Cell, Size], lo: tuple[int, int],
               hi_corner: tuple[int, int]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, bool]]:
    """The positions (x, y, z arrays, on the whole board) where the k-th lifted block fits with extents `size`,
    from its footprint's window passes: resting fully, and (support=physical) overhanging."""
    pos, hi_all, ok_all, over_all = foot
    hi = hi_all[pos[k]]
    fits = hi + size[2] <= Z_MAX
    out = []
    for mask, overhang in ((ok_all[pos[k]], False), (None if over_all is None else over_all[pos[k]], True)):
        if mask is None:
            continue
        mask = mask & fits
        (ox, oy, _), old_size = old
        if size == old_size and lo[0] <= ox < hi_corner[0] and lo[1] <= oy < hi_corner[1]:
            mask[ox - lo[0], oy - lo[1]] = False  # a block must end somewhere else
        xs, ys = np.nonzero(mask)
        if len(xs):
            out.append((xs + lo[0], ys + lo[1], hi[xs, ys], overhang))
    return out


@dataclass(frozen=True)
class BlockTable:
    """The legal block moves of a position: the placements that push nobody as rows of `placements` (`rows`),
    and the few others (pushing figures aside, or overhangs the judge accepted) as Move objects in `extra`."""

    placements: Placements
    rows: np.ndarray  # row indices into `placements`, in its order
    extra: list[ClimbersMove]
    extra_rows: list[int]  # the row of `placements` each extra move comes from

    def __len__(self) -> int:
        return len(self.rows) + len(self.extra)

    def move(self, ids: list[str], k: int) -> ClimbersMove:
        """Move number k (rows first, then the extras)."""
        if k >= len(self.rows):
            return self.extra[k - len(self.rows)]
        return row_move(self.placements, ids, int(self.rows[k]))

    def moves(self, ids: list[str]) -> list[ClimbersMove]:
        return [row_move(self.placements, ids, int(r)) for r in self.rows] + list(self.extra)


def row_move(pl: Placements, ids: list[str], r: int) -> ClimbersMove:
    size, top = pl.shapes[int(pl.shape[r])]
    return ClimbersMove.block_move(ids[int(pl.block[r])], (int(pl.x[r]), int(pl.y[r]), int(pl.z[r])), size, top)


#: The physics judge's question for one overhanging placement: (row) -> does the construction stand?
Stands = Callable[[int], bool]


def legal_table(pl: Placements, board: Board, figures: list[Cell], stands: Stands | None = None,
                pinned_ok: Callable[[int], bool] | None = None) -> BlockTable:
    """The legal block moves with the figures standing on `figures` (see the module docstring); `stands` judges
    an overhanging placement (support=physical)."""
    keep, pushing = figure_masks(pl, board, figures)
    plain = keep & ~pushing & ~pl.overhang
    extra: list[ClimbersMove] = []
    extra_rows: list[int] = []
    pushes: dict[tuple[int, int, int, Size], list] = {}  # the ways to push do not depend on the colour up
    faces: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for r in np.flatnonzero(keep & (pushing != pl.overhang)).tolist():
        if pl.overhang[r]:
            more = [row_move(pl, board.ids, r)] if stands is not None and stands(r) else []
        else:
            size, top = pl.shapes[int(pl.shape[r])]
            i, origin = int(pl.block[r]), (int(pl.x[r]), int(pl.y[r]), int(pl.z[r]))
            key = (i, *origin[:2], size)
            if key not in pushes:
                pushes[key] = list(push_options(board, i, origin, size, figures, faces))
            more = [ClimbersMove.block_move(board.ids[i], origin, size, top, way) for way in pushes[key]]
        extra += more
        extra_rows += [r] * len(more)
    return BlockTable(pl, np.flatnonzero(plain), extra, extra_rows)


def figure_masks(pl: Placements, board: Board, figures: list[Cell]) -> tuple[np.ndarray, np.ndarray]:
    """(keep, pushing) over the rows: `keep` drops the blocks a figure stands on and the placements over a
    figure on the table; `pushing` marks the placements covering a figure on a block top."""
    keep = np.ones(len(pl), dtype=bool)
    pushing = np.zeros(len(pl), dtype=bool)
    for x, y, z in figures:
        cover = pl.covering(x, y)
        if z > 0:
            keep &= pl.block != int(board.topb[x, y])
            pushing |= cover
        else:
            keep &= ~cover
    return keep, pushing


def push_options(board: Board, i: int, origin: Cell, size: Size, figures: list[Cell],
                 faces: dict[tuple[int, int], list[tuple[int, int]]] | None = None,
                 ) -> Iterator[tuple[tuple[Cell, Cell], ...]]:
    """Ways to push the figures that block i, put at `origin` with extents `size`, would cover onto free cells
    of the same top face (cells the block leaves uncovered, once block i itself is lifted off). `faces` keeps
    the cells of each top face (by block, and the block lifted off it) between calls."""
    x0, y0, _ = origin
    x1, y1 = x0 + size[0], y0 + size[1]
    covered = sorted((x, y, z) for x, y, z in figures if x0 <= x < x1 and y0 <= y < y1)
    occupied = {(x, y) for x, y, _ in figures}
    zi = int(board.origin[i, 2])
    per_fig: list[list[Cell]] = []
    for x, y, z in covered:
        b = int(board.topb[x, y])
        if b == i:  # cannot happen: nothing stands on a movable block
            return
        lifted = i if zi > 0 and zi == board.top(b) else -1  # block i lies on b: lifting it uncovers more of b
        face = _face(board, b, lifted, occupied, faces)
        free = [(cx, cy, z) for cx, cy in face if not (x0 <= cx < x1 and y0 <= cy < y1)]
        if not free:
            return
        per_fig.append(free)
    for targets in product(*per_fig):
        if len(set(targets)) == len(targets):
            yield tuple(sorted(zip(covered, targets, strict=True)))


def _face(board: Board, b: int, lifted: int, occupied: set[tuple[int, int]],
          faces: dict[tuple[int, int], list[tuple[int, int]]] | None) -> list[tuple[int, int]]:
    """The cells of block b's top that show (block `lifted` taken off it) and carry no figure, x first."""
    if faces is not None and (b, lifted) in faces:
        return faces[(b, lifted)]
    fx, fy = board.footprint(b)
    top = board.topb[fx, fy]
    shows = (top == b) | (top == lifted) if lifted >= 0 else top == b
    cells = [(fx.start + int(cx), fy.start + int(cy)) for cx, cy in zip(*np.nonzero(shows), strict=True)]
    cells = [c for c in cells if c not in occupied]
    if faces is not None:
        faces[(b, lifted)] = cells
    return cells


def lifted_top(board: Board, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Heights and top blocks of block i's footprint once it is lifted out."""
    hs = board.heights_under(i)
    fx, fy = board.footprint(i)
    occ = board.occ[fx, fy]
    ix, iy = np.indices(hs.shape, sparse=True)
    tops = np.where(hs > 0, occ[ix, iy, np.maximum(hs - 1, 0)], NO_BLOCK)
    return hs, tops

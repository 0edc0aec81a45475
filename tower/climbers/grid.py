"""The voxel grid: which block fills each 1x1x1 cell, the height map, and top surfaces with their colours.

Numpy arrays throughout: the game enumerates thousands of candidate placements per move, and the legality
checks of a build are slices of these arrays rather than loops over cells.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tower.climbers.build import Block

EMPTY = -1
TABLE_COLOUR = -1  # top colour of a bare table cell: neutral ground


class VoxelGrid:
    """Occupancy of a set of blocks over their bounding box (plus a margin of free cells around it).

    `occ[i, j, k]` is the index (into `blocks`) of the block filling world cell `offset + (i, j, k)`, or EMPTY.
    Where blocks overlap, the first one keeps the cell and the clash is listed in `overlaps`.
    """

    MARGIN = 2

    def __init__(self, blocks: Sequence[Block], extra_points: Sequence[Sequence[int]] = ()) -> None:
        self.blocks = list(blocks)
        pts = [b.origin for b in self.blocks] + [tuple(o + s for o, s in zip(b.origin, b.size, strict=True))
                                                  for b in self.blocks]
        pts += [tuple(p) for p in extra_points]
        arr = np.array(pts or [(0, 0, 0)], dtype=np.int64)
        lo = arr.min(axis=0) - self.MARGIN
        hi = arr.max(axis=0) + self.MARGIN
        lo[2] = min(lo[2] + self.MARGIN, 0)  # the table (z = 0) is always inside the grid
        self.offset = lo
        self.occ = np.full(tuple(hi - lo), EMPTY, dtype=np.int32)
        self.overlaps: list[tuple[int, int, list[tuple[int, int, int]]]] = []  # (first, second, cells)
        for index, block in enumerate(self.blocks):
            sl = self.box_slices(block.origin, block.size)
            region = self.occ[sl]
            clash = region != EMPTY
            if clash.any():
                for other in np.unique(region[clash]):
                    cells = np.argwhere(region == other) + np.array(block.origin)
                    self.overlaps.append((int(other), index, [tuple(int(v) for v in c) for c in cells]))
            region[~clash] = index
        self._surface_cache: tuple[np.ndarray, np.ndarray] | None = None

    # --- coordinates ---------------------------------------------------------------------------------------
    def box_slices(self, origin: Sequence[int], size: Sequence[int]) -> tuple[slice, slice, slice]:
        o = np.asarray(origin) - self.offset
        return tuple(slice(int(a), int(a + s)) for a, s in zip(o, size, strict=True))  # type: ignore[return-value]

    def to_index(self, cell: Sequence[int]) -> tuple[int, int, int] | None:
        """Array index of a world cell, or None when it lies outside the grid."""
        idx = tuple(int(c - o) for c, o in zip(cell, self.offset, strict=True))
        if all(0 <= i < n for i, n in zip(idx, self.occ.shape, strict=True)):
            return idx  # type: ignore[return-value]
        return None

    def block_at(self, cell: Sequence[int]) -> int:
        """Index of the block filling world `cell`, EMPTY if none (or outside the grid)."""
        idx = self.to_index(cell)
        return EMPTY if idx is None else int(self.occ[idx])

    # --- surfaces ------------------------------------------------------------------------------------------
    def height_map(self) -> np.ndarray:
        """World z of the highest filled cell + 1 per column (0 where the column is empty)."""
        filled = self.occ != EMPTY
        nz = filled.shape[2]
        top = nz - np.argmax(filled[:, :, ::-1], axis=2)  # index above the highest filled cell
        return np.where(filled.any(axis=2), top + self.offset[2], 0)

    def is_surface(self, cell: Sequence[int]) -> bool:
        """A cell a figure can stand in: free, with a block top or the table right under it."""
        idx = self.to_index(cell)
        if idx is None:
            return cell[2] == 0  # the table extends past the grid
        if self.occ[idx] != EMPTY:
            return False
        if cell[2] == 0:
            return True
        below = self.to_index((cell[0], cell[1], cell[2] - 1))
        return below is not None and self.occ[below] != EMPTY and cell[2] > 0

    def surface_under(self, cell: Sequence[int]) -> int | None:
        """Index of the block whose top is right under `cell`; None for the table or nothing."""
        below = self.to_index((cell[0], cell[1], cell[2] - 1))
        if below is None or self.occ[below] == EMPTY:
            return None
        return int(self.occ[below])

    def top_cells(self, index: int) -> list[tuple[int, int, int]]:
        """The free cells standing on block `index`'s top face (where figures and stones go)."""
        b = self.blocks[index]
        x0, y0, x1, y1 = b.footprint()
        out = []
        for x in range(x0, x1):
            for y in range(y0, y1):
                cell = (x, y, b.top)
                if self.block_at(cell) == EMPTY:
                    out.append(cell)
        return out

    def is_top_free(self, index: int) -> bool:
        """True when nothing (no block) rests on any part of block `index`'s top face."""
        b = self.blocks[index]
        sl = self.box_slices((b.origin[0], b.origin[1], b.top), (b.size[0], b.size[1], 1))
        region = self.occ[sl]
        return bool((region == EMPTY).all()) if region.size == b.size[0] * b.size[1] else True

    def unsupported_cells(self, index: int) -> list[tuple[int, int, int]]:
        """Footprint cells of block `index` with neither a block nor the table right under them."""
        b = self.blocks[index]
        if b.origin[2] <= 0:
            return []
        sl = self.box_slices((b.origin[0], b.origin[1], b.origin[2] - 1), (b.size[0], b.size[1], 1))
        holes = np.argwhere(self.occ[sl][:, :, 0] == EMPTY)
        return [(int(b.origin[0] + i), int(b.origin[1] + j), b.origin[2] - 1) for i, j in holes]

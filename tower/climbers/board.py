"""The board of The Climbers: where every block lies, which block fills each cell, and the height map.

Numpy arrays over a fixed table area: `occ` (which block fills each unit cell, NO_BLOCK where none), `heights`
(the top of each column: where a figure standing there has its feet) and `topb` (the block whose top face shows
in each column). Figures and stones are not on the board: the game state keeps them.

Every change takes a new `version` number (unique within the process), so anything derived from the board
(move tables, searches) can be cached under the version it was computed for.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from tower.climbers.blocks import TOP, Colouring, Size
from tower.climbers.build import Block, Build
from tower.games.errors import BadInput

BOARD = 32  # cells per side of the table area in play
Z_MAX = 48  # no tower gets near 96 cm
TOWER_AT = (11, 12)  # where a start tower's minimum corner goes on the board
NO_BLOCK = -1

_versions = itertools.count(1)


class Board:
    """The blocks of a game on the table area; `ids[i]` names block i."""

    def __init__(self, blocks: list[Block], shift: tuple[int, int] | None = TOWER_AT, where: str = "$.blocks") -> None:
        """Lay `blocks` out; with `shift`, the construction moves so its minimum corner sits at `shift`."""
        self.ids = [b.id for b in blocks]
        self.index = {b: i for i, b in enumerate(self.ids)}
        n = len(blocks)
        self.origin = np.zeros((n, 3), dtype=np.int32)
        self.size = np.zeros((n, 3), dtype=np.int32)
        self.faces = np.zeros((n, 6), dtype=np.int8)
        self.offset = (0, 0)
        if shift is not None and blocks:
            self.offset = (shift[0] - min(b.origin[0] for b in blocks), shift[1] - min(b.origin[1] for b in blocks))
        for i, b in enumerate(blocks):
            self.origin[i] = (b.origin[0] + self.offset[0], b.origin[1] + self.offset[1], b.origin[2])
            self.size[i] = b.size
            self.faces[i] = b.faces
        self.occ = np.full((BOARD, BOARD, Z_MAX), NO_BLOCK, dtype=np.int16)
        for i in range(n):
            sl = self.slices(i)
            if sl is None:
                raise BadInput(f"block {self.ids[i]} lies outside the {BOARD}x{BOARD} table area (at most {Z_MAX} "
                               "units high)", f"{where}[{i}]")
            self.occ[sl] = i
        self.heights = np.zeros((BOARD, BOARD), dtype=np.int32)
        self.topb = np.full((BOARD, BOARD), NO_BLOCK, dtype=np.int32)
        self._covered: tuple[int, np.ndarray] | None = None
        self._blocks: tuple[int, list[Block]] | None = None
        self._under: tuple[int, dict[int, np.ndarray]] = (0, {})
        self._recompute(slice(None), slice(None))

    def copy(self) -> Board:
        new = object.__new__(Board)
        new.__dict__.update(self.__dict__)
        for key in ("origin", "size", "faces", "occ", "heights", "topb"):
            setattr(new, key, getattr(self, key).copy())
        return new

    # --- reading ----------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    def slices(self, i: int) -> tuple[slice, slice, slice] | None:
        """Block i's cells as array slices; None when it does not fit the board."""
        o, s = self.origin[i], self.size[i]
        if (o < 0).any() or o[0] + s[0] > BOARD or o[1] + s[1] > BOARD or o[2] + s[2] > Z_MAX:
            return None
        return slice(o[0], o[0] + s[0]), slice(o[1], o[1] + s[1]), slice(o[2], o[2] + s[2])

    def footprint(self, i: int) -> tuple[slice, slice]:
        o, s = self.origin[i], self.size[i]
        return slice(int(o[0]), int(o[0] + s[0])), slice(int(o[1]), int(o[1] + s[1]))

    def footprint_cells(self, i: int) -> Iterator[tuple[int, int]]:
        o, s = self.origin[i], self.size[i]
        return ((int(x), int(y)) for x in range(o[0], o[0] + s[0]) for y in range(o[1], o[1] + s[1]))

    def top_colour(self, i: int) -> int:
        return int(self.faces[i, TOP])

    def top(self, i: int) -> int:
        return int(self.origin[i, 2] + self.size[i, 2])

    def visible(self, i: int) -> np.ndarray:
        """Which footprint cells of block i show its top face (a mask over its footprint)."""
        return self.topb[self.footprint(i)] == i

    def carries_block(self, i: int) -> bool:
        """Another block rests on (part of) block i's top."""
        return bool(self.covered()[i])

    def covered(self) -> np.ndarray:
        """Per block: another block rests on (part of) its top (one pass over the board, kept per version)."""
        if self._covered is None or self._covered[0] != self.version:
            shows = np.bincount(self.topb[self.topb >= 0], minlength=len(self.ids))
            self._covered = (self.version, shows < self.size[:, 0] * self.size[:, 1])
        return self._covered[1]

    def block(self, i: int) -> Block:
        return Block(self.ids[i], tuple(int(v) for v in self.origin[i]), tuple(int(v) for v in self.size[i]),  # type: ignore[arg-type]
                     tuple(int(v) for v in self.faces[i]))  # type: ignore[arg-type]

    def blocks(self) -> list[Block]:
        """Every block as a `Block` (a new list; the blocks are kept per version)."""
        if self._blocks is None or self._blocks[0] != self.version:
            self._blocks = (self.version, [self.block(i) for i in range(len(self.ids))])
        return list(self._blocks[1])

    def heights_under(self, i: int) -> np.ndarray:
        """The column heights under block i's footprint once it is lifted out (the top of whatever is below);
        kept per version."""
        if self._under[0] != self.version:
            self._under = (self.version, {})
        if i not in self._under[1]:
            self._under[1][i] = self._heights_under(i)
        return self._under[1][i]

    def _heights_under(self, i: int) -> np.ndarray:
        o = self.origin[i]
        if o[2] == 0:
            return np.zeros(tuple(self.size[i, :2]), dtype=np.int32)
        sx, sy = self.footprint(i)
        below = self.occ[sx, sy, :o[2]] != NO_BLOCK
        return np.where(below.any(axis=2), o[2] - np.argmax(below[:, :, ::-1], axis=2), 0)

    # --- changing -----------------------------------------------------------------------------------------------
    def lift(self, i: int) -> None:
        """Take block i out of the board; `drop` puts it back (or elsewhere, after `origin`/`size` change)."""
        sl = self.slices(i)
        assert sl is not None
        self.occ[sl] = NO_BLOCK
        self._recompute(sl[0], sl[1])

    def drop(self, i: int) -> None:
        sl = self.slices(i)
        assert sl is not None
        self.occ[sl] = i
        self._recompute(sl[0], sl[1])

    def move(self, i: int, origin: Size, size: Size, faces: Colouring) -> None:
        """Put block i at `origin`, turned to extents `size` with face colours `faces`."""
        self.lift(i)
        self.origin[i] = origin
        self.size[i] = size
        self.faces[i] = faces
        self.drop(i)

    def place_exactly(self, build: Build) -> None:
        """Every block where `build` puts it, without a shift (a stored position, a hand-made one)."""
        self.offset = (0, 0)
        self.occ[:] = NO_BLOCK
        for i, b in enumerate(build.blocks):
            self.origin[i] = b.origin
            sl = self.slices(i)
            if sl is None:
                raise BadInput(f"block {b.id} lies outside the {BOARD}x{BOARD} table area", f"$.blocks[{i}]")
            self.occ[sl] = i
        self._recompute(slice(None), slice(None))

    def _recompute(self, sx: slice, sy: slice) -> None:
        occ = self.occ[sx, sy]
        filled = occ != NO_BLOCK
        top = Z_MAX - np.argmax(filled[:, :, ::-1], axis=2)
        anyf = filled.any(axis=2)
        h = np.where(anyf, top, 0)
        self.heights[sx, sy] = h
        ix, iy = np.indices(h.shape, sparse=True)
        self.topb[sx, sy] = np.where(anyf, occ[ix, iy, np.maximum(h - 1, 0)], NO_BLOCK)
        self.version = next(_versions)

"""The block step's legal moves as a read-only sorted list that builds each Move only when it is read.

A block step has 5,000-15,000 legal moves. Building them all as objects and sorting them costs several times
more than finding them (numpy, `blockmoves`), and most callers read one (`rng.choice`) or ask whether one is in
the list (`apply`). So `MoveList` keeps the block table and one sorted array of integer keys, and behaves like
a list of moves: `len`, indexing and slicing, iteration, `in`, `index`, `count`, and equality with any sequence
of the same moves. Its order is `ClimbersMove.sort_key`'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np

from tower.climbers.blockmoves import BlockTable, Placements, row_move
from tower.climbers.moves import ClimbersMove

#: Bit widths of the fields of a sort key, most significant first: block id rank, x, y, z, extents, top colour,
#: then the rank of a pushing move among the pushing moves (0 for a move that pushes nobody).
_FIELDS = (("x", 6), ("y", 6), ("z", 6), ("sx", 4), ("sy", 4), ("sz", 4), ("top", 3))
_PUSH_BITS = 16


def _prefix(rank: Any, x: Any, y: Any, z: Any, sx: Any, sy: Any, sz: Any, top: Any) -> Any:
    """The sort key without the push rank (works on ints and on int64 arrays alike)."""
    key = rank
    for value, (_, bits) in zip((x, y, z, sx, sy, sz, top), _FIELDS, strict=True):
        key = (key << bits) | value
    return key << _PUSH_BITS


def _sorted_keys(pl: Placements, ids: list[str], rank: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The sort key of every placement and the placements in key order (worked out once per placements)."""
    if "sort" not in pl.cache:
        ranks = np.array([rank[b] for b in ids], dtype=np.int64)
        size = pl.sizes[pl.shape].astype(np.int64) if len(pl) else np.zeros((0, 3), dtype=np.int64)
        keys = _prefix(ranks[pl.block], pl.x.astype(np.int64), pl.y.astype(np.int64), pl.z.astype(np.int64),
                       size[:, 0], size[:, 1], size[:, 2], pl.tops[pl.shape].astype(np.int64))
        pl.cache["sort"] = (keys, np.argsort(keys, kind="stable"))
    return pl.cache["sort"]


class MoveList(Sequence[ClimbersMove]):
    """The moves of a block table (`BlockTable`) in sort order, built on demand."""

    __slots__ = ("_table", "_ids", "_rank", "_keys", "_source", "_extra", "_built")

    def __init__(self, table: BlockTable, ids: list[str]) -> None:
        pl = table.placements
        self._table = table
        self._ids = ids
        self._rank = {b: r for r, b in enumerate(sorted(ids))}
        keys_all, order_all = _sorted_keys(pl, ids, self._rank)
        rows = table.rows
        chosen = np.zeros(len(pl), dtype=bool)
        chosen[rows] = True
        sources = order_all[chosen[order_all]]  # the table's rows in sort order, without sorting again
        keys = keys_all[sources]
        # the sort key's order: block, cell, extents, top colour, then the pushes
        extra = sorted((int(keys_all[r]), m.pushes, m) for m, r in zip(table.extra, table.extra_rows, strict=True))
        self._extra = [m for _, _, m in extra]
        where = sources.astype(np.int64)
        if extra:
            more = np.array([key + 1 + j for j, (key, _, _) in enumerate(extra)], dtype=np.int64)
            keys = np.concatenate([keys, more])
            # where each position comes from: a row of the table (>= 0) or an extra move (-1 - its index)
            where = np.concatenate([where, -1 - np.arange(len(extra), dtype=np.int64)])
            merged = np.argsort(keys, kind="stable")
            keys, where = keys[merged], where[merged]
        self._keys = keys
        # an array, not a list: 236,496 Python ints (a 200-cube start) took 27 MiB of small objects, which the
        # allocator kept after they were freed
        self._source: np.ndarray = where
        self._built: dict[int, ClimbersMove] = {}  # the moves read so far, by position

    def _key(self, move: ClimbersMove) -> int:
        size, cell = move.size, move.cell
        return int(_prefix(self._rank[move.block], cell[0], cell[1], cell[2], size[0], size[1], size[2],  # type: ignore[index]
                           move.top))

    def _build(self, k: int) -> ClimbersMove:
        move = self._built.get(k)
        if move is None:
            src = int(self._source[k])
            move = row_move(self._table.placements, self._ids, src) if src >= 0 else self._extra[-1 - src]
            self._built[k] = move
        return move

    def blocks(self) -> list[str]:
        """The ids of the blocks that have a move here, sorted: read off the sort keys, no move is built (a
        position may have hundreds of thousands)."""
        shift = sum(bits for _, bits in _FIELDS) + _PUSH_BITS
        names = sorted(self._ids)
        return [names[int(r)] for r in np.unique(self._keys >> shift)]

    def of_block(self, block: str) -> list[ClimbersMove]:
        """The moves of one block, in order: the range of its rank in the sort keys, so that only its own moves
        are built (a position may have hundreds of thousands, a block a few thousand)."""
        rank = self._rank.get(block)
        if rank is None:
            return []
        shift = sum(bits for _, bits in _FIELDS) + _PUSH_BITS
        lo, hi = np.searchsorted(self._keys, [rank << shift, (rank + 1) << shift])
        return [self._build(k) for k in range(int(lo), int(hi))]

    # --- the list protocol -----------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._source)

    @overload
    def __getitem__(self, k: int) -> ClimbersMove: ...

    @overload
    def __getitem__(self, k: slice) -> list[ClimbersMove]: ...

    def __getitem__(self, k: int | slice) -> ClimbersMove | list[ClimbersMove]:
        if isinstance(k, slice):
            return [self._build(j) for j in range(*k.indices(len(self)))]
        n = len(self._source)
        if not -n <= k < n:
            raise IndexError("move index out of range")
        return self._build(k % n)

    def __iter__(self) -> Iterator[ClimbersMove]:
        return (self._build(k) for k in range(len(self._source)))

    def index(self, move: Any, start: int = 0, stop: int | None = None) -> int:
        k = self._find(move)
        if k is None or k < start or (stop is not None and k >= stop):
            raise ValueError(f"{move} is not in the list")
        return k

    def __contains__(self, move: object) -> bool:
        return self._find(move) is not None

    def count(self, move: Any) -> int:
        return int(move in self)

    def _find(self, move: object) -> int | None:
        """The position of `move`, by a binary search over the keys."""
        if (not isinstance(move, ClimbersMove) or move.kind != "block" or move.block not in self._rank
                or move.top is None or not isinstance(move.cell, tuple) or not isinstance(move.size, tuple)
                or len(move.cell) != 3 or len(move.size) != 3):
            return None
        values = (*move.cell, *move.size, move.top)
        if any(not 0 <= v < 1 << bits for v, (_, bits) in zip(values, _FIELDS, strict=True)):
            return None
        key = self._key(move)
        # the move that pushes nobody has the key itself; the extra moves (pushing, or overhanging) follow it
        lo, hi = np.searchsorted(self._keys, [key, key + (1 << _PUSH_BITS)])
        return next((k for k in range(int(lo), int(hi)) if self._build(k) == move), None)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MoveList) and other._ids == self._ids:
            return bool(np.array_equal(self._keys, other._keys)) and self._extra == other._extra
        if not isinstance(other, Sequence) or isinstance(other, str) or len(other) != len(self):
            return False if isinstance(other, Sequence) else NotImplemented
        return all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # like a list

    def __add__(self, other: Sequence[Any]) -> list[Any]:
        return list(self) + list(other)

    def __radd__(self, other: Sequence[Any]) -> list[Any]:
        return list(other) + list(self)

    def __repr__(self) -> str:
        head = ", ".join(str(m) for m in self[:3])
        return f"<MoveList of {len(self)} block moves: {head}{', ...' if len(self) > 3 else ''}>"

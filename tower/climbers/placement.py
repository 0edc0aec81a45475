"""Where a block of a given footprint can go on a height map, for every position at once (numpy).

In a strictly legal build every column is solid from the table up (no holes, no overhangs), so the height map
alone tells where a block can rest: all columns under its footprint at one height (full support), and, on the
table, a side face touching the construction (the contact rule). Computed with sliding windows over the whole
map instead of a loop over positions: this is the hot path of move generation.

Every function works on the last two axes, so a stack of height maps (one per block lifted out, say) is
handled in one call: `heights` may be (nx, ny) or (..., nx, ny).
"""

from __future__ import annotations

import numpy as np


def _run(a: np.ndarray, n: int, axis: int, op) -> np.ndarray:
    """op-reduction over every run of n consecutive entries along `axis` (0: the x axis, 1: the y axis of the
    last two axes; separable, a few slice ops)."""
    length = a.shape[axis - 2] - n + 1
    take = (lambda k: a[..., k:k + length, :]) if axis == 0 else (lambda k: a[..., k:k + length])
    out = take(0)
    for k in range(1, n):
        out = op(out, take(k))
    return out


def window_max(a: np.ndarray, sx: int, sy: int) -> np.ndarray:
    """Max of `a` over every sx x sy window (index = the window's minimum corner)."""
    return _run(_run(a, sx, 0, np.maximum), sy, 1, np.maximum)


def window_max_min(heights: np.ndarray, sx: int, sy: int) -> tuple[np.ndarray, np.ndarray]:
    """Max and min of `heights` over every sx x sy window (index = the window's minimum corner)."""
    return window_max(heights, sx, sy), _run(_run(heights, sx, 0, np.minimum), sy, 1, np.minimum)


def side_contact(heights: np.ndarray, sx: int, sy: int, z: np.ndarray, sz: int) -> np.ndarray:
    """True where a block of footprint sx x sy resting at height z shares side-face area with a column.

    A neighbouring column of height h is solid over [0, h), so it touches the block's side (z .. z+sz) when
    h > z. Only needed for blocks on the table: a block resting on blocks touches them with its bottom face.
    """
    *lead, nx, ny = heights.shape
    pad = np.zeros((*lead, nx + 2, ny + 2), dtype=heights.dtype)
    pad[..., 1:-1, 1:-1] = heights
    wx, wy = nx - sx + 1, ny - sy + 1
    col = _run(pad, sy, 1, np.maximum)  # max over a y-run of sy, shape (nx+2, ny+3-sy)
    row = _run(pad, sx, 0, np.maximum)  # max over an x-run of sx
    left = col[..., 0:wx, 1:1 + wy]
    right = col[..., sx + 1:sx + 1 + wx, 1:1 + wy]
    front = row[..., 1:1 + wx, 0:wy]
    back = row[..., 1:1 + wx, sy + 1:sy + 1 + wy]
    best = np.maximum(np.maximum(left, right), np.maximum(front, back))
    return best > z


def resting_positions(heights: np.ndarray, size: tuple[int, int, int], z_max: int,
                      maxmin: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Boolean map over window corners: a block of `size` can rest there (full support, contact, in bounds).

    The resting height of each position is `window_max_min(heights, sx, sy)[0]`.
    """
    sx, sy, sz = size
    hi, lo = window_max_min(heights, sx, sy) if maxmin is None else maxmin
    ok = (hi == lo) & (hi + sz <= z_max)
    on_table = hi == 0
    if on_table.any():
        ok &= ~on_table | side_contact(heights, sx, sy, hi, sz)
    return ok


def window_or(a: np.ndarray, sx: int, sy: int) -> np.ndarray:
    """Bitwise or of an integer array over every sx x sy window (index = the window's minimum corner)."""
    return _run(_run(a, sx, 0, np.bitwise_or), sy, 1, np.bitwise_or)

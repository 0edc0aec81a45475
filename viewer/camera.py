"""Camera fitting: the closest view along a direction that keeps a set of points inside a window rectangle."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fit_view(points: np.ndarray, direction: Sequence[float], up: Sequence[float], view_angle: float, aspect: float,
             rect: tuple[float, float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Camera position and focal point looking along -`direction` that bring `points` as close as possible while
    all of them project inside `rect` = (x0, x1, y0, y1) in normalised window coordinates (-1..1).

    For a fixed viewing direction the constraints are linear in the camera's distance D and its sideways shift
    (t): x_i - t must lie within [x0, x1] * tan(half angle) * (D - depth_i). The smallest feasible D and the
    middle of the feasible shifts follow in closed form, per axis.
    """
    d = np.asarray(direction, dtype=float)
    d /= np.linalg.norm(d)
    right = np.cross(-d, np.asarray(up, dtype=float))
    right /= np.linalg.norm(right)
    true_up = np.cross(right, -d)
    centre = (points.min(axis=0) + points.max(axis=0)) / 2
    v = points - centre
    w = v @ d  # towards the camera
    tan_v = np.tan(np.radians(view_angle) / 2)
    x0, x1, y0, y1 = rect
    dist, shifts = [], []
    for coord, lo, hi in ((v @ right, x0 * tan_v * aspect, x1 * tan_v * aspect), (v @ true_up, y0 * tan_v, y1 * tan_v)):
        upper, lower = coord + hi * w, coord + lo * w
        dist.append((upper.max() - lower.min()) / (hi - lo))
        shifts.append((upper, lower, lo, hi))
    D = max(*dist, float(w.max()) + 1.0)
    t = [((upper - hi * D).max() + (lower - lo * D).min()) / 2 for upper, lower, lo, hi in shifts]
    focal = centre + t[0] * right + t[1] * true_up
    return focal + D * d, focal

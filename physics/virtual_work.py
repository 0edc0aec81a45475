"""Exact quick test by virtual work: boxes that must fall, found without an LP."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from physics.contacts import Contact
from physics.model import Box


def quick_fall(boxes: Sequence[Box], contacts: Sequence[Contact], inset: float,
               only: int | None = None) -> bool:
    """Exact quick test by virtual work, for boxes with nothing resting on them: True when one must fall.

    Tip such a box about the edge of its support hull (the bottom contacts, shrunk by the inset) nearest to its
    centre, towards its centre. Points of its bottom face move straight up or down, so friction there does no
    work; a side contact (frictionless) resists only if that face looks along the tipping direction. With the
    centre off the hull and no such face touched, gravity does positive work in a motion nothing resists: no
    equilibrium exists. Anything else is left to the LP.
    """
    on_top = {c.a for c in contacts if c.axis == 2}
    under: dict[int, list[tuple[float, float, float, float]]] = {}
    faces: dict[int, list[tuple[int, float]]] = {}  # box -> (axis, sign of the touching face's outward normal)
    for c in contacts:
        if c.axis == 2:
            under.setdefault(c.b, []).append(c.rect)
        else:
            faces.setdefault(c.a, []).append((c.axis, 1.0))
            faces.setdefault(c.b, []).append((c.axis, -1.0))
    for i, b in enumerate(boxes):
        if i in on_top or (only is not None and i != only):
            continue
        rects = under.get(i)
        if not rects:
            return True  # nothing under it and nothing on it: frictionless sides carry no weight
        cx, cy = b.centre[0], b.centre[1]
        if any(x0 + inset <= cx <= x1 - inset and y0 + inset <= cy <= y1 - inset for x0, x1, y0, y1 in rects):
            continue  # over one contact: the common case, no hull needed
        pts = np.array([(x, y) for x0, x1, y0, y1 in rects
                        for x in (x0 + inset, x1 - inset) for y in (y0 + inset, y1 - inset)])
        c = np.array((cx, cy))
        near = nearest_on_hull(pts, c)
        if near is None:
            continue  # centre over the hull
        n = c - near
        if not any(sign * n[axis] > 1e-12 for axis, sign in faces.get(i, ())):
            return True
    return False


def nearest_on_hull(pts: np.ndarray, p: np.ndarray) -> np.ndarray | None:
    """The point of the convex hull of the 2-D points nearest to p, or None when p lies in the hull."""
    # the distinct points in lexicographic order, as np.unique(..., axis=0) gives them (which would import numpy.ma,
    # ~17 ms, on its first call in a process)
    pts = np.array(sorted(set(map(tuple, pts.round(12).tolist()))))

    def cross(o, a, b) -> float:
        return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))

    hull: list[np.ndarray] = []  # Andrew's monotone chain, counter-clockwise
    for seq in (pts, pts[::-1]):
        start = len(hull)
        for q in seq:
            while len(hull) >= start + 2 and cross(hull[-2], hull[-1], q) <= 0:
                hull.pop()
            hull.append(q)
        hull.pop()
    if len(hull) >= 3 and all(cross(hull[k], hull[(k + 1) % len(hull)], p) >= -1e-15 for k in range(len(hull))):
        return None
    best, best_d = hull[0], math.inf
    for k in range(len(hull)):
        a, b = hull[k], hull[(k + 1) % len(hull)]
        ab = b - a
        t = 0.0 if not ab.any() else min(1.0, max(0.0, float((p - a) @ ab / (ab @ ab))))
        q = a + t * ab
        d = float(np.hypot(*(p - q)))
        if d < best_d:
            best, best_d = q, d
    return None if best_d < 1e-12 else best  # on a degenerate hull's segment: left to the LP

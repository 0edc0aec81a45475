"""The weakest-direction search of the tilt margin over ray lengths, with certified bounds.

The loads l = lambda * d a build survives form a convex set C in the plane. The margin is the radius of the
largest disc around 0 inside C: the minimum over directions of the ray length r(d). The ray ends p_k lie in C,
so the triangle (0, p_k, p_k+1) does too and the margin in that sector is at least the distance from 0 to the
chord (lower bound); the smallest ray is an upper bound. The sector with the lowest bound is refined at the
chord's nearest point (exact in one step on a polygon edge) until the bounds meet.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: The weakest-direction search stops when its certified lower and upper bounds on the margin are this close
#: (degrees); far below the 1-degree band that separates `stable` from `marginal`.
TILT_TOL_DEG = 0.05
#: At most this many ray LPs (8 initial + refinements): each costs ~3-5 ms for 35 blocks. Polygonal (tipping)
#: limits certify within the first 8-10; curved ones (whole-build sliding) stop here with their bounds reported.
MAX_RAY_LPS = 12


def segment_distance(p: np.ndarray, q: np.ndarray) -> tuple[float, np.ndarray]:
    """Distance from the origin to segment pq and the nearest point."""
    d = q - p
    dd = float(d @ d)
    t = 0.0 if dd == 0 else min(1.0, max(0.0, -float(p @ d) / dd))
    x = p + t * d
    return float(math.hypot(*x)), x


def deg(lam: float) -> float:
    """A load multiplier as a tilt angle (degrees)."""
    return math.degrees(math.atan(lam))


@dataclass(frozen=True)
class Margin:
    """The search's answer in load multipliers: the smallest ray found (`upper`, along `phi`), the certified
    lower bound and the number of ray LPs, initial ones included."""

    upper: float
    phi: float
    lower: float
    lps: int

    @property
    def bounds_deg(self) -> tuple[float, float]:
        return deg(self.lower), deg(self.upper)


def search(rays: dict[float, float], ray: Callable[[float], float | None], lps: int) -> Margin:
    """Refine the weakest direction from the initial `rays` (direction -> ray length, all >= -STABLE_TOL) until the
    bounds meet within TILT_TOL_DEG or MAX_RAY_LPS rays were solved. `ray(phi)` solves one more (None: no
    equilibrium along phi, counted as 0); `rays` receives every ray solved."""
    while True:
        phis = sorted(rays)
        pts = [np.array([math.cos(p), math.sin(p)]) * max(rays[p], 0.0) for p in phis]
        upper_phi = min(phis, key=lambda p: rays[p])
        upper = max(rays[upper_phi], 0.0)
        lower, x, i = math.inf, None, 0
        for j in range(len(phis)):
            dist, near = segment_distance(pts[j], pts[(j + 1) % len(phis)])
            if dist < lower:
                lower, x, i = dist, near, j
        if deg(upper) - deg(lower) <= TILT_TOL_DEG or lps >= MAX_RAY_LPS:
            return Margin(upper, upper_phi, lower, lps)
        a, b = phis[i], phis[(i + 1) % len(phis)]
        if b <= a:
            b += 2 * math.pi
        cand = math.atan2(x[1], x[0]) % (2 * math.pi)
        if not 1e-6 < (cand - a) % (2 * math.pi) < (b - a) - 1e-6:  # nearest point at a corner: bisect
            cand = ((a + b) / 2) % (2 * math.pi)
        r = ray(cand)
        lps += 1
        rays[cand] = r if r is not None else 0.0

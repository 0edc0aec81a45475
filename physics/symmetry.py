"""Mirror and half-turn symmetries of a build, and what they say about its tilt rays.

A build that is its own mirror image across a vertical plane (walls, pyramids, arches, columns: most things people
build on purpose) survives a tilt towards d exactly as it survives the mirrored tilt: the mirrored force
distribution balances the mirrored build, which is the build. The friction pyramids map onto themselves too (the
judge turns them by 0 or 45 degrees; both are symmetric under the mirrors x -> -x and y -> -y and the half turn).
So a ray r(d) of a symmetric build is an exact copy of the ray of its image direction, with the failure mode (the
virtual velocities, the LP's duals) carried over block by block. The judge solves one ray per orbit of directions:
3 LPs of the 8 initial ones for a build with both mirrors, 5 with one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from physics.model import Box

#: Positions and sizes are compared in units of this (metres): far below any real gap, far above rounding.
QUANTUM_M = 1e-7
#: Masses are compared to this fraction.
MASS_QUANTUM = 1e-9


@dataclass(frozen=True)
class Symmetry:
    """One symmetry of a build: `name` ("mirror x", "mirror y", "half turn"), the image of box i is box
    perm[i], and the signs the six equilibrium rows of a box (force x y z, moment x y z) take under it."""

    name: str
    flip: tuple[bool, bool]  # which horizontal coordinates change sign
    perm: np.ndarray

    @property
    def signs(self) -> np.ndarray:
        fx, fy = (-1.0 if f else 1.0 for f in self.flip)
        det = fx * fy  # moments are pseudo-vectors: they take the determinant along
        return np.array([fx, fy, 1.0, det * fx, det * fy, det])

    def angle(self, phi: float) -> float:
        """The image of the load direction phi, in [0, 2 pi)."""
        x, y = math.cos(phi), math.sin(phi)
        return math.atan2(-y if self.flip[1] else y, -x if self.flip[0] else x) % (2 * math.pi)

    def duals(self, duals: np.ndarray | None) -> np.ndarray | None:
        """The equilibrium rows' duals (6 per box, then any others, left as they are) of the image failure mode."""
        if duals is None:
            return None
        n = len(self.perm)
        out = duals.copy()
        out[(6 * self.perm[:, None] + np.arange(6)).ravel()] = (duals[:6 * n].reshape(n, 6) * self.signs).ravel()
        return out


def symmetries(boxes: Sequence[Box]) -> list[Symmetry]:
    """The mirror symmetries across the vertical planes through the build's centre along y and x, and the half
    turn about its vertical axis, that map every box onto a box of the same size and mass."""
    if not boxes:
        return []
    lo = np.array([b.lo for b in boxes], dtype=float)
    size = np.array([b.size for b in boxes], dtype=float)
    mass = np.array([b.mass for b in boxes], dtype=float)
    mid = (lo[:, :2].min(axis=0) + (lo + size)[:, :2].max(axis=0)) / 2
    rest = np.column_stack([np.round(size / QUANTUM_M), np.round(mass / mass.mean() / MASS_QUANTUM)])

    def keys(lo_: np.ndarray) -> list[tuple]:
        return list(map(tuple, np.column_stack([np.round(lo_ / QUANTUM_M), rest]).astype(np.int64).tolist()))

    index = {k: i for i, k in enumerate(keys(lo))}
    if len(index) < len(boxes):
        return []  # two boxes in one place: not a build this can reason about
    out = []
    for name, flip in (("mirror x", (True, False)), ("mirror y", (False, True)), ("half turn", (True, True))):
        image = lo.copy()
        for axis in (0, 1):
            if flip[axis]:
                image[:, axis] = 2 * mid[axis] - lo[:, axis] - size[:, axis]
        perm = [index.get(k) for k in keys(image)]
        if None not in perm:
            out.append(Symmetry(name, flip, np.array(perm, dtype=np.int64)))
    return out


def orbit_representatives(phis: Sequence[float], group: Sequence[Symmetry]) -> dict[float, tuple[float, Symmetry]]:
    """For the directions `phis` (in order): the ones that are images of an earlier direction under a symmetry,
    each with (that earlier direction, the symmetry). The others are the ones to solve."""
    derived: dict[float, tuple[float, Symmetry]] = {}
    solved: list[float] = []
    for phi in phis:
        for psi in solved:
            g = next((g for g in group if _same_angle(g.angle(psi), phi)), None)
            if g is not None:
                derived[phi] = (psi, g)
                break
        else:
            solved.append(phi)
    return derived


def _same_angle(a: float, b: float) -> bool:
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi) < 1e-9

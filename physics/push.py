"""Push test: the smallest horizontal force at the middle of one block's face that makes the build fail.

One LP over the explicit contact forces of physics.equilibrium: maximise the push P (newtons) applied at the
centre of the block's face, horizontally along the push direction, such that every block is still in equilibrium
with compression-only contacts and friction inside the cone. The optimum is the push at which the last
equilibrium disappears: exact for the statics model (rigid blocks, the judge's contacts and inset), with the
friction octagon exact along the axes, so sliding along an axis push is exact. The LP's duals at the optimum
are the blocks' virtual velocities in the failure mode: the blocks that move first. Whether the failure is
tipping or sliding is told by a second LP with unlimited friction: if that one holds a larger push, friction
gave way first (slide), otherwise the blocks tip.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from physics.equilibrium import EquilibriumSystem
from physics.model import Box
from physics.statics import COM_INSET_M
from physics.units import DEFAULT_MU

#: The push directions by name: where the pushing hand moves (a push "+x" presses on the block's -x face).
DIRECTIONS: dict[str, tuple[float, float]] = {"+x": (1.0, 0.0), "-x": (-1.0, 0.0), "+y": (0.0, 1.0),
                                              "-y": (0.0, -1.0)}
#: Pushes are searched up to this many times the mean block weight (a push no real build survives).
PUSH_CAP = 1000.0
#: The push with unlimited friction must exceed the real one by this fraction to call the failure a slide.
SLIDE_REL = 1e-6


@dataclass(frozen=True)
class PushResult:
    """The push test's answer. `force_n` is the smallest push that fails the build (0 when it falls anyway).

    mode: "tip" (blocks rotate about an edge), "slide" (friction gives way first), "falls" (it does not stand
    without a push) or "holds" (no failure up to PUSH_CAP mean weights). `moves_first`: the blocks of the failure
    mode, fastest first. `point`: where the push acts (metres), `direction` its unit vector.
    """

    block: str
    direction: str
    force_n: float
    mode: str
    moves_first: tuple[str, ...]
    point: tuple[float, float, float]
    vector: tuple[float, float]
    tip_force_n: float
    ms: float = 0.0

    def to_json(self) -> dict:
        return {"block": self.block, "direction": self.direction, "force_n": round(self.force_n, 6),
                "mode": self.mode, "moves_first": list(self.moves_first),
                "point": [round(v, 6) for v in self.point], "vector": list(self.vector),
                "tip_force_n": round(self.tip_force_n, 6) if math.isfinite(self.tip_force_n) else None,
                "ms": round(self.ms, 1)}


def parse_direction(direction: str | Sequence[float]) -> tuple[str, tuple[float, float]]:
    """A push direction by name (DIRECTIONS) or as a horizontal vector; ValueError names what is wrong."""
    if isinstance(direction, str):
        if direction not in DIRECTIONS:
            raise ValueError(f"push direction {direction!r}: use one of {', '.join(DIRECTIONS)}")
        return direction, DIRECTIONS[direction]
    dx, dy = (float(v) for v in direction)
    norm = math.hypot(dx, dy)
    if not norm or not math.isfinite(norm):
        raise ValueError(f"push direction {tuple(direction)}: needs a nonzero horizontal vector")
    return f"({dx / norm:.3f}, {dy / norm:.3f})", (dx / norm, dy / norm)


def face_point(box: Box, d: tuple[float, float]) -> tuple[float, float, float]:
    """The centre of the face a push along d presses on: the face looking against d (for a slanted d, the point
    of the box's mid-height outline where the line through its centre along -d leaves it)."""
    cx, cy, cz = box.centre
    hx, hy = box.size[0] / 2, box.size[1] / 2
    s = min(hx / abs(d[0]) if d[0] else math.inf, hy / abs(d[1]) if d[1] else math.inf)
    return (cx - s * d[0], cy - s * d[1], cz)


def push_margin(boxes: Sequence[Box], block: str, direction: str | Sequence[float] = "+x",
                mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M) -> PushResult:
    """The smallest horizontal push (newtons) on `block`'s face centre along `direction` that fails the build."""
    t0 = time.perf_counter()
    boxes = list(boxes)
    index = next((k for k, b in enumerate(boxes) if b.id == block), None)
    if index is None:
        raise KeyError(f"no box with id {block!r}")
    name, d = parse_direction(direction)
    point = face_point(boxes[index], d)
    sys_ = EquilibriumSystem(boxes, mu, com_inset)
    load = sys_.point_load(index, point, (d[0], d[1], 0.0))
    cost = np.zeros(sys_.ncol + 1)
    cost[-1] = -1.0  # maximise the push
    unit = sys_.unit_force_n

    def solve(friction: bool) -> tuple[float | None, np.ndarray | None]:
        sol = sys_.solve([load], cost, friction=friction, extra_bounds=[(0.0, PUSH_CAP)])
        return (None, None) if sol.x is None else (float(sol.x[-1]), sol.duals)

    lam, duals = solve(True)
    if lam is None:  # no equilibrium even without a push
        return PushResult(block, name, 0.0, "falls", (), point, d, 0.0, (time.perf_counter() - t0) * 1000)
    tip, tip_duals = solve(False)
    tip = math.inf if tip is None or tip >= PUSH_CAP * (1 - 1e-9) else tip
    if lam >= PUSH_CAP * (1 - 1e-9):
        mode = "holds"
    elif tip > lam * (1 + SLIDE_REL) + 1e-12:
        mode = "slide"
    else:
        mode = "tip"
    return PushResult(block, name, lam * unit, mode, sys_.moving(duals), point, d, tip * unit,
                      (time.perf_counter() - t0) * 1000)


def push_all(boxes: Sequence[Box], block: str, directions: Sequence[str] = tuple(DIRECTIONS),
             mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M) -> list[PushResult]:
    """push_margin in each named direction, weakest first."""
    out = [push_margin(boxes, block, d, mu, com_inset) for d in directions]
    return sorted(out, key=lambda r: r.force_n)

"""Units and materials: grid units to metres, wood to kilograms.

The Climbers' blocks live on a 2 cm grid (a cube is 2x2x2 units = 4 cm); the physics works in SI units.
"""

from __future__ import annotations

from collections.abc import Sequence

from physics.model import Box

#: One grid unit in metres (the game's cube has a 4 cm edge = 2 units).
UNIT_M = 0.02
#: Beech/maple toy blocks: 0.7 g/cm3 = 700 kg/m3.
WOOD_DENSITY = 700.0
#: Wood on wood, dry: handbook static friction 0.25-0.6; 0.5 is the usual middle value.
DEFAULT_MU = 0.5
#: A small turned wooden figure, about 1.2 x 1.2 x 2.5 cm of wood at 0.7 g/cm3 = 2.5 g.
FIGURE_MASS_KG = 0.0025
#: Standard gravity, m/s2.
GRAVITY = 9.81


def grid_box(id: str, origin: Sequence[int], size: Sequence[int], density: float = WOOD_DENSITY) -> Box:
    """A box from integer grid units (min corner `origin`, extents `size`) with its mass from `density`."""
    lo = tuple(float(o) * UNIT_M for o in origin)
    sz = tuple(float(s) * UNIT_M for s in size)
    mass = density * sz[0] * sz[1] * sz[2]
    return Box(str(id), lo, sz, mass)  # type: ignore[arg-type]

"""Reproducible test builds in grid units: columns, packed start-like towers, random stacks with overhangs."""

from __future__ import annotations

import random

import numpy as np

from physics.model import Box
from physics.units import grid_box

#: The Climbers' coloured blocks (grid units, before rotation) and how many of each a start tower uses.
HALF_CUBE, CUBE, DOUBLE_CUBE, GREY = (2, 2, 1), (2, 2, 2), (2, 2, 4), (2, 2, 6)
START_COUNTS = ((DOUBLE_CUBE, 9), (CUBE, 12), (HALF_CUBE, 12))
#: Footprint of the packed tower (grid cells) around the two greys; 10 x 8 cells hold the 33 blocks ~4 units high.
PACK_AREA = (10, 8)
#: Random spots tried per block by a careful random builder.
CANDIDATES = 6


def orientations(size: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """The distinct axis-aligned rotations of a block's extents."""
    a, b, c = size
    return sorted({(a, b, c), (a, c, b), (b, a, c), (b, c, a), (c, a, b), (c, b, a)})


def column(n: int, edge: int = 2) -> list[Box]:
    """A perfectly aligned column of n cubes (edge in grid units) on the table."""
    return [grid_box(f"c{i}", (0, 0, edge * i), (edge, edge, edge)) for i in range(n)]


def packed_tower(seed: int = 0) -> list[Box]:
    """A realistic 35-block tower: two grey 2x2x6 blocks upright side by side in the middle and the 33 coloured
    blocks (12 half cubes, 12 cubes, 9 double cubes, any rotation) packed lowest-first around them, every block
    fully supported (its whole footprint on one flat level)."""
    rng = random.Random(seed)
    w, d = PACK_AREA
    height = np.zeros((w, d), dtype=int)
    gx, gy = w // 2 - 2, d // 2 - 1
    boxes = [grid_box("g1", (gx, gy, 0), GREY), grid_box("g2", (gx + 2, gy, 0), GREY)]
    height[gx:gx + 4, gy:gy + 2] = 6
    kinds = [(size, prefix) for (size, count), prefix in zip(START_COUNTS, "dch", strict=True) for _ in range(count)]
    counters = {"d": 0, "c": 0, "h": 0}
    for size, prefix in kinds:  # big blocks low, half cubes high
        options = []
        for sx, sy, sz in orientations(size):
            for x in range(w - sx + 1):
                for y in range(d - sy + 1):
                    patch = height[x:x + sx, y:y + sy]
                    z = int(patch.max())
                    if patch.min() == z:  # flat: full support
                        options.append((z + sz, z, rng.random(), x, y, (sx, sy, sz)))
        if not options:
            raise RuntimeError(f"packed_tower({seed}): no flat place left")
        top, z, _, x, y, s = min(options)
        counters[prefix] += 1
        boxes.append(grid_box(f"{prefix}{counters[prefix]}", (x, y, z), s))
        height[x:x + s[0], y:y + s[1]] = top
    return boxes


def random_build(rng: random.Random, n: int, area: int = 6, care: float | None = None) -> list[Box]:
    """n game blocks in random rotations dropped on an (area + 4)^2 patch: each comes to rest on the highest cells
    under its footprint, so overhangs, bridges over holes and side contacts all occur.

    `care` (drawn per build when None) is the chance that a block goes to the best-supported of CANDIDATES random
    spots rather than the first: careless builds mostly fall, careful ones mostly stand, mixed ones are in between.
    """
    care = 1 - rng.random() ** 3 if care is None else care  # skewed careful: about half the builds stand
    kinds = [HALF_CUBE, CUBE, DOUBLE_CUBE, GREY]
    weights = [12, 12, 9, 2]
    side = area + 4
    height = np.zeros((side, side), dtype=int)
    boxes = []
    for i in range(n):
        options = []
        for _ in range(CANDIDATES):
            sx, sy, sz = rng.choice(orientations(rng.choices(kinds, weights)[0]))
            x, y = rng.randrange(0, side - sx + 1), rng.randrange(0, side - sy + 1)
            patch = height[x:x + sx, y:y + sy]
            z = int(patch.max())
            options.append((-float((patch == z).mean()), z, x, y, (sx, sy, sz)))
        _, z, x, y, s = min(options) if rng.random() < care else options[0]
        boxes.append(grid_box(f"b{i}", (x, y, z), s))
        height[x:x + s[0], y:y + s[1]] = z + s[2]
    return boxes

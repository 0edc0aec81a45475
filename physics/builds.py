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


# -- interlocked builds: blocks bonded across courses, so the build cannot be split into independent pieces --

def running_bond_wall(courses: int, length: int | None = None, depth: int = 1) -> list[Box]:
    """A wall of doubles laid flat (4 x 2 x 2 grid units), each course shifted by half a block: `length` blocks in
    the long courses (default: `courses`), one fewer in the short ones, `depth` blocks deep (y). The top course is
    a short one whatever the number of courses (with an odd number the bottom course is short too): a long course's
    end blocks rest on only their inner half, centre exactly over the edge below, and stand only with the course
    above pressing that half down; on top they would fall (issue 43). A single course is a long one on the table."""
    length = courses if length is None else length
    out = []
    for z in range(courses):
        short = int(courses > 1 and (courses - 1 - z) % 2 == 0)
        for y in range(depth):
            out += [grid_box(f"w{z}_{y}_{i}", (2 * short + 4 * i, 2 * y, 2 * z), (4, 2, 2))
                    for i in range(length - short)]
    return out


def brick_pyramid(courses: int) -> list[Box]:
    """Doubles laid flat, each course one block shorter than the one below and centred on it (courses ... 1)."""
    return [grid_box(f"p{z}_{i}", (2 * z + 4 * i, 0, 2 * z), (4, 2, 2))
            for z in range(courses) for i in range(courses - z)]


def corbelled_arch(courses: int, pier: int = 3) -> list[Box]:
    """Two piers of doubles, `pier` blocks wide, each course stepping 1 unit (a quarter block) towards the other
    pier until the two meet after `courses` courses; a capping course of three doubles spans the joint. Each pier
    leans: its courses overhang the ones below on the inner side and bear on each other through the frictionless
    joint where they meet, under the cap."""
    out = []
    gap = 2 * courses  # between the piers at the base; 2 less per course, 0 at the top
    right0 = 4 * pier + gap
    for z in range(courses + 1):
        for i in range(pier):
            out.append(grid_box(f"L{z}_{i}", (z + 4 * i, 0, 2 * z), (4, 2, 2)))
            out.append(grid_box(f"R{z}_{i}", (right0 - z + 4 * i, 0, 2 * z), (4, 2, 2)))
    mid = 4 * pier + courses  # where the piers meet
    out += [grid_box(f"k{i}", (mid - 6 + 4 * i, 0, 2 * (courses + 1)), (4, 2, 2)) for i in range(3)]
    return out


def random_bond(rng: random.Random, n: int, hole: float | None = None) -> list[Box]:
    """n blocks (fewer if the wall closes up) in a random bonded wall of doubles: one or two blocks deep, 0.5-1.5 times as
    long (in blocks) as it is high (in courses); single walls in running bond, double ones with a course of headers
    (blocks across both leaves) every second course, so that every block rests across two or more of the course
    below; a cube closes each end of a staggered course. Every block has a full level bed. In one build of three a block is left out here and there
    (probability `hole`, 3 % when None), and the courses above leave a notch there."""
    hole = rng.choice([0.0, 0.0, 0.03]) if hole is None else hole
    depth = rng.choice([1, 2])
    side = (n / depth) ** 0.5  # about as many courses as blocks in a course
    length = rng.randint(max(3, round(side / 2)), max(4, round(1.5 * side)))
    height = np.zeros((4 * length, 2 * depth), dtype=int)
    out: list[Box] = []
    for course in range(4 * n):
        z = 2 * course
        if depth == 2 and course % 2 == 1:  # headers: along y across both leaves, every 2 units along x
            spots = [(2 * i, 0, 2, 4) for i in range(2 * length - 1)]
        else:
            odd = (course // (2 if depth == 2 else 1)) % 2
            spots = [(2 * odd + 4 * i, 2 * y, 4, 2) for y in range(depth) for i in range(length - odd)]
            if odd:  # a cube closes each end, as a half brick does
                spots += [(x, 2 * y, 2, 2) for y in range(depth) for x in (0, 4 * length - 2)]
        placed = 0
        for x, y, sx, sy in spots:
            bed = height[x:x + sx, y:y + sy]
            if bed.min() != z or bed.max() != z or rng.random() < hole:
                continue
            out.append(grid_box(f"r{len(out)}", (x, y, z), (sx, sy, 2)))
            height[x:x + sx, y:y + sy] = z + 2
            placed += 1
            if len(out) == n:
                return out
        if placed == 0:
            break
    return out

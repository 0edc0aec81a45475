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


# -- issue 44's shapes: interlocked builds that are not (all) mirror images of themselves --

def hollow_tower(courses: int, side: int = 3) -> list[Box]:
    """A hollow square tower of doubles laid flat (4 x 2 x 2 grid units), `side` blocks along each outer face
    (outer width 4 * side units). In each course two opposite faces run the whole width and the other two fit
    between them; the next course the other way round, so the corners overlap: 4 * side - 2 blocks a course (10
    for side 3: 100, 200, 400 blocks at 10, 20, 40 courses). Every block has a full level bed."""
    w = 4 * side
    out = []
    for z in range(courses):
        full = [(4 * i, y) for y in (0, w - 2) for i in range(side)]  # along x, across the whole width
        between = [(x, 2 + 4 * i) for x in (0, w - 2) for i in range(side - 1)]  # along y, between them
        if z % 2 == 0:
            spots = [((x, y), (4, 2)) for x, y in full] + [((x, y), (2, 4)) for x, y in between]
        else:  # the same course turned by 90 degrees
            spots = [((y, x), (2, 4)) for x, y in full] + [((y, x), (4, 2)) for x, y in between]
        out += [grid_box(f"t{z}_{k}", (x, y, 2 * z), (sx, sy, 2)) for k, ((x, y), (sx, sy)) in enumerate(spots)]
    return out


def flemish_wall(courses: int, periods: int) -> list[Box]:
    """A wall two leaves deep in Flemish bond: each course alternates headers (a double across both leaves, 2 units
    along the wall) and stretchers (a double along the wall in each leaf), `periods` of them and a header to end
    (6 * periods + 2 units long). Every second course is shifted by 3 units, so that its headers sit on the middle
    of the stretchers below, with a three-quarter closer (3 x 2 x 2) in each leaf at both ends. Courses x periods
    6 x 6, 8 x 8, 11 x 11: 117, 204, 379 blocks."""
    out: list[Box] = []

    def add(z: int, x: int, y: int, size: tuple[int, int, int]) -> None:
        out.append(grid_box(f"f{z}_{len(out)}", (x, y, 2 * z), size))

    for z in range(courses):
        x = 0
        if z % 2:
            for y in (0, 2):
                add(z, 0, y, (3, 2, 2))
            x = 3
        for k in range(periods if z % 2 == 0 else periods - 1):
            add(z, x + 6 * k, 0, (2, 4, 2))
            for y in (0, 2):
                add(z, x + 6 * k + 2, y, (4, 2, 2))
        end = x + 6 * (periods if z % 2 == 0 else periods - 1)
        add(z, end, 0, (2, 4, 2))
        if z % 2:
            for y in (0, 2):
                add(z, end + 2, y, (3, 2, 2))
    return out


#: A Jenga block in metres (7.5 x 2.5 x 1.5 cm), of wood at the judges' density.
JENGA_SIZE_M = (0.075, 0.025, 0.015)


def jenga_tower(levels: int, pulled: int, rng: random.Random) -> list[Box]:
    """A Jenga tower of `levels` levels of three blocks, each level across the one below, with `pulled` blocks
    taken out as players do (drawn with `rng`): never from the top level, and only where the level keeps its
    middle block or both side blocks (a level left with one side block alone would drop the level above)."""
    length, width, height = JENGA_SIZE_M
    mass = 700.0 * length * width * height
    present = [[True, True, True] for _ in range(levels)]
    for _ in range(pulled):
        options = [(z, k) for z in range(levels - 1) for k in range(3) if present[z][k]
                   and _jenga_keeps(present[z], k)]
        if not options:
            break
        z, k = rng.choice(options)
        present[z][k] = False
    out = []
    for z in range(levels):
        for k in range(3):
            if present[z][k]:
                lo = (k * width, 0.0, z * height) if z % 2 == 0 else (0.0, k * width, z * height)
                size = (width, length, height) if z % 2 == 0 else (length, width, height)
                out.append(Box(f"j{z}_{k}", lo, size, mass))
    return out


def _jenga_keeps(level: list[bool], k: int) -> bool:
    """Does the level still hold the one above once block k is pulled (its middle, or both sides, left)?"""
    left = [p and j != k for j, p in enumerate(level)]
    return left[1] or (left[0] and left[2])


def random_interlocked(rng: random.Random, n: int, width: int | None = None) -> list[Box]:
    """n blocks (fewer if the heap closes up) in a random bonded heap with no symmetry: a random footprint of 2 x 2
    cells, about `width` cells across (drawn when None), grown by a random walk; each course (2 units high) is
    tiled at random with doubles (4 x 2 x 2, along x or y), a few long blocks (6 x 2 x 2) and cubes where nothing
    else fits, and the next course keeps a random part of this one's cells (so the heap tapers, with steps and
    overhangs of the course above nowhere). Every block has a full level bed and rests on whatever tiles lay below
    it: the joints rarely line up, so the heap is one interlocked piece."""
    width = rng.randint(4, 8) if width is None else width
    cells: set[tuple[int, int]] = {(0, 0)}
    x = y = 0
    while len(cells) < width * width:
        dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        x, y = max(min(x + dx, width), -1), max(min(y + dy, width), -1)
        cells.add((x, y))
    out: list[Box] = []
    for z in range(4 * n):
        order = sorted(cells)
        rng.shuffle(order)
        free = set(cells)
        for c in order:
            if c not in free or len(out) == n:
                continue
            shapes = [[(c[0] + k, c[1]) for k in range(3)], [(c[0], c[1] + k) for k in range(3)],
                      [c, (c[0] + 1, c[1])], [c, (c[0], c[1] + 1)],
                      [c, (c[0] - 1, c[1])], [c, (c[0], c[1] - 1)]]
            rng.shuffle(shapes)
            shapes.sort(key=lambda s: (len(s) != 2, rng.random()))  # doubles mostly, long blocks now and then
            if rng.random() < 0.15:
                shapes.sort(key=len, reverse=True)
            use = next((s for s in shapes if all(p in free for p in s)), [c])
            free -= set(use)
            x0, y0 = min(p[0] for p in use), min(p[1] for p in use)
            sx, sy = 2 * (max(p[0] for p in use) - x0 + 1), 2 * (max(p[1] for p in use) - y0 + 1)
            out.append(grid_box(f"q{len(out)}", (2 * x0 + 2, 2 * y0 + 2, 2 * z), (sx, sy, 2)))
        if len(out) == n:
            break
        keep = {c for c in cells if rng.random() < 0.93}
        if not keep:
            break
        cells = keep
    return out

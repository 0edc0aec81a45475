"""Random start towers, as the setup rules describe them.

The two grey blocks stand upright side by side in the middle; all 33 coloured blocks are built around them
until no grey face shows from outside or above, every block fully supported and touching the construction.
Big blocks go low and half cubes high, as the rules suggest. A seeded greedy builder places one block at a
time where it hides the most grey (ties and taste broken by seeded noise); the rare attempt that strands a
grey face is retried with the next derived seed, so a seed always gives the same tower.
"""

from __future__ import annotations

import random

import numpy as np

from tower.climbers.blocks import (
    ALL_GREY,
    COLOUR_INDEX,
    CUBE,
    DOUBLE,
    HALF,
    PAIRS,
    TOP,
    BlockKind,
    Colouring,
    orientations,
)
from tower.climbers.build import Block, Build, parse_build
from tower.climbers.placement import resting_positions, window_max_min
from tower.games.errors import BadInput

BOARD = 24  # cells per side of the work area; the finished tower spans about 8 x 6
Z_MAX = 24
GREY_HEIGHT = 6
MAX_ATTEMPTS = 200


def random_colouring(rng: random.Random) -> Colouring:
    """A coloured block's faces: each opposite pair on its own axis, in a random order and sense."""
    pairs = list(PAIRS)
    rng.shuffle(pairs)
    faces: list[int] = []
    for a, b in pairs:
        if rng.random() < 0.5:
            a, b = b, a
        faces += [COLOUR_INDEX[a], COLOUR_INDEX[b]]
    return tuple(faces)  # type: ignore[return-value]


def _grey_needs(g0: tuple[int, int]) -> np.ndarray:
    """Voxels that must be filled for the greys to be hidden: beside every side face, and on the tops."""
    need = np.zeros((BOARD, BOARD, Z_MAX), dtype=bool)
    x0, y0 = g0
    x1, y1 = x0 + 4, y0 + 2
    need[x0 - 1, y0:y1, :GREY_HEIGHT] = True
    need[x1, y0:y1, :GREY_HEIGHT] = True
    need[x0:x1, y0 - 1, :GREY_HEIGHT] = True
    need[x0:x1, y1, :GREY_HEIGHT] = True
    need[x0:x1, y0:y1, GREY_HEIGHT] = True
    return need


def _box_sums(volume: np.ndarray, size: tuple[int, int, int]) -> np.ndarray:
    """Sum of `volume` over every box of `size` (index = min corner), via a summed-volume table."""
    s = np.zeros(tuple(n + 1 for n in volume.shape), dtype=np.int32)
    s[1:, 1:, 1:] = volume.cumsum(0).cumsum(1).cumsum(2)
    sx, sy, sz = size
    a = s[sx:, sy:, sz:]
    return (a - s[:-sx, sy:, sz:] - s[sx:, :-sy, sz:] - s[sx:, sy:, :-sz]
            + s[:-sx, :-sy, sz:] + s[:-sx, sy:, :-sz] + s[sx:, :-sy, :-sz] - s[:-sx, :-sy, :-sz])


def _attempt(rng: random.Random) -> list[Block] | None:
    g0 = (BOARD // 2 - 2, BOARD // 2 - 1)
    heights = np.zeros((BOARD, BOARD), dtype=np.int32)
    heights[g0[0]:g0[0] + 4, g0[1]:g0[1] + 2] = GREY_HEIGHT
    blocks = [Block("g1", (g0[0], g0[1], 0), (2, 2, 6), ALL_GREY), Block("g2", (g0[0] + 2, g0[1], 0), (2, 2, 6), ALL_GREY)]
    need = _grey_needs(g0)
    centre = np.array([g0[0] + 2, g0[1] + 1], dtype=float)
    pieces: list[tuple[BlockKind, str, Colouring]] = []
    for kind, prefix in ((DOUBLE, "d"), (CUBE, "c"), (HALF, "h")):
        for n in range(kind.count):
            pieces.append((kind, f"{prefix}{n + 1}", random_colouring(rng)))
    # big blocks first, a little shuffled so towers differ in more than colour
    pieces.sort(key=lambda p: (-p[0].dims[2] * p[0].dims[0] + rng.random() * 1.5))
    jitter = rng.uniform(0.3, 1.2)
    for kind, block_id, colouring in pieces:
        best: tuple[float, tuple[int, int, int], tuple[int, int, int], Colouring] | None = None
        shapes: dict[tuple[int, int, int], list[Colouring]] = {}
        for size, faces in orientations(kind.dims, colouring):
            shapes.setdefault(size, []).append(faces)
        volume = kind.dims[0] * kind.dims[1] * kind.dims[2]
        for size, options in shapes.items():
            ok = resting_positions(heights, size, Z_MAX)
            if not ok.any():
                continue
            z = window_max_min(heights, size[0], size[1])[0]
            gain = _box_sums(need, size)
            xs, ys = np.nonzero(ok)
            zs = z[xs, ys]
            gains = gain[xs, ys, zs]
            cx = xs + size[0] / 2 - centre[0]
            cy = ys + size[1] / 2 - centre[1]
            dist = np.hypot(cx, cy)
            # hide grey first; then stay compact; big blocks low, half cubes rather high
            score = (gains * 10.0 - dist * 2.0 * jitter
                     - zs * (0.4 + volume / 8.0)
                     + np.array([rng.random() for _ in range(len(xs))]) * 3.0)
            k = int(np.argmax(score))
            if best is None or score[k] > best[0]:
                best = (float(score[k]), (int(xs[k]), int(ys[k]), int(zs[k])), size, rng.choice(options))
        if best is None:
            return None
        _, origin, size, faces = best
        blocks.append(Block(block_id, origin, size, faces))
        x, y, z = origin
        heights[x:x + size[0], y:y + size[1]] = z + size[2]
        need[x:x + size[0], y:y + size[1], z:z + size[2]] = False
    if need.any():
        return None
    return blocks


def _normalised(blocks: list[Block]) -> list[Block]:
    """Shift so the tower's minimum corner is at x = y = 0; ids in a stable order."""
    mx = min(b.origin[0] for b in blocks)
    my = min(b.origin[1] for b in blocks)
    order = {"g": 0, "d": 1, "c": 2, "h": 3}
    blocks = sorted(blocks, key=lambda b: (order[b.id[0]], int(b.id[1:])))
    return [Block(b.id, (b.origin[0] - mx, b.origin[1] - my, b.origin[2]), b.size, b.faces) for b in blocks]


def random_start_tower(seed: int = 0) -> Build:
    """A legal start tower for `seed`: greys hidden, all 35 blocks used, every block supported."""
    master = random.Random(seed)
    for _ in range(MAX_ATTEMPTS):
        blocks = _attempt(random.Random(master.getrandbits(64)))
        if blocks is not None:
            return Build(_normalised(blocks))
    raise RuntimeError(f"no start tower found for seed {seed} in {MAX_ATTEMPTS} attempts")


def grey_faces_visible(build: Build) -> list[tuple[int, int, int]]:
    """Empty cells that touch a grey block's face (side or top): each is grey showing from outside."""
    from tower.climbers.grid import EMPTY, VoxelGrid

    grid = VoxelGrid(build.blocks)
    shown = []
    for b in build.blocks:
        if b.faces != ALL_GREY:
            continue
        x0, y0, x1, y1 = b.footprint()
        z0, z1 = b.origin[2], b.top
        around = [(x, y, z) for z in range(z0, z1) for x in range(x0, x1) for y in (y0 - 1, y1)]
        around += [(x, y, z) for z in range(z0, z1) for y in range(y0, y1) for x in (x0 - 1, x1)]
        around += [(x, y, z1) for x in range(x0, x1) for y in range(y0, y1)]
        shown += [c for c in around if grid.block_at(c) == EMPTY]
    return shown


def check_start_build(data: object, players: int | None) -> Build:
    """A build to start a game from (the game's `start` option), checked as the rules check a construction.

    It must be a tower-build/1 document of at least one block, legal (no overlap, every block fully supported,
    figures on free tops of their colour, grey or the table), fit the table area once its minimum corner is laid
    at the usual place, and carry no stones (they are laid during play). Its figures, if any, are where those
    players start (one figure a colour; with `players`, colours of the players in the game only). Every problem
    is a BadInput naming its JSON path inside the document.
    """
    from tower.climbers.blocks import PLAYER_COLOURS
    from tower.climbers.board import BOARD, TOWER_AT, Z_MAX
    from tower.climbers.legality import check_build

    build = parse_build(data)
    if not build.blocks:
        raise BadInput("a start build needs at least one block", "$.blocks")
    if build.stones:
        raise BadInput("a start build carries no blocking stones: they are laid during play", "$.stones")
    for v in check_build(build):
        if v.level != "error":
            continue
        where = "$"
        if v.figure is not None:
            where = f"$.figures[{next(j for j, f in enumerate(build.figures) if f.colour == v.figure)}]"
        elif v.blocks:
            where = f"$.blocks[{next(j for j, b in enumerate(build.blocks) if b.id == v.blocks[0])}]"
        raise BadInput(f"not a legal build ({v.rule}): {v.message}", where)
    x0 = min(b.origin[0] for b in build.blocks)
    y0 = min(b.origin[1] for b in build.blocks)
    for j, b in enumerate(build.blocks):
        if b.origin[0] - x0 + b.size[0] > BOARD - TOWER_AT[0] or b.origin[1] - y0 + b.size[1] > BOARD - TOWER_AT[1] \
                or b.top > Z_MAX:
            raise BadInput(f"block {b.id} does not fit the table area: a start build may span at most "
                           f"{BOARD - TOWER_AT[0]} x {BOARD - TOWER_AT[1]} cells and {Z_MAX} units high", f"$.blocks[{j}]")
    allowed = PLAYER_COLOURS[:players] if players is not None else PLAYER_COLOURS
    seen: set[str] = set()
    for j, f in enumerate(build.figures):
        if f.colour in seen:
            raise BadInput(f"a second {f.colour} figure: each player has one", f"$.figures[{j}].color")
        if f.colour not in allowed:
            raise BadInput(f"a {f.colour} figure, but {players} players are red"
                           + "".join(f", {c}" for c in allowed[1:-1]) + f" and {allowed[-1]}", f"$.figures[{j}].color")
        seen.add(f.colour)
        x, y = f.cell[0] - x0 + TOWER_AT[0], f.cell[1] - y0 + TOWER_AT[1]
        if not (0 <= x < BOARD and 0 <= y < BOARD):
            raise BadInput("the figure stands off the table area", f"$.figures[{j}].cell")
    return build


__all__ = ["random_start_tower", "grey_faces_visible", "random_colouring", "check_start_build", "TOP"]

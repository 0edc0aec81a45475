"""The Climbers' pieces: colours, block kinds, the game's inventory, rotations and face colours.

Grid units: 1 unit = 2 cm; x and y horizontal, z up. A block's `size` is its extent along x, y, z *after*
rotation. Faces are named ``+x -x +y -y +z -z``; a block's colouring is a 6-tuple of colour indices in that order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import permutations, product

COLOURS: tuple[str, ...] = ("red", "yellow", "dark-blue", "light-blue", "purple", "grey")
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}
GREY = COLOUR_INDEX["grey"]
#: The three pairs of opposite faces every coloured block has (the rule text's "Rouge/Jaune ...").
PAIRS: tuple[tuple[str, str], ...] = (("red", "yellow"), ("dark-blue", "light-blue"), ("purple", "grey"))
OPPOSITE: dict[str, str] = {a: b for a, b in PAIRS} | {b: a for a, b in PAIRS}
#: Figure, ladder and stone colours; grey faces and the table are neutral ground.
PLAYER_COLOURS: tuple[str, ...] = ("red", "yellow", "dark-blue", "light-blue", "purple")

FACES: tuple[str, ...] = ("+x", "-x", "+y", "-y", "+z", "-z")
FACE_INDEX: dict[str, int] = {f: i for i, f in enumerate(FACES)}
TOP, BOTTOM = FACE_INDEX["+z"], FACE_INDEX["-z"]

Colouring = tuple[int, int, int, int, int, int]
Size = tuple[int, int, int]


@dataclass(frozen=True)
class BlockKind:
    name: str
    dims: Size  # sorted extents in grid units
    count: int  # how many the game has
    coloured: bool


HALF = BlockKind("half-cube", (1, 2, 2), 12, True)
CUBE = BlockKind("cube", (2, 2, 2), 12, True)
DOUBLE = BlockKind("double-cube", (2, 2, 4), 9, True)
GREY_BLOCK = BlockKind("grey", (2, 2, 6), 2, False)
KINDS: tuple[BlockKind, ...] = (HALF, CUBE, DOUBLE, GREY_BLOCK)
KIND_BY_DIMS: dict[Size, BlockKind] = {k.dims: k for k in KINDS}
ALL_GREY: Colouring = (GREY,) * 6
#: Neutral default for a coloured block given without `faces` (red +x, dark-blue +y, purple +z).
DEFAULT_COLOURING: Colouring = tuple(COLOUR_INDEX[c] for c in  # type: ignore[assignment]
                                     ("red", "yellow", "dark-blue", "light-blue", "purple", "grey"))


def kind_of(size: Size) -> BlockKind | None:
    """The block kind whose extents are a permutation of `size` (None if no block has that shape)."""
    return KIND_BY_DIMS.get(tuple(sorted(size)))  # type: ignore[arg-type]


def colouring_problem(colouring: Colouring, kind: BlockKind) -> str | None:
    """Why `colouring` is impossible for a block of `kind` (None if it is fine)."""
    if not kind.coloured:
        return None if colouring == ALL_GREY else "a grey block is grey on every face"
    seen = set()
    for axis in range(3):
        a, b = COLOURS[colouring[2 * axis]], COLOURS[colouring[2 * axis + 1]]
        if OPPOSITE[a] != b:
            return f"opposite faces {FACES[2 * axis]}/{FACES[2 * axis + 1]} are {a}/{b}, not one of the pairs " \
                   "red/yellow, dark-blue/light-blue, purple/grey"
        pair = frozenset((a, b))
        if pair in seen:
            return f"the pair {a}/{b} appears twice"
        seen.add(pair)
    return None


@cache
def rotations() -> tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...]:
    """The 24 proper rotations of the grid as (perm, sign): world axis i takes body axis perm[i], sign[i]."""
    out = []
    for perm in permutations(range(3)):
        parity = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j]) % 2
        for sign in product((1, -1), repeat=3):
            det = (-1) ** parity * sign[0] * sign[1] * sign[2]
            if det == 1:
                out.append((perm, sign))
    return tuple(out)


def rotate(size: Size, colouring: Colouring, rotation: int) -> tuple[Size, Colouring]:
    """Size and face colours after rotation number `rotation` (0..23) of `rotations()`."""
    perm, sign = rotations()[rotation]
    new_size = tuple(size[perm[i]] for i in range(3))
    faces = [0] * 6
    for i in range(3):
        plus, minus = colouring[2 * perm[i]], colouring[2 * perm[i] + 1]
        faces[2 * i], faces[2 * i + 1] = (plus, minus) if sign[i] == 1 else (minus, plus)
    return new_size, tuple(faces)  # type: ignore[return-value]


@cache
def orientations(size: Size, colouring: Colouring) -> tuple[tuple[Size, Colouring], ...]:
    """Every distinct (size, colouring) a block can be turned into, in rotation order."""
    seen: dict[tuple[Size, Colouring], None] = {}
    for r in range(24):
        seen.setdefault(rotate(size, colouring, r), None)
    return tuple(seen)


@cache
def placements_shapes(size: Size, colouring: Colouring) -> tuple[tuple[Size, int, Colouring], ...]:
    """The distinct (size, top colour) a block can be placed with, each with one canonical colouring.

    Which colour faces sideways never matters to play: a block can be turned any way again when it is next
    moved, and figures only ever stand on top faces. So a placement is fully described by size and top colour.
    """
    seen: dict[tuple[Size, int], Colouring] = {}
    for new_size, faces in orientations(size, colouring):
        seen.setdefault((new_size, faces[TOP]), faces)
    return tuple((s, top, faces) for (s, top), faces in seen.items())

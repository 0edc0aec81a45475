"""The Climbers' pieces: rotations, face colourings, placement shapes and the inventory (rules: Geometry)."""

from __future__ import annotations

from itertools import permutations, product

import numpy as np
import pytest

from tower.climbers.blocks import (
    COLOUR_INDEX,
    COLOURS,
    CUBE,
    DOUBLE,
    GREY,
    GREY_BLOCK,
    HALF,
    KINDS,
    OPPOSITE,
    TOP,
    colouring_problem,
    kind_of,
    orientations,
    placements_shapes,
    rotate,
    rotations,
)

RULE_PAIRS = {frozenset(("red", "yellow")), frozenset(("dark-blue", "light-blue")), frozenset(("purple", "grey"))}


def legal_colourings() -> list[tuple[int, ...]]:
    """Every colouring the rules allow for a coloured block: each pair on its own axis, either way round."""
    pairs = [("red", "yellow"), ("dark-blue", "light-blue"), ("purple", "grey")]
    out = []
    for order in permutations(pairs):
        for flips in product((False, True), repeat=3):
            faces: list[int] = []
            for (a, b), flip in zip(order, flips, strict=True):
                faces += [COLOUR_INDEX[b], COLOUR_INDEX[a]] if flip else [COLOUR_INDEX[a], COLOUR_INDEX[b]]
            out.append(tuple(faces))
    return out


def rotation_matrix(perm, sign) -> np.ndarray:
    m = np.zeros((3, 3), dtype=int)
    for i in range(3):
        m[i, perm[i]] = sign[i]
    return m


def axis_pairs(colouring) -> list[frozenset[str]]:
    return [frozenset((COLOURS[colouring[2 * a]], COLOURS[colouring[2 * a + 1]])) for a in range(3)]


# --- rotations ---------------------------------------------------------------------------------------------

def test_there_are_exactly_the_24_proper_rotations_of_the_grid():
    mats = [rotation_matrix(p, s) for p, s in rotations()]
    assert len(mats) == 24
    assert len({m.tobytes() for m in mats}) == 24
    # independently: every signed permutation matrix with determinant +1
    expected = set()
    for perm in permutations(range(3)):
        for sign in product((1, -1), repeat=3):
            m = rotation_matrix(perm, sign)
            if round(np.linalg.det(m)) == 1:
                expected.add(m.tobytes())
    assert {m.tobytes() for m in mats} == expected


def test_rotations_form_a_group_closed_under_composition():
    mats = {rotation_matrix(p, s).tobytes() for p, s in rotations()}
    for p1, s1 in rotations():
        for p2, s2 in rotations():
            product_ = rotation_matrix(p1, s1) @ rotation_matrix(p2, s2)
            assert product_.astype(int).tobytes() in mats


@pytest.mark.parametrize("colouring", legal_colourings())
def test_every_rotation_keeps_a_coloured_blocks_opposite_faces_as_the_rule_pairs(colouring):
    for r in range(24):
        size, faces = rotate((2, 2, 4), colouring, r)
        assert sorted(size) == [2, 2, 4]
        assert set(axis_pairs(faces)) == RULE_PAIRS
        assert sorted(faces) == sorted(colouring)  # no colour appears or disappears
        assert colouring_problem(faces, DOUBLE) is None


def test_a_rotation_carries_each_axis_extent_with_the_faces_on_that_axis():
    # a box with three different extents shows where each body axis went
    size = (1, 2, 3)
    colouring = legal_colourings()[0]
    extent_of_pair = dict(zip(axis_pairs(colouring), size, strict=True))
    for r in range(24):
        new_size, faces = rotate(size, colouring, r)
        for axis, pair in enumerate(axis_pairs(faces)):
            assert new_size[axis] == extent_of_pair[pair]


def test_a_rotation_keeps_the_handedness_of_the_colouring():
    # a proper rotation maps a colouring onto 24 distinct colourings, never onto its mirror image
    colouring = legal_colourings()[0]
    images = {rotate((2, 2, 2), colouring, r)[1] for r in range(24)}
    assert len(images) == 24
    mirror = (colouring[1], colouring[0], *colouring[2:])  # swap +x/-x: a reflection
    assert mirror not in images


# --- colourings --------------------------------------------------------------------------------------------

def test_exactly_48_colourings_are_legal_for_a_coloured_block():
    accepted = {c for c in product(range(len(COLOURS)), repeat=6) if colouring_problem(c, CUBE) is None}
    assert accepted == set(legal_colourings())
    assert len(accepted) == 48


def test_a_colouring_with_non_opposite_colours_on_one_axis_is_refused():
    bad = tuple(COLOUR_INDEX[c] for c in ("red", "dark-blue", "yellow", "light-blue", "purple", "grey"))
    assert colouring_problem(bad, CUBE) is not None


def test_a_colouring_with_a_pair_twice_is_refused():
    bad = tuple(COLOUR_INDEX[c] for c in ("red", "yellow", "yellow", "red", "purple", "grey"))
    assert colouring_problem(bad, HALF) is not None


def test_a_grey_block_is_grey_on_every_face_and_nothing_else():
    assert colouring_problem((GREY,) * 6, GREY_BLOCK) is None
    for colouring in legal_colourings()[:5]:
        assert colouring_problem(colouring, GREY_BLOCK) is not None
    assert colouring_problem((GREY,) * 5 + (COLOUR_INDEX["red"],), GREY_BLOCK) is not None


def test_the_opposite_colour_relation_is_the_rule_pairs():
    assert {frozenset((a, b)) for a, b in OPPOSITE.items()} == RULE_PAIRS


# --- placement shapes and kinds ----------------------------------------------------------------------------

@pytest.mark.parametrize(("kind", "shapes"), [(CUBE, 6), (HALF, 10), (DOUBLE, 10), (GREY_BLOCK, 3)])
def test_number_of_distinct_placements_size_and_top_colour(kind, shapes):
    colourings = [(GREY,) * 6] if not kind.coloured else legal_colourings()
    for colouring in colourings:
        found = placements_shapes(kind.dims, colouring)
        assert len(found) == shapes
        assert len({(s, top) for s, top, _ in found}) == shapes
        for s, top, faces in found:
            assert sorted(s) == sorted(kind.dims)
            assert faces[TOP] == top
            assert (s, faces) in orientations(kind.dims, colouring)


def test_a_lying_half_cube_shows_only_the_pair_on_its_short_axis_on_top():
    colouring = legal_colourings()[0]  # red/yellow on x, dark-blue/light-blue on y, purple/grey on z
    tops_lying = {top for s, top, _ in placements_shapes((2, 2, 1), colouring) if s == (2, 2, 1)}
    assert tops_lying == {COLOUR_INDEX["purple"], COLOUR_INDEX["grey"]}


def test_the_inventory_is_12_half_cubes_12_cubes_9_double_cubes_2_grey_blocks():
    counts = {k.name: (tuple(sorted(k.dims)), k.count, k.coloured) for k in KINDS}
    assert counts == {
        "half-cube": ((1, 2, 2), 12, True),
        "cube": ((2, 2, 2), 12, True),
        "double-cube": ((2, 2, 4), 9, True),
        "grey": ((2, 2, 6), 2, False),
    }
    assert sum(k.count for k in KINDS) == 35


@pytest.mark.parametrize("size", [(2, 2, 1), (2, 1, 2), (1, 2, 2), (2, 2, 2), (4, 2, 2), (2, 4, 2),
                                  (2, 2, 4), (6, 2, 2), (2, 6, 2), (2, 2, 6)])
def test_every_orientation_of_a_real_block_is_recognised(size):
    kind = kind_of(size)
    assert kind is not None and sorted(kind.dims) == sorted(size)


@pytest.mark.parametrize("size", [(1, 1, 1), (2, 2, 3), (1, 2, 4), (2, 2, 0), (4, 4, 2), (2, 2, 8)])
def test_a_size_that_is_no_block_is_not_recognised(size):
    assert kind_of(size) is None

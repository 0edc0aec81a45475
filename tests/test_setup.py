"""Random start towers (rules: Setup): 200 seeds, each checked against the rules independently of the builder.

The grey blocks stand upright side by side; every coloured block is used; no grey face shows; every block rests
fully on blocks or the table and touches the construction; the same seed gives the same tower.
"""

from __future__ import annotations

import numpy as np
import pytest

from tower.climbers.blocks import ALL_GREY, COLOURS, colouring_problem, kind_of
from tower.climbers.build import Build, dumps_build
from tower.climbers.legality import check_build
from tower.climbers.setup import grey_faces_visible, random_start_tower

SEEDS = range(200)


@pytest.fixture(scope="module")
def towers() -> dict[int, Build]:
    return {seed: random_start_tower(seed) for seed in SEEDS}  # about 11 s on an idle 2-core machine


def occupancy(build: Build) -> tuple[np.ndarray, np.ndarray]:
    """Boolean voxels of the build (own code, not tower.climbers.grid) with a free margin of 1, and the world offset."""
    lo = np.min([b.origin for b in build.blocks], axis=0) - 1
    hi = np.max([np.add(b.origin, b.size) for b in build.blocks], axis=0) + 2
    occ = np.zeros(tuple(hi - lo), dtype=np.int16)
    for b in build.blocks:
        sl = tuple(slice(o - m, o - m + s) for o, m, s in zip(b.origin, lo, b.size, strict=True))
        occ[sl] += 1
    return occ, lo


def test_every_start_tower_is_legal(towers):
    for seed, build in towers.items():
        assert check_build(build) == [], seed


def test_every_start_tower_uses_the_whole_inventory(towers):
    for seed, build in towers.items():
        kinds = sorted(kind_of(b.size).name for b in build.blocks)
        assert kinds == sorted(["grey"] * 2 + ["half-cube"] * 12 + ["cube"] * 12 + ["double-cube"] * 9), seed
        assert len({b.id for b in build.blocks}) == 35, seed
        assert build.figures == [] and build.stones == [], seed


def test_every_coloured_block_has_the_rule_pairs_and_the_greys_are_grey(towers):
    for seed, build in towers.items():
        for b in build.blocks:
            assert colouring_problem(b.faces, kind_of(b.size)) is None, (seed, b.id)
            assert (b.faces == ALL_GREY) == (kind_of(b.size).name == "grey"), (seed, b.id)


def test_the_two_grey_blocks_stand_upright_side_by_side_on_the_table(towers):
    for seed, build in towers.items():
        g1, g2 = [b for b in build.blocks if b.faces == ALL_GREY]
        assert g1.size == g2.size == (2, 2, 6), seed
        assert g1.origin[2] == g2.origin[2] == 0, seed
        dx, dy = abs(g1.origin[0] - g2.origin[0]), abs(g1.origin[1] - g2.origin[1])
        assert sorted((dx, dy)) == [0, 2], seed  # face to face over a whole side


def test_no_cell_beside_a_grey_side_face_or_on_a_grey_top_is_empty(towers):
    for seed, build in towers.items():
        occ, lo = occupancy(build)
        for g in (b for b in build.blocks if b.faces == ALL_GREY):
            x0, y0, z0 = np.subtract(g.origin, lo)
            sx, sy, sz = g.size
            shells = [occ[x0 - 1, y0:y0 + sy, z0:z0 + sz], occ[x0 + sx, y0:y0 + sy, z0:z0 + sz],
                      occ[x0:x0 + sx, y0 - 1, z0:z0 + sz], occ[x0:x0 + sx, y0 + sy, z0:z0 + sz],
                      occ[x0:x0 + sx, y0:y0 + sy, z0 + sz]]
            assert all(s.all() for s in shells), seed
        assert grey_faces_visible(build) == [], seed


def test_no_two_blocks_share_a_cell_and_none_is_below_the_table(towers):
    for seed, build in towers.items():
        occ, _ = occupancy(build)
        assert occ.max() == 1, seed
        assert min(b.origin[2] for b in build.blocks) == 0, seed


def test_every_block_rests_fully_on_blocks_or_the_table(towers):
    for seed, build in towers.items():
        occ, lo = occupancy(build)
        for b in build.blocks:
            if b.origin[2] == 0:
                continue
            x0, y0, z0 = np.subtract(b.origin, lo)
            assert occ[x0:x0 + b.size[0], y0:y0 + b.size[1], z0 - 1].all(), (seed, b.id)


def _touch(a, b) -> bool:
    """Flush face contact with a shared area > 0."""
    overlap = [min(a.origin[i] + a.size[i], b.origin[i] + b.size[i]) - max(a.origin[i], b.origin[i]) for i in range(3)]
    return sorted(overlap)[0] == 0 and sorted(overlap)[1] > 0


def test_every_start_tower_is_one_connected_construction(towers):
    for seed, build in towers.items():
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j, other in enumerate(build.blocks):
                if j not in seen and _touch(build.blocks[i], other):
                    seen.add(j)
                    todo.append(j)
        assert len(seen) == len(build.blocks), seed


def test_the_same_seed_gives_the_same_tower(towers):
    for seed in (0, 7, 199):
        assert dumps_build(random_start_tower(seed)) == dumps_build(towers[seed])


def test_different_seeds_give_different_towers(towers):
    texts = {dumps_build(b) for b in towers.values()}
    assert len(texts) == len(towers)
    shapes = {tuple(sorted((b.origin, b.size) for b in t.blocks)) for t in towers.values()}
    assert len(shapes) > len(towers) // 2  # they differ in layout, not only in colours


def test_start_towers_show_every_player_colour_on_top_somewhere(towers):
    # figures must be able to climb: across 200 towers each player colour is some block's top colour
    tops = {COLOURS[b.faces[4]] for t in towers.values() for b in t.blocks}
    assert {"red", "yellow", "dark-blue", "light-blue", "purple"} <= tops


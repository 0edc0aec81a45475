"""The statics judge at scale (issue 26): builds of more than SPLIT_MIN_BLOCKS blocks are judged by parts, and the
answers must be those of one LP over the whole build. Checked two ways: against mechanics (margins derived by hand)
and against the judge as it was before, kept frozen in benchmarks/statics_reference.py (not part of the product).
The full comparison (500 start towers, the edge builds, 100 large free builds) is benchmarks/bench_statics_scale.py.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

from physics import Box, judge_statics, parts, statics
from physics.contacts import find_contacts
from physics.statics import COM_INSET_M, SPLIT_MIN_BLOCKS
from physics.units import UNIT_M, grid_box

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bench_statics_scale as bench  # noqa: E402
import statics_reference as reference  # noqa: E402
from test_physics_statics import assert_same_in_parallel_and_in_sequence  # noqa: E402

E = 2 * UNIT_M  # cube edge
SAME_DEG = 1e-6  # the tolerance between the two judges


def deg(x: float) -> float:
    return math.degrees(math.atan(x))


def same_as_reference(boxes: list[Box]) -> statics.StaticsResult:
    new, old = judge_statics(boxes), reference.judge_statics(boxes)
    assert new.stable == old.stable
    assert abs(new.tilt_margin_deg - old.tilt_margin_deg) <= SAME_DEG, (new.tilt_margin_deg, old.tilt_margin_deg)
    return new


def leaning_row(units: int) -> list[Box]:
    """A row of `units` touching units: a half cube H, a grey block A standing on it 1 cm off towards +x (its centre
    of mass 1 cm past H's edge) and a tall block B against A's +x face. A on H alone tips over; B's side face holds
    it. The piece bounds of the judge cannot settle that (a piece falls alone): the sub-assembly's LP must."""
    out = []
    for u in range(units):
        x = 0.11 * u
        out += [Box(f"H{u}", (x, 0.0, 0.0), (0.04, 0.04, 0.02), 0.0224),
                Box(f"A{u}", (x + 0.03, 0.0, 0.02), (0.04, 0.04, 0.12), 0.1344),
                Box(f"B{u}", (x + 0.07, 0.0, 0.0), (0.04, 0.04, 0.14), 0.1568)]
    return out


def test_a_slab_of_cubes_tips_like_one_of_its_columns():
    # columns of two cubes side by side: under a tilt along a row the last column has nothing to lean on and tips
    # about its bottom edge: tan(theta) = (half width - inset) / (half height); diagonals slide first (mu 0.5)
    boxes = bench.slab(10, 10)
    assert len(boxes) > SPLIT_MIN_BLOCKS
    r = judge_statics(boxes)
    assert r.stable
    assert r.tilt_margin_deg == pytest.approx(deg((E / 2 - COM_INSET_M) / E), abs=SAME_DEG)
    assert abs(r.weakest_direction[0]) == pytest.approx(1) or abs(r.weakest_direction[1]) == pytest.approx(1)


def test_separate_columns_fail_at_the_tallest_one():
    # 12 columns of 1..12 cubes in a row, apart: independent, the margin is the tallest column's tipping angle
    boxes = [grid_box(f"c{k}.{i}", (4 * k, 0, 2 * i), (2, 2, 2)) for k in range(12) for i in range(k + 1)]
    assert len(boxes) > SPLIT_MIN_BLOCKS
    r = same_as_reference(boxes)
    assert r.stable
    assert r.tilt_margin_deg == pytest.approx(deg((E / 2 - COM_INSET_M) / (12 * E / 2)), abs=SAME_DEG)
    assert set(r.mechanism) <= {f"c11.{i}" for i in range(12)}


def test_a_falling_part_makes_the_large_build_fall():
    boxes = bench.slab(8, 5) + [grid_box("over", (41, 0, 0), (2, 2, 2)), grid_box("top", (42, 0, 2), (2, 2, 2))]
    r = same_as_reference(boxes)  # the top cube's centre sits on its support's edge: falls (the inset)
    assert not r.stable and "top" in r.mechanism


def whole_parts_solved(monkeypatch) -> list[int]:
    """Spy: the sub-assemblies the judge had to solve with their own LP (the piece bounds did not settle them)."""
    calls: list[int] = []
    original = parts.SplitProblem._assembly

    def spy(self, a, phi):
        calls.append(a)
        return original(self, a, phi)

    monkeypatch.setattr(parts.SplitProblem, "_assembly", spy)
    return calls


def test_the_slab_is_settled_by_the_piece_bounds(monkeypatch):
    calls = whole_parts_solved(monkeypatch)
    judge_statics(bench.slab(7, 7))
    assert calls == []


def test_pieces_that_lean_on_each_other_are_solved_together(monkeypatch):
    calls = whole_parts_solved(monkeypatch)
    boxes = leaning_row(22)
    assert len(boxes) > SPLIT_MIN_BLOCKS
    r = same_as_reference(boxes)
    assert calls
    assert r.stable
    alone = judge_statics([b for b in boxes if b.id in ("H0", "A0")])  # only B's side face holds A
    assert not alone.stable and alone.weakest_direction[0] > 0.9


@pytest.mark.parametrize("name_boxes", bench.edge_builds(), ids=lambda nb: nb[0])
def test_edge_builds_beside_a_slab_are_judged_as_alone(name_boxes):
    name, boxes = name_boxes
    big = bench.beside_slab(boxes)
    assert len(big) > SPLIT_MIN_BLOCKS
    alone, together = judge_statics(boxes), same_as_reference(big)
    assert together.stable == alone.stable
    if alone.stable:  # the slab tips at 25.4 degrees; the build alone decides when it is weaker
        assert together.tilt_margin_deg == pytest.approx(min(alone.tilt_margin_deg, 25.40771810894843), abs=1e-6)


@pytest.mark.parametrize("i", [0, 5, 13])
def test_large_free_builds_get_the_old_judges_answer(i):
    same_as_reference(bench.large_free_build(i))


def test_towers_in_a_row_get_the_old_judges_answer():
    same_as_reference(bench.towers_in_a_row(1))


def test_start_towers_are_judged_exactly_as_before():
    # up to SPLIT_MIN_BLOCKS blocks the judge solves the same LPs in the same order: identical to the last bit
    for seed in range(3):
        boxes = bench.start_tower(seed)
        new, old = judge_statics(boxes), reference.judge_statics(boxes)
        assert (new.stable, new.tilt_margin_deg, new.weakest_direction, new.mechanism, new.lps) == \
            (old.stable, old.tilt_margin_deg, old.weakest_direction, old.mechanism, old.lps)


def test_the_split_chains_give_the_same_answer_in_parallel_and_in_sequence(monkeypatch):
    for boxes in (bench.slab(7, 7), leaning_row(22), bench.towers_in_a_row(2)):
        assert_same_in_parallel_and_in_sequence(monkeypatch, boxes)


def test_the_sweep_finds_the_same_contacts_as_all_pairs(monkeypatch):
    from physics import contacts

    rng = random.Random(4)
    for boxes in (bench.slab(9, 9), bench.large_free_build(2),
                  [grid_box(f"r{k}", (rng.randrange(30), rng.randrange(30), rng.randrange(8)),
                            rng.choice([(2, 2, 1), (2, 2, 2), (2, 4, 2), (6, 2, 2)])) for k in range(300)]):
        monkeypatch.setattr(contacts, "DENSE_MAX_BOXES", 10**9)
        dense = find_contacts(boxes)
        monkeypatch.setattr(contacts, "DENSE_MAX_BOXES", 0)
        assert find_contacts(boxes) == dense


def test_pybullet_keeps_a_large_slab_standing_and_drops_a_cube_hanging_off_it():
    from physics import judge_dynamics

    boxes = bench.slab(6, 6)  # 72 cubes: rigid bodies, and so is the half-step re-run at this size
    still = judge_dynamics(boxes)
    assert still.settings["maximal_coordinates"] and not still.collapsed
    # a cube whose centre is 1 cm past the slab's edge, on top of the last column: it tips off
    tipped = judge_dynamics(boxes + [Box("off", (6 * E - E / 4, 0.0, 2 * E), (E, E, E), 0.0448)])
    assert tipped.collapsed and "off" in tipped.moved

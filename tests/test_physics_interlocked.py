"""The statics judge on interlocked builds (issue 31): walls, pyramids, arches and columns, whose blocks rest across
several others. Their LPs go to the interior-point method (physics.lp) and their symmetric rays are solved once
(physics.symmetry); the answers must be the hand calculations' and those of the judge before any of this (kept
frozen in benchmarks/statics_reference.py). The full comparison is `bench_statics_scale.py --verify --only
interlocked`; the speed is benchmarks/bench_interlocked.py.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from physics import grid_box, judge_statics, lp, tilt_lp
from physics.builds import brick_pyramid, column, corbelled_arch, random_bond, running_bond_wall
from physics.contacts import find_contacts
from physics.statics import COM_INSET_M
from physics.symmetry import orbit_representatives, symmetries
from physics.units import UNIT_M

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bench_statics_scale as bench  # noqa: E402
import statics_reference as reference  # noqa: E402
from test_physics_statics import assert_same_in_parallel_and_in_sequence  # noqa: E402

SAME_DEG = 1e-6  # the tolerance between the judge and the reference judge
H = 2 * UNIT_M  # a course of doubles laid flat: 4 cm high, 4 cm deep (one leaf)


def deg(x: float) -> float:
    return math.degrees(math.atan(x))


def centre_height(boxes) -> float:
    return sum(b.mass * b.centre[2] for b in boxes) / sum(b.mass for b in boxes)


def same_as_reference(boxes):
    new, old = judge_statics(boxes), reference.judge_statics(boxes)
    assert new.stable == old.stable
    assert abs(new.tilt_margin_deg - old.tilt_margin_deg) <= SAME_DEG, (new.tilt_margin_deg, old.tilt_margin_deg)
    return new


def test_a_wall_one_leaf_deep_tips_out_of_its_plane_as_one_body():
    """A running-bond wall of 10 courses, one double (4 cm) deep, tilted across its plane, tips about the edge of
    its base as one rigid body: every course's blocks are bonded to the next, and the weight of all above a
    joint sits closer to the middle of that joint than the whole wall's does to its base. It goes when the
    resultant leaves the base's inset edge: tan(theta) = (depth / 2 - inset) / height of the centre of mass.
    Even courses hold 10 blocks, odd ones 9, so the centre of mass is at (10 * 0.9 + 9 * 1.1) / 95 m = 0.19895 m
    (course k's blocks at 0.02 + 0.04 k), and tan(theta) = 0.019 / 0.19895 = 0.09550: 5.455 deg."""
    boxes = running_bond_wall(10)
    assert len(boxes) == 95 and centre_height(boxes) == pytest.approx(18.9 / 95)
    r = judge_statics(boxes)
    assert r.stable
    assert r.tilt_margin_deg == pytest.approx(deg((H / 2 - COM_INSET_M) / centre_height(boxes)), abs=SAME_DEG)
    assert abs(r.weakest_direction[1]) == pytest.approx(1)  # across the wall
    assert len(r.mechanism) == len(boxes)  # the whole wall turns


def test_a_pyramid_tips_out_of_its_plane_about_its_base():
    """A brick pyramid of 8 courses (course k: 8 - k doubles): the same rigid tipping across its plane,
    tan(theta) = 0.019 / (sum over k of (8 - k)(0.02 + 0.04 k) / 36)."""
    boxes = brick_pyramid(8)
    z = sum((8 - k) * (0.02 + 0.04 * k) for k in range(8)) / 36
    assert centre_height(boxes) == pytest.approx(z)
    r = same_as_reference(boxes)
    assert r.tilt_margin_deg == pytest.approx(deg((H / 2 - COM_INSET_M) / z), abs=SAME_DEG)


def test_a_tall_column_of_cubes_tips_about_a_base_edge():
    """n cubes of 4 cm: tan(theta) = (0.02 - 0.001) / (n * 0.04 / 2) along an axis; along a diagonal the inset
    base reaches sqrt(2) times as far. 120 cubes: atan(0.019 / 2.4) = 0.4536 deg."""
    r = judge_statics(column(120))
    assert r.stable
    assert r.tilt_margin_deg == pytest.approx(deg(0.019 / (120 * 0.02)), abs=SAME_DEG)


@pytest.mark.parametrize("name_boxes", [
    ("wall 6 courses", running_bond_wall(6)),
    ("wall 5 courses, two leaves", running_bond_wall(5, 6, 2)),
    ("wall with a block added at one end", running_bond_wall(6) + [grid_box("x", (2, 0, 12), (4, 2, 2))]),
    ("pyramid of 6", brick_pyramid(6)),
    ("corbelled arch of 3", corbelled_arch(3)),
    ("corbelled arch of 6", corbelled_arch(6)),
    ("arch that falls", corbelled_arch(8, 1)),
    ("column of 40", column(40)),
    ("bonded wall", random_bond(random.Random(2), 40)),
    ("bonded wall with holes", random_bond(random.Random(7), 45, hole=0.05)),
], ids=lambda nb: nb[0])
def test_interlocked_builds_get_the_reference_judges_answer(name_boxes):
    same_as_reference(name_boxes[1])


def test_the_symmetries_of_a_wall_and_of_a_start_tower():
    assert [g.name for g in symmetries(running_bond_wall(4))] == ["mirror x", "mirror y", "half turn"]
    assert [g.name for g in symmetries(running_bond_wall(4) + [grid_box("x", (2, 0, 8), (4, 2, 2))])] == ["mirror y"]
    assert symmetries(bench.start_tower(0)) == []
    # a mirror that maps a block onto a block of another size is no symmetry
    lopsided = [grid_box("a", (0, 0, 0), (2, 2, 2)), grid_box("b", (2, 0, 0), (2, 2, 1))]
    assert [g.name for g in symmetries(lopsided)] == ["mirror y"]
    # with both mirrors, the 8 initial directions fall into 3 orbits: 0 / 180, the diagonals, 90 / 270
    phis = [k * math.pi / 4 for k in range(8)]
    derived = orbit_representatives(phis, symmetries(running_bond_wall(4)))
    assert sorted(set(phis) - set(derived)) == [0.0, math.pi / 4, math.pi / 2]


def test_a_copied_ray_is_the_solved_ray_of_its_image_direction(monkeypatch):
    """Solving the ray towards 135 deg and copying the 45 deg ray through the x mirror give the same load and
    the same failure mode, block by block."""
    monkeypatch.setattr(tilt_lp, "LP_METHOD", "simplex")  # vertices: comparable duals
    boxes = corbelled_arch(4) + [grid_box("x", (4, 0, 10), (4, 2, 1)), grid_box("y", (24, 0, 10), (4, 2, 1))]
    mirror = next(g for g in symmetries(boxes) if g.name == "mirror x")
    prob = tilt_lp.TiltProblem(boxes, 0.5, COM_INSET_M, find_contacts(boxes))
    r45, d45 = prob.ray(math.pi / 4)
    r135, d135 = prob.ray(3 * math.pi / 4)
    assert r135 == pytest.approx(r45, abs=1e-9)
    assert mirror.angle(math.pi / 4) == pytest.approx(3 * math.pi / 4)
    moving = {boxes[i].id for i in range(len(boxes)) if np.abs(d135[6 * i:6 * i + 6]).max() > 1e-6}
    copied = mirror.duals(d45)
    assert moving == {boxes[i].id for i in range(len(boxes)) if np.abs(copied[6 * i:6 * i + 6]).max() > 1e-6}


def test_symmetry_and_the_interior_point_method_change_no_margin(monkeypatch):
    builds = [running_bond_wall(8), brick_pyramid(7), corbelled_arch(5), random_bond(random.Random(4), 60)]
    plain = []
    monkeypatch.setattr(tilt_lp, "USE_SYMMETRY", False)
    monkeypatch.setattr(tilt_lp, "LP_METHOD", "simplex")
    plain = [judge_statics(b) for b in builds]
    for method in ("ipm", "auto"):
        monkeypatch.setattr(tilt_lp, "USE_SYMMETRY", True)
        monkeypatch.setattr(tilt_lp, "LP_METHOD", method)
        for b, p in zip(builds, plain, strict=True):
            r = judge_statics(b)
            assert r.stable == p.stable
            assert r.tilt_margin_deg == pytest.approx(p.tilt_margin_deg, abs=SAME_DEG)
            assert r.lps <= p.lps


def test_a_degenerate_model_goes_to_the_interior_point_method_and_a_start_tower_does_not(monkeypatch):
    switched: list[int] = []
    original = lp.LP._solve_ipm

    def spy(self):
        switched.append(self.A.rows)
        return original(self)

    monkeypatch.setattr(lp.LP, "_solve_ipm", spy)
    judge_statics(bench.start_tower(0))
    assert switched == []
    judge_statics(brick_pyramid(8))  # 216 rows, below IPM_MIN_ROWS: the simplex runs over its pivot budget
    assert switched and max(switched) < lp.IPM_MIN_ROWS


def test_interlocked_chains_give_the_same_answer_in_parallel_and_in_sequence(monkeypatch):
    for boxes in (running_bond_wall(6) + [grid_box("x", (2, 0, 12), (4, 2, 2))], random_bond(random.Random(3), 80)):
        assert_same_in_parallel_and_in_sequence(monkeypatch, boxes)


def test_running_bond_walls_stand_for_any_number_of_courses():
    """The top course is always a short one (issue 43: with an odd number of courses the top course's end blocks
    rested on half their length, centre exactly over the edge below, and fell); even walls are laid as before
    (the odd courses short)."""
    for courses in range(1, 10):
        wall = running_bond_wall(courses, 5)
        top = [b for b in wall if b.lo[2] == max(w.lo[2] for w in wall)]
        assert len(top) == (5 if courses == 1 else 4)
        r = judge_statics(wall)
        assert r.stable and r.tilt_margin_deg > 1, courses
        if courses % 2 == 0:
            assert all((round(b.lo[0] / 0.02) % 4 == 2) == (round(b.lo[2] / 0.04) % 2 == 1) for b in wall)

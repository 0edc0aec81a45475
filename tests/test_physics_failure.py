"""How a build starts to fail (physics.failure): the tilt margin's failure mode from the critical LP's dual, and a
falling build's motion checked against PyBullet's first 50 ms on the falling builds of the tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_physics_statics import falling_builds  # the random falling builds (careless stacks)

import physics.dynamics as dynamics
from physics import Box, judge_statics, remove
from physics.builds import column
from physics.statics import COM_INSET_M
from physics.units import UNIT_M, WOOD_DENSITY, grid_box

E = 2 * UNIT_M  # the game's cube edge, 4 cm


def cube(id: str, x: float, z: float) -> Box:
    return Box(id, (x, 0.0, z), (E, E, E), WOOD_DENSITY * E**3)


def test_a_lone_cube_slides_at_atan_mu():
    """A cube on a table tilted by theta: it slides when tan(theta) = mu = 0.5 (26.57 deg) and would tip only at
    tan(theta) = (E/2 - inset) / (E/2) = 0.95 (43.5 deg): the margin's mode is a slide on the table, translation
    without rotation."""
    r = judge_statics(column(1))
    assert r.tilt_margin_deg == pytest.approx(math.degrees(math.atan(0.5)), abs=0.06)
    f = r.failure
    assert f.mode == "slide" and f.slides_on == (("c0", "table"),) and f.pivots_on == ()
    (m,) = f.motions
    assert m.axis_point is None and np.linalg.norm(m.spin) == 0.0
    assert np.dot(m.velocity[:2], r.weakest_direction) > 0.8  # it slides the way the table tilts


def test_a_grippy_cube_tips_about_its_edge():
    """With mu = 1.2 sliding needs 50.2 deg, tipping tan(theta) = 0.019 / 0.02 (43.53 deg) toward +x: the cube turns
    about the table's inset edge x = 0.039 m (z = 0), about +y (right-hand rule: the top moves toward +x)."""
    r = judge_statics(column(1), mu=1.2)
    assert r.tilt_margin_deg == pytest.approx(math.degrees(math.atan(0.95)), abs=0.06)
    f = r.failure
    assert f.mode == "tip" and f.pivots_on == (("c0", "table"),) and f.slides_on == ()
    (m,) = f.motions
    d = np.array(r.weakest_direction + (0.0,))
    assert m.axis_point is not None
    # the axis: through the edge under the block's far side, along the horizontal perpendicular to the fall
    edge = np.array([0.02, 0.02, 0.0]) + d * (E / 2 - COM_INSET_M)
    assert np.array(m.axis_point)[:2] @ d[:2] == pytest.approx(edge[:2] @ d[:2], abs=1e-9)
    assert m.axis_point[2] == pytest.approx(0.0, abs=1e-9)
    assert np.dot(np.cross([0.0, 0.0, 1.0], d), m.spin) > 0.99 * np.linalg.norm(m.spin)


def test_a_column_tips_as_one_body_about_its_base():
    """Three stacked cubes: the weakest tilt (17.6 deg = atan(0.019 / 0.06)) tips all three about the table edge:
    the same spin for each, one axis (the bottom edge), nothing slipping."""
    r = judge_statics(column(3))
    f = r.failure
    assert f.mode == "tip" and f.pivots_on == (("c0", "table"),)
    assert {m.block for m in f.motions} == {"c0", "c1", "c2"}
    spins = np.array([m.spin for m in f.motions])
    assert np.allclose(spins, spins[0], atol=1e-6 * np.abs(spins).max())
    points = np.array([m.axis_point for m in f.motions])
    assert np.allclose(points[:, 2], 0.0, atol=1e-9)


def test_falling_builds_name_how_they_fall():
    """A cube shifted 2.4 cm over another tips over its edge (its centre 4 mm beyond it); a cube held only by its
    side face against a column drops straight down (no friction on side faces)."""
    f = judge_statics([cube("a", 0.0, 0.0), cube("b", 0.024, E)]).failure
    assert f.mode == "tip" and f.pivots_on == (("b", "a"),) and [m.block for m in f.motions] == ["b"]
    hang = [grid_box("w1", (0, 0, 0), (2, 2, 2)), grid_box("w2", (0, 0, 2), (2, 2, 2)),
            grid_box("hang", (2, 0, 2), (2, 2, 2))]
    f = judge_statics(hang).failure
    assert f.mode == "drop" and [m.block for m in f.motions] == ["hang"]
    assert f.motions[0].velocity == pytest.approx((0.0, 0.0, -1.0), abs=1e-6)


# --- against PyBullet's first 50 ms ------------------------------------------------------------------------

#: A block moves (in PyBullet's first 50 ms, or in the statics motion) when it moves at least this share of the
#: fastest block; the other side must then see it move at least MOVES_SOME of its fastest (blocks near the line).
MOVES, MOVES_SOME = 0.2, 0.05
#: The largest angle between a block's displacement in PyBullet and its statics velocity.
ANGLE_DEG = 30.0


def first_motion(boxes: list[Box], mu: float) -> dict[str, np.ndarray]:
    """Each block's displacement in PyBullet's first 50 ms (trajectory frames at 20 per second: t = 0 and 0.05)."""
    old = dynamics.TRAJECTORY_FPS
    dynamics.TRAJECTORY_FPS = 20
    try:
        run = dynamics.judge_dynamics(boxes, mu=mu, seconds=0.05, record_trajectory=True, early_stop=False)
    finally:
        dynamics.TRAJECTORY_FPS = old
    start, end = run.trajectory[0]["poses"], run.trajectory[-1]["poses"]
    assert run.trajectory[-1]["t"] == pytest.approx(0.05)
    return {b: np.subtract(end[b][0], start[b][0]) for b in end}


#: The falling builds of tests/test_physics_statics.py and test_physics_explain.py, by name (and friction).
HAND_BUILDS = {
    "overhang": ([cube("a", 0.0, 0.0), cube("b", 0.024, E)], 0.5),
    "overhang-3cm": ([cube("a", 0.0, 0.0), cube("b", 0.03, E)], 1.0),
    "cantilever": (remove([grid_box("A", (0, 0, 0), (2, 2, 2)), grid_box("P", (0, 0, 2), (4, 2, 2)),
                           grid_box("C", (0, 0, 4), (2, 2, 2))], ["C"]), 0.5),
    "beam-on-one-pier": (remove([grid_box("L", (0, 0, 0), (2, 2, 2)), grid_box("R", (4, 0, 0), (2, 2, 2)),
                                 grid_box("beam", (0, 0, 2), (6, 2, 2))], ["R"]), 0.5),
    "hanging": ([grid_box("w1", (0, 0, 0), (2, 2, 2)), grid_box("w2", (0, 0, 2), (2, 2, 2)),
                 grid_box("hang", (2, 0, 2), (2, 2, 2))], 0.5),
    "floating": ([cube("f", 0.0, 0.01)], 0.5),
}
BUILDS = [(name, boxes, mu) for name, (boxes, mu) in HAND_BUILDS.items()] + \
    [(f"random-{i}", boxes, 0.5) for i, boxes in enumerate(falling_builds(6))]


@pytest.mark.parametrize("name, boxes, mu", BUILDS, ids=[b[0] for b in BUILDS])
def test_the_statics_motion_is_how_pybullet_starts_to_move(name, boxes, mu):
    """The blocks the statics motion moves are the blocks PyBullet moves in its first 50 ms, each within 30 deg of
    its direction. Where the judges disagree about a block (statics has it fall, PyBullet holds it up for the whole
    2 s by side-face friction or edge contacts, which the statics model leaves out: docs/physics.md), only the
    blocks PyBullet moves are compared: each must be in the statics motion, the same way."""
    failure = judge_statics(boxes, mu=mu).failure
    pred = {m.block: np.array(m.velocity) for m in failure.motions}
    fastest = max(float(np.linalg.norm(v)) for v in pred.values())
    statics_moves = {b for b, v in pred.items() if np.linalg.norm(v) >= MOVES * fastest}
    statics_some = {b for b, v in pred.items() if np.linalg.norm(v) >= MOVES_SOME * fastest}
    moved = first_motion(boxes, mu)
    top = max(float(np.linalg.norm(d)) for d in moved.values())
    assert top > 1e-4  # it really falls: more than 0.1 mm in 50 ms
    pybullet_moves = {b for b, d in moved.items() if np.linalg.norm(d) >= MOVES * top}
    pybullet_some = {b for b, d in moved.items() if np.linalg.norm(d) >= MOVES_SOME * top}
    assert pybullet_moves <= statics_some, (name, pybullet_moves, statics_some)
    held = statics_moves - set(dynamics.judge_dynamics(boxes, mu=mu, seconds=2.0, early_stop=False).moved)
    if not held:
        assert statics_moves <= pybullet_some, (name, statics_moves, pybullet_some)
    for b in pybullet_moves:
        cos = pred[b] @ moved[b] / (np.linalg.norm(pred[b]) * np.linalg.norm(moved[b]))
        assert math.degrees(math.acos(min(1.0, cos))) <= ANGLE_DEG, (name, b)

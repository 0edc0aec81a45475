"""PyBullet's verdict without time-step artefacts: where the judges disagree or the statics margin is near zero,
the run is repeated at half the step and the finer run counts (physics.verdict.judge_dynamics_checked)."""

from __future__ import annotations

import pytest

from physics import Box, judge, judge_dynamics, judge_statics
from physics.contacts import find_contacts
from physics.dynamics import TIME_STEP_S
from physics.moving_part import moving_part
from physics.units import grid_box
from physics.verdict import judge_dynamics_checked, needs_recheck, recheck_held_still

#: Build 116 of bench_physics.py's agreement set: the lying double cube b6 (x 3..7, y 6..8, z 2..4) rests with
#: positive area only on one 1x1 corner cell of b2 (x 3..4, y 7..8), far from its centre (5, 7); its bottom edges
#: lie on the top edges of b0 and b7 (the line y = 6) and of b10 (y = 8): zero-area line contacts, which the
#: statics model does not count (nor do MuJoCo's and compas_cra's checks of this build). At 1/480 s Bullet's edge
#: contacts held it up; at 1/960 s it falls, as the statics judge says.
EDGE_BUILD = [("b0", (2, 4, 0), (4, 2, 2)), ("b1", (1, 2, 0), (4, 2, 2)), ("b2", (2, 7, 0), (2, 2, 2)),
              ("b3", (0, 4, 0), (2, 4, 2)), ("b4", (1, 0, 0), (2, 2, 1)), ("b5", (6, 0, 0), (2, 2, 2)),
              ("b6", (3, 6, 2), (4, 2, 2)), ("b7", (6, 4, 0), (4, 2, 2)), ("b8", (3, 0, 0), (2, 2, 1)),
              ("b9", (6, 2, 0), (2, 2, 4)), ("b10", (4, 8, 0), (1, 2, 2)), ("b11", (4, 4, 2), (2, 2, 2)),
              ("b12", (8, 2, 0), (2, 2, 6)), ("b13", (1, 5, 2), (2, 2, 2)), ("b14", (2, 7, 2), (1, 2, 2)),
              ("b15", (1, 2, 2), (2, 2, 2))]


def harmonic_stack(n: int = 5, gap: float = 0.001, length: float = 0.08) -> list[Box]:
    """n lying double cubes (8 x 4 x 4 cm, 89.6 g), each shifted so that the centre of mass of everything above a
    block lies `gap` inside that block's edge: with gap = the 1 mm inset every interface is exactly at the
    statics judge's limit (margin 0: it stands, marginally). From the top: the top block starts at x = 0; the block
    under the top k has its right edge at (their centre of mass) + gap."""
    mass = 700 * length * 0.04 * 0.04
    xs, com = [0.0], length / 2
    for k in range(1, n):
        x0 = com + gap - length
        xs.append(x0)
        com = (com * k + x0 + length / 2) / (k + 1)
    xs.reverse()
    return [Box(f"d{k}", (xs[k], 0.0, 0.04 * k), (length, 0.04, 0.04), mass) for k in range(n)]


def test_edge_supported_double_cube_falls_in_both_judges():
    boxes = [grid_box(i, o, s) for i, o, s in EDGE_BUILD]
    statics = judge_statics(boxes)
    assert not statics.stable and "b6" in statics.mechanism
    v = judge(boxes)
    assert v.dynamics.collapsed and "b6" in v.dynamics.moved
    assert v.verdict == "collapses"
    assert v.dynamics.settings["time_step_s"] == pytest.approx(TIME_STEP_S / 2)
    # the first run, with rigid bodies, holds b6 on its edge lines; the re-run, with multibodies, does not
    assert not v.dynamics.settings["first_run"]["collapsed"]
    assert not v.dynamics.settings["maximal_coordinates"]


def test_harmonic_stack_at_the_inset_stands_in_both_judges():
    boxes = harmonic_stack()
    statics = judge_statics(boxes)
    assert statics.stable and statics.tilt_margin_deg == pytest.approx(0.0, abs=0.05)
    v = judge(boxes)
    assert not v.dynamics.collapsed
    assert v.verdict == "marginal"  # stands, with no tilt to spare
    assert v.dynamics.settings["recheck"]


def test_clear_cases_run_once():
    """A 3-cube column (margin 45 deg, both stand) is not re-run; a re-run is recorded with its reason."""
    boxes = [grid_box(f"c{i}", (0, 0, 2 * i), (2, 2, 2)) for i in range(3)]
    statics = judge_statics(boxes)
    d = judge_dynamics_checked(boxes, statics)
    assert needs_recheck(statics, d) == "" and "recheck" not in d.settings
    assert d.settings["time_step_s"] == pytest.approx(TIME_STEP_S)


def test_rerun_of_a_falling_build_simulates_only_what_can_fall():
    """Build 116 with a 3-cube column 10 cm away: statics sees only b6 fall, so the half-step re-run moves b6, what
    rests on it and every box within BUFFER_M (12 mm) of them, and holds the rest still: the far column among
    them. b6 still falls, and the re-run is exactly a half-step run with those boxes held."""
    boxes = [grid_box(i, o, s) for i, o, s in EDGE_BUILD]
    boxes += [grid_box(f"far{k}", (15, 0, 2 * k), (2, 2, 2)) for k in range(3)]
    statics = judge_statics(boxes)
    assert statics.mechanism == ("b6",)
    held = recheck_held_still(boxes, statics)
    index = {b.id: k for k, b in enumerate(boxes)}
    moving = moving_part(boxes, find_contacts(boxes), [index["b6"]])
    assert set(held) == {b.id for k, b in enumerate(boxes) if k not in moving}
    assert {"far0", "far1", "far2"} <= set(held) and "b6" not in held
    # b0, b7 and b10 carry b6's edge lines, b2 its one support cell: they move; b12 (x 8..10, y 2..8) is 2 cm
    # (one grid unit) from b6's corner (x 7, y 6): beyond the buffer, held
    assert not {"b0", "b2", "b7", "b10"} & set(held) and "b12" in held
    d = judge_dynamics_checked(boxes, statics)
    assert d.settings["recheck"] == "judges disagree" and d.settings["fixed_boxes"] == len(held)
    assert d.collapsed and "b6" in d.moved
    direct = judge_dynamics(boxes, time_step=TIME_STEP_S / 2, fixed=held, reduced=True)
    assert (direct.collapsed, direct.moved, direct.max_displacement_mm) == \
        (d.collapsed, d.moved, d.max_displacement_mm)


def test_rerun_of_a_standing_build_simulates_all_of_it():
    """The harmonic stack stands in statics (margin 0): there is no failure to focus on, so its re-run moves every
    block."""
    boxes = harmonic_stack()
    statics = judge_statics(boxes)
    assert recheck_held_still(boxes, statics) == []
    d = judge_dynamics_checked(boxes, statics)
    assert d.settings["recheck"] and "fixed_boxes" not in d.settings

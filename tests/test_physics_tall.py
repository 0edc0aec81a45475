"""PyBullet on tall builds (issue 43): a chain of TALL_LAYERS or more boxes resting on each other is set down with
gravity ramped up and a softer contact correction (physics.dynamics), which stops the launches a tall stack's
first steps produced; shorter builds keep their settings. The set and its figures: benchmarks/bench_tall.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from physics.builds import column
from physics.dynamics import TALL_LAYERS, judge_dynamics, support_layers

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_tall import hollow_tower, jenga  # noqa: E402


def test_support_layers_count_the_longest_chain_of_resting_boxes():
    assert support_layers(column(10)) == 10
    assert support_layers(hollow_tower(3)) == 3
    assert support_layers(jenga(18, 4, 1)) == 18


def test_a_20_cube_column_stands_still():
    # at full gravity from the first step its top sank 2.3 mm in 20 ms and was thrown up: 12.6 mm, "collapsed"
    d = judge_dynamics(column(20))
    assert not d.collapsed and d.max_displacement_mm < 5  # (it sinks ~3 mm into itself at ERP 0.4)
    assert d.settings["gravity_ramp_s"] > 0 and "gravity_ramp_s" not in judge_dynamics(column(TALL_LAYERS - 1)).settings


def test_a_jenga_tower_with_bricks_pulled_stands_still():
    d = judge_dynamics(jenga(18, 6, 1))
    assert not d.collapsed and d.max_displacement_mm < 3


def test_a_tall_falling_build_still_falls():
    # a 20-cube column with its top cube half off: statics says it falls, and so must the ramped simulation
    boxes = column(20)
    top = boxes[-1]
    boxes[-1] = type(top)(top.id, (top.lo[0] + 0.6 * top.size[0], top.lo[1], top.lo[2]), top.size, top.mass)
    d = judge_dynamics(boxes)
    assert d.collapsed and top.id in d.moved


@pytest.mark.slow
def test_the_400_block_hollow_tower_stands_still():
    d = judge_dynamics(hollow_tower(40))
    assert not d.collapsed and d.max_displacement_mm < 6


def test_the_focused_re_run_moves_what_the_failure_motion_moves():
    """A corbel bridge of 6 courses falling at mu 1.2 (it needs 1.35): the LP's mechanism names L4 and R4, but the
    courses under them start to move too (the failure motion: L1 at 0.2 of the fastest), so the re-run may not
    hold them still (it held L0-L2 and R0-R2 before issue 43)."""
    from test_physics_friction import corbel_bridge

    import physics
    from physics.verdict import recheck_held_still

    boxes = corbel_bridge(6, 1.5)
    s = physics.judge_statics(boxes, mu=1.2)
    assert not s.stable
    moving = {m.block for m in s.failure.motions if max(abs(v) for v in m.velocity) > 0.1}
    assert {"L1", "R1", "L2", "R2"} <= moving
    assert not moving & set(recheck_held_still(boxes, s))

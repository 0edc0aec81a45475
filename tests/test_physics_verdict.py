"""The combined verdict: its rules and JSON shape (docs/formats.md)."""

from __future__ import annotations

import json

import pytest

from physics import COLLAPSES, MARGINAL, STABLE, DynamicsResult, StaticsResult, combine, grid_box, judge


def statics(stable: bool, margin: float) -> StaticsResult:
    return StaticsResult(stable, margin, (1.0, 0.0), 1.0)


def dynamics(collapsed: bool) -> DynamicsResult:
    return DynamicsResult(collapsed, ("b",) if collapsed else (), 20.0 if collapsed else 0.1, 0.0, 2.0, 1.0)


@pytest.mark.parametrize("s_stable, margin, d_collapsed, expected", [
    (True, 11.3, False, STABLE),
    (True, 1.0, False, STABLE),       # the 1-degree bound is inclusive
    (True, 0.99, False, MARGINAL),    # stands, but too close
    (True, 11.3, True, MARGINAL),     # judges disagree
    (False, -5.0, False, MARGINAL),   # judges disagree
    (False, -5.0, True, COLLAPSES),
])
def test_verdict_rule(s_stable, margin, d_collapsed, expected):
    assert combine(statics(s_stable, margin), dynamics(d_collapsed)) == expected


@pytest.mark.parametrize("s_stable, margin, expected", [
    (True, 5.0, STABLE), (True, 0.5, MARGINAL), (False, -3.0, COLLAPSES)])
def test_statics_only_verdict_rule(s_stable, margin, expected):
    assert combine(statics(s_stable, margin), None) == expected


def test_json_has_exactly_the_spec_shape():
    v = judge([grid_box("a", (0, 0, 0), (2, 2, 2)), grid_box("b", (0, 0, 2), (2, 2, 2))])
    doc = json.loads(json.dumps(v.to_json()))
    assert set(doc) == {"verdict", "statics", "dynamics"}
    assert doc["verdict"] == STABLE
    assert set(doc["statics"]) == {"stable", "tilt_margin_deg", "weakest_direction", "ms"}
    assert set(doc["dynamics"]) == {"engine", "collapsed", "moved", "max_displacement_mm", "max_rotation_deg",
                                    "simulated_s", "ms"}
    assert doc["dynamics"]["engine"] == "pybullet"
    assert isinstance(doc["statics"]["stable"], bool) and isinstance(doc["dynamics"]["moved"], list)
    assert len(doc["statics"]["weakest_direction"]) == 2


def test_statics_only_has_null_dynamics_and_detail_adds_evidence():
    v = judge([grid_box("a", (0, 0, 0), (2, 2, 2))], statics_only=True)
    doc = v.to_json()
    assert doc["dynamics"] is None
    detail = v.to_json(detail=True)["statics"]
    assert {"margin_bounds_deg", "mechanism", "lps", "contacts"} <= set(detail)


def test_collapsing_build_is_collapses():
    v = judge([grid_box("a", (0, 0, 0), (2, 2, 2)), grid_box("b", (2, 0, 2), (2, 2, 2))])  # b floats off a corner
    assert v.verdict == COLLAPSES


@pytest.mark.parametrize("seed", (0, 3))
def test_statics_beside_the_first_run_gives_the_sequential_answers(seed, monkeypatch):
    """`judge` runs the statics verdict on a thread while PyBullet's first run steps (two CPUs); both answers, and
    the re-run they may call for, are those of the two judges run one after the other."""
    import random

    import physics.verdict as verdict
    from physics.builds import random_build

    builds = [random_build(random.Random(seed), 12), random_build(random.Random(seed + 10), 25)]
    beside = [judge(b) for b in builds]
    monkeypatch.setattr(verdict, "cpus", lambda: 1)
    alone = [judge(b) for b in builds]
    for a, b in zip(beside, alone, strict=True):
        assert a.verdict == b.verdict
        assert (a.statics.stable, a.statics.tilt_margin_deg, a.statics.mechanism) == \
            (b.statics.stable, b.statics.tilt_margin_deg, b.statics.mechanism)
        assert (a.dynamics.moved, a.dynamics.max_displacement_mm, a.dynamics.simulated_s) == \
            (b.dynamics.moved, b.dynamics.max_displacement_mm, b.dynamics.simulated_s)

"""Builds that lean on friction: the verdict brackets Coulomb's cone between an inner and an outer pyramid
(physics.friction_models), so it is right 10 % either side of the least friction coefficient, which is checked by
hand and against an independent planar LP (tests/planar_lp.py)."""

from __future__ import annotations

import math

import pytest
from planar_lp import planar_least_mu, planar_stands

import physics
from physics.builds import corbelled_arch
from physics.forces import contact_forces
from physics.friction_models import MARGINAL, least_mu
from physics.units import grid_box

INSET_UNITS = 0.05  # the 1 mm inset in grid units


def lean(e: float = 0.8) -> list[physics.Box]:
    """Cube b on cube a, its centre e units past a's inset edge, leaning on an upright double cube d. By hand:
    b tips about a's inset edge unless d pushes back; d's push N acts at most 1.95 units above that edge (the top of
    b's face, inset), so N >= e W / 1.95, and friction on a's top must carry N: mu >= e / 1.95."""
    x = 2 - INSET_UNITS + e - 1  # b's low corner
    return [grid_box("a", (0, 0, 0), (2, 2, 2)), grid_box("b", (x, 0, 2), (2, 2, 2)),
            grid_box("d", (x + 2, 0, 0), (2, 2, 4))]


def lean_corner(ex: float = 0.8, ey: float = 0.4) -> list[physics.Box]:
    """The lean in 3D: b overhangs a's corner by ex and ey and leans on d (+x) and d2 (+y). The two pushes are
    bounded below as in `lean` (e W / 1.95 each, at the tops of b's faces, the support at a's inset corner) and
    friction at that corner carries both: mu >= hypot(ex, ey) / 1.95, a direction no pyramid generator follows."""
    bx, by = 2 - INSET_UNITS + ex - 1, 2 - INSET_UNITS + ey - 1
    return [grid_box("a", (0, 0, 0), (2, 2, 2)), grid_box("b", (bx, by, 2), (2, 2, 2)),
            grid_box("d", (bx + 2, by, 0), (2, 2, 4)), grid_box("d2", (bx, by + 2, 0), (2, 2, 4))]


def corbel_bridge(courses: int, step: float) -> list[physics.Box]:
    """Two stacks of doubles laid flat, each course stepping `step` units towards the other, the top courses
    meeting face to face: each stack overhangs and leans on the other, and friction in the courses carries the
    thrust."""
    meet = (courses - 1) * step + 4
    out = []
    for z in range(courses):
        out.append(grid_box(f"L{z}", (z * step, 0, 2 * z), (4, 2, 2)))
        out.append(grid_box(f"R{z}", (2 * meet - z * step - 4, 0, 2 * z), (4, 2, 2)))
    return out


def corbelled_capped(courses: int, step: float) -> list[physics.Box]:
    """A corbelled arch: the bridge with a cap (a double laid flat) across the joint, whose weight adds thrust."""
    meet = (courses - 1) * step + 4
    return corbel_bridge(courses, step) + [grid_box("cap", (meet - 2, 0, 2 * courses), (4, 2, 2))]


HAND = [("lean 0.4", lean(0.4), 0.4 / 1.95), ("lean 0.8 (the issue's)", lean(0.8), 0.8 / 1.95),
        ("lean 0.9", lean(0.9), 0.9 / 1.95), ("lean on a corner", lean_corner(), math.hypot(0.8, 0.4) / 1.95)]
PLANAR = [("corbel bridge 3 x 2", corbel_bridge(3, 2.0)), ("corbel bridge 4 x 1.5", corbel_bridge(4, 1.5)),
          ("corbel bridge 5 x 1.5", corbel_bridge(5, 1.5)), ("corbel bridge 6 x 1.2", corbel_bridge(6, 1.2)),
          ("corbel bridge 4 x 2", corbel_bridge(4, 2.0)), ("corbelled arch 4 x 1.5", corbelled_capped(4, 1.5)),
          ("corbelled arch 5 x 1", corbelled_capped(5, 1.0)), ("corbelled arch 3 x 2", corbelled_capped(3, 2.0)),
          # issue 31's "arch that falls": the reference judge's 45-degree pyramid let it fall; it needs mu 0.360
          ("builds.corbelled_arch(8, 2)", corbelled_arch(8, 2))]


def _cases():
    out = list(HAND)
    for name, boxes in PLANAR:
        out.append((name, boxes, planar_least_mu(boxes)))
    return out


CASES = _cases()


def test_the_planar_lp_agrees_with_the_hand_values():
    for name, boxes, mu in HAND[:3]:
        assert planar_least_mu(boxes) == pytest.approx(mu, abs=2e-5), name
    assert not planar_stands(lean(), 0.40) and planar_stands(lean(), 0.42)


@pytest.mark.parametrize("name,boxes,mu", CASES, ids=[c[0] for c in CASES])
def test_stands_10_percent_above_falls_10_percent_below(name, boxes, mu):
    assert mu is not None and 0.1 < mu < 1.8, name  # the set is friction-bearing, and no build needs more
    above = physics.judge_statics(boxes, mu=1.1 * mu)
    assert above.stable and above.tilt_margin_deg >= 0
    assert physics.stands(boxes, mu=1.1 * mu)
    below = physics.judge_statics(boxes, mu=0.9 * mu)
    assert not below.stable and not below.undecided
    assert below.tilt_margin_deg < 0  # a falling build's margin is negative
    assert not physics.stands(boxes, mu=0.9 * mu)


@pytest.mark.parametrize("name,boxes,mu", CASES, ids=[c[0] for c in CASES])
def test_least_mu_is_bracketed_within_1e_3(name, boxes, mu):
    lm = least_mu(boxes, 0.001)
    assert lm.upper is not None
    assert lm.lower - 1e-4 <= mu <= lm.upper + 1e-4
    assert lm.upper - lm.lower <= 1e-3
    assert abs(lm.upper - mu) <= 1e-3


def test_the_issue_s_lean_stands_from_0_42_with_the_friction_it_needs():
    for mu in (0.42, 0.45, 0.5, 0.55, 0.58, 0.6):
        r = physics.judge_statics(lean(), mu=mu)
        assert r.stable and r.tilt_margin_deg > 0, mu
    r = physics.judge_statics(lean(), mu=0.4)
    assert not r.stable and r.tilt_margin_deg < 0 and r.friction is not None and r.friction.verdict == "falls"
    assert physics.judge(lean(), statics_only=True, mu=0.5).verdict != "collapses"
    need = contact_forces(lean(), mu=0.5, bounds=True).friction
    assert need is not None and need.least_mu == pytest.approx(0.8 / 1.95, abs=1e-3)


def test_marginal_only_where_the_models_disagree():
    # the finest pair of pyramids (64 sides) brackets the cone within 0.12 %: at the least coefficient of the
    # corner lean (off the axes), a coefficient inside that band is the only place the verdict may be undecided
    mu = math.hypot(0.8, 0.4) / 1.95
    for f in (0.99, 1.01):
        r = physics.judge_statics(lean_corner(), mu=f * mu)
        assert r.stable == (f > 1) and not r.undecided
    r = physics.judge_statics(lean_corner(), mu=mu)
    assert r.answer in ("stands", "falls", MARGINAL)
    if r.undecided:
        assert physics.judge(lean_corner(), statics_only=True, mu=mu).verdict == "marginal"
        assert r.to_json(detail=True)["friction"]["inner"]["stands"] is False
        assert r.to_json(detail=True)["friction"]["outer"]["stands"] is True


def test_an_undecided_verdict_is_marginal_with_both_answers(monkeypatch):
    """With the squares alone as the models (inner: inscribed, outer: circumscribed) the issue's lean at mu 0.45 is
    undecided: it needs 0.41 along x, the 45-degree inscribed square reaches 0.32 there, the outer square 0.45."""
    import functools

    import physics.statics
    from physics.friction_models import decide
    from physics.verdict import combine

    monkeypatch.setattr(physics.statics, "decide", functools.partial(decide, sides=(4,)))
    r = physics.judge_statics(lean(), mu=0.45)
    assert r.undecided and r.answer == MARGINAL and not r.stable and r.tilt_margin_deg == 0.0
    assert combine(r, None) == "marginal"
    doc = r.to_json(detail=True)["friction"]
    assert doc["verdict"] == "marginal" and not doc["inner"]["stands"] and doc["outer"]["stands"]
    from tower.app.commands.check import verdict_lines

    lines = verdict_lines({"verdict": "marginal", "statics": r.to_json(detail=True), "dynamics": None}, None)
    assert any("undecided" in line and "does not hold it" in line for line in lines)
    with pytest.raises(ValueError, match="neither friction model decides"):
        from physics.certificate import certificate

        certificate(lean(), mu=0.45, result=r)


def test_interlocked_builds_without_friction_need_none():
    assert least_mu(corbelled_arch(3, 2), 0.001).upper == 0.0

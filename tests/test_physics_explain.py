"""Why a build stands: contact forces, the removal map and the push test (physics.forces/removal/push).

Worked examples from hand analysis; every reported force distribution is checked to balance every block."""

from __future__ import annotations

import random

import numpy as np
import pytest

from physics import Box, contact_forces, judge, judge_statics, push_margin, removal_map, remove
from physics.builds import column, random_build
from physics.contacts import find_contacts
from physics.removal import falling_blocks
from physics.units import GRAVITY, grid_box

VERDICT_WORDS = {"stable": "stands", "marginal": "marginal", "collapses": "falls"}


def assert_balanced(boxes: list[Box], forces) -> None:
    """Every block in equilibrium under gravity and the reported contact forces (resultant at its point plus the
    torsion about the normal), to 1e-6 of the build's weight (moments: times the mean box size)."""
    weight = sum(b.mass for b in boxes) * GRAVITY
    size = float(np.mean([b.size for b in boxes]))
    for b in boxes:
        f = np.array([0.0, 0.0, -b.mass * GRAVITY])
        m = np.zeros(3)
        c = np.array(b.centre)
        for k in forces.contacts:
            for who, sign in ((k.b, 1.0), (k.a, -1.0)):
                if who != b.id:
                    continue
                force = sign * np.array(k.force)
                f += force
                m += np.cross(np.array(k.point) - c, force) + sign * k.torsion_nm * np.array(k.normal)
        assert np.abs(f).max() <= 1e-6 * weight, (b.id, f)
        assert np.abs(m).max() <= 1e-6 * weight * size, (b.id, m)


def test_column_forces_carry_the_weight_above():
    """A column of 3 cubes (4 cm, 44.8 g each: 0.04^3 m3 * 700 kg/m3): the table carries 3 m g, the contact above
    the first cube 2 m g, the top contact m g, all at the middle of the 4 x 4 cm faces (2 cm from every edge),
    without friction."""
    boxes = column(3)
    mg = boxes[0].mass * GRAVITY
    res = contact_forces(boxes)
    assert res.stands and res.method == "minimum-norm"
    by_pair = {(c.a, c.b): c for c in res.contacts}
    for (a, b), k in ((("table", "c0"), 3), (("c0", "c1"), 2), (("c1", "c2"), 1)):
        c = by_pair[(a, b)]
        assert c.normal_n == pytest.approx(k * mg, rel=1e-9)
        assert c.friction_n == pytest.approx(0.0, abs=1e-9)
        assert c.point[:2] == pytest.approx((0.02, 0.02), abs=1e-9)
        assert c.edge_distance_m == pytest.approx(0.02, abs=1e-9)
    assert_balanced(boxes, res)


def test_bridge_minimum_norm_splits_evenly():
    """A double cube lying across two cube pillars 4 cm apart: by symmetry the minimum-norm distribution puts
    half of the beam's weight (m_beam g / 2) on each pillar; each pillar passes that plus its own weight down."""
    boxes = [grid_box("p1", (0, 0, 0), (2, 2, 2)), grid_box("p2", (4, 0, 0), (2, 2, 2)),
             grid_box("beam", (0, 0, 2), (6, 2, 2))]
    res = contact_forces(boxes)
    by_pair = {(c.a, c.b): c for c in res.contacts}
    half = boxes[2].mass * GRAVITY / 2
    assert by_pair[("p1", "beam")].normal_n == pytest.approx(half, rel=1e-7)
    assert by_pair[("p2", "beam")].normal_n == pytest.approx(half, rel=1e-7)
    assert by_pair[("table", "p1")].normal_n == pytest.approx(half + boxes[0].mass * GRAVITY, rel=1e-7)
    assert_balanced(boxes, res)


@pytest.mark.parametrize("seed", range(12))
def test_every_reported_distribution_balances(seed):
    """Random builds of 3-25 blocks: where the statics judge finds the build standing, a distribution exists,
    balances every block to 1e-6 of the weight, respects compression and the friction cone; where it falls,
    none is reported."""
    rng = random.Random(1000 + seed)
    boxes = random_build(rng, rng.randint(3, 25))
    res = contact_forces(boxes)
    assert res.stands == judge_statics(boxes).stable
    if not res.stands:
        assert res.contacts == ()
        return
    assert_balanced(boxes, res)
    for c in res.contacts:
        assert c.normal_n >= -1e-9
        assert c.friction_n <= 0.5 * c.normal_n * (1 + 1e-6) + 1e-9
        assert 0.0 <= c.friction_use <= 1.0
    json = res.to_json()
    assert len(json["contacts"]) == len(res.contacts) and json["stands"]


def test_start_tower_forces_balance():
    from tower.climbers.setup import random_start_tower

    boxes = [grid_box(b.id, b.origin, b.size) for b in random_start_tower(0).blocks]
    res = contact_forces(boxes)
    assert res.stands
    assert_balanced(boxes, res)
    table = sum(c.normal_n for c in res.contacts if c.a == "table")
    assert table == pytest.approx(res.weight_n, rel=1e-9)  # the table carries everything


# --- push test --------------------------------------------------------------------------------------------

def test_single_cube_slides_before_it_tips():
    """A 4 cm cube (m g = 0.0448 kg * 9.81 = 0.4395 N) pushed at mid-height, no inset: it tips when
    F (h/2) = m g (w/2), F = m g (w/2)/(h/2) = m g = 0.4395 N, and slides when F = mu m g = 0.5 m g = 0.2197 N.
    The smaller wins: it slides at 0.2197 N, and only that cube moves."""
    boxes = column(1)
    mg = boxes[0].mass * GRAVITY
    r = push_margin(boxes, "c0", "+x", com_inset=0.0)
    assert r.force_n == pytest.approx(0.5 * mg, rel=1e-9)
    assert r.mode == "slide" and r.moves_first == ("c0",)
    assert r.tip_force_n == pytest.approx(mg, rel=1e-9)
    assert r.point == pytest.approx((0.0, 0.02, 0.02))  # the middle of the -x face


def test_single_cube_tips_with_high_friction_and_the_inset():
    """With mu = 1.2, sliding needs 1.2 m g, tipping m g (w/2)/(h/2) = m g: it tips. With the judge's 1 mm
    inset the tipping edge moves in: F = m g (0.02 - 0.001)/0.02 = 0.95 m g."""
    boxes = column(1)
    mg = boxes[0].mass * GRAVITY
    assert push_margin(boxes, "c0", "-y", mu=1.2, com_inset=0.0).force_n == pytest.approx(mg, rel=1e-9)
    r = push_margin(boxes, "c0", "-y", mu=1.2)
    assert r.mode == "tip" and r.force_n == pytest.approx(0.95 * mg, rel=1e-9)


def test_column_pushed_at_the_top():
    """A column of n = 3 cubes pushed at the middle of the top cube's face (height (n - 1/2) h), no inset.
    Tipping the top k cubes about the edge under them needs F (k - 1/2) h = k m g w/2, F = k m g/(2k - 1):
    m g, 2/3 m g, 3/5 m g for k = 1, 2, 3. Sliding the top k cubes needs mu k m g.
    mu = 0.5: the top cube slides first, at 0.5 m g (< 3/5 m g), alone.
    mu = 1.0: sliding needs at least m g, so the whole column tips about the table edge at 3/5 m g."""
    boxes = column(3)
    mg = boxes[0].mass * GRAVITY
    r = push_margin(boxes, "c2", "+x", com_inset=0.0)
    assert r.force_n == pytest.approx(0.5 * mg, rel=1e-9)
    assert r.mode == "slide" and r.moves_first == ("c2",)
    r = push_margin(boxes, "c2", "+x", mu=1.0, com_inset=0.0)
    assert r.force_n == pytest.approx(0.6 * mg, rel=1e-9)
    assert r.mode == "tip" and set(r.moves_first) == {"c0", "c1", "c2"}


def test_push_on_a_falling_build_and_bad_arguments():
    boxes = [grid_box("a", (0, 0, 0), (2, 2, 2)), grid_box("b", (1, 0, 2), (2, 2, 2))]  # b's centre on the edge
    assert push_margin(boxes, "b", "+x").mode == "falls"
    with pytest.raises(KeyError):
        push_margin(boxes, "zz", "+x")
    with pytest.raises(ValueError):
        push_margin(boxes, "a", "up")


# --- removal map ------------------------------------------------------------------------------------------

def _reference(boxes, block, statics_only):
    return judge(remove(boxes, [block]), statics_only=statics_only)


@pytest.mark.parametrize("seed", range(15))
def test_removal_map_statics_matches_one_judge_per_block(seed):
    """The statics-only map equals `judge(remove(boxes, [block]), statics_only=True)` block by block: verdict,
    tilt margin (to the search's 0.05 degree tolerance) and, for falling builds, the same failing blocks."""
    rng = random.Random(seed)
    boxes = random_build(rng, rng.randint(2, 16))
    m = removal_map(boxes, dynamics="none")
    assert [e.block for e in m.entries] == [b.id for b in boxes]
    for e in m.entries:
        ref = _reference(boxes, e.block, True)
        assert e.verdict == VERDICT_WORDS[ref.verdict], e.block
        assert e.tilt_margin_deg == pytest.approx(ref.statics.tilt_margin_deg, abs=0.1)
        if not ref.statics.stable:
            k = [b.id for b in boxes].index(e.block)
            assert set(e.falls) == set(falling_blocks(boxes, find_contacts(boxes), k, ref.statics.mechanism))
        assert e.klass == {"stands": "safe", "marginal": "risky", "falls": "brings-down"}[e.verdict]


@pytest.mark.parametrize("seed", (3, 8))
def test_removal_map_with_dynamics_matches_judge(seed):
    """dynamics="all": both judges on every removal, the combined verdict equals `judge` per block."""
    rng = random.Random(seed)
    boxes = random_build(rng, 5)
    m = removal_map(boxes, dynamics="all")
    for e in m.entries:
        assert e.verdict == VERDICT_WORDS[_reference(boxes, e.block, False).verdict], e.block


def test_removal_map_of_a_column_and_free_blocks():
    """A column of 3 cubes beside a lone cube: taking the top cube or the lone cube changes nothing (safe;
    the lone cube stands on its own), taking a lower cube drops everything above it (brings-down)."""
    boxes = column(3) + [grid_box("lone", (6, 0, 0), (2, 2, 2))]
    m = removal_map(boxes, dynamics="none")
    assert m.by_class() == {"safe": ["c2", "lone"], "risky": [], "brings-down": ["c0", "c1"]}
    assert set(m.entry("c0").falls) == {"c1", "c2"}
    assert m.to_json()["classes"]["brings-down"] == ["c0", "c1"]


def test_margin_at_the_inset_boundary_is_plain_zero():
    """A cube on a cube, shifted so its centre is exactly 1 mm (the inset) inside the lower cube's edge: it
    stands with no margin at all; the JSON says 0.0 (not -0.0) and the verdict word is `marginal`."""
    low = Box("low", (0.0, 0.0, 0.0), (0.04, 0.04, 0.04), 0.0448)
    top = Box("top", (0.019, 0.0, 0.04), (0.04, 0.04, 0.04), 0.0448)
    v = judge([low, top], statics_only=True)
    d = v.to_json()
    assert d["statics"]["stable"] is True
    assert str(d["statics"]["tilt_margin_deg"]) == "0.0"
    assert d["verdict"] == "marginal"

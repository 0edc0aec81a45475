"""Statics judge (LP): analytic cases. Expected numbers come from rigid-body mechanics, not from the code."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import numpy as np
import pytest

from physics import Box, judge_statics, lp, remove, statics, tilt_lp
from physics.builds import column, packed_tower, random_build
from physics.contacts import contact_corners, find_contacts
from physics.statics import COM_INSET_M, TILT_TOL_DEG
from physics.units import DEFAULT_MU, UNIT_M, WOOD_DENSITY, grid_box

E = 2 * UNIT_M  # the game's cube edge, 4 cm
INSET = COM_INSET_M
TOL = TILT_TOL_DEG + 1e-6  # the search's certified resolution


def deg(x: float) -> float:
    return math.degrees(math.atan(x))


def cube(id: str, x: float, z: float, edge: float = E, mass: float | None = None, y: float = 0.0) -> Box:
    m = WOOD_DENSITY * edge**3 if mass is None else mass
    return Box(id, (x, y, z), (edge, edge, edge), m)


@pytest.mark.parametrize("size", [(2, 2, 6), (2, 2, 4), (1, 2, 4), (2, 2, 2)])
def test_single_block_margin_is_min_of_tipping_and_sliding(size):
    b = grid_box("a", (0, 0, 0), size)
    w, h = min(b.size[0], b.size[1]), b.size[2]
    expected = min(deg((w / 2 - INSET) / (h / 2)), deg(DEFAULT_MU))
    r = judge_statics([b])
    assert r.stable
    assert r.tilt_margin_deg == pytest.approx(expected, abs=TOL)
    assert r.margin_bounds_deg[0] <= r.tilt_margin_deg + 1e-9


@pytest.mark.parametrize("mu", [0.2, 0.5])
def test_flat_block_slides_at_atan_mu(mu):
    r = judge_statics([grid_box("a", (0, 0, 0), (2, 2, 1))], mu=mu)
    assert r.stable
    assert r.tilt_margin_deg == pytest.approx(deg(mu), abs=TOL)


def test_tipping_weakest_direction_is_across_the_narrow_side():
    r = judge_statics([Box("slab", (0, 0, 0), (0.1, 0.02, 0.1), 0.14)])
    assert r.tilt_margin_deg == pytest.approx(deg((0.01 - INSET) / 0.05), abs=TOL)
    assert abs(r.weakest_direction[1]) == pytest.approx(1.0, abs=1e-6)


def test_column_of_ten_cubes_stands_and_tips_as_one_body():
    boxes = column(10)
    r = judge_statics(boxes)
    assert r.stable
    # every sub-column above a joint tips about that joint's edge; the whole column (COM at 5 edges) is weakest
    assert r.tilt_margin_deg == pytest.approx(deg((E / 2 - INSET) / (10 * E / 2)), abs=TOL)


def test_overhang_short_of_the_centre_of_mass_stands_with_the_lever_margin():
    s = 0.015  # top cube shifted 1.5 cm: its COM is 5 mm inside the lower cube's edge
    r = judge_statics([cube("a", 0, 0), cube("b", s, E)])
    assert r.stable
    # the top cube tips about the inset edge x = E - INSET; its COM is E/2 above the contact
    lever = (E - INSET) - (s + E / 2)
    assert r.tilt_margin_deg == pytest.approx(deg(lever / (E / 2)), abs=TOL)
    assert r.weakest_direction[0] == pytest.approx(1.0, abs=1e-6)
    assert "b" in r.mechanism


def test_overhang_past_the_centre_of_mass_falls():
    r = judge_statics([cube("a", 0, 0), cube("b", 0.024, E)])
    assert not r.stable
    assert r.tilt_margin_deg < 0
    assert r.weakest_direction[0] > 0.99  # it falls towards +x


def test_centre_exactly_above_an_edge_counts_as_falling():
    boxes = [grid_box("a", (0, 0, 0), (2, 2, 2)), grid_box("b", (1, 0, 2), (2, 2, 2))]  # COM over the edge
    assert not judge_statics(boxes).stable
    # without the inset it is a knife-edge equilibrium with zero margin: the inset is what decides
    knife = judge_statics(boxes, com_inset=0.0)
    assert knife.stable and knife.tilt_margin_deg == pytest.approx(0.0, abs=1e-6)


def test_falling_build_reports_the_tilt_that_would_hold_it():
    s = 0.03  # COM 1 cm past the edge; tilting back by lambda holds it when s + E/2 - lambda E/2 <= E - INSET
    need = (s + E / 2 - (E - INSET)) / (E / 2)
    r = judge_statics([cube("a", 0, 0), cube("b", s, E)], mu=1.0)  # mu > need: friction does not limit
    assert not r.stable
    lo, hi = r.margin_bounds_deg  # the rescue LP's polygon norm brackets the Euclidean value
    assert lo - 1e-6 <= -deg(need) <= hi + 1e-6
    assert r.tilt_margin_deg == pytest.approx(-deg(need), abs=0.5)


def test_counterweighted_cantilever_stands_and_falls_without_its_counterweight():
    base = grid_box("A", (0, 0, 0), (2, 2, 2))
    plank = grid_box("P", (0, 0, 2), (4, 2, 2))  # its COM is right above the base's edge
    weight = grid_box("C", (0, 0, 4), (2, 2, 2))
    boxes = [base, plank, weight]
    r = judge_statics(boxes)
    assert r.stable
    # candidates (+x): plank+weight about the base's inset edge, and everything about the table's inset edge
    m = {b.id: b.mass for b in boxes}
    edge = E - INSET
    com_x = (m["P"] * E + m["C"] * E / 2) / (m["P"] + m["C"])
    com_h = (m["P"] * E / 2 + m["C"] * 3 * E / 2) / (m["P"] + m["C"])
    upper = (edge - com_x) / com_h
    all_x = (m["A"] * E / 2 + m["P"] * E + m["C"] * E / 2) / sum(m.values())
    all_h = (m["A"] * E / 2 + m["P"] * 3 * E / 2 + m["C"] * 5 * E / 2) / sum(m.values())
    whole = (edge - all_x) / all_h
    assert r.tilt_margin_deg == pytest.approx(deg(min(upper, whole)), abs=TOL)
    assert not judge_statics(remove(boxes, ["C"])).stable


def test_bridge_over_a_gap_stands():
    boxes = [grid_box("L", (0, 0, 0), (2, 2, 2)), grid_box("R", (4, 0, 0), (2, 2, 2)),
             grid_box("beam", (0, 0, 2), (6, 2, 2))]
    r = judge_statics(boxes)
    assert r.stable and r.tilt_margin_deg > 1.0
    assert not judge_statics(remove(boxes, ["R"])).stable  # a 6-unit beam on one 2-unit pier tips


def test_block_held_only_by_a_side_face_falls_no_friction_on_vertical_faces():
    boxes = [grid_box("w1", (0, 0, 0), (2, 2, 2)), grid_box("w2", (0, 0, 2), (2, 2, 2)),
             grid_box("hang", (2, 0, 2), (2, 2, 2))]  # touches w2's side, nothing below it
    r = judge_statics(boxes)
    assert not r.stable
    assert r.tilt_margin_deg == -90.0  # no tilt helps: only friction could carry its weight
    assert r.mechanism == ("hang",)


def test_heavy_box_on_a_light_one_tips_about_the_combined_centre_of_mass():
    light, heavy = 0.01, 1.0
    r = judge_statics([cube("light", 0, 0, mass=light), cube("heavy", 0, E, mass=heavy)])
    h = (light * E / 2 + heavy * 3 * E / 2) / (light + heavy)
    assert r.stable
    assert r.tilt_margin_deg == pytest.approx(min(deg((E / 2 - INSET) / h), deg(DEFAULT_MU)), abs=TOL)


def test_floating_box_falls_and_empty_build_stands():
    assert not judge_statics([cube("f", 0, 0.01)]).stable
    assert judge_statics([]).stable


def test_remove_unknown_id_raises():
    with pytest.raises(KeyError):
        remove([cube("a", 0, 0)], ["zz"])


# --- how the judge computes (same answers whichever way) -------------------------------------------------------
def falling_builds(count: int) -> list[list[Box]]:
    out, seed = [], 0
    while len(out) < count:
        rng = random.Random(seed)
        boxes = random_build(rng, rng.randint(4, 25), care=0.3)
        if not judge_statics(boxes).stable:
            out.append(boxes)
        seed += 1
    return out


def assert_same_in_parallel_and_in_sequence(monkeypatch, boxes) -> None:
    """The statics judge of `boxes` with its ray chains on two threads and on one: the same answer, LPs included."""
    monkeypatch.setattr(tilt_lp, "PARALLEL_RAYS", True)
    monkeypatch.setattr(tilt_lp, "cpus", lambda: 2)
    both = judge_statics(boxes)
    monkeypatch.setattr(tilt_lp, "PARALLEL_RAYS", False)
    one = judge_statics(boxes)
    assert (both.stable, both.tilt_margin_deg, both.margin_bounds_deg, both.weakest_direction, both.lps,
            both.mechanism) == (one.stable, one.tilt_margin_deg, one.margin_bounds_deg, one.weakest_direction,
                                one.lps, one.mechanism)


@pytest.mark.parametrize("seed", [0, 3, 7])
def test_the_ray_chains_give_the_same_answer_in_parallel_and_in_sequence(monkeypatch, seed):
    boxes = packed_tower(seed) if seed == 0 else random_build(random.Random(seed), 20, care=1.0)
    assert_same_in_parallel_and_in_sequence(monkeypatch, boxes)


def test_a_build_that_provably_falls_skips_the_rays_with_the_same_answer(monkeypatch):
    for boxes in falling_builds(4):
        fast = judge_statics(boxes)
        monkeypatch.setattr(statics, "quick_fall", lambda *a, **k: False)
        slow = judge_statics(boxes)
        monkeypatch.undo()
        assert not fast.stable and not slow.stable
        assert fast.tilt_margin_deg == slow.tilt_margin_deg
        assert fast.weakest_direction == slow.weakest_direction
        assert fast.lps <= slow.lps


def test_the_rescue_lp_stops_at_the_vertex_linprog_finds():
    # the 16-gon norm's minimiser is not unique; the reported margin is that of the vertex linprog would return
    sp = pytest.importorskip("scipy.sparse")
    linprog = pytest.importorskip("scipy.optimize").linprog
    for boxes in falling_builds(3):
        prob = tilt_lp.TiltProblem(boxes, DEFAULT_MU, COM_INSET_M)
        lam, _ = prob.rescue()
        G = prob.generators()
        G = sp.csc_matrix((G.data, G.indices, G.indptr), shape=(G.rows, G.cols))
        k, n6, s = G.shape[1], 6 * len(boxes), tilt_lp.RESCUE_NORM_SIDES
        lx, ly = np.zeros(n6), np.zeros(n6)
        lx[0::6], ly[1::6] = prob.m, prob.m
        A_eq = sp.hstack([G, sp.csc_matrix(lx[:, None]), sp.csc_matrix(ly[:, None]), sp.csc_matrix((n6, 1))])
        ang = 2 * np.pi * np.arange(s) / s
        A_ub = np.zeros((s, k + 3))
        A_ub[:, k], A_ub[:, k + 1], A_ub[:, k + 2] = np.cos(ang), np.sin(ang), -1.0
        c = np.zeros(k + 3)
        c[-1] = 1.0
        bounds = [(0, None)] * k + [(-tilt_lp.LAMBDA_CAP, tilt_lp.LAMBDA_CAP)] * 2 + [(0, None)]
        res = linprog(c, A_ub=A_ub, b_ub=np.zeros(s), A_eq=A_eq, b_eq=prob.b_eq, bounds=bounds, method="highs")
        if lam is None:
            assert res.status != 0
        else:
            assert lam == pytest.approx(res.x[k:k + 2], abs=1e-9)


def test_the_judge_loads_no_optimiser_but_highs_and_leaves_scipy_usable():
    # (a falling build: the virtual-work test's hull runs too; numpy.ma alone costs ~17 ms to import)
    code = ("import sys, physics; from physics.units import grid_box; "
            "r = physics.judge_statics([grid_box('a', (0, 0, 0), (2, 2, 2)), grid_box('b', (1, 0, 2), (2, 2, 2))]); "
            "print(sorted(m for m in ('scipy.optimize', 'scipy.sparse', 'numpy.ma') if m in sys.modules)); "
            "from scipy.optimize import linprog; print(linprog([1, 1], A_ub=[[-1, -1]], b_ub=[-1]).fun)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["[]", "1.0"]


def test_contact_corners_are_the_inset_rectangles_corners():
    for seed in range(20):
        rng = random.Random(seed)
        boxes = random_build(rng, rng.randint(1, 30))
        boxes.append(Box("thin", (0.3, 0.3, 0.0), (0.0015, 0.01, 0.01), 0.001))  # narrower than 2 insets
        contacts = find_contacts(boxes)
        idx, pts, axes = contact_corners(contacts, INSET)
        expected = []
        for i, c in enumerate(contacts):
            spans = []
            for lo, hi in ((c.rect[0], c.rect[1]), (c.rect[2], c.rect[3])):
                a, b = lo + INSET, hi - INSET
                spans.append((a, b) if a <= b else ((lo + hi) / 2,) * 2)
            u_axis, v_axis = [k for k in range(3) if k != c.axis]
            for u in spans[0]:
                for v in spans[1]:
                    p = [0.0, 0.0, 0.0]
                    p[c.axis], p[u_axis], p[v_axis] = c.plane, u, v
                    expected.append((i, *p, c.axis))
        got = [(int(i), *map(float, p), int(a)) for i, p, a in zip(idx, pts, axes, strict=True)]
        assert got == expected


def test_without_scipys_highs_object_linprog_gives_the_same_margins(monkeypatch):
    builds = [packed_tower(1), *falling_builds(2), [grid_box("a", (0, 0, 0), (2, 2, 1))]]
    direct = [judge_statics(b) for b in builds]
    monkeypatch.setattr(lp, "_hc", False)  # as with a SciPy that has no HiGHS object
    for boxes, d in zip(builds, direct, strict=True):
        r = judge_statics(boxes)
        assert r.stable == d.stable
        assert r.tilt_margin_deg == pytest.approx(d.tilt_margin_deg, abs=1e-6)

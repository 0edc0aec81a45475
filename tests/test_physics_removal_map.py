"""The removal map on interlocked builds (issue 44): large or degenerate builds are judged one removal at a time by
`judge_statics` itself on forked processes, a removal that is the mirror image of another (a symmetry of the build)
copied from it when it stands. Whatever the path, each removal's answer is the one `judge_statics(remove(...))`
gives; and the new builds of physics.builds are what their docstrings say. The speed is
benchmarks/bench_removal_map.py.
"""

from __future__ import annotations

import multiprocessing
import random

import numpy as np
import pytest

import physics.removal_lp as removal_lp
from physics import judge_statics, removal_map, remove
from physics.builds import (
    brick_pyramid,
    corbelled_arch,
    flemish_wall,
    hollow_tower,
    jenga_tower,
    random_build,
    random_interlocked,
    running_bond_wall,
)
from physics.contacts import TABLE, find_contacts
from physics.removal import falling_blocks
from physics.removal_lp import statics_without_each
from physics.statics import COM_INSET_M
from physics.symmetry import symmetries
from physics.units import DEFAULT_MU, grid_box

SAME_DEG = 1e-6


def _builds() -> list[tuple[str, list]]:
    """24 small builds: symmetric ones (their mirror-image removals are copied) and ones without symmetry."""
    out = [("hollow tower 2", hollow_tower(2)), ("Flemish wall 2 x 2", flemish_wall(2, 2)),
           ("running-bond wall 4", running_bond_wall(4)), ("brick pyramid 4", brick_pyramid(4)),
           ("corbelled arch 3", corbelled_arch(3, 1))]
    out += [(f"random interlocked {s}", random_interlocked(random.Random(s), random.Random(s).randint(8, 16), 3))
            for s in range(10)]
    out += [(f"Jenga {s}", jenga_tower(4, 3, random.Random(s))) for s in range(5)]
    out += [(f"random build {s}", random_build(random.Random(s), 8)) for s in range(4)]
    return out


BUILDS = _builds()


@pytest.mark.parametrize("name,boxes", BUILDS, ids=[n for n, _ in BUILDS])
def test_map_judged_one_by_one_equals_the_judge_per_block(name, boxes, monkeypatch):
    """Every block of 24 builds, the map forced onto the one-by-one path (COLD_MIN_BOXES): the same answer, the same
    margin within 1e-6 degrees, the same falling blocks as judge_statics(remove(boxes, [block]))."""
    monkeypatch.setattr(removal_lp, "COLD_MIN_BOXES", 2)
    m = removal_map(boxes, dynamics="none", processes=1 if len(name) % 2 else 2)
    assert m.extra["one_by_one"]
    assert [e.block for e in m.entries] == [b.id for b in boxes]
    for e in m.entries:
        ref = judge_statics(remove(boxes, [e.block]))
        assert e.statics.answer == ref.answer, (name, e.block)
        assert e.statics.tilt_margin_deg == pytest.approx(ref.tilt_margin_deg, abs=SAME_DEG), (name, e.block)
        if not ref.stable:
            k = [b.id for b in boxes].index(e.block)
            assert set(e.falls) == set(falling_blocks(boxes, find_contacts(boxes), k, ref.mechanism)), (name, e.block)


def test_blocks_resting_only_on_falling_ones_fall_too():
    """Two cubes stacked, a double across the top one: without the bottom cube the judge's mechanism is the top
    cube alone (its least unbalance carries the double's weight too), but the double, resting on nothing else,
    falls with it, as `tower check --remove` says; without the top cube only the double falls."""
    boxes = [grid_box("c1", (0, 1, 0), (2, 2, 2)), grid_box("c2", (0, 1, 2), (2, 2, 2)),
             grid_box("d1", (0, 0, 4), (2, 4, 2))]
    assert judge_statics(remove(boxes, ["c1"])).mechanism == ("c2",)
    m = removal_map(boxes, dynamics="none")
    assert set(m.entry("c1").falls) == {"c2", "d1"}
    assert m.entry("c2").falls == ("d1",)
    assert m.entry("d1").falls == () and m.entry("d1").klass == "safe"


def test_mirror_image_removals_are_copied_with_their_direction_and_blocks(monkeypatch):
    """The 20-block hollow tower has both mirrors: of its 20 removals only one per orbit is judged; a copy's weakest
    direction is the mirror image of its original's and its margin the same (and judge_statics' own)."""
    boxes = hollow_tower(2)
    assert {g.name for g in symmetries(boxes)} == {"mirror x", "mirror y", "half turn"}
    monkeypatch.setattr(removal_lp, "COLD_MIN_BOXES", 2)
    out, info = statics_without_each(boxes, find_contacts(boxes), DEFAULT_MU, COM_INSET_M,
                                     list(range(len(boxes))), processes=1)
    assert info["mirrored"] >= len(boxes) // 2 and info["cold"] + info["mirrored"] == len(boxes)
    g = symmetries(boxes)[0]  # mirror x
    for j in range(len(boxes)):
        i = int(g.perm[j])
        if i != j and out[j].stable:
            dj, di = np.array(out[j].weakest_direction), np.array(out[i].weakest_direction)
            assert out[i].tilt_margin_deg == pytest.approx(out[j].tilt_margin_deg, abs=SAME_DEG)
            ref = judge_statics(remove(boxes, [boxes[i].id]))
            assert out[i].tilt_margin_deg == pytest.approx(ref.tilt_margin_deg, abs=SAME_DEG)
            if abs(dj[0]) > 1e-6:  # (a direction along y is its own image)
                assert di == pytest.approx(dj * [-1, 1], abs=1e-9)


def test_which_builds_go_one_by_one():
    """Builds under COLD_MIN_BOXES boxes keep the warm simplex re-solves (the 46-block Jenga tower too: there they
    cost less than judging each removal); from it on the removals are judged one by one."""
    jenga = jenga_tower(18, 8, random.Random(1))
    assert len(jenga) == 46 and removal_lp.COLD_MIN_BOXES == 50
    few = [b.id for b in jenga[-3:]]
    assert not removal_map(jenga, dynamics="none", only=few).extra["one_by_one"]
    wall = running_bond_wall(8)  # 60 blocks
    m = removal_map(wall, dynamics="none", only=[wall[-1].id, wall[0].id])
    assert m.extra["one_by_one"] and len(m.entries) == 2


def test_the_pool_leaves_no_process_behind(monkeypatch):
    """A caller's failure in the middle of the map terminates the workers; a finished map waits for them."""
    monkeypatch.setattr(removal_lp, "COLD_MIN_BOXES", 2)
    boxes = random_interlocked(random.Random(3), 10, 3)

    def fail(i, res):
        raise RuntimeError("the caller gave up")

    with pytest.raises(RuntimeError):
        statics_without_each(boxes, find_contacts(boxes), DEFAULT_MU, COM_INSET_M, list(range(10)),
                             answered=fail, processes=2)
    assert multiprocessing.active_children() == []
    seen = []
    statics_without_each(boxes, find_contacts(boxes), DEFAULT_MU, COM_INSET_M, list(range(10)),
                         answered=lambda i, res: seen.append(i), processes=2)
    assert sorted(seen) == list(range(10)) and multiprocessing.active_children() == []


def _overlap(a, b) -> bool:
    return all(a.lo[k] < b.hi[k] - 1e-9 and b.lo[k] < a.hi[k] - 1e-9 for k in range(3))


def _full_beds(boxes) -> bool:
    """Every box on the table or with its whole footprint on the tops of boxes below (a level bed)."""
    contacts = find_contacts(boxes)
    for k, b in enumerate(boxes):
        if b.lo[2] < 1e-9:
            continue
        area = sum((c.rect[1] - c.rect[0]) * (c.rect[3] - c.rect[2]) for c in contacts
                   if c.b == k and c.axis == 2 and c.a != TABLE)
        if abs(area - b.size[0] * b.size[1]) > 1e-9:
            return False
    return True


@pytest.mark.parametrize("boxes,count", [(hollow_tower(10), 100), (flemish_wall(6, 6), 117),
                                         (flemish_wall(8, 8), 204), (jenga_tower(18, 8, random.Random(1)), 46)])
def test_the_new_builds_have_their_counts_and_no_overlaps(boxes, count):
    assert len(boxes) == count and len({b.id for b in boxes}) == count
    assert not any(_overlap(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1:])


def test_hollow_tower_and_flemish_wall_bond_every_course():
    """Full level beds, and one piece: every block above the first course rests on two or more blocks."""
    for boxes in (hollow_tower(4), flemish_wall(4, 3)):
        assert _full_beds(boxes)
        contacts = find_contacts(boxes)
        for k, b in enumerate(boxes):
            if b.lo[2] > 1e-9:
                below = {c.a for c in contacts if c.b == k and c.axis == 2}
                assert len(below) >= 2 or b.size[0] < 0.07 and b.size[1] < 0.05, b.id  # (closers at the ends)
        assert judge_statics(boxes).stable


def test_random_interlocked_has_no_symmetry_and_stands():
    for seed in range(6):
        boxes = random_interlocked(random.Random(seed), 40)
        assert len(boxes) == 40 and _full_beds(boxes)
        assert not any(_overlap(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1:])
        assert symmetries(boxes) == []
    assert random_interlocked(random.Random(1), 30) == random_interlocked(random.Random(1), 30)  # seeded


def test_jenga_pulls_only_what_players_can():
    """No block from the top level; every level keeps its middle block or both sides (the generator's rule)."""
    boxes = jenga_tower(10, 12, random.Random(5))
    assert len(boxes) == 30 - 12
    levels = {}
    for b in boxes:
        z, k = b.id[1:].split("_")
        levels.setdefault(int(z), set()).add(int(k))
    assert levels[9] == {0, 1, 2}
    assert all(1 in ks or {0, 2} <= ks for ks in levels.values())
    assert judge_statics(boxes).stable


def test_no_workers_under_a_cpu_budget(monkeypatch):
    """A process under RLIMIT_CPU (the lab's budgeted workers) judges the removals itself: forked workers would
    each start a fresh budget."""
    assert removal_lp.default_processes() == min(2, removal_lp.cpus())
    monkeypatch.setattr(removal_lp.resource, "getrlimit", lambda what: (60, 60))
    assert removal_lp.default_processes() == 1

"""The optional third judge: MuJoCo (physics.mujoco_judge), `tower check --judge mujoco`."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("mujoco")

import physics.mujoco_judge as mj  # noqa: E402
from physics import judge, judge_statics  # noqa: E402
from physics.builds import column, random_build  # noqa: E402
from physics.units import grid_box  # noqa: E402
from tower.app.cli import main  # noqa: E402
from tower.schemas import validate  # noqa: E402


def test_column_of_ten_stays_put_with_the_stiff_contacts_and_sinks_with_the_defaults(monkeypatch):
    """The documented reason for SOLREF/SOLIMP: MuJoCo's default contact softness (solref 0.02 s, solimp
    0.9 0.95 0.001) lets the 40 cm column sink by millimetres; the stiff setting keeps it under 1 mm."""
    r = mj.judge_mujoco(column(10))
    assert not r.collapsed and r.max_displacement_mm < 1.0 and r.engine == "mujoco"
    monkeypatch.setattr(mj, "SOLREF_S", 0.02)
    monkeypatch.setattr(mj, "SOLIMP", (0.9, 0.95, 0.001))
    assert mj.judge_mujoco(column(10)).max_displacement_mm > 3.0


def test_overhanging_cube_falls_and_names_itself():
    """A cube whose centre is 1 cm past the edge of the cube under it (origin x = 3 units on a 2-unit cube)."""
    boxes = [grid_box("low", (0, 0, 0), (2, 2, 2)), grid_box("top", (1.5, 0, 2), (2, 2, 2))]
    assert not judge_statics(boxes).stable
    r = mj.judge_mujoco(boxes)
    assert r.collapsed and r.moved == ("top",)


def test_mujoco_agrees_with_statics_on_clear_random_builds():
    """Random builds whose statics margin is at least 1 degree either way: MuJoCo agrees on all but at most one
    of them (its soft contacts and side friction are a different model)."""
    clear = agree = 0
    for seed in range(12):
        rng = random.Random(seed)
        boxes = random_build(rng, rng.randint(2, 16))
        s = judge_statics(boxes)
        if abs(s.tilt_margin_deg) < 1:
            continue
        clear += 1
        agree += s.stable == (not mj.judge_mujoco(boxes).collapsed)
    assert clear >= 8 and agree >= clear - 1


def test_tower_check_judge_mujoco(tmp_path, capsys):
    path = tmp_path / "column.json"
    path.write_text(json.dumps({"format": "tower-build/1", "blocks": [
        {"id": f"c{i}", "origin": [0, 0, 2 * i], "size": [2, 2, 2]} for i in range(3)]}))
    assert main(["check", str(path), "--judge", "mujoco", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stability"]["dynamics"]["engine"] == "mujoco" and doc["stability"]["verdict"] == "stable"
    validate(doc, "tower-check")  # its schema names both engines
    assert main(["check", str(path), "--judge", "mujoco"]) == 0
    assert "dynamics (MuJoCo):   stands" in capsys.readouterr().out
    assert judge(column(2), engine="mujoco").dynamics.engine == "mujoco"
    with pytest.raises(ValueError):
        judge(column(2), engine="bullet3")

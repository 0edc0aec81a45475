"""Physics overlays in the scene (viewer.overlays): forces, removal classes, tilt and push arrows; as scene data,
as `tower-scene/1` JSON and as pictures."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tower.app import stability
from tower.app.cli import main
from tower.climbers.build import parse_build, save_build
from tower.climbers.setup import random_start_tower
from viewer import overlays
from viewer.scene import ALL_RGB, build_scene
from viewer.scene_json import scene_from_json, scene_to_json

#: A small build with a clear story: a beam over two pillars (p1 tall, p2 + c1 stacked), a block on the beam's
#: end and a half cube on that, a loose cube beside: the pillars carry everything, `side` and `h1` can go.
BRIDGE = {"format": "tower-build/1", "blocks": [
    {"id": "p1", "origin": [0, 0, 0], "size": [2, 2, 4]},
    {"id": "p2", "origin": [4, 0, 0], "size": [2, 2, 2]},
    {"id": "beam", "origin": [0, 0, 4], "size": [6, 2, 2]},
    {"id": "c1", "origin": [4, 0, 2], "size": [2, 2, 2]},
    {"id": "top", "origin": [3, 0, 6], "size": [4, 2, 2]},
    {"id": "h1", "origin": [5, 0, 8], "size": [2, 2, 1]},
    {"id": "side", "origin": [6, 0, 0], "size": [2, 2, 2]}]}


@pytest.fixture(scope="module")
def bridge():
    return parse_build(BRIDGE)


def _length(a) -> float:
    return float(np.linalg.norm(np.subtract(a.head, a.tail)))


def test_force_overlay_draws_what_is_certain_and_what_is_possible(bridge):
    """Per contact, from the middle of its rectangle along its normal: a thick arrow as long as the least normal
    force (carried in every distribution), a thin one as long as the greatest; the minimum-norm example as thin
    arrows from its points of application; all on one scale (the longest arrow is the largest greatest force or
    example force), with a scale arrow of a round number of newtons; blocks shaded by what they must carry."""
    forces = stability.forces(bridge).to_json()
    scene = overlays.with_forces(build_scene(bridge), forces)
    contacts = forces["contacts"]
    biggest = max(max(c["bounds"]["normal_n"][1] for c in contacts),
                  max(float(np.linalg.norm(c["force"])) for c in contacts))
    per_newton = overlays.FORCE_ARROW_MAX / biggest
    certain = [a for a in scene.arrows if a.kind == "force-certain"]
    possible = [a for a in scene.arrows if a.kind == "force-possible"]
    example = [a for a in scene.arrows if a.kind == "force-example"]
    want_certain = sorted(c["bounds"]["normal_n"][0] * per_newton for c in contacts
                          if c["bounds"]["normal_n"][0] * per_newton >= overlays.FORCE_ARROW_MIN)
    assert sorted(_length(a) for a in certain) == pytest.approx(want_certain) and len(want_certain) >= 7
    want_possible = sorted(c["bounds"]["normal_n"][1] * per_newton for c in contacts
                           if c["bounds"]["carries"] != "determinate")
    assert sorted(_length(a) for a in possible) == pytest.approx(want_possible)
    assert len(example) == len(contacts) - 1  # all but the side contact's 0.06 N (0.06 units: a dot)
    assert all(a.radius < min(b.radius for b in certain) for a in example + possible)
    # the side contact may carry nothing (a thin arrow only), the determinate table under `side` a thick one only
    side = next(c for c in contacts if c["b"] == "side" and c["a"] == "p2")
    assert side["bounds"]["carries"] == "may-carry-nothing"
    assert any(a.tail == pytest.approx((6.0, 1.0, 1.0)) for a in possible)  # the middle of p2's +x face
    assert not any(a.tail == pytest.approx((6.0, 1.0, 1.0)) for a in certain)
    scale = next(a for a in scene.arrows if a.kind == "scale")
    step = float(next(lab.text for lab in scene.labels if lab.text.endswith(" N")).split()[0])
    assert _length(scale) == pytest.approx(step * per_newton)
    tint = {b.id: b.tint for b in scene.blocks}
    assert tint["p2"] == "load-heavy" and tint["c1"] == "load-heavy"  # they must carry beam, top and h1
    assert tint["side"] == "load-none" and tint["h1"] == "load-none"  # nothing rests on them
    assert scene.block_opacity < 1
    words = " ".join(e.text for e in scene.legend)
    assert "every distribution" in words and "minimum-norm" in words and "3 determinate, 5 must carry" in words


def test_force_overlay_without_bounds_draws_the_minimum_norm_resultants(bridge):
    """The minimum-norm distribution alone (contact_forces without bounds): one arrow per loaded contact through
    its point of application, the largest FORCE_ARROW_MAX long, labelled as one distribution of many."""
    from physics import contact_forces

    forces = contact_forces(stability.build_boxes(bridge)).to_json()
    scene = overlays.with_forces(build_scene(bridge), forces)
    arrows = [a for a in scene.arrows if a.kind == "force"]
    biggest = max(float(np.linalg.norm(c["force"])) for c in forces["contacts"])
    drawn = [c for c in forces["contacts"]
             if float(np.linalg.norm(c["force"])) * overlays.FORCE_ARROW_MAX / biggest >= overlays.FORCE_ARROW_MIN]
    assert len(arrows) == len(drawn) >= 7
    assert max(_length(a) for a in arrows) == pytest.approx(overlays.FORCE_ARROW_MAX)
    assert any("one of many" in e.text for e in scene.legend)


def test_removal_overlay_tints_blocks_by_class_with_counts(bridge):
    removal = stability.removal(bridge, statics_only=True).to_json()
    scene = overlays.with_removal_map(build_scene(bridge), removal)
    tint = {b.id: b.tint for b in scene.blocks}
    assert tint["side"] == "safe" and tint["h1"] == "safe"
    assert tint["p1"] == "brings-down" and tint["beam"] == "brings-down"
    assert [e.colour for e in scene.legend] == ["safe", "risky", "brings-down"]
    assert scene.legend[0].text.startswith("safe to take (2)")


def test_overlays_travel_in_the_scene_json(bridge):
    scene = overlays.with_forces(build_scene(bridge), stability.forces(bridge).to_json())
    scene = overlays.with_pushes(scene, [r.to_json() for r in stability.push(bridge, "top", ("+x",))])
    doc = json.loads(json.dumps(scene_to_json(scene)))
    assert {a["kind"] for a in doc["arrows"]} == {"force-certain", "force-possible", "force-example", "scale", "push"}
    assert doc["palette"]["load-heavy"] == list(ALL_RGB["load-heavy"])
    back = scene_from_json(doc)
    assert back.arrows == scene.arrows and back.legend == scene.legend and back.blocks == scene.blocks


def test_push_and_tilt_arrows_point_at_the_face_and_the_weak_side(bridge):
    push = stability.push(bridge, "top", ("+x",))[0].to_json()
    scene = overlays.with_pushes(build_scene(bridge), [push])
    arrow = scene.arrows[0]
    assert arrow.head == pytest.approx((3.0, 1.0, 7.0))  # the middle of top's -x face, in grid units
    assert arrow.head[0] > arrow.tail[0]
    statics = stability.judge_build(bridge, statics_only=True).to_json()["statics"]
    scene = overlays.with_weakest_tilt(build_scene(bridge), statics)
    tilt = scene.arrows[0]
    d = np.subtract(tilt.head, tilt.tail)[:2]
    assert np.dot(d / np.linalg.norm(d), statics["weakest_direction"]) > 0.99


def _fraction(img: np.ndarray, rgb, tol: float = 40.0) -> float:
    p = img.reshape(-1, 3).astype(float)
    return float(np.mean(np.linalg.norm(p - np.asarray(rgb, dtype=float), axis=1) < tol))


def test_view_removal_map_screenshot_shows_the_classes(tmp_path, capsys):
    path = tmp_path / "tower.json"
    save_build(random_start_tower(0), path)
    out = tmp_path / "removal.png"
    assert main(["view", str(path), "--removal-map", "--screenshot", str(out)]) == 0
    from PIL import Image

    img = np.asarray(Image.open(out).convert("RGB"))
    # safe blocks (most of them) are light green, the ones that bring others down dark red; no face colours
    assert _fraction(img, ALL_RGB["safe"], 45) > 0.05
    assert _fraction(img, ALL_RGB["brings-down"], 45) > 0.002
    assert _fraction(img, ALL_RGB["purple"], 20) < 0.001


def test_view_forces_screenshot_shows_arrows_over_the_blocks(tmp_path, capsys):
    path = tmp_path / "bridge.json"
    path.write_text(json.dumps(BRIDGE))
    out = tmp_path / "forces.png"
    assert main(["view", str(path), "--forces", "--screenshot", str(out)]) == 0
    from PIL import Image

    img = np.asarray(Image.open(out).convert("RGB"))
    assert _fraction(img, ALL_RGB["force"], 30) > 0.004  # the near-black arrows
    # the weakest-direction arrow on the table (toward +y: partly behind the tower from the front camera)
    assert _fraction(img, ALL_RGB["tilt"], 40) > 0.0002


def test_view_overlay_of_a_game_record_is_bad_input(tmp_path, capsys):
    record = tmp_path / "r.json"
    record.write_text(json.dumps({"format": "game-record/1", "game": "climbers", "players": 2, "seed": 0,
                                  "options": {}, "moves": []}))
    assert main(["view", str(record), "--forces", "--screenshot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "game record" in err[0]
    assert not (tmp_path / "x.png").exists()


#: A pyramid of double cubes in running bond, four courses (4, 3, 2, 1): every block above the base spans two
#: below, so the load can take many paths and no block must carry much of it (one more double cube than the game has).
PYRAMID = {"format": "tower-build/1", "blocks": [
    {"id": f"p{k}_{i}", "origin": [2 * k + 4 * i, 0, 2 * k], "size": [4, 2, 2]} for k in range(4) for i in range(4 - k)]}


def test_load_shades_are_shares_of_the_build_weight():
    """Blocks are shaded by the least load from above they must carry as a share of the build's weight (>= 25 %,
    10-25 %, 2-10 %, white below), not relative to the most loaded block: the bridge's pillars must carry a quarter
    of the weight or more and are dark, the beam (24 %) medium, `top` (5 %) light, p1 (under 1 %) white."""
    bridge = parse_build(BRIDGE)
    forces = stability.forces(bridge).to_json()
    carried: dict[str, float] = {}
    for c in forces["contacts"]:
        if c["a"] != "table" and c["normal"][2] > 0.5:
            carried[c["a"]] = carried.get(c["a"], 0.0) + c["bounds"]["normal_n"][0]
    share = {b: load / forces["weight_n"] for b, load in carried.items()}
    tint = {b.id: b.tint for b in overlays.with_forces(build_scene(bridge), forces).blocks}
    for block, t in tint.items():
        s = share.get(block, 0.0)
        want = "load-heavy" if s >= 0.25 else "load-medium" if s >= 0.10 else "load-light" if s >= 0.02 else "load-none"
        assert t == want, (block, s, t)
    assert (tint["p2"], tint["c1"], tint["beam"], tint["top"], tint["p1"]) == \
        ("load-heavy", "load-heavy", "load-medium", "load-light", "load-none")


def test_an_interlocked_pyramid_is_not_shaded_as_if_a_few_blocks_carried_it():
    """The pyramid's upper blocks must carry 0.02 N (the millimetre inset's leftover, 0.2 % of the weight): no
    block is shaded, and the legend says why (the load can take many paths) instead of naming 0.02 N the most."""
    build = parse_build(PYRAMID)
    scene = overlays.with_forces(build_scene(build), stability.forces(build).to_json())
    assert {b.tint for b in scene.blocks} == {"load-none"}
    shades = [e for e in scene.legend if e.colour.startswith("load-")]
    assert len(shades) == 1 and "no block must carry 2%" in shades[0].text and "many paths" in shades[0].text


def test_the_weakest_direction_arrow_floats_over_the_build():
    """On the table, the arrow toward the back of a wall lay behind it; it is drawn over the build's top now,
    pointing the weakest way."""
    build = parse_build(PYRAMID)
    statics = stability.judge_build(build, statics_only=True).to_json(detail=True)["statics"]
    tilt = next(a for a in overlays.with_weakest_tilt(build_scene(build), statics).arrows if a.kind == "tilt")
    top = max(b.top for b in build.blocks)
    assert tilt.tail[2] > top and tilt.head[2] > top
    d = np.subtract(tilt.head, tilt.tail)[:2]
    assert np.dot(d / np.linalg.norm(d), statics["weakest_direction"]) > 0.99
    assert 0 <= (tilt.tail[0] + tilt.head[0]) / 2 <= 16  # over the pyramid's footprint, not beside it


#: An arch of blocks corbelled from two cube pillars, a key block on top (the reviewer's): it falls, the left
#: blocks tipping right, the right ones left, the key dropping between them.
ARCH = {"format": "tower-build/1", "blocks": [
    {"id": "L0", "origin": [0, 0, 0], "size": [2, 2, 2]}, {"id": "R0", "origin": [12, 0, 0], "size": [2, 2, 2]},
    {"id": "L2", "origin": [0, 0, 2], "size": [2, 2, 2]}, {"id": "R2", "origin": [12, 0, 2], "size": [2, 2, 2]},
    {"id": "cL1", "origin": [0, 0, 4], "size": [4, 2, 2]}, {"id": "cR1", "origin": [10, 0, 4], "size": [4, 2, 2]},
    {"id": "cL2", "origin": [2, 0, 6], "size": [4, 2, 2]}, {"id": "cR2", "origin": [8, 0, 6], "size": [4, 2, 2]},
    {"id": "key", "origin": [4, 0, 8], "size": [6, 2, 2]}]}


def test_a_falling_arch_is_told_block_by_block_alike_in_check_the_picture_and_the_lab(tmp_path, capsys):
    """`tower check`, the picture and the lab say what the verdict's `failure` says: every moving block, each group
    with how it moves and which way its centre goes (the L blocks +x, the R blocks -x, the key straight down)."""
    from tower.app.lab.analysis import verdict_words
    from viewer.view import build_view_scene

    path = tmp_path / "arch.json"
    path.write_text(json.dumps(ARCH))
    assert main(["check", str(path), "--statics-only", "--json"]) == 1
    failure = json.loads(capsys.readouterr().out)["stability"]["statics"]["failure"]
    right = {m["block"] for m in failure["blocks"] if m["velocity"][0] > 0.1}
    left = {m["block"] for m in failure["blocks"] if m["velocity"][0] < -0.1}
    assert right == {"cL1", "cL2"} and left == {"cR1", "cR2"}
    assert main(["check", str(path), "--statics-only"]) == 1
    line = next(x for x in capsys.readouterr().out.splitlines() if "falls:" in x)
    said = ["cL2 and cL1 tip over toward the right (+x)", "cR2 and cR1 tip over toward the left (-x)",
            "key drops straight down"]
    assert all(words in line for words in said), line
    build = parse_build(ARCH)
    lab = " ".join(verdict_words(stability.judge_build(build, statics_only=True).to_json(detail=True), build))
    assert all(words in lab for words in said), lab
    scene = build_view_scene(build, physics=stability)
    header = " ".join(scene.lines)
    assert all(words in header for words in said), header
    assert {b.id for b in scene.blocks if b.tint == "moving"} == {m["block"] for m in failure["blocks"]}
    assert next(e.text for e in scene.legend if e.colour == "moving") == "falls: these 5 blocks: 4 tip over, 1 drops"


def _falling(n: int, mode: str) -> tuple:
    """A scene of n cubes and a `failure` in which all of them move in `mode` toward +x (straight down: drop)."""
    build = parse_build({"format": "tower-build/1", "blocks": [
        {"id": f"b{k}", "origin": [3 * k, 0, 0], "size": [2, 2, 2]} for k in range(n)]})
    turns = mode in ("tip", "tip-and-slide")
    slips = mode in ("slide", "tip-and-slide")
    blocks = [{"block": f"b{k}", "velocity": [0.0, 0.0, -1.0] if mode == "drop" else [1.0, 0.0, -0.2],
               "spin_rad_per_m": [0.0, 5.0, 0.0] if turns else [0.0, 0.0, 0.0],
               "axis_point": [0.04, 0.02, 0.0] if turns else None} for k in range(n)]
    failure = {"mode": mode, "blocks": blocks, "slides_on": [[f"b{k}", "table"] for k in range(n)] if slips else [],
               "pivots_on": []}
    return build_scene(build), {"stable": False, "failure": failure}


@pytest.mark.parametrize("mode, one, several", [
    ("tip", "this block tips over", "these 3 blocks tip over"),
    ("slide", "this block slides", "these 3 blocks slide"),
    ("tip-and-slide", "this block tips over and slips", "these 3 blocks tip over and slip"),
    ("drop", "this block drops", "these 3 blocks drop")])
def test_the_fall_legend_agrees_with_its_count(mode, one, several):
    """One block or several, in every failure mode: the verb agrees with its subject ("this block drop" was said)."""
    from viewer.physics_words import fall_words

    for n, words in ((1, one), (3, several)):
        scene, statics = _falling(n, mode)
        legend = overlays.with_failure(scene, statics).legend
        assert legend[0].text == f"falls: {words}"
    where = " straight down" if mode == "drop" else " toward the right (+x)"
    assert fall_words(_falling(1, mode)[1]["failure"]) == one.replace("this block", "b0") + where
    assert fall_words(_falling(3, mode)[1]["failure"]) == several.replace("these 3 blocks", "b0, b1 and b2") + where


def test_the_picture_header_says_the_block_count_warning_as_check_does():
    """Ten double cubes, the game has nine: the header says so in the CLI's words, not by naming a block the count
    happened to reach ("block-count: p3_0")."""
    from viewer.view import build_view_scene

    lines = build_view_scene(parse_build(PYRAMID)).lines
    assert "legal (with warnings)" in lines
    assert "  block-count: 10 double-cube blocks; the game has 9" in lines
    assert not any("p3_0" in line for line in lines)

"""The lab's controller without a window or a browser: edits, refusals named by their rule, undo/redo, the live
verdict from the real statics judge, and the drop from the real PyBullet judge."""

from __future__ import annotations

import json

import pytest

from tower.app import stability
from tower.app.lab.controller import (
    MAX_LAB_BLOCKS,
    LabController,
    default_faces,
    kind_sizes,
    top_colours,
)
from tower.app.lab.refusals import placement_edit
from tower.climbers.blocks import COLOURS, TOP, colouring_problem, kind_of
from tower.climbers.build import Block, Build, build_to_json, parse_build
from tower.climbers.setup import random_start_tower
from tower.games.errors import BadInput, IllegalMove


def three_block_tower(rules: str = "strict") -> LabController:
    lab = LabController(rules=rules, physics=stability)
    lab.add_block("cube", (0, 0, 0))
    lab.add_block("cube", (0, 0, 2))
    lab.add_block("half-cube", (0, 0, 4), size=(2, 2, 1), top="red")
    return lab


def verdict(lab: LabController) -> str:
    return lab.analysis()["stability"]["verdict"]


def test_a_three_block_tower_built_by_hand_stands_and_is_legal() -> None:
    lab = three_block_tower()
    assert [b.id for b in lab.build.blocks] == ["c1", "c2", "h1"]
    assert lab.build.block("h1").origin == (0, 0, 4) and lab.build.block("h1").size == (2, 2, 1)
    a = lab.analysis()
    assert a["legal"] and a["violations"] == []
    assert verdict(lab) == "stable"
    assert a["stability"]["statics"]["tilt_margin_deg"] > 10
    assert any("STABLE" in w and "tilted" in w for w in a["words"])
    assert lab.selected == "h1"  # a new block is selected


def test_strict_rules_refuse_an_overhang_by_its_rule_and_change_nothing() -> None:
    lab = three_block_tower("strict")
    before = lab.build
    with pytest.raises(IllegalMove) as err:
        lab.edit({"op": "move", "block": "h1", "origin": [1, 0, 4]})
    assert err.value.rule == "unsupported"
    assert lab.build is before and len(lab.history) == 4


def test_flagged_overhang_is_allowed_outlined_and_turns_the_verdict_to_falling() -> None:
    lab = three_block_tower("flag")
    lab.edit({"op": "delete", "block": "h1"})
    # a double cube lying on top, three quarters of it out over the edge: its weight is past the support
    lab.edit({"op": "add", "kind": "double-cube", "origin": [1, 0, 4], "size": [4, 2, 2]})
    a = lab.analysis()
    assert not a["legal"]
    assert [v["rule"] for v in a["violations"]] == ["unsupported"]
    assert a["violations"][0]["block"] == "d1"
    assert verdict(lab) == "collapses"
    assert any("falls" in w for w in a["words"])
    scene = lab.scene()
    assert scene.blocks[scene.block_index("d1")].problems == ("unsupported",)
    assert any(m.kind == "problem" for m in scene.markers)
    # undo back to the standing tower
    lab.undo()
    lab.undo()
    assert verdict(lab) == "stable" and [b.id for b in lab.build.blocks] == ["c1", "c2", "h1"]
    lab.redo()
    assert [b.id for b in lab.build.blocks] == ["c1", "c2"]


def test_overlap_and_below_table_are_refused_in_every_rule_set() -> None:
    for rules in ("strict", "flag", "free"):
        lab = three_block_tower(rules)
        before = lab.build
        with pytest.raises(IllegalMove) as err:
            lab.add_block("cube", (1, 1, 1))
        assert err.value.rule == "overlap"
        with pytest.raises(IllegalMove) as err:
            lab.add_block("cube", (5, 5, -1))
        assert err.value.rule == "below-table"
        with pytest.raises(IllegalMove) as err:
            lab.add_block("cube", (99, 0, 0))
        assert err.value.rule == "off-table"
        assert lab.build is before


def test_free_building_judges_physics_only() -> None:
    lab = LabController(rules="free", physics=stability)
    lab.add_block("cube", (0, 0, 3))  # floating in the air: the rules would say unsupported
    a = lab.analysis()
    assert a["violations"] == [] and a["legal"]
    assert verdict(lab) == "collapses"
    assert "free building" in a["words"][1]


def test_undo_and_redo_walk_the_history_and_a_new_edit_drops_the_redo_branch() -> None:
    lab = three_block_tower()
    builds = [e.build for e in lab.history]
    lab.undo()
    lab.undo()
    assert lab.build is builds[1]
    lab.redo()
    assert lab.build is builds[2]
    lab.add_block("grey", (4, 0, 0), size=(2, 2, 6))
    assert not lab.can_redo
    with pytest.raises(IllegalMove) as err:
        lab.redo()
    assert err.value.rule == "nothing-to-redo"
    for _ in range(3):
        lab.undo()
    assert lab.build.blocks == [] and not lab.can_undo
    with pytest.raises(IllegalMove):
        lab.undo()


def test_undo_and_redo_show_the_verdicts_already_found_without_judging_again() -> None:
    class Counting:
        """The real judges, counting the statics verdicts asked of them."""

        def __init__(self) -> None:
            self.judged = 0

        def judge_build(self, build: Build, statics_only: bool = False):
            self.judged += 1
            return stability.judge_build(build, statics_only=statics_only)

    physics = Counting()
    lab = LabController(rules="flag", physics=physics)
    lab.add_block("cube", (0, 0, 0))
    lab.add_block("cube", (1, 0, 2))  # half over the edge: falls (the inset)
    seen = []
    for step in (lambda: None, lab.undo, lab.redo, lab.undo, lab.redo):
        step()
        seen.append(verdict(lab))
    assert seen == ["collapses", "stable", "collapses", "stable", "collapses"]
    assert physics.judged == 2  # one per build; the walk back and forth judged nothing again
    lab.set_rules("strict")  # the rules change the problems shown, not the verdict
    assert verdict(lab) == "collapses" and physics.judged == 2


def test_turning_keeps_a_valid_colouring_and_quarter_turns_come_back() -> None:
    lab = LabController(rules="free")
    lab.add_block("double-cube", (0, 0, 0), size=(2, 2, 4), top="red")
    b = lab.build.block("d1")
    assert COLOURS[b.faces[TOP]] == "red"
    lab.edit({"op": "turn", "block": "d1", "axis": "x"})
    lying = lab.build.block("d1")
    assert lying.size == (2, 4, 2) and colouring_problem(lying.faces, kind_of(lying.size)) is None
    for _ in range(3):
        lab.edit({"op": "turn", "block": "d1", "axis": "x"})
    assert lab.build.block("d1") == b


def test_only_valid_colourings_are_offered() -> None:
    assert set(top_colours((2, 2, 2))) == set(COLOURS)
    assert top_colours((2, 2, 6)) == ["grey"]
    assert (2, 2, 1) in kind_sizes("half-cube") and (1, 2, 2) in kind_sizes("half-cube")
    for size in kind_sizes("cube"):
        for top in top_colours(size):
            faces = default_faces(size, top)
            assert colouring_problem(faces, kind_of(size)) is None and COLOURS[faces[TOP]] == top
    lab = LabController()
    bad = {"+x": "red", "-x": "red", "+y": "dark-blue", "-y": "light-blue", "+z": "purple", "-z": "grey"}
    with pytest.raises(IllegalMove) as err:
        lab.edit({"op": "add", "kind": "cube", "origin": [0, 0, 0], "faces": bad})
    assert err.value.rule == "face-colouring"
    with pytest.raises(BadInput):
        lab.add_block("grey", (0, 0, 0), top="red")


def test_figures_and_stones_are_placed_moved_and_removed() -> None:
    lab = three_block_tower("strict")
    lab.edit({"op": "figure", "colour": "red", "cell": [0, 0, 5]})
    assert lab.analysis()["legal"]
    lab.edit({"op": "figure", "colour": "red", "cell": [1, 1, 5]})  # the red figure moves, not a second one
    assert [(f.colour, f.cell) for f in lab.build.figures] == [("red", (1, 1, 5))]
    with pytest.raises(IllegalMove) as err:  # a yellow figure on the red top
        lab.edit({"op": "figure", "colour": "yellow", "cell": [0, 0, 5]})
    assert err.value.rule == "figure-wrong-colour"
    with pytest.raises(IllegalMove) as err:  # floating above the tower
        lab.edit({"op": "figure", "colour": "yellow", "cell": [0, 0, 9]})
    assert err.value.rule == "figure-not-on-surface"
    lab.edit({"op": "stone", "colour": "yellow", "block": "h1"})
    with pytest.raises(IllegalMove) as err:  # the figure standing on it would float
        lab.edit({"op": "delete", "block": "h1"})
    assert err.value.rule == "figure-not-on-surface"
    lab.edit({"op": "unfigure", "colour": "red"})
    assert lab.edit({"op": "delete", "block": "h1"}) == "deleted h1 (and the yellow stone)"
    assert lab.build.stones == [] and lab.build.figures == []


def test_deleting_a_block_under_another_is_refused_in_strict_rules() -> None:
    lab = three_block_tower("strict")
    with pytest.raises(IllegalMove) as err:
        lab.edit({"op": "delete", "block": "c2"})
    assert err.value.rule == "unsupported"


def test_malformed_edits_are_bad_input_and_change_nothing() -> None:
    lab = three_block_tower()
    before = lab.build
    for op, where in [({"op": "add", "kind": "pyramid", "origin": [0, 0, 0]}, "$.kind"),
                      ({"op": "add", "kind": "cube", "origin": [0, 0]}, "$.origin"),
                      ({"op": "add", "kind": "cube", "origin": [0, 0, 0.5]}, "$.origin"),
                      ({"op": "add", "kind": "cube", "origin": [6, 6, 0], "size": [2, 2, 4]}, "$.size"),
                      ({"op": "jump"}, "$.op"),
                      ({"op": "move", "block": "c1", "origin": [6, 6, 0], "top": {}}, "$.top"),  # even unused
                      ({"op": "add", "kind": "cube", "origin": [6, 6, 0], "id": None}, "$.id"),
                      ({"op": "move", "block": "c1", "origin": [0, 0, 0], "speed": 3}, "$.speed"),
                      ({"op": "load", "build": {"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0]}]}},
                       "$.blocks[0]")]:
        with pytest.raises(BadInput) as err:
            lab.edit(op)
        assert err.value.where == where, (op, err.value)
    for op, rule in [({"op": "move", "block": "zz", "origin": [0, 0, 0]}, "no-block"),  # what the build holds
                     ({"op": "add", "kind": "cube", "origin": [6, 6, 0], "id": "c1"}, "id-taken"),
                     ({"op": "load", "build": {"format": "tower-build/1", "blocks": [
                         {"id": "x", "origin": [0, 0, 0], "size": [2, 2, 2]},
                         {"id": "x", "origin": [4, 0, 0], "size": [2, 2, 2]}]}}, "bad-build")]:
        with pytest.raises(IllegalMove) as refused:
            lab.edit(op)
        assert refused.value.rule == rule, (op, refused.value)
    assert lab.build is before


def test_a_loaded_build_is_one_edit_checked_as_any_edit_and_worded_as_tower_check_words_it() -> None:
    lab = three_block_tower()
    start = random_start_tower(3)
    lab.edit({"op": "load", "build": build_to_json(start)})
    assert lab.build.blocks == start.blocks
    lab.undo()
    assert len(lab.build.blocks) == 3
    before = lab.build
    cube = {"origin": [0, 0, 0], "size": [2, 2, 2]}
    overlapping = {"format": "tower-build/1", "blocks": [dict(cube, id="a"), dict(cube, id="b")]}
    floating = {"format": "tower-build/1", "blocks": [dict(cube, id="a", origin=[0, 0, 4])]}
    for rules, doc, rule in [("strict", overlapping, "overlap"), ("flag", overlapping, "overlap"),
                             ("free", overlapping, "overlap"), ("strict", floating, "unsupported")]:
        lab.set_rules(rules)
        with pytest.raises(IllegalMove) as err:
            lab.edit({"op": "load", "build": doc})
        assert err.value.rule == rule and lab.build is before, (rules, err.value)
    assert "'allow, outline' opens it" in str(err.value)  # the page's way to the rules that outline
    lab.set_rules("flag")  # the game's rules outlined, not refused: the floating cube is shown with its problem
    lab.edit({"op": "load", "build": floating})
    assert [v["rule"] for v in lab.analysis()["violations"]] == ["unsupported"]
    # a game record is named as one, as `tower check` names it
    record = {"format": "game-record/1", "game": "climbers", "players": 2, "seed": 1, "moves": []}
    with pytest.raises(BadInput) as bad:
        lab.edit({"op": "load", "build": record})
    assert bad.value.where == "$.format" and bad.value.what.startswith("this is a game record, not a build")
    # and so is a build to start a lab from
    with pytest.raises(IllegalMove):
        LabController(parse_build(overlapping), rules="free")


def test_no_refused_click_on_the_start_tower_in_strict_rules_goes_unannounced_by_the_ghost() -> None:
    """Every spot the pointer can aim at round the start tower, for every kind in hand and for a block moved: the
    ghost's announcement (LabController.refusals, asked once per block in hand) is exactly what the click gets."""
    from viewer.placement import Aim, BlockPlacements, Shape, column_heights
    from viewer.scene import face_names

    lab = LabController(random_start_tower(1), rules="strict")
    area = (-12, -12, 22, 22)
    tops = [(x + 0.5, y + 0.5, float(h)) for (x, y), h in column_heights(lab.build.blocks).items()]
    sides = [(b.origin[0] + b.size[0], b.origin[1] + 1.0, b.origin[2] + 0.5) for b in lab.build.blocks]
    table = [(x + 0.5, -1.5, 0.0) for x in range(-2, 12, 2)]
    spots = [(p, (0, 0, 1)) for p in tops + table] + [(p, (1, 0, 0)) for p in sides]
    clicks = refused = 0
    hands = [("new", k, [Shape(s, "red", face_names(lab.ghost(k, s, "red", (0, 0, 0)))) for s in lab.sizes(k)])
             for k in ("half-cube", "cube", "double-cube")]
    top_block = max(lab.build.blocks, key=lambda b: b.top)
    hands.append((top_block.id, "", [Shape(top_block.size, face_names(top_block)[4], face_names(top_block))]))
    for block, kind, shapes in hands:
        announced = lab.refusals(block, shapes, area, kind)
        heights = column_heights(lab.build.blocks, None if block == "new" else block)
        aim = Aim(BlockPlacements.resting(block, shapes, heights, area, -100, 200))
        for point, normal in spots:
            aim.point(point, normal)
            cur = aim.current
            if cur is None:
                continue
            before = lab.build
            try:
                lab.edit(placement_edit(block, kind, aim.ps.shapes[cur.shape], cur.origin))
            except IllegalMove as exc:
                said = f"{exc.rule}: {exc.message}"
                refused += 1
                assert lab.build is before
            else:
                said = None
                lab.undo()
            clicks += 1
            assert aim.ps.refusal(cur, **announced) == said, (block, kind, point, cur.text, said)
            if said is not None and block == "new":  # "the new cube", never the id it would have had
                assert f"the new {kind.replace('-', ' ')}" in said and lab._new_id(kind) not in said, said
    print(f"{clicks} clicks, {refused} refused, all announced")
    assert clicks > 300 and refused > 50, (clicks, refused)


def test_the_refusals_answer_lists_what_touches_something_and_judges_the_bare_table_once() -> None:
    """LabController.refusals read back per placement (`BlockPlacements.refusal`: the listed ones, else the
    shape's `elsewhere` where the footprint touches nothing) is, for every placement in the area, exactly what its
    edit gets; only placements touching a block's column or a figure's are listed, so a whole-table area answers
    with a few entries, however the bare table is judged."""
    from viewer.placement import BlockPlacements, Shape, column_heights, touching_corners
    from viewer.scene import face_names

    lab = LabController(rules="strict")
    lab.add_block("cube", (0, 0, 0))
    lab.add_block("cube", (4, 0, 0))
    lab.add_block("cube", (0, 0, 2))  # c3 on c1: moving c1 off leaves it unsupported
    lab.edit({"op": "figure", "colour": "purple", "cell": [4, 1, 2]})  # on c2's purple top
    lab.edit({"op": "figure", "colour": "red", "cell": [-3, 3, 0]})  # on the table
    grey = [Shape(s, top, face_names(lab.ghost("grey", s, "grey", (0, 0, 0))) if top == "grey" else (top,) * 6)
            for s in lab.sizes("grey")[:2] for top in ("grey", "red")]  # a red grey block: refused anywhere
    c1 = lab.block("c1")
    area = (-5, -4, 9, 5)
    for block, kind, shapes in (("new", "grey", grey), ("c1", "", [Shape(c1.size, "grey", face_names(c1))])):
        answer = lab.refusals(block, shapes, area, kind)
        heights = column_heights(lab.build.blocks, None if block == "new" else block)
        figures = {(f.cell[0], f.cell[1]) for f in lab.build.figures}
        ps = BlockPlacements.resting(block, shapes, heights, area, -100, 200, figures)
        for p in ps.placements:
            refused = lab.refusal(placement_edit(block, kind, ps.shapes[p.shape], p.origin))
            assert ps.refusal(p, **answer) == (refused and f"{refused.rule}: {refused.message}"), p.text
        assert all(ps.touches(p) for p in ps.placements if p.text in answer["refused"])
        # the corners found from the occupied columns are exactly the touching ones, in `resting`'s order
        for k, shape in enumerate(shapes):
            assert touching_corners(shape.size, heights, figures, area) == \
                [p.origin[:2] for p in ps.placements if p.shape == k and ps.touches(p)]
        whole = lab.refusals(block, shapes, (-100, -100, 100, 100), kind)
        assert whole["elsewhere"] == answer["elsewhere"] and len(whole["refused"]) < 200
    assert answer["elsewhere"][0].startswith("unsupported: block c3 has 4 of 4")
    assert [w and w.split(":")[0] for w in lab.refusals("new", grey, area, "grey")["elsewhere"]] == \
        [None, "face-colouring"] * 2


def test_the_block_cap() -> None:
    blocks = [Block(f"b{i}", (2 * (i % 40) - 80, 2 * (i // 40) - 80, 0), (2, 2, 1), default_faces((2, 2, 1)))
              for i in range(MAX_LAB_BLOCKS + 1)]
    with pytest.raises(IllegalMove) as err:
        LabController(Build(blocks))
    assert err.value.rule == "too-many-blocks"
    lab = LabController(Build(blocks[:-1]), rules="free")
    with pytest.raises(IllegalMove) as err:
        lab.add_block("cube", (90, 90, 0))
    assert err.value.rule == "too-many-blocks"


def test_the_drop_runs_pybullet_and_names_the_moved_blocks() -> None:
    lab = three_block_tower("flag")
    standing = lab.drop()
    assert standing["moved"] == [] and standing["stability"]["verdict"] == "stable"
    assert standing["frames"][0]["poses"]["c1"][0] == [1.0, 1.0, 1.0]  # centre in grid units
    lab.edit({"op": "move", "block": "h1", "origin": [3, 0, 0]})
    lab.edit({"op": "add", "kind": "double-cube", "origin": [1, 0, 4], "size": [4, 2, 2]})
    falling = lab.drop()
    assert "d1" in falling["moved"] and falling["collapsed"]
    assert len(falling["frames"]) > 5
    last = falling["frames"][-1]["poses"]["d1"][0]
    assert last[2] < 4  # it came down


def test_the_drop_is_the_scenes_animation_in_tower_scene_json() -> None:
    from viewer.scene_json import scene_from_json, scene_to_json

    lab = three_block_tower("flag")
    lab.edit({"op": "move", "block": "h1", "origin": [3, 0, 0]})
    lab.edit({"op": "add", "kind": "double-cube", "origin": [1, 0, 4], "size": [4, 2, 2]})
    dropped = lab.drop()
    scene = lab.drop_scene(dropped)
    assert scene.moved == dropped["moved"] and len(scene.frames) == len(dropped["frames"])
    assert scene.frames[0].poses["d1"] == dropped["frames"][0]["poses"]["d1"]
    back = scene_from_json(scene_to_json(scene))
    assert back.moved == scene.moved and [f.t for f in back.frames] == [f.t for f in scene.frames]
    assert list(back.frames[-1].poses["d1"][0]) == list(scene.frames[-1].poses["d1"][0])


def test_free_placement_rests_where_the_pointer_is_and_stays_in_front_of_a_side_face() -> None:
    """The lab's use of the shared placement controller (viewer.placement, `resting`): the block in hand goes
    where the pointer is, on the highest column under it; against a side face it stands in front of the face."""
    from viewer.placement import Aim, BlockPlacements, Shape

    heights = {(x, y): 4 for x in range(2) for y in range(2)}  # a two-cube tower on columns 0..1
    lying = Shape((4, 2, 2), "red", ("grey",) * 6)
    cube = Shape((2, 2, 2), "red", ("grey",) * 6)
    aim = Aim(BlockPlacements.resting("new", [lying, cube], heights, (-12, -12, 14, 14), -100, 200))
    aim.point((1.0, 1.0, 4.0), (0, 0, 1))  # the middle of the top
    assert aim.current.origin == (-1, 0, 4)
    aim.point((3.1, 1.0, 0.0), (0, 0, 1))  # the table right of the tower: overhanging it, resting on it
    assert aim.current.origin == (1, 0, 4)
    aim.point((2.0, 1.0, 1.0), (1, 0, 0))  # the tower's +x side: in front of it, on the table
    assert aim.current.origin == (2, 0, 0)
    aim.point((0.0, 1.0, 1.0), (-1, 0, 0))  # its -x side
    assert aim.current.origin == (-4, 0, 0)
    aim.cycle(1)  # the next shape: the cube
    assert aim.ps.shapes[aim.current.shape] == cube and aim.current.origin == (-2, 0, 0)
    assert aim.ps.spot((150.0, 0.0, 0.0), (0, 0, 1)) is None  # off the lab's table
    back = BlockPlacements.from_json(aim.ps.to_json())
    assert back.free and back.lo == -100


def test_a_warning_is_said_as_a_warning_and_not_outlined_as_a_problem() -> None:
    lab = LabController(rules="strict")
    for x in range(3):  # three grey blocks: the game has two; a warning, not a refusal
        lab.add_block("grey", (4 * x, 0, 0), size=(2, 2, 6))
    lab.add_block("cube", (0, 4, 0))
    words = lab.analysis()["words"]
    assert "legal (1 warning)" in words and any(w.startswith("  warning: block-count:") for w in words), words
    assert not any(w.startswith("ILLEGAL") for w in words)
    scene = lab.scene()
    assert not scene.problem_blocks  # no red outline for a warning
    lab.set_rules("flag")
    lab.add_block("cube", (9, 4, 2))  # floating: an error beside the warning
    words = lab.analysis()["words"]
    assert words[1] == "ILLEGAL: 1 problem, 1 warning" and words[2].startswith("  unsupported:")
    assert lab.scene().problem_blocks == [lab.build.blocks[-1].id]


def _whole_build_refusals(lab: LabController, block: str, shapes, area, kind: str):
    """`lab.refusals` with every placement checked against the whole build (`legality.Near` bypassed)."""
    from tower.climbers import legality

    def whole(self, after, index):
        return legality.check_build(self.build), legality.check_build(after)

    original = legality.Near.problems
    legality.Near.problems = whole
    try:
        lab._near = None
        return lab.refusals(block, shapes, area, kind)
    finally:
        legality.Near.problems = original
        lab._near = None


def test_refusals_checked_round_the_changed_block_say_what_the_whole_build_check_says() -> None:
    """The ghost's refusals check each placement only round the block it adds or moves (`legality.Near`): over
    games in progress (figures, stones), a wall, a build with problems of its own in flagged rules, and blocks in
    hand both new and moved, the answer is the whole-build check's, word for word."""
    import random

    from physics.builds import running_bond_wall
    from tower.games import new_game
    from tower.games.ai import make_agent
    from viewer.placement import Shape
    from viewer.scene import face_names

    labs = []
    for seed in (3, 8):  # a game some rounds in: figures on the tower, stones on its blocks
        state, agent = new_game("climbers", 3, seed=seed), make_agent("greedy", seed=seed)
        for _ in range(24):
            if state.is_over:
                break
            state.apply(agent.choose(state))
        labs.append(LabController(state.to_build(), rules="strict", check=False))
    wall = Build([Block(b.id, tuple(round(v / 0.02) for v in b.lo), tuple(round(v / 0.02) for v in b.size),
                        default_faces(tuple(round(v / 0.02) for v in b.size))) for b in running_bond_wall(6)])
    labs.append(LabController(wall, rules="free", check=False))
    flawed = random_start_tower(4)
    lifted = flawed.blocks[0]
    flawed.blocks[0] = Block(lifted.id, (lifted.origin[0], lifted.origin[1], lifted.origin[2] + 1), lifted.size,
                             lifted.faces)  # floats over its place: a problem the build has before any edit
    labs.append(LabController(flawed, rules="flag", check=False))
    rng = random.Random(5)
    compared = 0
    for lab in labs:
        xs = [b.origin[0] for b in lab.build.blocks]
        ys = [b.origin[1] for b in lab.build.blocks]
        area = (min(xs) - 3, min(ys) - 3, max(xs) + 6, max(ys) + 6)
        hands = [("new", k, [Shape(s, "red", face_names(lab.ghost(k, s, "red", (0, 0, 0)))) for s in lab.sizes(k)])
                 for k in ("half-cube", "double-cube")]
        for b in rng.sample(lab.build.blocks, 3):
            hands.append((b.id, "", [Shape(b.size, face_names(b)[4], face_names(b))]))
        for block, kind, shapes in hands:
            fast = lab.refusals(block, shapes, area, kind)
            assert fast == _whole_build_refusals(lab, block, shapes, area, kind), (block, kind)
            compared += len(fast["refused"])
    assert compared > 100, compared


def test_a_file_the_lab_refuses_names_the_way_this_lab_was_opened(tower_cli, tmp_path) -> None:
    """`tower lab FILE` (and `tower view FILE --edit`) refuse a build the strict rules refuse in one line that
    names the command line's way to the rules that outline problems (`--rules flag`), not the page's choice."""
    path = tmp_path / "floating.json"
    path.write_text(json.dumps({"format": "tower-build/1", "blocks": [{"id": "a", "origin": [0, 0, 4],
                                                                        "size": [2, 2, 2]}]}))
    for args in (["lab", str(path), "--no-browser"], ["view", str(path), "--edit"]):
        proc = tower_cli(args)
        assert proc.returncode == 2 and "unsupported" in proc.stderr, (args, proc.stderr)
        assert "--rules flag opens it" in proc.stderr and "allow, outline" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1

"""The pure state-to-scene step: asserted on data, nothing rendered."""

from __future__ import annotations

import pytest

from tower.blocks import COLOURS
from tower.build import Block, Build, Figure, Stone
from tower.legality import check_build
from tower.setup import random_start_tower
from viewer.scene import PALETTE, SceneGhost, build_scene, ghost_from_move


@pytest.fixture(scope="module")
def tower() -> Build:
    return random_start_tower(1)


def test_start_tower_gives_one_scene_block_per_block(tower: Build) -> None:
    scene = build_scene(tower, check_build(tower))
    assert len(scene.blocks) == len(tower.blocks) == 35
    assert scene.problem_blocks == []
    assert not [m for m in scene.markers if m.kind == "problem"]


def test_face_colours_match_the_build(tower: Build) -> None:
    scene = build_scene(tower)
    for sb, b in zip(scene.blocks, tower.blocks, strict=True):
        assert sb.id == b.id
        assert sb.faces == tuple(COLOURS[c] for c in b.faces)
        assert sb.bounds == (b.origin[0], b.origin[0] + b.size[0], b.origin[1], b.origin[1] + b.size[1],
                             b.origin[2], b.origin[2] + b.size[2])
    assert sum(b.faces.count("grey") for b in scene.blocks) >= 12  # the two grey blocks at least


def test_every_face_colour_has_a_distinct_display_colour() -> None:
    assert set(PALETTE) == set(COLOURS)
    assert len(set(PALETTE.values())) == len(COLOURS)
    r, g, b = PALETTE["grey"]
    assert r == g == b  # a true neutral
    light, dark = PALETTE["light-blue"], PALETTE["dark-blue"]
    assert sum(light) - sum(dark) > 200  # the two blues differ clearly in lightness


def test_violations_flag_their_blocks_and_cells() -> None:
    cube = (0, 1, 2, 3, 4, 5)
    build = Build([Block("a", (0, 0, 0), (2, 2, 2), cube), Block("b", (1, 0, 0), (2, 2, 2), cube),
                   Block("c", (5, 0, 3), (2, 2, 2), cube)])
    violations = check_build(build)
    rules = {v.rule for v in violations}
    assert {"overlap", "unsupported"} <= rules
    scene = build_scene(build, violations)
    flagged = {b.id: b.problems for b in scene.blocks}
    assert "overlap" in flagged["a"] + flagged["b"]
    assert "unsupported" in flagged["c"]
    cells = {m.cell for m in scene.markers if m.kind == "problem" and m.rule == "unsupported"}
    assert cells and all(5 <= x < 7 for x, _, _ in cells)


def test_violations_in_json_form_work_too() -> None:
    build = Build([Block("c", (0, 0, 2), (2, 2, 2), (0, 1, 2, 3, 4, 5))])
    docs = [v.to_json() for v in check_build(build)]
    assert build_scene(build, docs).problem_blocks == ["c"]


def test_figures_stones_and_selection() -> None:
    build = Build([Block("a", (0, 0, 0), (2, 2, 2), (0, 1, 2, 3, 4, 5)), Block("g", (2, 0, 0), (2, 2, 6), (5,) * 6)],
                  [Figure("purple", (0, 0, 2)), Figure("red", (4, 4, 0))], [Stone("red", "g")])
    scene = build_scene(build, selected="a", movable=["a", "g"], current_colour="red")
    assert [f.colour for f in scene.figures] == ["purple", "red"]
    assert [f.current for f in scene.figures] == [False, True]
    assert scene.stones[0].centre == (3.0, 1.0, 6.0)
    assert [b.selected for b in scene.blocks] == [True, False]
    assert [b.movable for b in scene.blocks] == [True, True]
    x0, x1, y0, y1 = scene.table
    assert x0 < 0 and x1 > 4 and y0 < 0 and y1 > 4


def test_ladders_come_from_the_players_view() -> None:
    players = [{"colour": "red", "short_ladder": True, "long_ladder": True},
               {"colour": "yellow", "short_ladder": False, "long_ladder": True}]
    scene = build_scene(Build(), players=players)
    assert sorted((lad.colour, lad.kind, lad.height) for lad in scene.ladders) == [
        ("red", "long", 4), ("red", "short", 2), ("yellow", "long", 4)]


def test_ghost_of_a_block_move_keeps_the_chosen_top() -> None:
    from tower.climbers.moves import ClimbersMove

    build = Build([Block("a", (0, 0, 0), (2, 2, 2), (0, 1, 2, 3, 4, 5))])
    move = ClimbersMove("block", cell=(3, 0, 0), block="a", size=(2, 2, 2), top=COLOURS.index("red"))
    ghost = ghost_from_move(move, build, selected=True)
    assert isinstance(ghost, SceneGhost) and ghost.selected
    assert ghost.faces[4] == "red" and ghost.origin == (3, 0, 0)
    scene = build_scene(build, ghosts=[ghost])
    assert scene.bounds()[1] == 5


def test_climbers_view_scene() -> None:
    from tower.games import new_game
    from viewer.games import scene_for_view

    state = new_game("climbers", 3, seed=2)
    view = state.view(0)
    scene = scene_for_view("climbers", view)
    assert len(scene.blocks) == len(view["build"]["blocks"])
    assert len(scene.figures) == 3
    assert len(scene.ladders) == 6  # everyone starts with both ladders
    assert any("to play" in line for line in scene.lines)

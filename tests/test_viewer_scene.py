"""The pure state-to-scene step: asserted on data, nothing rendered."""

from __future__ import annotations

import numpy as np
import pytest

from tower.climbers.blocks import COLOURS
from tower.climbers.build import Block, Build, Figure, Stone
from tower.climbers.legality import check_build
from tower.climbers.setup import random_start_tower
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
    scene = scene_for_view(state.layout, view)
    assert len(scene.blocks) == len(view["build"]["blocks"])
    assert len(scene.figures) == 3
    assert len(scene.ladders) == 6  # everyone starts with both ladders
    assert any("to play" in line for line in scene.lines)


# --- The Climbers: status, overlays --------------------------------------------------------------------------

def test_climbers_status_names_player_step_heights_ladders_and_stone() -> None:
    from tower.games import new_game
    from viewer.scene import climbers_status

    state = new_game("climbers", 3, seed=2)
    view = state.view(0)
    view["players"][1].update(height=6, short_ladder=False, stone="c4")
    lines = climbers_status(view)
    cur = view["players"][view["current_player"]]["colour"]
    assert lines[0].startswith("round 1:") and f"{cur} to play" in lines[0] and "figure move" in lines[0]  # rounds counted from 1
    assert len(lines) == 4 and lines[1 + view["current_player"]].startswith(">")
    second = lines[2].split()
    assert second[:3] == [view["players"][1]["colour"], "height", "6"]
    assert "ladders long " in lines[2] and "stone c4" in lines[2]
    assert "ladders short+long" in lines[1] and "stone unused" in lines[1]
    view["current_player"] = None
    assert climbers_status(view)[0].endswith("game over")


def test_hover_and_current_figure_marks() -> None:
    build = Build([Block("a", (0, 0, 0), (2, 2, 2), (0, 1, 2, 3, 4, 5))], [Figure("red", (0, 0, 2))])
    scene = build_scene(build, hover="a", current_colour="red")
    assert scene.hover == "a" and scene.figures[0].current


def test_figure_foot_rings_show_the_player_to_move_and_problems() -> None:
    from viewer.layers import CURRENT_RGB, EDGE_RGB, layer_meshes, template
    from viewer.scene import PROBLEM_RGB

    build = Build([], [Figure("red", (0, 0, 0)), Figure("yellow", (3, 0, 0)), Figure("purple", (6, 0, 2))])
    scene = build_scene(build, [{"rule": "figure-not-on-surface", "blocks": [], "cells": [[6, 0, 2]]}],
                        current_colour="yellow")
    mesh = layer_meshes(scene)["figures"]
    _, tris, part = template("figure")
    rgb = mesh.cell_data["rgb"].reshape(3, len(tris), 3)
    rings = [tuple(int(v) for v in rgb[i][part == 1][0]) for i in range(3)]
    bodies = [tuple(int(v) for v in rgb[i][part == 0][0]) for i in range(3)]
    assert rings == [EDGE_RGB, CURRENT_RGB, PROBLEM_RGB]
    assert bodies == [PALETTE["red"], PALETTE["yellow"], PALETTE["purple"]]


# --- card games: positions, colours, labels ------------------------------------------------------------------

def _labels_near(scene, x: float, y: float, r: float = 2.0) -> list[str]:
    return [lab.text for lab in scene.labels if abs(lab.position[0] - x) < r and abs(lab.position[1] - y) < r]


def test_seventh_heaven_pawns_stand_on_their_spaces() -> None:
    from viewer.cards.seventh_heaven import SEVENTH_SPECIALS, seventh_heaven_scene, seventh_track

    view = {"track_length": 20, "pawns": {"red": 0, "blue": 5, "grey": 5, "yellow": 20, "green": 13, "pink": 1},
            "partners": {"red": 0, "blue": 1}, "hand": ["blue+1", "foot", "white-2"], "you": 0, "current_player": 0}
    scene = seventh_heaven_scene(view)
    track = seventh_track(20)
    for colour, space in view["pawns"].items():
        fig = next(f for f in scene.figures if f.colour == colour)
        x, y, z = track[space]
        assert abs(fig.cell[0] + 0.5 - x) < 1 and abs(fig.cell[1] + 0.5 - y) < 1 and fig.cell[2] == z, colour
    for space, (colour, text) in SEVENTH_SPECIALS.items():
        block = scene.blocks[scene.block_index(f"space-{space}")]
        assert block.faces[4] == colour and block.bounds[5] == track[space][2]
        assert text in [lab.text for lab in scene.labels]
    assert scene.blocks[scene.block_index("space-20")].faces[4] == "gold"
    hand = [b for b in scene.blocks if b.id.startswith("hand-")]
    assert [b.faces[4] for b in hand] == ["blue", "gold", "white"]
    assert [_labels_near(scene, b.bounds[0] + 0.8, b.bounds[2] + 1.2, 0.5) for b in hand] == [["+1"], ["foot"], ["-2"]]
    assert {b.id for b in scene.blocks if b.id.startswith("partner-")} == {"partner-0-0", "partner-1-0"}


def test_partners_pawns_are_placed_by_their_location() -> None:
    from viewer.cards.partners import SECTION, partners_board, partners_scene

    board = partners_board(4)
    t = SECTION * 4
    locations = [-1, 0, 17, t + 0] + [-1] * 8 + [t + 4 + 3 * 4 + 2, -1, -1, -1]
    view = {"players": 4, "colours": ["yellow", "red", "blue", "green"], "locations": locations, "you": 1,
            "hand": ["7", "switch"], "teams": [[0, 2], [1, 3]], "current_player": 1}
    scene = partners_scene(view)
    assert len(scene.figures) == 16 and all(f.scale > 1 for f in scene.figures)
    centre = [(f.cell[0] + 0.5, f.cell[1] + 0.5) for f in scene.figures]
    assert np.allclose(centre[0], board["bases"][0][0])
    assert np.allclose(centre[1], board["track"][0]) and np.allclose(centre[2], board["track"][17])
    assert np.allclose(centre[3], board["homes"][0])
    assert np.allclose(centre[12], board["finish"][3][2]) and scene.figures[12].colour == "green"
    assert scene.blocks[scene.block_index("space-16")].faces[4] == "red"  # seat 1's first space
    hand = [b for b in scene.blocks if b.id.startswith("hand-")]
    assert [b.faces[4] for b in hand] == ["red", "red"]  # the colour of the player looking
    assert "P1 (you)" in [lab.text for lab in scene.labels]


def test_diabolo_rows_lay_hell_left_and_heaven_right_with_values() -> None:
    from viewer.cards.diabolo import diabolo_scene

    rows = [{"colour": c, "devil": [], "angel": [], "closed": False} for c in ("red", "yellow", "green", "purple", "blue")]
    rows[1].update(devil=[3, 5], angel=[2])
    rows[4]["closed"] = True
    view = {"player": 0, "rows": rows, "scores": [4, 0, 7], "hand": ["green 5", "purple 1"], "scoring_row": "yellow",
            "current_player": 0, "round": 1, "rounds": 3}
    scene = diabolo_scene(view)
    devil = [scene.blocks[scene.block_index(f"devil-1-{k}")] for k in range(2)]
    angel = scene.blocks[scene.block_index("angel-1-0")]
    marker = scene.blocks[scene.block_index("row-1")]
    assert all(b.bounds[1] < marker.bounds[0] for b in devil) and angel.bounds[0] > marker.bounds[1]
    assert devil[1].bounds[0] < devil[0].bounds[0]  # later cards further out
    assert all(b.faces[4] == "yellow" for b in devil + [angel])
    texts = [lab.text for lab in scene.labels]
    assert {"3", "5", "2", "sum 8", "sum 2 scoring"} <= set(texts)
    assert scene.blocks[scene.block_index("row-4")].faces[0] == "black"  # closed row
    assert [b.faces[4] for b in scene.blocks if b.id.startswith("hand-")] == ["green", "purple"]
    assert any("P2: 7" in line for line in scene.lines)


# --- preview and move animation --------------------------------------------------------------------------------

def test_preview_shows_what_a_move_changes_but_never_the_hand() -> None:
    from viewer.cards.diabolo import diabolo_scene
    from viewer.motion import preview, with_preview

    rows = [{"colour": c, "devil": [], "angel": [], "closed": False} for c in ("red", "yellow", "green", "purple", "blue")]
    now = diabolo_scene({"rows": rows, "hand": ["green 5", "purple 1"]})
    rows_after = [dict(r) for r in rows]
    rows_after[2] = dict(rows[2], angel=[5])
    after = diabolo_scene({"rows": rows_after, "hand": ["purple 1", "yellow 4"]})  # a new card drawn
    ghosts, figures = preview(now, after)
    assert [g.block for g in ghosts] == ["angel-2-0"] and ghosts[0].selected and not figures
    assert ghosts[0].origin == after.blocks[after.block_index("angel-2-0")].origin

    from viewer.cards.seventh_heaven import seventh_heaven_scene

    base = {"track_length": 20, "partners": {}, "hand": []}
    a = seventh_heaven_scene(dict(base, pawns={"red": 0, "blue": 3}))
    b = seventh_heaven_scene(dict(base, pawns={"red": 4, "blue": 3}))
    shown = with_preview(a, b)
    assert [f.colour for f in shown.ghost_figures] == ["red"]
    assert shown.ghost_figures[0].cell == next(f.cell for f in b.figures if f.colour == "red")
    assert [m.cell for m in shown.markers if m.kind == "target"] == [shown.ghost_figures[0].cell]
    assert shown.figures == a.figures  # the pawns themselves stay where they are


def test_tween_moves_blocks_and_figures_part_of_the_way() -> None:
    from viewer.motion import HOP, tween, tween_frames

    cube = (0, 1, 2, 3, 4, 5)
    a = build_scene(Build([Block("a", (0, 0, 0), (2, 2, 2), cube), Block("b", (4, 0, 0), (2, 2, 2), cube)],
                          [Figure("red", (0, 0, 2))]))
    b = build_scene(Build([Block("a", (0, 4, 0), (2, 2, 4), cube), Block("b", (4, 0, 0), (2, 2, 2), cube)],
                          [Figure("red", (4, 0, 2))]))
    half = tween(a, b, 0.5)
    moved = half.blocks[0]
    assert moved.origin == (0, 2, HOP) and moved.size == (2, 2, 3)
    assert half.blocks[1] == b.blocks[1]
    assert half.figures[0].cell == (2, 0, 2 + HOP)
    frames = tween_frames(a, b, 6)
    assert len(frames) == 6 and frames[-1] is b
    ys = [f.blocks[0].origin[1] for f in frames]
    assert ys == sorted(ys) and 0 < ys[0] < ys[-2] < 4


def test_fit_view_keeps_every_point_inside_the_free_part_of_the_window() -> None:
    from viewer.camera import fit_view

    rng = np.random.default_rng(3)
    points = rng.uniform(-5, 5, (40, 3)) * [3, 1, 2]
    rect = (-0.9, 0.4, -0.9, 0.6)
    position, focal = fit_view(points, (0.75, -1.0, 0.72), (0, 0, 1), 30.0, 4 / 3, rect)
    d = (focal - position) / np.linalg.norm(focal - position)
    right = np.cross(d, [0, 0, 1])
    right /= np.linalg.norm(right)
    up = np.cross(right, d)
    rel = points - position
    depth = rel @ d
    t = np.tan(np.radians(15))
    x, y = rel @ right / (depth * t * 4 / 3), rel @ up / (depth * t)
    assert (depth > 0).all()
    assert x.min() >= rect[0] - 1e-9 and x.max() <= rect[1] + 1e-9
    assert y.min() >= rect[2] - 1e-9 and y.max() <= rect[3] + 1e-9
    # as close as possible: the points touch the free area's edges on one axis at least
    assert np.isclose(x.max() - x.min(), rect[1] - rect[0]) or np.isclose(y.max() - y.min(), rect[3] - rect[2])


@pytest.mark.parametrize("game,players", [("seventh-heaven", 3), ("partners", 4), ("diabolo", 3)])
def test_a_spectators_card_scene_shows_no_hand_and_says_it_is_watching(game: str, players: int) -> None:
    from tower.games import new_game
    from viewer.games import scene_for_view

    state = new_game(game, players, seed=3)
    scene = scene_for_view(state.layout, state.public_view())
    assert not [b for b in scene.blocks if b.id.startswith("hand-")]
    assert "watching" in scene.lines[0] and "(you)" not in " ".join(lb.text for lb in scene.labels)
    seat = scene_for_view(state.layout, state.view(1))
    assert f"you are {state.player_label(1)}" in seat.lines[0]


def test_in_7th_heaven_the_track_shows_the_special_spaces_the_game_was_set_up_with() -> None:
    from tower.games import new_game
    from viewer.games import scene_for_view

    standard = new_game("seventh-heaven", 3, seed=1)
    texts = {lb.text for lb in scene_for_view(standard.layout, standard.view(0)).labels}
    assert {"2->5", "4 swap!", "13->10"} <= texts
    other = new_game("seventh-heaven", 3, seed=1, options={"specials": "3:7,5:must,11:2"})
    texts = {lb.text for lb in scene_for_view(other.layout, other.view(0)).labels}
    assert {"3->7", "5 swap!", "11->2"} <= texts and "2->5" not in texts

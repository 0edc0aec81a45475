"""Legality of hand-written builds, one rule at a time (rules: Building, Figures; docs/formats.md).

Every violation must name its rule, the block(s) involved and the exact cells; these tests check all three.
"""

from __future__ import annotations

from typing import Any

import pytest

from tower.climbers.blocks import OPPOSITE, PAIRS
from tower.climbers.build import parse_build
from tower.climbers.legality import RULES, Violation, check_build, is_legal


def faces(top: str) -> dict[str, str]:
    """A legal colouring with `top` on the +z face."""
    rest = [p for p in PAIRS if top not in p]
    return {"+z": top, "-z": OPPOSITE[top], "+x": rest[0][0], "-x": rest[0][1], "+y": rest[1][0], "-y": rest[1][1]}


def blk(block_id: str, origin, size, top: str | None = None) -> dict[str, Any]:
    b: dict[str, Any] = {"id": block_id, "origin": list(origin), "size": list(size)}
    if top is not None:
        b["faces"] = faces(top)
    return b


def check(blocks, figures=(), stones=()) -> list[Violation]:
    doc = {"format": "tower-build/1", "blocks": list(blocks),
           "figures": [{"color": c, "cell": list(cell)} for c, cell in figures],
           "stones": [{"color": c, "block": b} for c, b in stones]}
    return check_build(parse_build(doc))


def of_rule(violations: list[Violation], rule: str) -> list[Violation]:
    assert rule in RULES
    return [v for v in violations if v.rule == rule]


def column(x: int, y: int) -> list[tuple[int, int]]:
    """Cells (x..x+1, y..y+1) at height z: the 2x2 footprint of a block."""
    return [(x + i, y + j) for i in range(2) for j in range(2)]


def cells_at(xy: list[tuple[int, int]], z: int) -> tuple[tuple[int, int, int], ...]:
    return tuple(sorted((x, y, z) for x, y in xy))


# --- supported builds ----------------------------------------------------------------------------------

def test_a_block_standing_on_the_table_is_legal():
    assert check([blk("a", (0, 0, 0), (2, 2, 2))]) == []


def test_a_block_resting_squarely_on_another_is_legal():
    assert check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (0, 0, 2), (2, 2, 1))]) == []


def test_a_block_offset_like_a_brick_over_two_blocks_is_legal():
    # two cubes side by side, a third across the joint between them (x 1..3)
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (2, 0, 0), (2, 2, 2)), blk("c", (1, 0, 2), (2, 2, 2))])
    assert v == []


def test_brick_bond_courses_offset_in_both_directions_are_legal():
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (2, 0, 0), (2, 2, 2)),
               blk("c", (0, 2, 0), (2, 2, 2)), blk("d", (2, 2, 0), (2, 2, 2)),
               blk("top", (1, 1, 2), (2, 2, 2))])
    assert v == []


def test_a_block_spanning_three_supports_of_equal_height_is_legal():
    # a lying grey block over three cubes
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (2, 0, 0), (2, 2, 2)), blk("c", (4, 0, 0), (2, 2, 2)),
               blk("g", (0, 0, 2), (6, 2, 2))])
    assert v == []


def test_supports_of_equal_height_built_from_different_blocks_are_legal():
    # a cube (top 2) beside two stacked half cubes (top 1 + 1 = 2), bridged by a lying double cube
    v = check([blk("cube", (0, 0, 0), (2, 2, 2)), blk("h1", (2, 0, 0), (2, 2, 1)), blk("h2", (2, 0, 1), (2, 2, 1)),
               blk("d", (0, 0, 2), (4, 2, 2))])
    assert v == []


# --- unsupported -----------------------------------------------------------------------------------------

def test_a_block_spanning_supports_of_unequal_height_is_unsupported_over_the_lower_one():
    # cube (top 2) at x 0..2 and half cube (top 1) at x 2..4; a double cube lying across both at z = 2
    v = check([blk("cube", (0, 0, 0), (2, 2, 2)), blk("half", (2, 0, 0), (2, 2, 1)),
               blk("d", (0, 0, 2), (4, 2, 2))])
    assert [x.rule for x in v] == ["unsupported"]
    assert v[0].blocks == ("d",)
    assert v[0].cells == ((2, 0, 1), (2, 1, 1), (3, 0, 1), (3, 1, 1))
    assert not is_legal(v)


def test_a_block_on_the_lower_of_two_unequal_supports_runs_into_the_higher_and_overhangs():
    # the same supports; this block lies on the lower one (z = 1): it overlaps the higher one and overhangs
    v = check([blk("cube", (0, 0, 0), (2, 2, 2)), blk("half", (2, 0, 0), (2, 2, 1)),
               blk("d", (1, 0, 1), (4, 2, 2))])
    assert {x.rule for x in v} == {"overlap", "unsupported"}
    (unsupported,) = of_rule(v, "unsupported")
    assert unsupported.blocks == ("d",)
    assert unsupported.cells == ((4, 0, 0), (4, 1, 0))  # x = 4 sticks out past the half cube


def test_a_hole_under_the_footprint_is_unsupported():
    # two cubes with a one-cell gap between them (x = 2), bridged by a lying double cube (x 0..4)
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (3, 0, 0), (2, 2, 2)), blk("d", (0, 0, 2), (4, 2, 2))])
    assert len(v) == 1
    assert (v[0].rule, v[0].blocks, v[0].cells) == ("unsupported", ("d",), ((2, 0, 1), (2, 1, 1)))


def test_an_overhang_is_unsupported():
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (1, 0, 2), (2, 2, 2))])
    assert len(v) == 1
    assert (v[0].rule, v[0].blocks, v[0].cells) == ("unsupported", ("b",), ((2, 0, 1), (2, 1, 1)))


def test_an_overhang_on_the_y_side_is_unsupported():
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (0, -1, 2), (2, 2, 1))])
    assert [(x.rule, x.blocks, x.cells) for x in v] == [("unsupported", ("b",), ((0, -1, 1), (1, -1, 1)))]


def test_a_block_floating_in_the_air_is_unsupported_under_its_whole_footprint():
    v = check([blk("a", (5, 5, 3), (2, 2, 2))])
    assert [(x.rule, x.blocks) for x in v] == [("unsupported", ("a",))]
    assert v[0].cells == cells_at(column(5, 5), 2)


def test_a_block_standing_on_a_figure_is_not_supported_by_it():
    v = check([blk("a", (0, 0, 1), (2, 2, 2))], figures=[("red", (0, 0, 0))])
    assert of_rule(v, "unsupported")[0].cells == cells_at(column(0, 0), 0)


# --- overlap and below-table -----------------------------------------------------------------------------

def test_two_blocks_sharing_cells_overlap_and_both_are_named():
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (1, 0, 0), (2, 2, 2))])
    assert [x.rule for x in v] == ["overlap"]
    assert set(v[0].blocks) == {"a", "b"}
    assert v[0].cells == ((1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1))
    assert not is_legal(v)


def test_a_block_inside_another_overlaps_in_all_its_cells():
    v = check([blk("g", (0, 0, 0), (2, 2, 6)), blk("h", (0, 0, 3), (2, 2, 1))])
    (o,) = of_rule(v, "overlap")
    assert set(o.blocks) == {"g", "h"}
    assert o.cells == cells_at(column(0, 0), 3)


def test_blocks_touching_face_to_face_do_not_overlap():
    assert check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (2, 0, 0), (2, 2, 2)), blk("c", (0, 2, 0), (2, 2, 1))]) == []


def test_every_block_of_a_three_way_overlap_is_named():
    v = of_rule(check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (1, 0, 0), (2, 2, 2)),
                       blk("c", (0, 1, 0), (2, 2, 2))]), "overlap")
    assert {frozenset(x.blocks) for x in v} >= {frozenset("ab"), frozenset("ac")}
    by_pair = {frozenset(x.blocks): x.cells for x in v}
    assert by_pair[frozenset("ab")] == ((1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1))
    assert by_pair[frozenset("ac")] == ((0, 1, 0), (0, 1, 1), (1, 1, 0), (1, 1, 1))


def test_a_block_reaching_below_the_table_top_is_below_table():
    v = check([blk("a", (0, 0, -1), (2, 2, 2))])
    assert [x.rule for x in v] == ["below-table"]
    assert v[0].blocks == ("a",)
    assert v[0].cells == cells_at(column(0, 0), -1)


def test_a_block_entirely_below_the_table_names_all_its_cells():
    v = of_rule(check([blk("a", (0, 0, -3), (2, 2, 2))]), "below-table")
    assert v[0].cells == tuple(sorted(cells_at(column(0, 0), -3) + cells_at(column(0, 0), -2)))


# --- figures ---------------------------------------------------------------------------------------------

def test_figures_on_the_table_and_on_their_own_colour_are_legal():
    v = check([blk("a", (0, 0, 0), (2, 2, 2), top="red")],
              figures=[("red", (0, 0, 2)), ("yellow", (5, 0, 0)), ("purple", (-3, -3, 0))])
    assert v == []


def test_any_figure_may_stand_on_a_grey_top_face():
    # a grey block, and a coloured block lying with its grey face up
    v = check([blk("g", (0, 0, 0), (2, 2, 6)), blk("c", (2, 0, 0), (2, 2, 2), top="grey")],
              figures=[("red", (0, 0, 6)), ("yellow", (1, 1, 6)), ("dark-blue", (2, 0, 2)), ("light-blue", (3, 1, 2))])
    assert v == []


@pytest.mark.parametrize(("figure", "top"), [("red", "yellow"), ("dark-blue", "light-blue"), ("purple", "red")])
def test_a_figure_on_another_players_colour_is_figure_wrong_colour(figure, top):
    v = check([blk("c", (0, 0, 0), (2, 2, 2), top=top)], figures=[(figure, (1, 0, 2))])
    assert [x.rule for x in v] == ["figure-wrong-colour"]
    assert v[0].blocks == ("c",)
    assert v[0].cells == ((1, 0, 2),)
    assert v[0].figure == figure


def test_a_figure_in_mid_air_is_not_on_a_surface():
    v = check([blk("c", (0, 0, 0), (2, 2, 2))], figures=[("red", (0, 0, 3)), ("yellow", (4, 0, 1))])
    assert [(x.rule, x.cells) for x in v] == [("figure-not-on-surface", ((0, 0, 3),)),
                                             ("figure-not-on-surface", ((4, 0, 1),))]


def test_a_figure_inside_a_block_is_not_on_a_surface():
    v = check([blk("c", (0, 0, 0), (2, 2, 2))], figures=[("red", (1, 1, 1)), ("yellow", (0, 0, 0))])
    assert sorted((x.rule, x.cells) for x in v) == [("figure-not-on-surface", ((0, 0, 0),)),
                                                   ("figure-not-on-surface", ((1, 1, 1),))]


def test_a_figure_under_a_block_resting_on_its_cell_is_not_on_a_surface():
    # the top of `low` is covered by `high` at (0, 0): that cell is no free top
    v = check([blk("low", (0, 0, 0), (2, 2, 1), top="grey"), blk("high", (0, 0, 1), (2, 2, 1))],
              figures=[("red", (0, 0, 1))])
    assert [(x.rule, x.cells) for x in v] == [("figure-not-on-surface", ((0, 0, 1),))]


def test_a_figure_below_the_table_is_not_on_a_surface():
    v = check([], figures=[("red", (0, 0, -1))])
    assert [(x.rule, x.cells) for x in v] == [("figure-not-on-surface", ((0, 0, -1),))]


def test_two_figures_in_one_cell_overlap():
    v = check([blk("c", (0, 0, 0), (2, 2, 2), top="grey")],
              figures=[("red", (0, 1, 2)), ("yellow", (0, 1, 2)), ("purple", (1, 1, 2))])
    assert [(x.rule, x.cells) for x in v] == [("figure-overlap", ((0, 1, 2),))]


def test_two_figures_in_one_table_cell_overlap():
    v = check([], figures=[("red", (3, 3, 0)), ("yellow", (3, 3, 0))])
    assert [(x.rule, x.cells) for x in v] == [("figure-overlap", ((3, 3, 0),))]


def test_figures_in_neighbouring_cells_of_one_top_do_not_overlap():
    v = check([blk("c", (0, 0, 0), (2, 2, 2), top="grey")],
              figures=[("red", (0, 0, 2)), ("yellow", (1, 0, 2)), ("purple", (0, 1, 2)), ("dark-blue", (1, 1, 2))])
    assert v == []


# --- stones ----------------------------------------------------------------------------------------------

TOP_OF_A = cells_at(column(0, 0), 2)


def test_a_stone_on_a_free_top_is_legal():
    assert check([blk("a", (0, 0, 0), (2, 2, 2))], stones=[("red", "a")]) == []


def test_a_stone_on_a_block_under_another_block_is_not_on_a_free_top():
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (0, 0, 2), (2, 2, 1))], stones=[("red", "a")])
    assert [(x.rule, x.blocks, x.stone) for x in v] == [("stone-not-on-free-top", ("a",), "red")]
    assert v[0].cells == TOP_OF_A


def test_a_stone_may_lie_on_a_block_partly_covered_by_a_brick():
    # rules: "sur n'importe quelle surface libre": the half of a's top that shows is a free surface
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (2, 0, 0), (2, 2, 2)), blk("c", (1, 0, 2), (2, 2, 2))],
              stones=[("yellow", "a")])
    assert v == []


def test_a_stone_may_lie_beside_a_figure_on_the_same_top():
    v = check([blk("a", (0, 0, 0), (2, 2, 2), top="red")], figures=[("red", (1, 1, 2))], stones=[("yellow", "a")])
    assert v == []


def test_a_stone_needs_a_cell_free_of_figures():
    # a standing half cube shows two cells; figures on both leave no free surface
    v = check([blk("a", (0, 0, 0), (2, 1, 2), top="grey")], figures=[("red", (0, 0, 2)), ("yellow", (1, 0, 2))],
              stones=[("purple", "a")])
    assert [(x.rule, x.blocks, x.stone) for x in v] == [("stone-not-on-free-top", ("a",), "purple")]
    assert "figures stand on every cell" in v[0].message


def test_two_stones_on_one_block_are_not_on_a_free_top():
    v = check([blk("a", (0, 0, 0), (2, 2, 2))], stones=[("red", "a"), ("yellow", "a")])
    assert {x.rule for x in v} == {"stone-not-on-free-top"}
    assert {x.stone for x in v} == {"red", "yellow"}
    assert all(x.blocks == ("a",) and x.cells == TOP_OF_A for x in v)


def test_a_figure_beside_a_stone_block_does_not_block_the_stone():
    v = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (2, 0, 0), (2, 2, 2), top="grey")],
              figures=[("red", (2, 0, 2)), ("yellow", (5, 0, 0))], stones=[("red", "a")])
    assert v == []


# --- block count (a warning) ---------------------------------------------------------------------------------

def row_of_cubes(n: int) -> list[dict[str, Any]]:
    return [blk(f"c{i}", (2 * i, 0, 0), (2, 2, 2)) for i in range(n)]


def test_the_games_twelve_cubes_are_no_block_count_problem():
    assert check(row_of_cubes(12)) == []


def test_a_thirteenth_cube_is_a_block_count_warning_that_keeps_the_build_legal():
    v = check(row_of_cubes(13))
    assert [(x.rule, x.level, x.blocks, x.cells) for x in v] == [("block-count", "warning", ("c12",), ())]
    assert is_legal(v)


def test_a_third_grey_block_is_a_block_count_warning():
    v = check([blk(f"g{i}", (2 * i, 0, 0), (2, 2, 6)) for i in range(3)])
    assert [(x.rule, x.level, x.blocks) for x in v] == [("block-count", "warning", ("g2",))]
    assert is_legal(v)


def test_a_block_count_warning_does_not_hide_an_error():
    v = check(row_of_cubes(13) + [blk("x", (1, 0, 2), (2, 2, 2)), blk("y", (40, 0, 3), (2, 2, 2))])
    assert [x.rule for x in v] == ["unsupported", "block-count"]
    assert v[0].blocks == ("y",)
    assert not is_legal(v)


# --- the JSON form -------------------------------------------------------------------------------------------

def test_a_violation_in_json_names_rule_block_and_cells():
    (v,) = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("c2", (1, 0, 2), (2, 2, 2))])
    doc = v.to_json()
    assert doc["rule"] == "unsupported"
    assert doc["block"] == "c2"
    assert doc["cells"] == [[2, 0, 1], [2, 1, 1]]
    assert isinstance(doc["message"], str) and doc["message"]


def test_an_overlap_in_json_lists_both_blocks():
    (v,) = check([blk("a", (0, 0, 0), (2, 2, 2)), blk("b", (0, 0, 1), (2, 2, 2))])
    doc = v.to_json()
    assert doc["rule"] == "overlap" and set(doc["blocks"]) == {"a", "b"} and doc["block"] in {"a", "b"}

"""The Climbers: the rule text's stories, told on small hand-made positions.

Colours: player 0 is red, 1 yellow, 2 dark-blue. A figure stands on (x, y, z) where z is the height of the top
under its feet. Every refused move must name the rule and leave the state exactly as it was.
"""

from __future__ import annotations

import json

import pytest

from tower.climbers.blocks import ALL_GREY, COLOUR_INDEX, OPPOSITE, PAIRS
from tower.climbers.build import Block, Build
from tower.climbers.game import ClimbersState
from tower.climbers.legality import check_build
from tower.climbers.moves import ClimbersMove
from tower.games.errors import IllegalMove

M = ClimbersMove.parse


def blk(bid: str, at: tuple[int, int, int], size: tuple[int, int, int], top: str) -> Block:
    """A block at `at` with extents `size` showing colour `top` upwards (the other pairs on the sides)."""
    if top == "all-grey":
        return Block(bid, at, size, ALL_GREY)
    sides = [pair for pair in PAIRS if top not in pair]
    faces = (*sides[0], *sides[1], top, OPPOSITE[top])
    return Block(bid, at, size, tuple(COLOUR_INDEX[c] for c in faces))  # type: ignore[arg-type]


def position(blocks: list[Block], figures: list[tuple[int, int, int]], **kw) -> ClimbersState:
    return ClimbersState.position(len(figures), Build(blocks), figures, **kw)


def snapshot(state: ClimbersState) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def refuse(state: ClimbersState, text: str, rule: str) -> None:
    before = snapshot(state)
    with pytest.raises(IllegalMove) as err:
        state.apply(M(text, state))
    assert err.value.rule == rule, err.value
    assert snapshot(state) == before


def legal(state: ClimbersState, text: str) -> bool:
    return M(text) in state.legal_moves()


FAR = (2, 2, 0)  # a table cell far from everything, for figures that only watch


# --- the ladders ---------------------------------------------------------------------------------------------
def test_a_figure_climbs_one_unit_without_a_ladder() -> None:
    state = position([blk("h", (10, 10, 0), (2, 2, 1), "red")], [(9, 10, 0), FAR], short=[False, True],
                     long=[False, True])
    assert legal(state, "fig 10,10,1")
    state.apply(M("fig 10,10,1", state))
    assert state.figures[0] == (10, 10, 1)


def test_two_units_need_at_least_the_short_ladder() -> None:
    blocks = [blk("c", (10, 10, 0), (2, 2, 2), "red")]
    state = position(blocks, [(9, 10, 0), FAR], short=[False, True], long=[False, True])
    refuse(state, "fig 10,10,2", "unreachable")
    state = position(blocks, [(9, 10, 0), FAR])
    assert legal(state, "fig 10,10,2 short") and legal(state, "fig 10,10,2 long")
    assert not legal(state, "fig 10,10,2")
    state.apply(M("fig 10,10,2 short", state))
    assert state.short == [False, True] and state.long == [True, True]


def test_the_long_ladder_climbs_four_units_the_short_one_does_not() -> None:
    state = position([blk("d", (10, 10, 0), (2, 2, 4), "red")], [(9, 10, 0), FAR])
    assert legal(state, "fig 10,10,4 long")
    refuse(state, "fig 10,10,4 short", "unreachable")
    state.apply(M("fig 10,10,4 long", state))
    assert state.figures[0] == (10, 10, 4) and state.long[0] is False


def test_a_used_ladder_is_gone() -> None:
    state = position([blk("d", (10, 10, 0), (2, 2, 4), "red")], [(9, 10, 0), FAR], long=[False, True])
    refuse(state, "fig 10,10,4 long", "ladder-used")


def test_two_ladders_are_never_chained_without_a_free_surface_between() -> None:
    # a 6-unit wall: short (2) + long (4) would need a place to stand at height 2 or 4 on the way
    state = position([blk("g", (10, 10, 0), (2, 2, 6), "all-grey")], [(9, 10, 0), FAR])
    assert not any(m.kind == "fig" and m.cell[2] == 6 for m in state.legal_moves())
    # with a cube to stand on in between, both ladders take the figure up in one move
    state = position([blk("g", (10, 10, 0), (2, 2, 6), "all-grey"), blk("c", (8, 10, 0), (2, 2, 2), "red")],
                     [(7, 10, 0), FAR])
    assert legal(state, "fig 10,10,6 short+long")


def test_a_figure_never_steps_diagonally_onto_another_block() -> None:
    # from the half cube (top 1) the cube (top 2) touches only at a corner; no ladders left
    blocks = [blk("a", (10, 10, 0), (2, 2, 1), "grey"), blk("b", (12, 12, 0), (2, 2, 2), "red")]
    state = position(blocks, [(11, 11, 1), FAR], short=[False, True], long=[False, True])
    refuse(state, "fig 12,12,2", "unreachable")
    # when the two blocks share a face, the figure steps across
    blocks = [blk("a", (10, 10, 0), (2, 2, 1), "grey"), blk("b", (12, 10, 0), (2, 2, 2), "red")]
    state = position(blocks, [(11, 11, 1), FAR], short=[False, True], long=[False, True])
    assert legal(state, "fig 12,11,2")


def test_the_game_finds_the_walk_of_a_figure_move_itself() -> None:
    state = position([blk("g", (10, 10, 0), (2, 2, 6), "all-grey"), blk("c", (8, 10, 0), (2, 2, 2), "red")],
                     [(7, 10, 0), FAR])
    path = state.figure_path(0, M("fig 10,10,6 short+long"))
    assert path[0] == (7, 10, 0) and path[-1] == (10, 10, 6)
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(path, path[1:], strict=False))
    assert [b[2] - a[2] for a, b in zip(path, path[1:], strict=False) if b[2] - a[2] > 1] == [2, 4]  # the ladders
    assert state.figure_path(0, M("fig 7,12,0"))[-1] == (7, 12, 0)  # over the table


# --- colours -----------------------------------------------------------------------------------------------
def test_a_figure_stands_only_on_its_own_colour_grey_or_the_table() -> None:
    blocks = [blk("y", (10, 10, 0), (2, 2, 1), "yellow"), blk("r", (10, 14, 0), (2, 2, 1), "red"),
              blk("g", (10, 18, 0), (2, 2, 1), "grey")]
    state = position(blocks, [(9, 10, 0), FAR])
    refuse(state, "fig 10,10,1", "wrong-colour")
    state = position(blocks, [(9, 14, 0), FAR])
    assert legal(state, "fig 10,14,1")
    state = position(blocks, [(9, 18, 0), FAR])
    assert legal(state, "fig 10,18,1")
    # and the yellow figure may stand on yellow
    state = position(blocks, [FAR, (9, 10, 0)], player=1)
    assert legal(state, "fig 10,10,1")


def test_a_figure_may_not_cross_a_surface_of_another_colour() -> None:
    # the way up leads over a yellow half cube: red cannot pass, yellow can
    blocks = [blk("y", (10, 10, 0), (2, 2, 1), "yellow"), blk("c", (12, 10, 0), (2, 2, 2), "grey")]
    state = position(blocks, [(9, 10, 0), (9, 11, 0)], short=[False, False], long=[False, False])
    assert not any(m.kind == "fig" and m.cell[2] == 2 for m in state.legal_moves())
    state = position(blocks, [(9, 10, 0), (9, 11, 0)], short=[False, False], long=[False, False], player=1)
    assert legal(state, "fig 12,11,2")


def test_grey_is_shared_by_several_figures() -> None:
    # a lying double cube with a grey top has room for all: three figures climb onto it one after another
    blocks = [blk("d", (10, 10, 0), (4, 2, 1), "grey")]  # a low grey platform (kept low: no ladders needed)
    state = position(blocks, [(10, 9, 0), (11, 9, 0), (12, 9, 0)])
    for p in range(3):
        state.apply(M(f"fig {10 + p},10,1", state))
        state.apply(M("skip", state)) if state.phase == "block" else None
        while state.current_player == p:
            state.apply(M("skip"))
    assert [f[2] for f in state.figures] == [1, 1, 1]


def test_a_fully_occupied_grey_top_blocks_the_way() -> None:
    # a standing half cube (top of 2 cells, grey) holds two figures; red finds no room and cannot pass over it
    blocks = [blk("h", (10, 10, 0), (2, 1, 2), "grey")]
    state = position(blocks, [(9, 10, 0), (10, 10, 2), (11, 10, 2)])
    refuse(state, "fig 10,10,2 short", "cell-occupied")
    assert not any(m.kind == "fig" and m.cell[2] > 0 for m in state.legal_moves())
    # once one of them has left, there is room again
    state = position(blocks, [(9, 10, 0), (10, 10, 2), FAR])
    assert legal(state, "fig 11,10,2 short")


# --- blocking stones ---------------------------------------------------------------------------------------
def stone_position() -> ClimbersState:
    blocks = [blk("base", (10, 10, 0), (2, 2, 2), "grey"), blk("top", (10, 10, 2), (2, 2, 1), "red"),
              blk("side", (12, 10, 0), (2, 2, 1), "red"), blk("far", (10, 12, 0), (2, 2, 2), "yellow")]
    state = position(blocks, [(16, 10, 0), (9, 12, 0)], player=1)
    state.round_leader = True  # the game is under way: the first player's turn coming round ends nothing
    return state


def yellow_lays_a_stone_on(state: ClimbersState, block: str) -> None:
    state.apply(M("skip"))
    state.apply(M("block far 12,12,0 2x2x2 yellow", state))
    state.apply(M("skip"))
    state.apply(M(f"stone {block}"))
    assert state.current_player == 0 and state.stone[1] is not None


def test_a_stone_blocks_entering_and_moving_its_block_until_its_owner_plays_again() -> None:
    state = stone_position()
    yellow_lays_a_stone_on(state, "side")
    refuse(state, "fig 12,11,1", "blocked-block")
    state.apply(M("skip"))
    assert not any(m.block == "side" for m in state.legal_moves())
    refuse(state, "block side 14,10,0 2x2x1 red", "blocked-block")
    refuse(state, "block top 12,10,1 2x2x1 red", "blocked-block")  # nor covered
    state.apply(M("block top 12,8,0 2x2x1 red", state))
    state.apply(M("skip"))
    state.apply(M("skip"))  # red keeps its own stone
    # yellow's turn again: the stone has left the game, the block is free
    assert state.current_player == 1 and state.stone[1] is None and state.stone_used[1]
    state.apply(M("skip"))
    assert any(m.block == "side" for m in state.legal_moves())


def test_a_stone_may_not_be_crossed() -> None:
    # red's only way up to the cube crosses the half cube carrying the stone
    blocks = [blk("step", (10, 10, 0), (2, 2, 1), "red"), blk("cube", (12, 10, 0), (2, 2, 2), "red")]
    state = position(blocks, [(9, 10, 0), FAR], short=[False, True], long=[False, True])
    assert legal(state, "fig 12,10,2")
    state = position(blocks, [(9, 10, 0), FAR], short=[False, True], long=[False, True], stones={1: "step"})
    assert not any(m.kind == "fig" and m.cell[2] == 2 for m in state.legal_moves())


def test_each_player_has_one_stone_per_game() -> None:
    state = stone_position()
    yellow_lays_a_stone_on(state, "side")
    state.apply(M("pass"))
    assert state.current_player == 1
    state.apply(M("skip"))
    state.apply(M("block side 12,14,0 2x2x1 red", state))
    state.apply(M("skip"))
    assert state.current_player == 0  # no stone step: the turn ended


def brick_position(figures: list[tuple[int, int, int]]) -> ClimbersState:
    """A grey cube `low` whose top a red brick half covers (the brick rests on it and on `prop`), and a spare pair
    of blocks far away; red to play, at the stone step after a harmless turn."""
    blocks = [blk("low", (10, 10, 0), (2, 2, 2), "grey"), blk("prop", (12, 10, 0), (2, 2, 2), "grey"),
              blk("brick", (11, 10, 2), (2, 2, 1), "red"), *SPARE]
    state = position(blocks, figures)
    state.apply(M("skip"))
    state.apply(next(m for m in state.legal_moves() if m.block in ("spare", "anchor")))
    state.apply(M("skip"))
    assert state.phase == "stone"
    return state


def test_a_stone_goes_on_any_free_surface_even_a_partly_covered_top() -> None:
    # "sur n'importe quelle surface libre": half of low's top shows, and a yellow figure stands on one of its
    # two free cells: the other is free surface enough
    state = brick_position([FAR, (10, 10, 2)])
    assert legal(state, "stone low") and legal(state, "stone prop") and legal(state, "stone brick")
    state.apply(M("stone low"))
    assert state.stone[0] == state.index["low"]
    refuse(state, "fig 10,11,2", "blocked-block")  # yellow may not enter low's free cell
    assert "stone-not-on-free-top" not in {v.rule for v in check_build(state.to_build())}


def test_a_stone_needs_one_cell_free_of_figures_and_stones() -> None:
    state = brick_position([(10, 10, 2), (10, 11, 2)])  # red and yellow fill both free cells of low's top
    refuse(state, "stone low", "stone-not-on-free-top")
    assert legal(state, "stone prop")


# --- moving blocks -----------------------------------------------------------------------------------------
def test_the_last_moved_block_cannot_be_moved_by_the_next_player() -> None:
    state = stone_position()
    state.apply(M("skip"))
    state.apply(M("block far 12,12,0 2x2x2 yellow", state))
    state.apply(M("skip"))
    state.apply(M("skip"))  # no stone
    assert state.current_player == 0
    state.apply(M("skip"))
    refuse(state, "block far 14,10,0 2x2x2 yellow", "last-moved")
    state.apply(M("block top 12,8,0 2x2x1 red", state))
    state.apply(M("skip"))
    state.apply(M("skip"))
    # the player after may move it again
    state.apply(M("skip"))
    assert legal(state, "block far 14,10,0 2x2x2 yellow")


def test_only_blocks_with_a_free_top_can_be_moved() -> None:
    state = stone_position()
    state.apply(M("skip"))
    refuse(state, "block base 14,14,0 2x2x2 grey", "not-free")
    state = position([blk("a", (10, 10, 0), (2, 2, 1), "red"), blk("b", (12, 10, 0), (2, 2, 1), "red")],
                     [(10, 10, 1), FAR])
    state.apply(M("skip"))
    refuse(state, "block a 14,10,0 2x2x1 red", "not-free")  # a figure stands on it


def test_a_block_needs_full_support_and_a_touching_face() -> None:
    state = stone_position()
    state.apply(M("skip"))
    refuse(state, "block far 11,11,2 2x2x2 yellow", "overlap")
    refuse(state, "block far 11,11,0 2x2x2 yellow", "overlap")
    refuse(state, "block far 3,3,0 2x2x2 yellow", "no-contact")
    refuse(state, "block far 11,10,3 2x2x2 yellow", "unsupported")  # half on the top (3), half over the side (1)
    refuse(state, "block far 10,12,0 2x2x2 yellow", "same-place")
    assert legal(state, "block far 10,10,3 2x2x2 yellow")


def test_a_block_may_be_turned_to_show_another_colour() -> None:
    state = stone_position()
    state.apply(M("skip"))
    assert legal(state, "block far 14,10,0 2x2x2 red") and legal(state, "block far 14,10,0 2x2x2 grey")
    refuse(state, "block far 14,10,0 2x2x4 red", "no-such-rotation")


def test_a_block_is_not_laid_over_a_figure_standing_on_the_table() -> None:
    state = stone_position()
    state.apply(M("skip"))
    refuse(state, "block far 8,12,0 2x2x2 yellow", "figure-under")  # yellow's figure stands on (9,12,0)
    assert legal(state, "block far 8,10,0 2x2x2 yellow")


# --- pushing figures ---------------------------------------------------------------------------------------
def push_position() -> ClimbersState:
    blocks = [blk("plat", (10, 10, 0), (4, 2, 2), "grey"), blk("next", (14, 10, 0), (2, 2, 2), "grey"),
              blk("cube", (10, 14, 0), (2, 2, 2), "red")]
    return position(blocks, [FAR, (10, 10, 2)], player=0)


def test_figures_are_pushed_aside_to_free_cells_of_the_same_top() -> None:
    state = push_position()
    state.apply(M("skip"))
    pushes = [m for m in state.legal_moves() if m.kind == "block" and m.pushes]
    assert pushes
    for m in pushes:
        for _src, dst in m.pushes:
            # the target is a cell of the platform's top, not covered by the new block
            assert 10 <= dst[0] < 14 and 10 <= dst[1] < 12 and dst[2] == 2
            assert not (m.cell[0] <= dst[0] < m.cell[0] + m.size[0] and m.cell[1] <= dst[1] < m.cell[1] + m.size[1])
    move = M("block cube 10,10,2 2x2x2 red push 10,10,2>12,10,2", state)
    assert move in state.legal_moves()
    state.apply(move)
    assert state.figures[1] == (12, 10, 2)


def test_figures_are_never_pushed_onto_another_block() -> None:
    state = push_position()
    state.apply(M("skip"))
    refuse(state, "block cube 10,10,2 2x2x2 red push 10,10,2>14,10,2", "figure-push")
    refuse(state, "block cube 10,10,2 2x2x2 red", "figure-push")  # nobody may be covered without a push


def test_a_figure_that_has_no_free_cell_left_cannot_be_pushed() -> None:
    blocks = [blk("plat", (10, 10, 0), (2, 2, 2), "grey"), blk("cube", (10, 14, 0), (2, 2, 2), "red")]
    state = position(blocks, [FAR, (10, 10, 2)])
    state.apply(M("skip"))
    assert not any(m.kind == "block" and m.cell[:2] == (10, 10) and m.cell[2] == 2 for m in state.legal_moves())


# --- the net-height rule -----------------------------------------------------------------------------------
def net_height_position(long: bool) -> ClimbersState:
    blocks = [blk("cube", (10, 10, 0), (2, 2, 2), "red"), blk("half", (12, 10, 0), (2, 2, 1), "red"),
              blk("tall", (14, 10, 0), (2, 2, 4), "red")]
    return position(blocks, [(11, 10, 2), FAR], short=[False, True], long=[long, True])


def test_a_figure_may_go_down_only_if_it_can_still_end_the_turn_higher() -> None:
    refuse(net_height_position(long=False), "fig 12,10,1", "net-height")
    state = net_height_position(long=True)
    state.apply(M("fig 12,10,1", state))
    assert state.phase == "block"
    state.apply(state.legal_moves()[0])
    refuse(state, "skip", "net-height")
    assert all(m.kind == "fig" and m.cell[2] > 2 for m in state.legal_moves())
    state.apply(M("fig 14,10,4 long", state))
    assert state.figures[0] == (14, 10, 4)


def test_after_going_down_no_block_move_may_take_the_way_up_away() -> None:
    state = net_height_position(long=True)
    state.apply(M("fig 12,10,1", state))
    moves = state.legal_moves()
    refused = set(state.block_moves(net_height=False)) - set(moves)
    assert refused  # e.g. lifting the tall block away
    for move in moves:
        after = state.clone()
        after.apply(move)
        assert any(m.cell[2] > 2 for m in after.legal_moves() if m.kind == "fig")
    for move in sorted(refused, key=str)[:20]:
        refuse(state, str(move), "net-height")


def issue_position() -> ClimbersState:
    """Red on a half cube at height 1, a second half cube beside it that the previous player moved, no ladders."""
    blocks = [blk("a", (10, 10, 0), (2, 2, 1), "red"), blk("b", (12, 10, 0), (2, 2, 1), "red")]
    return position(blocks, [(11, 10, 1), FAR], short=[False, True], long=[False, True], last_moved="b")


def test_only_the_end_of_the_turn_counts_a_level_first_move_may_lead_to_a_rise() -> None:
    # "elle devra grimper de nouveau pendant ce tour et devra finalement se tenir debout plus haut": stepping
    # across to b frees a, which stood under the figure; a turned upright beside b, grey face up, is a step of
    # one from b: the turn ends at height 2, higher than it began
    state = issue_position()
    assert state.explain(M("fig 12,10,1")) is None
    assert legal(state, "fig 12,10,1")  # before the rule was exact, only pass and skip were offered
    state.apply(M("fig 12,10,1", state))
    assert state.phase == "block" and state.climbed
    assert state.legal_moves(), "the first move was legal: a block move that leads to a rise must be offered"
    for move in state.legal_moves():  # every block move offered leads to a rise, and only such moves
        after = state.clone()
        after.apply(move)
        assert any(m.kind == "fig" and m.cell[2] > 1 for m in after.legal_moves()), move
    refuse(state, "block a 14,10,0 2x2x1 red", "net-height")  # lying beside b: nothing higher to climb
    state.apply(M("block a 14,10,0 1x2x2 grey", state))
    refuse(state, "skip", "net-height")
    state.apply(M("fig 14,10,2", state))
    assert state.figures[0] == (14, 10, 2) and state.reached[0] == 0
    state.apply(M("skip"))  # no stone
    assert state.current_player == 1 and state.round_leader  # red climbed strictly highest in its turn


def test_a_level_first_move_without_any_continuation_is_refused_and_explained() -> None:
    state = net_height_position(long=False)  # from the cube (2) down to the half cube (1), no ladder left
    problem = state.explain(M("fig 12,10,1"))
    assert problem is not None and problem.rule == "net-height"
    assert "no block move followed by a second figure move" in problem.message
    assert "no such continuation" in problem.message
    refuse(state, "fig 12,10,1", "net-height")


def test_with_no_block_move_left_the_tower_as_it_stands_must_offer_the_rise() -> None:
    # red stands on a, which carries yellow's stone; once red steps across onto b, b carries a figure and the
    # cube c was moved last turn: no block can move, the block step is skipped, and only the tower as it stands
    # can offer the way up: onto c if it shows grey, nowhere if it shows yellow
    def state_with(cube_top: str) -> ClimbersState:
        blocks = [blk("a", (10, 10, 0), (2, 2, 1), "red"), blk("b", (12, 10, 0), (2, 2, 1), "grey"),
                  blk("c", (14, 10, 0), (2, 2, 2), cube_top)]
        return position(blocks, [(11, 10, 1), FAR], short=[False, True], long=[False, True], stones={1: "a"},
                        last_moved="c")

    state = state_with("grey")
    state.apply(M("fig 12,10,1", state))
    assert state.legal_moves() == [M("skip")]
    state.apply(M("skip"))
    # up onto c (any of its four cells); no skip while a rise is due
    assert state.legal_moves() == [M(f"fig {x},{y},2") for x in (14, 15) for y in (10, 11)]
    refuse(state_with("yellow"), "fig 12,10,1", "net-height")


def test_crossing_the_tower_to_the_table_counts_as_leaving_the_table() -> None:
    # a pinwheel of grey half cubes encloses the table cell (12,12): reaching it means climbing over a block
    blocks = [blk("a", (10, 11, 0), (2, 2, 1), "grey"), blk("b", (11, 13, 0), (2, 2, 1), "grey"),
              blk("c", (13, 12, 0), (2, 2, 1), "grey"), blk("d", (12, 10, 0), (2, 2, 1), "grey")]
    state = position(blocks, [(9, 11, 0), FAR])
    state.apply(M("fig 12,12,0"))  # typed without its path
    assert state.climbed and state.phase == "block"
    state.apply(state.legal_moves()[0])
    refuse(state, "skip", "net-height")


def test_on_the_table_a_figure_walks_freely() -> None:
    state = position([blk("c", (10, 10, 0), (2, 2, 2), "red")], [(9, 10, 0), FAR])
    state.apply(M("fig 12,10,0", state))  # around the block, no height gained: fine on the table
    assert state.phase == "block" and not state.climbed
    state.apply(M("skip"))  # the only block cannot move anywhere (nothing to touch)
    state.apply(M("skip"))  # the turn may end at the height it began
    state.apply(M("skip"))  # no stone
    assert state.current_player == 1


# --- end of the game ---------------------------------------------------------------------------------------
def end_position() -> ClimbersState:
    blocks = [blk("a", (10, 10, 0), (2, 2, 1), "grey"), blk("b", (14, 10, 0), (2, 2, 1), "grey"), *SPARE]
    return position(blocks, [(9, 10, 0), (13, 10, 0)])


SPARE = [blk("spare", (20, 20, 0), (2, 2, 1), "purple"), blk("anchor", (22, 20, 0), (2, 2, 1), "purple")]


def climb(state: ClimbersState, cell: str) -> None:
    """Climb to `cell`, move a spare block (out of the way), end the turn."""
    state.apply(M(f"fig {cell}", state))
    state.apply(next(m for m in state.legal_moves() if m.block in ("spare", "anchor")))
    while state.phase != "figure1":
        state.apply(M("skip"))


def test_a_round_without_a_new_leader_gives_the_first_player_a_last_chance() -> None:
    state = end_position()
    state.apply(M("pass"))
    state.apply(M("pass"))
    assert state.last_chance and state.current_player == 0 and not state.is_over
    state.apply(M("pass"))
    assert state.is_over


def test_a_successful_last_chance_lets_the_game_go_on() -> None:
    state = end_position()
    state.apply(M("pass"))
    state.apply(M("pass"))
    assert state.last_chance
    climb(state, "10,10,1")
    assert not state.is_over and state.current_player == 1 and not state.last_chance


def test_standing_on_top_without_rising_is_no_progress() -> None:
    state = end_position()
    climb(state, "10,10,1")  # red rises and leads: the round had a leader
    state.apply(M("pass"))
    assert not state.last_chance and state.current_player == 0
    state.apply(M("pass"))  # red stays highest but does not rise
    state.apply(M("pass"))
    assert state.last_chance


def test_climbing_only_level_with_the_leader_is_no_progress_either() -> None:
    # the round goes on only if someone climbs, during his own turn, to strictly above every other figure
    state = end_position()
    climb(state, "10,10,1")  # red climbs above everyone: round 0 has a leader
    state.apply(M("pass"))
    assert not state.last_chance
    state.apply(M("pass"))  # red stays on top: no progress
    climb(state, "14,10,1")  # yellow climbs, but only level with red
    assert state.last_chance and state.current_player == 0
    state.apply(M("pass"))
    assert state.is_over and state.result()["winners"] == [1]  # on equal heights the later arrival wins


def level_finish() -> ClimbersState:
    """Red climbs to 1, then yellow to 1 as well; three passes end the game."""
    state = end_position()
    climb(state, "10,10,1")
    climb(state, "14,10,1")
    for _ in range(3):
        state.apply(M("pass"))
    return state


def test_on_equal_heights_whoever_got_there_last_wins() -> None:
    state = level_finish()
    assert state.is_over
    assert state.result()["winners"] == [1]
    assert state.ranking() == [1, 0]


def test_the_highest_figure_wins() -> None:
    state = position([blk("a", (10, 10, 0), (2, 2, 2), "grey"), blk("b", (14, 10, 0), (2, 2, 1), "grey"), *SPARE],
                     [(9, 10, 0), (13, 10, 0)])
    climb(state, "10,10,2 short")
    climb(state, "14,10,1")
    for _ in range(3):
        state.apply(M("pass"))
    assert state.is_over and state.result()["winners"] == [0] and state.result()["scores"] == [2, 1]


def test_the_max_rounds_cap_ends_the_game() -> None:
    state = position([blk("a", (10, 10, 0), (2, 2, 1), "grey"), *SPARE], [(9, 10, 0), FAR],
                     options={"max_rounds": 1})
    climb(state, "10,10,1")
    state.apply(M("pass"))
    assert state.is_over


# --- turn structure ----------------------------------------------------------------------------------------
def test_a_whole_turn_can_be_passed_only_at_its_start() -> None:
    state = end_position()
    state.apply(M("skip"))
    refuse(state, "pass", "pass-only-first")


def test_moves_out_of_their_step_are_refused() -> None:
    state = end_position()
    refuse(state, "stone a", "wrong-phase")
    refuse(state, "block a 10,12,0 2x2x1 grey", "wrong-phase")
    state.apply(M("skip"))
    refuse(state, "fig 10,10,1", "wrong-phase")


def test_a_refused_move_names_the_rule_and_changes_nothing() -> None:
    state = ClimbersState(3, seed=4)
    refuse(state, "fig 0,0,5", "figure-not-on-surface")
    refuse(state, "stone nosuch", "wrong-phase")
    state.apply(M("skip"))
    refuse(state, "block nosuch 1,1,0 2x2x2 red", "unknown-block")


# --- setup -------------------------------------------------------------------------------------------------
def test_figures_start_on_the_table_around_the_construction() -> None:
    # a large start tower reaches past the usual start cells: those move outwards (seed 291 did put a figure
    # inside the tower)
    for seed in (*range(30), 291, 297):
        state = ClimbersState(5, seed)
        for x, y, z in state.figures:
            assert z == 0 and state.heights[x, y] == 0
        assert len(set(state.figures)) == 5

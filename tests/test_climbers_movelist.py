"""The block step's move list (`MoveList`): it builds moves only when read, yet behaves like the sorted, unique
list of Move objects the game contract promises."""

from __future__ import annotations

import json
import random

import pytest
from test_climbers import FAR, M, blk, position

from tower.climbers.game import ClimbersState
from tower.climbers.movelist import MoveList
from tower.climbers.moves import ClimbersMove


@pytest.fixture(scope="module")
def block_step() -> ClimbersState:
    state = ClimbersState(3, seed=4)
    state.apply(M("skip"))
    assert state.phase == "block"
    return state


def test_it_is_the_sorted_unique_list_of_every_legal_block_move(block_step: ClimbersState) -> None:
    moves = block_step.legal_moves()
    assert isinstance(moves, MoveList)
    built = list(moves)
    assert len(built) == len(moves) > 5000
    assert all(isinstance(m, ClimbersMove) and m.kind == "block" for m in built)
    assert built == sorted(set(built), key=ClimbersMove.sort_key)
    # the same moves as the table it views, built one by one
    table = block_step.block_table()
    assert set(built) == set(table.moves(block_step.ids))


def test_its_blocks_are_those_of_its_moves_without_building_them() -> None:
    state = ClimbersState(2, seed=5)
    state.apply(M("skip"))
    moves = state.legal_moves()
    blocks = moves.blocks()
    assert all(m is None for m in moves._built)  # read off the keys
    assert blocks == sorted({m.block for m in moves}) and len(blocks) > 1


def test_it_behaves_like_a_list(block_step: ClimbersState) -> None:
    moves = block_step.legal_moves()
    built = list(moves)
    assert moves == built and built == moves and not (moves != built)
    assert moves != built[:-1] and moves != built[::-1] and moves != "block"
    assert moves[0] == built[0] and moves[-1] == built[-1] and moves[len(moves) // 2] == built[len(built) // 2]
    assert moves[10:20] == built[10:20] and moves[::1000] == built[::1000] and moves[-3:] == built[-3:]
    with pytest.raises(IndexError):
        moves[len(moves)]
    rng = random.Random(5)
    for move in rng.sample(built, 50):
        assert move in moves and moves.index(move) == built.index(move) and moves.count(move) == 1
        assert rng.choice(moves) in moves  # random.choice and random.sample read a sequence by index
    assert moves + [M("skip")] == built + [M("skip")]
    assert list(reversed(moves))[:5] == built[::-1][:5]
    assert sorted(moves, key=str)[:3] == sorted(built, key=str)[:3]


def test_moves_that_are_not_legal_are_not_in_it(block_step: ClimbersState) -> None:
    moves = block_step.legal_moves()
    move = moves[100]
    for other in (ClimbersMove("block", cell=(move.cell[0] + 40, move.cell[1], move.cell[2]), block=move.block,
                               size=move.size, top=move.top),
                  ClimbersMove("block", cell=move.cell, block="nosuch", size=move.size, top=move.top),
                  ClimbersMove("block", cell=(-1, 0, 0), block=move.block, size=move.size, top=move.top),
                  ClimbersMove("block", cell=move.cell, block=move.block, size=move.size, top=move.top,
                               pushes=(((0, 0, 0), (1, 0, 0)),)),
                  M("skip"), M("fig 1,1,0"), "block"):
        assert other not in moves
        with pytest.raises(ValueError):
            moves.index(other)


def test_pushing_moves_are_found_too() -> None:
    blocks = [blk("plat", (10, 10, 0), (4, 2, 2), "grey"), blk("next", (14, 10, 0), (2, 2, 2), "grey"),
              blk("cube", (10, 14, 0), (2, 2, 2), "red")]
    state = position(blocks, [FAR, (10, 10, 2)])
    state.apply(M("skip"))
    moves = state.legal_moves()
    pushing = [m for m in moves if m.pushes]
    assert pushing and all(m in moves for m in pushing)
    assert list(moves) == sorted(moves, key=ClimbersMove.sort_key)
    assert M("block cube 10,10,2 2x2x2 red push 10,10,2>12,10,2") in moves
    assert M("block cube 10,10,2 2x2x2 red push 10,10,2>14,10,2") not in moves


def test_a_state_read_back_lists_equal_moves(block_step: ClimbersState) -> None:
    again = ClimbersState.from_json(json.loads(json.dumps(block_step.to_json())))
    assert again.legal_moves() == block_step.legal_moves()
    assert again.legal_moves() is not block_step.legal_moves()


def test_a_click_the_step_cannot_use_says_what_the_step_takes() -> None:
    """viewer.climbers_pointing.refusal: a block clicked in a figure step names the step and its choices; in the
    block step a block that cannot move says why; a click on nothing says what the step takes."""
    from tower.games import new_game
    from viewer.climbers_pointing import move_cells, natural_key, refusal

    state = new_game("climbers", 2, seed=7)
    block = state.ids[0]
    assert refusal(state, block).startswith(f"block {block}: step 1 moves your figure")
    assert "skip to the block move" in refusal(state, None)
    state.apply(next(m for m in state.legal_moves() if str(m) == "skip"))
    movable = set(state.legal_moves().blocks())
    stuck = next(b for b in state.ids if b not in movable)
    said = refusal(state, stuck)
    assert said.startswith(f"block {stuck} cannot move now (") and "step 2 moves a block" in said, said
    # every cell a click chooses a move by holds legal moves only
    legal = {str(m) for m in new_game("climbers", 2, seed=7).legal_moves()}
    cells = move_cells(new_game("climbers", 2, seed=7), list(new_game("climbers", 2, seed=7).legal_moves()))
    assert cells and all(set(ms) <= legal for ms in cells.values())
    assert sorted(["c10", "c2", "c1"], key=natural_key) == ["c1", "c2", "c10"]


def test_the_stone_is_pointed_at_by_the_free_cells_of_the_top_it_goes_on() -> None:
    from tower.games import new_game
    from viewer.climbers_pointing import move_cells

    state = new_game("climbers", 2, seed=7)
    state.apply(next(m for m in state.legal_moves() if str(m) == "skip"))
    state.apply(next(iter(state.legal_moves())))  # a block move
    state.apply(next(m for m in state.legal_moves() if str(m) == "skip"))  # leave the figure
    assert state.phase == "stone"
    stones = [m for m in state.legal_moves() if m.kind == "stone"]
    cells = move_cells(state, state.legal_moves())
    build = state.to_build()
    figures = {tuple(f.cell) for f in build.figures}
    for m in stones:
        mine = [c for c, ms in cells.items() if str(m) in ms]
        b = build.block(m.block)
        assert mine, m
        for x, y, z in mine:  # on the block's own top, inside its footprint, where no figure stands
            assert z == b.origin[2] + b.size[2] and (x, y, z) not in figures
            assert b.origin[0] <= x < b.origin[0] + b.size[0] and b.origin[1] <= y < b.origin[1] + b.size[1]

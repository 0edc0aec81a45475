"""The Climbers over random games: what must hold after every move, whatever the players do.

A small number of games runs in the normal test run; `TOWER_SLOW=1` runs the 1000-game check.
"""

from __future__ import annotations

import json
import os
import random

import pytest

from tower.climbers.blocks import COLOURS, GREY, placements_shapes
from tower.climbers.figures import Ground, enterable, flat, ladder_bits, rises, walk
from tower.climbers.game import ClimbersState
from tower.climbers.legality import check_build
from tower.climbers.moves import ClimbersMove
from tower.climbers.search import block_scores, playout_moves, playout_rows
from tower.games import replay
from tower.games.errors import IllegalMove


def snapshot(state: ClimbersState) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def random_game(players: int, seed: int, options: dict | None = None):
    """Yield the state after every move of a random game (the same object, mutated)."""
    state = ClimbersState(players, seed, options)
    rng = random.Random(seed)
    yield state
    while not state.is_over:
        state.apply(state.random_move(rng))
        yield state


def assert_sound(state: ClimbersState) -> None:
    """The build is legal and every figure stands on a top it may stand on."""
    errors = [v for v in check_build(state.to_build()) if v.level == "error"]
    assert errors == [], errors
    for p, (x, y, z) in enumerate(state.figures):
        assert int(state.heights[x, y]) == z
        if z > 0:
            top = state.block_top_colour(int(state.topb[x, y]))
            assert top in (GREY, COLOURS.index(state.colours[p]))
    cells = [f[:2] for f in state.figures]
    assert len(set(cells)) == len(cells)


def wrong_variants(state: ClimbersState, move: ClimbersMove, rng: random.Random) -> list[ClimbersMove]:
    """Near misses of a legal move: shifted cells, other ladders, other tops."""
    out = []
    if move.cell is not None:
        x, y, z = move.cell
        for d in ((1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0), (3, -2, 0)):
            out.append(ClimbersMove(move.kind, cell=(x + d[0], y + d[1], z + d[2]), ladders=move.ladders,
                                    block=move.block, size=move.size, top=move.top, pushes=move.pushes))
    if move.kind == "fig":
        out.append(ClimbersMove("fig", cell=move.cell, ladders=("short", "long")))
    if move.kind == "block":
        out.append(ClimbersMove("block", cell=move.cell, block=move.block, size=move.size,
                                top=(move.top + 1) % len(COLOURS), pushes=move.pushes))
        other = state.ids[rng.randrange(len(state.ids))]
        out.append(ClimbersMove("block", cell=move.cell, block=other, size=move.size, top=move.top))
    out += [ClimbersMove("pass"), ClimbersMove("skip"), ClimbersMove("stone", block=state.ids[0])]
    return out


def check_game(players: int, seed: int, options: dict | None = None, deep: bool = True) -> ClimbersState:
    rng = random.Random(seed + 1000)
    state = None
    for state in random_game(players, seed, options):
        assert_sound(state)
        if not deep or state.is_over:
            continue
        legal = state.legal_moves()
        assert legal, "a game that is not over always offers a move"
        assert legal == sorted(set(legal), key=ClimbersMove.sort_key)
        before = snapshot(state)
        for move in rng.sample(legal, min(3, len(legal))):
            child = state.clone()
            child.apply(move)
            assert_sound(child)
            assert ClimbersMove.parse(str(move)) == move  # the text form round-trips
            assert ClimbersMove.from_json(move.to_json()) == move
        legal_set = set(legal)
        for wrong in wrong_variants(state, rng.choice(legal), rng):
            if wrong in legal_set:
                continue
            with pytest.raises(IllegalMove) as err:
                state.apply(wrong)
            assert err.value.rule and err.value.rule != "not-legal"
            assert snapshot(state) == before
        assert snapshot(state) == before
    assert state is not None and state.is_over
    return state


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3), (5, 4), (3, 5)])
def test_random_games_keep_every_rule(players: int, seed: int) -> None:
    check_game(players, seed)


def test_the_free_descent_option_keeps_every_rule_too() -> None:
    check_game(3, 11, {"descent": "free"})


def test_a_record_replays_to_the_same_state() -> None:
    for players, seed in ((2, 21), (4, 22)):
        *_, state = random_game(players, seed)
        assert replay(state.record()).to_json() == state.to_json()


def test_to_json_and_from_json_round_trip_mid_game() -> None:
    for i, state in enumerate(random_game(3, 31)):
        if i % 4 == 0:
            again = ClimbersState.from_json(json.loads(json.dumps(state.to_json())))
            assert again.to_json() == state.to_json()
            assert again.legal_moves() == state.legal_moves()


def test_a_clone_is_independent() -> None:
    state = ClimbersState(3, seed=41)
    rng = random.Random(0)
    for _ in range(5):
        state.apply(state.random_move(rng))
    before = snapshot(state)
    child = state.clone()
    while not child.is_over:
        child.apply(child.random_move(rng))
    assert snapshot(state) == before
    assert state.heights.tolist() != child.heights.tolist() or state.figures != child.figures


def test_the_greedy_score_of_a_block_table_matches_the_move_by_move_score() -> None:
    state = ClimbersState(3, seed=51)
    rng = random.Random(1)
    checked = 0
    while not state.is_over and checked < 4:
        if state.phase == "block":
            table = state.block_table()
            scores = block_scores(state, table, state.player)
            for k in rng.sample(range(len(table.rows)), min(300, len(table.rows))):
                assert scores[k] == pytest.approx(state.greedy_score(table.move(state.ids, k), state.player))
            checked += 1
        state.apply(state.random_move(rng))


def test_rollout_and_random_moves_are_legal() -> None:
    state = ClimbersState(4, seed=61)
    rng = random.Random(2)
    while not state.is_over:
        move = state.rollout_move(rng) if rng.random() < 0.5 else state.random_move(rng)
        assert move in state.legal_moves()
        state.apply(move)


def test_the_playout_lists_leave_out_only_moves_greedy_never_plays() -> None:
    """The search's playouts read cheaper lists: every move on them is legal; in the first figure step the
    moves left out all score below skipping (so the greedy choice is the same), and in the block step the
    rows are exactly the legal block moves that push nobody (where the figure must still rise, some of them)."""
    rng = random.Random(4)
    seen = {"figure1": 0, "block": 0, "rise": 0}
    for seed in range(6):
        state = ClimbersState(3, seed=81 + seed)
        while not state.is_over:
            fresh = ClimbersState.from_json(state.to_json())  # nothing listed yet
            if state.phase == "figure1":
                cheap = playout_moves(fresh)
                legal = state.legal_moves()
                assert set(cheap) <= set(legal) and "skip" in map(str, cheap)
                left_out = [m for m in legal if m not in set(cheap)]
                assert all(state.greedy_score(m, state.player) < 0 for m in left_out)
                seen["figure1"] += bool(left_out)
            elif state.phase == "block":
                rows = playout_rows(fresh)
                table = state.block_table()
                if not state._needs_rise():
                    assert (rows is None and not len(table.rows)) or rows.tolist() == table.rows.tolist()
                    seen["block"] += 1
                elif rows is not None:  # the rows that give a rise at once: a subset of the legal moves
                    assert set(rows.tolist()) <= set(table.rows.tolist())
                    seen["rise"] += 1
            state.apply(state.rollout_move(rng) if rng.random() < 0.7 else state.random_move(rng))
    assert seen["figure1"] and seen["block"] and seen["rise"]  # every case met


def test_random_games_of_two_to_five_players_finish() -> None:
    for seed in range(12):
        check_game(2 + seed % 4, 100 + seed, deep=False)


@pytest.mark.slow
def test_a_thousand_random_games_finish_without_error() -> None:
    for seed in range(1000):
        check_game(2 + seed % 4, 10_000 + seed, deep=False)


def test_search_moves_are_a_non_empty_subset_of_the_legal_moves() -> None:
    rng = random.Random(3)
    for state in random_game(3, 71):
        if state.is_over:
            break
        if rng.random() < 0.3:
            state = ClimbersState.from_json(state.to_json())  # also from a state that has listed nothing yet
        offered = state.search_moves()
        assert offered and set(offered) <= set(state.legal_moves())


# --- the net-height rule against brute force ------------------------------------------------------------------
def rises_anywhere(state: ClimbersState, board, figures, ladders: int, above: int) -> bool:
    """Can the player to move reach a column above `above` from where `figures` puts him, on `board`? A plain
    breadth-first search over the whole board, nothing cached or patched."""
    p = state.player
    others = [f[:2] for q, f in enumerate(figures) if q != p]
    ok = enterable(board, COLOURS.index(state.colours[p]), state.blocked(), others)
    ground = Ground(board.heights, ok, state.options["descent"] == "free")
    return any(ground.h[s >> 2] > above for s in walk(ground, flat(*figures[p][:2]), ladders))


def board_after(state: ClimbersState, m: ClimbersMove):
    """The board and the figures once block move `m` is made, rebuilt from scratch (a copy of the board)."""
    i = state.index[m.block]
    board = state.board.copy()
    faces = next(f for s, t, f in placements_shapes(tuple(int(v) for v in board.size[i]),
                                                    tuple(int(v) for v in board.faces[i]))
                 if s == m.size and t == m.top)
    board.move(i, m.cell, m.size, faces)
    return board, [next((b for a, b in m.pushes if a == f), f) for f in state.figures]


def continuation_exists(state: ClimbersState, first: ClimbersMove) -> bool:
    """After the first figure move `first` (made whether listed or not): is there a block move, any of all the
    legal ones, after which some second figure move ends higher than the turn began?"""
    p = state.player
    after = state.clone()
    after._apply_figure(p, first)
    after._advance()
    after._changed()
    ladders = ladder_bits(after.short[p], after.long[p])
    above = state.turn_start[2]
    moves = after.block_moves(net_height=False)
    if not len(moves):  # the block step is skipped
        return rises_anywhere(after, after.board, after.figures, ladders, above)
    tried = set()
    for m in moves:
        key = (m.block, m.cell, m.size, m.top in (GREY, COLOURS.index(state.colours[p])), m.pushes)
        if key in tried:
            continue
        tried.add(key)
        board, figures = board_after(after, m)
        if rises_anywhere(after, board, figures, ladders, above):
            return True
    return False


M_SKIP = ClimbersMove("skip")


def midgame(seed: int, turns: int) -> ClimbersState:
    """A 3-player game played at random for `turns` turns, then to the next first figure step."""
    state = ClimbersState(3, seed)
    rng = random.Random(seed)
    while not state.is_over and (state.turn < turns or state.phase != "figure1"):
        state.apply(rng.choice(state.legal_moves()))
    return state


#: Positions whose first figure step offers moves that do not end higher, some with a continuation, some without
#: (seeds 21 and 33 have refused ones); TOWER_SLOW=1 adds 60 more.
POSITIONS = [(21, 5), (33, 8), (516, 5)] + ([(s, 2 + s % 9) for s in range(40, 100)] if os.environ.get("TOWER_SLOW") else [])


@pytest.mark.parametrize("seed,turns", POSITIONS)
def test_a_level_first_move_is_listed_exactly_when_a_block_move_then_leads_higher(seed: int, turns: int) -> None:
    state = midgame(seed, turns)
    if state.is_over:
        pytest.skip("the game ended first")
    p = state.player
    above = state.turn_start[2]
    listed = set(state.legal_moves())
    level = [m for m in state.figure_moves(p, net_height=False) if m.cell[2] <= above
             and (state.figures[p][2] > 0 or m.cell[2] > 0 or m.ladders or flat(*m.cell[:2]) not in state._table_walk(p))]
    if not level:
        pytest.skip("no move that does not end higher here")
    rng = random.Random(seed)
    chosen = [m for m in level if m not in listed][:3] + rng.sample([m for m in level if m in listed],
                                                                     min(3, len([m for m in level if m in listed])))
    for move in chosen:
        assert continuation_exists(state, move) == (move in listed), move
        if move not in listed:
            assert state.explain(move).rule == "net-height"


@pytest.mark.parametrize("seed,turns", [(516, 5)])
def test_in_the_block_step_exactly_the_moves_that_leave_a_way_up_are_listed(seed: int, turns: int) -> None:
    state = midgame(seed, turns)
    p = state.player
    above = state.turn_start[2]
    first = next(m for m in state.legal_moves() if m.kind == "fig" and m.cell[2] <= above)
    state.apply(first)
    assert state.phase == "block" and state._needs_rise()
    listed = set(state.legal_moves())
    every = list(state.block_moves(net_height=False))
    rng = random.Random(seed)
    ladders = ladder_bits(state.short[p], state.long[p])
    for m in rng.sample(every, min(300, len(every))):
        board, figures = board_after(state, m)
        assert rises_anywhere(state, board, figures, ladders, above) == (m in listed), m


@pytest.mark.parametrize("seed,turns", [(516, 5), (21, 5), (33, 8), (3, 12)])
def test_the_patched_search_after_a_block_move_agrees_with_a_search_from_scratch(seed: int, turns: int) -> None:
    """`Riser.rises_after` patches the changed columns into the ground and reuses the pieces of free table; a
    search on a board rebuilt from scratch must give the same answer, for figures anywhere on the tower."""
    state = midgame(seed, turns)
    if state.is_over:
        pytest.skip("the game ended first")
    p = state.player
    riser = state._riser(p)
    rng = random.Random(seed)
    moves = list(state.block_moves(net_height=False)) if state.phase == "block" else []
    if not moves:
        state.apply(M_SKIP)
        moves = list(state.block_moves(net_height=False))
        riser = state._riser(p)
    ladders = ladder_bits(state.short[p], state.long[p])
    spots = [state.figures[p]] + [m.cell for m in state.figure_moves(p, net_height=False) if m.kind == "fig"][:6]
    for m in rng.sample(moves, min(150, len(moves))):
        i = state.index[m.block]
        board, figures = board_after(state, m)
        fast = riser.rises_after(i, m.cell, m.size, m.top, m.pushes, state.figures[p], ladders)[0]
        assert fast == rises_anywhere(state, board, figures, ladders, riser.above), m
        spot = rng.choice(spots)
        if (spot[0], spot[1]) in {(f[0], f[1]) for q, f in enumerate(figures) if q != p} or \
                m.cell[0] <= spot[0] < m.cell[0] + m.size[0] and m.cell[1] <= spot[1] < m.cell[1] + m.size[1]:
            continue
        moved = list(figures)
        moved[p] = (spot[0], spot[1], int(board.heights[spot[0], spot[1]]))
        others = [f[:2] for q, f in enumerate(moved) if q != p]
        ok = enterable(board, COLOURS.index(state.colours[p]), state.blocked(), others)
        fresh = Ground(board.heights, ok, state.options["descent"] == "free")
        assert rises(fresh, flat(*spot[:2]), ladders, riser.above) == rises_anywhere(state, board, moved, ladders,
                                                                                      riser.above), (m, spot)

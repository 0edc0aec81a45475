"""The AI hooks of The Climbers (`tower.games.ai`): cheap one-move scores, no copy of the state per move.

- `heuristic`: how well a player stands (height, plus a little for ladders kept);
- `greedy_score`: the greedy player's value of one move, and `block_scores`, the same for every row of a
  block table at once (numpy);
- `random_move`: a uniform draw, straight from the block table in the block step (no Move objects built);
- `rollout_move`: the search player's playouts, mostly greedy, now and then random;
- `search_moves`: the short list the search tree expands (every move but the block moves, and the best-scored
  block moves).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from tower.climbers.blockmoves import BlockTable, Placements, figure_masks, row_move
from tower.climbers.blocks import COLOURS, GREY
from tower.climbers.figures import LONG_LADDER, SHORT_LADDER
from tower.climbers.moves import ClimbersMove

SKIP, PASS = ClimbersMove("skip"), ClimbersMove("pass")

#: The state these functions serve: `game.ClimbersState`, which imports this module (named, not imported, so that
#: imports point one way).
ClimbersState = Any

ROLLOUT_RANDOM = 0.15  # share of random moves in the search player's playouts
SEARCH_WIDTH = 24  # block moves `search_moves` offers a search player


def heuristic(state: ClimbersState, player: int) -> float:
    ladders = 0.6 * state.short[player] + 1.0 * state.long[player]
    return state.figures[player][2] + 0.3 * ladders


def rises_for(state: ClimbersState, player: int) -> set[int]:
    """The rises player's figure can make in one step with the ladders it still has."""
    rises = {1}
    if state.short[player]:
        rises.update(SHORT_LADDER)
    if state.long[player]:
        rises.update(LONG_LADDER)
    return rises


def _reach(short: bool, long: bool) -> np.ndarray:
    """Per rise 0..5 whether a figure with these ladders left climbs it in one step."""
    rises = {1} | (set(SHORT_LADDER) if short else set()) | (set(LONG_LADDER) if long else set())
    return np.array([r in rises for r in range(max(LONG_LADDER) + 2)])


_REACH = {(short, long): _reach(short, long) for short in (False, True) for long in (False, True)}


def block_scores(state: ClimbersState, table: BlockTable, player: int) -> np.ndarray:
    """`greedy_score` of every row of a block table (its `rows`, not its extra moves) at once."""
    return row_scores(state, table.placements, table.rows, player)


def row_scores(state: ClimbersState, pl: Placements, rows: np.ndarray, player: int) -> np.ndarray:
    """`greedy_score` of the block moves that are these rows of the placements, at once."""
    fx, fy, fz = state.figures[player]
    own = COLOURS.index(state.colours[player])
    shape = pl.shape[rows]
    sizes = pl.sizes[shape]
    tops = pl.tops[shape]
    sx, sy = sizes[:, 0], sizes[:, 1]
    x, y = pl.x[rows], pl.y[rows]
    beside_x = (x - 1 <= fx) & (fx <= x + sx) & (y <= fy) & (fy < y + sy)
    beside_y = (x <= fx) & (fx < x + sx) & (y - 1 <= fy) & (fy <= y + sy)
    inside = (x <= fx) & (fx < x + sx) & (y <= fy) & (fy < y + sy)
    colour_ok = (tops == own) | (tops == GREY)
    rise = pl.z1[rows] - fz
    reach = _REACH[(state.short[player], state.long[player])]
    climbable = reach[np.clip(rise, 0, len(reach) - 1)]
    good = (beside_x | beside_y) & ~inside & colour_ok & climbable
    # a rise without a ladder is worth a little more than the same rise by ladder
    return np.where(good, rise + 0.5 * (rise == 1), 0.0)


def greedy_score(state: ClimbersState, move: ClimbersMove, player: int) -> float:
    """The greedy player's one-move value: height gained now, then mobility (a place to climb next).

    A figure move scores its rise (ladders cost a little: they are mobility kept for later). A block move is
    not tried out: it scores the rise it offers if its new top lands orthogonally next to the player's figure,
    shows the player's colour or grey, and is within reach of a step or a ladder the player still has. A
    blocking stone scores a little when it lies next to another figure. Skip and pass score 0.
    """
    if move.kind == "fig":
        gain = move.cell[2] - state.figures[player][2]  # type: ignore[index]
        return 10.0 * gain - 0.6 * len(move.ladders) - (0.05 if gain <= 0 else 0.0)
    if move.kind == "block":
        sx, sy, sz = move.size  # type: ignore[misc]
        x, y, z = move.cell  # type: ignore[misc]
        fx, fy, fz = state.figures[player]
        beside = ((x - 1 <= fx <= x + sx and y <= fy < y + sy) or (x <= fx < x + sx and y - 1 <= fy <= y + sy))
        inside = x <= fx < x + sx and y <= fy < y + sy
        rise = z + sz - fz
        if (beside and not inside and move.top in (COLOURS.index(state.colours[player]), GREY)
                and rise in rises_for(state, player)):
            return rise + 0.5 * (rise == 1)
        return 0.0
    if move.kind == "stone":
        i = state.index[move.block]  # type: ignore[index]
        o, size = state.board.origin[i], state.board.size[i]
        return 0.1 * sum(1 for q, (x, y, _) in enumerate(state.figures) if q != player
                         and o[0] - 1 <= x <= o[0] + size[0] and o[1] - 1 <= y <= o[1] + size[1])
    return 0.0


def random_move(state: ClimbersState, rng: random.Random) -> ClimbersMove:
    """A legal move drawn uniformly; in the block step straight from the block table."""
    if state.phase == "block" and not state.over:
        table = state.block_table()
        if len(table):
            return table.move(state.ids, rng.randrange(len(table)))
    return rng.choice(state.legal_moves())


def rollout_move(state: ClimbersState, rng: random.Random) -> ClimbersMove:
    """The playout policy of the search player: mostly greedy (best `greedy_score`, ties at random), now and
    then a random move. It reads the cheaper lists of `playout_moves` and `playout_rows`: every move it makes is
    legal, and the ones it never makes are those that cost most to find and that greedy would not choose (a
    first figure move ending no higher scores below skipping; block moves that push a figure, 'rows' only)."""
    p = state.player
    if state.phase == "block":
        rows = playout_rows(state)
        if rows is None:
            return _rollout_block_step(state, rng)
        pl = state._placements()
        if rng.random() >= ROLLOUT_RANDOM:
            scores = row_scores(state, pl, rows, p)
            best = float(scores.max())
            if best > 0:
                picks = np.flatnonzero(scores == best)
                return row_move(pl, state.ids, int(rows[picks[rng.randrange(len(picks))]]))
        return row_move(pl, state.ids, int(rows[rng.randrange(len(rows))]))
    moves = playout_moves(state)
    if rng.random() < ROLLOUT_RANDOM:
        return rng.choice(moves)
    values = [greedy_score(state, m, p) for m in moves]
    best = max(values)
    return rng.choice([m for m, v in zip(moves, values, strict=True) if v == best])


def _rollout_block_step(state: ClimbersState, rng: random.Random) -> ClimbersMove:
    """The playout policy on the full block table (no row of `playout_rows` is left)."""
    if rng.random() < ROLLOUT_RANDOM:
        return random_move(state, rng)
    table = state.block_table()
    if len(table.rows):
        scores = block_scores(state, table, state.player)
        best = float(scores.max())
        if best > 0:
            rows = np.flatnonzero(scores == best)
            return row_move(table.placements, state.ids, int(table.rows[rows[rng.randrange(len(rows))]]))
    return random_move(state, rng)


def playout_moves(state: ClimbersState) -> list[ClimbersMove]:
    """Legal moves of a figure or stone step for playouts: in the first figure step, without the moves that end
    no higher than the turn began (their legality costs the net-height search; greedy never plays them)."""
    if state.phase != "figure1" or "moves" in state._cache:
        return state.legal_moves()
    return state._cached("playout-moves", lambda: state.figure_moves(state.player, judge_first=False) + [SKIP, PASS])


def playout_rows(state: ClimbersState) -> np.ndarray | None:
    """The block moves that push nobody, as rows of the placements (all legal, found without the push search).
    Where the figure must still end the turn higher, only those whose new top it can climb at once to above
    where the turn began (they keep a rise, so the net-height search need not be asked). None where overhangs
    need the judge or no such row is left."""
    if state.options["support"] != "strict":
        return None

    def make() -> np.ndarray:
        if not state._needs_rise() and ("block-table", True) in state._cache:
            return state.block_table().rows
        pl = state._placements()
        keep, pushing = figure_masks(pl, state.board, state.figures)
        rows = np.flatnonzero(keep & ~pushing & ~pl.overhang)
        if state._needs_rise() and len(rows):
            p = state.player
            rows = rows[(row_scores(state, pl, rows, p) > 0) & (pl.z1[rows] > state.turn_start[2])]
        return rows

    rows = state._cached("playout-rows", make)
    return rows if len(rows) else None


def search_moves(state: ClimbersState) -> list[ClimbersMove]:
    """The moves the search player's tree expands (`tower.games.ai.MCTSAgent`): every figure, stone, skip and
    pass move, and the best-scored block moves."""
    if state.phase != "block":
        return state.legal_moves()
    table = state.block_table()
    if not len(table.rows):
        return state.legal_moves()
    order = np.argsort(-block_scores(state, table, state.player), kind="stable")
    return [row_move(table.placements, state.ids, int(table.rows[k])) for k in order[:SEARCH_WIDTH]]

"""The Climbers: the game state and its turn.

A turn, as the rules have it: an optional figure move; one block move (or pass the whole turn); an optional
second figure move; then, once per game, the blocking stone. Each step is one decision (one `ClimbersMove`),
so people and AIs choose through the same list of legal moves. The pieces of the game live in their own modules:

- `board`: blocks, the height map and the top block of every column;
- `figures`: where a figure may step and the searches over its moves;
- `blockmoves` and `movelist`: every legal block move as numpy arrays, and as a lazily built sorted list;
- `netheight`: the rule that a figure leaving the table must end its turn higher, judged exactly;
- `stones`, `refusals` (why a move is illegal), `search` (the AI hooks), `serial` (JSON) and `text` (for
  people: the height map, labels, the end in words).
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any, ClassVar, Self

import numpy as np

from tower.climbers import refusals, search, serial, stones, text
from tower.climbers.blockmoves import BlockTable, Placements, legal_table, placements
from tower.climbers.blocks import COLOURS, PLAYER_COLOURS, Colouring, placements_shapes
from tower.climbers.board import BOARD, NO_BLOCK, TOWER_AT, Z_MAX, Board
from tower.climbers.build import Block, Build, Figure, Stone
from tower.climbers.figures import (
    Ground,
    enterable,
    flat,
    ladder_bits,
    ladders_used,
    near_tower,
    table_walk,
    unflat,
    walk,
)
from tower.climbers.movelist import MoveList
from tower.climbers.moves import Cell, ClimbersMove
from tower.climbers.netheight import Riser
from tower.climbers.setup import check_start_build, random_start_tower
from tower.games.base import GameState, Judge
from tower.games.errors import BadInput, IllegalMove

PHASES = ("figure1", "block", "figure2", "stone")
CROP = 4  # table cells round the construction and the figure that a figure's searches look at
SKIP, PASS = ClimbersMove("skip"), ClimbersMove("pass")


class ClimbersState(GameState):
    name: ClassVar[str] = "climbers"
    title: ClassVar[str] = "The Climbers"
    credit: ClassVar[str] = "Holger Lanz, Chili Spiele 2007/08 (Die Aufsteiger)"
    perfect_information: ClassVar[bool] = True
    layout: ClassVar[str] = "tower"
    construction: ClassVar[bool] = True
    build_option: ClassVar[str | None] = "start"
    encoding: ClassVar[str | None] = "tower.climbers.encoding"
    focused_search: ClassVar[bool] = True
    # a playout move costs ~2 ms (block table, figure moves): short playouts ranked by `heuristic` leave the
    # search player more iterations, and won more often against greedy (docs/climbers.md)
    rollout_depth: ClassVar[int] = 8
    # the levels people choose by name: iteration caps at what 0.1 s and 1 s allow on one core; the strong level
    # widens its tree progressively and keeps it across the three decisions of a turn (docs/ai.md)
    ai_levels: ClassVar[dict[str, str]] = {"easy": "greedy", "normal": "mcts:time=0.1,iters=20",
                                           "strong": "mcts:time=1,iters=200,widen=1,reuse=1"}
    move_type = ClimbersMove
    min_players = 2
    max_players = 5
    default_players = 3
    max_game_length = 4 * 5 * 200 + 10
    default_options: ClassVar[dict[str, Any]] = {
        "support": "strict",  # rulings: strict (full support) or physical (overhangs the physics judge accepts)
        "descent": "one-unit",  # rulings: one-unit (at most 1 down per step) or free
        "max_rounds": 200,  # safety cap; ends the game as if the last chance had failed
        "start": None,  # a tower-build/1 document to start from instead of a random start tower
    }
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "support": ("strict", "physical"),
        "descent": ("one-unit", "free"),
    }
    option_help: ClassVar[dict[str, tuple[str, str]]] = text.OPTION_HELP
    how_to_play: ClassVar[str] = text.HOW_TO_PLAY

    def __init__(self, players: int, seed: int | None = 0, options: dict[str, Any] | None = None, *,
                 judge: Judge | None = None, build: Build | None = None, shift: bool = True) -> None:
        """A new game: a random start tower for `seed`, or the `start` option's build, or `build` (laid out with
        its minimum corner at TOWER_AT, or exactly where it is without `shift`)."""
        super().__init__(players, seed, options, judge=judge)
        if not isinstance(self.options["max_rounds"], int) or self.options["max_rounds"] < 1:
            raise BadInput("option 'max_rounds' must be at least 1", "$.options.max_rounds")
        if self.options["support"] == "physical" and self.judge is None:
            raise BadInput("option 'support': 'physical' needs a physics judge handed in as judge= (the CLI "
                           "hands one in; in Python: tower.app.stability.statics_stands)", "$.options.support")
        self.colours = PLAYER_COLOURS[:players]
        placed: dict[int, Cell] = {}
        where = "$.blocks"
        if build is None and self.options["start"] is not None:
            build = _start_build(self.options["start"], players)
            where = "$.options.start.blocks"
        elif build is None:
            build = random_start_tower(self.rng.getrandbits(32))
        self.board = Board(build.blocks, TOWER_AT if shift else None, where)
        dx, dy = self.board.offset
        for f in build.figures:
            placed[self.colours.index(f.colour)] = (f.cell[0] + dx, f.cell[1] + dy, f.cell[2])
        self.figures: list[Cell] = self._start_cells(players, placed)
        self.short = [True] * players
        self.long = [True] * players
        self.stone: list[int | None] = [None] * players  # block index while the stone lies
        self.stone_used = [False] * players
        self.player = 0
        self.phase = "figure1"
        self.last_moved: int | None = None  # block moved in the previous player's turn
        self.moved_now: int | None = None
        self.turn_start = self.figures[0]
        self.climbed = False  # the figure left the table this turn (the net-height rule applies)
        self.turn = 0
        self.round = 0
        self.round_leader = False  # someone climbed to strictly highest this round
        self.last_chance = False
        self.over = False
        self.reached = [0] * players  # turn number at which each figure reached its present height
        self._cache: dict[Any, Any] = {}  # what the position yields (legal moves, searches); see `_changed`

    @classmethod
    def resolve_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """The kit's checks, and the `start` build checked as the rules demand (`setup.check_start_build`)."""
        if not isinstance(options, dict) or options.get("start") is None:
            return super().resolve_options(options)
        out = super().resolve_options({k: v for k, v in options.items() if k != "start"})
        _start_build(options["start"], None)
        out["start"] = options["start"]
        return out

    @classmethod
    def position(cls, players: int, build: Build, figures: list[Cell], *, short: list[bool] | None = None,
                 long: list[bool] | None = None, player: int = 0, stones: dict[int, str] | None = None,
                 last_moved: str | None = None, options: dict[str, Any] | None = None, seed: int = 0,
                 judge: Judge | None = None) -> Self:
        """A hand-made position (for tests and puzzles): the blocks exactly where `build` puts them, the figures
        on the given cells, the ladders each player still has (default: all), the stones lying (player -> block
        id), the block the previous player moved, and `player` to start a fresh turn."""
        state = cls(players, seed, options, judge=judge, build=Build(build.blocks), shift=False)
        if len(figures) != players:
            raise BadInput(f"{players} players need {players} figures", "$.figures")
        state.figures = [tuple(int(v) for v in f) for f in figures]  # type: ignore[misc]
        state.short = list(short) if short is not None else [True] * players
        state.long = list(long) if long is not None else [True] * players
        for q, block in (stones or {}).items():
            state.stone[q] = state.board.index[block]
            state.stone_used[q] = True
        state.last_moved = None if last_moved is None else state.board.index[last_moved]
        state.player = player
        state.turn_start = state.figures[player]
        return state

    def _start_cells(self, players: int, placed: dict[int, Cell]) -> list[Cell]:
        """Figures start on the table around the construction, spread round it (or where the start build put
        them). A cell beyond the construction's far sides that a large tower covers moves outwards to the first
        table cell; one still covered or taken goes to the nearest free table cell."""
        heights = self.board.heights
        cx, cy = TOWER_AT[0] + 4, TOWER_AT[1] + 3
        far_x, far_y = TOWER_AT[0] + 11, TOWER_AT[1] + 10
        while far_x < BOARD - 1 and heights[far_x, cy] > 0:
            far_x += 1
        while far_y < BOARD - 1 and heights[cx, far_y] > 0:
            far_y += 1
        ring = [(cx, TOWER_AT[1] - 3), (far_x, cy), (cx, far_y), (TOWER_AT[0] - 3, cy),
                (TOWER_AT[0] - 3, TOWER_AT[1] - 3)]
        taken = {c[:2] for c in placed.values()}
        out = []
        for p in range(players):
            if p in placed:
                out.append(placed[p])
                continue
            x, y = ring[p]
            if heights[x, y] > 0 or (x, y) in taken:
                x, y = _nearest_free(heights, (x, y), taken)
            taken.add((x, y))
            out.append((x, y, 0))
        return out

    # --- the position ------------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.over else self.player

    @property
    def ids(self) -> list[str]:
        return self.board.ids

    @property
    def index(self) -> dict[str, int]:
        return self.board.index

    @property
    def heights(self) -> np.ndarray:
        return self.board.heights

    @property
    def topb(self) -> np.ndarray:
        return self.board.topb

    def block_top_colour(self, i: int) -> int:
        return self.board.top_colour(i)

    def height(self, p: int) -> int:
        return self.figures[p][2]

    def blocked(self) -> set[int]:
        """The blocks carrying a stone."""
        return {b for b in self.stone if b is not None}

    def to_build(self) -> Build:
        """The construction with figures and stones, as a tower-build/1 Build."""
        figures = [Figure(self.colours[p], self.figures[p]) for p in range(self.num_players)]
        laid = [Stone(self.colours[p], self.ids[b]) for p, b in enumerate(self.stone) if b is not None]
        return Build(self.board.blocks(), figures, laid)

    def movable_blocks(self) -> list[int]:
        """Blocks that may be moved now: nothing on top (block, figure or stone), not moved last turn."""
        figs = {int(self.topb[x, y]) for x, y, z in self.figures if z > 0}
        blocked = self.blocked()
        return [i for i in range(len(self.ids)) if i != self.last_moved and i not in blocked and i not in figs
                and not self.board.carries_block(i)]

    def _changed(self) -> None:
        """Forget what the position yielded; the placements stay cached under their board version."""
        kept = {k: v for k, v in self._cache.items() if isinstance(k, tuple) and k[0] == "placements"}
        self._cache = kept

    def _cached(self, key: Any, make: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    # --- figure moves ------------------------------------------------------------------------------------------
    def ground(self, p: int) -> Ground:
        """Where player p's figure may walk now (the other figures are in the way), cut to the construction and
        the figure with a margin of CROP table cells: further out the table only joins table to table, and a
        ring that wide cannot be cut twice by the other four figures at most, so the cut changes no walk."""
        def make() -> Ground:
            others = [f[:2] for q, f in enumerate(self.figures) if q != p]
            ok = enterable(self.board, COLOURS.index(self.colours[p]), self.blocked(), others)  # type: ignore[arg-type]
            xs, ys = np.nonzero(self.heights)
            x, y, _ = self.figures[p]
            inside = np.zeros_like(ok)
            inside[max(0, min(xs.min(initial=x), x) - CROP):max(xs.max(initial=x), x) + CROP + 1,
                   max(0, min(ys.min(initial=y), y) - CROP):max(ys.max(initial=y), y) + CROP + 1] = True
            return Ground(self.heights, ok & inside, self.options["descent"] == "free")
        return self._cached(("ground", p), make)

    def _table_walk(self, p: int) -> dict[int, int]:
        """The table columns player p's figure reaches over the table alone (none once it has climbed)."""
        x, y, z = self.figures[p]
        if z > 0 or self.climbed:
            return {}
        return self._cached(("table", p), lambda: table_walk(self.ground(p), flat(x, y)))

    def figure_moves(self, p: int, net_height: bool = True, judge_first: bool = True) -> list[ClimbersMove]:
        """Every distinct (destination, ladders used) the figure can reach this step, as a breadth-first search
        over (column, ladders left).

        A move that ends on the table is listed only to cells next to the tower (the figure walks freely there:
        further away gains nothing), and one that stays on the table, only without ladders. A move that leaves
        the table must end higher than the turn began: in the second figure move it does or it
        is not listed; in the first, a move that does not is listed only when a block move and a second figure
        move can still bring the figure higher (`netheight`). Without `net_height` that rule is left out. Without
        `judge_first` such first moves are left out unjudged (the search's playouts: every move listed is legal,
        and the ones left out are those that cost the net-height search).
        """
        ground = self.ground(p)
        x, y, _ = self.figures[p]
        start, lad0 = flat(x, y), ladder_bits(self.short[p], self.long[p])
        first = self.phase == "figure1"
        preds: dict[int, list[int]] | None = {} if first and net_height and judge_first else None
        parent = walk(ground, start, lad0, preds)
        table = self._table_walk(p)
        near = self._near()
        above = self.turn_start[2]
        h = ground.h
        moves, pending = [], []
        for s in parent:
            k, lad = s >> 2, s & 3
            if s == start * 4 + lad0:
                continue
            cx, cy = unflat(k)
            dest = (cx, cy, h[k])
            if h[k] == 0 and not near[cx, cy]:
                continue  # free table ground: only the cells next to the tower matter
            if k in table:
                if lad == lad0:  # a walk over the table alone, no ladders
                    moves.append(ClimbersMove("fig", cell=dest))
            elif h[k] > above or not net_height:
                moves.append(ClimbersMove("fig", cell=dest, ladders=ladders_used(parent, s)))
            elif first and judge_first:
                pending.append((s, dest))
        if pending:
            rising, toward = _rising(parent, preds, h, above)  # type: ignore[arg-type]
            verdicts = self._riser(p).first_moves([(dest, s & 3) for s, dest in pending], rising, toward)
            moves += [ClimbersMove("fig", cell=dest, ladders=ladders_used(parent, s))
                      for (s, dest), ok in zip(pending, verdicts, strict=True) if ok]
        return moves

    def _near(self) -> np.ndarray:
        """Table cells within one step (orthogonal or diagonal) of a block column."""
        return self._cached("near", lambda: near_tower(self.heights))

    def figure_path(self, p: int, move: ClimbersMove) -> tuple[Cell, ...]:
        """The cells a legal figure move of player p walks (start first): a shortest walk."""
        x, y, _ = self.figures[p]
        table = self._table_walk(p)
        goal = flat(*move.cell[:2])  # type: ignore[index]
        if goal in table and not move.ladders:
            cells, k = [], goal
            while k != -1:
                cells.append((*unflat(k), 0))
                k = table[k]
            return tuple(reversed(cells))
        ground = self.ground(p)
        parent = walk(ground, flat(x, y), ladder_bits(self.short[p], self.long[p]))
        s = next(s for s in parent if s >> 2 == goal and ladders_used(parent, s) == move.ladders)
        cells = []
        while s != -1:
            cells.append((*unflat(s >> 2), ground.h[s >> 2]))
            s = parent[s]
        return tuple(reversed(cells))

    def _riser(self, p: int) -> Riser:
        """The net-height searches for player p's figure in this position."""
        def make() -> Riser:
            others = [f for q, f in enumerate(self.figures) if q != p]
            stands = None
            if self.options["support"] == "physical":
                def stands(row: int, cell: Cell) -> bool:
                    return self._overhang_stands(row, [*others[:p], cell, *others[p:]])
            return Riser(self.board, self._placements(), self.ground(p), COLOURS.index(self.colours[p]), others,
                         self.blocked(), self.turn_start[2], stands)
        return self._cached(("riser", p), make)

    def _needs_rise(self) -> bool:
        return self.climbed and self.figures[self.player][2] <= self.turn_start[2]

    # --- block moves -------------------------------------------------------------------------------------------
    def _placements(self) -> Placements:
        physical = self.options["support"] == "physical"
        key = ("placements", self.board.version, self.last_moved, tuple(sorted(self.blocked())), physical)
        if key not in self._cache:
            self._cache = {k: v for k, v in self._cache.items() if not (isinstance(k, tuple) and k[0] == "placements")}
        return self._cached(key, lambda: placements(self.board, self.last_moved, self.blocked(), physical))

    def _overhang_stands(self, row: int, figures: list[Cell]) -> bool:
        """The physics judge's verdict on an overhanging placement (support=physical), figures as given."""
        pl = self._placements()
        i = int(pl.block[row])
        size, _ = pl.shapes[int(pl.shape[row])]
        build = self.to_build()
        b = build.blocks[i]
        build.blocks[i] = Block(b.id, (int(pl.x[row]), int(pl.y[row]), int(pl.z[row])), size, b.faces)
        build.figures = [Figure(self.colours[q], f) for q, f in enumerate(figures)]
        return bool(self.judge(build, b.id))  # type: ignore[misc]

    def block_table(self, net_height: bool = True) -> BlockTable:
        """Every legal block move now, as a table (see `blockmoves`); without `net_height`, also those after
        which the figure could no longer end the turn higher."""
        def make() -> BlockTable:
            stands = None
            if self.options["support"] == "physical":
                def stands(row: int) -> bool:
                    return self._overhang_stands(row, self.figures)
            table = legal_table(self._placements(), self.board, self.figures, stands)
            if net_height and self._needs_rise():
                p = self.player
                table = self._riser(p).block_step(table, self.figures[p], ladder_bits(self.short[p], self.long[p]))
            return table
        return self._cached(("block-table", net_height), make)

    def block_moves(self, net_height: bool = True) -> MoveList:
        """Every legal block move now, sorted (without `net_height`: see `block_table`)."""
        return self._cached(("block-moves", net_height), lambda: MoveList(self.block_table(net_height), self.ids))

    def stone_moves(self) -> list[ClimbersMove]:
        return stones.stone_moves(self)

    # --- the turn ------------------------------------------------------------------------------------------------
    def legal_moves(self) -> list[ClimbersMove]:  # type: ignore[override]
        """Sorted and unique; in the block step a `MoveList` that builds each move when it is read."""
        if self.over:
            return []
        moves = self._cached("moves", self._phase_moves)
        return moves if isinstance(moves, MoveList) else list(moves)  # a list the caller may change

    def _phase_moves(self) -> list[ClimbersMove] | MoveList:
        p = self.player
        if self.phase == "block":
            moves = self.block_moves()
            return moves if len(moves) else [SKIP]
        if self.phase == "figure1":
            moves = self.figure_moves(p) + [SKIP, PASS]
        elif self.phase == "figure2":
            moves = self.figure_moves(p)
            # a figure that must still rise has no skip; a dead end (a hand-made position) still may skip
            if not self._needs_rise() or not moves:
                moves.append(SKIP)
        else:
            moves = self.stone_moves() + [SKIP]
        moves.sort(key=ClimbersMove.sort_key)
        return moves

    def explain(self, move: ClimbersMove) -> IllegalMove | None:  # type: ignore[override]
        if self.over:
            return IllegalMove("game-over", "the game is over")
        if move in self.legal_moves():
            return None
        return IllegalMove(*refusals.why(self, move))

    def _apply(self, move: ClimbersMove) -> None:  # type: ignore[override]
        p = self.player
        if move.kind == "pass":
            self._end_turn()
        elif move.kind == "skip":
            self._advance()
        elif move.kind == "fig":
            self._apply_figure(p, move)
            self._advance()
        elif move.kind == "block":
            self._apply_block(move)
            self._advance()
        elif move.kind == "stone":
            self.stone[p] = self.index[move.block]  # type: ignore[index]
            self.stone_used[p] = True
            self._advance()
        self._changed()

    def _apply_figure(self, p: int, move: ClimbersMove) -> None:
        # the state's own walk, never the caller's: a move that is not a walk over free table ground leaves it
        x, y, z = self.figures[p]
        if z > 0 or move.cell[2] > 0 or move.ladders or flat(*move.cell[:2]) not in self._table_walk(p):  # type: ignore[index]
            self.climbed = True
        for lad in move.ladders:
            if lad == "short":
                self.short[p] = False
            else:
                self.long[p] = False
        if move.cell[2] != z:  # type: ignore[index]
            self.reached[p] = self.turn
        self.figures[p] = move.cell  # type: ignore[assignment]

    def _apply_block(self, move: ClimbersMove) -> None:
        i = self.index[move.block]  # type: ignore[index]
        colouring: Colouring = tuple(int(v) for v in self.board.faces[i])  # type: ignore[assignment]
        size: Cell = tuple(int(v) for v in self.board.size[i])  # type: ignore[assignment]
        faces = next(f for s, t, f in placements_shapes(size, colouring) if s == move.size and t == move.top)
        self.board.move(i, move.cell, move.size, faces)  # type: ignore[arg-type]
        for src, dst in move.pushes:
            for q, f in enumerate(self.figures):
                if f == src:
                    self.figures[q] = dst
        self.moved_now = i

    def _advance(self) -> None:
        nxt = PHASES.index(self.phase) + 1
        if nxt == len(PHASES) or (PHASES[nxt] == "stone" and self.stone_used[self.player]):
            self._end_turn()
        else:
            self.phase = PHASES[nxt]

    def _end_turn(self) -> None:
        p = self.player
        n = self.num_players
        me = self.figures[p][2]
        # "climb higher than all the others": the figure rose during this turn and ends strictly highest; a
        # leader who merely stays on top makes no progress, and the game must end when nobody makes any
        sole_leader = me > self.turn_start[2] and all(me > self.figures[q][2] for q in range(n) if q != p)
        self.last_moved = self.moved_now
        self.moved_now = None
        self.turn += 1
        if self.last_chance:
            self.last_chance = False
            if not sole_leader:
                self.over = True
                return
            self.round_leader = True  # the first player made it: play goes on with this round
        elif sole_leader:
            self.round_leader = True
        self.player = (p + 1) % n
        if self.player == 0:
            self.round += 1
            if self.round >= self.options["max_rounds"]:
                self.over = True
                return
            if not self.round_leader:
                self.last_chance = True
            self.round_leader = False
        q = self.player
        self.stone[q] = None  # a stone leaves the game when its owner's turn comes round again
        self.phase = "figure1"
        self.turn_start = self.figures[q]
        self.climbed = False

    # --- the result ------------------------------------------------------------------------------------------------
    def ranking(self) -> list[int]:
        """Players best first: higher figure first; equal heights: whoever got there later ranks higher."""
        return sorted(range(self.num_players), key=lambda q: (-self.figures[q][2], -self.reached[q], q))

    def result(self) -> dict[str, Any]:
        order = self.ranking()
        return {"winners": [order[0]], "scores": [self.figures[q][2] for q in range(self.num_players)],
                "ranking": order, "rounds": self.round, "turns": self.turn}

    # --- for people ------------------------------------------------------------------------------------------------
    def player_label(self, player: int) -> str:
        return f"P{player} {self.colours[player]}"

    def outcome_text(self) -> str:
        return text.outcome(self)

    def describe(self, player: int) -> str:
        return text.describe(self, player)

    def move_help(self) -> str:
        return text.move_help()

    def move_words(self, move: ClimbersMove) -> str:  # type: ignore[override]
        return text.move_words(self, move)

    def prompt(self) -> str | None:
        return None if self.over else text.PROMPTS.get(self.phase)

    # --- the AI hooks (tower.games.ai; the `search` module) -------------------------------------------------------
    def heuristic(self, player: int) -> float:
        return search.heuristic(self, player)

    def greedy_score(self, move: ClimbersMove, player: int) -> float:  # type: ignore[override]
        return search.greedy_score(self, move, player)

    def random_move(self, rng: random.Random) -> ClimbersMove:
        return search.random_move(self, rng)

    def rollout_move(self, rng: random.Random) -> ClimbersMove:
        return search.rollout_move(self, rng)

    def search_moves(self) -> list[ClimbersMove]:  # type: ignore[override]
        return search.search_moves(self)

    # --- copies and JSON -------------------------------------------------------------------------------------------
    def view(self, player: int) -> dict[str, Any]:
        return serial.view(self)

    def to_json(self) -> dict[str, Any]:
        return serial.to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        return serial.from_json(cls, data)

    def clone(self) -> Self:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.board = self.board.copy()
        for key in ("figures", "short", "long", "stone", "stone_used", "reached", "history"):
            setattr(new, key, list(getattr(self, key)))
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        # what is cached is never changed in place, so it is shared; not the searches, which read the board
        new._cache = {k: v for k, v in self._cache.items() if not (isinstance(k, tuple) and k[0] == "riser")}
        return new


def _rising(parent: dict[int, int], preds: dict[int, list[int]], h: list[int],
            above: int) -> tuple[set[int], dict[int, int]]:
    """The reached search states from which the tower as it stands offers a climb above `above`, and for each
    one step toward it (a backward search from the higher states along the recorded links)."""
    rising = {s for s in parent if h[s >> 2] > above}
    toward: dict[int, int] = {}
    frontier = deque(rising)
    while frontier:
        s = frontier.popleft()
        for q in preds.get(s, ()):
            if q not in rising:
                rising.add(q)
                toward[q] = s
                frontier.append(q)
    return rising, toward


def _start_build(doc: Any, players: int | None) -> Build:
    """The `start` option's build, checked (`setup.check_start_build`); errors name their place in the options."""
    try:
        return check_start_build(doc, players)
    except BadInput as exc:
        raise BadInput(exc.what, "$.options.start" + exc.where[1:]) from None


def _nearest_free(heights: np.ndarray, cell: tuple[int, int], taken: set[tuple[int, int]]) -> tuple[int, int]:
    """The table cell nearest to `cell` (breadth first) that no block covers and no figure takes."""
    queue, seen = deque([cell]), {cell}
    while queue:
        x, y = queue.popleft()
        if heights[x, y] == 0 and (x, y) not in taken:
            return x, y
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= n[0] < BOARD and 0 <= n[1] < BOARD and n not in seen:
                seen.add(n)
                queue.append(n)
    raise BadInput("no free table cell is left for a figure", "$.blocks")


__all__ = ["ClimbersState", "ClimbersMove", "BOARD", "Z_MAX", "PHASES", "NO_BLOCK"]

"""The Climbers for OpenSpiel and PettingZoo: its moves as integer action fields and what a player sees as a fixed-size
vector (see `tower.games.interop`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tower.games.base import GameState
from tower.games.interop.actions import Key, MoveCodec
from tower.games.interop.features import Row

#: OpenSpiel's MCTS on The Climbers: a playout move costs milliseconds (block moves are listed in full), so fewer,
#: shorter playouts keep a decision within the 2 s per decision the AI players promise on these machines.
OPENSPIEL_DEFAULTS = {"simulations": 20, "rollout_limit": 6}


def codec() -> MoveCodec:
    from itertools import permutations

    from tower.climbers.blocks import COLOURS, KINDS
    from tower.climbers.game import BOARD, ClimbersState

    ladders: tuple[tuple[str, ...], ...] = ((), ("short",), ("long",), ("short", "long"), ("long", "short"))
    ladder_index = {seq: i for i, seq in enumerate(ladders)}
    sizes = sorted({p for kind in KINDS for p in permutations(kind.dims)})
    size_index = {s: i for i, s in enumerate(sizes)}
    ncol = len(COLOURS)
    max_blocks = 64  # the game has 35 blocks; hand-made positions may add some
    max_pushes = ClimbersState.max_players  # a block covers at most every figure on the table
    cells = BOARD * BOARD
    fig0, stone0 = 2, 2 + cells * len(ladders)
    block0 = stone0 + max_blocks
    none = (0,) * max_pushes

    def key(state: GameState, m: Any) -> Key:
        kind = m.kind
        if kind == "skip":
            return (0, 0, 0, *none)
        if kind == "pass":
            return (1, 0, 0, *none)
        if kind == "fig":
            x, y, _ = m.cell
            return (fig0 + (x * BOARD + y) * len(ladders) + ladder_index[m.ladders], 0, 0, *none)
        b = state.index[m.block]  # type: ignore[attr-defined]
        if kind == "stone":
            return (stone0 + b, 0, 0, *none)
        x, y, _ = m.cell
        if len(m.pushes) > max_pushes:
            raise ValueError(f"more than {max_pushes} pushes")
        targets = [1 + to[0] * BOARD + to[1] for _, to in m.pushes]
        targets += [0] * (max_pushes - len(targets))
        return (block0 + b, size_index[m.size] * ncol + m.top, x * BOARD + y, *targets)

    def block_id(state: GameState | None, b: int) -> str:
        ids = getattr(state, "ids", None)
        return ids[b] if ids is not None and b < len(ids) else f"#{b}"

    def describe(state: GameState | None, field: int, v: int) -> str:
        if field == 0:
            if v < fig0:
                return ("skip", "pass")[v]
            if v < stone0:
                cell, lad = divmod(v - fig0, len(ladders))
                text = f"fig {cell // BOARD},{cell % BOARD}"
                return text + (" " + "+".join(ladders[lad]) if ladders[lad] else "")
            if v < block0:
                return f"stone {block_id(state, v - stone0)}"
            return f"block {block_id(state, v - block0)}"
        if field == 1:
            s, top = divmod(v, ncol)
            return f"{'x'.join(map(str, sizes[s]))} {COLOURS[top]} up"
        if field == 2:
            return f"at {v // BOARD},{v % BOARD}"
        return "no push" if v == 0 else f"push figure {field - 2} to {(v - 1) // BOARD},{(v - 1) % BOARD}"

    fields = (("head", block0 + max_blocks), ("shape", len(sizes) * ncol), ("cell", cells),
              *((f"push{j + 1}", cells + 1) for j in range(max_pushes)))
    return MoveCodec("climbers", fields, key, describe)


def observation(view: dict[str, Any], player: int, players: int) -> np.ndarray:
    from tower.climbers.blocks import COLOURS, TOP
    from tower.climbers.build import parse_build
    from tower.climbers.game import BOARD, PHASES, Z_MAX, ClimbersState

    build = parse_build(view["build"])
    height = np.zeros((BOARD, BOARD), np.float32)
    top = np.full((BOARD, BOARD), -1, np.int64)
    owner = {}
    for b in sorted(build.blocks, key=lambda b: b.origin[2] + b.size[2]):  # higher blocks paint over lower
        (x, y, z), (sx, sy, sz) = b.origin, b.size
        height[x:x + sx, y:y + sy] = z + sz
        top[x:x + sx, y:y + sy] = b.faces[TOP]
        owner[b.id] = (x, y, sx, sy)
    planes = [height / Z_MAX]
    planes += [(top == c).astype(np.float32) for c in range(len(COLOURS))]
    stones = np.zeros((BOARD, BOARD), np.float32)
    last = np.zeros((BOARD, BOARD), np.float32)
    for q in view["players"]:
        if q["stone"] in owner:
            x, y, sx, sy = owner[q["stone"]]
            stones[x:x + sx, y:y + sy] = 1.0
    if view["last_moved"] in owner:
        x, y, sx, sy = owner[view["last_moved"]]
        last[x:x + sx, y:y + sy] = 1.0
    planes += [stones, last]
    maxp = ClimbersState.max_players
    for k in range(maxp):  # figure planes, the observer's first
        plane = np.zeros((BOARD, BOARD), np.float32)
        q = (player + k) % players
        if k < players:
            x, y, _ = view["players"][q]["figure"]
            plane[x, y] = 1.0
        planes.append(plane)
    row = Row()
    row.parts.append(np.stack(planes).ravel())
    row.onehot(PHASES.index(view["phase"]), len(PHASES))
    current = view["current_player"]
    row.onehot(None if current is None else (current - player) % players, maxp)
    for k in range(maxp):
        if k < players:
            q = view["players"][(player + k) % players]
            row.values([q["height"] / Z_MAX, q["short_ladder"], q["long_ladder"], q["stone"] == "unused",
                        q["stone"] in owner])
        else:
            row.values([0.0] * 5)
    row.values([view["round"] / 200, view["last_chance"], view["over"]])
    return row.vector()

"""Fixed-size numeric observations, built from `state.view(player)` only (the one gate for private information).

Every value lies in [-1, 1]: one-hot codes, flags, and counts or scores divided by a stated scale (and clipped
where a game option could push them further). The length depends on the game and its player count only, so
an environment's observation space is fixed. Card and colour orders are the rules modules' own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


class _Row:
    """Collects the parts of one observation vector."""

    def __init__(self) -> None:
        self.parts: list[np.ndarray] = []

    def onehot(self, index: int | None, size: int) -> None:
        v = np.zeros(size, np.float32)
        if index is not None and 0 <= index < size:
            v[index] = 1.0
        self.parts.append(v)

    def values(self, xs: Iterable[float], scale: float = 1.0, size: int | None = None) -> None:
        v = np.asarray(list(xs), np.float32) / scale
        if size is not None:
            v = np.concatenate([v[:size], np.zeros(max(0, size - len(v)), np.float32)])
        self.parts.append(np.clip(v, -1.0, 1.0))

    def counts(self, items: Iterable[int], size: int, scale: float) -> None:
        self.values(np.bincount(np.asarray(list(items), np.int64), minlength=size)[:size], scale)

    def vector(self) -> np.ndarray:
        return np.concatenate(self.parts).astype(np.float32)


# --- The Climbers ---------------------------------------------------------------------------------------------
def _climbers(view: dict[str, Any], player: int, players: int) -> np.ndarray:
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
    row = _Row()
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


# --- In 7th Heaven --------------------------------------------------------------------------------------------
def _seventh_heaven(view: dict[str, Any], player: int, players: int) -> np.ndarray:
    from cardgames.seventh_heaven import COLOURS, KIND, KIND_NAME, MAY_SWAP, MUST_SWAP, SeventhHeavenState

    maxp, nk = SeventhHeavenState.max_players, len(KIND_NAME)
    rel = lambda q: None if q is None else (q - player) % players  # noqa: E731  seats as seen from the observer
    row = _Row()
    row.onehot(["play", "swap", "discard", "over"].index(view["phase"]), 4)
    row.onehot(rel(view["current_player"]), maxp)
    row.onehot(rel(view["turn"]), maxp)
    length = view["track_length"]
    for colour in COLOURS:
        pos = view["pawns"].get(colour)
        holder = view["partners"].get(colour)
        row.values([colour in view["pawns"], 0 if pos is None else pos / length, pos is not None and pos >= length])
        row.onehot(None if holder is None else rel(holder), maxp)
    row.counts((KIND[c] for c in view["hand"]), nk, 4)
    row.counts((KIND[c] for c in view["discard"]), nk, 8)
    sizes = view["hand_sizes"]
    row.values((sizes[(player + k) % players] if k < players else 0 for k in range(maxp)), 20)
    row.values([view["deck"] / 200, view["discard_left"] / 3, view["refilling"], length / 40])
    special = sorted(MUST_SWAP | MAY_SWAP)
    row.onehot(special.index(view["swap_space"]) if view["swap_space"] in special else None, len(special))
    queue = {rel(q) for q in view["discard_queue"]}
    row.values(k in queue for k in range(maxp))
    arrived = {c: i for i, group in enumerate(view["arrivals"]) for c in group}
    row.values(c in arrived for c in COLOURS)
    placed = {rel(q): i for i, group in enumerate(view["placed"]) for q in group}
    row.values((placed[k] + 1) / maxp if k in placed else 0 for k in range(maxp))
    return row.vector()


# --- Partners -------------------------------------------------------------------------------------------------
def _partners(view: dict[str, Any], player: int, players: int) -> np.ndarray:
    from cardgames.partners import CARD_NAMES, CARD_ORDER, FINISH, SECTION

    code = {name: i for i, name in enumerate(CARD_NAMES[c] for c in CARD_ORDER)}
    ncards = len(CARD_ORDER)
    places = 1 + SECTION * players + players + FINISH * players  # base, track, homes, finish zones
    row = _Row()
    row.onehot(["exchange", "play", "over"].index(view["phase"]), 3)
    row.onehot(player, players)
    row.onehot(view["current_player"], players)
    row.onehot(view["dealer"], players)
    for where in view["locations"]:
        row.onehot(where + 1, places)
    row.counts((code[c] for c in view["hand"]), ncards, 4)
    row.counts((code[c] for c in view["discard"]), ncards, 8)
    for key in ("giving", "gave", "received", "partner_holds"):
        row.onehot(None if view[key] is None else code[view[key]], ncards)
    row.values(view["hand_sizes"], 5)
    row.values(view["exchanged"])
    row.values([view["deals_left"] / 3, view["deck_size"] / 110, view["moves_played"] / 6000])
    return row.vector()


# --- Diabolo --------------------------------------------------------------------------------------------------
def _diabolo(view: dict[str, Any], player: int, players: int) -> np.ndarray:
    from cardgames.diabolo import (
        COLOUR_INDEX,
        COLOURS,
        MAX_CARDS,
        MAX_PER_SIDE,
        MAX_VALUE,
        NKINDS,
        DiaboloState,
        kind,
    )

    maxp = DiaboloState.max_players
    rel = lambda q: None if q is None else (q - player) % players  # noqa: E731

    def kinds(cards: list[str]) -> list[int]:
        out = []
        for text in cards:
            colour, value = text.split()
            out.append(kind(COLOUR_INDEX[colour], int(value)))
        return out

    def seats(values: list[Any], scale: float = 1.0) -> list[float]:
        return [values[(player + k) % players] / scale if k < players else 0.0 for k in range(maxp)]

    row = _Row()
    row.onehot(["play", "double", "over"].index(view["phase"]), 3)
    row.onehot(rel(view["current_player"]), maxp)
    row.onehot(rel(view["dealer"]), maxp)
    row.values([view["round"] / view["rounds"], view["deck_size"] / (MAX_CARDS * len(COLOURS))])
    for r in view["rows"]:
        row.values(r["devil"], MAX_VALUE, MAX_PER_SIDE)
        row.values(r["angel"], MAX_VALUE, MAX_PER_SIDE)
        row.values([r["closed"]])
    row.onehot(None if view["scoring_row"] is None else COLOUR_INDEX[view["scoring_row"]], len(COLOURS))
    decided = {rel(q) for q in view["decided"]}
    row.values(k in decided for k in range(maxp))
    row.values([view["my_commitment"] is True, view["my_commitment"] is False, view["my_doubler"]])
    row.values(seats(view["doublers"]))
    row.values(seats(view["scores"], 100))
    row.values(seats(view["hand_sizes"], 20))
    row.counts(kinds(view["hand"]), NKINDS, 4)
    row.counts(kinds(view["discards"]), NKINDS, 8)
    for k in range(maxp):
        row.counts(kinds(view["shown"][(player + k) % players]) if k < players else [], NKINDS, 4)
    for i in range(len(COLOURS)):  # the last round's scoring, row by row
        r = view["results"][i] if i < len(view["results"]) else None
        row.onehot(None if r is None else COLOUR_INDEX[r["colour"]], len(COLOURS))
        row.onehot(None if r is None else ["gain", "loss", "none"].index(r["outcome"]), 3)
        row.values(seats(r["points"], 30) if r is not None else [0.0] * maxp)
    return row.vector()


_FEATURES: dict[str, Callable[[dict[str, Any], int, int], np.ndarray]] = {
    "climbers": _climbers,
    "seventh-heaven": _seventh_heaven,
    "partners": _partners,
    "diabolo": _diabolo,
}


def observation(game: str, view: dict[str, Any], player: int, players: int) -> np.ndarray:
    """The numeric observation of `view` (what `player` sees in a `players`-player game of `game`)."""
    return _FEATURES[game](view, player, players)

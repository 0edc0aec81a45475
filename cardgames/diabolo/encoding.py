"""Diabolo for OpenSpiel and PettingZoo: its moves as integer action fields and what a player sees as a fixed-size
vector (see `tower.games.interop`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tower.games.base import GameState
from tower.games.interop.actions import Key, MoveCodec
from tower.games.interop.features import Row


def codec() -> MoveCodec:
    from cardgames.diabolo import COLOUR_INDEX, NKINDS, SIDES, card_text, kind

    discard0, double0 = 2 * NKINDS, 3 * NKINDS

    def key(state: GameState, m: Any) -> Key:
        if m.verb == "double":
            return (double0 + (m.side == "yes"),)
        k = kind(COLOUR_INDEX[m.colour], m.value)
        return (2 * k + SIDES.index(m.side),) if m.verb == "place" else (discard0 + k,)

    def describe(state: GameState | None, field: int, v: int) -> str:
        if v >= double0:
            return ("double no", "double yes")[v - double0]
        if v >= discard0:
            return f"discard {card_text(v - discard0)}"
        return f"place {card_text(v // 2)} {SIDES[v % 2]}"

    return MoveCodec("diabolo", (("move", double0 + 2),), key, describe)


def observation(view: dict[str, Any], player: int, players: int) -> np.ndarray:
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

    row = Row()
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

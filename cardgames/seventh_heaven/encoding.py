"""In 7th Heaven for OpenSpiel and PettingZoo: its moves as integer action fields and what a player sees as a fixed-size
vector (see `tower.games.interop`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tower.games.base import GameState
from tower.games.interop.actions import Key, MoveCodec
from tower.games.interop.features import Row


def codec() -> MoveCodec:
    from cardgames.seventh_heaven import COLOUR_INDEX, COLOURS, KIND, KIND_NAME, MUSHROOM_MAX

    nk = len(KIND_NAME)
    verb_base = {"play": 0, "trade": nk, "discard": 2 * nk}
    swap, keep = 3 * nk, 3 * nk + 1

    def key(state: GameState, m: Any) -> Key:
        if m.verb == "swap":
            head = swap
        elif m.verb == "keep":
            head = keep
        else:
            head = verb_base[m.verb] + KIND[m.card]
        colour = 1 + COLOUR_INDEX[m.colour] if m.colour else 0
        give = 1 + COLOUR_INDEX[m.give] if m.give else 0
        return (head, colour, m.n, give)

    def describe(state: GameState | None, field: int, v: int) -> str:
        if field == 0:
            if v >= swap:
                return ("swap", "keep")[v - swap]
            verb = ("play", "trade", "discard")[v // nk]
            return f"{verb} {KIND_NAME[v % nk]}"
        if field == 1:
            return "no colour" if v == 0 else COLOURS[v - 1]
        if field == 2:
            return str(v)
        return "give nothing" if v == 0 else f"give {COLOURS[v - 1]}"

    fields = (("card", keep + 1), ("colour", len(COLOURS) + 1), ("number", MUSHROOM_MAX + 1),
              ("give", len(COLOURS) + 1))
    return MoveCodec("seventh-heaven", fields, key, describe)


def observation(view: dict[str, Any], player: int, players: int) -> np.ndarray:
    from cardgames.seventh_heaven import COLOURS, KIND, KIND_NAME, SeventhHeavenState

    maxp, nk = SeventhHeavenState.max_players, len(KIND_NAME)
    rel = lambda q: None if q is None else (q - player) % players  # noqa: E731  seats as seen from the observer
    row = Row()
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
    swap = view["swap_space"]  # the special space asking for a swap: one the mover must or only may use
    row.onehot(0 if swap in view["specials"]["must_swap"] else 1 if swap in view["specials"]["may_swap"] else None, 2)
    queue = {rel(q) for q in view["discard_queue"]}
    row.values(k in queue for k in range(maxp))
    arrived = {c: i for i, group in enumerate(view["arrivals"]) for c in group}
    row.values(c in arrived for c in COLOURS)
    placed = {rel(q): i for i, group in enumerate(view["placed"]) for q in group}
    row.values((placed[k] + 1) / maxp if k in placed else 0 for k in range(maxp))
    return row.vector()

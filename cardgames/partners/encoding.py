"""Partners for OpenSpiel and PettingZoo: its moves as integer action fields and what a player sees as a fixed-size
vector (see `tower.games.interop`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tower.games.base import GameState
from tower.games.interop.actions import Key, MoveCodec
from tower.games.interop.features import Row


def codec() -> MoveCodec:
    from cardgames.partners import (
        ACTIONS,
        CARD_NAMES,
        CARD_ORDER,
        CARD_RANK,
        COLOURS,
        PAWNS_PER_PLAYER,
        pawn_name,
    )

    ncards = len(CARD_ORDER)
    max_parts = 7  # a 7 split into single steps; other cards name one or two pawns
    min_step, max_step = -4, 14
    slots = max_step - min_step + 2  # slot 0: a pawn without a step count (a switch)
    pawns = PAWNS_PER_PLAYER * len(COLOURS)

    def key(state: GameState, m: Any) -> Key:
        head = ACTIONS.index(m.action) * ncards + CARD_RANK.get(m.card, 0)
        if len(m.pawns) > max_parts:
            raise ValueError(f"more than {max_parts} parts")
        parts = []
        for j, pawn in enumerate(m.pawns):
            slot = m.steps[j] - min_step + 1 if j < len(m.steps) else 0
            if not 0 <= slot < slots:
                raise ValueError(f"step count {m.steps[j]}")
            parts.append(1 + pawn * slots + slot)
        return (head, *parts, *([0] * (max_parts - len(parts))))

    def describe(state: GameState | None, field: int, v: int) -> str:
        if field == 0:
            action, card = divmod(v, ncards)
            return ACTIONS[action] if ACTIONS[action] == "discard" else f"{ACTIONS[action]} {CARD_NAMES[CARD_ORDER[card]]}"
        if v == 0:
            return "no more pawns"
        pawn, slot = divmod(v - 1, slots)
        return pawn_name(pawn) + (f"{slot + min_step - 1:+d}" if slot else "")

    fields = (("card", len(ACTIONS) * ncards), *((f"part{j + 1}", 1 + pawns * slots) for j in range(max_parts)))
    return MoveCodec("partners", fields, key, describe)


def observation(view: dict[str, Any], player: int, players: int) -> np.ndarray:
    from cardgames.partners import CARD_NAMES, CARD_ORDER, FINISH, SECTION

    code = {name: i for i, name in enumerate(CARD_NAMES[c] for c in CARD_ORDER)}
    ncards = len(CARD_ORDER)
    places = 1 + SECTION * players + players + FINISH * players  # base, track, homes, finish zones
    row = Row()
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

"""The registry of games: name -> state class, imported lazily so `import tower` stays fast.

This table is the one place in the project that lists the games; everything else asks a game's class what it is
(`GameState` traits), never its name.
"""

from __future__ import annotations

import importlib
from typing import Any

from tower.games.base import GameState, Judge
from tower.games.errors import BadInput

#: game name -> "module:Class". Modules are imported on first use.
GAMES: dict[str, str] = {
    "climbers": "tower.climbers.game:ClimbersState",
    "seventh-heaven": "cardgames.seventh_heaven:SeventhHeavenState",
    "partners": "cardgames.partners:PartnersState",
    "diabolo": "cardgames.diabolo:DiaboloState",
}


def game_names() -> list[str]:
    return list(GAMES)


def game_class(name: str) -> type[GameState]:
    """The state class of game `name`; BadInput for an unknown name."""
    try:
        target = GAMES[name]
    except (KeyError, TypeError):
        raise BadInput(f"unknown game {name!r} (one of: {', '.join(GAMES)})", "$.game") from None
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise BadInput(f"game {name!r} is not available yet ({exc.name} missing)", "$.game") from None
    return getattr(module, attr)


def new_game(name: str, players: int | None = None, seed: int | None = 0, options: dict[str, Any] | None = None,
             *, judge: Judge | None = None) -> GameState:
    """A fresh game. `players` defaults to the game's usual count; `judge` is the physics judge a game may
    consult (The Climbers' `support=physical` option), handed in by the application."""
    cls = game_class(name)
    return cls.create(cls.default_players if players is None else players, seed, options, judge=judge)

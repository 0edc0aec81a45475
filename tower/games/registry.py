"""The registry of games: name -> state class, imported lazily so `import tower` stays fast."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from tower.games.base import GameState
from tower.games.errors import BadInput

#: game name -> "module:Class". Modules are imported on first use.
GAMES: dict[str, str] = {
    "climbers": "tower.climbers.game:ClimbersState",
    "seventh-heaven": "cardgames.seventh_heaven:SeventhHeavenState",
    "partners": "cardgames.partners:PartnersState",
    "diabolo": "cardgames.diabolo:DiaboloState",
}


#: Steps run on a game's class whenever the registry hands it out: how the layer that wires rules to other
#: parts (the CLI hands The Climbers its physics judge) configures a game without importing it up front.
_CONFIGURE: list[Callable[[type[GameState]], None]] = []


def on_load(configure: Callable[[type[GameState]], None]) -> None:
    """Run `configure(cls)` on every game class the registry returns from now on (once per function)."""
    if configure not in _CONFIGURE:
        _CONFIGURE.append(configure)


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
    cls = getattr(module, attr)
    for configure in _CONFIGURE:
        configure(cls)
    return cls


def new_game(
    name: str, players: int | None = None, seed: int | None = 0, options: dict[str, Any] | None = None
) -> GameState:
    """A fresh game. `players` defaults to the game's usual count."""
    cls = game_class(name)
    return cls(cls.default_players if players is None else players, seed, options)

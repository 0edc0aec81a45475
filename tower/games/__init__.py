"""The game kit (docs/api.md): the state and move contract, the registry, records, errors, AI players and adapters."""

from tower.games.base import GameState, Move
from tower.games.errors import BadInput, IllegalMove
from tower.games.records import RECORD_FORMAT, load_game, load_record, replay, save_record
from tower.games.registry import GAMES, game_class, game_names, new_game

__all__ = [
    "GAMES",
    "RECORD_FORMAT",
    "BadInput",
    "GameState",
    "IllegalMove",
    "Move",
    "game_class",
    "game_names",
    "load_game",
    "load_record",
    "new_game",
    "replay",
    "save_record",
]

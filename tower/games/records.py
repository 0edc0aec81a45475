"""Game records (`game-record/1`): the save file, the replay and the undo history at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tower.games.base import GameState, Judge
from tower.games.errors import BadInput, IllegalMove
from tower.games.fileio import atomic_write_text
from tower.games.reader import read_json
from tower.games.registry import game_class
from tower.schemas import validate

RECORD_FORMAT = "game-record/1"
#: The largest seed of a game (a record's `seed`): OpenSpiel's integer parameters are 32-bit, so every game of
#: the project can be had there too (the schema's `maximum`)
MAX_SEED = 2**31 - 1


def replay(record: dict[str, Any], upto: int | None = None, *, judge: Judge | None = None) -> GameState:
    """Validate `record` and replay its moves (the first `upto` of them) from a fresh game.

    Raises BadInput naming the JSON path of whatever is wrong, including an illegal move.
    """
    # the schema: keys, types (tower/schemas/game-record-1.schema.json); another of the project's files handed
    # over by mistake is named as what it is (tower.schemas.FORMAT_WORDS)
    validate(record, RECORD_FORMAT)
    cls = game_class(record["game"])
    agents = record.get("agents")
    if agents is not None and len(agents) != record["players"]:
        raise BadInput("agents must list one seat a player (\"human\", \"ai:greedy\", ...)", "$.agents")
    state = cls.create(record["players"], record.get("seed", 0), record.get("options") or {}, judge=judge)
    moves = record["moves"]
    for i, data in enumerate(moves[:upto] if upto is not None else moves):
        where = f"$.moves[{i}]"
        try:
            move = cls.move_type.from_json(data)
        except BadInput as exc:
            raise BadInput(exc.what, where + (exc.where[1:] if exc.where != "$" else "")) from None
        try:
            state.apply(move)
        except IllegalMove as exc:
            raise BadInput(f"illegal move {move}: {exc}", where) from None
    return state


def load_record(source: str | Path | dict[str, Any], upto: int | None = None, *,
                judge: Judge | None = None) -> GameState:
    """Load a record (a path or an already parsed dict) and replay it; errors name the file."""
    if isinstance(source, dict):
        return replay(source, upto, judge=judge)
    return _replay_file(source, read_json(source), upto, judge)


def load_game(source: str | Path | dict[str, Any], *,
              judge: Judge | None = None) -> tuple[GameState, list[str] | None]:
    """A saved game as every front end resumes it (terminal, window): the state its record replays to and the
    seats saved with it (`agents`: "human", "ai:greedy", ...), or None when the record names none."""
    doc = source if isinstance(source, dict) else read_json(source)
    state = replay(doc, judge=judge) if isinstance(source, dict) else _replay_file(source, doc, None, judge)
    agents = doc.get("agents")
    return state, (list(agents) if agents is not None else None)


def _replay_file(source: str | Path, doc: Any, upto: int | None, judge: Judge | None) -> GameState:
    """`replay` of a document read from `source`; errors name the file."""
    try:
        return replay(doc, upto, judge=judge)
    except BadInput as exc:
        raise exc.in_source(str(source)) from None


def save_record(state: GameState, path: str | Path, agents: list[str] | None = None) -> None:
    """Write the game's record atomically (temp file + rename)."""
    record = state.record()
    if agents:
        record["agents"] = list(agents)
    atomic_write_text(path, json.dumps(record, indent=1) + "\n")

"""Creating games: reading a `POST /api/games` body, and the catalogue the lobby page builds its form from."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from tower.app.serve.errors import Refused
from tower.app.serve.limits import DEFAULT, Limits, clip
from tower.app.serve.workers import AGENT_CHOICES, LEVEL_CHOICES, check_ai_spec
from tower.games.errors import BadInput
from tower.games.records import MAX_SEED as RECORD_SEED
from tower.games.registry import game_class, game_names

NEW_GAME_KEYS = ("game", "players", "seats", "seed", "options")
MAX_SEED = RECORD_SEED  # a game record's range (OpenSpiel's 32-bit parameters)


@dataclass(frozen=True)
class NewGame:
    game: str
    players: int
    seats: list[str]
    seed: int
    options: dict[str, Any]


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_new_game(body: Any, limits: Limits = DEFAULT) -> NewGame:
    """The body of `POST /api/games`: `{"game", "players", "seats", "seed", "options"}`, only `game` required.

    `seats` lists `human` or an AI spec per seat (default: all human); `players` defaults to the number of seats
    or the game's usual count; without `seed` the server draws one from the system's secure generator (a seed
    someone chose is known to them, and with it every hand). BadInput names the JSON path of what is wrong.

    Every size is checked before anything is built (`limits`): the number of players before the list of seats,
    each seat against the AI grammar, each option's value and size before the game reads it."""
    if not isinstance(body, dict):
        raise BadInput("the body must be a JSON object", "$")
    for key, value in body.items():
        if key not in NEW_GAME_KEYS:
            raise BadInput(f"unknown key {clip(key, 40)} (known: {', '.join(NEW_GAME_KEYS)})", f"$.{key[:40]}")
        if value is None:  # leave a key out for its default; null is no value of any of them
            raise BadInput(f"{key} must not be null (leave it out for its default)", f"$.{key}")
    if "game" not in body:
        raise BadInput("missing key 'game'", "$")
    if not isinstance(body["game"], str) or body["game"] not in game_names():
        raise BadInput(f"unknown game {clip(body['game'], 40)} (one of: {', '.join(game_names())})", "$.game")
    cls = game_class(body["game"])
    seats = body.get("seats")
    players = body.get("players")
    if players is not None and not _whole(players):
        raise BadInput(f"players must be a whole number, got {clip(players, 40)}", "$.players")
    if players is not None and not (0 < players <= min(limits.players, cls.max_players)):
        raise BadInput(f"{cls.name} is for {cls.players_text()} players, got {players}", "$.players")
    if seats is None:
        seats = ["human"] * (players if players is not None else cls.default_players)
    if not isinstance(seats, list) or not seats:
        raise BadInput("seats must be a non-empty list like [\"human\", \"ai:greedy\"]", "$.seats")
    if len(seats) > min(limits.players, cls.max_players):
        raise BadInput(f"{cls.name} is for {cls.players_text()} players, got {len(seats)} seats", "$.seats")
    for i, seat in enumerate(seats):
        if seat != "human":
            try:
                check_ai_spec(seat)
            except BadInput as exc:
                raise BadInput(exc.what, f"$.seats[{i}]") from None
    if players is None:
        players = len(seats)
    if players != len(seats):
        raise BadInput(f"players is {players} but {len(seats)} seats are given", "$.players")
    if players not in cls.allowed_players():
        raise BadInput(f"{cls.name} is for {cls.players_text()} players, got {players}", "$.players")
    seed = body.get("seed")
    if seed is None:
        seed = secrets.randbelow(MAX_SEED)
    elif not _whole(seed) or not 0 <= seed <= MAX_SEED:
        raise BadInput(f"seed must be a whole number from 0 to {MAX_SEED}, got {clip(seed, 40)}", "$.seed")
    options = body.get("options", {})
    check_option_sizes(options, cls.default_options, limits, cls.option_choices)
    try:
        cls.resolve_options(options)
    except BadInput as exc:  # a value of the option's type that the game does not take (its text, a start build)
        raise Refused(409, "option", f"at {exc.where}: {exc.what}") from None
    return NewGame(cls.name, players, list(seats), seed, dict(options))


_NUMBER_IN_TEXT = re.compile(r"\d+")


def check_option_sizes(options: Any, known: dict[str, Any], limits: Limits = DEFAULT,
                       choices: dict[str, Any] | None = None) -> None:
    """Bound the size of every option before the game reads it (the game checks the meaning): names the game
    knows, each of its default's type (a build or null for a build option) and one of its `choices` if given,
    numbers up to `option_number`, texts up to `option_text` characters with no number in them above
    `option_text_number`, builds of at most `blocks_per_build` blocks: what the OpenAPI document says of them."""
    if not isinstance(options, dict):
        raise BadInput("options must be an object", "$.options")
    for key, value in options.items():
        where = f"$.options.{str(key)[:40]}"
        if key not in known:
            raise BadInput(f"unknown option {clip(key, 40)} (known: {', '.join(sorted(known)) or 'none'})", where)
        if choices is not None:
            default = known[key]
            typed = value is None or isinstance(value, dict) if default is None else \
                isinstance(value, bool) == isinstance(default, bool) and isinstance(value, type(default))
            if not typed:
                kind = "a build or null" if default is None else type(default).__name__
                raise BadInput(f"option {key!r} must be {kind}, got {clip(value, 40)}", where)
            if key in choices and value not in choices[key]:
                raise BadInput(f"option {key!r} must be one of {list(choices[key])}, got {clip(value, 40)}", where)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            if abs(value) > limits.option_number:
                raise BadInput(f"option {key!r} must be at most {limits.option_number} on this server, got {value}",
                               where)
        elif isinstance(value, str):
            if len(value) > limits.option_text:
                raise BadInput(f"option {key!r} must be at most {limits.option_text} characters on this server, "
                               f"got {len(value)}", where)
            big = [d for d in _NUMBER_IN_TEXT.findall(value) if len(d) > 6 or int(d) > limits.option_text_number]
            if big:
                message = f"option {key!r}: numbers in it must be at most {limits.option_text_number} on this " \
                          f"server, got {clip(int(big[0]), 20)}"
                if not all(d.isascii() for d in big):  # other scripts' digits: beyond the document's pattern
                    raise Refused(409, "option", f"at {where}: {message}")
                raise BadInput(message, where)
        elif isinstance(value, dict):  # a build (The Climbers' `start`)
            blocks = value.get("blocks")
            if isinstance(blocks, list) and len(blocks) > limits.blocks_per_build:
                raise BadInput(f"option {key!r}: a build of at most {limits.blocks_per_build} blocks on this server, "
                               f"got {len(blocks)}", f"{where}.blocks")
        elif not isinstance(value, float):
            raise BadInput(f"option {key!r} must be a number, a text or a build, got {type(value).__name__}", where)


def catalogue() -> dict[str, Any]:
    """What the lobby offers: each game with its player counts, rule options and the player behind each AI level,
    and the AI players (`levels`: the levels by name and what they do; `ai`: every choice, levels first)."""
    from tower.games.ai import LEVEL_WORDS

    games = []
    for name in game_names():
        cls = game_class(name)
        games.append({
            "name": name,
            "title": cls.title or name,
            "credit": cls.credit,
            "players": list(cls.allowed_players()),
            "default_players": cls.default_players,
            "options": dict(cls.default_options),
            "choices": {k: list(v) for k, v in cls.option_choices.items()},
            # how the form names and explains each option; the build option is a choice of where the build comes from
            "help": {k: dict(zip(("label", "text"), cls.option_words(k), strict=True)) for k in cls.default_options},
            "build_option": cls.build_option,
            "how_to_play": cls.how_to_play,
            "perfect_information": cls.perfect_information,
            "levels": {level: cls.ai_levels[level] for level in LEVEL_WORDS},
        })
    levels = [{"spec": spec, "label": spec.removeprefix("ai:").capitalize(),
               "text": LEVEL_WORDS[spec.removeprefix("ai:")]} for spec in LEVEL_CHOICES]
    return {"games": games, "ai": list(AGENT_CHOICES), "levels": levels}

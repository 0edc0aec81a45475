"""Reading `--players` and `--option`: who sits in each seat, and the game's rule options."""

from __future__ import annotations

from typing import Any

from tower.games.errors import BadInput
from tower.games.reader import parse_text


def parse_players(spec: str | None, game: str) -> list[str]:
    """`human,ai:greedy,...` -> one entry per seat; the count of entries is the number of players."""
    from tower.games import game_class
    from tower.games.ai import make_agent

    cls = game_class(game)
    if spec is None:
        return ["human"] + ["ai:greedy"] * (cls.default_players - 1)
    seats = [s.strip() for s in spec.split(",")]
    # Each seat first: a typo like `--players foo` should be named, not counted as "1 player".
    for s in seats:
        if s != "human":
            try:
                make_agent(s, game=cls)
            except BadInput as exc:
                raise BadInput(f"--players: {exc.what}", "") from None
    if len(seats) not in cls.allowed_players():
        raise BadInput(f"--players: {game} is for {cls.players_text()} players, got {len(seats)} ({spec!r})", "")
    return [seat_name(s) for s in seats]


def seat_name(spec: str) -> str:
    """One spelling per seat: `human`, or the AI with the `ai:` prefix (`greedy` and `ai:greedy` are one player,
    so a batch counts them as one)."""
    text = spec.strip()
    return text if text == "human" else "ai:" + text.removeprefix("ai:")


def players_help(example: str, human: bool = True) -> str:
    """The `--players` help of `tower play` and `tower simulate`: every seat there is, and one example."""
    from tower.games.ai import AGENT_KINDS, LEVELS

    return (f"one seat each, comma-separated: {'human, ' if human else ''}an AI level ({', '.join(LEVELS)}) or an "
            f"AI's code name ({', '.join(AGENT_KINDS)}; settings after a colon, e.g. mcts:time=0.5), "
            f"with or without the prefix ai:; e.g. {example} (docs/ai.md)")


def check_seats(seats: list[str], source: str) -> list[str]:
    """The seats saved in a record (`agents`), each an AI the program knows or "human"; BadInput names the file."""
    from tower.games.ai import make_agent

    for i, s in enumerate(seats):
        if s != "human":
            try:
                make_agent(s)
            except BadInput as exc:
                raise BadInput(exc.what, f"$.agents[{i}]", source) from None
    return list(seats)


def parse_options(items: list[str], game: str) -> dict[str, Any]:
    """`--option NAME=VALUE` flags -> the game's options. VALUE is read as JSON where it parses (numbers,
    true/false), else as a plain string; the game checks names, types and choices."""
    from tower.games import game_class

    options: dict[str, Any] = {}
    for item in items:
        name, eq, text = item.partition("=")
        if not eq or not name:
            raise BadInput(f"--option: expected NAME=VALUE, got {item!r}", "")
        try:
            options[name] = parse_text(text)
        except BadInput:
            options[name] = text
    try:
        game_class(game).resolve_options(options)
    except BadInput as exc:
        raise BadInput(f"--option: {exc.what}", "") from None
    return options


def game_options(items: list[str], build: str | None, game: str, players: int) -> dict[str, Any]:
    """The rule options of a new game from `--option` flags and `--build FILE` (the build rides in the options,
    so records and batch results headers carry it)."""
    options = parse_options(items, game)
    return build_options(build, game, players, options) if build else options


def build_options(path: str, game: str, players: int, options: dict[str, Any]) -> dict[str, Any]:
    """`--build FILE`: `options` plus the game's start-build option (`GameState.build_option`) holding the
    file's tower-build/1 document, checked at once by starting a game from it; errors name the file and the
    JSON path inside it."""
    from tower.games import game_class
    from tower.games.reader import read_json

    cls = game_class(game)
    name = cls.build_option
    if name is None:
        raise BadInput(f"--build: {game} does not start from a build", "")
    out = {**options, name: read_json(path)}
    try:
        cls.create(players, 0, out)
    except BadInput as exc:
        prefix = f"$.options.{name}"
        if not exc.where.startswith(prefix):
            raise
        raise BadInput(exc.what, "$" + exc.where[len(prefix):], path) from None
    return out

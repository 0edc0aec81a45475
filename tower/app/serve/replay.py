"""A finished game, move by move, as the scenes the browser's replay page steps through: one page of positions at
a time (`replay_page`), never the whole game in one answer.

A page is computed in the replay worker process (`GameServer.replayer`): the record is checked once, and the
positions every `CHECKPOINT` moves are kept (a few records at a time, `_Replays`), so stepping through a long game
costs a few dozen moves and one page of scenes per answer, not a replay of the whole game.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any

from tower.app.serve.errors import Refused
from tower.app.serve.limits import DEFAULT, Limits, clip
from tower.games.errors import BadInput

MAX_REPLAY_MOVES = DEFAULT.record_moves  # a record longer than any real game is refused, not replayed for minutes
CHECKPOINT = 100  # positions kept every this many moves of a replayed record
RECORDS_KEPT = 6  # checked records (with their checkpoints) kept in the worker


def record_key(record: Any) -> str:
    """A key naming a record sent for replay (its content's hash)."""
    return "sha256:" + hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def check_record(record: Any, limits: Limits = DEFAULT) -> None:
    """A record's format (its schema) and sizes, before any of it is replayed: moves, players, options (BadInput
    names them: the OpenAPI document's `RecordUpload` says all of it)."""
    from tower.app.serve.lobby import check_option_sizes
    from tower.games.registry import game_class, game_names
    from tower.schemas import validate

    if not isinstance(record, dict):
        raise BadInput("a game record must be a JSON object", "$")
    validate(record, "game-record")
    moves = record.get("moves")
    if isinstance(moves, list) and len(moves) > limits.record_moves:
        raise BadInput(f"a record of more than {limits.record_moves} moves is not replayed here", "$.moves")
    game = record.get("game")
    if not isinstance(game, str) or game not in game_names():
        raise BadInput(f"unknown game {clip(game, 40)} (one of: {', '.join(game_names())})", "$.game")
    cls = game_class(game)
    players = record.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or not 0 < players <= min(limits.players,
                                                                                          cls.max_players):
        raise BadInput(f"{cls.name} is for {cls.players_text()} players, got {clip(players, 40)}", "$.players")
    check_option_sizes(record.get("options") or {}, cls.default_options, limits, cls.option_choices)


class _Replays:
    """Checked records of this process, each with its positions every CHECKPOINT moves (least recently used
    first out)."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, tuple[Any, dict[int, Any], list[int], list[str]]] = OrderedDict()

    def get(self, key: str, record: Any, judge: Any) -> tuple[Any, dict[int, Any], list[int], list[str]]:
        from tower.games.records import replay

        entry = self.entries.get(key)
        if entry is None:
            try:
                final = replay(record, judge=judge)  # every move checked; the path of a bad one is named
            except BadInput as exc:  # the record is well formed (check_record): its moves or options are refused
                raise Refused(409, "does-not-replay", f"at {exc.where}: {exc.what}"[:280]) from None
            entry = (final, {0: final.restart()}, *_movers(final))
            self.entries[key] = entry
            while len(self.entries) > RECORDS_KEPT:
                self.entries.popitem(last=False)
        self.entries.move_to_end(key)
        return entry


_REPLAYS = _Replays()


def replay_page(key: str, record: Any, seat: int | None, start: int, count: int, judge: Any = None,
                limits: Limits = DEFAULT) -> dict[str, Any]:
    """Positions `start` .. `start + count - 1` of the record (position 0 is the start, position k follows the
    k-th move), each as the scene `seat` sees (None: a spectator), with the move that led there and who made it.
    The page from position 0 also lists every move (`moves`) for the page's log. BadInput names what is wrong."""
    from viewer.games import scene_for_view
    from viewer.scene_json import scene_to_json

    check_record(record, limits)
    final, checkpoints, movers, said = _REPLAYS.get(key, record, judge)
    if seat is not None and not 0 <= seat < final.num_players:
        raise Refused(404, "no-seat", f"no seat {seat}: the seats are 0 to {final.num_players - 1} (or 'public')")
    total = len(final.history) + 1
    if not 0 <= start < total:
        raise Refused(404, "no-position", f"no position {start}: the positions are 0 to {total - 1}")
    count = max(1, min(count, limits.replay_page, total - start))
    base = max(k for k in checkpoints if k <= start)
    state = checkpoints[base].clone()
    title = final.title or final.name
    for k in range(base, start):
        state.apply(final.history[k])
        if (k + 1) % CHECKPOINT == 0 and k + 1 not in checkpoints:
            checkpoints[k + 1] = state.clone()

    def frame(k: int, player: int | None) -> dict[str, Any]:
        view = state.public_view() if seat is None else state.view(seat)
        scene = scene_for_view(state.layout, view, title=title)
        move = final.history[k - 1] if k else None
        return {"k": k, "scene": scene_to_json(scene), "move": None if move is None else str(move), "player": player,
                "label": None if player is None else state.player_label(player), "words": said[k - 1] if k else None}

    frames = [frame(start, movers[start - 1] if start else None)]
    for k in range(start + 1, start + count):
        player = state.current_player
        state.apply(final.history[k - 1])
        if k % CHECKPOINT == 0 and k not in checkpoints:
            checkpoints[k] = state.clone()
        frames.append(frame(k, player))
    out = {"game": final.name, "title": title, "players": [final.player_label(p) for p in range(final.num_players)],
           "seat": seat, "outcome": final.outcome_text() if final.is_over else None, "total": total, "from": start,
           "page": limits.replay_page, "construction": final.construction, "frames": frames}
    if start == 0:
        out["moves"] = [{"move": str(m), "player": p, "label": final.player_label(p), "words": w}
                        for m, p, w in zip(final.history, movers, said, strict=True)]
    return out


def replay_page_gzip(*args: Any) -> bytes:
    """`replay_page` as the gzipped JSON of the answer, built in the worker: the server only passes it on (the
    scenes of a page repeat each other, so gzip shrinks them tenfold or more)."""
    import gzip

    return gzip.compress(json.dumps(replay_page(*args)).encode(), compresslevel=5)


def _movers(final: Any) -> tuple[list[int], list[str]]:
    """Who made each move of a replayed game, and the move in words (`move_words`, said in the position it was
    made in, as the game page's log says it: a finished game's record is public)."""
    state, out, said = final.restart(), [], []
    for move in final.history:
        out.append(state.current_player)
        said.append(state.move_words(move))
        state.apply(move)
    return out, said


def replay_frames(record: Any, seat: int | None, judge: Any = None) -> dict[str, Any]:
    """Every position of a (short) record at once, as `replay_page` gives them: for scripts and tests."""
    first = replay_page(record_key(record), record, seat, 0, DEFAULT.replay_page, judge)
    frames = list(first["frames"])
    while len(frames) < first["total"]:
        frames += replay_page(record_key(record), record, seat, len(frames), DEFAULT.replay_page, judge)["frames"]
    return {**first, "frames": frames}

"""A finished game, move by move, as the scenes the browser's replay page steps through."""

from __future__ import annotations

from typing import Any

from tower.games.errors import BadInput

MAX_REPLAY_MOVES = 5000  # a record longer than any real game is refused, not replayed for minutes


def replay_frames(record: Any, seat: int | None, judge: Any = None) -> dict[str, Any]:
    """The scene after every prefix of the record's moves, seen by `seat` (None: as a spectator sees it), with
    each move's text and who made it. BadInput names what is wrong with the record."""
    from tower.games.records import replay
    from viewer.games import scene_for_view
    from viewer.scene_json import scene_to_json

    if isinstance(record, dict) and isinstance(record.get("moves"), list) and \
            len(record["moves"]) > MAX_REPLAY_MOVES:
        raise BadInput(f"a record of more than {MAX_REPLAY_MOVES} moves is not replayed here", "$.moves")
    final = replay(record, judge=judge)  # every move checked; the path of a bad one is named
    if seat is not None and not 0 <= seat < final.num_players:
        raise BadInput(f"seat must be 0 to {final.num_players - 1} or 'public', got {seat}", "$.seat")
    state = final.restart()
    title = final.title or final.name

    def frame(move: Any, player: int | None) -> dict[str, Any]:
        view = state.public_view() if seat is None else state.view(seat)
        scene = scene_for_view(state.layout, view, title=title)
        return {"scene": scene_to_json(scene), "move": None if move is None else str(move), "player": player,
                "label": None if player is None else state.player_label(player)}

    frames = [frame(None, None)]
    for move in final.history:
        player = state.current_player
        state.apply(move)
        frames.append(frame(move, player))
    return {"game": final.name, "title": title, "players": [final.player_label(p) for p in range(final.num_players)],
            "seat": seat, "outcome": final.outcome_text() if final.is_over else None, "frames": frames}

"""The browser draws exactly the scene the desktop viewer draws: `viewer.scene_json` changes the pure scene's form
only (a JSON round trip gives the same `Scene` back), and the server's page snapshot of a seat carries the scene
`viewer.games.scene_for_view` builds from that seat's view (a spectator's: from the public view)."""

from __future__ import annotations

import json
import random

import pytest

from tower.games import game_names, new_game
from viewer.games import scene_for_view
from viewer.scene import ALL_RGB
from viewer.scene_json import SCENE_FORMAT, scene_from_json, scene_to_json


def positions(game: str, seed: int = 3, every: int = 9, count: int = 4):
    state = new_game(game, None, seed)
    rng = random.Random(seed)
    out = [state.clone()]
    while not state.is_over and len(out) < count:
        for _ in range(every):
            if state.is_over:
                break
            state.apply(state.random_move(rng))
        out.append(state.clone())
    return out


@pytest.mark.parametrize("game", game_names())
def test_a_scene_comes_back_from_its_json_unchanged(game):
    for state in positions(game):
        readers = [None, *range(state.num_players)]
        for reader in readers:
            view = state.public_view() if reader is None else state.view(reader)
            scene = scene_for_view(state.layout, view, title=state.title)
            doc = json.loads(json.dumps(scene_to_json(scene)))
            assert doc["format"] == SCENE_FORMAT
            assert scene_from_json(doc) == scene
            used = {c for b in scene.blocks for c in b.faces} | {f.colour for f in scene.figures}
            assert used <= set(doc["palette"]) and all(doc["palette"][c] == list(ALL_RGB[c]) for c in used)


@pytest.mark.parametrize("game", game_names())
def test_the_page_of_a_seat_shows_the_scene_of_that_seats_view(game):
    from tower.app.serve.store import GameRow
    from tower.app.serve.table import Table

    state = positions(game, count=2)[-1]
    row = GameRow("g", game, state.num_players, 3, {}, ["human"] * state.num_players, 0.0, False)
    table = Table(row, state, [0] * len(state.history), {})
    for seat in [None, *range(state.num_players)]:
        snap = json.loads(json.dumps(table.snapshot(seat)))
        view = state.public_view() if seat is None else state.view(seat)
        overlays = {}
        if state.construction and seat == state.current_player:  # the mover also sees what may move
            legal = state.legal_moves()
            overlays = {"movable": sorted({m.block for m in legal if m.kind == "block"}),
                        "targets": list(dict.fromkeys(tuple(m.cell) for m in legal if m.kind == "fig"))}
        expected = scene_for_view(state.layout, view, title=state.title or state.name, **overlays)
        assert scene_from_json(snap["scene"]) == expected
        hands = [b for b in expected.blocks if b.id.startswith("hand-")]
        assert (seat is None) <= (not hands)  # a spectator's table shows no hand

"""Bad input never crashes the server (hypothesis): malformed and hostile JSON, huge and deeply nested bodies,
wrong types, unknown games, seats and options, odd paths and tokens. Every answer is a clean JSON error with its
status (400, 403, 404, 405, 409, 413) or a success; a refused move changes nothing; the server keeps serving.

TOWER_FUZZ_EXAMPLES sets the examples per property, as for the other fuzz tests.
"""

from __future__ import annotations

import json
import os
from urllib.parse import quote

import pytest
from hostile import DataSource, game_samples, hostile_bytes, move_text, mutate, value  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from serve_support import ROOMY  # noqa: E402

from tower.app.serve.client import Client  # noqa: E402
from tower.app.serve.http import MAX_BODY  # noqa: E402
from tower.app.serve.run import ServerThread  # noqa: E402
from tower.games import game_names  # noqa: E402

FUZZ = settings(
    max_examples=int(os.environ.get("TOWER_FUZZ_EXAMPLES", "150")),
    deadline=10_000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    database=None,
)
GAMES = game_names()
SAMPLES = {g: game_samples(g, steps=30) for g in GAMES}
NEW_GAME = {"game": "diabolo", "players": 3, "seats": ["human", "ai:random", "human"], "seed": 4,
            "options": {"hand_size": 6}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("fuzz") / "games.sqlite"), ai_pause=0, workers=1, limits=ROOMY) as srv:
        yield srv


@pytest.fixture(scope="module")
def api(server):
    return Client(server.url)


@pytest.fixture(scope="module")
def tables(api):
    """One game of each kind with every seat human: game -> (id, tokens by seat, spectator token)."""
    out = {}
    for game in GAMES:
        g = api.create(game, seed=3)
        out[game] = (g["id"], {s["seat"]: s["token"] for s in g["seats"]}, g["spectator_url"].split("token=")[1])
    return out


def clean(status: int, data: bytes, allowed: set[int]) -> dict:
    """The answer is one of the allowed statuses; an error is a JSON object with a one-line message."""
    assert status in allowed, (status, data[:300])
    doc = json.loads(data)
    if status >= 400:
        assert isinstance(doc["error"], str) and "\n" not in doc["error"] and doc["error"]
    return doc


def alive(api: Client) -> None:
    assert api.request("GET", "/api/catalogue")[0] == 200


@FUZZ
@given(st.data())
def test_any_new_game_request_is_answered_cleanly(api, data):
    src = DataSource(data)
    kind = src.number(0, 2)
    if kind == 0:
        body = hostile_bytes(src, NEW_GAME)
    elif kind == 1:
        body = json.dumps(mutate(src, NEW_GAME)).encode()
    else:
        body = json.dumps(value(src)).encode("utf-8", "surrogatepass")
    status, answer = api.raw("POST", "/api/games", body)
    doc = clean(status, answer, {201, 400, 409, 413})  # 409: an option's value the game refuses
    if status == 201:
        assert set(doc) == {"id", "seats", "spectator_url"}


@FUZZ
@given(st.data(), st.sampled_from(GAMES))
def test_any_move_request_is_answered_cleanly_and_a_refusal_changes_nothing(api, tables, data, game):
    src = DataSource(data)
    game_id, tokens, _ = tables[game]
    if api.state(game_id, tokens[0])["over"]:
        return
    mover = api.state(game_id, tokens[0])["to_move"]
    token = tokens[mover] if src.number(0, 3) else tokens[(mover + 1) % len(tokens)]
    before = api.state(game_id, token)
    kind = src.number(0, 3)
    if kind == 0:
        body = json.dumps({"move": move_text(src, SAMPLES[game].vocab)}).encode("utf-8", "surrogatepass")
    elif kind == 1:
        body = json.dumps(mutate(src, {"move": src.pick(SAMPLES[game].vocab.texts), "n": before["n"]})).encode(
            "utf-8", "surrogatepass")
    elif kind == 2:
        body = hostile_bytes(src, {"move": src.pick(SAMPLES[game].vocab.texts)})
    else:
        body = json.dumps({"move": value(src)}, allow_nan=True).encode("utf-8", "surrogatepass")
    status, answer = api.raw("POST", f"/api/games/{game_id}/moves?token={token}", body)
    clean(status, answer, {200, 400, 409, 413})
    if status != 200:
        assert api.state(game_id, token) == before


@FUZZ
@given(st.data())
def test_any_path_token_or_query_is_answered_cleanly(api, tables, data):
    src = DataSource(data)
    game_id, tokens, watch = tables[src.pick(GAMES)]
    text = st.text(min_size=0, max_size=300)
    gid = src.pick([game_id, data.draw(text), "", "..", "%00", "a" * 5000])
    token = src.pick([tokens[0], watch, data.draw(text), "", tokens[0] + "x", tokens[0].upper()])
    route = src.pick(["", "/moves", "/undo", "/hint", "/snapshot", "/ghosts", "/record", "/replay", "/ws",
                      "/" + quote(data.draw(text), safe="", errors="surrogatepass")])
    method = src.pick(["GET", "POST", "PUT", "DELETE"])
    extra = src.pick(["", "&block=" + quote(data.draw(text), safe="", errors="surrogatepass"),
                      "&seat=" + quote(data.draw(text), safe="", errors="surrogatepass"), "&token=second"])
    gid, token = (quote(x, safe="", errors="surrogatepass") for x in (gid, token))
    path = f"/api/games/{gid}{route}?token={token}{extra}"
    body = json.dumps(value(src)).encode("utf-8", "surrogatepass") if method != "GET" else None
    status, answer = api.raw(method, path, body)
    clean(status, answer, {200, 400, 403, 404, 405, 409, 413})


@FUZZ
@given(st.data(), st.sampled_from(GAMES))
def test_any_record_sent_for_replay_is_answered_cleanly(api, data, game):
    src = DataSource(data)
    record = SAMPLES[game].record
    body = hostile_bytes(src, record) if src.number(0, 1) else json.dumps(mutate(src, record)).encode()
    seat = src.pick(["public", "0", "1", "7", "-1", "x", ""])
    status, answer = api.raw("POST", f"/api/replay?seat={seat}", body)
    doc = clean(status, answer, {200, 400, 404, 409, 413})  # 404 no such seat, 409 moves that do not replay
    if status == 200:
        total = len(json.loads(body)["moves"]) + 1  # the start and one position a move
        assert doc["total"] == total and len(doc["frames"]) == min(total, ROOMY.replay_page)  # one page


def test_a_body_over_the_limit_is_refused_with_413_and_the_server_goes_on(api, tables):
    game_id, tokens, _ = tables["diabolo"]
    big = b'{"move": "' + b"x" * (MAX_BODY + 10) + b'"}'
    for path in ("/api/games", f"/api/games/{game_id}/moves?token={tokens[0]}", "/api/replay"):
        status, answer = api.raw("POST", path, big)
        clean(status, answer, {413})
        api.close()  # the server may close a connection whose body it did not read
    alive(api)


def test_unknown_games_options_and_seats_are_named(api):
    cases = [({"game": "chess"}, "$.game"), ({"game": "diabolo", "options": {"colour": "red"}}, "$.options.colour"),
             ({"game": "diabolo", "options": {"hand_size": "6"}}, "$.options.hand_size"),
             ({"game": "diabolo", "seats": ["human", "ai:oracle", "human"]}, "$.seats[1]"),
             ({"game": "diabolo", "seats": ["human", "ai:mcts:time=3600", "human"]}, "$.seats[1]"),
             ({"game": "diabolo", "players": 2}, "$.players"), ({"game": "diabolo", "seed": -1}, "$.seed"),
             ({"game": "diabolo", "seed": 1.5}, "$.seed"), ({"game": "diabolo", "extra": 1}, "$.extra"),
             ({"game": "diabolo", "players": 4, "seats": ["human"] * 3}, "$.players")]
    for body, where in cases:
        status, doc = api.request("POST", "/api/games", body)
        assert status == 400 and doc["where"] == where, (body, doc)
    alive(api)

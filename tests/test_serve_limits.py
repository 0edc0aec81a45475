"""`tower serve` on an open network: one anonymous request must not freeze it, fill its memory or disk, or hang a
game (docs/serve.md, "Limits"). Each test repeats one of the attacks that once worked, on 127.0.0.1, small enough to
be quick but large enough to show the bound: before the limits each failed, now each is refused or bounded.

Every test speaks from an address of its own (127.0.0.N): the server counts each address as one client.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading
import time

import pytest

from tower.app.serve.client import ApiError, Client
from tower.app.serve.limits import Limits
from tower.app.serve.run import ServerThread
from tower.app.serve.server import GameServer
from tower.games.registry import new_game

#: the production limits, except replays (short records prove the paging) and the connection timeouts (1 s)
LIMITS = Limits(record_moves=600, header_seconds=1.0, body_seconds=1.0, idle_seconds=1.0)
_addresses = iter(range(10, 250))


def fresh() -> str:
    """A loopback address not used by another test: a new client for the server."""
    return f"127.0.0.{next(_addresses)}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("limits") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=LIMITS) as srv:
        yield srv


def random_record(game: str, players: int, options: dict, seed: int) -> dict:
    state = new_game(game, players, seed, options)
    rng = random.Random(seed)
    while not state.is_over:
        state.apply(rng.choice(state.legal_moves()))
    return state.record()


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


# --- 1. replay amplification ---------------------------------------------------------------------------------

def test_a_replay_answers_one_bounded_page_and_a_record_over_the_limit_is_refused_at_once(server):
    api = Client(server.url, source=fresh())
    record = random_record("partners", 4, {"move_limit": 400}, 7)  # about 500 moves: a long game
    assert 100 < len(record["moves"]) <= LIMITS.record_moves
    status, body = api.raw("POST", "/api/replay?seat=public", json.dumps(record).encode())
    assert status == 200
    doc = json.loads(body)
    assert doc["total"] == len(record["moves"]) + 1 and len(doc["frames"]) == LIMITS.replay_page
    assert len(doc["moves"]) == len(record["moves"])  # the log comes whole, the scenes a page at a time
    # a page is bounded whatever the game's length: ~25 scenes, not 500
    assert len(body) < 60 * 1024 * LIMITS.replay_page
    last = api.request("POST", f"/api/replay?seat=1&from={doc['total'] - 3}", record)[1]
    assert [f["k"] for f in last["frames"]] == [doc["total"] - 3, doc["total"] - 2, doc["total"] - 1]
    assert last["frames"][-1]["move"] == record["moves"][-1]
    longer = dict(record, moves=record["moves"] * 2)  # over record_moves: refused before any move is replayed
    (status, answer), seconds = timed(api.request, "POST", "/api/replay?seat=public", longer)
    assert status == 400 and answer["where"] == "$.moves" and seconds < 1.0


def test_one_replay_computation_per_client_at_a_time_and_the_others_are_served_meanwhile(server):
    address = fresh()
    records = [random_record("partners", 4, {"move_limit": 400}, 8 + k) for k in range(4)]  # nothing cached
    mover = Client(server.url, source=fresh())
    game = mover.create("diabolo", seats=["human"] * 3)
    results: list[int] = []

    def replay(k: int) -> None:
        results.append(Client(server.url, source=address).request("POST", f"/api/replay?from={200 + k}",
                                                                  records[k])[0])

    threads = [threading.Thread(target=replay, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    times = []
    while any(t.is_alive() for t in threads):
        times.append(timed(mover.state, game["id"], game["seats"][0]["token"])[1])
        time.sleep(0.05)
    for t in threads:
        t.join(60)
    assert 200 in results and 429 in results, results  # one computes; the others are told to come back
    assert max(times, default=0) < 1.0, times  # other requests are not held up by the replays


def test_a_finished_games_replay_pages_are_computed_once(server):
    api = Client(server.url, source=fresh())
    game = api.create("diabolo", seats=["ai:random"] * 3, seed=3)
    spectator = game["spectator_url"].split("token=")[1]
    for _ in range(200):
        if api.state(game["id"], spectator)["over"]:
            break
        time.sleep(0.05)
    path = f"/api/games/{game['id']}/replay?seat=public&from=0"
    first, cold = timed(api.request, "GET", path)
    again, warm = timed(api.request, "GET", path)
    assert first == again and first[0] == 200
    assert server.server.replays.get((f"game:{game['id']}", None, 0, LIMITS.replay_page)) is not None


# --- 2. huge `players` ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [500_000_000, 10**18, 1e18, -1, 0])
def test_a_huge_players_count_is_refused_at_once(server, players):
    api = Client(server.url, source=fresh())
    (status, doc), seconds = timed(api.request, "POST", "/api/games", {"game": "diabolo", "players": players})
    assert status == 400 and doc["where"] == "$.players" and seconds < 1.0, (status, doc, seconds)


def test_a_huge_list_of_seats_is_refused_by_its_size(server):
    api = Client(server.url, source=fresh())
    body = json.dumps({"game": "diabolo", "seats": ["human"] * 200_000}).encode()
    assert len(body) > LIMITS.body_bytes
    (status, _), seconds = timed(api.raw, "POST", "/api/games", body)
    assert status == 413 and seconds < 1.0
    status, doc = api.request("POST", "/api/games", {"game": "diabolo", "seats": ["human"] * 7})
    assert status == 400 and doc["where"] == "$.seats"


# --- 4. unbounded creation ------------------------------------------------------------------------------------

def test_one_address_creates_a_burst_of_games_then_gets_429_with_retry_after(server):
    api = Client(server.url, source=fresh())
    statuses, retry = [], None
    for _ in range(LIMITS.game_burst + 3):
        status, data = api.raw("POST", "/api/games", b'{"game": "diabolo"}')
        statuses.append(status)
    assert statuses[:LIMITS.game_burst] == [201] * LIMITS.game_burst and set(statuses[LIMITS.game_burst:]) == {429}
    conn = api._connection()
    conn.request("POST", "/api/games", body=b'{"game": "diabolo"}', headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    retry, doc = resp.getheader("Retry-After"), json.loads(resp.read())
    assert resp.status == 429 and doc["rule"] == "too-many-games"
    assert retry is not None and 1 <= int(retry) <= 60 / LIMITS.games_per_minute + 1
    # another address is another client
    assert Client(server.url, source=fresh()).raw("POST", "/api/games", b'{"game": "diabolo"}')[0] == 201


@pytest.mark.parametrize("seat", ["ai:random:" + "x" * 1000, "ai:greedy:Your link expired - visit evil.example",
                                  "ai:mcts:time=10,iters=50000,c=1,rollout=9,time=1", "AI:greedy", "ai:greedy "])
def test_a_seat_is_human_or_an_ai_of_the_grammar_never_free_text(server, seat):
    status, doc = Client(server.url, source=fresh()).request("POST", "/api/games",
                                                             {"game": "diabolo", "seats": ["human", "human", seat]})
    assert status == 400 and doc["where"] == "$.seats[2]" and len(doc["error"]) <= 300


@pytest.mark.parametrize("options, where", [
    ({"deck": "heart=9999,1/14=9999"}, "$.options.deck"),  # ~1 MB of cards a game
    ({"deck": "heart=6," * 100}, "$.options.deck"),  # a long text
    ({"move_limit": 10**9}, "$.options.move_limit"),
])
def test_option_values_are_bounded_before_the_game_is_built(server, options, where):
    status, doc = Client(server.url, source=fresh()).request("POST", "/api/games",
                                                             {"game": "partners", "options": options})
    assert status == 400 and doc["where"] == where, doc


def test_a_start_build_over_the_blocks_limit_is_refused(server):
    blocks = [{"id": f"b{i}", "at": [0, 0, i], "size": [1, 1, 1]} for i in range(LIMITS.blocks_per_build + 1)]
    status, doc = Client(server.url, source=fresh()).request(
        "POST", "/api/games", {"game": "climbers", "options": {"start": {"format": "tower-build/1", "blocks": blocks}}})
    assert status == 400 and doc["where"] == "$.options.start.blocks", doc


def test_running_games_per_client_and_idle_games_leave_memory(tmp_path):
    limits = Limits(running_games_per_client=3, game_burst=100, games_in_memory=2)

    async def scenario() -> None:
        srv = GameServer(str(tmp_path / "g.sqlite"), workers=1, ai_pause=0, limits=limits)
        try:
            made = [await srv.create({"game": "diabolo", "seed": k}, "http://x", "10.0.0.1") for k in range(3)]
            with pytest.raises(Exception) as refused:
                await srv.create({"game": "diabolo"}, "http://x", "10.0.0.1")
            assert refused.value.status == 429 and refused.value.retry_after
            assert len(srv.tables) <= 2  # idle unfinished games left memory
            token = made[0]["seats"][0]["token"]
            back = await srv.answer(made[0]["id"], token)  # ... and come back from the database when asked for
            assert back["n"] == 0 and not back["over"]
            await srv.abandon(made[0]["id"], token)  # an abandoned game no longer counts
            await srv.create({"game": "diabolo"}, "http://x", "10.0.0.1")
        finally:
            await srv.close()
        # a restart reloads no game of people only (5,500 of them once took 20 s and 370 MB)
        srv = GameServer(str(tmp_path / "g.sqlite"), workers=1, ai_pause=0, limits=limits)
        try:
            await srv.start()
            await asyncio.sleep(0.2)
            assert srv.tables == {}
        finally:
            await srv.close()

    asyncio.run(scenario())


# --- 5. worker starvation -------------------------------------------------------------------------------------

def test_a_hint_does_not_wait_behind_long_ai_searches(server):
    api = Client(server.url, source=fresh())
    for seed in range(2):  # two all-AI games searching 2 s a move: they hold the one AI worker in turn
        api.create("diabolo", seats=["ai:mcts:time=2"] * 3, seed=seed)
    time.sleep(0.5)
    game = api.create("diabolo", seats=["human"] * 3, seed=5)
    me = game["seats"][0]["token"]
    who = api.state(game["id"], me)["to_move"]
    hint, seconds = timed(api.hint, game["id"], game["seats"][who]["token"])
    assert hint["move"] in api.state(game["id"], game["seats"][who]["token"])["legal_moves"]
    assert seconds < 1.5, seconds


def test_an_ai_game_past_its_thinking_budget_plays_on_at_random_and_a_long_game_is_ended(tmp_path):
    limits = Limits(ai_seconds_per_game=0.3, game_moves=40, game_burst=100)

    async def scenario() -> None:
        srv = GameServer(str(tmp_path / "g.sqlite"), workers=1, ai_pause=0, limits=limits)
        searches = []
        think = srv.pool.choose

        async def counted(*args):
            searches.append(args[2])
            return await think(*args)

        srv.pool.choose = counted
        try:
            t = time.perf_counter()
            made = await srv.create({"game": "diabolo", "seats": ["ai:mcts:time=1"] * 3, "seed": 1}, "http://x")
            table = srv.tables[made["id"]]
            while not table.over and time.perf_counter() - t < 30:
                await asyncio.sleep(0.05)
            assert table.over and time.perf_counter() - t < 25  # not ~70 moves x 1 s
            assert len(searches) == 1 and table.n > 20  # one search spends the budget, then random moves
            long = await srv.create({"game": "partners", "seats": ["ai:random"] * 4, "seed": 2}, "http://x")
            table = srv.tables[long["id"]]
            while not table.over and time.perf_counter() - t < 40:
                await asyncio.sleep(0.05)
            assert table.abandoned and table.n == limits.game_moves  # the length cap ends it
            assert srv.store.listing()[-1][4] == "abandoned"
        finally:
            await srv.close()

    asyncio.run(scenario())


def test_a_player_abandons_a_game_and_an_all_ai_game_is_stopped_by_its_spectator_link(server):
    api = Client(server.url, source=fresh())
    game = api.create("diabolo", seats=["human", "ai:greedy", "human"])
    spectator = game["spectator_url"].split("token=")[1]
    with pytest.raises(ApiError) as refused:
        api.abandon(game["id"], spectator)
    assert refused.value.status == 403
    out = api.abandon(game["id"], game["seats"][0]["token"])
    assert out["over"] and out["abandoned"] and out["to_move"] is None and out["legal_moves"] == []
    with pytest.raises(ApiError) as refused:
        api.move(game["id"], game["seats"][1]["token"], "anything")
    assert refused.value.status == 409
    robots = api.create("diabolo", seats=["ai:mcts:time=0.2"] * 3)
    watch = robots["spectator_url"].split("token=")[1]
    stopped = api.abandon(robots["id"], watch)
    time.sleep(0.6)
    assert api.state(robots["id"], watch)["n"] == stopped["n"]  # its AI seats stopped


# --- 6. slow clients ------------------------------------------------------------------------------------------

def _open(server, first: bytes, source: str) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5, source_address=(source, 0))
    if first:
        sock.sendall(first)
    return sock


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_idle_half_sent_and_slow_connections_are_closed_and_logged_quietly(server, caplog):
    source = fresh()
    kinds = [b"", b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\n",  # idle; headers never finished
             b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"]
    socks = [_open(server, kinds[k % 3], source) for k in range(30)]
    t = time.perf_counter()
    assert all(_closed_within(s, 5.0) for s in socks)
    assert time.perf_counter() - t < 4.0  # header/body/idle limits of 1 s, checked every 0.25 s
    for s in socks:
        s.close()
    # an aborted upload is one quiet line, never a traceback
    caplog.clear()
    for _ in range(5):
        s = _open(server, kinds[2], source)
        s.close()
    time.sleep(0.5)
    assert not [r for r in caplog.records if r.exc_info or r.levelname in ("ERROR", "CRITICAL")]
    # an honest keep-alive client goes on (a closed idle connection is opened again by the client)
    api = Client(server.url, source=source)
    assert api.request("GET", "/api/catalogue")[0] == 200
    time.sleep(1.5)
    assert api.request("GET", "/api/catalogue")[0] == 200


def test_one_address_cannot_hold_more_connections_than_its_limit(server):
    source = fresh()
    socks = [_open(server, b"", source) for _ in range(LIMITS.connections_per_client + 5)]
    time.sleep(0.4)  # the watchdog's round (0.25 s here), well before the 1 s an idle connection is given
    assert all(_closed_within(s, 0.1) for s in socks[-5:])  # the ones over the limit are gone
    assert not any(_closed_within(s, 0.01) for s in socks[:5])  # the first ones are still open
    for s in socks:
        s.close()


# --- 9. small ones --------------------------------------------------------------------------------------------

def test_small_ones_answer_clean_errors(server):
    api = Client(server.url, source=fresh())
    record = random_record("diabolo", 3, {}, 1)
    status, doc = api.request("POST", "/api/replay?seat=%C2%B2", record)  # '²'.isdigit() is true
    assert status == 400 and doc["where"] == "$.seat"
    for ctype, body in (("text/plain", b'{"game": "diabolo"}'), ("application/x-www-form-urlencoded", b"game=x")):
        status, raw = api.raw("POST", "/api/games", body, headers={"Content-Type": ctype})  # a cross-site form
        assert status == 415 and json.loads(raw)["rule"] == "not-json"
    game = api.create("diabolo")
    status, _ = api.raw("POST", f"/api/games/{game['id']}/undo?token={game['seats'][0]['token']}", b"",
                        headers={"Content-Type": "text/plain"})
    assert status == 415
    status, doc = api.request("POST", "/api/games", {"game": "x" * 100_000})
    assert status == 400 and len(json.dumps(doc)) < 700  # the input is not echoed in full
    status, raw = api.raw("GET", "/static/no-such-file.js")
    assert status == 404 and json.loads(raw)["error"]
    status, raw = api.raw("GET", "/no/such/page")
    assert status == 404 and json.loads(raw)["error"]


def test_an_undo_checks_its_rule_off_the_event_loop(server, monkeypatch):
    from tower.app.serve import table as table_module

    threads = []
    real = table_module.plan_take_back

    def spy(*args):
        threads.append(threading.current_thread())
        return real(*args)

    monkeypatch.setattr(table_module, "plan_take_back", spy)
    api = Client(server.url, source=fresh())
    game = api.create("diabolo", seats=["human", "ai:random", "ai:random"], seed=4)
    token = game["seats"][0]["token"]
    state = api.state(game["id"], token)
    api.move(game["id"], token, state["legal_moves"][0])
    try:
        api.undo(game["id"], token)
    except ApiError as exc:  # the rule may refuse (a card was shown): checked all the same
        assert exc.status == 409
    assert threads and server._thread not in threads


def test_every_limit_is_documented_with_its_default():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "serve.md").read_text()
    for name, default, _ in Limits.table():
        shown = f"{default:,}" if isinstance(default, int) else f"{default:g}"
        assert f"| `{name}` | {shown} |" in doc, name

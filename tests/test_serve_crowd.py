"""Many addresses at once (docs/serve.md, "Limits"; issue 47): what once broke when an attack came from many
loopback addresses beside an honest client, each repeated small here and now bounded. Every test speaks from
addresses of its own (127.0.0.N, each one client of the server).

1. WebSocket frames: 200 feeds each sending 4 MiB of one unfinished frame held 846 MiB: a message is capped at
   what the page sends (`websocket_message_bytes`, refused from the frame's header) and a frame begun must end
   within `websocket_frame_seconds`; then their sockets, refused, opened again at once, 800 a second:
   past `refused_connections_per_minute` an address is refused at accept, a second later;
2. the lab's refusals over a 190-block wall, many at once, held the interpreter in the server's process (a move's
   p95 11.9 -> 999 ms): they are jobs of the lab's rules worker, a client's two at a time;
3. labs of random starts created from 50 addresses filled the lab's line (an honest edit refused 503): the start
   is built in the rules worker, the lines are round-robin by client and refuse no newcomer; then the honest edits
   waited behind one new lab of each address (p95 8-9 s): a new lab's jobs wait behind those of the labs in use;
4. Climbers games on a 200-cube start asking placements and ghosts kept 135 MiB a game: the placements are worked
   out in a worker of their own, one block's moves only, and the positions' caches stay within a byte budget; then
   the block step's listing (25 MiB and a tenth of a second a position) and the answers' encoding (20 ms of the
   event loop) still ran in the server: both are the worker's now;
5. hints from 50 addresses filled the hints' line (an honest hint refused 503): a line served round-robin by client;
   then each address asked again as soon as answered, 570 hints a second: `hints_per_minute` per client;
6. removal maps from many addresses: every address's map waits its turn (no 503), an honest edit is answered;
7. nothing grew for ever: games expire after `game_keep_seconds`, quotas are kept in the database across a restart,
   a full disk budget refuses new games and labs with 507, a server-wide rate of new games refuses no newcomer.
"""

from __future__ import annotations

import base64
import os
import socket
import struct
import threading
import time

import pytest

from tower.app.serve.client import Client
from tower.app.serve.errors import Refused
from tower.app.serve.fair import FairLine
from tower.app.serve.limits import Limits
from tower.app.serve.run import ServerThread

LIMITS = Limits(websocket_frame_seconds=1.0, game_burst=100, lab_burst=100, labs_per_minute=600.0,
                lab_cpu_seconds=2.0, construction_cache_bytes=24 << 20)
_addresses = iter(range(10, 250))


def fresh() -> str:
    return f"127.0.4.{next(_addresses)}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("crowd") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=LIMITS) as srv:
        yield srv


def _feed(server, game: dict, source: str) -> socket.socket:
    """A WebSocket feed opened by hand (the handshake, then the first message left unread)."""
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5, source_address=(source, 0))
    key = base64.b64encode(os.urandom(16)).decode()
    token = game["spectator_url"].split("token=")[1]
    sock.sendall(f"GET /api/games/{game['id']}/ws?token={token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _cut_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed the connection (None: still open after `seconds`)."""
    began = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - began < seconds:
        try:
            if not sock.recv(65536):
                return time.monotonic() - began
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - began
    return None


def _frame_head(length: int) -> bytes:
    """A masked text frame's header declaring `length` payload bytes, and its mask."""
    if length < 126:
        return bytes([0x81, 0x80 | length]) + b"mask"
    if length < 65536:
        return bytes([0x81, 0x80 | 126]) + struct.pack(">H", length) + b"mask"
    return bytes([0x81, 0x80 | 127]) + struct.pack(">Q", length) + b"mask"


def test_websocket_frames_are_capped_at_what_the_page_sends_and_must_finish(server):
    api = Client(server.url, source=fresh())
    game = api.create("diabolo", seats=["human"] * 3)
    attacker = fresh()
    # a frame declaring 4 MiB: refused from its header, nothing of it buffered
    big = _feed(server, game, attacker)
    big.sendall(_frame_head(4 * 1024 * 1024) + b"x" * 60_000)
    assert _cut_within(big, 3.0) is not None
    # a small frame left unfinished, a byte now and then: cut after websocket_frame_seconds
    slow = _feed(server, game, attacker)
    slow.sendall(_frame_head(100) + b"x" * 10)
    began = time.monotonic()
    while time.monotonic() - began < 5 * LIMITS.websocket_frame_seconds:
        try:
            slow.sendall(b"x")
        except OSError:
            break
        if _cut_within(slow, 0.3) is not None:
            break
    assert time.monotonic() - began < 4 * LIMITS.websocket_frame_seconds + 1
    # an honest feed that pings now and then stays open past the frame timeout, and is answered
    honest = _feed(server, game, fresh())
    for _ in range(3):
        honest.sendall(_frame_head(4) + bytes(c ^ m for c, m in zip(b"ping", b"mask", strict=True)))
        time.sleep(LIMITS.websocket_frame_seconds * 0.8)
    honest.settimeout(2)
    got = b""
    while got.count(b'{"type": "pong"}') < 3:
        chunk = honest.recv(65536)
        assert chunk, "the honest feed was closed"
        got += chunk
    for sock in (big, slow, honest):
        sock.close()
    # feeds opened and closed again and again: each costs a snapshot, so one address opens at most
    # websocket_opens_per_minute (burst websockets_per_client), then 429 before the upgrade
    churn = fresh()
    for _ in range(LIMITS.websockets_per_client):
        _feed(server, game, churn).close()
    api = Client(server.url, source=churn)
    token = game["spectator_url"].split("token=")[1]
    status, doc = api.request("GET", f"/api/games/{game['id']}/ws?token={token}")
    assert status == 429 and "websocket_opens_per_minute" in doc["error"]


def test_a_client_refused_again_and_again_is_refused_at_accept_a_second_later(server):
    """200 sockets of 30 addresses opening a WebSocket again as soon as refused made 800 refused upgrades a second,
    each a request parsed and handled in the event loop: past `refused_connections_per_minute` a connection of
    that address waits a second unread, then is answered 429 and closed as it opened."""
    host, port = server.url.removeprefix("http://").split(":")
    churn = fresh()

    def one(request: bytes) -> tuple[bytes, float]:
        began = time.monotonic()
        answer = b""
        with socket.create_connection((host, int(port)), timeout=5, source_address=(churn, 0)) as sock:
            sock.sendall(request)
            try:
                while chunk := sock.recv(65536):
                    answer += chunk
            except ConnectionResetError:  # the request it sent was never read
                pass
        return answer, time.monotonic() - began

    upgrade = (b"GET /api/games/nope/ws?token=x HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    plain = b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    for _ in range(20):  # a client that opens a connection per request is not slowed
        assert one(plain)[0].startswith(b"HTTP/1.1 200")
    refused = 0
    while (got := one(upgrade))[0].startswith(b"HTTP/1.1 404"):  # no such game: refused, closed
        refused += 1
        assert refused <= 2 * LIMITS.websockets_per_client
    assert refused >= LIMITS.websockets_per_client - 1  # the burst
    answer, seconds = got
    assert answer.startswith(b"HTTP/1.1 429") and b"refused-connections" in answer, answer[:200]
    assert seconds >= 0.9  # refused as it opened (only the watchdog answers this rule), a second later
    assert Client(server.url, source=fresh()).request("GET", "/api/catalogue")[0] == 200  # another address


# --- 2. refusals ------------------------------------------------------------------------------------------------

def wall() -> dict:
    """190 cubes in a wall 10 wide and 19 high."""
    return {"format": "tower-build/1", "blocks": [
        {"id": f"w{k}", "origin": [2 * (k % 10) - 10, 0, 2 * (k // 10)], "size": [2, 2, 2]} for k in range(190)]}


def in_threads(calls) -> list:
    out: list = [None] * len(calls)

    def run(k: int) -> None:
        out[k] = calls[k]()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return out


def _honest_moves(server, seconds: float, running) -> list[float]:
    """A Diabolo game of a fresh address played while `running()`: the move answers' seconds."""
    api = Client(server.url, source=fresh())
    game = api.create("diabolo", seats=["human"] * 3)
    tokens = [s["token"] for s in game["seats"]]
    times = []
    deadline = time.monotonic() + seconds
    while running() and time.monotonic() < deadline:
        st = api.state(game["id"], tokens[0])
        if st["over"]:
            break
        mover = tokens[st["to_move"]]
        legal = api.state(game["id"], mover)["legal_moves"]
        began = time.perf_counter()
        api.move(game["id"], mover, legal[0])
        times.append(time.perf_counter() - began)
        time.sleep(0.05)
    return times


def _labs_key():
    from tower.app.serve.lab import LABS_KEY

    return LABS_KEY


def test_refusals_are_jobs_of_the_rules_worker_two_per_client_and_moves_go_on(server):
    jobs = server.runner.app[_labs_key()].jobs
    before = jobs.rules.jobs
    shapes = [{"size": [2, 2, 4], "top": "red", "faces": ["red"] * 6},
              {"size": [4, 2, 2], "top": "red", "faces": ["red"] * 6}]
    body = {"block": "new", "kind": "double-cube", "shapes": shapes, "area": [-14, -4, 14, 6]}
    attackers = [fresh() for _ in range(3)]
    labs = {a: Client(server.url, source=a).request("POST", "/api/lab", {"build": wall(), "rules": "flag"})[1]
            for a in attackers}
    answers: list = []

    def attack() -> None:
        calls = [lambda a=a: Client(server.url, source=a).request("POST", f"/api/lab/{labs[a]['id']}/refusals", body)
                 for a in attackers for _ in range(4)]
        answers.extend(in_threads(calls))

    running = threading.Thread(target=attack)
    running.start()
    times = _honest_moves(server, 60, running.is_alive)
    running.join(120)
    statuses = [status for status, _ in answers]
    # each address: two at a time (429 for the rest), every address answered, no line full
    for k in range(3):
        mine = statuses[4 * k:4 * k + 4]
        assert 200 in mine and set(mine) <= {200, 429}, statuses
    assert all(doc["rule"] == "lab-busy" for status, doc in answers if status == 429)
    assert jobs.rules.jobs - before >= 3 and all("refused" in doc for status, doc in answers if status == 200)
    assert times and max(times) < 1.0, times


# --- 3. labs of random starts from many addresses -----------------------------------------------------------------

def test_random_labs_from_many_addresses_are_built_in_the_rules_worker_and_an_honest_edit_is_never_refused(server):
    jobs = server.runner.app[_labs_key()].jobs
    before = jobs.rules.jobs
    honest = Client(server.url, source=fresh())
    mine = honest.request("POST", "/api/lab", {"start": "random", "seed": 3, "rules": "free"})[1]
    top = max(mine["build"]["blocks"], key=lambda b: b["origin"][2])
    x, y, z = top["origin"]
    answers: list = []

    def flood() -> None:
        calls = [lambda a=a, k=k: Client(server.url, source=a).request("POST", "/api/lab",
                                                                      {"start": "random", "seed": k})[0]
                 for a in [fresh() for _ in range(12)] for k in range(3)]
        answers.extend(in_threads(calls))

    running = threading.Thread(target=flood)
    running.start()
    edits = []
    while running.is_alive() or len(edits) < 3:
        status, _ = honest.request("POST", f"/api/lab/{mine['id']}/edits",
                                   {"op": "move", "block": top["id"], "origin": [x + len(edits) % 2, y, z]})
        edits.append(status)
    running.join(120)
    assert set(edits) == {200}, edits  # before: 5 of 6 refused 503 lab-queue-full
    assert answers.count(201) >= 12 and set(answers) <= {201, 429}, answers  # a client's second start waits
    assert jobs.rules.jobs - before >= 12


def test_a_lab_in_use_goes_before_new_labs_in_a_lane():
    """Fifty addresses each making a lab now and then are each lighter than a person editing one a second: by
    client alone, the person's edit waited behind one new lab of each (p95 8-9 s). A new lab's jobs wait in a line
    of their own, the two lines taking turns (so no new lab waits for ever behind labs kept busy)."""
    from tower.app.serve.labjobs import Asker, Lane

    lane = Lane("test", 1, 0, 64, None, modules=())
    try:
        done: list[str] = []

        def job(asker: Asker, seconds: float) -> None:
            lane.run(asker, "test", time.sleep, (seconds,), 10.0)
            done.append(asker.client)

        lane.run(Asker("warm"), "test", time.sleep, (0,), 10.0)  # the worker started
        first = threading.Thread(target=job, args=(Asker("first", new=True), 0.6))
        first.start()
        while not lane.jobs:
            time.sleep(0.01)
        waiting = [threading.Thread(target=job, args=(Asker(f"new{k}", new=True), 0.0)) for k in range(5)]
        for t in waiting:
            t.start()
            time.sleep(0.02)
        editors = [threading.Thread(target=job, args=(Asker(f"editor{k}"), 0.0)) for k in range(3)]
        for t in editors:
            t.start()
            time.sleep(0.02)
        for t in [first, *waiting, *editors]:
            t.join(30)
        assert done == ["first", "editor0", "new0", "editor1", "new1", "editor2", "new2", "new3", "new4"], done
    finally:
        lane.close()


# --- 4. Climbers placements ---------------------------------------------------------------------------------------

def cubes(n: int = 200) -> dict:
    """A legal start of n cubes, 10 x 10 in two layers: after `skip`, 236,496 placements."""
    return {"format": "tower-build/1", "blocks": [
        {"id": f"c{i}", "origin": [2 * (i % 10) - 10, 2 * (i // 10 % 10) - 10, 2 * (i // 100)], "size": [2, 2, 2]}
        for i in range(n)]}


def test_placements_of_big_positions_are_worked_out_in_a_worker_and_positions_keep_a_bounded_cache(server):
    from tower.climbers.movelist import MoveList

    srv = server.server
    api = Client(server.url, source=fresh())
    games = []
    for seed in (1, 2, 3):
        game = api.create("climbers", seats=["human", "human"], options={"start": cubes()}, seed=seed)
        token = game["seats"][0]["token"]
        api.move(game["id"], token, "skip")
        blocks = api.state(game["id"], token)["blocks"]
        assert len(blocks) == 100  # the top layer
        status, doc = api.request("GET", f"/api/games/{game['id']}/placements?token={token}&block={blocks[0]}")
        assert status == 200 and doc["placements"] and doc["n"] == 1
        status, ghosts = api.request("GET", f"/api/games/{game['id']}/ghosts?token={token}&block={blocks[0]}")
        assert status == 200 and ghosts["ghosts"] and ghosts["block"] == blocks[0]
        games.append((game["id"], token, doc["placements"][0][4]))
    assert srv.placer.pids()  # the placements' worker did it
    for game_id, _, _ in games:  # the block step's moves were listed in the worker, not here (before: 25 MiB a game)
        table = srv.tables[game_id]
        assert not any(isinstance(v, MoveList) for v in table.state._cache.values())
        assert not any(isinstance(k, tuple) and k[0] == "block-table" for k in table.state._cache)
    # a block move played is checked here, and the next step's moves listed (12 MiB a position): the positions'
    # caches stay within the budget (24 MiB), the least recently used forgetting theirs
    for game_id, token, text in games:
        api.move(game_id, token, text)
    assert srv.budget.forgotten >= 1 and srv.budget.total <= LIMITS.construction_cache_bytes
    game_id, token, _ = games[0]
    state = api.state(game_id, token)
    assert state["n"] == 2 and state["legal_moves"]  # the figure's second step, listed again
    status, doc = api.request("GET", f"/api/games/{game_id}/placements?token={token}&block={blocks[0]}")
    assert status == 409 and doc["rule"] == "block-cannot-move"


# --- 5. the hints' line ------------------------------------------------------------------------------------------

def test_a_fair_line_serves_clients_in_turn_and_refuses_no_newcomer():
    import asyncio

    async def scenario() -> list[str]:
        line = FairLine(1, None, 100)
        order: list[str] = []
        gate = asyncio.Event()

        async def job(client: str) -> None:
            async with line.turn(client):
                order.append(client)
                if len(order) == 1:  # the first holds its place until all have asked
                    await gate.wait()

        first = asyncio.create_task(job("a"))
        await asyncio.sleep(0)
        tasks = [asyncio.create_task(job("a")) for _ in range(4)]
        await asyncio.sleep(0)
        tasks += [asyncio.create_task(job("b")), asyncio.create_task(job("c"))]
        await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(first, *tasks)
        return order

    # a's four waiting jobs do not keep b and c waiting: each client in turn
    assert asyncio.run(scenario()) == ["a", "a", "b", "c", "a", "a", "a"]

    async def one_each() -> None:
        line = FairLine(1, 1, 3, "hint", "hint-running", "hints-busy")
        gate = asyncio.Event()

        async def job(client: str) -> None:
            async with line.turn(client):
                await gate.wait()

        tasks = [asyncio.create_task(job(c)) for c in "abc"]
        await asyncio.sleep(0)
        with pytest.raises(Refused) as busy:  # a second of a's: 429
            async with line.turn("a"):
                pass
        assert busy.value.status == 429 and busy.value.rule == "hint-running"
        tasks.append(asyncio.create_task(job("d")))  # a newcomer waits its turn (2 clients wait, bound 3)
        await asyncio.sleep(0)
        with pytest.raises(Refused) as full:  # past the bound on clients waiting: 503
            async with line.turn("e"):
                pass
        assert full.value.status == 503
        gate.set()
        await asyncio.gather(*tasks)
        assert line.working == 0 and not line.held

    asyncio.run(one_each())


def test_hints_from_many_addresses_all_wait_their_turn_none_refused(server):
    askers = []
    for _ in range(10):
        api = Client(server.url, source=fresh())
        game = api.create("diabolo", seats=["human"] * 3)
        mover = game["seats"][api.state(game["id"], game["seats"][0]["token"])["to_move"]]["token"]
        askers.append((api, game["id"], mover))
    answers = in_threads([lambda a=a: a[0].request("GET", f"/api/games/{a[1]}/hint?token={a[2]}") for a in askers])
    assert [status for status, _ in answers] == [200] * 10  # before: hints_waiting 8, then 503


def test_hints_asked_again_and_again_are_refused_past_the_clients_rate_others_answered(server):
    """50 addresses each asking a hint again as soon as answered made 570 hints a second through the event loop (a
    move's p95 at 5x a quiet one): a client asks at most `hints_per_minute` (burst 10)."""
    from tower.app.serve.server import HINT_BURST

    api = Client(server.url, source=fresh())
    game = api.create("diabolo", seats=["human"] * 3)
    mover = game["seats"][api.state(game["id"], game["seats"][0]["token"])["to_move"]]["token"]
    statuses = [api.request("GET", f"/api/games/{game['id']}/hint?token={mover}") for _ in range(HINT_BURST + 2)]
    assert [s for s, _ in statuses[:HINT_BURST]] == [200] * HINT_BURST
    assert statuses[-1][0] == 429 and statuses[-1][1]["rule"] == "too-many-hints"
    other = Client(server.url, source=fresh())
    assert other.request("GET", f"/api/games/{game['id']}/hint?token={mover}")[0] == 200


# --- 6. removal maps from many addresses --------------------------------------------------------------------------

def test_removal_maps_of_many_addresses_each_wait_their_turn_and_edits_go_on(server):
    column = {"format": "tower-build/1", "blocks": [{"id": f"h{i}", "origin": [0, 0, i], "size": [2, 2, 1]}
                                                    for i in range(8)]}
    addresses = [fresh() for _ in range(3)]
    labs = [Client(server.url, source=a).request("POST", "/api/lab", {"build": column, "rules": "free"})[1]
            for a in addresses]
    answers: list = []

    def attack() -> None:
        answers.extend(in_threads([lambda a=a, lab=lab: Client(server.url, source=a).request(
            "GET", f"/api/lab/{lab['id']}/removal")[0] for a, lab in zip(addresses, labs, strict=True)]))

    running = threading.Thread(target=attack)
    running.start()
    honest = Client(server.url, source=fresh())
    small = honest.request("POST", "/api/lab", {"start": "random", "seed": 5, "rules": "free"})[1]
    top = max(small["build"]["blocks"], key=lambda b: b["origin"][2])
    x, y, z = top["origin"]
    times = []
    while running.is_alive() or not times:
        began = time.perf_counter()
        status, _ = honest.request("POST", f"/api/lab/{small['id']}/edits",
                                   {"op": "move", "block": top["id"], "origin": [x + len(times) % 2, y, z]})
        assert status == 200
        times.append(time.perf_counter() - began)
    running.join(120)
    assert set(answers) <= {200, 413} and len(answers) == 3, answers  # before: the others 503 lab-queue-full
    assert max(times) < 5.0, times


# --- 7. retention, quotas across restarts, the disk budget, the server's rate -------------------------------------

def test_games_expire_quotas_survive_a_restart_and_a_full_disk_refuses_new_games_with_507(serve_db):
    """On SQLite and on PostgreSQL (`serve_db`)."""
    import asyncio

    db = serve_db
    limits = Limits(running_games_per_client=2, labs_per_client=2, game_burst=100, lab_burst=100)
    source = fresh()
    with ServerThread(db, ai_pause=0, workers=1, limits=limits) as srv:
        api = Client(srv.url, source=source)
        kept = [api.create("diabolo", seats=["human"] * 3) for _ in range(2)]
        assert api.request("POST", "/api/games", {"game": "diabolo"})[0] == 429
        assert [api.request("POST", "/api/lab", {})[0] for _ in range(3)] == [201, 201, 429]
        old = Client(srv.url, source=fresh()).create("diabolo", seats=["human"] * 3)
        Client(srv.url, source=fresh()).request("POST", f"/api/games/{old['id']}/abandon?token="
                                                       f"{old['seats'][0]['token']}", {})
    with ServerThread(db, ai_pause=0, workers=1, limits=limits) as srv:  # restarted: the same quotas
        api = Client(srv.url, source=source)
        assert api.request("POST", "/api/games", {"game": "diabolo"})[0] == 429
        assert api.request("POST", "/api/lab", {})[0] == 429
        assert Client(srv.url, source=fresh()).request("POST", "/api/lab", {})[0] == 201  # another address
        # a game unchanged for game_keep_seconds leaves the database with its moves and links; live games stay
        store = srv.server.store
        store.write([("UPDATE games SET updated = updated - ? WHERE id = ?", (limits.game_keep_seconds + 5, old["id"]))])
        assert srv.call(srv.server.expire()) == 1
        assert api.request("GET", f"/api/games/{old['id']}?token={old['seats'][0]['token']}")[0] == 404
        assert store._rows("SELECT COUNT(*) FROM tokens WHERE game_id = ?", (old["id"],))[0][0] == 0
        assert api.request("GET", f"/api/games/{kept[0]['id']}?token={kept[0]['seats'][0]['token']}")[0] == 200
    full = Limits(disk_bytes=1)
    with ServerThread(db, ai_pause=0, workers=1, limits=full) as srv:  # the disk budget: 507, moves still kept
        other = Client(srv.url, source=fresh())
        status, doc = other.request("POST", "/api/games", {"game": "diabolo"})
        assert status == 507 and doc["rule"] == "disk-budget"
        assert other.request("POST", "/api/lab", {})[0] == 507
        game, tokens = kept[0]["id"], [s["token"] for s in kept[0]["seats"]]
        mover = tokens[other.state(game, tokens[0])["to_move"]]
        other.move(game, mover, other.state(game, mover)["legal_moves"][0])
    asyncio.run(asyncio.sleep(0))


def test_the_server_wide_rate_of_new_games_refuses_busy_clients_not_newcomers(tmp_path):
    limits = Limits(server_games_per_minute=6.0, game_burst=100, games_per_minute=600.0)
    with ServerThread(str(tmp_path / "g.sqlite"), ai_pause=0, workers=1, limits=limits) as srv:
        busy = Client(srv.url, source=fresh())
        statuses = [busy.request("POST", "/api/games", {"game": "diabolo"}) for _ in range(5)]
        assert [s for s, _ in statuses][:1] == [201] and statuses[-1][0] == 429
        assert statuses[-1][1]["rule"] == "server-busy"
        for _ in range(3):  # each newcomer gets its first game, the server's allowance spent or not
            assert Client(srv.url, source=fresh()).request("POST", "/api/games", {"game": "diabolo"})[0] == 201

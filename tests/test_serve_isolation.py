"""One client's work must not stall the others (docs/serve.md, "Limits"): the attacks of an open-network review that
once worked, each repeated small on 127.0.0.1 and now bounded.

1. six removal maps of 200-block builds at once from one address held every thread of the server: now the lab's
   physics runs in worker processes of its own, budgeted (413 past `lab_cpu_seconds`), one job per client (429),
   a bounded line (503), and another client's games and lab edits are answered meanwhile;
2. one address created labs without end, and a lab's history grew without bound: quotas, a byte budget, expiry;
3. connections over the client's limit stayed open once they sent a request, WebSockets without number: closed as
   they open, feeds capped per client and per seat;
4. a Climbers position's answer listed 236,496 placements (8 MB), sixteen hints of one address queued ahead of
   everyone's: placements are asked per block, answers are capped, one hint per client at a time.

(5., workers outliving a killed server left unreaped, is in test_serve_processes.py.) Every test speaks from
addresses of its own (127.0.0.N): the server counts each address as one client.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from tower.app.serve.client import Client
from tower.app.serve.limits import Limits
from tower.app.serve.run import ServerThread
from tower.climbers.build import build_to_json
from tower.climbers.setup import random_start_tower

sys.path.insert(0, str(Path(__file__).parent))
from test_serve_processes import descendants  # noqa: E402

LIMITS = Limits(game_burst=1000, lab_cpu_seconds=2.0, lab_quick_blocks=200, lab_queue=1, lab_burst=3, labs_per_client=4, lab_history_bytes=20_000,
                connections_per_client=8, websockets_per_client=3, websockets_per_seat=2, hints_waiting=4,
                header_seconds=5.0, idle_seconds=5.0)
_addresses = iter(range(10, 250))


def fresh() -> str:
    return f"127.0.1.{next(_addresses)}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("isolation") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=LIMITS) as srv:
        yield srv


def column(n: int = 200, x: int = 0) -> dict:
    """n half cubes stacked in one column (at x): its removal map took 46 s in the server's process."""
    return {"format": "tower-build/1", "blocks": [{"id": f"h{i}", "origin": [x, 0, i], "size": [2, 2, 1]}
                                                  for i in range(n)]}


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def in_threads(calls) -> list:
    """Each call at once, in a thread of its own; their results in order."""
    out: list = [None] * len(calls)

    def run(k: int) -> None:
        out[k] = calls[k]()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return out


# --- 1. the lab's physics ------------------------------------------------------------------------------------

def test_removal_maps_of_one_address_run_one_at_a_time_in_a_budgeted_worker_and_others_are_answered(server):
    attacker = fresh()
    # three builds (the same column at three places): a map found over budget on one is not known for the others,
    # however soon it is found
    labs = [Client(server.url, source=attacker).request("POST", "/api/lab", {"build": column(x=x), "rules": "free"})[1]
            for x in range(3)]
    others = [Client(server.url, source=fresh()) for _ in range(2)]  # two more addresses ask too (any lab link
    theirs = labs[1:]  # opens a lab to anyone)
    answers: list = []

    def attack() -> None:
        mine = [lambda lab=lab: Client(server.url, source=attacker).request("GET", f"/api/lab/{lab['id']}/removal")
                for lab in labs for _ in range(2)]
        more = [lambda c=c, lab=lab: (time.sleep(0.3), c.request("GET", f"/api/lab/{lab['id']}/removal"))[1]
                for c, lab in zip(others, theirs, strict=True)]
        answers.extend(in_threads(mine + more))

    running = threading.Thread(target=attack)
    running.start()
    # meanwhile another client: a game created and played, an unknown game, a lab of the start tower edited
    honest = Client(server.url, source=fresh())
    start = build_to_json(random_start_tower(3))
    status, mine = honest.request("POST", "/api/lab", {"build": start, "rules": "free"})
    assert status == 201 and mine["analysis"]["stability"]["verdict"]
    block = start["blocks"][-1]
    times = []
    deadline = time.monotonic() + 60
    # a bounded number of rounds: on a loaded machine the nice-19 map runs longer, and more edits would fill the
    # lab's history (lab_history_bytes) before it ends
    while running.is_alive() and time.monotonic() < deadline and len(times) < 40:
        x, y, z = block["origin"]
        (status, _), seconds = timed(honest.request, "POST", f"/api/lab/{mine['id']}/edits",
                                     {"op": "move", "block": block["id"], "origin": [x + len(times) % 2, y, z]})
        assert status == 200
        times.append(seconds)
        game, seconds = timed(honest.create, "diabolo")
        times.append(seconds)
        token = game["seats"][0]["token"]
        st = honest.state(game["id"], token)
        mover = game["seats"][st["to_move"]]["token"]
        times.append(timed(honest.move, game["id"], mover, honest.state(game["id"], mover)["legal_moves"][0])[1])
        (status, _), seconds = timed(honest.request, "GET", "/api/games/no-such-game?token=x")
        assert status == 404
        times.append(seconds)
        honest.request("POST", f"/api/games/{game['id']}/abandon?token={token}", {})
        time.sleep(0.2)
    running.join(60)
    assert not running.is_alive()
    # before: no answer within 120 s (a loaded machine, or the other test workers, stretch a quick answer to
    # a second or two)
    assert len(times) >= 8 and max(times) < 5.0, times
    statuses = [status for status, _ in answers]
    # one map at a time per client (429); the one run is stopped at its budget (413 naming the limit); of the other
    # addresses' maps one waits (lab_queue 1) and is stopped at its budget in turn, the other is told to come back
    # (503)
    assert 429 in statuses[:6] and set(statuses[:6]) <= {413, 429}, answers
    assert 503 in statuses[6:] and set(statuses[6:]) <= {413, 503}, answers
    assert {doc["rule"] for status, doc in answers if status == 503} == {"lab-queue-full"}
    refused = next(doc for status, doc in answers if status == 413)
    assert refused["rule"] == "lab-cpu-seconds" and "lab_cpu_seconds" in refused["error"]
    assert "too big for this server" in refused["error"]
    again, seconds = timed(Client(server.url, source=attacker).request, "GET", f"/api/lab/{labs[0]['id']}/removal")
    assert again[0] == 413 and seconds < 1.0  # known: refused at once
    # the physics ran in the heavy lane's worker, at the lowest priority, not in the server's process; the honest
    # edits' verdicts in the quick lane
    jobs = server.runner.app[_labs_key()].jobs
    assert jobs.heavy.jobs >= 1 and jobs.quick.jobs >= 1
    for pid in jobs.heavy.pids():
        assert int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[16]) == 19


def test_a_job_whose_client_went_away_is_stopped(server):
    api = Client(server.url, source=fresh())
    lab = api.request("POST", "/api/lab", {"build": column(80), "rules": "free"})[1]  # its map: seconds
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5, source_address=(fresh(), 0))
    sock.sendall(f"GET /api/lab/{lab['id']}/removal HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    heavy = server.runner.app[_labs_key()].jobs.heavy
    deadline = time.monotonic() + 30
    # the job is the client's from the moment it queues; its worker process starts a moment later
    while not (heavy.clients and heavy.pids()) and time.monotonic() < deadline:
        time.sleep(0.05)
    pids = set(heavy.pids())
    assert heavy.clients and pids  # the map is being worked out
    sock.close()  # the client hangs up: nobody waits for the map any more
    hung_up = time.monotonic()
    used = 0.0  # the CPU seconds the workers had used when last seen
    while time.monotonic() < hung_up + 30:
        alive = [s for s in map(_cpu_seconds, pids) if s is not None]
        if not alive:
            break
        used = max(used, *alive)
        time.sleep(0.05)
    assert not any(Path(f"/proc/{p}").exists() for p in pids) and not heavy.clients
    # stopped for the hang-up, not at its budget: it had used less CPU than the budget allows (CPU time, not the
    # wall clock, which a loaded machine stretches)
    assert used < 0.9 * LIMITS.lab_cpu_seconds, used


def _cpu_seconds(pid: int) -> float | None:
    """The user and system CPU seconds a live process has used, or None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _labs_key():
    from tower.app.serve.lab import LABS_KEY

    return LABS_KEY


# --- 2. lab quotas --------------------------------------------------------------------------------------------

def test_labs_of_one_address_are_bounded_their_history_too_and_idle_labs_expire(server):
    api = Client(server.url, source=fresh())
    statuses = [api.request("POST", "/api/lab", {"start": "empty"})[0] for _ in range(LIMITS.lab_burst + 2)]
    assert statuses == [201] * LIMITS.lab_burst + [429] * 2
    conn = api._connection()
    conn.request("POST", "/api/lab", body=b"{}", headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    doc = json.loads(resp.read())
    assert resp.status == 429 and doc["rule"] == "too-many-labs" and int(resp.getheader("Retry-After")) >= 1
    assert Client(server.url, source=fresh()).request("POST", "/api/lab", {})[0] == 201  # another address
    # the history of one lab: at most lab_history_bytes of it (estimated); the oldest edits are forgotten
    other = Client(server.url, source=fresh())
    small = {"format": "tower-build/1", "blocks": [{"id": f"c{i}", "origin": [0, 0, 2 * i], "size": [2, 2, 2]}
                                                   for i in range(3)]}
    lab = other.request("POST", "/api/lab", {"build": small, "rules": "free"})[1]
    block = lab["build"]["blocks"][-1]
    for k in range(30):
        x, y, z = block["origin"]
        status, _ = other.request("POST", f"/api/lab/{lab['id']}/edits",
                                  {"op": "move", "block": block["id"], "origin": [x + k % 2, y, z]})
        assert status == 200
    labs = server.runner.app[_labs_key()]
    ctl = labs.labs[lab["id"]].ctl
    assert ctl.history_bytes <= LIMITS.lab_history_bytes and 5 < len(ctl.history) < 30
    undone = 0
    while other.request("POST", f"/api/lab/{lab['id']}/undo", {})[0] == 200:
        undone += 1
    assert undone == len(ctl.history) - 1
    # a lab nobody opened for lab_idle_seconds leaves memory and the database
    labs.labs[lab["id"]].used -= LIMITS.lab_idle_seconds + 10
    labs.store.write([("UPDATE labs SET updated = updated - ? WHERE id = ?", (LIMITS.lab_idle_seconds + 10, lab["id"]))])
    labs.expire()
    labs.store.write([])  # the expiry's delete is committed before this
    assert other.request("GET", f"/api/lab/{lab['id']}")[0] == 404
    assert labs.store._rows("SELECT count(*) FROM labs WHERE id = ?", (lab["id"],))[0][0] == 0


# --- 3. connections -------------------------------------------------------------------------------------------

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


def test_connections_over_the_limit_are_closed_as_they_open_even_when_they_send_a_request(server):
    host, port = server.url.removeprefix("http://").split(":")
    source = fresh()
    socks = []
    for _ in range(LIMITS.connections_per_client + 6):
        sock = socket.create_connection((host, int(port)), timeout=5, source_address=(source, 0))
        # each sends a request at once and keeps the connection (before: the request cleared the close)
        sock.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(sock)
    time.sleep(0.5)
    over = socks[LIMITS.connections_per_client:]
    assert all(_closed_within(s, 0.5) for s in over)
    first = socks[0]
    first.settimeout(2)
    assert first.recv(65536).startswith(b"HTTP/1.1 200")
    assert not _closed_within(first, 0.05)  # the ones within the limit are served and stay open
    for s in socks:
        s.close()


def test_websocket_feeds_are_capped_per_client_and_per_seat(server):
    import aiohttp

    api = Client(server.url, source=fresh())
    game = api.create("diabolo", seats=["human"] * 3)
    seat0 = game["seats"][0]["token"]
    spectator = game["spectator_url"].split("token=")[1]
    ws_url = server.url.replace("http://", "ws://") + f"/api/games/{game['id']}/ws?token="

    async def open_feeds(source: str, tokens: list[str]) -> list:
        out: list = []
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(source, 0))) as session:
            sockets = []
            for token in tokens:
                try:
                    ws = await session.ws_connect(ws_url + token)
                    sockets.append(ws)
                    out.append((await ws.receive_json(timeout=30))["type"])
                except aiohttp.WSServerHandshakeError as exc:
                    out.append(exc.status)
            for ws in sockets:
                await ws.close()
        return out

    # per seat: websockets_per_seat pages of one seat (from anywhere), then 429
    per_seat = asyncio.run(open_feeds(fresh(), [seat0] * (LIMITS.websockets_per_seat + 1)))
    assert per_seat == ["snapshot"] * LIMITS.websockets_per_seat + [429]
    # per client: websockets_per_client feeds of one address, whichever seats, then 429
    per_client = asyncio.run(open_feeds(fresh(), [spectator] * (LIMITS.websockets_per_client + 1)))
    assert per_client == ["snapshot"] * LIMITS.websockets_per_client + [429]
    # all closed: the counts are back to zero, a feed opens again
    assert asyncio.run(open_feeds(fresh(), [seat0])) == ["snapshot"]


# --- 4. answers -------------------------------------------------------------------------------------------------

def cubes(n: int = 200) -> dict:
    """A legal start of n cubes, 10 x 10 in two layers: after `skip`, 236,496 placements."""
    return {"format": "tower-build/1", "blocks": [
        {"id": f"c{i}", "origin": [2 * (i % 10) - 10, 2 * (i // 10 % 10) - 10, 2 * (i // 100)], "size": [2, 2, 2]}
        for i in range(n)]}


def test_a_climbers_answer_lists_no_placements_and_hints_are_one_per_client(server):
    api = Client(server.url, source=fresh())
    game = api.create("climbers", seats=["human", "human"], options={"start": cubes()}, seed=1)
    token = game["seats"][0]["token"]
    api.move(game["id"], token, "skip")
    status, raw = api.raw("GET", f"/api/games/{game['id']}?token={token}")
    doc = json.loads(raw)
    assert status == 200 and len(raw) < 64 * 1024, len(raw)  # before: 8.4 MB
    assert doc["blocks"] and not any(m.startswith("block ") for m in doc["legal_moves"])
    status, raw = api.raw("GET", f"/api/games/{game['id']}/placements?token={token}&block={doc['blocks'][0]}")
    assert status == 200 and 0 < len(json.loads(raw)["placements"]) and len(raw) < LIMITS.answer_bytes
    # hints: one per client at a time; another client's hint is not queued behind them
    other = Client(server.url, source=fresh())
    diabolo = other.create("diabolo", seats=["human"] * 3)
    mover = diabolo["seats"][other.state(diabolo["id"], diabolo["seats"][0]["token"])["to_move"]]["token"]

    def honest() -> float:
        time.sleep(0.1)  # the attacker's hints are asked for first
        return timed(other.hint, diabolo["id"], mover)[1]

    attacker = fresh()
    hint = f"/api/games/{game['id']}/hint?token={token}"
    answers = in_threads([lambda: Client(server.url, source=attacker).request("GET", hint)] * 8 + [honest])
    statuses = [status for status, _ in answers[:-1]]
    assert 429 in statuses and set(statuses) <= {200, 429}, statuses
    assert all(doc["rule"] == "hint-running" for status, doc in answers[:-1] if status == 429)
    assert answers[-1] < 5.0, answers[-1]  # before: 14.8 s behind sixteen hints


def test_an_answer_over_answer_bytes_is_refused_and_logged(tmp_path, caplog):
    with ServerThread(str(tmp_path / "g.sqlite"), ai_pause=0, workers=1, limits=Limits(answer_bytes=1000)) as srv:
        api = Client(srv.url, source=fresh())
        status, doc = api.request("GET", "/api/catalogue")
        assert status == 500 and doc["rule"] == "answer-too-large" and "answer_bytes" in doc["error"]
        assert api.request("GET", "/api/lab/nope")[0] == 404  # small answers go out as ever
    assert any("answer_bytes" in r.getMessage() for r in caplog.records)


def test_no_lab_worker_outlives_its_server(tmp_path):
    import os

    with ServerThread(str(tmp_path / "g.sqlite"), ai_pause=0, workers=1, limits=LIMITS) as srv:
        api = Client(srv.url, source=fresh())
        lab = api.request("POST", "/api/lab", {"start": "random"})[1]
        assert api.request("GET", f"/api/lab/{lab['id']}/forces")[0] == 200  # the heavy lane's worker
        jobs = srv.runner.app[_labs_key()].jobs
        pids = set(jobs.quick.pids() + jobs.heavy.pids())
        assert len(pids) == 2 and pids <= descendants(os.getpid())
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{p}").exists() for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{p}").exists() for p in pids)


def test_an_edit_whose_verdict_the_workers_refuse_changes_nothing(tmp_path):
    from tower.app import stability
    from tower.app.serve.errors import Refused
    from tower.app.serve.lab import Labs
    from tower.app.serve.store import Store

    class Refusing:
        """Lab jobs whose verdict of a build of more than three blocks is over budget."""

        def physics(self, _asker, *_where):
            return self

        def start(self) -> None:
            pass

        def judge_build(self, build, statics_only=False, engine="pybullet"):
            if len(build.blocks) > 3:
                raise Refused(413, "lab-cpu-seconds", "this build is too big for this server")
            return stability.judge_build(build, statics_only, engine)

    async def scenario() -> None:
        store = Store(tmp_path / "g.sqlite")
        labs = Labs(store, LIMITS, Refusing())
        try:
            made = await labs.create({"build": column(3), "rules": "free"})
            with pytest.raises(Refused) as refused:
                await labs.change(made["id"], "edit", {"op": "add", "kind": "half-cube", "origin": [0, 0, 3]})
            assert refused.value.status == 413
            state = await labs.state(made["id"])
            assert state["edits"] == 0 and not state["can_undo"] and len(state["build"]["blocks"]) == 3
            with pytest.raises(Refused):  # nor is a new lab of such a build made
                await labs.create({"build": column(4), "rules": "free"})
        finally:
            labs.close()
            store.close()
        store = Store(tmp_path / "g.sqlite")
        try:
            rows = store._rows("SELECT build FROM labs")
            assert [len(json.loads(b)["blocks"]) for (b,) in rows] == [3]  # the stored build is the one before
        finally:
            store.close()

    asyncio.run(scenario())

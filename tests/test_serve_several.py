"""Several `tower serve` processes on one PostgreSQL database (docs/serve.md, "Several processes"): any process
serves any game; a feed on each process receives every move, in order, whichever process it was made on; two
identical moves sent to two processes at the same instant are applied once; a process killed with SIGKILL in the
middle of a game loses no acknowledged move and its AI seats go on in another process; a lab opened on one is
edited on the other; a seat's name set on one is shown and heard on the other, and a rematch asked on both at the
same instant is one game; a database of schema 1 is upgraded on open. Each server is a `tower serve` process of its own, on a database of the session's throwaway
cluster (tests/pg_support.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tower.app.serve.client import ApiError, Client
from tower.games import load_record, new_game

#: The functional tests' room for one client (tests/serve_support.py), and a short AI lease so a killed process's
#: AI seats are taken over within seconds.
LIMITS = ["game_burst=100000", "server_games_per_minute=1e9", "running_games_per_client=100000",
          "request_burst=1000000", "requests_per_second=100000", "lab_burst=100000", "labs_per_client=100000",
          "server_labs_per_minute=1e9", "ai_lease_seconds=1.5"]


def start(db: str) -> tuple[subprocess.Popen, str]:
    """`tower serve --db URL` in a process of its own; (the process, its base URL) once it listens."""
    args = [sys.executable, "-m", "tower", "serve", "--db", db, "--port", "0", "--ai-pause", "0", "--workers", "1"]
    for limit in LIMITS:
        args += ["--limit", limit]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "lobby is at http://127.0.0.1:" in line, line + proc.stderr.read()
    return proc, line.split("lobby is at ")[1].split("/ ")[0]


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for pipe in (proc.stdout, proc.stderr):
        if pipe:
            pipe.close()


pair_db: list[str] = []  # the pair's database


@pytest.fixture(scope="module")
def pair(pg_cluster):
    db = pg_cluster.database()
    pair_db[:] = [db]
    procs = [start(db), start(db)]
    yield [Client(url, timeout=20) for _p, url in procs], [url for _p, url in procs]
    for proc, _url in procs:
        stop(proc)


def listen(url: str, until, out: list) -> threading.Thread:
    """A page's feed: every message kept in `out` until `until(out)` (or 60 s)."""
    async def run() -> None:
        import aiohttp

        async with aiohttp.ClientSession() as session, session.ws_connect(url, heartbeat=None) as ws:
            deadline = time.monotonic() + 60
            while not until(out) and time.monotonic() < deadline:
                try:
                    msg = await ws.receive(timeout=1)
                except TimeoutError:
                    continue
                if msg.type.name != "TEXT":
                    return
                out.append((time.monotonic(), json.loads(msg.data)))

    thread = threading.Thread(target=lambda: asyncio.run(run()), daemon=True)
    thread.start()
    return thread


def tokens_of(g: dict) -> dict[int, str]:
    return {s["seat"]: s["token"] for s in g["seats"]}


def test_moves_posted_to_either_process_reach_the_feeds_of_both_in_order(pair):
    (a, b), urls = pair
    g = a.create("diabolo", seats=["human"] * 3, seed=12)
    gid, tokens = g["id"], tokens_of(g)
    watch = g["spectator_url"].split("token=")[1]
    count = 40
    feeds: list[list] = [[], []]

    def moved(box: list) -> bool:
        return sum(1 for _t, m in box if m["event"] and m["event"]["kind"] == "move") >= count

    threads = [listen(url.replace("http", "ws") + f"/api/games/{gid}/ws?token={watch}", moved, box)
               for url, box in zip(urls, feeds, strict=True)]
    deadline = time.monotonic() + 30
    while not all(feeds):  # both feeds opened (their first snapshot arrived)
        assert time.monotonic() < deadline
        time.sleep(0.02)
    truth = new_game("diabolo", 3, 12)
    played = []  # (player, the move as a spectator is told it)
    for i in range(count):
        api = (a, b)[i % 2]
        p = truth.current_player
        move = api.state(gid, tokens[p])["legal_moves"][-1]
        assert api.move(gid, tokens[p], move)["n"] == i + 1
        played.append((p, truth.public_move(truth.move_type.parse(move, truth), p)))
        truth.apply_text(move)
    for t in threads:
        t.join(60)
    for box in feeds:
        events = [m["event"] for _t, m in box if m["event"]]
        assert [e["n"] for e in events] == list(range(1, count + 1))  # every move once, in order
        assert [(e["player"], e["text"]) for e in events] == played
        assert box[-1][1]["snapshot"]["n"] == count
    final = [a.state(gid, tokens[0]), b.state(gid, tokens[0])]
    assert final[0] == final[1] and final[0]["view"] == json.loads(json.dumps(truth.view(0)))


def at_once(*calls) -> list:
    """Each call (a function of nothing) in a thread of its own, all at the same instant (a barrier); their
    answers."""
    gate = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def run(k: int) -> None:
        gate.wait()
        answers[k] = calls[k]()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return answers


def race(apis: tuple[Client, ...], path: str, body: dict) -> list:
    """The same POST sent to each server at the same instant; the answers."""
    return at_once(*(lambda api=api: api.request("POST", path, body) for api in apis))


def test_identical_moves_sent_to_both_processes_at_once_are_applied_once(pair):
    (a, b), _urls = pair
    pairs, applied, refused = 0, 0, 0
    while pairs < 200:
        seed = 40 + pairs
        g = a.create("diabolo", seats=["human"] * 3, seed=seed)
        gid, tokens = g["id"], tokens_of(g)
        truth = new_game("diabolo", 3, seed)
        accepted: list[str] = []
        while pairs < 200 and not truth.is_over:
            p = truth.current_player
            legal = truth.legal_moves()
            move = str(legal[pairs % len(legal)])
            after = truth.clone()
            after.apply_text(move)
            # without `n` where the same request cannot be legal twice (the seat to move changes); with it
            # otherwise, as a client retrying does
            body: dict = {"move": move} | ({"n": len(accepted)} if after.current_player == p else {})
            answers = race((a, b), f"/api/games/{gid}/moves?token={tokens[p]}", body)
            codes = sorted(code for code, _data in answers)
            assert codes == [200, 409], answers
            applied += 1
            refused += 1
            truth.apply_text(move)
            accepted.append(move)
            pairs += 1
        stored = b.state(gid, tokens[0])
        assert stored["n"] == len(accepted)  # each applied exactly once, on whichever process answered 200
        if truth.is_over:
            assert b.record(gid)["moves"] == accepted
    assert applied == refused == 200


def test_a_process_killed_mid_game_loses_nothing_and_its_ai_goes_on_in_the_other(pg_cluster):
    db = pg_cluster.database()
    (pa, ua), (pb, ub) = start(db), start(db)
    try:
        a, b = Client(ua, timeout=20), Client(ub, timeout=20)
        g = a.create("diabolo", seats=["human", "ai:random", "ai:random"], seed=7)
        gid, token = g["id"], g["seats"][0]["token"]
        acknowledged: list[tuple[int, str]] = []
        killed = False
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "the game did not end"
            api = a if not killed else b
            try:
                st = api.state(gid, token)
            except (OSError, ApiError):
                continue
            if st["over"]:
                break
            if not st["legal_moves"]:
                time.sleep(0.02)
                continue
            move = st["legal_moves"][0]
            try:
                answer = api.move(gid, token, move, n=st["n"])
            except ApiError as exc:
                assert exc.status == 409, exc  # the AI moved meanwhile
                continue
            acknowledged.append((answer["n"] - 1, move))
            if len(acknowledged) == 6 and not killed:
                # process A made the last move, so it drives the AI seats now: SIGKILL, mid-game
                os.kill(pa.pid, signal.SIGKILL)
                pa.wait(10)
                killed, at = True, answer["n"]
        ours_after = sum(1 for n, _m in acknowledged if n >= at)
        assert st["n"] - at > ours_after  # the AI seats moved after A was gone: B took their lease over
        record = b.record(gid)
        for n, move in acknowledged:  # nothing acknowledged lost, nothing applied twice
            assert record["moves"][n] == move
        final = load_record(record)
        assert final.is_over and len(final.history) == st["n"]
    finally:
        stop(pa)
        stop(pb)


def test_a_lab_opened_on_one_process_is_edited_on_the_other(pair):
    (a, b), _urls = pair
    code, lab = a.request("POST", "/api/lab", {"start": "empty"})
    assert code == 201
    path = f"/api/lab/{lab['id']}"
    code, s = b.request("POST", f"{path}/edits", {"op": "add", "kind": "cube", "origin": [0, 0, 0]})
    assert code == 200 and len(s["build"]["blocks"]) == 1
    code, s = a.request("POST", f"{path}/edits", {"op": "add", "kind": "cube", "origin": [0, 0, 2]})
    assert code == 200 and len(s["build"]["blocks"]) == 2  # A's copy was brought up to B's edit first
    for api in (a, b):
        code, now = api.request("GET", path)
        assert code == 200 and now["build"] == s["build"]


def test_the_rates_of_new_games_hold_across_processes(pg_cluster):
    """A client's allowance of new games (and the server-wide one) is one bucket in the database, whichever
    process it asks."""
    from tower.app.serve.pgstore import PgStore

    db = pg_cluster.database()
    stores = [PgStore(db), PgStore(db)]
    try:
        buckets = [store.bucket("games", 1 / 3600, 3) for store in stores]
        waits = [buckets[k % 2].take("client") for k in range(5)]
        assert [w == 0 for w in waits] == [True, True, True, False, False] and waits[-1] > 3000
        assert buckets[1].used("client") == pytest.approx(3, abs=0.01)
        assert buckets[1].take("another client") == 0
        buckets[0].give("client")  # a refused creation gives its token back, for every process
        assert buckets[1].take("client") == 0
        quick = stores[0].bucket("labs", 1000.0, 2)
        quick.take("client")
        time.sleep(0.01)
        buckets[0].forget()  # only the rows of buckets full again go
        quick.forget()
        assert buckets[1].used("client") == pytest.approx(3, abs=0.01)
        assert stores[1]._rows("SELECT name FROM buckets WHERE key = 'client'") == [("games",)]
    finally:
        for store in stores:
            store.close()


def test_the_operators_tools_take_the_url_and_a_bad_one_is_one_line(pair, tower_cli):
    (a, _b), _urls = pair
    g = a.create("diabolo", seats=["human"] * 3, seed=3)
    db = pair_db[0]
    listed = tower_cli(["serve", "--db", db, "--list-games"], timeout=60)
    assert listed.returncode == 0 and g["id"] in listed.stdout
    gone = tower_cli(["serve", "--db", db, "--delete-game", g["id"]], timeout=60)
    assert gone.returncode == 0  # and gone from the processes too, which held it in memory
    assert a.request("GET", f"/api/games/{g['id']}?token={g['seats'][0]['token']}")[0] == 404
    out = tower_cli(["serve", "--db", "postgresql://bob:secret@/nodb?host=/nonexistent", "--port", "0"], timeout=60)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "database" in out.stderr
    assert "secret" not in out.stderr and "Traceback" not in out.stderr  # the password is never printed


def test_a_take_back_and_an_abandon_on_one_process_reach_the_other_and_its_pages(pair):
    (a, b), urls = pair
    g = a.create("climbers", seats=["human", "human"], seed=2)
    gid, t0 = g["id"], g["seats"][0]["token"]
    first = a.state(gid, t0)
    feed: list = []

    def told(box: list) -> bool:
        return any(m["event"] and m["event"]["kind"] == "abandon" for _t, m in box)

    thread = listen(urls[0].replace("http", "ws") + f"/api/games/{gid}/ws?token={t0}", told, feed)
    deadline = time.monotonic() + 30
    while not feed:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    b.move(gid, t0, first["legal_moves"][0])
    assert b.undo(gid, t0)["n"] == 0  # taken back on B
    assert a.state(gid, t0)["view"] == first["view"]  # A replays the stored game, not its own copy
    assert b.request("POST", f"/api/games/{gid}/abandon?token={t0}", {})[0] == 200
    thread.join(60)
    kinds = [m["event"]["kind"] for _t, m in feed if m["event"]]
    assert kinds == ["move", "undo", "abandon"]  # A's page heard each, in order
    assert feed[-1][1]["snapshot"]["over"] and a.state(gid, t0)["abandoned"]


def opened(url: str, until, box: list) -> threading.Thread:
    """`listen`, once the feed's first snapshot arrived."""
    thread = listen(url, until, box)
    deadline = time.monotonic() + 30
    while not box:
        assert time.monotonic() < deadline, "the feed did not open"
        time.sleep(0.02)
    return thread


def test_a_seats_name_set_on_one_process_is_shown_and_heard_on_the_other(pair):
    (a, b), urls = pair
    g = a.create("diabolo", seats=["human"] * 3, seed=5)
    gid, tokens = g["id"], tokens_of(g)
    b.state(gid, tokens[1])  # B holds a copy of the game before the name is set
    feed: list = []

    def named(box: list) -> bool:
        return any(m["event"] and m["event"]["kind"] == "name" for _t, m in box)

    thread = opened(urls[1].replace("http", "ws") + f"/api/games/{gid}/ws?token={tokens[1]}", named, feed)
    code, answer = a.request("POST", f"/api/games/{gid}/name?token={tokens[0]}", {"name": "Ada"})
    assert code == 200 and answer == {"seat": 0, "name": "Ada"}
    code, snap = b.request("GET", f"/api/games/{gid}/snapshot?token={tokens[1]}")
    assert code == 200 and snap["players"][0]["name"] == "Ada" and snap["players"][0]["label"].endswith("(Ada)")
    thread.join(60)
    event, heard = next((m["event"], m["snapshot"]) for _t, m in feed if m["event"])
    assert event["kind"] == "name" and event["player"] == 0  # B's page heard it, as a name set on B is told
    assert heard["players"][0]["name"] == "Ada"
    # two seats naming themselves on the two processes at the same instant: both names kept, on both
    answers = at_once(lambda: a.request("POST", f"/api/games/{gid}/name?token={tokens[1]}", {"name": "Bob"}),
                      lambda: b.request("POST", f"/api/games/{gid}/name?token={tokens[2]}", {"name": "Cy"}))
    assert [code for code, _data in answers] == [200, 200], answers
    for api in (a, b):
        players = api.request("GET", f"/api/games/{gid}/snapshot?token={tokens[0]}")[1]["players"]
        assert [p["name"] for p in players] == ["Ada", "Bob", "Cy"]
    assert b.request("POST", f"/api/games/{gid}/name?token={tokens[0]}", {"name": ""})[1]["name"] == ""
    players = a.request("GET", f"/api/games/{gid}/snapshot?token={tokens[2]}")[1]["players"]
    assert [p["name"] for p in players] == ["", "Bob", "Cy"]  # cleared on B, so on A too


def stored_text(db: str, sql: str) -> str:
    """What a query of the database answers, as text."""
    import psycopg

    with psycopg.connect(db) as conn:
        return " ".join(str(r) for r in conn.execute(sql).fetchall())


def games_stored(db: str) -> int:
    return int(stored_text(db, "SELECT COUNT(*) FROM games").strip("(,)"))


def test_a_rematch_asked_on_both_processes_at_once_is_made_once(pair):
    (a, b), urls = pair
    for seed in (21, 22):
        g = a.create("diabolo", seats=["human"] * 3, seed=seed)
        gid, tokens = g["id"], tokens_of(g)
        watch = g["spectator_url"].split("token=")[1]
        k = 0
        while not (st := (a, b)[k % 2].state(gid, tokens[0]))["over"]:
            p = st["to_move"]
            (a, b)[k % 2].move(gid, tokens[p], (a, b)[k % 2].state(gid, tokens[p])["legal_moves"][-1])
            k += 1
        feeds: list[list] = [[], []]

        def told(box: list) -> bool:
            return any(m["event"] and m["event"]["kind"] == "rematch" for _t, m in box)

        threads = [opened(url.replace("http", "ws") + f"/api/games/{gid}/ws?token={tokens[2]}", told, box)
                   for url, box in zip(urls, feeds, strict=True)]
        before = games_stored(pair_db[0])
        asks = [(a, f"/api/games/{gid}/rematch?token={tokens[0]}"), (b, f"/api/games/{gid}/rematch?token={tokens[1]}")]
        answers = at_once(*(lambda api=api, path=path: api.request("POST", path, {}) for api, path in asks))
        assert [code for code, _data in answers] == [201, 201], answers
        (_c, first), (_c2, second) = answers
        assert first["id"] == second["id"]  # one rematch, whichever process made it
        assert first["url"] != second["url"] and all(first["id"] in x["url"] for x in (first, second))
        assert games_stored(pair_db[0]) == before + 1
        kept = stored_text(pair_db[0], "SELECT g.rematch, t.hash FROM games g JOIN tokens t ON t.game_id = g.id")
        assert not any(t in kept for t in tokens.values())  # the database gives nobody a seat: hashes only
        again = [api.request("POST", f"/api/games/{gid}/rematch?token={tokens[0]}", {})[1] for api in (a, b)]
        assert again == [first, first]  # asked again on either: the stored links
        for api in (a, b):
            assert api.request("GET", f"/api/games/{gid}/snapshot?token={tokens[1]}")[1]["rematch"] == second["url"]
            spectator = api.request("GET", f"/api/games/{gid}/snapshot?token={watch}")[1]["rematch"]
            assert first["id"] in spectator and spectator not in (first["url"], second["url"])
        for t in threads:
            t.join(60)
        for box in feeds:  # a page on each process heard it once, with its own seat's link
            heard = [m["snapshot"]["rematch"] for _t, m in box if m["event"] and m["event"]["kind"] == "rematch"]
            assert len(heard) == 1 and first["id"] in heard[0] and heard[0] not in (first["url"], second["url"])
            assert b.state(first["id"], heard[0].split("token=")[1])["seat"] == 2  # the link opens its seat
        new = a.state(first["id"], first["url"].split("token=")[1])
        assert new["n"] == 0 and not new["over"] and new["seat"] == 0
        assert games_stored(pair_db[0]) == before + 1


def test_a_database_of_schema_1_is_upgraded_on_open_and_keeps_its_games(pg_cluster):
    """A database made by a server from before `games.names` and `games.rematch` gains them when a process opens
    it (its games kept, their names empty, no rematch); the processes starting at once upgrade it once."""
    import psycopg

    from tower.app.serve.pgstore import MIGRATIONS, SCHEMA_VERSION, PgStore
    from tower.app.serve.store import Store

    db = pg_cluster.database()
    with psycopg.connect(db, autocommit=True) as conn:
        for sql in MIGRATIONS[0]:
            conn.execute(sql)
        conn.execute("INSERT INTO meta VALUES ('schema', '1'), ('client_salt', 'x')")
        conn.execute("INSERT INTO games (id, game, players, seed, options, seats, created, updated) VALUES "
                     "('old', 'diabolo', 3, 4, '{}', '[\"human\", \"human\", \"human\"]', 0, 0)")
    stores: list = [None, None]

    def open_store(k: int) -> None:
        stores[k] = PgStore(db)

    threads = [threading.Thread(target=open_store, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        row = stores[0].game("old")
        assert (row.game, row.names, row.rematch) == ("diabolo", {}, None)
        assert stores[0]._rows("SELECT value FROM meta WHERE key = 'schema'") == [(str(SCHEMA_VERSION),)]
        stores[0].write(Store.names_ops("old", {1: "Bob"}))
        assert stores[1].game("old").names == {1: "Bob"}
    finally:
        for store in stores:
            if store is not None:
                store.close()

"""The database under `tower serve` misbehaving: held locked by another process, damaged on disk, holding a move
that no longer replays (docs/serve.md, "Every game lives in SQLite"). The server answers at once, changes nothing
it could not save, refuses a damaged file with one line, and tells nobody but the game's own links about a
damaged game, without its moves."""

from __future__ import annotations

import sqlite3
import threading
import time

from tower.app.serve.client import ApiError, Client
from tower.app.serve.limits import Limits
from tower.app.serve.run import ServerThread
from tower.app.serve.store import token_hash

LIMITS = Limits(db_lock_seconds=0.5)


def _hold_lock(db, seconds: float, held: threading.Event) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    held.set()
    time.sleep(seconds)
    conn.execute("ROLLBACK")
    conn.close()


def test_a_lock_held_by_another_process_is_a_503_for_the_whole_batch_and_changes_nothing(tmp_path):
    db = str(tmp_path / "g.sqlite")
    with ServerThread(db, ai_pause=0, workers=1, limits=LIMITS) as srv:
        api = Client(srv.url, timeout=10)
        games = [api.create("diabolo", seats=["human"] * 3, seed=k) for k in range(3)]
        before = [api.state(g["id"], g["seats"][0]["token"]) for g in games]
        held = threading.Event()
        locker = threading.Thread(target=_hold_lock, args=(db, 3.0, held))
        locker.start()
        held.wait(5)
        answers: list[tuple[int, float]] = []

        def move(g, st) -> None:
            t = time.perf_counter()
            p = st["to_move"]
            mine = Client(srv.url, timeout=10).state(g["id"], g["seats"][p]["token"])
            status, _ = Client(srv.url, timeout=10).request(
                "POST", f"/api/games/{g['id']}/moves?token={g['seats'][p]['token']}",
                {"move": mine["legal_moves"][0], "n": mine["n"]})
            answers.append((status, time.perf_counter() - t))

        movers = [threading.Thread(target=move, args=(g, st)) for g, st in zip(games, before, strict=True)]
        for t in movers:
            t.start()
        for t in movers:
            t.join(10)
        created = api.request("POST", "/api/games", {"game": "diabolo"})[0]
        assert [s for s, _ in answers] == [503, 503, 503] and max(s for _, s in answers) < 2.5, answers
        assert created == 503
        # meanwhile and afterwards each game is as it was, and answers at once
        for g, st in zip(games, before, strict=True):
            assert api.state(g["id"], g["seats"][0]["token"])["n"] == st["n"]
        locker.join(10)
        for g, st in zip(games, before, strict=True):  # the lock is gone: the same move is made now
            p = st["to_move"]
            mine = api.state(g["id"], g["seats"][p]["token"])
            assert api.move(g["id"], g["seats"][p]["token"], mine["legal_moves"][0], n=mine["n"])["n"] == st["n"] + 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 3


def test_a_damaged_database_is_refused_at_start_with_one_line(tmp_path, tower_cli):
    db = tmp_path / "g.sqlite"
    with ServerThread(str(db), ai_pause=0, workers=1) as srv:
        api = Client(srv.url)
        for k in range(8):
            api.create("diabolo", seats=["human"] * 3, seed=k)
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    assert len(data) >= 3 * page
    data[page + 100: 2 * page] = b"\xa5" * (page - 100)  # a damaged page
    db.write_bytes(bytes(data))
    out = tower_cli(["serve", "--db", str(db), "--port", "0"], timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "damaged" in out.stderr and "Traceback" not in out.stderr
    assert "lobby is at" not in out.stdout


def test_a_stored_move_that_no_longer_replays_is_told_only_to_the_games_links_without_its_text(tmp_path):
    db = str(tmp_path / "g.sqlite")
    with ServerThread(db, ai_pause=0, workers=1) as srv:
        api = Client(srv.url)
        game = api.create("partners", seats=["human"] * 4, seed=3)
        tokens = {s["seat"]: s["token"] for s in game["seats"]}
        for _ in range(3):
            st = api.state(game["id"], tokens[0])
            p = st["to_move"]
            mine = api.state(game["id"], tokens[p])
            api.move(game["id"], tokens[p], mine["legal_moves"][0], n=mine["n"])
    secret = "pass 13 SECRET-CARD"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE moves SET text = ? WHERE game_id = ? AND n = 1", (secret, game["id"]))
    with ServerThread(db, ai_pause=0, workers=1) as srv:
        api = Client(srv.url)
        status, doc = api.request("GET", f"/api/games/{game['id']}?token=not-a-token")
        assert status == 403, doc  # a stranger learns nothing, not even that the game is damaged
        status, doc = api.request("GET", f"/api/games/{game['id']}?token={tokens[0]}")
        assert status == 500 and doc["rule"] == "damaged-game" and "SECRET" not in str(doc), doc
        status, doc = api.request("GET", f"/api/games/{game['id']}/record")
        assert status == 500 and "SECRET" not in str(doc), doc
        other = api.create("diabolo", seats=["human"] * 3)  # the server serves the other games
        assert api.state(other["id"], other["seats"][0]["token"])["n"] == 0
        try:
            api.state(game["id"], tokens[1])
        except ApiError as exc:
            assert exc.status == 500


def test_the_operator_lists_and_deletes_games_and_bad_limits_are_refused_with_one_line(tmp_path, tower_cli):
    db = tmp_path / "g.sqlite"
    with ServerThread(str(db), ai_pause=0, workers=1) as srv:
        api = Client(srv.url)
        games = [api.create("diabolo", seats=["human"] * 3, seed=k) for k in range(2)]
        api.abandon(games[1]["id"], games[1]["seats"][0]["token"])
    out = tower_cli(["serve", "--db", str(db), "--list-games"], timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [g["id"] for g in games]
    assert "running" in lines[0] and "abandoned" in lines[1]
    out = tower_cli(["serve", "--db", str(db), "--delete-game", games[0]["id"]], timeout=60)
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(db) as conn:
        for table in ("games", "tokens", "moves"):
            column = "id" if table == "games" else "game_id"
            assert conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (games[0]["id"],)).fetchone() \
                == (0,)
    for args, words in ((["--delete-game", "nope"], "no game"), (["--limit", "bogus=1"], "--limit"),
                        (["--limit", "games_per_minute=lots"], "games_per_minute")):
        out = tower_cli(["serve", "--db", str(db), "--port", "0", *args], timeout=60)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and words in out.stderr, out.stderr


def test_ids_never_start_with_a_dash_so_an_operator_can_type_them_after_an_option():
    # one url-safe id in 64 would start with '-' (then `--delete-game -Fj...` reads as two options)
    from tower.app.serve.store import new_id

    ids = [new_id(9) for _ in range(3000)]
    assert not any(i.startswith("-") for i in ids) and len(set(ids)) == len(ids)
    assert all(len(i) == 12 for i in ids)


def test_an_older_file_opens_and_names_and_the_rematch_are_kept_across_a_restart(tmp_path):
    """A file of a server from before `games.names` and `games.rematch` (its schema as that server made it) opens
    with its game; a seat's name and a rematch are then stored with the game: a restarted server shows the same
    names and hands out the same rematch, and makes no second one."""
    db = str(tmp_path / "old.sqlite")
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO meta VALUES ('schema', '1');
            CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL,
                seed INTEGER NOT NULL, options TEXT NOT NULL, seats TEXT NOT NULL, created REAL NOT NULL,
                over INTEGER NOT NULL DEFAULT 0, client TEXT NOT NULL DEFAULT '', updated REAL);
            CREATE TABLE tokens (hash TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER);
            CREATE TABLE moves (game_id TEXT NOT NULL REFERENCES games(id), n INTEGER NOT NULL,
                player INTEGER NOT NULL, text TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (game_id, n));
        """)
        conn.execute("INSERT INTO games VALUES ('old', 'diabolo', 3, 4, '{}', '[\"human\",\"human\",\"human\"]', "
                     "0, 0, '', ?)", (time.time(),))
        conn.executemany("INSERT INTO tokens VALUES (?, 'old', ?)",
                         [(token_hash(f"seat-{p}"), p) for p in range(3)] + [(token_hash("watch"), None)])
    with ServerThread(db, ai_pause=0, workers=1) as srv:
        api = Client(srv.url)
        assert api.state("old", "seat-0")["n"] == 0  # the older file's game, as it was
        assert api.request("POST", "/api/games/old/name?token=seat-1", {"name": "Bob"})[0] == 200
        k = 0
        while not (st := api.state("old", "seat-0"))["over"]:
            api.move("old", f"seat-{st['to_move']}", api.state("old", f"seat-{st['to_move']}")["legal_moves"][-1])
            k += 1
        status, first = api.request("POST", "/api/games/old/rematch?token=seat-0", {})
        assert status == 201
    with sqlite3.connect(db) as conn:
        count = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        kept = " ".join(str(r) for r in conn.execute("SELECT g.rematch, t.hash FROM games g JOIN tokens t ON "
                                                      "t.game_id = g.id"))
    assert count == 2 and "seat-" not in kept  # the file still gives nobody a seat: hashes only
    with ServerThread(db, ai_pause=0, workers=1) as srv:
        api = Client(srv.url)
        snap = api.request("GET", "/api/games/old/snapshot?token=seat-2")[1]
        assert [p["name"] for p in snap["players"]] == ["", "Bob", ""] and snap["players"][1]["label"].endswith("(Bob)")
        assert snap["rematch"] and first["id"] in snap["rematch"] and snap["rematch"] != first["url"]
        assert api.request("POST", "/api/games/old/rematch?token=seat-0", {}) == (201, first)
        assert api.state(first["id"], first["url"].split("token=")[1])["n"] == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2  # no second rematch

"""Every game lives in SQLite: a server killed with SIGKILL in the middle of play comes back with every game as it
was (each answered move kept), its AI seats play on without a visit, and `tower serve` refuses bad options
with one line."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

from tower.app.serve.client import ApiError, Client  # noqa: E402
from tower.games import new_game  # noqa: E402


def start(db, port: int = 0) -> tuple[subprocess.Popen, str]:
    """`tower serve` in a process of its own; (the process, its base URL) once it listens."""
    proc = subprocess.Popen([sys.executable, "-m", "tower", "serve", "--db", str(db), "--port", str(port),
                             "--ai-pause", "0", "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "lobby is at http://127.0.0.1:" in line, line + proc.stderr.read()
    return proc, line.split("lobby is at ")[1].split("/ ")[0]


def bot(url: str, game_id: str, tokens: dict[int, str], answered: list, stop: threading.Event, seed: int,
        seconds: float = 120) -> None:
    """Plays every human seat of a game with random legal moves, noting each move the server answered 200; gives
    up after `seconds` (a refusing server fails the test instead of hanging it)."""
    api, rng = Client(url, timeout=10), random.Random(seed)
    deadline = time.monotonic() + seconds
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            st = api.state(game_id, tokens[next(iter(tokens))])
            if st["over"]:
                return
            p = st["to_move"]
            if p not in tokens:
                time.sleep(0.01)
                continue
            mine = api.state(game_id, tokens[p])
            text = api.random_move(game_id, tokens[p], rng, mine)
            api.move(game_id, tokens[p], text, n=mine["n"])
            answered.append((mine["n"], text))
        except (OSError, ApiError):  # the server is gone (killed), or the game moved on
            if stop.is_set():
                return
            time.sleep(0.02)


def stored(db, game_id: str) -> list[str]:
    from tower.app.serve.stores import open_store

    store = open_store(str(db), check=False)
    try:
        return [text for _player, text in store.moves(game_id)]
    finally:
        store.close()


def test_a_killed_server_resumes_every_game_exactly(serve_db):
    """On SQLite and on PostgreSQL (`serve_db`)."""
    db = serve_db
    proc, url = start(db)
    api = Client(url)
    specs = [("diabolo", ["human"] * 3, 1), ("partners", ["human"] * 4, 2), ("seventh-heaven", ["human"] * 3, 3),
             ("climbers", ["human", "human"], 4), ("diabolo", ["human", "human", "ai:greedy"], 5)]
    games = []
    for game, seats, seed in specs:
        g = api.create(game, seats=seats, seed=seed)
        games.append((g, game, len(seats), seed, {s["seat"]: s["token"] for s in g["seats"]}, []))
    # search players think a while per move, so this game is still going at the kill whatever the machine's speed
    ai_only = api.create("diabolo", seats=["ai:mcts:time=0.3"] * 3, seed=6)
    stop = threading.Event()
    threads = [threading.Thread(target=bot, args=(url, g["id"], tokens, answered, stop, seed), daemon=True)
               for g, _, _, seed, tokens, answered in games]
    for t in threads:
        t.start()
    time.sleep(random.Random(os.getpid()).uniform(1.5, 3.0))  # mid-play: moves in flight at the kill
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    stop.set()
    for t in threads:
        t.join(15)
    assert sum(len(g[5]) for g in games) > 20, "the bots hardly played before the kill"
    for g, game, players, _seed, tokens, answered in games:
        moves = stored(db, g["id"])
        # every move whose answer was sent is in the database, at its place
        for n, text in answered:
            assert n < len(moves) and moves[n] == text, (game, n, text)
        if len(tokens) == players:  # all seats human: at most the move in flight at the kill was kept unanswered
            unanswered = set(range(len(moves))) - {n for n, _ in answered}
            assert unanswered <= {len(moves) - 1}, (game, unanswered)
    after_kill = {g["id"]: stored(db, g["id"]) for g, *_ in games}
    ai_moves = len(stored(db, ai_only["id"]))
    assert ai_moves < 40, "the AI game ran too far before the kill to show it resumes"

    proc, url = start(db)
    try:
        api = Client(url)
        for g, game, players, seed, tokens, _ in games:
            kept = after_kill[g["id"]]
            for seat, token in tokens.items():
                answer = api.state(g["id"], token)
                if len(tokens) == players:
                    assert answer["n"] == len(kept)
                    texts = kept
                else:  # an AI seat whose turn came at the kill takes it once the server is back
                    texts = stored(db, g["id"])[:answer["n"]]
                    assert answer["n"] >= len(kept) and texts[:len(kept)] == kept
                state = new_game(game, players, seed)
                for text in texts:
                    state.apply_text(text)
                assert answer["view"] == json.loads(json.dumps(state.view(seat)))
        # the AI-only game plays on by itself after the restart
        deadline = time.time() + 30
        watch = ai_only["spectator_url"].split("token=")[1]
        while api.state(ai_only["id"], watch)["n"] <= ai_moves:
            assert time.time() < deadline, "the AI game did not resume"
            time.sleep(0.1)
        # and the human games can be played on to the end
        g, game, players, seed, tokens, _ = games[0]
        done: list = []
        bot(url, g["id"], tokens, done, threading.Event(), 99)
        assert api.state(g["id"], tokens[0])["over"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)


def test_tower_serve_refuses_bad_options_with_one_line(tmp_path, tower_cli):
    for args, words in ((["--port", "70000"], "--port"), (["--workers", "0"], "--workers"),
                        (["--db", str(tmp_path / "no" / "such" / "dir" / "g.sqlite")], "database")):
        out = tower_cli(["serve", *args], timeout=60)
        assert out.returncode == 2, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and words in out.stderr and "Traceback" not in out.stderr


def test_sigterm_stops_the_server_cleanly(tmp_path):
    proc, url = start(tmp_path / "g.sqlite")
    Client(url).create("diabolo", seats=["human"] * 3)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(20) == 0

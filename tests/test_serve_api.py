"""The HTTP API of `tower serve` as docs/serve.md states it: what each answer holds, the status of every refusal,
nothing changed by a refused request, the undo rule, hints, the live feed, AI seats in the worker pool."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from serve_support import ROOMY  # noqa: E402

from tower.app.serve.client import ApiError, Client  # noqa: E402
from tower.app.serve.run import ServerThread  # noqa: E402
from tower.app.stability import statics_stands  # noqa: E402
from tower.games import load_record, new_game  # noqa: E402


@pytest.fixture(scope="module")
def server(serve_db):
    """One server of each kind of database (SQLite, PostgreSQL: `serve_db`): every contract holds on both."""
    with ServerThread(serve_db, ai_pause=0, workers=2, limits=ROOMY) as srv:
        yield srv


@pytest.fixture
def api(server):
    client = Client(server.url)
    yield client
    client.close()


def local(game: str, players: int, seed: int, moves: list[str]):
    """The same game replayed here: the truth the server's answers are compared with."""
    state = new_game(game, players, seed)
    for text in moves:
        state.apply_text(text)
    return state


def stored_moves(server, game_id: str) -> int:
    return len(server.server.store.moves(game_id))


def test_a_new_game_gives_a_private_link_per_human_seat_and_a_spectator_link(api):
    g = api.create("diabolo", seats=["human", "ai:greedy", "human"], seed=3)
    assert set(g) == {"id", "seats", "spectator_url"}
    assert [s["seat"] for s in g["seats"]] == [0, 2]  # AI seats need no link
    tokens = [s["token"] for s in g["seats"]] + [g["spectator_url"].split("token=")[1]]
    assert len(set(tokens)) == 3
    for s in g["seats"]:
        assert s["url"].endswith(f"/play/{g['id']}?token={s['token']}")
    for t in tokens:  # unguessable: 32 url-safe base64 characters = 192 random bits (>= 128)
        assert len(t) >= 22 and set(t) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_each_seat_gets_exactly_its_own_view_and_only_the_mover_its_legal_moves(api):
    g = api.create("seventh-heaven", seats=["human"] * 3, seed=5)
    tokens = {s["seat"]: s["token"] for s in g["seats"]}
    watch = g["spectator_url"].split("token=")[1]
    played: list[str] = []
    for _ in range(12):
        truth = local("seventh-heaven", 3, 5, played)
        for seat, token in tokens.items():
            answer = api.state(g["id"], token)
            assert answer["view"] == json.loads(json.dumps(truth.view(seat)))
            assert answer["to_move"] == truth.current_player and answer["n"] == len(played)
            expected = [str(m) for m in truth.legal_moves()] if seat == truth.current_player else []
            assert answer["legal_moves"] == expected
            assert answer["over"] is False and answer["result"] is None
        spectator = api.state(g["id"], watch)
        assert spectator["view"] == json.loads(json.dumps(truth.public_view())) and spectator["legal_moves"] == []
        assert "hand" not in spectator["view"]
        p = truth.current_player
        move = api.state(g["id"], tokens[p])["legal_moves"][-1]
        api.move(g["id"], tokens[p], move)
        played.append(move)


def test_refusals_have_their_status_and_change_nothing(server, api):
    g = api.create("diabolo", seats=["human"] * 3, seed=8)
    gid, tokens = g["id"], {s["seat"]: s["token"] for s in g["seats"]}
    mover = api.state(gid, tokens[0])["to_move"]
    waiting = (mover + 1) % 3
    before = api.state(gid, tokens[mover])
    path = f"/api/games/{gid}/moves?token="

    def status(token: str, body: bytes | None) -> tuple[int, dict]:
        code, data = api.raw("POST", path + token, body)
        return code, json.loads(data)

    assert status("not-a-token", b'{"move": "x"}')[0] == 403  # a bad token: 403 whatever the body
    assert status(g["spectator_url"].split("token=")[1], b'{"move": "x"}')[0] == 403  # spectators cannot play
    assert api.request("GET", f"/api/games/{gid}?token=nope")[0] == 403
    assert api.request("GET", f"/api/games/nonexistent?token={tokens[0]}")[0] == 404
    assert status(tokens[mover], b"{not json")[0] == 400
    assert status(tokens[mover], b'["move"]')[0] == 400
    assert status(tokens[mover], b'{"move": 7}')[0] == 400
    code, data = status(tokens[mover], b'{"move": "fly to the moon"}')  # a string: the document takes it, the
    assert code == 409 and data["rule"] == "bad-move-text" and data["error"]  # game does not (as a replay's)
    code, data = status(tokens[waiting], json.dumps({"move": before["legal_moves"][0]}).encode())
    assert code == 409 and data["rule"] == "out-of-turn"
    hand = set(before["view"]["hand"])
    missing = next(f"place {c} {v} angel" for c in ("red", "yellow", "green", "purple", "blue")
                   for v in range(1, 6) if f"{c} {v}" not in hand)
    code, data = status(tokens[mover], json.dumps({"move": missing}).encode())
    assert code == 409 and data["rule"] and data["error"]  # illegal: the rule's name and its message
    code, data = status(tokens[mover], json.dumps({"move": before["legal_moves"][0], "n": 5}).encode())
    assert code == 409 and data["rule"] == "stale"
    assert api.state(gid, tokens[mover]) == before and stored_moves(server, gid) == 0


def test_a_game_played_to_the_end_reports_its_result_in_words_and_hands_out_its_record(api):
    g = api.create("diabolo", seats=["human", "ai:random", "ai:random"], seed=21)
    gid, token = g["id"], g["seats"][0]["token"]
    assert api.request("GET", f"/api/games/{gid}/record")[0] == 409  # never while the game runs: it holds the seed
    deadline = time.time() + 120
    while not (st := api.state(gid, token))["over"]:
        assert time.time() < deadline
        if st["legal_moves"]:
            api.move(gid, token, st["legal_moves"][0], n=st["n"])
        else:
            time.sleep(0.01)
    record = api.record(gid)
    final = load_record(record)
    assert record["seed"] == 21 and record["agents"] == ["human", "ai:random", "ai:random"]
    assert st["result"] == json.loads(json.dumps(final.result())) and st["outcome"] == final.outcome_text()
    assert "wins" in st["outcome"]
    code, data = api.request("POST", f"/api/games/{gid}/moves?token={token}", {"move": "skip"})
    assert code == 409 and data["rule"] == "game-over"


def test_undo_takes_back_the_own_last_move_until_another_human_moves(api):
    g = api.create("climbers", seats=["human", "human"], seed=2)
    gid, t0, t1 = g["id"], g["seats"][0]["token"], g["seats"][1]["token"]
    first = api.state(gid, t0)
    api.move(gid, t0, first["legal_moves"][0])
    assert api.undo(gid, t0)["n"] == 0 and api.state(gid, t0)["view"] == first["view"]
    with pytest.raises(ApiError) as refused:
        api.undo(gid, t1)
    assert refused.value.status == 409 and refused.value.data["rule"] == "nothing-to-undo"
    # seat 0 plays its whole turn, seat 1 answers: seat 0's move now stands
    while (st := api.state(gid, t0))["to_move"] == 0:
        api.move(gid, t0, st["legal_moves"][-1])
    st1 = api.state(gid, t1)
    api.move(gid, t1, st1["legal_moves"][0])
    with pytest.raises(ApiError) as refused:
        api.undo(gid, t0)
    assert refused.value.data["rule"] == "moved-since"


def test_undo_takes_back_the_ai_replies_too_in_a_game_without_secrets(api):
    g = api.create("climbers", seats=["human", "ai:random"], seed=4)
    gid, t0 = g["id"], g["seats"][0]["token"]
    while (st := api.state(gid, t0))["to_move"] == 0:
        api.move(gid, t0, st["legal_moves"][-1])
    deadline = time.time() + 60
    while api.state(gid, t0)["to_move"] != 0:  # the AI plays its turn
        assert time.time() < deadline
        time.sleep(0.05)
    assert api.undo(gid, t0)["to_move"] == 0  # back to seat 0's last decision, before the AI's turn


def test_undo_is_refused_when_the_move_showed_a_hidden_card(api):
    """In 7th Heaven a played card is replaced from the draw pile: taking the move back would let the player
    choose again knowing the next card."""
    g = api.create("seventh-heaven", seats=["human", "human"], seed=9)
    gid, tokens = g["id"], {s["seat"]: s["token"] for s in g["seats"]}
    st = api.state(gid, tokens[0])
    p = st["to_move"]
    mine = api.state(gid, tokens[p])
    plays = [m for m in mine["legal_moves"] if m.startswith("play")]
    after = api.move(gid, tokens[p], plays[0])
    if after["view"]["deck"] < st["view"]["deck"]:  # a card was drawn
        with pytest.raises(ApiError) as refused:
            api.undo(gid, tokens[p])
        assert refused.value.data["rule"] == "revealed"
    else:
        pytest.fail("the first play of this seed was expected to draw a card")


def test_a_hint_is_a_legal_move_for_the_seat_to_move_only(api):
    g = api.create("partners", seats=["human"] * 4, seed=6)
    gid, tokens = g["id"], {s["seat"]: s["token"] for s in g["seats"]}
    p = api.state(gid, tokens[0])["to_move"]
    assert api.hint(gid, tokens[p])["move"] in api.state(gid, tokens[p])["legal_moves"]
    with pytest.raises(ApiError) as refused:
        api.hint(gid, tokens[(p + 1) % 4])
    assert refused.value.status == 409


def test_the_placements_of_a_clicked_block_are_its_legal_block_moves(api):
    g = api.create("climbers", seats=["human", "human"], seed=1)
    gid, t0 = g["id"], g["seats"][0]["token"]
    api.move(gid, t0, "skip")  # the optional first figure move
    st = api.state(gid, t0)
    snap = api.request("GET", f"/api/games/{gid}/snapshot?token={t0}")[1]
    truth = new_game("climbers", 2, 1, judge=statics_stands)
    truth.apply_text("skip")
    legal = [str(m) for m in truth.legal_moves()]
    # the state answer lists the moves that are not placements, and the blocks whose placements are asked per block
    assert st["legal_moves"] == [m for m in legal if not m.startswith("block ")] and snap["your_turn"]
    blocks = {m.split()[1] for m in legal if m.startswith("block ")}
    assert set(st["blocks"]) == set(snap["blocks"]) == blocks
    block = sorted(blocks)[0]
    ghosts = api.request("GET", f"/api/games/{gid}/ghosts?token={t0}&block={block}")[1]["ghosts"]
    placements = api.request("GET", f"/api/games/{gid}/placements?token={t0}&block={block}")[1]["placements"]
    mine = sorted(m for m in legal if m.split()[1] == block)
    assert sorted(gh["label"] for gh in ghosts) == sorted(p[4] for p in placements) == mine
    assert all(len(gh["faces"]) == 6 for gh in ghosts)


def _listen(url: str, count: int, out: list) -> threading.Thread:
    async def run() -> None:
        import aiohttp

        async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
            async for msg in ws:
                out.append(json.loads(msg.data))
                if len(out) >= count:
                    return

    thread = threading.Thread(target=lambda: asyncio.run(run()), daemon=True)
    thread.start()
    return thread


def test_every_open_page_is_told_each_move_as_its_seat_may_see_it(server, api):
    g = api.create("diabolo", seats=["human"] * 3, seed=12)
    gid, tokens = g["id"], {s["seat"]: s["token"] for s in g["seats"]}
    ws = server.url.replace("http", "ws") + f"/api/games/{gid}/ws?token="
    pages: dict[object, list] = {seat: [] for seat in (0, 1, 2, "spectator")}
    threads = [_listen(ws + (tokens[s] if s != "spectator" else g["spectator_url"].split("token=")[1]), 2, box)
               for s, box in pages.items()]
    deadline = time.time() + 20
    while any(not box for box in pages.values()):
        assert time.time() < deadline
        time.sleep(0.02)
    p = api.state(gid, tokens[0])["to_move"]
    move = api.state(gid, tokens[p])["legal_moves"][0]
    api.move(gid, tokens[p], move)
    for t in threads:
        t.join(20)
    for seat, box in pages.items():
        first, second = box
        assert first["event"] is None and second["event"]["kind"] == "move"
        assert second["event"]["text"] == move and second["snapshot"]["n"] == 1
        assert second["snapshot"]["seat"] == (None if seat == "spectator" else seat)
        # the page draws the seat's own hand, and only its own
        hand = [b for b in second["snapshot"]["scene"]["blocks"] if b["id"].startswith("hand-")]
        assert bool(hand) == (seat != "spectator")


def test_ai_seats_play_a_whole_game_by_themselves(api):
    g = api.create("seventh-heaven", seats=["human", "ai:random", "ai:greedy"], seed=30)
    gid, token = g["id"], g["seats"][0]["token"]
    deadline = time.time() + 120
    while not (st := api.state(gid, token))["over"]:
        assert time.time() < deadline
        if st["legal_moves"]:
            api.move(gid, token, st["legal_moves"][0], n=st["n"])
    assert load_record(api.record(gid)).is_over


def test_a_long_search_at_one_table_does_not_delay_another_tables_answers(api, server):
    """An AI seat thinking for seconds holds a worker process; the moves of another table are answered at once."""
    slow = api.create("diabolo", seats=["ai:mcts:time=4,iters=50000"] * 3, seed=1)
    fast = api.create("diabolo", seats=["human"] * 3, seed=2)
    gid, tokens = fast["id"], {s["seat"]: s["token"] for s in fast["seats"]}
    time.sleep(0.5)  # the search has started
    times = []
    for _ in range(12):
        p = api.state(gid, tokens[0])["to_move"]
        move = api.state(gid, tokens[p])["legal_moves"][0]
        t = time.perf_counter()
        api.move(gid, tokens[p], move)
        times.append(time.perf_counter() - t)
    watch = slow["spectator_url"].split("token=")[1]
    assert api.state(slow["id"], watch)["n"] == 0  # the search was still thinking
    times.sort()
    assert times[len(times) // 2] < 0.15 and times[-1] < 1.0, times

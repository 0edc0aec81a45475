"""`tower serve`'s OpenAPI 3.1 document (`/api/openapi.json`, docs/serve.md), checked by tools no one here wrote:
openapi-spec-validator says it is a valid OpenAPI 3.1 document, and schemathesis fuzzes a loopback server from it
(every operation, at most EXAMPLES generated requests each, its coverage cases besides) with every check it has
(its command line's `--checks all`): no 5xx; every status, content type, header and body as the document says;
what the document calls invalid refused with a 4xx, and what it calls valid accepted (or refused by the rules:
409, or 404 for what does not exist); a 405 naming the allowed methods for a method the document does not list.

Half of the requests go to real games and a real lab (their ids and a seat's token put into the generated
request), so the fuzzer reaches the referee, not only the 404 of an unknown id. A move's text is a string to the
document (its grammar is the game's, and a text that is no move is refused by the rules with 409, docs/serve.md):
a generated valid move sent to a real game is one of its legal moves. tests/test_serve_stock_tools.py runs the
tool's own command line with no such help.
"""

from __future__ import annotations

import hashlib
import json
import random
import urllib.request

import pytest
from hypothesis import HealthCheck, Phase, settings

schemathesis = pytest.importorskip("schemathesis")

from schemathesis.checks import CHECKS as REGISTERED  # noqa: E402
from schemathesis.checks import load_all_checks  # noqa: E402
from serve_support import ROOMY  # noqa: E402

from tower.app.serve.client import Client  # noqa: E402
from tower.app.serve.openapi import openapi_document  # noqa: E402
from tower.app.serve.run import ServerThread  # noqa: E402
from tower.games import game_names  # noqa: E402

#: Generated requests per operation (the issue's bound is 100; this keeps the whole run near a minute here).
EXAMPLES = 25
load_all_checks()
#: Every check schemathesis has (its command line's `--checks all`).
CHECKS = REGISTERED.get_all()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A loopback server with a game of each kind (a seat's token each), a finished game and a lab."""
    with ServerThread(str(tmp_path_factory.mktemp("openapi") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=ROOMY) as srv:
        client = Client(srv.url)
        games = []
        for name in game_names():
            made = client.create(name, None)
            games.append((made["id"], made["seats"][0]["token"]))
        # a small lab (a beam over two columns) so that drop, forces, removal and push answer for real, quickly
        status, lab = client.request("POST", "/api/lab", {"build": {"format": "tower-build/1", "blocks": [
            {"id": "a", "origin": [0, 0, 0], "size": [2, 2, 2]}, {"id": "b", "origin": [4, 0, 0], "size": [2, 2, 2]},
            {"id": "beam", "origin": [0, 0, 2], "size": [6, 2, 2]}]}, "rules": "flag"})  # the game's rules: no beams
        assert status == 201, lab
        srv.real = {"games": games, "lab": lab["id"]}
        yield srv


# The document the test server serves (asserted below); loaded here, not from the running server, because
# schemathesis's lazy loader (`from_fixture`) does not work with this pytest (it sets `node._nodeid`)
schema = schemathesis.openapi.from_dict(openapi_document(ROOMY))


def test_the_document_is_valid_openapi_3_1_and_is_what_the_server_serves(served):
    from openapi_spec_validator import validate

    with urllib.request.urlopen(served.url + "/api/openapi.json", timeout=30) as resp:
        assert resp.headers["Content-Type"].startswith("application/json")
        doc = json.loads(resp.read())
    validate(doc)
    assert doc["openapi"].startswith("3.1")
    assert doc == json.loads(json.dumps(openapi_document(ROOMY)))
    assert doc["x-limits"]["body_bytes"] == ROOMY.body_bytes


def test_every_route_of_the_server_is_in_the_document(served):
    """Each route the aiohttp app answers (but the catch-all of /static/) has its path and method documented, and
    every documented operation names its refusals with the JSON error body."""
    import re

    doc = openapi_document(ROOMY)
    app = served.runner.app
    routes = {(r.method, re.sub(r"\{(\w+)(:[^}]*)?\}", r"{\1}", r.resource.canonical))
              for r in app.router.routes() if r.method != "HEAD"}
    routes = {(m, "/static/{path}" if p.startswith("/static/") else p) for m, p in routes}
    documented = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    assert routes == documented
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            if path.startswith("/api/"):
                assert "429" in op["responses"], (method, path)
            if method == "post" and path.startswith("/api/"):
                assert {"413", "415"} <= set(op["responses"]), (method, path)
    responses = doc["components"]["responses"]
    for status in ("400", "404", "409", "413", "429", "503"):
        assert any(status in op["responses"] for ops in doc["paths"].values() for op in ops.values()), status
    assert all(r["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
               for r in responses.values())


def _real(case, real: dict, url: str) -> None:
    """Point half of the cases (chosen by a hash of the generated id, so the choice is reproducible) at a real
    game or lab, with a real seat's token; a valid move sent to a real game is one of its legal moves."""
    generated = case.path_parameters.get("id") if case.path_parameters else None
    if generated is None or hashlib.sha256(str(generated).encode()).digest()[0] % 2:
        return
    path = case.operation.path
    if path.startswith("/api/lab/") or path.startswith("/lab/"):
        case.path_parameters["id"] = real["lab"]
        return
    game_id, token = real["games"][hashlib.sha256(str(generated).encode()).digest()[1] % len(real["games"])]
    case.path_parameters["id"] = game_id
    if case.query is not None and "token" in case.query:
        case.query["token"] = token
        positive = case.meta is None or case.meta.generation.mode.is_positive
        if path.endswith("/moves") and positive and isinstance(case.body, dict) and "move" in case.body:
            client = Client(url)
            state = client.state(game_id, token)
            if state["legal_moves"] or state.get("blocks"):  # (a Climbers block step lists blocks, not moves)
                case.body["move"] = client.random_move(game_id, token, random.Random(str(generated)), state)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_the_server_answers_as_its_document_says(case, served):
    if case.operation.path == "/api/games/{id}/ws":
        pytest.skip("a WebSocket: its plain-GET refusal is checked in test_serve_api.py")
    _real(case, served.real, served.url)
    case.call_and_validate(base_url=served.url, checks=CHECKS, timeout=60)


def test_the_websocket_feed_sends_what_the_asyncapi_document_says(served):
    """The feed's messages (first snapshot, a move, a take-back, a pong) validate against the AsyncAPI
    document's schemas (with the jsonschema library, the document as the root of its references)."""
    import asyncio

    import aiohttp
    from jsonschema import Draft202012Validator

    with urllib.request.urlopen(served.url + "/api/asyncapi.json", timeout=30) as resp:
        doc = json.loads(resp.read())
    assert doc["asyncapi"] == "3.0.0" and doc["channels"]["feed"]["address"] == "/api/games/{id}/ws"
    feed = Draft202012Validator({"$ref": "#/components/schemas/FeedMessage", "components": doc["components"]})
    client = Client(served.url)
    game = client.create("climbers", ["human", "human"], seed=3)
    game_id, token = game["id"], game["seats"][0]["token"]

    async def listen() -> list[dict]:
        got = []
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(f"{served.url}/api/games/{game_id}/ws?token={token}") as ws:
                got.append(json.loads((await ws.receive(timeout=30)).data))
                await ws.send_str("ping")
                got.append(json.loads((await ws.receive(timeout=30)).data))
                state = await asyncio.to_thread(client.state, game_id, token)
                await asyncio.to_thread(client.move, game_id, token, state["legal_moves"][0], state["n"])
                got.append(json.loads((await ws.receive(timeout=30)).data))
                await asyncio.to_thread(client.undo, game_id, token)
                got.append(json.loads((await ws.receive(timeout=30)).data))
        return got

    messages = asyncio.run(listen())
    assert [m["type"] for m in messages] == ["snapshot", "pong", "snapshot", "snapshot"]
    assert messages[0]["event"] is None
    assert [m["event"]["kind"] for m in messages[2:]] == ["move", "undo"]
    for message in messages:
        errors = sorted(feed.iter_errors(message), key=lambda e: e.path)
        assert not errors, (message["type"], errors[0].message[:300])
    broken = dict(messages[2], event={"kind": "teleport", "player": 0, "n": 1, "label": "P0"})
    assert list(feed.iter_errors(broken))  # the schema can fail


def test_what_the_strict_checks_found_stays_fixed(served):
    """405 names the allowed methods; 6.0 is the integer 6; a POST whose body is optional needs none (and then no
    content type), while a form's body is still refused."""
    api = Client(served.url)
    conn = api._connection()
    conn.request("TRACE", "/api/lab")
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 405 and {"GET", "POST"} <= set(resp.getheader("Allow", "").split(","))
    status, made = api.request("POST", "/api/games", {"game": "diabolo", "players": 3.0, "seed": 5.0})
    assert status == 201
    token = made["seats"][0]["token"]
    status, raw = api.raw("POST", f"/api/games/{made['id']}/undo?token={token}")  # no body, no content type
    assert status == 409 and json.loads(raw)["rule"] != "not-json"  # refused by the undo rule, not the type
    status, raw = api.raw("POST", f"/api/games/{made['id']}/abandon?token={token}", b"",
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 415
    status, raw = api.raw("POST", f"/api/games/{made['id']}/abandon?token={token}")
    assert status == 200 and json.loads(raw)["abandoned"]


def test_the_documents_grammars_are_the_servers():
    """Where the document writes a server's rule as a pattern (an AI seat within the bounds on `time` and
    `iters`; the numbers in a text option), the pattern takes exactly what the server takes."""
    import re

    from tower.app.serve.lobby import check_option_sizes
    from tower.app.serve.workers import check_ai_spec
    from tower.games.errors import BadInput

    def takes(check, *args) -> bool:
        try:
            check(*args)
        except BadInput:
            return False
        return True

    doc = openapi_document(ROOMY)
    seat = re.compile(doc["components"]["schemas"]["SeatSpec"]["pattern"])
    times = ["0", "00", "0.0", "0.000", "0.001", "0.01", "0.1", "00.5", "1", "01", "9.999", "10", "10.0", "10.001",
             "10.5", "11", "99", "0.5"]
    iters = ["0", "1", "000001", "9", "99", "100", "9999", "10000", "49999", "50000", "050000", "50001", "99999",
             "000000"]
    specs = [f"ai:mcts:time={t}" for t in times] + [f"ai:ismcts:c=1,time={t}" for t in times] + \
        [f"ai:mcts:iters={i}" for i in iters] + ["human", "ai:greedy", "ai:random:x", "ai:mcts:rollout=12"]
    for spec in specs:
        assert bool(seat.fullmatch(spec)) == (spec == "human" or takes(check_ai_spec, spec)), spec
    text = re.compile(doc["components"]["schemas"]["DiaboloOptions"]["properties"]["values"]["pattern"])
    for value in ["1,1,2,3,5", "40,40", "41", "1,41,1", "0040", "0000040", "x", "", "12a40b", "99999999"]:
        sized = takes(check_option_sizes, {"values": value}, {"values": ""}, ROOMY)
        assert bool(text.fullmatch(value)) == sized, value

"""`tower serve`'s OpenAPI 3.1 document (`/api/openapi.json`, docs/serve.md), checked by tools no one here wrote:
openapi-spec-validator says it is a valid OpenAPI 3.1 document, and schemathesis fuzzes a loopback server from it
(every operation, at most EXAMPLES generated requests each) with its server-error and response-conformance checks:
no 5xx, every status, content type, header and body as the document says; and what the document says is invalid
(a generated request that breaks it) is refused with a 4xx.

Half of the requests go to real games and a real lab (their ids and a seat's token put into the generated
request), so the fuzzer reaches the referee, not only the 404 of an unknown id.
"""

from __future__ import annotations

import hashlib
import json
import urllib.request

import pytest
from hypothesis import HealthCheck, Phase, settings

schemathesis = pytest.importorskip("schemathesis")

from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from serve_support import ROOMY  # noqa: E402

from tower.app.serve.client import Client  # noqa: E402
from tower.app.serve.openapi import openapi_document  # noqa: E402
from tower.app.serve.run import ServerThread  # noqa: E402
from tower.games import game_names  # noqa: E402

#: Generated requests per operation (the issue's bound is 100; this keeps the whole run near a minute here).
EXAMPLES = 25
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance, negative_data_rejection]


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


def _real(case, real: dict) -> None:
    """Point half of the cases (chosen by a hash of the generated id, so the choice is reproducible) at a real
    game or lab, with a real seat's token."""
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


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_the_server_answers_as_its_document_says(case, served):
    if case.operation.path == "/api/games/{id}/ws":
        pytest.skip("a WebSocket: its plain-GET refusal is checked in test_serve_api.py")
    _real(case, served.real)
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

"""The OpenAPI 3.1 document of `tower serve` (served at `/api/openapi.json`, docs/serve.md): every operation of the
HTTP API, the lab's and the pages', each answer with its body, every refusal with the JSON error body, and the
server's limits (the values it runs with).

Built here from the same sources the server uses: the games' names, rules and options, the limits, and the JSON
Schemas of the files and documents it sends (`tower.schemas`: a scene is `tower-scene/1`, a record `game-record/1`,
a build `tower-build/1`), so the document cannot drift from them; the component schemas are in `api_schemas.py`.
A request the document calls invalid is refused with 400; one it calls valid is answered, or refused by the rules
(409) or for a missing game, lab, seat or position (404). `tests/test_serve_openapi.py` fuzzes the server from it
with every check of schemathesis, and generates a client from it with openapi-python-client.
"""

from __future__ import annotations

import copy
from typing import Any

from tower.app.serve.limits import DEFAULT, DOCS, Limits

OPENAPI_VERSION = "3.1.0"
JSON = "application/json"

#: Every refusal: status -> (component name, what it means).
ERRORS: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "the request breaks this document: the body is not JSON (or holds NaN), not an object, has "
                        "unknown keys, wrong types, values out of range or past a limit, an id or name holding a "
                        "control or bidirectional character, a lone surrogate, a key twice in an object (`where` "
                        "names the JSON path)"),
    403: ("Forbidden", "the token opens no seat of this game (also a spectator's token asking to play)"),
    404: ("NotFound", "no such game, lab, seat, position or path"),
    408: ("Timeout", "the body did not arrive within the limit `body_seconds`"),
    409: ("Conflict", "refused by the rules (`rule` names it): out of turn, a move text that is no move of the game "
                      "(`bad-move-text`), an illegal move, the game is over, a "
                      "stale `n`, an undo the rule refuses, the record of a game still running; what no schema can "
                      "say: a record whose moves do not replay, an option's value the game cannot take, an AI past "
                      "the server's bounds, a build whose block ids repeat or whose stone lies on no block; in the "
                      "lab an edit the rules forbid, a block it does not have, a full lab, nothing to undo"),
    413: ("TooLarge", "the body is larger than the limit `body_bytes`, or a lab job past `lab_cpu_seconds` (the build "
                      "is too big for this server)"),
    415: ("NotJson", "a POST not sent as `Content-Type: application/json`"),
    429: ("TooMany", "the client is over one of its limits (requests a second, games a minute, running games, replays "
                     "at a time, labs, a lab job or hint at a time, open feeds); `Retry-After` says when to ask "
                     "again"),
    503: ("Unavailable", "the database refused the write (locked past `db_lock_seconds`): nothing was changed; or "
                         "the lab's or the hints' line is full (`Retry-After`)"),
    507: ("StorageFull", "the server's storage is full (`disk_bytes` used, or less than `disk_free_bytes` free on "
                         "its disk): no new game or lab until old ones expire (`game_keep_seconds`); the games going "
                         "on still record their moves"),
}


def _error_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "Every refusal: one line saying what is wrong; nothing was changed.",
        "required": ["error"],
        "additionalProperties": False,
        "properties": {
            "error": {"type": "string", "maxLength": 300, "description": "one line: what is wrong"},
            "rule": {"type": "string", "description": "the rule or limit that refused it (`out-of-turn`, "
                                                      "`too-many-requests`, ...)"},
            "where": {"type": "string", "description": "the JSON path of the bad part of the input (`$.seats[1]`)"},
        },
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(s): {"$ref": f"#/components/responses/{ERRORS[s][0]}"} for s in statuses}


def _param(name: str, where: str, description: str, schema: dict[str, Any] | None = None,
           required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": where, "required": required or where == "path", "description": description,
            "schema": schema or {"type": "string"}}


GAME_ID = _param("id", "path", "the game's id (12 URL-safe characters, not secret)",
                 {"type": "string", "maxLength": 64})
LAB_ID = _param("id", "path", "the lab's id", {"type": "string", "maxLength": 64})
#: A page takes any id: its script asks the API, which answers 404 for an unknown one.
PAGE_ID = _param("id", "path", "a game's or a lab's id")
TOKEN = _param("token", "query", "the seat's (or the spectators') token from the game's links: 32 URL-safe "
                                 "characters; the link *is* the seat", {"type": "string", "maxLength": 100})
SEAT = _param("seat", "query", "whose view: a seat number or `public` (default)",
              {"type": "string", "pattern": "^(public|[0-9]{1,3})$"})
FROM = _param("from", "query", "the first position of the page (default 0)", {"type": "integer", "minimum": 0,
                                                                               "maximum": 999_999})
COUNT = _param("count", "query", "positions wanted (at most the limit `replay_page`)",
               {"type": "integer", "minimum": 0, "maximum": 999_999})
#: An optional body: none (then no content type is needed), or `{}` as `application/json` (415 for another type: a
#: form of another site is refused).
EMPTY_JSON_BODY = {"required": False, "description": "none, or `{}` sent as `Content-Type: application/json` (415 "
                                                     "for another content type)",
                   "content": {JSON: {"schema": _ref("NoBody")}}}
#: The content types of the static files (scripts, styles, pages, the vendored three.js's README and LICENSE).
STATIC_TYPES = ("text/javascript", "application/javascript", "text/css", "text/html", "text/markdown",
                "text/plain", "application/octet-stream")
#: The lab's push tests in a query: comma-separated `BLOCK:DIR` (empty parts are skipped).
PUSHES = r"^(?:[^,]+:[+-][xy])?(?:,(?:[^,]+:[+-][xy])?)*$"


def _body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {JSON: {"schema": _ref(name)}}}


def _op(op_id: str, tag: str, summary: str, ok: dict[str, Any], errors: tuple[int, ...],
        parameters: list[dict[str, Any]] | None = None, body: dict[str, Any] | None = None,
        ok_status: int = 200, description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op_id, "tags": [tag], "summary": summary}
    if description:
        out["description"] = description
    if parameters:
        out["parameters"] = parameters
    if body is not None:
        out["requestBody"] = body
    out["responses"] = {str(ok_status): ok, **_errors(*errors)}
    return out


def _html_page(op_id: str, summary: str, parameters: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    ok = {"description": "the page (HTML; its scripts and styles come from `/static/`)",
          "content": {"text/html": {"schema": {"type": "string"}}}}
    return _op(op_id, "pages", summary, ok, (), parameters)


def _limits_text(limits: Limits) -> str:
    rows = "\n".join(f"| `{name}` | {getattr(limits, name):g} | {doc} |" for name, doc in DOCS.items())
    return "| limit | value | what it bounds |\n| --- | --- | --- |\n" + rows


def openapi_document(limits: Limits = DEFAULT) -> dict[str, Any]:
    """The OpenAPI 3.1 document of a server running with `limits`."""
    from tower.games.registry import game_names

    doc: dict[str, Any] = {
        "openapi": OPENAPI_VERSION,
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "tower serve",
            "version": "1",
            "summary": "The HTTP API of tower-sim's game server: games, seats, moves, replays and the lab.",
            "description": (
                "JSON in, JSON out (docs/serve.md). A seat is its link: the `token` in the query opens it. "
                "Every refusal is a JSON object `{\"error\", \"rule\", \"where\"}` with its status; a refused request "
                "changes nothing. API requests count against the client's limits (429 with `Retry-After`).\n\n"
                "The WebSocket feed (`GET /api/games/{id}/ws`) sends JSON text messages `{\"type\": \"snapshot\", "
                "\"event\", \"snapshot\"}` (the first with `event` null, then one a change: a move or a take-back "
                "told as the seat may hear it) and answers the text `ping` with `{\"type\": \"pong\"}`.\n\n"
                "The limits of this server:\n\n" + _limits_text(limits)),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": "/", "description": "this server"}],
        "tags": [{"name": "games", "description": "games, seats and moves"},
                 {"name": "replays", "description": "finished games and records, position by position"},
                 {"name": "lab", "description": "a build changed by hand, judged after every edit"},
                 {"name": "pages", "description": "the browser client"},
                 {"name": "meta", "description": "this document and the catalogue"}],
        "x-limits": {name: getattr(limits, name) for name in DOCS},
        "paths": {},
        "components": {"schemas": {"Error": _error_schema()}, "responses": {}},
    }
    for status, (name, what) in ERRORS.items():
        response = _json(_ref("Error"), what)
        if status == 429:
            response["headers"] = {"Retry-After": {"description": "seconds until the client may ask again",
                                                   "schema": {"type": "string", "pattern": "^[0-9]+$"}}}
        doc["components"]["responses"][name] = response
    from tower.app.serve.api_schemas import components

    parts = components(limits, list(game_names()))
    doc["components"]["schemas"].update(parts["schemas"])
    doc["components"]["schemas"]["NoBody"] = {"type": "object", "maxProperties": 0, "description": "`{}`"}
    record, build = parts["record"], parts["build"]
    lab_changes = (400, 404, 408, 409, 413, 415, 429, 503)
    game_reads = (403, 404, 429, 503)
    seat_changes = (400, 403, 404, 409, 413, 415, 429, 503)
    block = _param("block", "query", "the block's id (none: no placements)", {"type": "string", "maxLength": 16})
    p = doc["paths"]
    p["/api/openapi.json"] = {"get": _op(
        "openapi", "meta", "this document", _json(_ref("Document"), "the OpenAPI 3.1 document"), (429,))}
    p["/api/asyncapi.json"] = {"get": _op(
        "asyncapi", "meta", "the AsyncAPI 3.0 document of the WebSocket feed",
        _json(_ref("Document"), "the AsyncAPI document"), (429,))}
    p["/api/catalogue"] = {"get": _op(
        "catalogue", "meta", "the games, their player counts and rule options, the AIs",
        _json(_ref("Catalogue"), "the catalogue"), (429,))}
    p["/api/games"] = {"post": _op(
        "createGame", "games", "create a game: a link and token for each human seat",
        _json(_ref("NewGameAnswer"), "the game's id, its seats' links and tokens, the spectators' link"),
        (400, 408, 409, 413, 415, 429, 503, 507), body=_body("NewGame"), ok_status=201)}
    p["/api/games/{id}"] = {"get": _op(
        "getGame", "games", "the seat's view, whose turn, the legal moves",
        _json(_ref("GameAnswer"), "what the seat may see"), game_reads, [GAME_ID, TOKEN])}
    p["/api/games/{id}/moves"] = {"post": _op(
        "playMove", "games", "play a move for the seat", _json(_ref("GameAnswer"), "the game after the move"),
        (400, 403, 404, 408, 409, 413, 415, 429, 503), [GAME_ID, TOKEN], _body("Move"))}
    p["/api/games/{id}/undo"] = {"post": _op(
        "undoMove", "games", "take the seat's last move back (the undo rule of docs/serve.md)",
        _json(_ref("GameAnswer"), "the game after the take-back"), seat_changes, [GAME_ID, TOKEN], EMPTY_JSON_BODY)}
    p["/api/games/{id}/abandon"] = {"post": _op(
        "abandonGame", "games", "give the game up: it ends, abandoned", _json(_ref("GameAnswer"), "the ended game"),
        seat_changes, [GAME_ID, TOKEN], EMPTY_JSON_BODY)}
    p["/api/games/{id}/name"] = {"post": _op(
        "nameSeat", "games", "the seat's name, shown to everyone",
        _json(_ref("SeatName"), "the seat and its name as kept"), (400, 403, 404, 408, 409, 413, 415, 429, 503),
        [GAME_ID, TOKEN], _body("NewName"))}
    p["/api/games/{id}/rematch"] = {"post": _op(
        "rematch", "games", "the same table again (game, seats, options; a new deal), once; each seat gets its new "
                            "link", _json(_ref("Rematch"), "the new game and the asking seat's link to it"),
        (400, 403, 404, 408, 409, 413, 415, 429, 503, 507), [GAME_ID, TOKEN], _body("NoBody"), ok_status=201)}
    p["/api/games/{id}/placements"] = {"get": _op(
        "placements", "games", "The Climbers: every legal placement of one block, for aiming it on the page",
        _json(_ref("BlockPlacements"), "the placements, their shapes and words"), (400, 403, 404, 409, 429, 503),
        [GAME_ID, TOKEN, block])}
    p["/api/games/{id}/hint"] = {"get": _op(
        "hint", "games", "a move for the seat to move (an AI thinking on what the seat may know)",
        _json(_ref("Hint"), "the hint"), (403, 404, 409, 429, 503), [GAME_ID, TOKEN])}
    p["/api/games/{id}/snapshot"] = {"get": _op(
        "snapshot", "games", "what the seat's page shows, with the scene (`tower-scene/1`)",
        _json(_ref("Snapshot"), "the snapshot"), game_reads, [GAME_ID, TOKEN])}
    p["/api/games/{id}/ghosts"] = {"get": _op(
        "ghosts", "games", "The Climbers: the legal placements of one block, as ghost blocks",
        _json(_ref("BlockGhosts"), "the placements"), (400, 403, 404, 409, 429, 503), [GAME_ID, TOKEN, block])}
    p["/api/games/{id}/ws"] = {"get": _op(
        "feed", "games", "the WebSocket feed of the seat (info.description); a plain GET is refused with 400",
        {"description": "switching to the WebSocket protocol"}, (400, 403, 404, 429, 503), [GAME_ID, TOKEN],
        ok_status=101)}
    p["/api/games/{id}/record"] = {"get": _op(
        "record", "replays", "the `game-record/1` file of a finished game (with the seats' agents)",
        _json(record, "the record"), (404, 409, 429, 503), [GAME_ID])}
    p["/api/games/{id}/replay"] = {"get": _op(
        "replayGame", "replays", "one page of a finished game's positions, as a seat or the public sees them",
        _json(_ref("ReplayPage"), "the page"), (400, 404, 409, 429, 503), [GAME_ID, SEAT, FROM, COUNT])}
    p["/api/replay"] = {"post": _op(
        "replayRecord", "replays", "one page of the positions of a record sent in the body",
        _json(_ref("ReplayPage"), "the page"), (400, 404, 408, 409, 413, 415, 429), [SEAT, FROM, COUNT],
        _body("RecordUpload"))}
    p["/api/lab"] = {
        "get": _op("labPalette", "lab", "the kinds of block and their orientations",
                   _json(_ref("LabPalette"), "the palette"), (429,)),
        "post": _op("createLab", "lab", "a new lab (empty, a start tower, or a build)",
                    _json(_ref("LabState"), "the lab"), (400, 408, 409, 413, 415, 429, 503, 507),
                    body=_body("NewLab"), ok_status=201)}
    p["/api/lab/{id}"] = {"get": _op("getLab", "lab", "the lab: its build, analysis and scene",
                                     _json(_ref("LabState"), "the lab"), (404, 413, 429, 503), [LAB_ID])}
    p["/api/lab/{id}/edits"] = {"post": _op(
        "editLab", "lab", "one edit of the build (refused when the rules forbid it)",
        _json(_ref("LabState"), "the lab after the edit"), lab_changes, [LAB_ID], _body("LabEdit"))}
    for name, what in (("undo", "take the last edit back"), ("redo", "do the edit taken back again")):
        p[f"/api/lab/{{id}}/{name}"] = {"post": _op(
            f"{name}Lab", "lab", what, _json(_ref("LabState"), "the lab"), lab_changes, [LAB_ID], EMPTY_JSON_BODY)}
    p["/api/lab/{id}/rules"] = {"post": _op(
        "labRules", "lab", "strict, flag or free: how the game's rules apply", _json(_ref("LabState"), "the lab"),
        lab_changes, [LAB_ID], _body("LabRules"))}
    p["/api/lab/{id}/refusals"] = {"post": _op(
        "labRefusals", "lab", "where the block in hand would be refused: the ghost says it before the click",
        _json(_ref("LabRefusals"), "the refused placements that touch something, one by one; those that touch "
                                   "nothing, once per shape (`elsewhere`)"), lab_changes, [LAB_ID], _body("LabHand"),
        description="Each placement of the block in hand in `area` is judged as its edit would be. The answer is "
                    "bounded by the build, not by the area: the placements whose footprint touches a block's "
                    "column (the block in hand left out) or a figure's are listed in `refused` when refused; all "
                    "the others stand on the bare table and share one judgement per shape, `elsewhere`.")}
    p["/api/lab/{id}/drop"] = {"post": _op(
        "dropLab", "lab", "PyBullet's run of the build, for the drop animation", _json(_ref("LabDrop"), "the run"),
        lab_changes, [LAB_ID], EMPTY_JSON_BODY)}
    for name, what in (("forces", "the contact forces"), ("removal", "the removal map")):
        p[f"/api/lab/{{id}}/{name}"] = {"get": _op(
            f"lab{name.title()}", "lab", what, _json(_ref("LabExplained"), what), (404, 409, 413, 429, 503),
            [LAB_ID])}
    p["/api/lab/{id}/removal/progress"] = {"get": _op(
        "labRemovalProgress", "lab", "how far the lab's removal map is: the blocks found so far, of how many",
        _json(_ref("LabRemovalProgress"), "the map's progress"), (404, 429, 503), [LAB_ID],
        description="Asked while the removal map (`/removal`, `/overlays?show=removal`) is worked out: the page "
                    "draws it block by block. `state` is `waiting` (for a worker), `working`, `done`, or `stopped` "
                    "(over `lab_cpu_seconds`: the blocks found are kept, `message` says which limit stopped it "
                    "and how to raise it); `edits` the edit of the build it is of.")}
    p["/api/lab/{id}/push"] = {"post": _op(
        "labPush", "lab", "the push a block takes before it moves", _json(_ref("LabExplained"), "the push"),
        lab_changes, [LAB_ID], _body("LabPush"))}
    p["/api/lab/{id}/overlays"] = {"get": _op(
        "labOverlays", "lab", "the lab's scene with physics overlays (what the page's toggles and push test draw)",
        _json(_ref("LabOverlays"), "the scene with its overlays, and their words"), (400, 404, 409, 413, 429, 503),
        [LAB_ID, _param("show", "query", "overlays, comma-separated: `forces`, `removal`",
                        {"type": "string", "pattern": "^(forces|removal)?(,(forces|removal)?)*$"}),
         _param("push", "query", "push tests, comma-separated `BLOCK:DIR` (DIR `+x`, `-x`, `+y`, `-y`; the first 4 "
                                 "are drawn; 409 for a block the build does not have)",
                {"type": "string", "maxLength": 400, "pattern": PUSHES})])}
    p["/api/lab/{id}/build"] = {"get": _op(
        "labBuild", "lab", "the build as a `tower-build/1` file", _json(build, "the build file"), (404, 429, 503),
        [LAB_ID])}
    p["/"] = {"get": _html_page("lobbyPage", "the lobby")}
    p["/play/{id}"] = {"get": _html_page("gamePage", "a seat's (or the spectators') page of a game",
                                         [PAGE_ID, _param("token", "query", "the seat's token (read by the page)")])}
    p["/replay"] = {"get": _html_page("replayUploadPage", "the replay page of a record opened in the lobby")}
    p["/replay/{id}"] = {"get": _html_page("replayPage", "the replay page of a finished game", [PAGE_ID])}
    p["/lab"] = {"get": _html_page("labPage", "the lab")}
    p["/lab/{id}"] = {"get": _html_page("labIdPage", "a lab", [PAGE_ID])}
    p["/static/{path}"] = {"get": _op(
        "static", "pages", "the pages' scripts, styles and the vendored three.js",
        {"description": "the file", "content": {kind: {"schema": {"type": "string"}} for kind in STATIC_TYPES}},
        (404,),
        [_param("path", "path", "a file under the static folder", {"type": "string", "maxLength": 200})])}
    p["/favicon.ico"] = {"get": _op("favicon", "pages", "no icon", {"description": "nothing"}, (), ok_status=204)}
    return doc


# --- the WebSocket feed ----------------------------------------------------------------------------------------

ASYNCAPI_VERSION = "3.0.0"


def asyncapi_document(limits: Limits = DEFAULT) -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the WebSocket feed (`GET /api/games/{id}/ws?token=T`), described from the
    server's side: it sends the seat's snapshots, receives `ping`. Its schemas are the OpenAPI document's."""
    schemas = copy.deepcopy(openapi_document(limits)["components"]["schemas"])
    schemas["FeedEvent"] = {
        "type": "object", "required": ["kind", "player", "n", "label"],
        "description": "the change, told as the seat may hear it",
        "properties": {
            "kind": {"enum": ["move", "undo", "abandon", "name", "rematch"]},
            "player": {"type": "integer", "minimum": -1, "description": "the seat that made it; -1: the host"},
            "n": {"type": "integer", "minimum": 0, "description": "moves played after it"},
            "label": {"type": "string"},
            "text": {"type": "string", "description": "a move in the words the seat may hear (a card passed face "
                                                      "down is not named)"},
        },
    }
    schemas["FeedSnapshot"] = {
        "type": "object", "required": ["type", "event", "snapshot"], "additionalProperties": False,
        "properties": {"type": {"const": "snapshot"},
                       "event": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/FeedEvent"}],
                                 "description": "null in the first message: the snapshot as it is"},
                       "snapshot": {"$ref": "#/components/schemas/Snapshot"}},
    }
    schemas["FeedPong"] = {"type": "object", "required": ["type"], "additionalProperties": False,
                           "properties": {"type": {"const": "pong"}}}
    schemas["FeedMessage"] = {"oneOf": [{"$ref": "#/components/schemas/FeedSnapshot"},
                                        {"$ref": "#/components/schemas/FeedPong"}]}
    return {
        "asyncapi": ASYNCAPI_VERSION,
        "info": {"title": "tower serve: the WebSocket feed", "version": "1",
                 "description": "One feed per open page: the seat's snapshot first, then one message a change (a "
                                "move, a take-back, the game abandoned) with the event and the new snapshot, in "
                                "order. A page that stops reading falls 256 messages behind at most and is then "
                                "disconnected; it reconnects and starts from a fresh snapshot. The HTTP API is "
                                "in /api/openapi.json."},
        "servers": {"this": {"host": "127.0.0.1:8000", "protocol": "ws",
                             "description": "the server's own address (`tower serve --host --port`)"}},
        "channels": {"feed": {
            "address": "/api/games/{id}/ws",
            "parameters": {"id": {"description": "the game's id"}},
            "messages": {"snapshot": {"$ref": "#/components/messages/snapshot"},
                         "pong": {"$ref": "#/components/messages/pong"},
                         "ping": {"$ref": "#/components/messages/ping"}},
            "bindings": {"ws": {"method": "GET", "query": {
                "type": "object", "required": ["token"],
                "properties": {"token": {"type": "string", "description": "the seat's or the spectators' token"}}}}},
        }},
        "operations": {
            "sendSnapshot": {"action": "send", "channel": {"$ref": "#/channels/feed"},
                             "summary": "the seat's snapshot, first as it is, then after each change",
                             "messages": [{"$ref": "#/channels/feed/messages/snapshot"}]},
            "receivePing": {"action": "receive", "channel": {"$ref": "#/channels/feed"},
                            "summary": "the page's `ping`, answered with a pong",
                            "messages": [{"$ref": "#/channels/feed/messages/ping"}],
                            "reply": {"channel": {"$ref": "#/channels/feed"},
                                      "messages": [{"$ref": "#/channels/feed/messages/pong"}]}},
        },
        "components": {
            "messages": {
                "snapshot": {"name": "snapshot", "contentType": JSON,
                             "payload": {"$ref": "#/components/schemas/FeedSnapshot"}},
                "pong": {"name": "pong", "contentType": JSON, "payload": {"$ref": "#/components/schemas/FeedPong"}},
                "ping": {"name": "ping", "contentType": "text/plain", "payload": {"const": "ping"}},
            },
            "schemas": schemas,
        },
    }

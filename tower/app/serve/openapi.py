"""The OpenAPI 3.1 document of `tower serve` (served at `/api/openapi.json`, docs/serve.md): every operation of the
HTTP API, the lab's and the pages', each answer with its body, every refusal with the JSON error body, and the
server's limits (the values it runs with).

Built here from the same sources the server uses: the games' names, the limits, and the JSON Schemas of the files
and documents it sends (`tower.schemas`: a scene is `tower-scene/1`, a record `game-record/1`, a build
`tower-build/1`), so the document cannot drift from them. `tests/test_serve_openapi.py` fuzzes the server from it
with schemathesis.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tower.app.serve.limits import DEFAULT, DOCS, Limits
from tower.app.serve.table import NAME_MAX

OPENAPI_VERSION = "3.1.0"
JSON = "application/json"

#: Every refusal: status -> (component name, what it means).
ERRORS: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "the body is not JSON (or holds NaN), not an object, has unknown keys or wrong types; a move "
                        "text that is no move; an unknown game, seat or option (`where` names the JSON path)"),
    403: ("Forbidden", "the token opens no seat of this game (also a spectator's token asking to play)"),
    404: ("NotFound", "no such game, lab or path"),
    408: ("Timeout", "the body did not arrive within the limit `body_seconds`"),
    409: ("Conflict", "refused by the referee: out of turn, an illegal move (the rule broken), the game is over, a "
                      "stale `n`, an undo the rule refuses, the record of a game still running; in the lab an edit "
                      "the rules forbid or nothing to undo"),
    413: ("TooLarge", "the body is larger than the limit `body_bytes`, or a record or build past its size limits"),
    415: ("NotJson", "a POST not sent as `Content-Type: application/json`"),
    429: ("TooMany", "the client is over one of its limits (requests a second, games a minute, running games, replays "
                     "at a time); `Retry-After` says when to ask again"),
    503: ("Unavailable", "the database refused the write (locked past `db_lock_seconds`): nothing was changed"),
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


def _embed(doc: dict[str, Any], name: str, prefix: str) -> dict[str, Any]:
    """The JSON Schema `name` (tower.schemas) as component schemas: its `$defs` become `{prefix}_{def}` components
    and every `#/$defs/...` reference is pointed at them; returns a reference to the schema itself."""
    from tower.schemas import schema

    s = copy.deepcopy(schema(name))
    defs = s.pop("$defs", {})
    for key in ("$schema", "$id"):
        s.pop(key, None)
    text = json.dumps({"root": s, "defs": defs}).replace('"#/$defs/', f'"#/components/schemas/{prefix}_')
    moved = json.loads(text)
    components = doc["components"]["schemas"]
    components[prefix] = moved["root"]
    for key, value in moved["defs"].items():
        components[f"{prefix}_{key}"] = value
    return {"$ref": f"#/components/schemas/{prefix}"}


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
#: A POST without a body still says `application/json` (only the server's pages and scripts do; a form cannot).
EMPTY_JSON_BODY = {"required": False, "description": "no body, or `{}`; the request must still be sent as "
                                                     "`Content-Type: application/json` (415 otherwise): a form of "
                                                     "another site cannot",
                   "content": {JSON: {"schema": {"type": "object", "maxProperties": 0}}}}
#: The lab's undo, redo and drop read no body: it is ignored, but the request must say `application/json`.
IGNORED_BODY = {"required": False, "description": "none (a body is ignored); the request must still be sent as "
                                                  "`Content-Type: application/json` (415 otherwise)",
                "content": {JSON: {"schema": {}}}}


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
    schemas = doc["components"]["schemas"]
    scene = _embed(doc, "tower-scene", "Scene")
    record = _embed(doc, "game-record", "Record")
    build = _embed(doc, "tower-build", "Build")
    games = list(game_names())
    strings = {"type": "array", "items": {"type": "string"}}
    nullable_int = {"type": ["integer", "null"]}
    nullable_str = {"type": ["string", "null"]}
    schemas.update({
        "NewGame": {
            "type": "object", "required": ["game"], "additionalProperties": False,
            "properties": {
                "game": {"enum": games},
                "players": {"type": "integer", "minimum": 1, "maximum": limits.players,
                            "description": "default: the number of seats, or the game's usual count"},
                "seats": {"type": "array", "minItems": 1, "maxItems": limits.players,
                          "items": {"type": "string", "maxLength": 100},
                          "description": "`human` or an AI (a level: `ai:easy`, `ai:normal`, `ai:strong`; or a code "
                                         "name: `ai:greedy`, `ai:mcts:time=1`, ...) per seat; "
                                         "default: all human"},
                "seed": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1,
                         "description": "leave it out for a fair game: the server draws one"},
                "options": {"type": "object", "description": "the game's rule options (GET /api/catalogue)"},
            },
        },
        "NewGameAnswer": {
            "type": "object", "required": ["id", "seats", "spectator_url"],
            "properties": {
                "id": {"type": "string"},
                "seats": {"type": "array", "items": {
                    "type": "object", "required": ["seat", "url", "token"],
                    "properties": {"seat": {"type": "integer", "minimum": 0}, "url": {"type": "string"},
                                   "token": {"type": "string"}}}},
                "spectator_url": {"type": "string"},
            },
        },
        "GameAnswer": {
            "type": "object",
            "required": ["id", "game", "seat", "view", "to_move", "legal_moves", "n", "over", "result", "outcome"],
            "properties": {
                "id": {"type": "string"}, "game": {"enum": games},
                "seat": {**nullable_int, "description": "null for a spectator"},
                "view": {"type": "object", "description": "exactly `state.view(seat)` (a spectator's: the "
                                                          "public view); its fields are the game's"},
                "to_move": {**nullable_int, "description": "the seat to move; null once the game is over"},
                "legal_moves": {**strings, "description": "text forms; only for the seat to move, else empty"},
                "n": {"type": "integer", "minimum": 0, "description": "moves played"},
                "over": {"type": "boolean"}, "abandoned": {"type": "boolean"},
                "result": {"type": ["object", "null"]}, "outcome": nullable_str,
            },
        },
        "Move": {
            "type": "object", "required": ["move"], "additionalProperties": False,
            "properties": {
                "move": {"type": "string", "maxLength": 1000, "description": "a move in its text form"},
                "n": {"type": "integer", "minimum": 0,
                      "description": "moves the sender saw played: a retried request never plays twice"},
            },
        },
        "Hint": {"type": "object", "required": ["move", "n"],
                 "properties": {"move": {"type": "string"}, "n": {"type": "integer", "minimum": 0}}},
        "Snapshot": {
            "type": "object",
            "required": ["id", "game", "title", "seat", "n", "players", "to_move", "your_turn", "over", "result",
                         "outcome", "moves", "log", "undo", "scene"],
            "properties": {
                "id": {"type": "string"}, "game": {"enum": games}, "title": {"type": "string"},
                "credit": {"type": "string"}, "seat": nullable_int, "rev": {"type": "integer"},
                "n": {"type": "integer", "minimum": 0},
                "players": {"type": "array", "items": {"type": "object", "required": ["seat", "label"]}},
                "to_move": nullable_int, "your_turn": {"type": "boolean"}, "over": {"type": "boolean"},
                "result": {"type": ["object", "null"]}, "outcome": nullable_str,
                "construction": {"type": "boolean"}, "perfect_information": {"type": "boolean"},
                "moves": strings, "blocks": strings,
                "cells": {"type": "array", "items": {"type": "object"}},
                "log": {"type": "array"}, "undo": {"type": "boolean"}, "scene": scene,
            },
        },
        "Ghosts": {"type": "object", "required": ["block", "n", "ghosts"],
                   "properties": {"block": {"type": "string"}, "n": {"type": "integer", "minimum": 0},
                                  "ghosts": {"type": "array", "items": {"type": "object"}}}},
        "ReplayPage": {
            "type": "object", "required": ["game", "total", "from", "page", "frames"],
            "properties": {
                "game": {"enum": games}, "title": {"type": "string"}, "players": strings,
                "seat": nullable_int, "outcome": nullable_str, "total": {"type": "integer", "minimum": 0},
                "from": {"type": "integer", "minimum": 0}, "page": {"type": "integer", "minimum": 0},
                "frames": {"type": "array", "items": {
                    "type": "object", "required": ["k", "scene"],
                    "properties": {"k": {"type": "integer", "minimum": 0}, "scene": scene,
                                   "move": nullable_str, "player": nullable_int, "label": nullable_str}}},
                "moves": {"type": "array", "items": {"type": "object"},
                          "description": "every move (the page from 0 only)"},
            },
        },
        "Catalogue": {
            "type": "object", "required": ["games", "ai"],
            "properties": {
                "games": {"type": "array", "items": {
                    "type": "object", "required": ["name", "title", "players", "default_players", "options"],
                    "properties": {"name": {"enum": games}, "title": {"type": "string"},
                                   "credit": {"type": "string"},
                                   "players": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                                   "default_players": {"type": "integer", "minimum": 1},
                                   "options": {"type": "object"}, "choices": {"type": "object"},
                                   "perfect_information": {"type": "boolean"},
                                   "levels": {"type": "object", "description": "level -> the AI playing it"}}}},
                "ai": strings,
                "levels": {"type": "array", "description": "the AI levels by name: spec, label, text",
                           "items": {"type": "object"}},
            },
        },
        "NewLab": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "build": {"description": "a `tower-build/1` build to start from", **build},
                "rules": {"enum": ["strict", "flag", "free"]},
                "seed": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
                "start": {"enum": ["empty", "random"],
                          "description": "`empty` (default) or `random`: a random start tower of `seed`"},
            },
        },
        "LabState": {
            "type": "object",
            "required": ["id", "url", "rules", "edits", "can_undo", "can_redo", "build", "analysis", "scene"],
            "properties": {
                "id": {"type": "string"}, "url": {"type": "string"},
                "rules": {"enum": ["strict", "flag", "free"]}, "edits": {"type": "integer", "minimum": 0},
                "can_undo": {"type": "boolean"}, "can_redo": {"type": "boolean"},
                "undo": nullable_str, "redo": nullable_str, "max_blocks": {"type": "integer"},
                "build": build,
                "analysis": {"type": "object", "required": ["legal", "violations", "stability", "words"],
                             "properties": {"legal": {"type": "boolean"}, "violations": {"type": "array"},
                                            "stability": {"type": ["object", "null"]}, "words": strings}},
                "scene": scene,
                "did": {"type": "string", "description": "after an edit: the edit in words"},
            },
        },
        "LabEdit": {
            "type": "object", "required": ["op"],
            "description": "one edit: `add` (kind, origin, size?, top?, faces?, id?), `move` (block, origin, "
                           "size?, top?), `turn` (block, axis), `recolour` (block, top or faces), `delete` "
                           "(block), `figure` / `unfigure` (colour, cell), `stone` / `unstone` (colour, block), "
                           "`load` (build)",
            "properties": {"op": {"enum": ["add", "move", "turn", "delete", "figure", "unfigure", "stone",
                                           "unstone", "load", "recolour"]}},
        },
        "LabRules": {"type": "object", "required": ["rules"], "additionalProperties": False,
                     "properties": {"rules": {"enum": ["strict", "flag", "free"]}}},
        "LabPush": {"type": "object", "required": ["block", "direction"],
                    "properties": {"block": {"type": "string"}, "direction": {"enum": ["+x", "-x", "+y", "-y"]}}},
        "LabExplained": {"type": "object", "required": ["words", "edits"],
                         "description": "`forces`, `removal` or `push` (the physics of docs/physics.md), the same "
                                        "in words, the grid unit in metres and the edit it is of",
                         "properties": {"forces": {"type": "object"}, "removal": {"type": "object"},
                                        "push": {"type": ["object", "array"]}, "words": strings,
                                        "unit_m": {"type": "number"}, "edits": {"type": "integer"}}},
        "LabDrop": {"type": "object", "required": ["scene", "moved", "collapsed", "stability", "words"],
                    "description": "PyBullet's run of the build: the scene with the animation's frames (`frames`: "
                                   "poses a frame, grid units) and the blocks it moves",
                    "properties": {"scene": scene, "moved": strings, "collapsed": {"type": "boolean"},
                                   "stability": {"type": ["object", "null"]},
                                   "words": {"type": "string", "description": "what happened, in one line"}}},
        "LabPalette": {"type": "object", "required": ["kinds"],
                       "properties": {"kinds": {"type": "array", "items": {"type": "object",
                                                                           "required": ["name", "sizes"]}}}},
    })
    lab_changes = (400, 404, 408, 409, 413, 415, 429, 503)
    game_reads = (403, 404, 429, 503)
    p = doc["paths"]
    p["/api/openapi.json"] = {"get": _op(
        "openapi", "meta", "this document", _json({"type": "object"}, "the OpenAPI 3.1 document"), (429,))}
    p["/api/asyncapi.json"] = {"get": _op(
        "asyncapi", "meta", "the AsyncAPI 3.0 document of the WebSocket feed",
        _json({"type": "object"}, "the AsyncAPI document"), (429,))}
    p["/api/catalogue"] = {"get": _op(
        "catalogue", "meta", "the games, their player counts and rule options, the AIs", _json(_ref("Catalogue"),
                                                                                              "the catalogue"),
        (429,))}
    p["/api/games"] = {"post": _op(
        "createGame", "games", "create a game: a link and token for each human seat",
        _json(_ref("NewGameAnswer"), "the game's id, its seats' links and tokens, the spectators' link"),
        (400, 408, 413, 415, 429, 503), body={"required": True, "content": {JSON: {"schema": _ref("NewGame")}}},
        ok_status=201)}
    p["/api/games/{id}"] = {"get": _op(
        "getGame", "games", "the seat's view, whose turn, the legal moves",
        _json(_ref("GameAnswer"), "what the seat may see"), game_reads, [GAME_ID, TOKEN])}
    p["/api/games/{id}/moves"] = {"post": _op(
        "playMove", "games", "play a move for the seat", _json(_ref("GameAnswer"), "the game after the move"),
        (400, 403, 404, 408, 409, 413, 415, 429, 503), [GAME_ID, TOKEN],
        {"required": True, "content": {JSON: {"schema": _ref("Move")}}})}
    p["/api/games/{id}/undo"] = {"post": _op(
        "undoMove", "games", "take the seat's last move back (the undo rule of docs/serve.md)",
        _json(_ref("GameAnswer"), "the game after the take-back"), (400, 403, 404, 409, 413, 415, 429, 503),
        [GAME_ID, TOKEN], EMPTY_JSON_BODY)}
    p["/api/games/{id}/abandon"] = {"post": _op(
        "abandonGame", "games", "give the game up: it ends, abandoned", _json(_ref("GameAnswer"), "the ended game"),
        (400, 403, 404, 409, 413, 415, 429, 503), [GAME_ID, TOKEN], EMPTY_JSON_BODY)}
    p["/api/games/{id}/name"] = {"post": _op(
        "nameSeat", "games", "the seat's name, shown to everyone",
        _json({"type": "object", "required": ["seat", "name"],
               "properties": {"seat": {"type": "integer", "minimum": 0}, "name": {"type": "string"}}},
              "the seat and its name as kept"),
        (400, 403, 404, 408, 409, 413, 415, 429, 503), [GAME_ID, TOKEN],
        {"required": True, "content": {JSON: {"schema": {
            "type": "object", "required": ["name"], "additionalProperties": False,
            "properties": {"name": {"type": "string", "description": f"printable text; spaces are squeezed, and "
                                                                    f"then it may be {NAME_MAX} characters at most "
                                                                    f"(400 otherwise); empty clears the name"}}}}}})}
    p["/api/games/{id}/rematch"] = {"post": _op(
        "rematch", "games", "the same table again (game, seats, options; a new deal), once; each seat gets its new "
                            "link", _json({"type": "object", "required": ["id", "url"],
                                           "properties": {"id": {"type": "string"}, "url": {"type": "string"}}},
                                          "the new game and the asking seat's link to it"),
        (400, 403, 404, 408, 409, 413, 415, 429, 503), [GAME_ID, TOKEN],
        {"required": True, "content": {JSON: {"schema": {"type": "object", "maxProperties": 0}}}}, ok_status=201)}
    p["/api/games/{id}/placements"] = {"get": _op(
        "placements", "games", "The Climbers: every legal placement of one block, for aiming it on the page",
        _json({"type": "object", "required": ["n", "block", "placements"],
               "properties": {"n": {"type": "integer", "minimum": 0}, "block": {"type": "string"},
                              "placements": {"type": "array", "items": {"type": "array"}}}},
              "the placements, their shapes and words"),
        (400, 403, 404, 409, 429, 503),
        [GAME_ID, TOKEN, _param("block", "query", "the block's id", {"type": "string", "maxLength": 64})])}
    p["/api/games/{id}/hint"] = {"get": _op(
        "hint", "games", "a move for the seat to move (an AI thinking on what the seat may know)",
        _json(_ref("Hint"), "the hint"), (403, 404, 409, 429, 503), [GAME_ID, TOKEN])}
    p["/api/games/{id}/snapshot"] = {"get": _op(
        "snapshot", "games", "what the seat's page shows, with the scene (`tower-scene/1`)",
        _json(_ref("Snapshot"), "the snapshot"), game_reads, [GAME_ID, TOKEN])}
    p["/api/games/{id}/ghosts"] = {"get": _op(
        "ghosts", "games", "The Climbers: the legal placements of one block, as ghost blocks",
        _json(_ref("Ghosts"), "the placements"), (400, 403, 404, 409, 429, 503),
        [GAME_ID, TOKEN, _param("block", "query", "the block's id", {"type": "string", "maxLength": 64})])}
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
        _json(_ref("ReplayPage"), "the page"), (400, 408, 413, 415, 429), [SEAT, FROM, COUNT],
        {"required": True, "content": {JSON: {"schema": record}}})}
    p["/api/lab"] = {
        "get": _op("labPalette", "lab", "the kinds of block and their orientations",
                   _json(_ref("LabPalette"), "the palette"), (429,)),
        "post": _op("createLab", "lab", "a new lab (empty, a start tower, or a build)",
                    _json(_ref("LabState"), "the lab"), (400, 408, 413, 415, 429, 503),
                    body={"required": True, "content": {JSON: {"schema": _ref("NewLab")}}}, ok_status=201)}
    p["/api/lab/{id}"] = {"get": _op("getLab", "lab", "the lab: its build, analysis and scene",
                                     _json(_ref("LabState"), "the lab"), (404, 429, 503), [LAB_ID])}
    p["/api/lab/{id}/edits"] = {"post": _op(
        "editLab", "lab", "one edit of the build (refused when the rules forbid it)",
        _json(_ref("LabState"), "the lab after the edit"), lab_changes, [LAB_ID],
        {"required": True, "content": {JSON: {"schema": _ref("LabEdit")}}})}
    for name, what in (("undo", "take the last edit back"), ("redo", "do the edit taken back again")):
        p[f"/api/lab/{{id}}/{name}"] = {"post": _op(
            f"{name}Lab", "lab", what, _json(_ref("LabState"), "the lab"), lab_changes, [LAB_ID], IGNORED_BODY)}
    p["/api/lab/{id}/rules"] = {"post": _op(
        "labRules", "lab", "strict, flag or free: how the game's rules apply", _json(_ref("LabState"), "the lab"),
        lab_changes, [LAB_ID], {"required": True, "content": {JSON: {"schema": _ref("LabRules")}}})}
    p["/api/lab/{id}/drop"] = {"post": _op(
        "dropLab", "lab", "PyBullet's run of the build, for the drop animation", _json(_ref("LabDrop"), "the run"),
        lab_changes, [LAB_ID], IGNORED_BODY)}
    for name, what in (("forces", "the contact forces"), ("removal", "the removal map")):
        p[f"/api/lab/{{id}}/{name}"] = {"get": _op(
            f"lab{name.title()}", "lab", what, _json(_ref("LabExplained"), what), (404, 409, 429, 503), [LAB_ID])}
    p["/api/lab/{id}/push"] = {"post": _op(
        "labPush", "lab", "the push a block takes before it moves", _json(_ref("LabExplained"), "the push"),
        lab_changes, [LAB_ID], {"required": True, "content": {JSON: {"schema": _ref("LabPush")}}})}
    p["/api/lab/{id}/overlays"] = {"get": _op(
        "labOverlays", "lab", "the lab's scene with physics overlays (what the page's toggles and push test draw)",
        _json({"type": "object", "required": ["scene", "words", "edits"],
               "properties": {"scene": scene, "words": strings, "edits": {"type": "integer", "minimum": 0}}},
              "the scene with its overlays, and their words"),
        (400, 404, 409, 429, 503),
        [LAB_ID, _param("show", "query", "overlays, comma-separated: `forces`, `removal`",
                        {"type": "string", "pattern": "^((forces|removal)(,(forces|removal))*)?$"}),
         _param("push", "query", "push tests, comma-separated `BLOCK:DIR` (DIR `+x`, `-x`, `+y`, `-y`; at most 4 "
                                 "are drawn)", {"type": "string", "maxLength": 400})])}
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
        {"description": "the file", "content": {"*/*": {"schema": {}}}}, (404,),
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

"""The component schemas of `tower serve`'s OpenAPI document (tower/app/serve/openapi.py): every body the server
reads and every answer it sends, each a named component so that a generated client gets readable model names.

A request body's schema says what the server refuses with 400: types, keys, ranges, the server's limits (a
build's blocks, a record's moves, a game's players and options), and per game its player counts, its options
and their choices, and what the strict reader refuses (tower/games/reader.py: whole numbers past I-JSON's
range, control and bidirectional characters in ids). What a schema cannot say is refused with 409 by the rules
(docs/serve.md): a move text that is no move of the game, a build whose block ids repeat, a record whose moves do not replay, an option's text the game cannot read, an edit of a
block the lab does not have.

The file formats are the shipped JSON Schemas (`tower.schemas`), embedded: a scene is `tower-scene/1`, a record
`game-record/1`, a build `tower-build/1`.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tower.app.serve.limits import Limits
from tower.games.reader import MAX_WHOLE, NAME_PATTERN
from tower.games.records import MAX_SEED

STRINGS = {"type": "array", "items": {"type": "string"}}
NULLABLE_INT = {"type": ["integer", "null"]}
NULLABLE_STR = {"type": ["string", "null"]}
ANY_OBJECT = {"type": "object"}
PUSH_DIRECTIONS = ["+x", "-x", "+y", "-y"]
#: Their names in a generated client (openapi-python-client's `x-enum-varnames`; else `VALUE_0`...)
PUSH_NAMES = ["PLUS_X", "MINUS_X", "PLUS_Y", "MINUS_Y"]
RULE_SETS = ["strict", "flag", "free"]


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def embed(schemas: dict[str, Any], name: str, prefix: str) -> dict[str, Any]:
    """The JSON Schema `name` (tower.schemas) as component schemas: its `$defs` become `{prefix}_{def}` components
    and every reference to them is pointed there; returns a reference to the schema itself."""
    from tower.schemas import schema

    s = copy.deepcopy(schema(name))
    defs = s.pop("$defs", {})
    root_id = s.pop("$id")
    s.pop("$schema", None)
    s.pop("title", None)  # a generated client names its model after the title, not the component, if it has one
    text = json.dumps({"root": s, "defs": defs})
    for key, value in defs.items():
        if any(isinstance(v, dict | list) for v in value.get("enum", ())):
            # an enum of objects (a build's face colourings) is written out where it is used: a generated
            # client's models cannot hold one (openapi-python-client drops it, and what refers to it)
            text = text.replace(json.dumps({"$ref": f"{root_id}#/$defs/{key}"}), json.dumps(value))
    text = text.replace(f'"{root_id}#/$defs/', f'"#/components/schemas/{prefix}_')
    moved = json.loads(text)
    schemas[prefix] = moved["root"]
    for key, value in moved["defs"].items():
        if f'"#/components/schemas/{prefix}_{key}"' in text:
            schemas[f"{prefix}_{key}"] = value
    return ref(prefix)


def upto(n: int, width: int = 6) -> str:
    """A regular expression of the whole numbers 0 to `n` written with at most `width` digits (leading zeros
    allowed), as `tower.app.serve.lobby.check_option_sizes` reads the numbers in a text option."""
    if n >= 10**width - 1:
        return f"[0-9]{{1,{width}}}"
    s, alts = str(n), []
    for k in range(1, len(s)):  # the shorter numbers
        alts.append(f"0{{0,{width - k}}}" + ("[0-9]" if k == 1 else "[1-9]" + "[0-9]" * (k - 1)))
    zeros = f"0{{0,{width - len(s)}}}"
    for i, digit in enumerate(s):  # as long as n, below it from digit i on
        lo = 1 if i == 0 and len(s) > 1 else 0
        if int(digit) > lo:
            alts.append(zeros + s[:i] + f"[{lo}-{int(digit) - 1}]" + "[0-9]" * (len(s) - i - 1))
    alts.append(zeros + s)
    return "(?:" + "|".join(alts) + ")"


def _option(default: Any, choices: tuple[Any, ...] | None, limits: Limits) -> dict[str, Any]:
    """What the server takes for one rule option of a game: the type of its default, within the server's limits
    (`tower.app.serve.lobby.check_option_sizes`), one of its choices when the game lists them."""
    if isinstance(default, bool):
        out: dict[str, Any] = {"type": "boolean"}
    elif isinstance(default, int):
        out = {"type": "integer", "minimum": -limits.option_number, "maximum": limits.option_number}
    elif isinstance(default, str):
        number = upto(limits.option_text_number)
        out = {"type": "string", "maxLength": limits.option_text, "pattern": f"^[^0-9]*(?:{number}[^0-9]+)*{number}?$",
               "description": f"no number in it above {limits.option_text_number} (the limit `option_text_number`)"}
    else:  # The Climbers' `start`: a build, or null for the random start tower
        return {"oneOf": [{"type": "null"}, ref("LabBuild")],
                "description": "a `tower-build/1` build to start from (null: a random start tower)"}
    if choices:
        return {"enum": [c for c in choices if out["type"] != "integer" or abs(c) <= limits.option_number]}
    return out


def game_rules(limits: Limits) -> dict[str, Any]:
    """Per game (`{name}Options` components and one `if`/`then` each): its player counts on this server and its
    rule options, each of its own type, within the server's limits."""
    from tower.games.registry import game_class, game_names

    schemas: dict[str, Any] = {}
    branches = []
    for name in game_names():
        cls = game_class(name)
        component = "".join(part.title() for part in name.split("-")) + "Options"
        schemas[component] = {
            "type": "object", "additionalProperties": False,
            "description": f"the rule options of {cls.title or name} (GET /api/catalogue: defaults and choices)",
            "properties": {key: _option(value, cls.option_choices.get(key), limits)
                           for key, value in cls.default_options.items()}}
        counts = [n for n in cls.allowed_players() if n <= limits.players]
        branches.append({"if": {"properties": {"game": {"const": name}}},
                         "then": {"properties": {"players": {"enum": counts},
                                                 "seats": {"anyOf": [{"minItems": n, "maxItems": n}
                                                                     for n in counts]},
                                                 "options": ref(component)}}})
    return {"schemas": schemas, "per_game": branches}


def _new_games(per_game: list[dict[str, Any]], limits: Limits) -> dict[str, Any]:
    """`NewGame`: one of a component a game (`NewClimbersGame`, ...), told apart by `game` (a discriminator), each
    with that game's player counts and its own options: a generated client has a typed model for each (a
    generator drops `if`/`then`, with which the four options models went unused)."""
    out: dict[str, Any] = {}
    mapping = {}
    for branch in per_game:
        name = branch["if"]["properties"]["game"]["const"]
        then = branch["then"]["properties"]
        counts = then["players"]["enum"]
        component = "New" + "".join(part.title() for part in name.split("-")) + "Game"
        mapping[name] = f"#/components/schemas/{component}"
        contiguous = counts == list(range(counts[0], counts[-1] + 1))
        players = {"type": "integer", "minimum": counts[0], "maximum": counts[-1]} if contiguous else \
            {"type": "integer", "enum": counts}
        seats = {"type": "array", "minItems": counts[0], "maxItems": counts[-1], "items": ref("SeatSpec")}
        # a count between them that the game does not take (Partners: 4 or 6) is refused beside the property,
        # not in it: a generator makes `Any` of an array with an `anyOf`
        gaps = [{"if": {"required": ["seats"], "properties": {"seats": {"minItems": k, "maxItems": k}}},
                 "then": False} for k in range(counts[0], counts[-1] + 1) if k not in counts]
        out[component] = {
            "type": "object", "required": ["game"], "additionalProperties": False,
            "description": f"a new game of {name}",
            "properties": {
                "game": {"type": "string", "const": name},
                "players": {**players, "description": "one of the game's counts; default: the number of seats, or "
                                                      "the game's usual count"},
                "seats": {**seats, "description": "per seat `human` or an AI; default: all human"},
                "seed": {"type": "integer", "minimum": 0, "maximum": MAX_SEED,
                         "description": "leave it out for a fair game: the server draws one"},
                "options": {**then["options"], "description": "the game's rule options"},
            },
            "allOf": _seat_counts(limits) + gaps,
        }
    out["NewGame"] = {"description": "a new game: its name, players, seats, seed and options",
                      "oneOf": [{"$ref": target} for target in mapping.values()],
                      "discriminator": {"propertyName": "game", "mapping": mapping}}
    return out


def _seat_counts(limits: Limits) -> list[dict[str, Any]]:
    """`players` and `seats`, when both are given, agree: one `if`/`then` a count."""
    return [{"if": {"required": ["players", "seats"], "properties": {"players": {"const": n}}},
             "then": {"properties": {"seats": {"minItems": n, "maxItems": n}}}} for n in range(1, limits.players + 1)]


def _lab_edits(build: dict[str, Any]) -> dict[str, Any]:
    """One component per kind of lab edit (docs/lab.md), and `LabEdit`: one of them."""
    from tower.app.lab.controller import KIND_BY_NAME, kind_sizes
    from tower.schemas import schema

    colourings = schema("tower-build")["$defs"]

    cell = {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "integer"},
            "description": "[x, y, z], grid units"}
    block = {"type": "string", "maxLength": 64, "pattern": NAME_PATTERN,
             "description": "a block of the lab's build (409 if it has none of that id)"}
    colour, player_colour = ref("Build_colour"), ref("Build_playerColour")
    faces = {"$ref": "#/components/schemas/Build_faces",
             "description": "all six faces (409 unless a colouring the block's kind has)"}
    kinds = []
    for name, kind in KIND_BY_NAME.items():
        then: dict[str, Any] = {"size": {"enum": [list(s) for s in kind_sizes(name)]}}
        if not kind.coloured:
            then.update(top={"const": "grey"}, faces=colourings["greyFaces"])
        else:
            then["faces"] = colourings["colouredFaces"]
        kinds.append({"if": {"properties": {"kind": {"const": name}}}, "then": {"properties": then}})
    edits: dict[str, dict[str, Any]] = {
        "add": {"required": ["kind", "origin"], "properties": {
            "kind": {"enum": list(KIND_BY_NAME)}, "origin": cell,
            "size": {**cell, "description": "one of the kind's orientations (default: its first)"},
            "top": {**colour, "description": "the colour on top (a grey block's is grey)"}, "faces": faces,
            "id": {"type": "string", "maxLength": 64, "pattern": NAME_PATTERN, "description": "a new id (empty or left out: one is made; "
                                                                     "409 if taken)"}},
            "allOf": kinds},
        "move": {"required": ["block", "origin"], "properties": {
            "block": block, "origin": cell,
            "size": {**cell, "description": "turned at once to this orientation (409 if the block has none)"},
            "top": {**colour, "description": "with `size`: the colour on top"}}},
        "turn": {"required": ["block"], "properties": {"block": block,
                                                       "axis": {"enum": ["x", "y", "z"], "description": "default z"}}},
        "recolour": {"required": ["block"], "properties": {"block": block, "top": colour, "faces": faces}},
        "delete": {"required": ["block"], "properties": {"block": block}},
        "figure": {"required": ["colour", "cell"], "properties": {"colour": player_colour, "cell": cell}},
        "unfigure": {"required": ["colour"], "properties": {"colour": player_colour}},
        "stone": {"required": ["colour", "block"], "properties": {"colour": player_colour, "block": block}},
        "unstone": {"required": ["colour"], "properties": {"colour": player_colour}},
        "load": {"required": ["build"], "properties": {"build": build}},
    }
    out: dict[str, Any] = {}
    for op, s in edits.items():
        name = "Lab" + op.title()
        out[name] = {"type": "object", "additionalProperties": False, **s,
                     "required": ["op", *s["required"]], "properties": {"op": {"const": op}, **s["properties"]}}
    out["LabEdit"] = {"description": "one edit of the lab's build (docs/lab.md)",
                      "oneOf": [ref("Lab" + op.title()) for op in edits]}
    return out


def components(limits: Limits, games: list[str]) -> dict[str, Any]:
    """Every component schema of the document of a server with `limits` that runs `games`."""
    from tower.app.serve.table import NAME_MAX

    schemas: dict[str, Any] = {}
    scene = embed(schemas, "tower-scene", "Scene")
    record = embed(schemas, "game-record", "Record")
    embed(schemas, "tower-build", "Build")  # the file format: LabBuild and SavedBuild are made from it
    rules = game_rules(limits)
    schemas.update(rules["schemas"])
    # a build as the server writes it (the lab's answers): every block has its id, so a client may rely on it
    saved_block = copy.deepcopy(schemas["Build_block"])
    saved_block["required"] = ["id", *saved_block["required"]]
    saved = copy.deepcopy(schemas["Build"])
    saved["properties"]["blocks"]["items"] = ref("SavedBlock")
    saved["description"] = "a `tower-build/1` build as the server writes it: every block with its id"
    schemas.update(SavedBuild=saved, SavedBlock=saved_block)
    # what the server takes: the file formats within its limits
    lab_build = copy.deepcopy(schemas["Build"])
    lab_build["properties"]["blocks"]["maxItems"] = limits.blocks_per_build
    lab_build["description"] = f"a `tower-build/1` build of at most {limits.blocks_per_build} blocks (the limit " \
                               f"`blocks_per_build`)"
    upload = copy.deepcopy(schemas["Record"])
    upload["properties"]["game"] = ref("GameName")
    upload["properties"]["players"]["maximum"] = limits.players
    upload["properties"]["moves"]["maxItems"] = limits.record_moves
    # the server's games write every move as its text; the object form a record may hold is The Climbers' older
    # figure move (a game of another package may have others: the record format leaves them open)
    cell = {"type": "array", "minItems": 3, "maxItems": 3,
            "items": {"type": "integer", "minimum": -10_000, "maximum": 10_000}}
    upload["properties"]["moves"]["items"] = {"oneOf": [
        {"type": "string", "description": "a move in its text form"},
        {"type": "object", "required": ["fig"], "additionalProperties": False,
         "description": "an older Climbers figure move (the path is recomputed by the game)",
         "properties": {"fig": {"type": "string"}, "path": {"type": "array", "items": cell}}}]}
    upload["allOf"] = [{"if": b["if"], "then": {"properties": {k: v for k, v in b["then"]["properties"].items()
                                                               if k != "seats"}}} for b in rules["per_game"]]
    upload["description"] = "a `game-record/1` record of a game of this server, within its limits (409 if its " \
                            "moves do not replay)"
    schemas.update({
        "LabBuild": lab_build,
        "RecordUpload": upload,
        **_new_games(rules["per_game"], limits),
        "SeatSpec": _seat_spec(),
        "NewGameAnswer": {"type": "object", "required": ["id", "seats", "spectator_url"],
                          "properties": {"id": {"type": "string"},
                                         "seats": {"type": "array", "items": ref("SeatLink")},
                                         "spectator_url": {"type": "string"}}},
        "SeatLink": {"type": "object", "required": ["seat", "url", "token"],
                     "description": "a human seat's link and token (the link is the seat)",
                     "properties": {"seat": {"type": "integer", "minimum": 0}, "url": {"type": "string"},
                                    "token": {"type": "string"}}},
        "GameAnswer": {
            "type": "object",
            "required": ["id", "game", "seat", "view", "to_move", "legal_moves", "n", "over", "result", "outcome"],
            "properties": {
                "id": {"type": "string"}, "game": ref("GameName"),
                "seat": {**NULLABLE_INT, "description": "null for a spectator"},
                "view": {**ANY_OBJECT, "description": "exactly `state.view(seat)` (a spectator's: the public view); "
                                                      "its fields are the game's"},
                "to_move": {**NULLABLE_INT, "description": "the seat to move; null once the game is over"},
                "legal_moves": {**STRINGS, "description": "text forms; only for the seat to move, else empty; "
                                                          "a construction game's block placements are not listed"},
                "blocks": {**STRINGS, "description": "construction games: the blocks the seat to move may place "
                                                     "(each one's placements: `/placements?block=`)"},
                "n": {"type": "integer", "minimum": 0, "description": "moves played"},
                "over": {"type": "boolean"}, "abandoned": {"type": "boolean"},
                "result": {"oneOf": [{"type": "null"}, ref("Result")]}, "outcome": NULLABLE_STR,
            },
        },
        "Move": {
            "type": "object", "required": ["move"], "additionalProperties": False,
            "properties": {
                "move": {"type": "string", "maxLength": 200,
                         "description": "a move in its text form (409 `bad-move-text` if the game has no move of that "
                                        "text, as a record's move that does not replay is refused)"},
                "n": {"type": "integer", "minimum": 0,
                      "description": "moves the sender saw played: a retried request never plays twice"},
            },
        },
        "NewName": {"type": "object", "required": ["name"], "additionalProperties": False,
                    "properties": {"name": {"type": "string", "maxLength": NAME_MAX,
                                            "description": "printable text (other characters become spaces, "
                                                           "spaces are squeezed); empty clears the name"}}},
        "SeatName": {"type": "object", "required": ["seat", "name"],
                     "properties": {"seat": {"type": "integer", "minimum": 0}, "name": {"type": "string"}}},
        "Rematch": {"type": "object", "required": ["id", "url"],
                    "properties": {"id": {"type": "string"}, "url": {"type": "string"}}},
        "Hint": {"type": "object", "required": ["move", "n"],
                 "properties": {"move": {"type": "string"}, "n": {"type": "integer", "minimum": 0}}},
        "Snapshot": {
            "type": "object",
            "required": ["id", "game", "title", "seat", "n", "players", "to_move", "your_turn", "over", "result",
                         "outcome", "moves", "log", "undo", "scene"],
            "properties": {
                "id": {"type": "string"}, "game": ref("GameName"), "title": {"type": "string"},
                "credit": {"type": "string"}, "seat": NULLABLE_INT, "rev": {"type": "integer"},
                "n": {"type": "integer", "minimum": 0},
                "players": {"type": "array", "items": ref("SnapshotPlayer")},
                "to_move": NULLABLE_INT, "your_turn": {"type": "boolean"}, "over": {"type": "boolean"},
                "result": {"oneOf": [{"type": "null"}, ref("Result")]}, "outcome": NULLABLE_STR,
                "construction": {"type": "boolean"}, "perfect_information": {"type": "boolean"},
                "moves": {**STRINGS, "description": "the seat's legal moves (text forms)"},
                "words": {"type": "object", "additionalProperties": {"type": "string"},
                          "description": "each of `moves` in words"},
                "prompt": {**NULLABLE_STR, "description": "what to do now, in words (the seat to move)"},
                "how_to_play": {"type": "string"}, "rematch": NULLABLE_STR,
                "blocks": {**STRINGS, "description": "The Climbers: the blocks the seat may move now"},
                "cells": {"type": "array", "items": ref("SnapshotCell")},
                "stuck": {"type": "object", "additionalProperties": {"type": "string"},
                          "description": "The Climbers: block id -> what a click on it says when it chooses no "
                                         "move (\"\": a click on nothing)"},
                "pointing": {"type": ["object", "null"],
                             "description": "a card game, the seat to move: the click path of every legal move "
                                            "and the spots they click (viewer/cards/pointing.py CardTable)"},
                "log": {"type": "array", "items": ref("LogEntry")}, "undo": {"type": "boolean"}, "scene": scene,
            },
        },
        "SnapshotPlayer": {"type": "object", "required": ["seat", "label"],
                           "properties": {"seat": {"type": "integer", "minimum": 0}, "label": {"type": "string"},
                                          "kind": {"type": "string"}, "name": {"type": "string"}}},
        "SnapshotCell": {"type": "object", "required": ["cell", "moves"],
                         "description": "a cell the seat may click, with the moves that go there (a figure's destination, a free top the stone may be laid on)",
                         "properties": {"cell": {"type": "array", "items": {"type": "number"}},
                                        "moves": STRINGS}},
        "LogEntry": {"type": "object", "required": ["n", "player", "label", "text"],
                     "properties": {"n": {"type": "integer", "minimum": 0}, "player": {"type": "integer"},
                                    "label": {"type": "string"}, "text": {"type": "string"},
                                    "words": {"type": "string"}}},
        "BlockGhosts": {"type": "object", "required": ["block", "n", "ghosts"],
                   "properties": {"block": {"type": "string"}, "n": {"type": "integer", "minimum": 0},
                                  "ghosts": {"type": "array", "items": ref("Scene_ghost")}}},
        "BlockPlacements": {"type": "object", "required": ["n", "block", "placements"],
                       "description": "every legal placement of one block, with its shapes and words "
                                      "(`viewer.placement`)",
                       "properties": {"n": {"type": "integer", "minimum": 0}, "block": {"type": "string"},
                                      "placements": {"type": "array", "items": ref("PlacementRow")}}},
        "PlacementRow": {"type": "array", "minItems": 6, "maxItems": 6,
                         "items": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
                         "description": "one placement: x, y, z of its origin (grid units), the index of its shape "
                                        "in `shapes`, its move text and the move in words"},
        "ReplayPage": {
            "type": "object", "required": ["game", "total", "from", "page", "frames"],
            "properties": {
                "game": ref("GameName"), "title": {"type": "string"}, "players": STRINGS,
                "seat": NULLABLE_INT, "outcome": NULLABLE_STR, "total": {"type": "integer", "minimum": 0},
                "from": {"type": "integer", "minimum": 0}, "page": {"type": "integer", "minimum": 0},
                "construction": {"type": "boolean"},
                "frames": {"type": "array", "items": ref("ReplayFrame")},
                "moves": {"type": "array", "items": ref("ReplayMove"),
                          "description": "every move (the page from 0 only)"},
            },
        },
        "ReplayFrame": {"type": "object", "required": ["k", "scene"],
                        "properties": {"k": {"type": "integer", "minimum": 0}, "scene": scene,
                                       "move": NULLABLE_STR, "player": NULLABLE_INT, "label": NULLABLE_STR,
                                       "words": {**NULLABLE_STR, "description": "the move in words"}}},
        "ReplayMove": {"type": "object", "required": ["move", "player"],
                       "properties": {"move": {"type": "string"}, "player": {"type": "integer"},
                                      "label": {"type": "string"},
                                      "words": {"type": "string", "description": "the move in words"}}},
        "Catalogue": {"type": "object", "required": ["games", "ai"],
                      "properties": {"games": {"type": "array", "items": ref("CatalogueGame")}, "ai": STRINGS,
                                     "levels": {"type": "array", "description": "the AI levels by name, weakest "
                                                "first: their seat spec, label and what they do",
                                                "items": {"type": "object", "required": ["spec", "label", "text"],
                                                          "properties": {"spec": {"type": "string"},
                                                                         "label": {"type": "string"},
                                                                         "text": {"type": "string"}}}}}},
        "CatalogueGame": {
            "type": "object", "required": ["name", "title", "players", "default_players", "options"],
            "properties": {"name": ref("GameName"), "title": {"type": "string"}, "credit": {"type": "string"},
                           "players": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                           "default_players": {"type": "integer", "minimum": 1},
                           "options": ANY_OBJECT, "choices": ANY_OBJECT, "help": ANY_OBJECT,
                           "build_option": NULLABLE_STR, "how_to_play": {"type": "string"},
                           "perfect_information": {"type": "boolean"},
                           "levels": {"type": "object", "description": "level -> the code name of the AI playing it "
                                      "in this game", "additionalProperties": {"type": "string"}}}},
        "NewLab": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "build": {"description": "a build to start from (409 if the rule set refuses it)", **ref("LabBuild")},
                "rules": ref("RuleSet"),
                "seed": {"type": "integer", "minimum": 0, "maximum": MAX_SEED},
                "start": {"enum": ["empty", "random"],
                          "description": "`empty` (default) or `random`: a random start tower of `seed`"},
            },
        },
        "LabState": {
            "type": "object",
            "required": ["id", "url", "rules", "edits", "can_undo", "can_redo", "build", "analysis", "scene"],
            "properties": {
                "id": {"type": "string"}, "url": {"type": "string"},
                "rules": ref("RuleSet"), "edits": {"type": "integer", "minimum": 0},
                "can_undo": {"type": "boolean"}, "can_redo": {"type": "boolean"},
                "undo": NULLABLE_STR, "redo": NULLABLE_STR, "max_blocks": {"type": "integer"},
                "build": ref("SavedBuild"), "analysis": ref("LabAnalysis"), "scene": scene,
                "did": {"type": "string", "description": "after an edit: the edit in words"},
            },
        },
        "LabAnalysis": {"type": "object", "required": ["legal", "violations", "stability", "words"],
                        "properties": {"legal": {"type": "boolean"},
                                       "violations": {"type": "array", "items": ANY_OBJECT},
                                       "stability": {"oneOf": [{"type": "null"}, ref("StabilityVerdict")]}, "words": STRINGS}},
        "LabRules": {"type": "object", "required": ["rules"], "additionalProperties": False,
                     "properties": {"rules": ref("RuleSet")}},
        "LabPush": {"type": "object", "required": ["block", "direction"], "additionalProperties": False,
                    "properties": {"block": {"type": "string", "maxLength": 64, "pattern": NAME_PATTERN,
                                             "description": "409 if the build has no such block"},
                                   "direction": {"enum": PUSH_DIRECTIONS, "x-enum-varnames": PUSH_NAMES}}},
        "LabExplained": {"type": "object", "required": ["words", "edits"],
                         "description": "`forces`, `removal` or `push` (the physics of docs/physics.md, as "
                                        "`tower check --json` gives them), the same in words, the grid unit in "
                                        "metres and the edit it is of",
                         "properties": {"forces": ANY_OBJECT, "removal": ANY_OBJECT, "push": ANY_OBJECT,
                                        "words": STRINGS, "unit_m": {"type": "number"}, "edits": {"type": "integer"}}},
        "LabRemovalProgress": {
            "type": "object", "required": ["state", "done", "total", "edits", "blocks", "message", "palette"],
            "properties": {"state": {"enum": ["idle", "waiting", "working", "done", "stopped"]},
                           "done": {"type": "integer"}, "total": {"type": "integer"}, "edits": {"type": "integer"},
                           "blocks": {"type": "array", "items": {
                               "type": "object", "required": ["block", "class", "verdict"],
                               "properties": {"block": {"type": "string"},
                                              "class": {"enum": ["safe", "risky", "brings-down"]},
                                              "verdict": {"enum": ["stands", "marginal", "falls"]}}}},
                           "message": {"type": "string"}, "palette": ANY_OBJECT}},
        "LabDrop": {"type": "object", "required": ["scene", "moved", "collapsed", "stability", "words"],
                    "description": "PyBullet's run of the build: the scene with the animation's frames (`frames`: "
                                   "poses a frame, grid units) and the blocks it moves",
                    "properties": {"scene": scene, "moved": STRINGS, "collapsed": {"type": "boolean"},
                                   "stability": {"oneOf": [{"type": "null"}, ref("StabilityVerdict")]},
                                   "words": {"type": "string", "description": "what happened, in one line"}}},
        "LabOverlays": {"type": "object", "required": ["scene", "words", "edits"],
                        "properties": {"scene": scene, "words": STRINGS, "edits": {"type": "integer", "minimum": 0}}},
        "LabPalette": {"type": "object", "required": ["kinds"],
                       "properties": {"kinds": {"type": "array", "items": ref("LabKind")}}},
        "LabKind": {"type": "object", "required": ["name", "sizes"],
                    "properties": {"name": {"type": "string"},
                                   "sizes": {"type": "array", "items": {"type": "array",
                                                                        "items": {"type": "integer"}}},
                                   "tops": {"type": "object", "additionalProperties": STRINGS}}},
        "Document": {"type": "object", "description": "a JSON document (the OpenAPI or AsyncAPI document)"},
        "GameName": {"enum": games, "description": "a game of this server"},
        "RuleSet": {"enum": RULE_SETS, "description": "how the lab applies the game's rules (docs/lab.md)"},
        "Result": {"type": "object", "description": "the game's result once it is over (its fields are the game's)",
                   "properties": {"winners": {"type": "array", "items": {"type": "integer"}},
                                  "scores": {"type": "array", "items": {"type": "number"}}}},
        "StabilityVerdict": {"type": "object", "required": ["verdict", "statics", "dynamics"],
                    "description": "the stability verdict of `tower check --json` (`tower-check/1`'s `stability`)",
                    "properties": {"verdict": {"enum": ["stable", "marginal", "collapses"]},
                                   "statics": ANY_OBJECT, "dynamics": {"type": ["object", "null"]}}},
    })
    schemas.update(_lab_edits(ref("LabBuild")))
    schemas.update(_lab_hand())
    _bound_whole_numbers(schemas)
    return {"schemas": schemas, "record": record, "build": ref("SavedBuild"), "scene": scene}


def _bound_whole_numbers(node: Any) -> None:
    """Every `integer` without a bound of its own gets I-JSON's (+-(2^53 - 1), tower/games/reader.py): the
    server's reader refuses a whole number beyond it, so the document says so (a generated request within the
    document is never refused for it)."""
    if isinstance(node, dict):
        kinds = node.get("type")
        if kinds == "integer" or (isinstance(kinds, list) and "integer" in kinds):
            node.setdefault("minimum", -MAX_WHOLE)
            node.setdefault("maximum", MAX_WHOLE)
        for value in node.values():
            _bound_whole_numbers(value)
    elif isinstance(node, list):
        for value in node:
            _bound_whole_numbers(value)


#: An AI's `time` (seconds, more than 0 and at most 10) and `iters` (1 to 50,000) within the server's bounds
#: (`tower.app.serve.workers`), written into its grammar; tests/test_serve_openapi.py holds them to the server.
TIME = r"time=(?:10(?:\.0{1,3})?|0?[1-9](?:\.[0-9]{1,3})?|0{1,2}\.(?:[1-9][0-9]{0,2}|0[1-9][0-9]?|00[1-9]))"
ITERS = r"iters=(?:0{0,5}[1-9]|0{0,4}[1-9][0-9]|0{0,3}[1-9][0-9]{2}|0{0,2}[1-9][0-9]{3}|0?[1-4][0-9]{4}|0?50000)"


def _lab_hand() -> dict[str, Any]:
    """The block in hand of the lab's `refusals` question (tower/app/serve/lab.py `_hand`), and its answer."""
    from tower.app.lab.controller import KIND_BY_NAME, kind_sizes

    size = {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "integer", "minimum": 1, "maximum": 6}}
    per_kind = [{"if": {"required": ["kind"], "properties": {"block": {"const": "new"}, "kind": {"const": name}}},
                 "then": {"properties": {"shapes": {"items": {"properties": {
                     "size": {"enum": [list(s) for s in kind_sizes(name)]}}}}}}} for name in KIND_BY_NAME]
    return {
        "LabHand": {
            "type": "object", "required": ["shapes", "area"], "additionalProperties": False,
            "description": "the block in hand: `new` (the default: a block of `kind`, `shapes` the ways it may lie, "
                           "orientations of the kind) or the id of the block being moved (409 if the build has none); "
                           "`area` the columns the page's pointing offers [x0, y0, x1, y1], half-open (an empty one "
                           "offers none)",
            "properties": {
                "block": {"type": "string", "maxLength": 64, "pattern": NAME_PATTERN}, "kind": {"type": "string"},
                "shapes": {"type": "array", "minItems": 1, "maxItems": 6, "items": ref("LabShape")},
                "area": {"type": "array", "minItems": 4, "maxItems": 4,
                         "items": {"type": "integer", "minimum": -100, "maximum": 100}},
            },
            "allOf": [{"if": {"properties": {"block": {"const": "new"}}},
                       "then": {"required": ["kind"], "properties": {"kind": {"enum": list(KIND_BY_NAME)}}}},
                      *per_kind],
        },
        "LabShape": {"type": "object", "required": ["size", "top", "faces"], "additionalProperties": False,
                     "description": "a way the block may lie: its size, the colour on top and the faces' colours "
                                    "+x, -x, +y, -y, +z, -z",
                     "properties": {"size": size, "top": ref("Build_colour"),
                                    "faces": {"type": "array", "minItems": 6, "maxItems": 6,
                                              "items": ref("Build_colour")}}},
        "LabRefusals": {
            "type": "object", "required": ["edits", "refused", "elsewhere"], "additionalProperties": False,
            "description": "where the rules would refuse the block in hand, for the build after `edits` edits, over "
                           "its placements in `area` (each shape at every corner, resting on the highest column "
                           "under its footprint). A placement *touches something* when its footprint covers a "
                           "column that holds a block (the block in hand left out) or a figure. `refused` lists the "
                           "placements that touch something and would be refused, by their text, with the rule and "
                           "its words; one that touches something and is not listed is allowed. A placement that "
                           "touches nothing rests on the bare table and the rules judge it alike anywhere: "
                           "`elsewhere[k]` is that judgement for every such placement of shape k (the request's "
                           "order), null where it is allowed or the area holds none",
            "properties": {
                "edits": {"type": "integer", "minimum": 0},
                "refused": {"type": "object", "additionalProperties": {"type": "string"},
                            "description": "placement text -> \"rule: words\", placements that touch something"},
                "elsewhere": {"type": "array", "minItems": 1, "maxItems": 6, "items": NULLABLE_STR,
                              "description": "per shape: \"rule: words\" refusing each of its placements that "
                                             "touch nothing, or null"}}},
    }


def _seat_spec() -> dict[str, Any]:
    from tower.app.serve.workers import AI_SPEC

    grammar = AI_SPEC.pattern.replace(r"time=\d{1,2}(?:\.\d{1,3})?", TIME).replace(r"iters=\d{1,6}", ITERS)
    return {"type": "string", "maxLength": 64, "pattern": f"^(?:human|{grammar})$",
            "description": "`human`, or an AI: a level by name, `ai:easy`, `ai:normal` or `ai:strong`, or "
                           "`ai:random`, `ai:greedy`, `ai:mcts` or `ai:ismcts` with settings "
                           "`time=` (seconds, at most 10), `iters=` (at most 50,000), `c=`, `rollout=` "
                           "(`ai:mcts:time=1`)"}

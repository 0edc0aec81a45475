"""The JSON Schemas (draft 2020-12) of every file and `--json` output of the project, and validation against them.

Each document's `format` field names its schema: `tower-build/1` is `tower-build-1.schema.json` here, with the
`$id` `urn:tower-sim:schema:tower-build/1`; its references are written absolute (`urn:...#/$defs/NAME`): a
fragment alone is resolved against a URN as nothing by Python's `urljoin`, which hypothesis-jsonschema's resolver
uses. The schemas use only keywords of the draft (ajv's strict mode compiles them); the project's wording of an
error lives here (`MESSAGES`). Loaders call `validate` first, so what a schema says (types, required and unknown
keys, ranges, enums, face colourings) is checked in one place; what it cannot say (unique ids, overlaps, the
game's rules) stays in their code. A document is first put to a yes/no check compiled from its schema (`tower.schemas.fast`, the same
verdict as `jsonschema` in a fraction of the time); only one that it refuses goes on to the `jsonschema` library,
imported then, which finds the first error and words it. The rules packages stay fast to import, and valid input
never imports `jsonschema`.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tower.games.errors import BadInput
    from tower.schemas.fast import Check

#: Schema name -> the format it describes (the `format` field of its documents).
FORMATS: dict[str, str] = {
    "tower-build": "tower-build/1",
    "game-record": "game-record/1",
    "tower-scene": "tower-scene/1",
    "tower-check": "tower-check/1",
    "tower-simulate": "tower-simulate/1",
    "tower-sweep": "tower-sweep/1",
    "tower-batch": "tower-batch/1",
    "tower-certificate": "tower-certificate/1",
}
#: Schema name -> what a person calls its documents: a file of one kind handed over for another is named as what it
#: is ("this is a build (tower-build/1), not a certificate"), not as a document with unknown keys.
FORMAT_WORDS: dict[str, str] = {
    "tower-build": "a build", "game-record": "a game record", "tower-scene": "a scene",
    "tower-check": "a check report", "tower-simulate": "a simulate report", "tower-sweep": "a sweep report",
    "tower-batch": "a batch report", "tower-certificate": "a certificate",
}
#: Longest quoted value in an error message.
QUOTE = 80
#: The project's words for a value that breaks an `enum`, `const`, `type`, `oneOf` or item count of one place
#: of a schema ({value}: the value found, {allowed}: what the enum or const allows), by schema and JSON pointer.
#: Kept here, not in the schemas: a strict validator (ajv's strict mode) refuses a keyword it does not know.
MESSAGES: dict[str, dict[str, str]] = {
    "tower-build": {
        "/$defs/triple": "expected a list of 3 whole numbers [x, y, z]",
        "/$defs/colour": "unknown colour {value} (one of: {allowed})",
        "/$defs/playerColour": "unknown colour {value} (one of: {allowed})",
        "/$defs/block/properties/size": "size {value} is no block (a permutation of 2x2x1, 2x2x2, 2x2x4 or 2x2x6)",
        "/$defs/colouredFaces": "illegal face colouring: opposite faces must be the pairs red/yellow, "
                                "dark-blue/light-blue and purple/grey, each pair once",
        "/$defs/greyFaces": "illegal face colouring: a grey block is grey on every face",
    },
    "game-record": {"/properties/moves/items": "expected a move in its text form, got {value}"},
}


def schema_name(name: str) -> str:
    """`tower-build`, `tower-build/1` or `tower-build-1` -> `tower-build`; BadInput for an unknown name."""
    from tower.games.errors import BadInput  # here, not above: tower.games imports this module

    key = name.removesuffix(".schema.json").removesuffix("/1").removesuffix("-1")
    if key not in FORMATS:
        raise BadInput(f"no schema named {name!r} (one of: {', '.join(FORMATS)})"[:300], "")
    return key


def file_name(name: str) -> str:
    """The file of the schema inside this package, e.g. `tower-build-1.schema.json`."""
    return FORMATS[schema_name(name)].replace("/", "-") + ".schema.json"


def schema_text(name: str) -> str:
    """The schema as shipped (JSON text)."""
    # beside this module (package data, installed as files): importlib.resources would cost the command ~10 ms of
    # imports (tempfile, shutil, compression modules) that nothing else in `tower check` needs
    return Path(__file__).with_name(file_name(name)).read_text(encoding="utf-8")


@cache
def schema(name: str) -> dict[str, Any]:
    """The parsed schema of `name` (a schema name or a format)."""
    return json.loads(schema_text(name))


def _strict_integer(_checker: Any, instance: Any) -> bool:
    # the files are integer-only by design: 1.0 and 1e1 are floats to Python's JSON reader and are refused,
    # although JSON Schema's number model would call 1.0 an integer (docs/formats.md says so)
    return isinstance(instance, int) and not isinstance(instance, bool)


def _array(_checker: Any, instance: Any) -> bool:
    # documents built in memory (`viewer.scene_json.scene_to_json`) keep tuples, which JSON writes as arrays
    return isinstance(instance, list | tuple)


@cache
def validator(name: str, part: str | None = None) -> Any:
    """A compiled Draft 2020-12 validator of `name` (or of its `$defs` entry `part`: a kind of line of a
    line-oriented file), integers meaning JSON numbers without fraction or exponent."""
    from jsonschema import Draft202012Validator, validators

    checker = Draft202012Validator.TYPE_CHECKER.redefine_many({"integer": _strict_integer, "array": _array})
    strict = validators.extend(Draft202012Validator, type_checker=checker)
    whole = schema(name)
    if part is None:
        return strict(whole)
    return strict({"$id": whole["$id"], "$ref": f"#/$defs/{part}", "$defs": whole["$defs"]})


@cache
def fast_check(name: str, part: str | None = None) -> Check:
    """The compiled yes/no check of `name` (or of its `$defs` entry `part`): True exactly when `jsonschema`
    finds no error (tower/schemas/fast.py)."""
    from tower.schemas.fast import compile_check

    return compile_check(schema(name), part)


def json_path(parts: Any) -> str:
    """A JSONPath as the project's messages write it: `$.blocks[3].faces.+x`."""
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _quote(value: Any) -> str:
    if value is None or isinstance(value, bool):  # as JSON writes them: the reader of the message wrote JSON
        return json.dumps(value)
    try:
        text = json.dumps(value) if isinstance(value, list | dict) else repr(value)
    except RecursionError:  # nested deeper than the encoder can go from inside the validator: name the start
        text = ("[" if isinstance(value, list) else "{") * QUOTE
    return text if len(text) <= QUOTE else text[:QUOTE - 3] + "..."


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return {bool: "a boolean", int: "a whole number", float: "a float", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


TYPE_WORDS = {"integer": "a whole number", "number": "a number", "string": "a string", "array": "a list",
              "object": "an object", "boolean": "true or false", "null": "null"}


def _pointer(doc: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        doc = doc[part.replace("~1", "/").replace("~0", "~")]
    return doc


@cache
def _worded() -> dict[int, str]:
    """`MESSAGES` by the identity of the schema node they word (jsonschema reports the node an error is in, the
    very object of the cached schema, also through a `$ref`), and each schema's `format` worded alike."""
    out: dict[int, str] = {}
    for name, fmt in FORMATS.items():
        out[id(_pointer(schema(name), "/properties/format"))] = f"unsupported format {{value}} (expected {fmt!r})"
        for pointer, text in MESSAGES.get(name, {}).items():
            out[id(_pointer(schema(name), pointer))] = text
    return out


def _message(error: Any) -> tuple[str, str]:
    """(what, where) of one jsonschema error, in the project's words: where names the offending key itself for
    an unknown key; `MESSAGES` (with {value} and {allowed}) says what a value of that place is."""
    where = json_path(error.absolute_path)
    value, kind, sub = error.instance, error.validator, error.schema
    custom = _worded().get(id(sub))
    if list(error.schema_path)[-2:-1] == ["propertyNames"]:  # a key of an object whose keys are listed
        names = sub.get("enum", []) if isinstance(sub, dict) else []
        return f"unknown key {_quote(value)}" + (f" (allowed: {', '.join(names)})" if names else ""), \
            f"{where}.{value}"
    if kind == "minProperties" and len(sub.get("propertyNames", {}).get("enum", ())) == error.validator_value:
        missing = [k for k in sub["propertyNames"]["enum"] if k not in value][0]
        return f"missing key {missing!r}", where
    if kind == "additionalProperties":
        extra = sorted(k for k in value if k not in sub.get("properties", {}))[0]
        allowed = ", ".join(sorted(sub.get("properties", {})))
        return f"unknown key {extra!r}" + (f" (allowed: {allowed})" if allowed else ""), f"{where}.{extra}"
    if kind == "required":
        missing = [k for k in error.validator_value if k not in value][0]
        return f"missing key {missing!r}", where
    if custom and kind in ("enum", "const", "type", "minItems", "maxItems", "oneOf"):
        allowed = ", ".join(str(v) for v in sub.get("enum", [sub.get("const")]))
        return custom.format(value=_quote(value), allowed=allowed), where
    if kind == "type":
        want = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        got = _kind(value) if value is None or isinstance(value, bool) else f"{_kind(value)} {_quote(value)}"
        return f"expected {' or '.join(TYPE_WORDS.get(t, t) for t in want)}, got {got}", where
    if kind in ("minimum", "maximum"):
        lo, hi = sub.get("minimum"), sub.get("maximum")
        bounds = " <= ".join(str(b) for b in (lo, "value", hi) if b is not None)
        return f"{_quote(value)} is out of range ({bounds})", where
    if kind == "maxItems":
        return f"{len(value)} items is more than {error.validator_value}", where
    if kind == "minItems":
        return f"{len(value)} items is fewer than {error.validator_value}", where
    if kind == "minLength":
        return "expected a non-empty string" if error.validator_value == 1 else \
            f"expected at least {error.validator_value} characters", where
    if kind == "maxLength":
        return f"longer than {error.validator_value} characters", where
    if kind == "pattern" and isinstance(value, str):  # the ids' pattern: the characters the reader refuses
        from tower.games.reader import character_words, refused_character

        bad = refused_character(value)
        if bad:
            return f"the string holds {character_words(bad)}", where
    if kind == "enum":
        return f"{_quote(value)} is not one of: {', '.join(_quote(v) for v in error.validator_value)}", where
    if kind == "const":
        return f"expected {_quote(error.validator_value)}, got {_quote(value)}", where
    return error.message, where


def problem(doc: Any, name: str, part: str | None = None) -> BadInput | None:
    """The first way `doc` breaks the schema `name` (or its `$defs` entry `part`), in the schema's order (a
    thing's own type and keys before its parts), as a BadInput naming the JSON path; None when it conforms."""
    key = schema_name(name)
    if part is None and isinstance(doc, dict) and doc.get("format") != FORMATS[key]:
        other = next((k for k, f in FORMATS.items() if f == doc.get("format")), None)
        if other is not None:
            from tower.games.errors import BadInput

            return BadInput(f"this is {FORMAT_WORDS[other]} ({FORMATS[other]}), not {FORMAT_WORDS[key]} "
                            f"({FORMATS[key]})", "$.format")
    check = fast_check(key, part)
    try:
        if check(doc):
            return None
    except Exception:  # noqa: BLE001 - e.g. a document nested past the recursion limit: jsonschema decides
        pass
    from tower.games.errors import BadInput

    try:
        error = next(iter(validator(key, part).iter_errors(doc)), None)
        if error is None:
            return None
        what, where = _message(error)
    except RecursionError:  # the error's own text (jsonschema's repr, our quote) can run out of stack
        return BadInput("nested too deeply: no field of this document holds lists or objects that deep", "$")
    return BadInput(what, where)


def validate(doc: Any, name: str, part: str | None = None) -> None:
    """Raise BadInput (what and JSON path) unless `doc` conforms to the schema `name` (or its part `part`)."""
    found = problem(doc, name, part)
    if found is not None:
        raise found

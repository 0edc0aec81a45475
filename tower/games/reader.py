"""The one reader of JSON from outside: every file the project opens and every request body `tower serve` takes.

Bytes in, a document out, or a `BadInput` in the project's words naming the place (line and column for text that
is not JSON, the JSON path for a value that is refused). What it takes is I-JSON (RFC 7493), the strict subset of
JSON that every tool reads alike, plus bounds of its own, each checked before the work it saves:

- at most `max_bytes` (a file's size is asked of the file system before a byte of it is read; a pipe is read up
  to one byte past the cap), UTF-8 without a byte order mark;
- no duplicate keys in an object (JSON readers disagree on which one wins), no NaN or Infinity;
- whole numbers within +-(2^53 - 1), the range every JSON reader holds exactly, and no number beyond a 64-bit
  float (Python's own reader would build a 10,000-digit integer, or an infinity, without a word);
- every string, keys included, holds characters only: no lone surrogate (half of a UTF-16 pair, which a
  backslash-u escape can write: it cannot be written as UTF-8, so a string holding one crashes whatever prints it);
- lists and objects nested at most `MAX_DEPTH` deep.

What an id or a name may hold is narrower (`NAME_REFUSED`: no control character, U+0000-U+001F and
U+007F-U+009F, no line or paragraph separator, no bidirectional control, Unicode's `Bidi_Control` set, with which
text shows other than it reads, no noncharacter of the Basic Multilingual Plane): the schemas say it with a
`pattern` where ids and names are (`NAME_PATTERN`), so that every tool reading the schema agrees; other strings
(a move's text, an option) are read by their own grammars.

The formats' own counts (a build's blocks, a record's moves) are checked by their loaders on the parsed document
before the schema (`tower.schemas`) is consulted, so a document over a count costs no validation either.
"""

from __future__ import annotations

import gc
import json
import re
from pathlib import Path
from typing import Any

from tower.games.errors import BadInput

#: The largest file read: a build of the format's 2,000 blocks takes 0.3 MiB (0.9 MiB pretty-printed with an
#: indent of 4), a long game's record a few tens of kilobytes.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Deepest nesting of lists and objects: the project's formats nest 6 deep at most (a start build inside a
#: game's options inside a request).
MAX_DEPTH = 64
#: I-JSON's exact whole numbers (RFC 7493 section 2.2): what a 64-bit float holds without rounding.
MAX_WHOLE = 2**53 - 1
BOM = b"\xef\xbb\xbf"

_BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_NAME_REFUSED = "\x00-\x1f\x7f-\x9f\u2028\u2029" + _BIDI_CONTROLS + "\ufdd0-\ufdef\ufffe\uffff"
#: The characters an id or a name may not hold besides a lone surrogate (the module's docstring says why). (The
#: astral planes' noncharacters are let through: a class of them makes `re` scan 15 times slower, and they do no
#: harm that the others do.)
NAME_REFUSED = re.compile(f"[{_NAME_REFUSED}]")
#: The same as a JSON Schema `pattern` for the schemas' ids and names: ECMA-262 syntax, which Python's `re`,
#: ajv and schemathesis read alike (a lone surrogate is left to the reader: not every tool's regex can name one).
NAME_PATTERN = "^[^" + "".join(c if c == "-" else f"\\u{ord(c):04x}" for c in _NAME_REFUSED) + "]*$"
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def refused_character(text: str) -> str | None:
    """A character no string may hold (a lone surrogate) or, failing that, one an id or name may not hold."""
    found = LONE_SURROGATE.search(text) or NAME_REFUSED.search(text)
    return found.group() if found else None


_LONG_NUMBER = re.compile(r"[0-9]{16}|[eE][+-]?[0-9]{3}")
#: Python's words for JSON it cannot read, and ours.
_SYNTAX = {
    "Expecting value": "a value was expected",
    "Expecting ',' delimiter": "a comma or a closing bracket was expected",
    "Expecting ':' delimiter": "a colon was expected after the key",
    "Expecting property name enclosed in double quotes": "a key in double quotes was expected",
    "Unterminated string starting at": "a string is not closed",
    "Invalid control character at": "a control character inside a string (write it as an escape, if at all)",
    "Invalid \\escape": "an unknown escape in a string",
    "Invalid \\uXXXX escape": "a \\u escape without four hex digits",
    "Extra data": "more text after the end of the JSON document",
}


class _Refused:
    """A value the parser's hooks refuse, kept in its place so that the walk can name that place."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what


class _Duplicated(dict):
    """An object that had a key twice (the walk refuses it, naming the key)."""

    duplicate: str = ""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
    marked = _Duplicated(out)
    marked.duplicate = twice
    return marked


def _constant(name: str) -> _Refused:
    return _Refused(f"{name} is not a JSON number")


def _integer(text: str) -> int | _Refused:
    digits = text.lstrip("-")
    if len(digits) <= 15 or (len(digits) == 16 and int(digits) <= MAX_WHOLE):
        return int(text)
    shown = text if len(text) <= 24 else f"{text[:20]}... ({len(digits)} digits)"
    return _Refused(f"the whole number {shown} is beyond +-(2^53 - 1), the largest every JSON reader holds exactly")


def _float(text: str) -> float | _Refused:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        shown = text if len(text) <= 24 else text[:20] + "..."
        return _Refused(f"the number {shown} is beyond the range of a 64-bit float")
    return value


def _whole_float(text: str) -> float | int | _Refused:
    """A number with a fraction or exponent, an int when it is a whole number within `MAX_WHOLE` (JSON Schema's
    number model, which the OpenAPI document's `integer` follows: 6.0 is the integer 6)."""
    value = _float(text)
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_WHOLE:
        return int(value)
    return value


def character_words(c: str) -> str:
    """What the refused character `c` is, named so that the message itself prints everywhere."""
    code = f"U+{ord(c):04X}"
    if "\ud800" <= c <= "\udfff":
        return f"a lone surrogate {code} (half of a UTF-16 pair, not a character)"
    if c in "\u2028\u2029":
        return f"the line separator {code}"
    if re.fullmatch(f"[{_BIDI_CONTROLS}]", c):
        return f"the bidirectional control {code} (it makes text show other than it reads)"
    if c in "\ufffe\uffff" or "\ufdd0" <= c <= "\ufdef":
        return f"the noncharacter {code}"
    return f"the control character {code}"


def path_of(parts: tuple[str | int, ...]) -> str:
    """A JSON path as the project's messages write it (`$.blocks[3].faces.+x`); a key that is not a plain word is
    written as a JSON string in brackets, escaped to ASCII, so that the path is always one printable line."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z0-9_+\-]+", p):
            out += f".{p}"
        else:
            out += f"[{json.dumps(p[:40] + ('...' if len(p) > 40 else ''))}]"
    return out


def check_document(doc: Any, strings: bool = True) -> None:
    """Walk a parsed document (without recursion: it may be as deep as the parser went) and raise BadInput at the
    first refused value, duplicated key, lone surrogate (unless `strings` is False: the text they came from is
    known to hold none) or nesting past `MAX_DEPTH`."""
    # each entry: a node, its depth and where it is as a linked list (parent's place, key): the path is spelled
    # out only for the one refused; numbers, booleans and null are passed over without being stacked
    stack: list[tuple[Any, int, Any]] = [(doc, 0, None)]
    plain = (int, float, bool, type(None)) if strings else (int, float, bool, type(None), str)
    while stack:
        node, depth, where = stack.pop()
        t = type(node)
        if t is str:
            bad = LONE_SURROGATE.search(node)
            if bad:
                raise BadInput(f"the string holds {character_words(bad.group())}", _spelled(where))
        elif t is dict or t is _Duplicated or t is list:
            if depth >= MAX_DEPTH:
                raise BadInput(f"nested deeper than {MAX_DEPTH} lists and objects", _spelled(where))
            if t is _Duplicated:
                raise BadInput(f"the key {json.dumps(node.duplicate)[:60]} appears twice in this object",
                               _spelled(where))
            if t is list:
                stack.extend((v, depth + 1, (where, i)) for i, v in enumerate(node) if type(v) not in plain)
                continue
            for k, v in node.items():
                bad = LONE_SURROGATE.search(k) if strings else None
                if bad:
                    raise BadInput(f"a key holds {character_words(bad.group())}", _spelled((where, k)))
                if type(v) not in plain:
                    stack.append((v, depth + 1, (where, k)))
        elif t is _Refused:
            raise BadInput(node.what, _spelled(where))


def _spelled(where: Any) -> str:
    parts: list[str | int] = []
    while where is not None:
        where, key = where
        parts.append(key)
    return path_of(tuple(reversed(parts)))


def parse_text(raw: bytes | str, *, whole_floats: bool = False) -> Any:
    """Strict JSON from bytes (UTF-8) or text: BadInput in the project's words for anything refused.
    `whole_floats`: 6.0 is read as the integer 6 (the server's bodies, JSON Schema's number model); the files
    keep it a float, which their schemas refuse where a whole number belongs (docs/formats.md)."""
    if isinstance(raw, bytes | bytearray):
        if raw.startswith(BOM):
            raise BadInput("the text starts with a byte order mark (BOM): JSON is UTF-8 without one", "")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadInput(f"not UTF-8 text (byte {exc.start})", "") from None
    else:
        text = raw
        if text.startswith("\ufeff"):
            raise BadInput("the text starts with a byte order mark (BOM): JSON is UTF-8 without one", "")
    if not text.strip():
        raise BadInput("empty: no JSON document in it", "")
    # the number hooks cost a Python call a number: only a text with a run of 16 digits or an exponent of 3 can
    # hold a whole number past MAX_WHOLE or a float past the largest; any other is read by the C parser alone
    numbers: dict[str, Any] = {}
    if _LONG_NUMBER.search(text):
        numbers = {"parse_int": _integer, "parse_float": _whole_float if whole_floats else _float}
    elif whole_floats:
        numbers = {"parse_float": _whole_float}
    collecting = gc.isenabled()  # a parse makes a container a list or object: the cycle collector, run again and
    gc.disable()  # again on them, would cost more than the parse (none of them can be in a cycle)
    try:
        doc = json.loads(text, object_pairs_hook=_object, parse_constant=_constant, **numbers)
    except json.JSONDecodeError as exc:
        words = next((ours for theirs, ours in _SYNTAX.items() if exc.msg.startswith(theirs)), "not JSON")
        raise BadInput(f"not valid JSON: {words} (line {exc.lineno}, column {exc.colno})", "") from None
    except RecursionError:
        raise BadInput(f"not valid JSON: nested too deeply (at most {MAX_DEPTH} lists and objects)", "") from None
    else:
        # a lone surrogate can only come from a backslash-u escape (UTF-8 cannot encode one): a text without any
        # escape of one holds none
        check_document(doc, strings="\\ud" in text or "\\uD" in text)
    finally:
        if collecting:
            gc.enable()
    return doc


def read_bytes(path: str | Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file, refused before reading when there are more than `max_bytes`; a BadInput names the
    file for whatever stops the reading."""
    p = Path(path)
    try:
        if p.stat().st_size > max_bytes:
            raise BadInput(f"the file is {_size(p.stat().st_size)}, more than the {_size(max_bytes)} a file of the "
                           "project may have", "", str(p))
        with p.open("rb") as fh:  # a pipe or a device has no size: read one byte past the cap at most
            raw = fh.read(max_bytes + 1)
    except BadInput:
        raise
    except FileNotFoundError:
        raise BadInput("no such file", "", str(p)) from None
    except IsADirectoryError:
        raise BadInput("is a directory, not a file", "", str(p)) from None
    except OSError as exc:
        raise BadInput(f"cannot read: {exc.strerror or exc}", "", str(p)) from None
    if len(raw) > max_bytes:
        raise BadInput(f"more than the {_size(max_bytes)} a file of the project may have", "", str(p))
    return raw


def read_json(path: str | Path, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """A JSON file read by `parse_text`; every refusal names the file."""
    raw = read_bytes(path, max_bytes)
    try:
        return parse_text(raw)
    except BadInput as exc:
        raise exc.in_source(str(path)) from None


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"

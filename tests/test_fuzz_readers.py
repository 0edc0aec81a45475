"""The one strict reader (tower/games/reader.py) under every door: hostile files through the command line (`tower
check`, `tower replay`, `tower view --screenshot`) and hostile bodies through every POST of `tower serve`. What
I-JSON (RFC 7493) and the formats refuse is refused in one line naming the place: exit 2 and nothing written, or
a 4xx with the JSON path; a file far over the byte cap is refused from its size, before a byte of it is read; the
server's log holds one line a refused request and no traceback, also for a request HTTP itself refuses (a NUL
byte in a header).
"""

from __future__ import annotations

import json
import logging
import socket

import pytest
from serve_support import ROOMY

from tower.app.resultlog import ResultLog
from tower.app.seats import build_options
from tower.app.serve.client import Client
from tower.app.serve.run import ServerThread
from tower.climbers.build import read_build
from tower.games import load_game
from tower.games.errors import BadInput
from tower.games.reader import MAX_FILE_BYTES, parse_text

BUILD = '{"format": "tower-build/1", "blocks": [{"id": %s, "origin": [0, 0, 0], "size": [2, 2, 2]}]}'
RECORD = '{"format": "game-record/1", "game": "diabolo", "players": 3, "seed": %s, "moves": []}'
#: name -> (file bytes, the JSON path named (or its start, then ...), words the refusal holds)
HOSTILE = {
    "lone-surrogate-id": (BUILD % '"\\ud800"', "$.blocks[0].id", "lone surrogate U+D800"),
    "nul-in-id": (BUILD % '"a\\u0000b"', "$.blocks[0].id", "control character U+0000"),
    "bidi-override-in-id": (BUILD % '"c1\\u202e"', "$.blocks[0].id", "bidirectional control U+202E"),
    "duplicate-key": ('{"format": "tower-build/1", "blocks": [], "blocks": []}', "$", 'key "blocks" appears twice'),
    "endless-number": (RECORD % ("7" * 5000), "$.seed", "5000 digits"),
    "number-past-a-float": (RECORD % "1e400", "$.seed", "beyond the range of a 64-bit float"),
    "seed-past-openspiel": (RECORD % str(2**31), "$.seed", "out of range (0 <= value <= 2147483647)"),
    "null-for-a-number": (RECORD % "null", "$.seed", "expected a whole number, got null"),
    "byte-order-mark": ("\ufeff" + BUILD % '"c1"', "", "byte order mark"),
    "too-deep": ('{"format": "tower-build/1", "blocks": [], "x": ' + "[" * 70 + "]" * 70 + "}", "$.x[0][0]...",
                 "nested deeper than 64"),
}
WORDS_OF_PYTHON = ("set_int_max_str_digits", "utf-8-sig", "None", "Traceback", "Expecting")


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_document_is_refused_in_the_projects_words_naming_the_place(name):
    text, where, words = HOSTILE[name]
    with pytest.raises(BadInput) as err:
        from tower.climbers.build import parse_build
        from tower.games import replay

        doc = parse_text(text.encode("utf-8", "surrogatepass"))
        (replay if doc.get("format") == "game-record/1" else parse_build)(doc)
    line = str(err.value)
    place = err.value.where
    assert (place.startswith(where[:-3]) if where.endswith("...") else place == where) and words in line, line
    assert len(line.splitlines()) == 1 and not any(w in line for w in WORDS_OF_PYTHON), line
    line.encode("utf-8")  # printable anywhere: no lone surrogate in the message itself


#: Each hostile file through `tower check`; those a record or a picture could be refused for, through `tower replay`
#: and `tower view --screenshot` too (each command reads files through the same reader; a command is a process).
CLI = [(["check"], name) for name in ("lone-surrogate-id", "bidi-override-in-id", "duplicate-key", "endless-number",
                                     "byte-order-mark", "huge")] + \
    [(["replay", "--text"], "endless-number"), (["replay", "--text"], "huge"),
     (["view", "--screenshot", "out.png"], "lone-surrogate-id"), (["view", "--screenshot", "out.png"], "huge")]


@pytest.mark.parametrize(("command", "name"), CLI, ids=[f"{c[0]}-{n}" for c, n in CLI])
def test_a_hostile_file_through_the_commands_exits_2_in_one_line_writing_nothing(tower_cli, tmp_path, command, name):
    path = tmp_path / f"{name}.json"
    if name == "huge":  # a million blocks, 44 MB: over the cap, refused from the file's size alone
        block = b'{"id": "b", "origin": [0, 0, 0], "size": [2, 2, 2]},'
        path.write_bytes(b'{"format": "tower-build/1", "blocks": [' + block * 10**6 + b"{}]}")
        assert path.stat().st_size > 10 * MAX_FILE_BYTES
    else:
        path.write_bytes(HOSTILE[name][0].encode("utf-8", "surrogatepass"))
    verb, *flags = command
    proc = tower_cli([verb, str(path), *flags], cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "", (verb, proc.returncode, proc.stderr[-500:])
    (line,) = proc.stderr.splitlines()
    assert str(path) in line and not any(w in line for w in WORDS_OF_PYTHON), line
    if name == "huge":
        assert "more than the 4.0 MiB a file of the project may have" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name], "nothing is written"


def test_a_build_over_the_block_count_is_refused_by_its_count_before_the_schema(tmp_path):
    from tower.climbers.build import MAX_BLOCKS, load_build
    from tower.schemas import schema

    assert schema("tower-build")["properties"]["blocks"]["maxItems"] == MAX_BLOCKS  # one number, said twice
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"format": "tower-build/1",
                                "blocks": [{"origin": [0, 0, 0], "size": [9, 9, 9]}] * 5000}))  # 0.2 MB
    with pytest.raises(BadInput) as err:
        load_build(path)
    assert err.value.where == "$.blocks" and "5000 blocks is more than the 2000" in err.value.what  # not its size


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with ServerThread(str(tmp_path_factory.mktemp("readers") / "games.sqlite"), ai_pause=0, workers=1,
                      limits=ROOMY) as srv:
        api = Client(srv.url)
        game = api.create("diabolo", None)
        _, lab = api.request("POST", "/api/lab", {})
        srv.paths = [p.format(id=game["id"], token=game["seats"][0]["token"], lab=lab["id"]) for p in (
            "/api/games", "/api/games/{id}/moves?token={token}", "/api/games/{id}/name?token={token}",
            "/api/replay", "/api/lab", "/api/lab/{lab}/edits", "/api/lab/{lab}/rules", "/api/lab/{lab}/push",
            "/api/lab/{lab}/refusals", "/api/lab/{lab}/undo", "/api/games/{id}/abandon?token={token}")]
        yield srv


BODIES = {
    "duplicate-key": b'{"game": "diabolo", "game": "partners"}',
    "lone-surrogate": b'{"game": "\\udc00"}',
    "endless-number": b'{"seed": ' + b"9" * 5000 + b"}",
    "number-past-a-float": b'{"seed": -1e999}',
    "nan": b'{"seed": NaN}',
    "byte-order-mark": b'\xef\xbb\xbf{"game": "diabolo"}',
    "too-deep": b'{"options": ' + b"[" * 100 + b"]" * 100 + b"}",
    "not-utf8": b'{"game": "\xff"}',
}


@pytest.mark.parametrize("name", BODIES)
def test_a_hostile_body_to_every_post_is_a_400_in_one_line_and_no_traceback_is_logged(served, caplog, name):
    api = Client(served.url)
    with caplog.at_level(logging.INFO):
        for path in served.paths:
            status, raw = api.raw("POST", path, BODIES[name], headers={"Content-Type": "application/json"})
            answer = json.loads(raw)
            assert status == 400 and "where" in answer, (path, status, answer)
            assert len(answer["error"].splitlines()) == 1, answer
            assert not any(w in answer["error"] for w in WORDS_OF_PYTHON), answer
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    refusals = [r.getMessage() for r in caplog.records if r.name == "tower.serve" and r.msg.startswith("refused")]
    assert len(refusals) == len(served.paths), refusals  # one line of the log a refused request
    assert all(len(line.splitlines()) == 1 and line.isascii() for line in refusals), refusals


def test_a_nul_byte_in_a_request_header_is_a_400_and_one_line_of_the_log(served, caplog):
    host, port = served.url.removeprefix("http://").split(":")
    with caplog.at_level(logging.INFO, logger="aiohttp.server"):
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\nX-Note: a\x00b\r\n\r\n")
            assert sock.recv(200).split(b"\r\n")[0].endswith(b" 400 Bad Request")
    records = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert len(records) == 1 and records[0].exc_info is None, [r.getMessage() for r in records]
    assert len(records[0].getMessage().splitlines()) == 1 and "malformed" in records[0].getMessage()
    assert Client(served.url).request("GET", "/api/catalogue")[0] == 200  # and it goes on serving


READERS = {
    "load_game (tower play --load)": load_game,
    "read_build (tower lab, tower view --edit)": read_build,
    "--build FILE": lambda path: build_options(str(path), "climbers", 2, {}),
    "--resume FILE (a results file's lines)": lambda path: ResultLog.resume(str(path), {}),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", ["lone-surrogate-id", "duplicate-key", "endless-number", "byte-order-mark"])
def test_every_other_reader_of_a_file_refuses_a_hostile_one_in_one_line_naming_it(tmp_path, reader, name):
    path = tmp_path / f"{name}.json"
    path.write_bytes(HOSTILE[name][0].encode("utf-8", "surrogatepass"))
    with pytest.raises(BadInput) as err:
        READERS[reader](path)
    line = str(err.value)
    assert len(line.splitlines()) == 1 and str(path) in line and not any(w in line for w in WORDS_OF_PYTHON), line

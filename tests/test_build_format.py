"""The `tower-build/1` file format (docs/formats.md): reading, writing, and every kind of malformed file.

Malformed files go through the real command line (`tower check FILE`): exit status 2, one line on stderr that
names the file and the JSON path, no traceback, nothing on stdout.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tower.climbers.blocks import COLOUR_INDEX, FACES, colouring_problem
from tower.climbers.build import Block, Build, Figure, Stone, dumps_build, load_build, parse_build, save_build
from tower.climbers.setup import random_start_tower
from tower.games import fileio
from tower.games.errors import BadInput

DOCS_EXAMPLE = {
    "format": "tower-build/1",
    "blocks": [
        {"id": "c1", "origin": [0, 0, 0], "size": [2, 2, 2],
         "faces": {"+x": "red", "-x": "yellow", "+y": "purple", "-y": "grey", "+z": "dark-blue", "-z": "light-blue"}},
        {"id": "g1", "origin": [4, 0, 0], "size": [2, 2, 6]}],
    "figures": [{"color": "red", "cell": [0, 0, 2]}],
    "stones": [{"color": "yellow", "block": "c1"}],
}
GOOD_FACES = {"+x": "red", "-x": "yellow", "+y": "dark-blue", "-y": "light-blue", "+z": "purple", "-z": "grey"}


def sample_build() -> Build:
    faces = tuple(COLOUR_INDEX[GOOD_FACES[f]] for f in FACES)
    return Build(
        [Block("g1", (0, 0, 0), (2, 2, 6), (5,) * 6), Block("d1", (2, 0, 0), (2, 2, 4), faces),  # type: ignore[arg-type]
         Block("h1", (2, 0, 4), (2, 1, 2), faces)],  # type: ignore[arg-type]
        [Figure("purple", (2, 0, 6)), Figure("red", (9, 9, 0))],
        [Stone("yellow", "g1")],
    )


# --- reading the documented example -------------------------------------------------------------------------

def test_the_spec_example_reads_as_written():
    b = parse_build(DOCS_EXAMPLE)
    c1, g1 = b.blocks
    assert (c1.id, c1.origin, c1.size, c1.top_colour) == ("c1", (0, 0, 0), (2, 2, 2), "dark-blue")
    assert (g1.id, g1.origin, g1.size, g1.top_colour) == ("g1", (4, 0, 0), (2, 2, 6), "grey")
    assert b.figures == [Figure("red", (0, 0, 2))]
    assert b.stones == [Stone("yellow", "c1")]


def test_ids_default_to_b0_b1_by_position():
    b = parse_build({"format": "tower-build/1", "blocks": [{"id": "x", "origin": [0, 0, 0], "size": [2, 2, 1]},
                                                          {"origin": [0, 0, 1], "size": [2, 2, 1]}]})
    assert [blk.id for blk in b.blocks] == ["x", "b1"]


def test_a_coloured_block_without_faces_gets_a_legal_colouring_and_a_grey_block_is_grey():
    b = parse_build({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 4, 2]},
                                                          {"origin": [2, 0, 0], "size": [2, 2, 6]}]})
    coloured, grey = b.blocks
    assert colouring_problem(coloured.faces, coloured.kind) is None
    assert grey.faces == (COLOUR_INDEX["grey"],) * 6


def test_a_small_build_far_from_the_origin_is_fine():
    b = parse_build({"format": "tower-build/1", "blocks": [{"origin": [9_000, -9_000, 0], "size": [2, 2, 6]},
                                                          {"origin": [9_002, -9_000, 0], "size": [2, 2, 6]}],
                     "figures": [{"color": "red", "cell": [9_000, -9_000, 6]}]})
    assert [blk.origin for blk in b.blocks] == [(9_000, -9_000, 0), (9_002, -9_000, 0)]


def test_figures_and_stones_are_optional():
    b = parse_build({"format": "tower-build/1", "blocks": []})
    assert b == Build([], [], [])


# --- round trip ----------------------------------------------------------------------------------------------

def test_load_save_load_gives_the_same_build(tmp_path):
    first = tmp_path / "a.json"
    first.write_text(json.dumps(DOCS_EXAMPLE))
    once = load_build(first)
    second = tmp_path / "b.json"
    save_build(once, second)
    assert load_build(second) == once
    save_build(load_build(second), first)
    assert first.read_text() == second.read_text()  # and saving is deterministic


def test_a_saved_build_keeps_blocks_faces_figures_and_stones(tmp_path):
    build = sample_build()
    save_build(build, tmp_path / "s.json")
    assert load_build(tmp_path / "s.json") == build


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_start_tower_round_trips_through_its_file(tmp_path, seed):
    build = random_start_tower(seed)
    save_build(build, tmp_path / "t.json")
    assert load_build(tmp_path / "t.json") == build
    assert parse_build(json.loads(dumps_build(build))) == build


# --- atomic saving -------------------------------------------------------------------------------------------

def _old_file(tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "build.json"
    save_build(sample_build(), path)
    return path, path.read_bytes()


def test_a_failed_rename_leaves_the_previous_file_intact_and_no_temp_file(tmp_path, monkeypatch):
    path, before = _old_file(tmp_path)

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        save_build(random_start_tower(0), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build.json"]


def test_a_failure_while_writing_leaves_the_previous_file_intact_and_no_temp_file(tmp_path, monkeypatch):
    path, before = _old_file(tmp_path)

    def boom(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(fileio.os, "fsync", boom)
    with pytest.raises(OSError):
        save_build(random_start_tower(0), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build.json"]


def test_an_interrupt_during_saving_leaves_no_temp_file(tmp_path, monkeypatch):
    path, before = _old_file(tmp_path)

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        save_build(random_start_tower(0), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build.json"]


def test_saving_replaces_the_previous_content_completely(tmp_path):
    path, _ = _old_file(tmp_path)
    save_build(Build([Block("only", (0, 0, 0), (2, 2, 6), (5,) * 6)]), path)  # type: ignore[arg-type]
    assert [b.id for b in load_build(path).blocks] == ["only"]


# --- malformed files through `tower check` ------------------------------------------------------------------

def doc(**changes: Any) -> dict[str, Any]:
    """A valid one-cube build with top-level keys replaced (value None deletes the key)."""
    d: dict[str, Any] = {"format": "tower-build/1",
                         "blocks": [{"id": "c1", "origin": [0, 0, 0], "size": [2, 2, 2], "faces": dict(GOOD_FACES)}],
                         "figures": [{"color": "red", "cell": [5, 5, 0]}],
                         "stones": [{"color": "yellow", "block": "c1"}]}
    for k, v in changes.items():
        if v is None:
            d.pop(k)
        else:
            d[k] = v
    return d


def block(**changes: Any) -> dict[str, Any]:
    b: dict[str, Any] = {"id": "c1", "origin": [0, 0, 0], "size": [2, 2, 2], "faces": dict(GOOD_FACES)}
    for k, v in changes.items():
        if v is None:
            b.pop(k)
        else:
            b[k] = v
    return b


def blocks(*bs: dict[str, Any]) -> str:
    return json.dumps(doc(blocks=list(bs), stones=[]))


def faces(**changes: str | None) -> dict[str, str]:
    f = dict(GOOD_FACES)
    for k, v in changes.items():
        key = {"px": "+x", "mx": "-x", "py": "+y", "my": "-y", "pz": "+z", "mz": "-z"}[k]
        if v is None:
            f.pop(key)
        else:
            f[key] = v
    return f


# (case id, file text, JSON path the error must name; None where the file is no JSON document at all)
MALFORMED: list[tuple[str, str, str | None]] = [
    # not JSON / not an object
    ("not-json", '{"format": "tower-build/1", "blocks": [', None),
    ("not-json-trailing-comma", '{"format": "tower-build/1", "blocks": [],}', None),
    ("not-json-single-quotes", "{'format': 'tower-build/1'}", None),
    ("empty-file", "", None),
    ("whitespace-only", "  \n\t\n", None),
    ("not-utf8", '{"format": "tower-build/1", "blocks": [], "x": "\udcff"}', None),
    ("nan", '{"format": "tower-build/1", "blocks": [{"origin": [NaN, 0, 0], "size": [2, 2, 2]}]}', None),
    ("infinity", '{"format": "tower-build/1", "blocks": [{"origin": [0, Infinity, 0], "size": [2, 2, 2]}]}', None),
    ("minus-infinity", '{"format": "tower-build/1", "blocks": [{"origin": [0, 0, -Infinity], "size": [2, 2, 2]}]}',
     None),
    ("top-level-list", "[]", "$"),
    ("top-level-string", '"tower-build/1"', "$"),
    ("top-level-null", "null", "$"),
    # unknown keys
    ("unknown-top-level-key", json.dumps(doc(colour="red")), "$.colour"),
    ("unknown-block-key", blocks(block(rotation=3)), "$.blocks[0].rotation"),
    ("unknown-figure-key", json.dumps(doc(figures=[{"colour": "red", "cell": [5, 5, 0]}])), "$.figures[0].colour"),
    ("unknown-stone-key", json.dumps(doc(stones=[{"color": "red", "block": "c1", "turns": 1}])), "$.stones[0].turns"),
    ("unknown-face-name", blocks(block(faces={**GOOD_FACES, "top": "red"})), "$.blocks[0].faces.top"),
    # missing keys
    ("missing-format", json.dumps(doc(format=None)), "$"),
    ("missing-blocks", json.dumps(doc(blocks=None)), "$"),
    ("missing-origin", blocks(block(origin=None)), "$.blocks[0]"),
    ("missing-size", blocks(block(size=None)), "$.blocks[0]"),
    ("missing-face", blocks(block(faces=faces(mz=None))), "$.blocks[0].faces"),
    ("missing-figure-cell", json.dumps(doc(figures=[{"color": "red"}])), "$.figures[0]"),
    ("missing-stone-block", json.dumps(doc(stones=[{"color": "red"}])), "$.stones[0]"),
    # wrong types
    ("format-not-a-string", json.dumps(doc(format=1)), "$.format"),
    ("blocks-not-a-list", json.dumps(doc(blocks={"c1": block()})), "$.blocks"),
    ("block-not-an-object", blocks([0, 0, 0]), "$.blocks[0]"),  # type: ignore[arg-type]
    ("figures-not-a-list", json.dumps(doc(figures={"color": "red", "cell": [5, 5, 0]})), "$.figures"),
    ("stones-not-a-list", json.dumps(doc(stones="c1")), "$.stones"),
    ("figure-not-an-object", json.dumps(doc(figures=["red"])), "$.figures[0]"),
    ("origin-a-string", blocks(block(origin="0,0,0")), "$.blocks[0].origin"),
    ("origin-two-numbers", blocks(block(origin=[0, 0])), "$.blocks[0].origin"),
    ("origin-four-numbers", blocks(block(origin=[0, 0, 0, 0])), "$.blocks[0].origin"),
    ("coordinate-a-string", blocks(block(origin=[0, "1", 0])), "$.blocks[0].origin[1]"),
    ("coordinate-null", blocks(block(origin=[0, 0, None])), "$.blocks[0].origin[2]"),
    ("coordinate-a-boolean", blocks(block(origin=[True, 0, 0])), "$.blocks[0].origin[0]"),
    ("coordinate-huge", blocks(block(origin=[10**30, 0, 0])), "$.blocks[0].origin[0]"),
    ("id-a-number", blocks(block(id=7)), "$.blocks[0].id"),
    ("id-empty", blocks(block(id="")), "$.blocks[0].id"),
    ("faces-a-list", blocks(block(faces=["red"] * 6)), "$.blocks[0].faces"),
    ("face-colour-a-number", blocks(block(faces=faces(px=1))), "$.blocks[0].faces.+x"),  # type: ignore[arg-type]
    ("figure-cell-not-a-list", json.dumps(doc(figures=[{"color": "red", "cell": 5}])), "$.figures[0].cell"),
    ("stone-block-a-number", json.dumps(doc(stones=[{"color": "red", "block": 0}])), "$.stones[0].block"),
    # floats in coordinates
    ("float-origin", blocks(block(origin=[0, 0.5, 0])), "$.blocks[0].origin[1]"),
    ("whole-float-origin", blocks(block(origin=[0, 0, 1.0])), "$.blocks[0].origin[2]"),
    ("float-size", blocks(block(size=[2, 2, 2.0])), "$.blocks[0].size[2]"),
    ("float-figure-cell", json.dumps(doc(figures=[{"color": "red", "cell": [5.5, 5, 0]}])), "$.figures[0].cell[0]"),
    ("exponent-origin", '{"format": "tower-build/1", "blocks": [{"origin": [1e1, 0, 0], "size": [2, 2, 2]}]}',
     "$.blocks[0].origin[0]"),
    # sizes that are no block
    ("size-2x2x3", blocks(block(size=[2, 2, 3])), "$.blocks[0].size"),
    ("size-1x1x1", blocks(block(size=[1, 1, 1])), "$.blocks[0].size"),
    ("size-zero", blocks(block(size=[2, 2, 0])), "$.blocks[0].size"),
    ("size-negative", blocks(block(size=[-2, 2, 2])), "$.blocks[0].size"),
    ("size-4x4x2", blocks(block(size=[4, 4, 2])), "$.blocks[0].size"),
    ("size-of-second-block", blocks(block(), block(id="c2", origin=[2, 0, 0], size=[3, 2, 2])), "$.blocks[1].size"),
    # face colourings
    ("faces-not-opposite", blocks(block(faces=faces(mx="dark-blue", my="yellow"))), "$.blocks[0].faces"),
    ("faces-pair-twice", blocks(block(faces=faces(py="yellow", my="red"))), "$.blocks[0].faces"),
    ("faces-same-colour-opposite", blocks(block(faces=faces(px="red", mx="red"))), "$.blocks[0].faces"),
    ("grey-block-with-colours", blocks(block(size=[2, 2, 6])), "$.blocks[0].faces"),
    ("coloured-block-all-grey", blocks(block(faces={f: "grey" for f in FACES})), "$.blocks[0].faces"),
    # colour names
    ("unknown-face-colour", blocks(block(faces=faces(px="green"))), "$.blocks[0].faces.+x"),
    ("colour-wrong-case", blocks(block(faces=faces(px="Red"))), "$.blocks[0].faces.+x"),
    ("unknown-figure-colour", json.dumps(doc(figures=[{"color": "green", "cell": [5, 5, 0]}])), "$.figures[0].color"),
    ("grey-figure", json.dumps(doc(figures=[{"color": "grey", "cell": [5, 5, 0]}])), "$.figures[0].color"),
    ("unknown-stone-colour", json.dumps(doc(stones=[{"color": "blue", "block": "c1"}])), "$.stones[0].color"),
    # ids
    ("duplicate-ids", blocks(block(), block(origin=[2, 0, 0])), "$.blocks[1].id"),
    ("duplicate-of-a-default-id", blocks(block(id="b1"), block(id=None, origin=[2, 0, 0])), "$.blocks[1].id"),
    # format version
    ("unknown-format-version", json.dumps(doc(format="tower-build/2")), "$.format"),
    ("other-format", json.dumps(doc(format="game-record/1")), "$.format"),
    # stones
    ("stone-on-unknown-block", json.dumps(doc(stones=[{"color": "red", "block": "c9"}])), "$.stones[0].block"),
    ("stone-on-second-unknown-block",
     json.dumps(doc(stones=[{"color": "red", "block": "c1"}, {"color": "yellow", "block": "b0"}])),
     "$.stones[1].block"),
    # hostile
    ("deeply-nested", "[" * 100_000 + "]" * 100_000, None),
    ("too-large-a-volume",
     blocks(block(id="a", origin=[-10_000, -10_000, 0]), block(id="b", origin=[9_990, 9_990, 9_990])), "$"),
    ("figure-far-above-the-table", json.dumps(doc(figures=[{"color": "red", "cell": [9_000, 9_000, 9_000]}])), "$"),
]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.json"
    if name == "not-utf8":
        path.write_bytes(text.replace("\udcff", "").encode() + b"\xff\xfe")
    else:
        path.write_text(text)
    return path


def assert_one_line_error(proc, file: str, where: str | None) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert file in line
    if where is not None:
        assert f"at {where}:" in line
    return line


@pytest.fixture(scope="module")
def malformed_runs(tmp_path_factory, tower_cli):
    """`tower check` on every malformed file, run as subprocesses a few at a time (they mostly wait)."""
    folder = tmp_path_factory.mktemp("malformed")
    paths = {name: _write(folder, name, text) for name, text, _ in MALFORMED}
    with ThreadPoolExecutor(max_workers=6) as pool:
        procs = dict(zip(paths, pool.map(lambda p: tower_cli(["check", str(p)]), paths.values()), strict=True))
    return {name: (paths[name], procs[name]) for name in paths}


@pytest.mark.parametrize(("name", "text", "where"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_build_file_is_one_line_of_bad_input(malformed_runs, name, text, where):
    path, proc = malformed_runs[name]
    assert_one_line_error(proc, str(path), where)
    # the library says the same as the command
    with pytest.raises(BadInput) as exc:
        load_build(path)
    assert exc.value.source == str(path)
    if where is not None:
        assert exc.value.where == where


def test_missing_keys_are_named(tower_cli, tmp_path):
    path = _write(tmp_path, "m", json.dumps(doc(format=None)))
    line = assert_one_line_error(tower_cli(["check", str(path)]), str(path), "$")
    assert "format" in line


def test_invalid_json_names_line_and_column(tower_cli, tmp_path):
    path = _write(tmp_path, "bad", '{"format": "tower-build/1",\n "blocks": [}')
    line = assert_one_line_error(tower_cli(["check", str(path)]), str(path), None)
    assert "line 2" in line


def test_a_malformed_file_with_json_output_requested_still_prints_nothing_on_stdout(tower_cli, tmp_path):
    path = _write(tmp_path, "f", blocks(block(origin=[0, 0.5, 0])))
    assert_one_line_error(tower_cli(["check", str(path), "--json", "--statics-only"]), str(path),
                          "$.blocks[0].origin[1]")


def test_a_directory_is_bad_input(tower_cli, tmp_path):
    folder = tmp_path / "adir.json"
    folder.mkdir()
    assert_one_line_error(tower_cli(["check", str(folder)]), str(folder), None)


def test_a_missing_file_is_bad_input(tower_cli, tmp_path):
    path = tmp_path / "nope.json"
    assert_one_line_error(tower_cli(["check", str(path)]), str(path), None)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_bad_input(tower_cli, tmp_path):
    path = _write(tmp_path, "locked", json.dumps(doc()))
    path.chmod(0)
    assert_one_line_error(tower_cli(["check", str(path)]), str(path), None)

"""The JSON Schemas of every file and `--json` output (tower/schemas, docs/formats.md): valid draft 2020-12
schemas, shipped and printed by `tower schema`, in step with the code, and the loaders' one check of what they say.

Generated documents: hypothesis-jsonschema draws builds from the build schema, and `tower check` accepts each or
refuses it in one line with exit status 2, never with a traceback.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator

from tower.app.cli import main
from tower.climbers.blocks import COLOURS, FACES, KINDS, PLAYER_COLOURS, colouring_problem, kind_of
from tower.climbers.build import parse_build
from tower.games.errors import BadInput
from tower.games.fileio import atomic_write_text
from tower.schemas import FORMATS, file_name, problem, schema, validate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent / "schema_audit"))
import tower_schema_audit  # noqa: E402


@pytest.mark.parametrize("name", list(FORMATS))
def test_each_schema_is_a_draft_2020_12_schema_named_by_its_format(name):
    s = schema(name)
    Draft202012Validator.check_schema(s)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["$id"] == f"urn:tower-sim:schema:{FORMATS[name]}"
    assert s["properties"]["format"]["const"] == FORMATS[name]
    assert FORMATS[name] in s["title"]
    assert (ROOT / "tower" / "schemas" / file_name(name)).is_file()


def test_the_schemas_are_package_data():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"tower.schemas" = ["*.schema.json"]' in text


@pytest.mark.parametrize("name", list(FORMATS))
def test_tower_schema_prints_the_shipped_schema(tower_cli, name):
    for spelling in (name, FORMATS[name]):
        proc = tower_cli(["schema", spelling])
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == schema(name)


def test_tower_schema_lists_the_schemas_and_refuses_an_unknown_name(tower_cli):
    proc = tower_cli(["schema"])
    assert proc.returncode == 0
    assert [line.split()[1] for line in proc.stdout.splitlines()] == list(FORMATS.values())
    proc = tower_cli(["schema", "tower-bild"])
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert "tower-bild" in line and "tower-build" in line


def test_the_docs_link_every_schema():
    text = (ROOT / "docs" / "formats.md").read_text()
    for name in FORMATS:
        assert f"../tower/schemas/{file_name(name)}" in text, name
        assert f"tower schema {name}" in text or f"`{FORMATS[name]}`" in text


# --- the build schema in step with the rules' constants --------------------------------------------------------

def test_the_build_schema_names_the_games_colours_faces_and_block_sizes():
    defs = schema("tower-build")["$defs"]
    assert tuple(defs["colour"]["enum"]) == COLOURS
    assert tuple(defs["playerColour"]["enum"]) == PLAYER_COLOURS
    assert tuple(defs["faces"]["propertyNames"]["enum"]) == FACES and defs["faces"]["minProperties"] == 6
    sizes = {tuple(s) for s in defs["block"]["properties"]["size"]["enum"]}
    every = {p for k in KINDS for p in itertools.permutations(k.dims)}
    assert sizes == every
    assert all(kind_of(s) is not None for s in sizes)


def test_the_build_schema_lists_exactly_the_face_colourings_the_game_has():
    """Every colouring of the six faces the rules allow a coloured block is in `colouredFaces` (48), the grey
    block's one is `greyFaces`, and the block's `if` picks between them by its size."""
    defs = schema("tower-build")["$defs"]
    for kind in KINDS:
        legal = [dict(zip(FACES, (COLOURS[i] for i in c), strict=True))
                 for c in itertools.product(range(len(COLOURS)), repeat=6) if colouring_problem(c, kind) is None]
        listed = defs["colouredFaces"]["enum"] if kind.coloured else defs["greyFaces"]["enum"]
        assert sorted(map(json.dumps, listed)) == sorted(map(json.dumps, legal)), kind.name
        grey_size = Draft202012Validator(defs["block"]["if"]).is_valid({"size": list(kind.dims)})
        assert grey_size == (not kind.coloured), kind.name
    cube = {"origin": [0, 0, 0], "size": [2, 2, 2]}
    for faces, fine in (({"+x": "red", "-x": "yellow", "+y": "purple", "-y": "grey", "+z": "light-blue",
                          "-z": "dark-blue"}, True),
                        ({"+x": "red", "-x": "purple", "+y": "yellow", "-y": "grey", "+z": "light-blue",
                          "-z": "dark-blue"}, False),
                        (dict.fromkeys(FACES, "grey"), False)):
        found = problem({"format": "tower-build/1", "blocks": [{**cube, "faces": faces}]}, "tower-build")
        assert (found is None) == fine
        if not fine:
            assert found.where == "$.blocks[0].faces" and "illegal face colouring" in found.what
    grey = {"origin": [0, 0, 0], "size": [2, 6, 2], "faces": {**dict.fromkeys(FACES, "grey"), "+z": "red"}}
    found = problem({"format": "tower-build/1", "blocks": [grey]}, "tower-build")
    assert found.what == "illegal face colouring: a grey block is grey on every face"


@pytest.mark.parametrize(("doc", "where", "says"), [
    ({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 2, 2], "turn": 1}]},
     "$.blocks[0].turn", "unknown key 'turn'"),
    ({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0]}]}, "$.blocks[0]", "missing key 'size'"),
    ({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 1.0], "size": [2, 2, 2]}]}, "$.blocks[0].origin[2]",
     "expected a whole number, got a float 1.0"),
    ({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 10_001], "size": [2, 2, 2]}]},
     "$.blocks[0].origin[2]", "out of range"),
    ({"format": "tower-build/1", "blocks": [{"origin": [0, 0], "size": [2, 2, 2]}]}, "$.blocks[0].origin",
     "expected a list of 3 whole numbers"),
    ({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [3, 2, 2]}]}, "$.blocks[0].size",
     "size [3, 2, 2] is no block"),
    ({"format": "tower-build/1", "blocks": [], "figures": [{"color": "grey", "cell": [0, 0, 0]}]},
     "$.figures[0].color", "unknown colour 'grey' (one of: red, yellow, dark-blue, light-blue, purple)"),
    ({"format": "tower-build/2", "blocks": []}, "$.format", "unsupported format 'tower-build/2'"),
    ({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 2, 2]}] * 2001}, "$.blocks",
     "2001 blocks is more than the 2000 a build may have"),
])
def test_what_the_schema_says_is_one_error_with_its_json_path(doc, where, says):
    with pytest.raises(BadInput) as err:
        parse_build(doc)
    assert err.value.where == where and says in err.value.what, err.value


def test_a_schema_error_and_the_loader_agree_on_the_place():
    doc = {"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [2, 2, 2], "faces": {"+x": 1}}]}
    found = problem(doc, "tower-build/1")
    with pytest.raises(BadInput) as err:
        parse_build(doc)
    assert (err.value.where, err.value.what) == (found.where, found.what)


def nested_list(depth: int) -> list:
    value: list = [0]
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [50, 5000])
def test_a_value_nested_past_the_stack_is_refused_in_one_line(depth):
    # a value nested this deep cannot even be printed (json.dumps and repr run out of stack): the refusal still
    # names the place where it can, and never turns into a RecursionError
    doc = {"format": "game-record/1", "game": "climbers", "players": nested_list(depth), "seed": 7, "moves": []}
    found = problem(doc, "game-record/1")
    assert isinstance(found, BadInput) and found.where in ("$", "$.players")
    assert len(found.what) < 200 and ("nested too deeply" in found.what or "expected a whole number" in found.what)


# --- generated builds through `tower check` ------------------------------------------------------------------

#: What the loader checks beyond the build schema, as the schema's description names it.
LOADER_RULES = ("duplicate block id", "stone on unknown block", "grid cells")
#: Builds small enough that each is judged in well under a second: the schema's own bounds (2000 blocks,
#: coordinates up to 10 000) stay, only the lists are shortened for the run.
SMALL_BUILDS = json.loads(json.dumps(schema("tower-build")).replace('"maxItems": 2000', '"maxItems": 6'))
SMALL_BUILDS["properties"]["figures"]["maxItems"] = 3
SMALL_BUILDS["properties"]["stones"]["maxItems"] = 3


def _check(tmp_path: Path, doc: dict, capsys) -> tuple[int, str, str]:
    path = tmp_path / "generated.json"
    path.write_text(json.dumps(doc))
    code = main(["check", str(path), "--json", "--statics-only"])
    out, err = capsys.readouterr()
    return code, out, err


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(doc=from_schema(SMALL_BUILDS))
def test_tower_check_accepts_or_refuses_in_one_line_every_document_the_schema_allows(tmp_path, capsys, doc):
    validate(doc, "tower-build")  # the generator keeps to the schema
    code, out, err = _check(tmp_path, doc, capsys)
    if code == 2:  # only for a rule the schema leaves to the loader: never a colouring, a size, a key
        assert out == ""
        (line,) = err.splitlines()
        assert "generated.json: at $" in line and any(rule in line for rule in LOADER_RULES), line
    else:
        assert code in (0, 1) and err == ""
        report = json.loads(out)
        assert problem(report, "tower-check") is None
        assert (code == 0) == (report["legal"] and report["stability"]["verdict"] == "stable")


@settings(max_examples=3, deadline=None)
@given(doc=from_schema(SMALL_BUILDS))
def test_the_tower_command_on_generated_documents_never_prints_a_traceback(tmp_path_factory, doc):
    path = tmp_path_factory.mktemp("gen") / "generated.json"
    path.write_text(json.dumps(doc))
    proc = subprocess.run([sys.executable, "-m", "tower", "check", str(path), "--statics-only"],
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr
    assert proc.returncode in (0, 1) or (proc.returncode == 2 and len(proc.stderr.splitlines()) == 1)


# --- the outputs -----------------------------------------------------------------------------------------------

def test_check_simulate_and_sweep_json_name_and_match_their_schemas(tower_cli, tmp_path):
    build = tmp_path / "t.json"
    assert tower_cli(["new", "--seed", "1", "-o", str(build)]).returncode == 0
    runs = {"tower-check/1": ["check", str(build), "--json"],
            "tower-simulate/1": ["simulate", "diabolo", "--games", "2", "--json"],
            "tower-sweep/1": ["sweep", "--random", "2", "--statics-only", "--json", "--disagreements",
                              str(tmp_path / "d")]}
    for fmt, args in runs.items():
        proc = tower_cli(args)
        assert proc.returncode in (0, 1), proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["format"] == fmt
        validate(doc, fmt)


def test_a_document_that_drifts_from_its_schema_is_caught():
    doc = {"format": "tower-check/1", "legal": True, "violations": [], "stability": None, "forces": []}
    assert problem(doc, "tower-check").where == "$.forces"
    doc = {"format": "tower-check/1", "legal": "yes", "violations": [], "stability": None}
    assert problem(doc, "tower-check").where == "$.legal"


def test_the_audit_of_written_files_reports_a_file_that_breaks_its_schema(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    atomic_write_text(good, json.dumps({"format": "tower-build/1", "blocks": []}))
    atomic_write_text(bad, json.dumps({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0]}]}))
    written = tower_schema_audit.take()
    assert str(good) in written and str(bad) in written
    (line,) = tower_schema_audit.problems(written)
    assert str(bad) in line and "missing key 'size'" in line


def test_the_scene_schema_names_every_field_of_a_scene_and_its_items():
    from dataclasses import fields

    from viewer.scene import Scene
    from viewer.scene_json import ITEM_TYPES

    s = schema("tower-scene")
    assert set(s["properties"]) == {f.name for f in fields(Scene)} | {"format", "palette", "fixed"}
    assert set(s["required"]) == set(s["properties"])
    for name, cls in ITEM_TYPES.items():
        item = s["properties"][name]["items"]
        item = s["$defs"][item["$ref"].rsplit("/", 1)[1]] if "$ref" in item else item
        assert set(item["properties"]) == {f.name for f in fields(cls)} == set(item["required"]), name


def test_the_audit_sees_what_a_subprocess_writes(tmp_path):
    """The subprocesses the tests start (`tower ...`) check their writes too: here one writes a build without its
    blocks through the project's writer, with the audit's log pointed at a file of this test's own."""
    log = tmp_path / "audit.log"
    code = ("from tower.games.fileio import atomic_write_text; "
            f"atomic_write_text({str(tmp_path / 'bad.json')!r}, '{{\"format\": \"tower-build/1\"}}')")
    env = {**os.environ, tower_schema_audit.ENV: str(log)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)
    (line,) = log.read_text().splitlines()
    assert "bad.json" in line and "missing key 'blocks'" in line


# --- the results files of simulate and sweep --------------------------------------------------------------------

def test_results_files_of_a_simulate_and_a_sweep_conform_line_by_line(tower_cli, tmp_path):
    runs = {"simulateResult": ["simulate", "diabolo", "--games", "3"],
            "sweepResult": ["sweep", "--random", "3", "--statics-only", "--disagreements", str(tmp_path / "d")]}
    for part, args in runs.items():
        out = tmp_path / f"{part}.jsonl"
        assert tower_cli([*args, "--out", str(out), "--json"]).returncode == 0
        header, *lines = [json.loads(t) for t in out.read_text().splitlines()]
        validate(header, "tower-batch")
        assert len(lines) == 3
        for line in lines:
            validate(line, "tower-batch", part)


def test_a_damaged_results_line_is_one_line_of_bad_input_on_resume(tower_cli, tmp_path):
    """A results line missing a field used to end the resumed run in a KeyError traceback in the summary."""
    out = tmp_path / "games.jsonl"
    assert tower_cli(["simulate", "diabolo", "--games", "1", "--out", str(out), "--json"]).returncode == 0
    with out.open("a") as fh:
        fh.write('{"index": 1, "seed": 5, "winners": [0], "scores": [1, 2, 3, 4], "length": 9}\n')
    proc = tower_cli(["simulate", "diabolo", "--games", "3", "--resume", str(out), "--json"])
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    (line,) = proc.stderr.splitlines()
    assert "line 3, $: missing key 'shares'" in line

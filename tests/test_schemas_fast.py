"""The compiled yes/no check of tower/schemas/fast.py against `jsonschema` (our strict flavour, the path that words
the messages): they must agree on every document, valid or not. Documents: those the project and its docs ship or
make, documents hypothesis-jsonschema draws from each schema, and those documents broken on purpose (wrong types,
1.0 or True for an integer, missing and unknown keys, out-of-range numbers, too many items, bad enums and consts,
oneOf with no or two matches). Also: every shipped schema and part compiles, a keyword the compiler does not
know is refused, and valid input never imports `jsonschema`.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from tower.climbers.build import build_to_json
from tower.climbers.setup import random_start_tower
from tower.games.errors import BadInput
from tower.schemas import FORMATS, _message, fast_check, problem, schema, validator
from tower.schemas.fast import SchemaNotCompiled, compile_check

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

#: Every (schema, part) the loaders use: each whole schema, and each `$defs` entry (tower-batch's result lines).
PARTS = [(name, None) for name in FORMATS] + [(name, part) for name in FORMATS for part in schema(name).get("$defs", {})]


def verdicts(doc: Any, name: str, part: str | None = None) -> tuple[bool, bool]:
    """(the fast check's yes/no, jsonschema's yes/no) of `doc`."""
    return fast_check(name, part)(doc), validator(name, part).is_valid(doc)


def assert_agree(doc: Any, name: str, part: str | None = None) -> bool:
    fast, slow = verdicts(doc, name, part)
    assert fast == slow, f"{name} {part or ''}: fast says {fast}, jsonschema {slow}: {json.dumps(doc)[:300]}"
    found = problem(doc, name, part)
    if slow:
        assert found is None
    else:  # the message is jsonschema's first error, worded as before
        error = next(iter(validator(name, part).iter_errors(doc)))
        assert isinstance(found, BadInput) and (found.what, found.where) == _message(error)
    return slow


# --- compiling -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "part"), PARTS)
def test_every_shipped_schema_and_part_compiles(name, part):
    assert callable(fast_check(name, part))
    for value in (None, True, 0, 1.0, "x", [], {}):
        assert_agree(value, name, part)


@pytest.mark.parametrize(("schema_", "says"), [
    ({"type": "object", "properties": {"a": {"type": "string", "format": "email"}}}, "#/properties/a: keyword 'format'"),
    ({"type": "array", "uniqueItems": True}, "#: keyword 'uniqueItems'"),
    ({"anyOf": [{"type": "null"}]}, "#: keyword 'anyOf'"),
    ({"$defs": {"a": {"not": {"type": "null"}}}}, "#/$defs/a: keyword 'not'"),
    ({"items": [{"type": "integer"}]}, "#: items must be one schema"),
    ({"$ref": "other.json#/$defs/a"}, "#: $ref 'other.json#/$defs/a'"),
    ({"$ref": "#/$defs/missing", "$defs": {}}, "#: $ref '#/$defs/missing'"),
    ({"properties": {"a": {"$id": "urn:x", "type": "null"}}}, "#/properties/a: an $id below the root"),
    ({"type": "whole"}, "#: type ['whole']"),
    ({"oneOf": []}, "#: oneOf must be a non-empty list"),
])
def test_a_keyword_or_form_the_compiler_does_not_know_is_refused_with_its_place(schema_, says):
    with pytest.raises(SchemaNotCompiled) as err:
        compile_check(schema_)
    assert str(err.value).startswith(says), err.value


def test_a_shipped_schema_given_a_new_assertion_no_longer_compiles():
    """The safety net: a schema edit the compiler cannot follow is loud, not a weaker check."""
    edited = copy.deepcopy(schema("tower-build"))
    edited["$defs"]["block"]["properties"]["id"]["pattern"] = "^b"  # understood
    assert compile_check(edited)({"format": "tower-build/1", "blocks": [{"id": "x", "origin": [0, 0, 0],
                                                                         "size": [2, 2, 2]}]}) is False
    edited["properties"]["blocks"]["uniqueItems"] = True  # not understood
    with pytest.raises(SchemaNotCompiled, match="#/properties/blocks: keyword 'uniqueItems'"):
        compile_check(edited)


# --- agreement on documents the project ships and makes ---------------------------------------------------------

def _documents(value: Any) -> list[dict]:
    """Every object inside `value` whose `format` names one of our schemas."""
    out = []
    if isinstance(value, dict):
        if value.get("format") in FORMATS.values():
            out.append(value)
        for v in value.values():
            out += _documents(v)
    elif isinstance(value, list):
        for v in value:
            out += _documents(v)
    return out


def _shipped() -> list[tuple[str, dict]]:
    found = []
    for path in sorted((ROOT / "tests").rglob("*.json")) + sorted((ROOT / "docs").rglob("*.json")):
        found += [(str(path.relative_to(ROOT)), d) for d in _documents(json.loads(path.read_text()))]
    for path in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        for block in re.findall(r"```json\n(.*?)```", path.read_text(), re.S):
            try:
                doc = json.loads(block)
            except ValueError:
                continue  # a sketch with elisions, no document
            found += [(str(path.relative_to(ROOT)), d) for d in _documents(doc)]
    return found


def test_the_fast_check_agrees_on_every_document_the_tests_and_docs_ship():
    found = _shipped()
    formats = {d["format"] for _, d in found}
    assert len(found) >= 10 and {"tower-build/1", "game-record/1"} <= formats, formats
    valid = sum(assert_agree(d, d["format"]) for _, d in found)
    assert valid >= len(found) // 2


def test_the_fast_check_agrees_on_documents_the_project_makes():
    from viewer.scene_json import scene_to_json
    from viewer.view import build_view_scene

    for seed in range(5):
        build = random_start_tower(seed)
        assert assert_agree(build_to_json(build), "tower-build")
        scene = scene_to_json(build_view_scene(build))
        assert assert_agree(scene, "tower-scene")  # in memory: tuples where JSON has arrays
        assert assert_agree(json.loads(json.dumps(scene)), "tower-scene")


def test_the_fast_check_agrees_on_the_json_outputs_and_results_lines(tmp_path, capsys):
    from tower.app.cli import main

    build = tmp_path / "t.json"
    assert main(["new", "--seed", "3", "-o", str(build)]) == 0
    runs = {"tower-check": ["check", str(build), "--json", "--statics-only", "--forces", "--removal-map"],
            "tower-simulate": ["simulate", "diabolo", "--games", "2", "--json", "--out", str(tmp_path / "g.jsonl")]}
    capsys.readouterr()
    for name, args in runs.items():
        assert main(args) in (0, 1)
        assert assert_agree(json.loads(capsys.readouterr().out), name)
    header, *lines = [json.loads(t) for t in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert assert_agree(header, "tower-batch")
    assert lines and all(assert_agree(line, "tower-batch", "simulateResult") for line in lines)


# --- agreement on generated documents, valid and broken ----------------------------------------------------------

def _small(value: Any) -> Any:
    """The schema with lists capped at 4 items (its `$id` and absolute references kept, as shipped): what it
    generates is valid for the shipped schema too."""
    if isinstance(value, dict):
        out = {k: _small(v) for k, v in value.items()}
        if "maxItems" in out:
            out["maxItems"] = min(out["maxItems"], max(4, out.get("minItems", 0)))
        return out
    if isinstance(value, list):
        return [_small(v) for v in value]
    return value


def _generator(name: str, part: str | None) -> st.SearchStrategy:
    s = _small(schema(name))
    if part is not None:
        s = {"$id": s["$id"], "$ref": f"#/$defs/{part}", "$defs": s["$defs"]}
    return from_schema(s)


#: Values a mutation puts in place of another: the usual ways a hand-edited or hostile file goes wrong.
ODD = [1.0, 2.5, True, False, None, 0, -1, 10**6, -10**6, "", "x", "red", [], [0, 0, 0], {}, {"a": 1}, float("nan")]


def _places(doc: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _places(v, (*path, k))
    elif isinstance(doc, list | tuple):
        for i, v in enumerate(doc):
            out += _places(v, (*path, i))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def mutate(doc: Any, data: st.DataObject) -> Any:
    """`doc` broken (or, by chance, not) in one place drawn by hypothesis."""
    doc = copy.deepcopy(doc)
    path = data.draw(st.sampled_from(_places(doc)), label="place")
    target = _get(doc, path)
    ways = ["replace"]
    if isinstance(target, dict):
        ways += ["drop key", "add key"] if target else ["add key"]
    if isinstance(target, list):
        ways += ["append", "tuple"] + (["pop"] if target else [])
    if isinstance(target, int) and not isinstance(target, bool):
        ways += ["float", "bool", "far"]
    way = data.draw(st.sampled_from(ways), label="way")
    if way == "replace":
        new = data.draw(st.sampled_from(ODD), label="value")
    elif way == "drop key":
        new = dict(target)
        new.pop(data.draw(st.sampled_from(sorted(target)), label="key"))
    elif way == "add key":
        new = {**target, data.draw(st.sampled_from(["zz", "id", "format", "x", "p7"]), label="key"):
               data.draw(st.sampled_from(ODD), label="value")}
    elif way == "append":
        new = [*target, *[target[-1] if target else 0] * data.draw(st.integers(1, 3), label="n")]
    elif way == "tuple":
        new = tuple(target)
    elif way == "pop":
        new = target[:-1]
    elif way == "float":
        new = float(target)
    elif way == "bool":
        new = bool(target)
    else:
        new = target + data.draw(st.sampled_from([-20_001, 20_001, -1, 1]), label="shift")
    if not path:
        return new
    _get(doc, path[:-1])[path[-1]] = new
    return doc


_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                            HealthCheck.data_too_large])


@pytest.mark.parametrize(("name", "part"), [p for p in PARTS if p[1] is None or p[0] == "tower-batch"])
def test_the_fast_check_agrees_on_generated_documents_and_on_them_broken(name, part):
    @_SETTINGS
    @given(data=st.data())
    def run(data):
        doc = data.draw(_generator(name, part), label="doc")
        assert assert_agree(doc, name, part), "the generator keeps to the schema"
        for _ in range(3):
            assert_agree(mutate(doc, data), name, part)

    run()


# --- the issue's cases, spelled out ------------------------------------------------------------------------------

BLOCK = {"id": "b0", "origin": [0, 0, 0], "size": [2, 2, 2],
         "faces": {"+x": "red", "-x": "yellow", "+y": "dark-blue", "-y": "light-blue", "+z": "purple", "-z": "grey"}}


def _build(**block: Any) -> dict:
    return {"format": "tower-build/1", "blocks": [{**BLOCK, **block}]}


def _check_doc(stability: Any) -> dict:
    return {"format": "tower-check/1", "legal": True, "violations": [], "stability": stability}


@pytest.mark.parametrize(("doc", "name", "valid"), [
    (_build(), "tower-build", True),
    ({"format": "tower-build/1", "blocks": ({**BLOCK, "origin": (0, 0, 0)},)}, "tower-build", True),
    (_build(origin=[0, 0, 1.0]), "tower-build", False),                      # 1.0 is no integer here
    (_build(origin=[0, 0, True]), "tower-build", False),                     # nor is True
    (_build(origin=[0, 0, "0"]), "tower-build", False),
    (_build(origin=[0, 0, 10_000]), "tower-build", True),                    # the bound itself
    (_build(origin=[0, 0, 10_001]), "tower-build", False),
    (_build(origin=[-10_001, 0, 0]), "tower-build", False),
    (_build(origin=[0, 0]), "tower-build", False),
    (_build(origin=[0, 0, 0, 0]), "tower-build", False),
    (_build(size=[2, 2, 3]), "tower-build", False),                          # enum
    (_build(size=[2.0, 2, 2]), "tower-build", False),                        # in the enum by value, not an integer
    (_build(size=[True, 2, 2]), "tower-build", False),
    (_build(id=""), "tower-build", False),
    (_build(id="x" * 65), "tower-build", False),
    (_build(turn=1), "tower-build", False),                                  # unknown key
    ({"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0]}]}, "tower-build", False),  # missing key
    (_build(faces={**BLOCK["faces"], "+x": "pink"}), "tower-build", False),
    (_build(faces={**BLOCK["faces"], "+x": 1}), "tower-build", False),
    ({"format": "tower-build/2", "blocks": []}, "tower-build", False),       # const
    ({"format": "tower-build/1", "blocks": [BLOCK] * 2001}, "tower-build", False),
    ([], "tower-build", False),
    (_check_doc(None), "tower-check", True),
    (_check_doc("stable"), "tower-check", False),                            # oneOf: no branch matches
    (_check_doc({}), "tower-check", False),
    (_check_doc(None) | {"legal": 1}, "tower-check", False),
])
def test_the_issues_cases(doc, name, valid):
    assert verdicts(doc, name) == (valid, valid)
    assert_agree(doc, name)


def test_one_of_with_two_matching_branches_is_refused_like_jsonschema_refuses_it():
    from jsonschema import Draft202012Validator

    s = {"oneOf": [{"type": "integer"}, {"minimum": 0}], "$defs": {}}
    for value, valid in ((3, False), (-3, True), (0.5, True), (-0.5, False), ("3", True)):
        assert compile_check(s)(value) is valid is Draft202012Validator(s).is_valid(value), value


def test_patterns_exclusive_bounds_and_recursive_refs_agree_with_jsonschema():
    """Forms the compiler understands that the shipped schemas use little or not at all."""
    from jsonschema import Draft202012Validator

    s = {"type": "object", "additionalProperties": False, "patternProperties": {"^p[0-9]+$": {"type": "number"}},
         "properties": {"name": {"type": "string", "pattern": "^[a-z]+$"}, "next": {"$ref": "#/$defs/node"},
                        "scale": {"exclusiveMinimum": 0, "exclusiveMaximum": 1}},
         "$defs": {"node": {"oneOf": [{"type": "null"}, {"$ref": "#"}]}}}
    s["$defs"]["node"]["oneOf"][1] = {"$ref": "#/$defs/tree"}
    s["$defs"]["tree"] = {k: v for k, v in s.items() if k != "$defs"}
    docs = [{}, {"p1": 2.5}, {"p1": "x"}, {"q1": 1}, {"name": "ab"}, {"name": "aB"}, {"scale": 0}, {"scale": 0.5},
            {"scale": 1}, {"next": None}, {"next": {"next": {"p2": 1}}}, {"next": {"next": {"p2": None}}},
            {"p12x": 1}, {"scale": float("nan")}]
    check = compile_check(s)
    for doc in docs:
        assert check(doc) == Draft202012Validator(s).is_valid(doc), doc


# --- import-light ------------------------------------------------------------------------------------------------

def test_valid_input_never_imports_jsonschema_and_invalid_input_gets_its_message(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(build_to_json(random_start_tower(2))))
    bad.write_text(json.dumps(_build(origin=[0, 0, 1.0])))
    code = ("import json, sys\n"
            "from tower.schemas import problem\n"
            "for path in sys.argv[1:]:\n"
            "    found = problem(json.load(open(path)), 'tower-build')\n"
            "    print(found and found.where, found and found.what, 'jsonschema' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(good), str(bad)], capture_output=True, text=True,
                          timeout=60, check=True)
    assert proc.stdout.splitlines() == [
        "None None False",
        "$.blocks[0].origin[2] expected a whole number, got a float 1.0 True"]


def test_the_suites_schema_audit_reports_a_disagreement_of_the_two_checks(monkeypatch):
    """Every file the test suite makes the project write is put to both checks (tests/schema_audit)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "schema_audit"))
    import tower_schema_audit

    import tower.schemas

    doc = _build(origin=[0, 0, 1.0])
    assert tower_schema_audit.disagreement(doc, "tower-build/1") is None
    monkeypatch.setattr(tower.schemas, "fast_check", lambda name, part=None: lambda doc: True)
    assert "says valid=True, jsonschema valid=False" in tower_schema_audit.disagreement(doc, "tower-build/1")

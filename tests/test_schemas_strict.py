"""The shipped JSON Schemas (tower/schemas) as strict tools no one here wrote read them, with their own `$id`s:
ajv (npm `ajv`, `ajv/dist/2020` with `strict: true`, run with node; `.ci/run` installs it into `.tools/`) compiles
every schema, and agrees with the project's validator on every document the project writes (the MuJoCo judge's
`tower check` output included) and on documents hypothesis-jsonschema draws from each shipped schema as it is,
broken on purpose or not (tests/test_schemas.py: a drawn build loads unless a rule the schema leaves to the loader
says no). docs/interop.md lists the versions.

Where the two validators may differ by design: a whole number written with a fraction (`1.0`) is an integer to
JSON Schema (ajv) and a float to the project's loaders (docs/formats.md); such documents are left out of the
comparison.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from tower.app.cli import main
from tower.climbers.build import build_to_json, parse_build
from tower.climbers.setup import random_start_tower
from tower.games import game_names, new_game
from tower.schemas import FORMATS, problem, schema

sys.path.insert(0, str(Path(__file__).resolve().parent))
from node_tools import NODE, node_modules  # noqa: E402
from test_schemas_fast import mutate  # noqa: E402

#: The ajv `.ci/run` installs (and this test, when it is missing).
AJV_VERSION = "8.20.0"
CHECK_JS = Path(__file__).resolve().parent / "schema_tools" / "ajv_check.js"
BEAM = {"format": "tower-build/1", "blocks": [
    {"id": "a", "origin": [0, 0, 0], "size": [2, 2, 2],
     "faces": {"+x": "purple", "-x": "grey", "+y": "red", "-y": "yellow", "+z": "dark-blue", "-z": "light-blue"}},
    {"id": "b", "origin": [4, 0, 0], "size": [2, 2, 2]}, {"id": "beam", "origin": [0, 0, 2], "size": [6, 2, 2]}],
    "figures": [{"color": "red", "cell": [0, 0, 4]}], "stones": [{"color": "yellow", "block": "beam"}]}


@pytest.fixture(scope="module")
def ajv_modules() -> Path:
    """node_modules holding ajv (the project-local .tools/, not committed), installed from npm if missing."""
    return node_modules("ajv", "ajv", f"ajv@{AJV_VERSION}")


def ajv(modules: Path, cases: list[tuple[str, str | None, Any]], tmp_path: Path) -> dict[str, Any]:
    """Every shipped schema compiled by ajv in strict mode, and its verdict on each (schema, part, document)."""
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"schemas": [schema(name) for name in FORMATS],
                                "cases": [{"id": schema(name)["$id"], "part": part, "doc": doc}
                                          for name, part, doc in cases]}, allow_nan=False))
    proc = subprocess.run([NODE, str(CHECK_JS), str(path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NODE_PATH": str(modules)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _whole_float(doc: Any) -> bool:
    if isinstance(doc, float):
        return doc.is_integer()
    if isinstance(doc, dict):
        return any(_whole_float(v) for v in doc.values())
    if isinstance(doc, list | tuple):
        return any(_whole_float(v) for v in doc)
    return False


def _json_safe(doc: Any) -> bool:
    try:
        json.dumps(doc, allow_nan=False)
    except ValueError:
        return False
    return True


def written(tmp_path: Path, capsys) -> list[tuple[str, str | None, Any]]:
    """Documents the project writes: builds, a record of each game, scenes, `tower check --json` with every
    extra (and the MuJoCo judge when it is installed), simulate and sweep outputs and their results files."""
    from tower.app import stability
    from viewer import overlays
    from viewer.games import scene_for_view
    from viewer.scene_json import scene_to_json
    from viewer.view import build_view_scene

    docs: list[tuple[str, str | None, Any]] = []
    tower = random_start_tower(4)
    docs += [("tower-build", None, build_to_json(tower)), ("tower-build", None, BEAM)]
    for name in game_names():
        state = new_game(name, None, 3)
        for _ in range(6):
            if state.is_over:
                break
            state.apply(state.legal_moves()[0])
        docs.append(("game-record", None, state.record()))
        docs.append(("tower-scene", None, scene_to_json(scene_for_view(state.layout, state.public_view()))))
    beam = parse_build(BEAM)
    scene = build_view_scene(beam, physics=stability)
    docs.append(("tower-scene", None, scene_to_json(overlays.with_forces(scene, stability.forces(beam).to_json()))))
    path = tmp_path / "beam.json"
    path.write_text(json.dumps(BEAM))
    for name, build in (("beam", path), ("falls", tmp_path / "falls.json")):
        build.write_text(json.dumps(BEAM if name == "beam" else {"format": "tower-build/1", "blocks": [
            {"origin": [0, 0, 0], "size": [2, 2, 2]}, {"origin": [1, 0, 2], "size": [2, 2, 4]}]}))
        main(["check", str(build), "--statics-only", "--certificate", str(tmp_path / f"{name}-cert.json")])
        capsys.readouterr()
        docs.append(("tower-certificate", None, json.loads((tmp_path / f"{name}-cert.json").read_text())))
    judges = [["--judge", "mujoco"]] if _has("mujoco") else []
    for extra in [["--forces", "--removal-map", "--push", "beam"], *judges]:
        main(["check", str(path), "--json", *extra])
        docs.append(("tower-check", None, json.loads(capsys.readouterr().out)))
    runs = {"simulate": ["simulate", "diabolo", "--games", "2"],
            "sweep": ["sweep", "--random", "2", "--statics-only", "--disagreements", str(tmp_path / "d")]}
    for command, args in runs.items():
        out = tmp_path / f"{command}.jsonl"
        main([*args, "--json", "--out", str(out)])
        docs.append((f"tower-{command}", None, json.loads(capsys.readouterr().out)))
        header, *lines = [json.loads(t) for t in out.read_text().splitlines()]
        docs += [("tower-batch", None, header)] + [("tower-batch", f"{command}Result", line) for line in lines]
    return docs


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _draw(target: dict[str, Any], count: int) -> list[Any]:
    """`count` documents hypothesis-jsonschema draws from `target`, each followed by itself broken in one place."""
    found: list[Any] = []

    @settings(max_examples=count, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(doc=from_schema(target), data=st.data())
    def collect(doc, data):
        found.extend([doc, mutate(doc, data)])

    collect()
    return found


def drawn(per_schema: int = 8) -> list[tuple[str, str | None, Any]]:
    """Documents hypothesis-jsonschema draws from each shipped schema (and each result line of tower-batch), as
    shipped, each also broken in one place."""
    targets = [(name, None) for name in FORMATS] + [("tower-batch", "simulateResult"), ("tower-batch", "sweepResult")]
    out: list[tuple[str, str | None, Any]] = []
    for name, part in targets:
        whole = copy.deepcopy(schema(name))  # hypothesis-jsonschema rewrites the schema it is given
        target = whole if part is None else {"$id": whole["$id"], "$ref": f"#/$defs/{part}", "$defs": whole["$defs"]}

        out += [(name, part, doc) for doc in _draw(target, per_schema)]
    return out


def test_ajv_in_strict_mode_compiles_every_shipped_schema_and_agrees_with_the_project(ajv_modules, tmp_path,
                                                                                      capsys):
    mine = written(tmp_path, capsys)
    assert {name for name, _, _ in mine} == set(FORMATS)
    for name, part, doc in mine:
        assert problem(doc, name, part) is None, (name, part, problem(doc, name, part))
    cases = mine + [c for c in drawn() if _json_safe(c[2]) and not _whole_float(c[2])]
    answer = ajv(ajv_modules, cases, tmp_path)
    assert answer["compiled"] == [schema(name)["$id"] for name in FORMATS]
    for (name, part, doc), got in zip(cases, answer["results"], strict=True):
        found = problem(doc, name, part)
        assert got["valid"] == (found is None), (name, part, got["error"], found, json.dumps(doc)[:300])
    assert all(got["valid"] for got in answer["results"][:len(mine)])
    assert sum(not got["valid"] for got in answer["results"]) > 10  # broken documents were among them

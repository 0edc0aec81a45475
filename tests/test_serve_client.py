"""A client generated from `tower serve`'s OpenAPI document by a tool no one here wrote (openapi-python-client, the
version pinned in pyproject.toml): it generates without a warning, every operation of the document is a function
of it, and a game and a lab are driven through it, every operation called and every answer parsed into the model
the document names (docs/interop.md, docs/serve.md)."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("openapi_python_client")

from serve_support import ROOMY  # noqa: E402

from tower.app.serve.run import ServerThread  # noqa: E402

PACKAGE = "tower_serve_client"
BEAM = {"format": "tower-build/1", "blocks": [
    {"id": "a", "origin": [0, 0, 0], "size": [2, 2, 2]}, {"id": "b", "origin": [4, 0, 0], "size": [2, 2, 2]},
    {"id": "beam", "origin": [0, 0, 2], "size": [6, 2, 2]}]}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A loopback server, and the client generated from the document it serves (imported as PACKAGE)."""
    root = tmp_path_factory.mktemp("client")
    with ServerThread(str(root / "games.sqlite"), ai_pause=0, workers=1, limits=ROOMY) as srv:
        with urllib.request.urlopen(srv.url + "/api/openapi.json", timeout=30) as resp:
            doc = json.loads(resp.read())
        (root / "openapi.json").write_text(json.dumps(doc))
        (root / "config.yaml").write_text("post_hooks: []\n")  # no formatter needed to import it
        proc = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path",
                               str(root / "openapi.json"), "--output-path", str(root / PACKAGE), "--meta", "none",
                               "--config", str(root / "config.yaml")], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "warning" not in (proc.stdout + proc.stderr).lower(), proc.stdout + proc.stderr
        sys.path.insert(0, str(root))
        try:
            yield importlib.import_module(PACKAGE), srv, doc
        finally:
            sys.path.remove(str(root))
            for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
                del sys.modules[name]


def _operations(doc: dict) -> dict[str, str]:
    """operationId -> its tag, of every operation of the document."""
    return {op["operationId"]: op["tags"][0] for ops in doc["paths"].values() for op in ops.values()}


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Driver:
    """Calls operations of the generated client by operationId, and keeps which were called."""

    def __init__(self, pkg, url: str, doc: dict) -> None:
        self.pkg, self.tags, self.called = pkg, _operations(doc), set()
        self.client = pkg.Client(base_url=url, timeout=60, raise_on_unexpected_status=True)

    def model(self, name: str, data: dict):
        module = importlib.import_module(f"{PACKAGE}.models.{_snake(name)}")
        return getattr(module, name).from_dict(data)

    def call(self, op_id: str, expect: str | None, status: int = 200, **kwargs):
        module = importlib.import_module(f"{PACKAGE}.api.{self.tags[op_id]}.{_snake(op_id)}")
        answer = module.sync_detailed(client=self.client, **kwargs)
        self.called.add(op_id)
        assert answer.status_code == status, (op_id, answer.status_code, answer.content[:300])
        if expect is not None:  # parsed into the model the document names for the answer
            assert type(answer.parsed).__name__ == expect, (op_id, type(answer.parsed).__name__)
        return answer.parsed


def test_every_operation_of_the_document_is_a_function_of_the_generated_client(generated):
    pkg, _srv, doc = generated
    for op_id, tag in _operations(doc).items():
        module = importlib.import_module(f"{PACKAGE}.api.{tag}.{_snake(op_id)}")
        assert callable(module.sync_detailed) and callable(module.asyncio_detailed), op_id


def test_a_game_and_a_lab_through_the_generated_client_every_answer_parsed(generated):
    pkg, srv, doc = generated
    api = Driver(pkg, srv.url, doc)
    # the catalogue and the documents
    catalogue = api.call("catalogue", "Catalogue")
    assert {g.name.value for g in catalogue.games} == {"climbers", "seventh-heaven", "partners", "diabolo"}
    assert api.call("openapi", "Document").additional_properties["openapi"].startswith("3.1")
    api.call("asyncapi", "Document")
    # a game of The Climbers between two humans: a move, the page's snapshot, a block's placements
    made = api.call("createGame", "NewGameAnswer", 201,
                    body=api.model("NewClimbersGame", {"game": "climbers", "seats": ["human", "human"], "seed": 7}))
    game, (t0, t1) = made.id, (s.token for s in made.seats)
    state = api.call("getGame", "GameAnswer", id=game, token=t0)
    assert state.to_move == 0 and "skip" in state.legal_moves
    state = api.call("playMove", "GameAnswer", id=game, token=t0, body=api.model("Move", {"move": "skip", "n": 0}))
    assert state.n == 1
    snap = api.call("snapshot", "Snapshot", id=game, token=t0)
    assert snap.scene.format_ == "tower-scene/1" and snap.blocks
    assert api.call("placements", "BlockPlacements", id=game, token=t0, block=snap.blocks[0]).placements
    assert api.call("ghosts", "BlockGhosts", id=game, token=t0, block=snap.blocks[0]).ghosts
    assert api.call("hint", "Hint", id=game, token=t0).n == 1
    assert api.call("nameSeat", "SeatName", id=game, token=t1, body=api.model("NewName", {"name": "Ada"})).name == "Ada"
    refused = api.call("undoMove", "Error", 409, id=game, token=t1)  # P1 has no move to take back
    assert refused.rule
    assert api.call("feed", "Error", 400, id=game, token=t0).error  # a plain GET of the WebSocket
    assert api.call("abandonGame", "GameAnswer", id=game, token=t0).over
    record = api.call("record", "Record", id=game)
    assert record.moves == ["skip"]
    page = api.call("replayGame", "ReplayPage", id=game)
    assert page.total == 2 and page.frames[0].scene.format_ == "tower-scene/1"
    uploaded = api.call("replayRecord", "ReplayPage", body=api.model("RecordUpload", record.to_dict()), from_=1)
    assert uploaded.frames[0].move == "skip"
    # a game played to its end (one round against an AI), then its rematch
    short = api.call("createGame", "NewGameAnswer", 201, body=api.model("NewClimbersGame", {
        "game": "climbers", "seats": ["human", "ai:random"], "seed": 5, "options": {"max_rounds": 1}}))
    deadline = time.monotonic() + 120
    while not (state := api.call("getGame", "GameAnswer", id=short.id, token=short.seats[0].token)).over:
        assert time.monotonic() < deadline, "the one-round game did not end"
        if state.legal_moves:
            move = "pass" if "pass" in state.legal_moves else state.legal_moves[0]
            api.call("playMove", "GameAnswer", id=short.id, token=short.seats[0].token,
                     body=api.model("Move", {"move": move, "n": state.n}))
        else:
            time.sleep(0.05)
    assert api.call("rematch", "Rematch", 201, id=short.id, token=short.seats[0].token,
                    body=api.model("NoBody", {})).url
    # a lab: a beam over two columns, edited, judged, dropped
    assert [k.name for k in api.call("labPalette", "LabPalette").kinds]
    lab = api.call("createLab", "LabState", 201, body=api.model("NewLab", {"build": BEAM, "rules": "flag"}))
    added = api.call("editLab", "LabState", id=lab.id, body=api.model("LabAdd", {
        "op": "add", "kind": "cube", "origin": [8, 0, 0], "top": "red"}))
    assert added.edits == 1 and len(added.build.blocks) == 4 and added.did.startswith("added cube")
    assert api.call("undoLab", "LabState", id=lab.id).edits == 0
    assert api.call("redoLab", "LabState", id=lab.id).edits == 1
    assert api.call("labRules", "LabState", id=lab.id, body=api.model("LabRules", {"rules": "strict"})).rules.value == \
        "strict"
    hand = api.model("LabHand", {"kind": "cube", "area": [-4, -4, 10, 4], "shapes": [
        {"size": [2, 2, 2], "top": "purple", "faces": ["red", "yellow", "dark-blue", "light-blue", "purple", "grey"]}]})
    refused = api.call("labRefusals", "LabRefusals", id=lab.id, body=hand).refused.additional_properties
    assert any(text.startswith("block new ") for text in refused)  # half over a column: unsupported
    analysis = api.call("getLab", "LabState", id=lab.id).analysis
    assert analysis.stability.verdict.value == "stable" and analysis.violations  # the beam bridges a gap
    assert api.call("labForces", "LabExplained", id=lab.id).words
    assert api.call("labRemoval", "LabExplained", id=lab.id).words
    progress = api.call("labRemovalProgress", "LabRemovalProgress", id=lab.id)  # the map just found, whole
    assert progress.state.value == "done" and progress.done == progress.total == len(added.build.blocks)
    pushed = api.call("labPush", "LabExplained", id=lab.id, body=api.model("LabPush", {"block": "beam",
                                                                                     "direction": "+x"}))
    assert pushed.push.additional_properties["block"] == "beam"
    assert api.call("labOverlays", "LabOverlays", id=lab.id, show="forces", push="beam:+x").scene.arrows
    assert api.call("dropLab", "LabDrop", id=lab.id).collapsed is False
    assert len(api.call("labBuild", "SavedBuild", id=lab.id).blocks) == 4
    # the pages
    for op_id, kwargs in (("lobbyPage", {}), ("gamePage", {"id": game, "token": t0}), ("replayUploadPage", {}),
                          ("replayPage", {"id": game}), ("labPage", {}), ("labIdPage", {"id": lab.id})):
        assert "<html" in api.call(op_id, "str", **kwargs).lower()
    assert "import" in api.call("static", "str", path="js/lobby.js")
    api.call("favicon", None, 204)
    assert api.called == set(_operations(doc)), set(_operations(doc)) - api.called


MYPY_CONFIG = """[mypy]
strict = True
[mypy-client_bot]
disallow_any_expr = True
disallow_any_explicit = True
"""


def test_the_generated_client_and_a_bot_on_it_pass_mypy_strict_with_no_any_in_the_bot(generated, tmp_path):
    """`mypy --strict` on the generated package and tests/client_bot.py, the bot also with `disallow_any_expr`:
    every answer, model and field it touches (moves, placements, seats, options of each game, the lab's builds,
    edits, push directions, undo/redo/drop bodies) has a type of the document's, none of them `Any`."""
    pytest.importorskip("mypy")
    pkg, _srv, _doc = generated
    root = Path(pkg.__file__).parents[1]
    (tmp_path / "mypy.ini").write_text(MYPY_CONFIG)
    bots = Path(__file__).parent  # tests/client_bot.py, as the module client_bot
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(tmp_path / "mypy.ini"), "--cache-dir",
                           str(tmp_path / "cache"), "-p", PACKAGE, "-m", "client_bot"], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "MYPYPATH": os.pathsep.join([str(root), str(bots)])})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "Success: no issues found" in proc.stdout


def test_the_bot_plays_every_game_to_its_end_and_uses_the_lab_through_the_generated_client(generated):
    _pkg, srv, _doc = generated
    import client_bot

    got = client_bot.run(srv.url)
    assert set(got) == {"climbers", "seventh-heaven", "partners", "diabolo", "lab", "push", "drop"}
    assert all(got[game] for game in ("climbers", "seventh-heaven", "partners", "diabolo")), got  # each has ended
    assert got["lab"].split(",") == ["a", "b", "beam", "c1"]  # the cube added, taken back, added again
    assert "beam" in got["push"] and got["drop"].startswith("dropped")

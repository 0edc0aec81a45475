"""Starting The Climbers from one's own build: the `start` option in the API, `--build FILE` on the command line.

The build is checked like any construction before the game starts; bad files get the usual one line naming the
file and the JSON path; the record carries the whole build, so it replays and undoes on its own.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tower.climbers.board import TOWER_AT
from tower.climbers.build import build_to_json
from tower.climbers.game import ClimbersState
from tower.climbers.moves import ClimbersMove
from tower.climbers.setup import random_start_tower
from tower.games import new_game, replay
from tower.games.errors import BadInput


def little_tower() -> dict:
    """Three blocks around (0, 0): a cube grey side up, a red half cube beside it, a double cube behind; yellow's
    figure on the cube."""
    return {"format": "tower-build/1", "blocks": [
        {"id": "c", "origin": [0, 0, 0], "size": [2, 2, 2],
         "faces": {"+x": "red", "-x": "yellow", "+y": "dark-blue", "-y": "light-blue", "+z": "grey", "-z": "purple"}},
        {"id": "h", "origin": [2, 0, 0], "size": [2, 2, 1],
         "faces": {"+x": "dark-blue", "-x": "light-blue", "+y": "purple", "-y": "grey", "+z": "red", "-z": "yellow"}},
        {"id": "d", "origin": [0, 2, 0], "size": [2, 2, 4]}],
        "figures": [{"color": "yellow", "cell": [0, 0, 2]}]}


def test_a_game_starts_from_the_build_laid_at_the_usual_place() -> None:
    doc = little_tower()
    state = new_game("climbers", 3, seed=1, options={"start": doc})
    blocks = {b.id: b for b in state.to_build().blocks}
    assert blocks["c"].origin == (TOWER_AT[0], TOWER_AT[1], 0)
    assert blocks["h"].origin == (TOWER_AT[0] + 2, TOWER_AT[1], 0) and blocks["h"].top_colour == "red"
    assert len(blocks) == 3
    # yellow starts where the build puts its figure; the others round the construction, on the table
    assert state.figures[1] == (TOWER_AT[0], TOWER_AT[1], 2)
    for q in (0, 2):
        x, y, z = state.figures[q]
        assert z == 0 and state.heights[x, y] == 0
    assert state.options["start"] == doc  # the record carries the whole build


def test_such_a_game_records_replays_and_undoes_from_the_same_build() -> None:
    state = new_game("climbers", 2, seed=3, options={"start": little_tower()})
    rng = random.Random(3)
    for _ in range(7):
        state.apply(rng.choice(state.legal_moves()))
    record = json.loads(json.dumps(state.record()))
    assert replay(record).to_json() == state.to_json()
    back = state.undo()
    assert back.to_json()["history"] == state.to_json()["history"][:-1]
    back.apply(state.history[-1])
    assert back.to_json() == state.to_json()
    assert state.restart().to_json()["build"] == new_game("climbers", 2, 3, {"start": little_tower()}).to_json()["build"]


def test_a_start_tower_as_a_build_gives_the_same_tower_as_its_seed() -> None:
    doc = build_to_json(random_start_tower(11))
    mine = ClimbersState(3, seed=0, options={"start": doc})
    assert sorted(b.id for b in mine.to_build().blocks) == sorted(b["id"] for b in doc["blocks"])
    assert mine.heights.max() == max(b["origin"][2] + b["size"][2] for b in doc["blocks"])
    assert len(mine.legal_moves()) > 2


@pytest.mark.parametrize("change,where,says", [
    (lambda d: d["blocks"][1].update(origin=[1, 0, 0]), "$.options.start.blocks[1]", "overlap"),
    (lambda d: d["blocks"][1].update(origin=[2, 0, 2]), "$.options.start.blocks[1]", "unsupported"),
    (lambda d: d["blocks"][1].update(size=[2, 2, 3]), "$.options.start.blocks[1].size", "no block"),
    (lambda d: d.update(stones=[{"color": "red", "block": "c"}]), "$.options.start.stones", "no blocking stones"),
    (lambda d: d.update(blocks=[]), "$.options.start.blocks", "at least one block"),
    (lambda d: d["figures"].append({"color": "yellow", "cell": [5, 5, 0]}), "$.options.start.figures[1].color",
     "second yellow"),
    (lambda d: d["figures"][0].update(cell=[0, 0, 3]), "$.options.start.figures[0]", "figure-not-on-surface"),
    (lambda d: d["figures"][0].update(cell=[2, 0, 1]), "$.options.start.figures[0]", "figure-wrong-colour"),
    (lambda d: d["blocks"].append({"id": "far", "origin": [40, 0, 0], "size": [2, 2, 2]}),
     "$.options.start.blocks[3]", "does not fit"),
    (lambda d: d.update(format="nope"), "$.options.start.format", "unsupported format"),
])
def test_a_bad_start_build_is_refused_naming_the_place(change, where: str, says: str) -> None:
    doc = little_tower()
    change(doc)
    with pytest.raises(BadInput) as err:
        new_game("climbers", 3, options={"start": doc})
    assert err.value.where == where and says in err.value.what, err.value


def test_a_figure_of_a_colour_nobody_plays_is_refused() -> None:
    doc = little_tower()
    doc["figures"] = [{"color": "purple", "cell": [4, 4, 0]}]
    new_game("climbers", 5, options={"start": doc})  # five players: purple plays
    with pytest.raises(BadInput) as err:
        new_game("climbers", 3, options={"start": doc})
    assert err.value.where == "$.options.start.figures[0].color" and "3 players" in err.value.what


# --- the command line ---------------------------------------------------------------------------------------
def tower(args: list[str], input: str = "") -> subprocess.CompletedProcess:
    """The `tower` command as a user runs it, typing `input`."""
    return subprocess.run([sys.executable, "-m", "tower", *args], input=input, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture()
def build_file(tmp_path: Path) -> Path:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(little_tower()))
    return path


def test_tower_play_starts_from_a_build_file(build_file: Path, tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    proc = tower(["play", "climbers", "--text", "--build", str(build_file), "--players", "human,human"],
                     input=f"skip\nsave {save}\nquit\n")
    assert proc.returncode == 0, proc.stderr
    assert "y\\x" in proc.stdout  # the height map
    record = json.loads(save.read_text())
    assert record["options"]["start"] == little_tower()
    state = replay(record)
    assert [str(m) for m in state.history] == ["skip"]
    assert sorted(b.id for b in state.to_build().blocks) == ["c", "d", "h"]


def test_tower_simulate_starts_every_game_from_the_build(build_file: Path) -> None:
    proc = tower(["simulate", "climbers", "--games", "2", "--players", "random,random", "--build",
                      str(build_file), "--json"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 2


@pytest.mark.parametrize("change,where", [
    (lambda d: d["blocks"][1].update(origin=[1, 0, 0]), "at $.blocks[1]: not a legal build (overlap)"),
    (lambda d: d["blocks"][0].pop("size"), "at $.blocks[0]: missing key 'size'"),
    (lambda d: d.update(stones=[{"color": "red", "block": "c"}]), "at $.stones: a start build carries"),
])
def test_a_bad_build_file_gets_one_line_naming_file_and_place(build_file: Path, change, where) -> None:
    doc = little_tower()
    change(doc)
    build_file.write_text(json.dumps(doc))
    for command in (["play", "climbers", "--text"], ["simulate", "climbers", "--games", "1"]):
        proc = tower([*command, "--build", str(build_file)], input="quit\n")
        assert proc.returncode == 2
        assert proc.stdout == ""
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and f"{build_file}: {where}" in lines[0], proc.stderr


def test_build_is_refused_with_load_and_for_games_without_a_build(build_file: Path) -> None:
    proc = tower(["play", "climbers", "--text", "--build", str(build_file), "--load", str(build_file)])
    assert proc.returncode == 2 and "cannot go with --load" in proc.stderr
    proc = tower(["simulate", "diabolo", "--games", "1", "--build", str(build_file)])
    assert proc.returncode == 2 and "does not start from a build" in proc.stderr
    proc = tower(["play", "climbers", "--text", "--build", str(build_file.parent / "none.json")])
    assert proc.returncode == 2 and "none.json: no such file" in proc.stderr


def test_the_build_option_is_named_by_the_game() -> None:
    assert ClimbersState.build_option == "start"
    assert ClimbersMove.parse("skip").to_json() == "skip"

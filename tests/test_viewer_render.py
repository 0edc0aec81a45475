"""Offscreen rendering: image statistics of a start tower, repeatability, in-place updates, picking, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("vtkmodules")

from tower.app.cli import main  # noqa: E402
from tower.climbers.build import save_build  # noqa: E402
from tower.climbers.setup import random_start_tower  # noqa: E402
from viewer.layers import layer_meshes  # noqa: E402
from viewer.renderer import SceneRenderer  # noqa: E402
from viewer.scene import BACKGROUND_RGB, PALETTE, TABLE_RGB, build_scene  # noqa: E402

SIZE = (480, 360)  # small: the statistics do not need more pixels and llvmpipe is slow


def colour_fraction(img: np.ndarray, rgb: tuple[int, int, int], tol: float = 28.0) -> float:
    """Share of pixels that are `rgb` under some lighting factor between 0.55 and 1.25."""
    p = img.reshape(-1, 3).astype(float)
    c = np.asarray(rgb, dtype=float)
    k = np.clip(p @ c / (c @ c), 0.55, 1.25)
    return float(np.mean(np.linalg.norm(p - k[:, None] * c, axis=1) < tol))


@pytest.fixture(scope="module")
def tower():
    return random_start_tower(1)


@pytest.fixture(scope="module")
def renderer(tower):
    r = SceneRenderer(build_scene(tower, title="start tower", lines=["legal"]), window_size=SIZE)
    yield r
    r.close()


@pytest.fixture(scope="module")
def image(renderer) -> np.ndarray:
    return renderer.image()


def test_layers_are_one_mesh_each_with_colours_and_ids(tower) -> None:
    meshes = layer_meshes(build_scene(tower))
    blocks = meshes["blocks"]
    assert blocks.n_cells == 6 * len(tower.blocks)
    assert blocks.cell_data["rgb"].shape == (blocks.n_cells, 3)
    assert sorted(set(blocks.cell_data["block_id"].tolist())) == list(range(len(tower.blocks)))
    # the top face of block 0 carries its top colour
    assert tuple(blocks.cell_data["rgb"][4]) == PALETTE[tower.blocks[0].top_colour]


def test_start_tower_picture_shows_every_face_colour(image: np.ndarray) -> None:
    assert image.shape == (SIZE[1], SIZE[0], 3)
    for name, rgb in PALETTE.items():
        assert colour_fraction(image, rgb) > 0.002, name
    table = colour_fraction(image, TABLE_RGB, tol=12)
    assert 0.1 < table < 0.7
    top_rows = image[: SIZE[1] // 8, SIZE[0] // 2:].reshape(-1, 3).astype(float)  # right of the overlay text
    # the sky gradient: light, nearly neutral, no block reaches the top eighth of the frame
    assert top_rows.min() > 180 and np.abs(top_rows - BACKGROUND_RGB).max() < 60


def test_two_renders_of_the_same_scene_are_identical(renderer, image: np.ndarray) -> None:
    again = renderer.image()
    diff = np.abs(again.astype(int) - image.astype(int))
    assert diff.mean() < 0.05
    assert np.mean(diff.max(axis=2) > 8) < 0.001


def _props(renderer) -> list:
    """Every prop of the renderer, by identity: an update must neither add nor remove any."""
    props = renderer.renderer.GetViewProps()
    return [id(props.GetItemAsObject(i)) for i in range(props.GetNumberOfItems())]


def test_update_changes_data_in_place_and_picking_finds_blocks(renderer, tower, image) -> None:
    actors_before = _props(renderer)
    meshes_before = {k: id(v) for k, v in renderer.meshes.items()}
    smaller = tower.without({tower.blocks[-1].id})
    renderer.update(build_scene(smaller, selected=smaller.blocks[0].id), render=True)
    assert _props(renderer) == actors_before
    assert {k: id(v) for k, v in renderer.meshes.items()} == meshes_before
    assert renderer.meshes["blocks"].n_cells == 6 * len(smaller.blocks)
    assert renderer.meshes["selected"].n_cells == 12
    # pick the highest block at the centre of its top face
    top = max(smaller.blocks, key=lambda b: b.top)
    x, y = renderer.project((top.origin[0] + top.size[0] / 2, top.origin[1] + top.size[1] / 2, top.top))
    assert renderer.pick_block(x, y) == top.id
    assert renderer.pick_block(2, SIZE[1] - 2) is None  # the sky
    renderer.update(build_scene(tower, title="start tower", lines=["legal"]), render=True)
    assert np.abs(renderer.image().astype(int) - image.astype(int)).mean() < 0.05


def test_camera_presets_change_the_view(renderer) -> None:
    positions = []
    for n in (1, 2, 3, 4):
        renderer.camera_preset(n, render=False)
        positions.append(tuple(np.round(renderer.camera.GetPosition(), 3)))
    assert len(set(positions)) == 4
    renderer.reset_camera()
    assert tuple(np.round(renderer.camera.GetPosition(), 3)) == positions[0]


def test_problem_blocks_are_outlined_in_the_signal_colour(tmp_path) -> None:
    from tower.climbers.build import Block, Build
    from tower.climbers.legality import check_build
    from viewer.renderer import render_scene
    from viewer.scene import PROBLEM_RGB

    cube = (0, 1, 2, 3, 4, 5)
    build = Build([Block("a", (0, 0, 0), (2, 2, 2), cube), Block("b", (0, 0, 3), (2, 2, 2), cube)])
    img = render_scene(build_scene(build, check_build(build)), tmp_path / "bad.png", window_size=SIZE)
    signal = np.all(np.abs(img.astype(int) - PROBLEM_RGB) < 40, axis=2).mean()
    assert signal > 0.001
    assert (tmp_path / "bad.png").stat().st_size > 1000


# --- the CLI -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def build_file(tmp_path_factory, tower):
    path = tmp_path_factory.mktemp("view") / "build.json"
    save_build(tower, path)
    return path


def test_cli_view_writes_a_screenshot_and_gltf(build_file, tmp_path, capsys) -> None:
    png, gltf = tmp_path / "out.png", tmp_path / "out.gltf"
    assert main(["view", str(build_file), "--screenshot", str(png), "--gltf", str(gltf)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads(gltf.read_text())
    assert doc["meshes"] and doc["accessors"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.gltf", "out.png"]  # no temp files left
    err = capsys.readouterr().err.splitlines()
    assert any(line.startswith(f"wrote {png}") for line in err)  # each output is named with what it holds
    assert any(line.startswith(f"wrote {gltf}") for line in err)


def test_cli_view_bad_build_exits_2_with_one_line_and_no_picture(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tower-build/1", "blocks": [{"origin": [0, 0, 0], "size": [3, 2, 2]}]}')
    png = tmp_path / "out.png"
    assert main(["view", str(bad), "--screenshot", str(png)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "$.blocks[0].size" in err[0] and "bad.json" in err[0]
    assert not png.exists()


def test_cli_view_html_without_the_extra_is_bad_input_and_writes_nothing(build_file, tmp_path, capsys,
                                                                          monkeypatch) -> None:
    import viewer.view

    monkeypatch.setattr(viewer.view, "HTML_MODULES", ("trame", "no_such_module_for_the_test"))
    png, html = tmp_path / "out.png", tmp_path / "out.html"
    assert main(["view", str(build_file), "--screenshot", str(png), "--html", str(html)]) == 2
    err = capsys.readouterr().err
    assert "tower-sim[html]" in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_view_html_writes_a_self_contained_web_page(build_file, tmp_path, capsys) -> None:
    from viewer.view import _html_available

    if not _html_available():
        pytest.skip("the html extra is not installed")
    html = tmp_path / "tower.html"
    assert main(["view", str(build_file), "--html", str(html)]) == 0
    page = html.read_text()
    assert page.lstrip().lower().startswith("<!doctype html") or "<html" in page[:2000].lower()
    assert "vtk" in page and "<script src=" not in page  # the scene and vtk.js inside: no network needed
    assert [p.name for p in tmp_path.iterdir()] == ["tower.html"]  # no temp files left
    err = capsys.readouterr().err
    assert err.count("Traceback") == 0 and f"wrote {html}" in err


def test_cli_view_of_a_game_record(tmp_path) -> None:
    from tower.games import new_game, save_record

    state = new_game("climbers", 2, seed=3)
    state.apply(state.legal_moves()[0])
    record = tmp_path / "game.json"
    save_record(state, record)
    png = tmp_path / "game.png"
    assert main(["view", str(record), "--screenshot", str(png)]) == 0
    assert png.stat().st_size > 1000


def test_cli_view_of_a_bad_record_names_the_move(tmp_path, capsys) -> None:
    record = tmp_path / "bad.json"
    record.write_text(json.dumps({"format": "game-record/1", "game": "climbers", "players": 2, "seed": 0,
                                  "moves": ["block zz 0,0,0 2x2x2 red"]}))
    assert main(["view", str(record), "--screenshot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "$.moves[0]" in err[0]
    assert not (tmp_path / "x.png").exists()


def test_update_redraws_only_the_layers_whose_scene_fields_changed(renderer, tower, monkeypatch) -> None:
    import viewer.renderer as render

    scene = build_scene(tower, title="start tower", lines=["legal"])
    renderer.update(scene)
    calls = []
    real = render.layer_meshes
    monkeypatch.setattr(render, "layer_meshes", lambda s, want=None: calls.append(set(want)) or real(s, want))
    renderer.update(scene)
    from tower.climbers.build import Figure

    tower_with_figure = type(tower)(tower.blocks, [Figure("red", (-3, 0, 0))], tower.stones)
    renderer.update(build_scene(tower_with_figure, title="start tower", lines=["legal"]))
    assert calls[0] == set()
    assert "figures" in calls[1] and "ghosts" not in calls[1]
    renderer.update(scene)


def test_physics_poses_move_block_points_in_place_and_update_restores(renderer, tower) -> None:
    from physics.units import UNIT_M

    renderer.update(build_scene(tower))
    mesh = renderer.meshes["blocks"]
    before = np.array(mesh.points)
    b = tower.blocks[0]
    centre = [(o + s / 2) * UNIT_M for o, s in zip(b.origin, b.size, strict=True)]
    half_turn = [0.0, 0.0, 1.0, 0.0]  # 180 degrees about z: the same box, corners swapped
    renderer_pose = {b.id: [[centre[0] + 0.1, centre[1], centre[2]], half_turn]}
    from viewer.poses import set_block_poses

    set_block_poses(renderer, renderer_pose, UNIT_M)
    after = np.array(renderer.meshes["blocks"].points)
    assert renderer.meshes["blocks"] is mesh
    moved = np.abs(after - before).max(axis=1) > 1e-6
    assert moved[:8].all() and not moved[8:].any()
    assert np.isclose(after[:8, 0].min(), before[:8, 0].min() + 0.1 / UNIT_M)
    renderer.update(build_scene(tower))
    assert np.allclose(np.array(renderer.meshes["blocks"].points), before)


def test_cli_view_without_display_or_outputs_is_one_line_exit_2(build_file, monkeypatch, capsys) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    import viewer.renderer

    monkeypatch.setattr(viewer.renderer, "OFF_SCREEN", False)
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("the display check is for Linux")
    assert main(["view", str(build_file)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs a display" in err[0]

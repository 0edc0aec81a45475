"""`tower view FILE --gltf` (docs/viewer.md, "glTF"): files every glTF tool opens, checked with tools no one here
wrote: the Khronos glTF-Validator (npm `gltf-validator`, run with node), trimesh, and three.js's GLTFLoader in
headless Chromium.

A build, a game position and an animated collapse (`--remove`); GLB and JSON glTF; metres, +Y up, the table at
y = 0; one node per block, figure and stone named by its id under one root; colours kept.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import struct
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
from node_tools import NODE, node_modules

from tower.app.cli import main
from tower.climbers.build import load_build
from tower.games import new_game, save_record
from viewer.gltf import UNIT_M, srgb
from viewer.scene import ALL_RGB

ROOT = Path(__file__).resolve().parents[1]
VALIDATE_JS = Path(__file__).resolve().parent / "gltf" / "validate.js"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

#: Two cube columns with a grey block lying across them: without column b the grey block tips over a.
BRIDGE = {"format": "tower-build/1", "blocks": [
    {"id": "a", "origin": [0, 0, 0], "size": [2, 2, 2]},
    {"id": "b", "origin": [4, 0, 0], "size": [2, 2, 2]},
    {"id": "beam", "origin": [0, 0, 2], "size": [6, 2, 2]}],
    "figures": [{"color": "red", "cell": [2, 0, 4]}]}


def glb_parts(data: bytes) -> tuple[dict, bytes]:
    """The JSON and BIN chunks of a GLB, checking the header and that there are exactly these two chunks."""
    magic, version, length = struct.unpack_from("<III", data, 0)
    assert (magic, version, length) == (0x46546C67, 2, len(data))
    json_len, json_type = struct.unpack_from("<II", data, 12)
    assert json_type == 0x4E4F534A and json_len % 4 == 0
    doc = json.loads(data[20:20 + json_len])
    bin_at = 20 + json_len
    bin_len, bin_type = struct.unpack_from("<II", data, bin_at)
    assert bin_type == 0x004E4942 and bin_len % 4 == 0
    assert bin_at + 8 + bin_len == len(data)  # one BIN chunk, nothing after it
    return doc, data[bin_at + 8:]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """A start tower as GLB and glTF, a Climbers game position, and the bridge's collapse without column b."""
    folder = tmp_path_factory.mktemp("gltf")
    build = folder / "tower.json"
    assert main(["new", "--seed", "4", "-o", str(build)]) == 0
    bridge = folder / "bridge.json"
    bridge.write_text(json.dumps(BRIDGE))
    state = new_game("climbers", 3, seed=5)
    for _ in range(4):
        state.apply(state.legal_moves()[0])
    record = folder / "game.json"
    save_record(state, record)
    out = {"build": build, "bridge": bridge, "record": record,
           "glb": folder / "tower.glb", "gltf": folder / "tower.gltf", "game": folder / "game.glb",
           "fall": folder / "fall.glb"}
    assert main(["view", str(build), "--gltf", str(out["glb"])]) == 0
    assert main(["view", str(build), "--gltf", str(out["gltf"])]) == 0
    assert main(["view", str(record), "--gltf", str(out["game"])]) == 0
    assert main(["view", str(bridge), "--remove", "b", "--gltf", str(out["fall"])]) == 0
    return out


# --- the file kinds ----------------------------------------------------------------------------------------

def test_glb_is_binary_with_one_json_and_one_bin_chunk(files):
    doc, binary = glb_parts(files["glb"].read_bytes())
    assert doc["asset"]["version"] == "2.0"
    assert doc["buffers"] == [{"byteLength": len(binary)}]


def test_gltf_is_json_with_the_buffer_embedded_and_the_same_model(files):
    doc = json.loads(files["gltf"].read_text())
    glb, binary = glb_parts(files["glb"].read_bytes())
    uri = doc["buffers"][0].pop("uri")
    assert uri.startswith("data:application/octet-stream;base64,")
    import base64

    assert base64.b64decode(uri.split(",", 1)[1]) == binary
    glb["nodes"][0]["name"] = doc["nodes"][0]["name"]  # the root is named after the file
    assert doc == glb


@pytest.mark.parametrize("name", ["tower.obj", "tower", "tower.glb.txt"])
def test_any_other_file_name_is_a_usage_error(files, tmp_path, name, capsys):
    target = tmp_path / name
    assert main(["view", str(files["build"]), "--gltf", str(target)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert ".glb" in line and ".gltf" in line and not target.exists()


@pytest.mark.parametrize("args,says", [
    (["--fall"], "--gltf"),
    (["--remove", "zz", "--gltf", "x.glb"], "--remove zz: no block"),
])
def test_fall_and_remove_are_checked(files, tmp_path, capsys, args, says):
    args = [str(tmp_path / a) if a.endswith(".glb") else a for a in args]
    assert main(["view", str(files["build"]), *args]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert says in line
    assert list(tmp_path.iterdir()) == []


def test_remove_on_a_game_record_is_refused(files, tmp_path, capsys):
    assert main(["view", str(files["record"]), "--remove", "c1", "--gltf", str(tmp_path / "x.glb")]) == 2
    assert "not on a game record" in capsys.readouterr().err


# --- the Khronos validator ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def validator() -> Path:
    """node_modules of the project-local gltf-validator (.tools/, not committed), installed from npm if missing."""
    return node_modules("gltf-validator", "gltf-validator")


def test_the_khronos_validator_finds_no_error_and_no_warning(files, validator):
    names = ["glb", "gltf", "game", "fall"]
    proc = subprocess.run([NODE, str(VALIDATE_JS), *(str(files[n]) for n in names)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "NODE_PATH": str(validator)})
    assert proc.returncode == 0, proc.stderr
    reports = json.loads(proc.stdout)
    for n in names:
        issues = reports[str(files[n])]["issues"]
        assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), (n, issues["messages"][:5])
        info = reports[str(files[n])]["info"]
        assert info["version"] == "2.0"
    assert reports[str(files["fall"])]["info"]["animationCount"] == 1
    assert reports[str(files["glb"])]["info"]["animationCount"] == 0


# --- trimesh -----------------------------------------------------------------------------------------------

def test_trimesh_loads_both_kinds_in_metres_one_geometry_per_block(files):
    import trimesh

    build = load_build(files["build"])
    lo = np.min([b.origin for b in build.blocks], axis=0)
    hi = np.max([np.add(b.origin, b.size) for b in build.blocks], axis=0)
    # grid (x, y, z up) -> glTF (x, z, -y), metres
    expected = np.array([[lo[0], lo[2], -hi[1]], [hi[0], hi[2], -lo[1]]]) * UNIT_M
    bounds = []
    for kind in ("glb", "gltf"):
        scene = trimesh.load(files[kind])
        assert sorted(scene.geometry) == sorted(b.id for b in build.blocks)
        assert all(len(g.faces) == 12 for g in scene.geometry.values())  # a box each, not merged layers
        np.testing.assert_allclose(scene.bounds, expected, atol=1e-6)
        assert scene.bounds[0][1] == pytest.approx(0.0, abs=1e-7)  # the table top at y = 0
        bounds.append(scene.bounds)
    np.testing.assert_array_equal(bounds[0], bounds[1])
    # a 2 cm cube is 2 cm in any glTF tool
    cube = next(b for b in build.blocks if b.size == (2, 2, 2))
    assert trimesh.load(files["glb"]).geometry[cube.id].extents == pytest.approx([0.04] * 3)


def test_trimesh_reads_each_face_in_its_colour(files):
    import trimesh

    from tower.climbers.blocks import COLOURS

    build = load_build(files["build"])
    scene = trimesh.load(files["glb"])
    for b in build.blocks:
        g = scene.geometry[b.id]
        colours = srgb(g.visual.vertex_attributes["color"][:, :3])
        normals = g.face_normals[::2]  # two triangles a face, in FACES order (+x -x +y -y +z -z)
        # glTF axes: +x, -x, -z, +z, +y, -y
        assert np.allclose(normals, [[1, 0, 0], [-1, 0, 0], [0, 0, -1], [0, 0, 1], [0, 1, 0], [0, -1, 0]])
        for f in range(6):
            want = ALL_RGB[COLOURS[b.faces[f]]]
            assert np.abs(colours[4 * f:4 * f + 4] - want).max() < 1.0, (b.id, f)


def test_a_game_position_has_figures_stones_and_ladders_as_named_nodes(files):
    import trimesh

    from tower.games import load_record

    state = load_record(files["record"])
    doc, _ = glb_parts(files["game"].read_bytes())
    names = [n["name"] for n in doc["nodes"]]
    build = state.to_build()
    assert set(b.id for b in build.blocks) <= set(names)
    figures = [n for n in names if n.startswith("figure-")]
    assert len(figures) == len(build.figures) > 0
    assert any(n.startswith("ladder-") for n in names)
    scene = trimesh.load(files["game"])
    assert scene.bounds[0][1] == pytest.approx(0.0, abs=1e-6)


def test_one_root_holds_every_node(files):
    doc, _ = glb_parts(files["glb"].read_bytes())
    assert doc["scenes"][doc["scene"]]["nodes"] == [0]
    children = doc["nodes"][0]["children"]
    assert len(children) == len(doc["nodes"]) - 1 == len(load_build(files["build"]).blocks)


# --- the animated collapse ----------------------------------------------------------------------------------

def _track(doc: dict, binary: bytes, node: int, path: str) -> tuple[np.ndarray, np.ndarray]:
    anim = doc["animations"][0]
    for ch in anim["channels"]:
        if ch["target"] == {"node": node, "path": path}:
            s = anim["samplers"][ch["sampler"]]

            def read(i: int) -> np.ndarray:
                acc = doc["accessors"][i]
                view = doc["bufferViews"][acc["bufferView"]]
                width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc["type"]]
                return np.frombuffer(binary, np.float32, acc["count"] * width,
                                     view["byteOffset"]).reshape(acc["count"], width)

            return read(s["input"])[:, 0], read(s["output"])
    raise KeyError((node, path))


def test_the_fall_is_an_animation_of_the_pybullet_run(files):
    doc, binary = glb_parts(files["fall"].read_bytes())
    nodes = {n["name"]: i for i, n in enumerate(doc["nodes"])}
    assert "b" not in nodes  # taken away
    assert doc["animations"][0]["name"] == "fall"
    t, beam = _track(doc, binary, nodes["beam"], "translation")
    assert t[0] == 0 and np.all(np.diff(t) > 0) and t[-1] > 0.3
    np.testing.assert_allclose(beam[0], doc["nodes"][nodes["beam"]]["translation"], atol=1e-6)
    _, turn = _track(doc, binary, nodes["beam"], "rotation")
    angle = np.degrees(2 * np.arccos(min(1.0, abs(turn[-1][3]))))
    assert angle > 20  # the beam tipped off its one column
    assert beam[-1][0] > beam[0][0]  # toward +x, where column b was
    _, column = _track(doc, binary, nodes["a"], "translation")
    assert np.abs(column[-1] - column[0]).max() < 0.01  # column a stays (within 1 cm)
    assert "figure-red-0" in nodes  # the figure on the beam is posed too
    _track(doc, binary, nodes["figure-red-0"], "translation")


def test_without_remove_or_fall_nothing_is_animated(files):
    doc, _ = glb_parts(files["glb"].read_bytes())
    assert "animations" not in doc


# --- three.js in Chromium ------------------------------------------------------------------------------------

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<script type="importmap">{"imports": {"three": "./vendor/three/three.module.min.js"}}</script></head>
<body style="margin:0"><script type="module">
import * as THREE from "three";
import { GLTFLoader } from "./vendor/three/loaders/GLTFLoader.js";
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setSize(800, 600);
document.body.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xe2e9f2);
scene.add(new THREE.HemisphereLight(0xffffff, 0x888888, 2.0));
const sun = new THREE.DirectionalLight(0xffffff, 1.5); sun.position.set(1, 2, 1.5); scene.add(sun);
new GLTFLoader().load("./model.glb", (gltf) => {
  scene.add(gltf.scene);
  const box = new THREE.Box3().setFromObject(gltf.scene);
  const centre = box.getCenter(new THREE.Vector3()), size = box.getSize(new THREE.Vector3());
  const camera = new THREE.PerspectiveCamera(35, 800 / 600, 0.01, 100);
  camera.position.copy(centre).add(new THREE.Vector3(0.9, 0.8, 1.4).multiplyScalar(size.length()));
  camera.lookAt(centre);
  renderer.render(scene, camera);
  const named = {};
  gltf.scene.traverse((o) => { if (o.name) named[o.name] = o.type; });
  window.result = { named, size: size.toArray(), min: box.min.toArray(), root: gltf.scene.children[0].name,
                    children: gltf.scene.children[0].children.map((c) => c.name) };
}, undefined, (err) => { window.result = { error: String(err) }; });
// the fall: played to its end by three.js's own animation system
new GLTFLoader().load("./fall.glb", (gltf) => {
  const beam = gltf.scene.getObjectByName("beam");
  const before = beam.position.toArray();
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const clip = THREE.AnimationClip.findByName(gltf.animations, "fall");
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce);
  action.clampWhenFinished = true;
  action.play();
  mixer.update(clip.duration);
  window.fall = { clips: gltf.animations.map((a) => a.name), duration: clip.duration, before,
                  after: beam.position.toArray(), turned: 2 * Math.acos(Math.min(1, Math.abs(beam.quaternion.w))) };
}, undefined, (err) => { window.fall = { error: String(err) }; });
</script></body></html>
"""


def test_three_js_gltfloader_finds_the_blocks_by_name(files, tmp_path):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed")
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed")
    from tower.app.serve.http import STATIC

    site = tmp_path / "site"
    site.mkdir()
    shutil.copytree(STATIC / "vendor", site / "vendor")
    shutil.copy(files["glb"], site / "model.glb")
    shutil.copy(files["fall"], site / "fall.glb")
    (site / "index.html").write_text(PAGE)
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox",
                                                                        "--use-angle=swiftshader"])
            try:
                page = browser.new_page(viewport={"width": 800, "height": 600})
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/index.html")
                page.wait_for_function("window.result !== undefined && window.fall !== undefined", timeout=30_000)
                result, fall = page.evaluate("window.result"), page.evaluate("window.fall")
                shot = tmp_path / "three.png"
                page.screenshot(path=str(shot))
                if os.environ.get("TOWER_GLTF_SHOTS"):
                    shutil.copy(shot, Path(os.environ["TOWER_GLTF_SHOTS"]) / "gltf_three.png")
            finally:
                browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert not errors and "error" not in result and "error" not in fall, (errors, result, fall)
    # the fall plays in three.js: the beam ends lower, moved toward +x, turned
    assert fall["clips"] == ["fall"] and fall["duration"] > 0.3
    assert fall["after"][1] < fall["before"][1] - 0.005 and fall["after"][0] > fall["before"][0]
    assert fall["turned"] > 0.3
    build = load_build(files["build"])
    for b in build.blocks:
        assert result["named"][b.id] == "Mesh", b.id
    assert result["root"] == "tower" and sorted(result["children"]) == sorted(b.id for b in build.blocks)
    assert result["min"][1] == pytest.approx(0.0, abs=1e-6)
    assert max(result["size"]) < 0.5  # a tower of some 20-30 cm, not metres
    import imageio.v3 as iio

    img = iio.imread(shot)[:, :, :3].astype(int)
    background = np.all(np.abs(img - [0xE2, 0xE9, 0xF2]) < 6, axis=2).mean()
    assert 0.2 < background < 0.97  # the tower fills part of the picture
    for name in ("red", "yellow", "dark-blue"):  # block faces in their colours (lit, so within a wide margin)
        close = np.all(np.abs(img - ALL_RGB[name]) < 60, axis=2).mean()
        assert close > 0.002, name


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the test's output stays clean
        pass

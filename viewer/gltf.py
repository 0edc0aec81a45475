"""glTF 2.0 of a scene: one node per block, figure, stone and ladder, named by its id, under one root; metres,
+Y up, the table top at y = 0; binary GLB or JSON with the buffer embedded; optionally the PyBullet fall of the
build as an animation (node translation and rotation tracks sampled from the simulation).

Written directly (numpy, json, struct), not through VTK's exporter: that one merges every layer into a few meshes
in grid units and cannot name a block or animate it (docs/viewer.md, "glTF").
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from viewer import mesh as vm
from viewer.mesh import Mesh
from viewer.scene import ALL_RGB, Scene

#: A grid unit in metres (physics.units.UNIT_M: 2 cm).
UNIT_M = 0.02
#: The two kinds of file, by the name's ending.
SUFFIXES = (".glb", ".gltf")
#: Where the physics solid of a figure has its centre above the figure's foot, grid units (tower.app.stability).
FIGURE_CENTRE_UNITS = 0.625
#: Colour of the template parts drawn in the accent colour (foot ring, stone base, ladder rungs): the viewer's.
ACCENT_RGB = (38, 38, 44)

_GLB_MAGIC, _GLB_VERSION = 0x46546C67, 2  # b"glTF"
_CHUNK_JSON, _CHUNK_BIN = 0x4E4F534A, 0x004E4942
_FLOAT, _USHORT, _UINT = 5126, 5123, 5125
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963

#: The six faces of a box in FACES order (+x -x +y -y +z -z), each as (normal axis, sign, u axis, v axis) with
#: u x v pointing outwards, so the corners (-u-v, +u-v, +u+v, -u+v) run counter-clockwise seen from outside.
_FACE_AXES = ((0, 1, 1, 2), (0, -1, 2, 1), (1, 1, 2, 0), (1, -1, 0, 2), (2, 1, 0, 1), (2, -1, 1, 0))


def gltf_ready(mesh: Mesh) -> Mesh:
    """Triangles with their own corners and point colours: glTF has no per-face colours, only per-vertex."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkFiltersCore import vtkTriangleFilter

    tri = vtkTriangleFilter()
    tri.SetInputData(mesh)
    tri.Update()
    out = tri.GetOutput()
    pts, faces = vm.triangles(out)
    flat = vm.faces_mesh(pts[faces].reshape(-1, 3), np.arange(3 * len(faces)).reshape(-1, 3))
    rgb = vtk_to_numpy(out.GetCellData().GetArray("rgb"))
    flat.set_point_array("rgb", np.repeat(rgb, 3, axis=0))
    return flat


# --- axes and colours ----------------------------------------------------------------------------------------

def gltf_axes(v: Any) -> np.ndarray:
    """Grid axes (x, y horizontal, z up) to glTF's (x, y up, z toward the viewer): (x, y, z) -> (x, z, -y), a
    proper rotation, so lengths, angles and the winding of faces are kept."""
    v = np.asarray(v, dtype=float)
    return np.stack([v[..., 0], v[..., 2], -v[..., 1]], axis=-1)


def gltf_quaternion(q: Sequence[float]) -> list[float]:
    """A rotation (x, y, z, w) about grid axes as the same rotation about glTF axes, normalised."""
    x, y, z, w = (float(c) for c in q)
    out = np.array([x, z, -y, w])
    return list(out / np.linalg.norm(out))


def linear_rgb(rgb: Sequence[int]) -> np.ndarray:
    """An sRGB colour (0-255) as glTF's linear colour (0-1): vertex colours are linear in glTF."""
    c = np.asarray(rgb, dtype=float) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def srgb(linear: Any) -> np.ndarray:
    """Inverse of `linear_rgb` (0-255 floats): what a viewer shows of a vertex colour."""
    c = np.clip(np.asarray(linear, dtype=float), 0, 1)
    return 255 * np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


# --- shapes (grid units, centred on the node's origin, grid axes) --------------------------------------------

def box_shape(size: Sequence[float], faces: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """A box of `size` centred on the origin, each face its own four corners in its colour: (points, rgb)."""
    half = np.asarray(size, dtype=float) / 2
    pts, cols = [], []
    for (axis, sign, u, v), colour in zip(_FACE_AXES, faces, strict=True):
        for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            p = np.zeros(3)
            p[axis], p[u], p[v] = sign * half[axis], du * half[u], dv * half[v]
            pts.append(p)
            cols.append(ALL_RGB.get(colour, (200, 200, 200)))
    return np.array(pts), np.array(cols)


def _box_triangles() -> np.ndarray:
    return np.array([[4 * f, 4 * f + 1, 4 * f + 2, 4 * f, 4 * f + 2, 4 * f + 3] for f in range(6)]).reshape(-1, 3)


def template_shape(name: str, rgb: Sequence[int], scale: float = 1.0,
                   lift: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A viewer template (pawn, stone, ladder) as (points, rgb, triangles), each triangle with its own corners
    (flat colours); part 0 in `rgb`, part 1 in the accent colour; moved down by `lift` (grid units)."""
    from viewer.layers import template

    pts, tris, part = template(name)
    corners = pts[tris].reshape(-1, 3).astype(float) * scale - [0, 0, lift]
    cols = np.where(np.repeat(part, 3)[:, None] == 0, np.asarray(rgb)[None, :], np.asarray(ACCENT_RGB)[None, :])
    return corners, cols, np.arange(len(corners)).reshape(-1, 3)


# --- the document ----------------------------------------------------------------------------------------------

class _Document:
    """A glTF document being assembled: JSON parts plus one binary buffer."""

    def __init__(self) -> None:
        self.bin = bytearray()
        self.json: dict[str, Any] = {
            "asset": {"version": "2.0", "generator": "tower-sim"},
            "scene": 0, "scenes": [{"name": "tower-sim", "nodes": [0]}],
            "nodes": [], "meshes": [], "accessors": [], "bufferViews": [], "buffers": [],
            "materials": [{"name": "vertex colours", "pbrMetallicRoughness": {
                "baseColorFactor": [1.0, 1.0, 1.0, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.8}}],
        }

    def _view(self, data: bytes, target: int | None) -> int:
        self.bin.extend(b"\0" * (-len(self.bin) % 4))
        view: dict[str, Any] = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if target is not None:
            view["target"] = target
        self.bin.extend(data)
        self.json["bufferViews"].append(view)
        return len(self.json["bufferViews"]) - 1

    def accessor(self, array: np.ndarray, kind: str, target: int | None = None, bounds: bool = False) -> int:
        component = {np.dtype(np.float32): _FLOAT, np.dtype(np.uint16): _USHORT,
                     np.dtype(np.uint32): _UINT}[array.dtype]
        acc: dict[str, Any] = {"bufferView": self._view(array.tobytes(), target), "componentType": component,
                               "count": len(array), "type": kind}
        if bounds:
            flat = array.reshape(len(array), -1)
            acc["min"] = [float(v) for v in flat.min(axis=0)]
            acc["max"] = [float(v) for v in flat.max(axis=0)]
        self.json["accessors"].append(acc)
        return len(self.json["accessors"]) - 1

    def mesh(self, name: str, points: np.ndarray, rgb: np.ndarray, triangles: np.ndarray) -> int:
        """A mesh of one primitive: points in grid units about the node's origin, sRGB colours per point."""
        position = (gltf_axes(points) * UNIT_M).astype(np.float32)
        colour = linear_rgb(rgb).astype(np.float32)
        index_type = np.uint16 if len(points) < 65536 else np.uint32
        primitive = {"attributes": {"POSITION": self.accessor(position, "VEC3", _ARRAY_BUFFER, bounds=True),
                                    "COLOR_0": self.accessor(colour, "VEC3", _ARRAY_BUFFER)},
                     "indices": self.accessor(triangles.astype(index_type).reshape(-1), "SCALAR",
                                              _ELEMENT_ARRAY_BUFFER),
                     "material": 0, "mode": 4}
        self.json["meshes"].append({"name": name, "primitives": [primitive]})
        return len(self.json["meshes"]) - 1

    def node(self, name: str, translation: Any = None, mesh: int | None = None, parent: int | None = None) -> int:
        """A node named `name`; translation in grid units, grid axes."""
        node: dict[str, Any] = {"name": name}
        if translation is not None:
            node["translation"] = [float(v) for v in gltf_axes(translation) * UNIT_M]
        if mesh is not None:
            node["mesh"] = mesh
        self.json["nodes"].append(node)
        index = len(self.json["nodes"]) - 1
        if parent is not None:
            self.json["nodes"][parent].setdefault("children", []).append(index)
        return index

    def finish(self) -> dict[str, Any]:
        self.bin.extend(b"\0" * (-len(self.bin) % 4))
        self.json["buffers"] = [{"byteLength": len(self.bin)}]
        return {k: v for k, v in self.json.items() if v != []}


def _figure_id(index: int, colour: str) -> str:
    """A figure's node name: its physics body's id (tower.app.stability.build_boxes)."""
    return f"figure-{colour}-{index}"


def scene_document(scene: Scene, trajectory: list[dict] | None = None,
                   name: str = "tower") -> tuple[dict[str, Any], bytes, dict[str, int]]:
    """The glTF JSON, its binary buffer and the node index of every named thing (id -> node).

    `trajectory`: PyBullet frames (`{"t": s, "poses": {id: [[x, y, z] centre in metres, [qx, qy, qz, qw]]}}`,
    z up) as `physics.judge_dynamics(record_trajectory=True)` records them; each posed block and figure gets a
    translation and a rotation track in one animation named "fall". Stones are children of their block's node
    and fall with it.
    """
    doc = _Document()
    root = doc.node(name)
    nodes: dict[str, int] = {}
    for b in scene.blocks:
        centre = np.asarray(b.origin, dtype=float) + np.asarray(b.size, dtype=float) / 2
        pts, cols = box_shape(b.size, b.faces)
        nodes[b.id] = doc.node(b.id, centre, doc.mesh(b.id, pts, cols, _box_triangles()), root)
    for i, f in enumerate(scene.figures):
        lift = FIGURE_CENTRE_UNITS * f.scale
        pts, cols, tris = template_shape("figure", ALL_RGB.get(f.colour, (200, 200, 200)), f.scale, lift)
        centre = (f.cell[0] + 0.5, f.cell[1] + 0.5, f.cell[2] + lift)
        fid = _figure_id(i, f.colour)
        nodes[fid] = doc.node(fid, centre, doc.mesh(fid, pts, cols, tris), root)
    for s in scene.stones:
        sid = f"stone-{s.colour}-{s.block}"
        pts, cols, tris = template_shape("stone", ALL_RGB.get(s.colour, (200, 200, 200)))
        parent = nodes.get(s.block, root)
        offset = np.asarray(s.centre, dtype=float) + [0, 0, 0.01]
        if parent != root:  # relative to the block's centre: the stone moves with its block
            b = scene.blocks[scene.block_index(s.block)]
            offset = offset - (np.asarray(b.origin, dtype=float) + np.asarray(b.size, dtype=float) / 2)
        nodes[sid] = doc.node(sid, offset, doc.mesh(sid, pts, cols, tris), parent)
    for i, lad in enumerate(scene.ladders):
        lid = f"ladder-{lad.colour}-{lad.kind}-{i}"
        pts, cols, tris = template_shape(f"ladder-{lad.height}", ALL_RGB.get(lad.colour, (200, 200, 200)))
        nodes[lid] = doc.node(lid, lad.base, doc.mesh(lid, pts, cols, tris), root)
    if trajectory and len(trajectory) >= 2:
        _animation(doc, trajectory, nodes)
    return doc.finish(), bytes(doc.bin), nodes


def _animation(doc: _Document, trajectory: list[dict], nodes: dict[str, int]) -> None:
    """One animation, "fall": a translation and a rotation track for every body the frames pose."""
    times = np.array([f["t"] for f in trajectory], dtype=np.float32)
    keep = np.concatenate([[True], np.diff(times) > 0])  # strictly increasing key times
    frames = [f for f, k in zip(trajectory, keep, strict=True) if k]
    time_acc = doc.accessor(times[keep], "SCALAR", bounds=True)
    channels, samplers = [], []
    bodies = [i for i in frames[0]["poses"] if i in nodes]
    for body in bodies:
        poses = [f["poses"].get(body, frames[0]["poses"][body]) for f in frames]
        moves = gltf_axes([p[0] for p in poses]).astype(np.float32)  # PyBullet poses are in metres
        turns = np.array([gltf_quaternion(p[1]) for p in poses], dtype=np.float32)
        for path, values, kind in (("translation", moves, "VEC3"), ("rotation", turns, "VEC4")):
            samplers.append({"input": time_acc, "output": doc.accessor(values, kind), "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": nodes[body], "path": path}})
    if channels:
        doc.json["animations"] = [{"name": "fall", "channels": channels, "samplers": samplers}]


# --- files ---------------------------------------------------------------------------------------------------

def glb_bytes(doc: dict[str, Any], binary: bytes) -> bytes:
    """Binary glTF: a 12-byte header (magic `glTF`, version 2, length), a JSON chunk padded with spaces and one
    BIN chunk padded with zeros."""
    text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    length = 12 + 8 + len(text) + 8 + len(binary)
    return (struct.pack("<III", _GLB_MAGIC, _GLB_VERSION, length) + struct.pack("<II", len(text), _CHUNK_JSON)
            + text + struct.pack("<II", len(binary), _CHUNK_BIN) + binary)


def gltf_text(doc: dict[str, Any], binary: bytes) -> str:
    """JSON glTF with the buffer embedded as a base64 data URI: one self-contained file."""
    doc = json.loads(json.dumps(doc))
    doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(binary).decode("ascii")
    return json.dumps(doc, separators=(",", ":")) + "\n"


def gltf_file_bytes(scene: Scene, path: str | Path, trajectory: list[dict] | None = None) -> bytes:
    """The file for `path`: GLB for `.glb`, JSON text for `.gltf` (ValueError for any other ending)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"a glTF file ends in .glb (binary) or .gltf (JSON text), not {suffix or 'nothing'}")
    doc, binary, _ = scene_document(scene, trajectory, name=Path(path).stem or "tower")
    return glb_bytes(doc, binary) if suffix == ".glb" else gltf_text(doc, binary).encode("utf-8")

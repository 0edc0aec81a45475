"""The scene's layers as meshes: one merged mesh per layer, built from the pure `Scene` with numpy (no window).

Every layer (blocks, ghosts, figures, stones, ladders, outlines, markers, table, shadow) is a single poly data
with per-cell RGB colours (cell array ``rgb``) and, for blocks and ghosts, a ``block_id`` cell array (index into
`Scene.blocks` / `Scene.ghosts`) for picking. Units are grid units (1 unit = 2 cm), as in the scene.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from viewer import mesh as vm
from viewer.mesh import Mesh
from viewer.scene import ALL_RGB, PROBLEM_RGB, SELECT_RGB, TABLE_RGB, Scene

GAP = 0.04  # each block shrinks by this much per side (0.8 mm): neighbouring blocks read as separate pieces
EDGE_RGB = (38, 38, 44)
MOVABLE_RGB = (255, 190, 40)
TARGET_RGB = (40, 200, 90)
HOVER_RGB = (0, 170, 255)  # the block under the mouse: a cold colour no outline or face uses
CURRENT_RGB = (255, 215, 0)  # the foot ring of the figure whose player is to move
#: Quads of a unit box as corner indices (corner bit 0 = +x, bit 1 = +y, bit 2 = +z), in FACES order
#: (+x -x +y -y +z -z), wound counter-clockwise seen from outside.
_BOX_QUADS = np.array([[1, 3, 7, 5], [0, 4, 6, 2], [2, 6, 7, 3], [0, 1, 5, 4], [4, 5, 7, 6], [0, 2, 3, 1]])
_CORNERS = np.array([[(i >> 0) & 1, (i >> 1) & 1, (i >> 2) & 1] for i in range(8)], dtype=float)
_BOX_EDGES = np.array([[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]])
_LAYERS = ("table", "shadow", "blocks", "figures", "stones", "ladders", "ghosts", "ghost_sel", "ghost_figs",
           "problems", "movable", "selected", "hover", "targets", "arrows")
#: Layers a click can hit, nearest first when two are hit at the same depth.
PICKABLE = ("targets", "ghost_sel", "ghosts", "ghost_figs", "figures", "blocks")


def _empty() -> Mesh:
    return Mesh()


def boxes_mesh(lo: np.ndarray, hi: np.ndarray, face_rgb: np.ndarray, ids: np.ndarray | None = None) -> Mesh:
    """N boxes (min corners `lo`, max corners `hi`, shape (N, 3)) as 6N quads; face_rgb is (N, 6, 3) uint8."""
    n = len(lo)
    if n == 0:
        return _empty()
    pts = lo[:, None, :] + _CORNERS[None, :, :] * (hi - lo)[:, None, :]  # (N, 8, 3)
    quads = (_BOX_QUADS[None, :, :] + 8 * np.arange(n)[:, None, None]).reshape(-1, 4)
    mesh = vm.faces_mesh(pts.reshape(-1, 3), quads)
    mesh.set_cell_array("rgb", np.asarray(face_rgb, dtype=np.uint8).reshape(-1, 3))
    if ids is not None:
        mesh.set_cell_array("block_id", np.repeat(np.asarray(ids, dtype=np.int32), 6))
    return mesh


def box_outlines(lo: np.ndarray, hi: np.ndarray, colour: Sequence[int]) -> Mesh:
    """The 12 edges of each box as line cells."""
    n = len(lo)
    if n == 0:
        return _empty()
    pts = lo[:, None, :] + _CORNERS[None, :, :] * (hi - lo)[:, None, :]
    segs = (_BOX_EDGES[None, :, :] + 8 * np.arange(n)[:, None, None]).reshape(-1, 2)
    mesh = vm.lines_mesh(pts.reshape(-1, 3), segs)
    mesh.set_cell_array("rgb", np.tile(np.asarray(colour, dtype=np.uint8), (len(segs), 1)))
    return mesh


def _template(parts: Sequence[tuple[object, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge triangulated primitive parts into (points, triangles, part index per triangle); once per shape."""
    pts, tris, part = [], [], []
    offset = 0
    for poly, index in parts:
        p, faces = vm.triangles(poly)
        pts.append(p.astype(np.float32))
        tris.append(faces + offset)
        part.append(np.full(len(faces), index))
        offset += len(p)
    return np.vstack(pts), np.vstack(tris), np.concatenate(part)


_TEMPLATES: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def template(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cached primitive shapes, origin at the centre of the foot, grid units. Part 0 = owner colour."""
    if name not in _TEMPLATES:
        if name == "figure":
            # a pawn: body cylinder, collar and head; the eye height (1 unit) sits at the head's centre
            _TEMPLATES[name] = _template([
                (vm.cylinder((0, 0, 0.36), (0, 0, 1), radius=0.28, height=0.72, resolution=20), 0),
                (vm.cylinder((0, 0, 0.76), (0, 0, 1), radius=0.18, height=0.1, resolution=20), 0),
                (vm.sphere((0, 0, 1.0), radius=0.22, theta_resolution=16, phi_resolution=12), 0),
                (vm.cylinder((0, 0, 0.02), (0, 0, 1), radius=0.32, height=0.04, resolution=20), 1),
            ])
        elif name == "stone":
            _TEMPLATES[name] = _template([
                (vm.cylinder((0, 0, 0.04), (0, 0, 1), radius=0.62, height=0.08, resolution=24), 1),
                (vm.cylinder((0, 0, 0.2), (0, 0, 1), radius=0.5, height=0.24, resolution=24), 0),
            ])
        elif name.startswith("ladder"):
            h = float(name.split("-")[1])
            parts = [(vm.box((-0.55, -0.45, -0.06, 0.06, 0, h)), 0), (vm.box((0.45, 0.55, -0.06, 0.06, 0, h)), 0)]
            for k in range(int(h * 2)):
                z = 0.25 + 0.5 * k
                parts.append((vm.cylinder((0, 0, z), (1, 0, 0), radius=0.04, height=1.0, resolution=8), 1))
            _TEMPLATES[name] = _template(parts)
        else:
            raise KeyError(name)
    return _TEMPLATES[name]


def instances(name: str, positions: np.ndarray, colours: np.ndarray, accent: Sequence[int] | np.ndarray = EDGE_RGB,
              ids: np.ndarray | None = None, scales: np.ndarray | None = None) -> Mesh:
    """Copies of a template at `positions` (N, 3), optionally scaled per copy; part 0 gets each copy's colour,
    part 1 the accent (one colour, or one per copy as an (N, 3) array)."""
    if len(positions) == 0:
        return _empty()
    pts, tris, part = template(name)
    n = len(positions)
    k = np.ones(n) if scales is None else np.asarray(scales, dtype=float)
    all_pts = (pts[None, :, :] * k[:, None, None] + np.asarray(positions, dtype=float)[:, None, :]).reshape(-1, 3)
    all_tris = (tris[None, :, :] + len(pts) * np.arange(n)[:, None, None]).reshape(-1, 3)
    mesh = vm.faces_mesh(all_pts, all_tris)
    acc = np.asarray(accent, dtype=np.uint8)
    acc = acc[:, None, :] if acc.ndim == 2 else acc[None, None, :]
    cols = np.where(part[None, :, None] == 0, np.asarray(colours, dtype=np.uint8)[:, None, :], acc)
    mesh.set_cell_array("rgb", cols.reshape(-1, 3).astype(np.uint8))
    if ids is not None:
        mesh.set_cell_array("item_id", np.repeat(np.asarray(ids, dtype=np.int32), len(tris)))
    return mesh


def _quads(lo: np.ndarray, hi: np.ndarray, z: np.ndarray, colours: np.ndarray) -> Mesh:
    """Flat horizontal rectangles (x/y ranges lo..hi at heights z), one cell each."""
    n = len(lo)
    if n == 0:
        return _empty()
    x0, y0, x1, y1 = lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]
    pts = np.stack([np.stack([x0, y0, z], 1), np.stack([x1, y0, z], 1), np.stack([x1, y1, z], 1),
                    np.stack([x0, y1, z], 1)], 1).reshape(-1, 3)
    mesh = vm.faces_mesh(pts, np.arange(4 * n).reshape(-1, 4))
    mesh.set_cell_array("rgb", np.asarray(colours, dtype=np.uint8).reshape(-1, 3))
    return mesh

def layer_meshes(scene: Scene, want: set[str] | None = None) -> dict[str, Mesh]:
    """The layers of `scene` (all, or those in `want`) as one mesh each (pure: no window involved)."""
    out: dict[str, Mesh] = {}

    def wanted(name: str) -> bool:
        return want is None or name in want

    if wanted("table"):
        # table and a cheap soft contact shadow: concentric rings under the tower's footprint
        t = scene.table
        out["table"] = _quads(np.array([[t[0], t[2]]]), np.array([[t[1], t[3]]]), np.array([-0.01]),
                              np.array([TABLE_RGB]))
        out["shadow"] = _shadow(scene)
    if wanted("blocks"):
        _block_layers(scene, out)
    if wanted("targets"):
        index = [i for i, m in enumerate(scene.markers) if m.kind == "target"]
        tg = np.array([scene.markers[i].cell for i in index], dtype=float).reshape(-1, 3)
        out["targets"] = _quads(tg[:, :2] + 0.15, tg[:, :2] + 0.85, tg[:, 2] + 0.02,
                                np.tile(np.array(TARGET_RGB, dtype=np.uint8), (len(tg), 1)))
        if index:
            out["targets"].set_cell_array("item_id", np.array(index, dtype=np.int32))  # index into scene.markers
    if wanted("hover"):
        hov = [b for b in scene.blocks if b.id == scene.hover]
        lo = np.array([b.origin for b in hov], dtype=float).reshape(-1, 3)
        hi = lo + np.array([b.size for b in hov], dtype=float).reshape(-1, 3)
        out["hover"] = box_outlines(lo - 0.03, hi + 0.03, HOVER_RGB)
    if wanted("figures"):
        out["figures"] = _figures(scene.figures)
    if wanted("ghost_figs"):
        out["ghost_figs"] = _figures(scene.ghost_figures, ring=SELECT_RGB)
    if wanted("stones"):
        if scene.stones:
            out["stones"] = instances("stone", np.array([s.centre for s in scene.stones]) + [0, 0, 0.01],
                                      np.array([ALL_RGB[s.colour] for s in scene.stones]))
        else:
            out["stones"] = _empty()
    if wanted("ladders"):
        out["ladders"] = _merge([instances(f"ladder-{lad.height}", np.array([lad.base]),
                                           np.array([ALL_RGB[lad.colour]]), accent=(120, 86, 50))
                                 for lad in scene.ladders])
    if wanted("arrows"):
        out["arrows"] = arrows_mesh(scene.arrows)
    if wanted("ghosts"):
        for key, chosen in (("ghosts", False), ("ghost_sel", True)):
            gs = [(i, g) for i, g in enumerate(scene.ghosts) if g.selected == chosen]
            if gs:
                lo = np.array([g.origin for _, g in gs], dtype=float)
                hi = lo + np.array([g.size for _, g in gs], dtype=float)
                out[key] = boxes_mesh(lo + GAP, hi - GAP,
                                      np.array([[ALL_RGB[c] for c in g.faces] for _, g in gs]),
                                      np.array([i for i, _ in gs]))
            else:
                out[key] = _empty()
    return out


def _figures(figures: Sequence, ring: Sequence[int] | None = None) -> Mesh:
    """Pawns standing at their cells; the foot ring shows whose turn it is (gold) or a problem (signal red), or
    is `ring` for all (previewed pawns)."""
    if not figures:
        return _empty()
    pos = np.array([[f.cell[0] + 0.5, f.cell[1] + 0.5, f.cell[2]] for f in figures], dtype=float)
    cols = np.array([ALL_RGB[f.colour] for f in figures])
    accent = np.array([ring if ring is not None else PROBLEM_RGB if f.problem else CURRENT_RGB if f.current
                       else EDGE_RGB for f in figures])
    return instances("figure", pos, cols, accent=accent, ids=np.arange(len(figures)),
                     scales=np.array([f.scale for f in figures]))


def _shadow(scene: Scene) -> Mesh:
    ground = [b for b in scene.blocks if b.origin[2] <= 0] if scene.shadow else []
    if not ground:
        return _empty()
    lo = np.array([[min(b.origin[0] for b in ground), min(b.origin[1] for b in ground)]], dtype=float)
    hi = np.array([[max(b.origin[0] + b.size[0] for b in ground), max(b.origin[1] + b.size[1] for b in ground)]],
                  dtype=float)
    rings = 8
    grow = np.linspace(1.3, 0.0, rings)[:, None]
    shade = np.linspace(0.97, 0.8, rings)[:, None]
    # offset towards +x/-y: the key light comes from the back left
    return _quads(lo - grow + [0.4, -0.4], hi + grow + [0.4, -0.4], np.linspace(-0.008, -0.004, rings),
                  (np.array(TABLE_RGB)[None, :] * shade).astype(np.uint8))


def _block_layers(scene: Scene, out: dict[str, Mesh]) -> None:
    """Blocks plus their outline layers (problems, selection, movable) and the problem cells."""
    problems = []
    if scene.blocks:
        lo = np.array([b.origin for b in scene.blocks], dtype=float)
        hi = lo + np.array([b.size for b in scene.blocks], dtype=float)
        face_rgb = np.array([[ALL_RGB[b.tint or c] for c in b.faces] for b in scene.blocks], dtype=np.uint8)
        out["blocks"] = boxes_mesh(lo + GAP, hi - GAP, face_rgb, np.arange(len(scene.blocks)))
        flag = [i for i, b in enumerate(scene.blocks) if b.problems]
        sel = [i for i, b in enumerate(scene.blocks) if b.selected]
        mov = [i for i, b in enumerate(scene.blocks) if b.movable and not b.selected]
        problems.append(box_outlines(lo[flag] - 0.02, hi[flag] + 0.02, PROBLEM_RGB))
        out["selected"] = box_outlines(lo[sel] - 0.03, hi[sel] + 0.03, SELECT_RGB)
        out["movable"] = box_outlines(lo[mov] + 0.01, hi[mov] - 0.01, MOVABLE_RGB)
    else:
        out["blocks"], out["selected"], out["movable"] = _empty(), _empty(), _empty()
    cells = np.array([m.cell for m in scene.markers if m.kind == "problem"], dtype=float).reshape(-1, 3)
    problems.append(box_outlines(cells + 0.12, cells + 0.88, PROBLEM_RGB))
    out["problems"] = _merge(problems)


def _merge(meshes: Sequence[Mesh]) -> Mesh:
    return vm.merge(meshes)


#: Arrow heads: this many shaft radii long and wide (capped at 45 % of the arrow); sides of the round parts.
HEAD_LENGTH, HEAD_WIDTH, ARROW_SIDES = 3.5, 1.9, 14


def _arrow_template() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A unit shaft (x 0..1, radius 1) and a unit cone (x 0..1, base radius 1) as points, triangles, part."""
    if "arrow" not in _TEMPLATES:
        from vtkmodules.vtkFiltersSources import vtkConeSource

        cone = vtkConeSource()
        cone.SetResolution(ARROW_SIDES)
        cone.SetHeight(1.0)
        cone.SetRadius(1.0)
        cone.SetCenter(0.5, 0.0, 0.0)
        cone.SetDirection(1.0, 0.0, 0.0)
        cone.CappingOn()
        cone.Update()
        _TEMPLATES["arrow"] = _template([
            (vm.cylinder((0.5, 0, 0), (1, 0, 0), radius=1.0, height=1.0, resolution=ARROW_SIDES), 0),
            (vm._clean_triangles(cone.GetOutput()), 1),
        ])
    return _TEMPLATES["arrow"]


def arrows_mesh(arrows: Sequence) -> Mesh:
    """Every `SceneArrow` as a shaft and a cone head, coloured by its colour name (one mesh)."""
    if not arrows:
        return _empty()
    pts, tris, part = _arrow_template()
    # which template points belong to the head: the points of the head's triangles
    head_pts = np.zeros(len(pts), dtype=bool)
    head_pts[tris[part == 1].ravel()] = True
    all_pts, all_tris, all_rgb = [], [], []
    for a in arrows:
        tail, head = np.asarray(a.tail, dtype=float), np.asarray(a.head, dtype=float)
        d = head - tail
        length = float(np.linalg.norm(d))
        if length <= 1e-9:
            continue
        u = d / length
        helper = np.array([0.0, 0.0, 1.0]) if abs(u[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
        v = np.cross(u, helper)
        v /= np.linalg.norm(v)
        w = np.cross(u, v)
        r = a.radius
        h = min(HEAD_LENGTH * r, 0.45 * length)
        x = np.where(head_pts, (length - h) + pts[:, 0] * h, pts[:, 0] * (length - h))
        rad = np.where(head_pts, HEAD_WIDTH * r, r)
        p = tail + x[:, None] * u + (pts[:, 1] * rad)[:, None] * v + (pts[:, 2] * rad)[:, None] * w
        all_tris.append(tris + len(pts) * len(all_pts))
        all_pts.append(p)
        all_rgb.append(np.tile(np.array(ALL_RGB[a.colour], dtype=np.uint8), (len(tris), 1)))
    if not all_pts:
        return _empty()
    mesh = vm.faces_mesh(np.vstack(all_pts), np.vstack(all_tris))
    mesh.set_cell_array("rgb", np.vstack(all_rgb))
    return mesh

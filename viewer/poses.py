"""Physics poses on the shown scene: blocks and figures moved to a PyBullet trajectory frame, in place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from viewer.layers import _CORNERS, GAP, template

if TYPE_CHECKING:
    from viewer.renderer import SceneRenderer


def _quat_matrix(q: Sequence[float]) -> np.ndarray:
    """Rotation matrix of a quaternion (x, y, z, w)."""
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def set_block_poses(renderer: SceneRenderer, poses: dict[str, Sequence[Sequence[float]]], unit_m: float) -> None:
    """Move the blocks (and figures) of the shown scene to physics poses, changing mesh points in place.

    poses: id -> [[x, y, z] centre in metres, [qx, qy, qz, qw]], as a PyBullet trajectory frame has them;
    bodies without a pose keep their place. Figures are looked up as ``figure-<colour>-<index>``.
    """
    scene = renderer.scene
    if scene is None:
        return
    renderer._posed = True
    mesh = renderer.meshes["blocks"]
    if mesh.n_points:
        pts = np.array(mesh.points).reshape(-1, 8, 3)
        for i, b in enumerate(scene.blocks):
            pose = poses.get(b.id)
            if pose is None:
                continue
            lo = np.asarray(b.origin, dtype=float) + GAP
            hi = lo + np.asarray(b.size, dtype=float) - 2 * GAP
            local = (lo + _CORNERS * (hi - lo)) - (lo + hi) / 2
            pts[i] = local @ _quat_matrix(pose[1]).T + np.asarray(pose[0]) / unit_m
        mesh.points = pts.reshape(-1, 3)
    fig = renderer.meshes["figures"]
    if fig.n_points and scene.figures:
        per = len(template("figure")[0])
        pts = np.array(fig.points).reshape(len(scene.figures), per, 3)
        for i, f in enumerate(scene.figures):
            pose = poses.get(f"figure-{f.colour}-{i}")
            if pose is None:
                continue
            # the physics solid of a figure is centred 0.625 units above its foot (tower.app.stability)
            local = template("figure")[0] - [0, 0, 0.625]
            pts[i] = local @ _quat_matrix(pose[1]).T + np.asarray(pose[0]) / unit_m
        fig.points = pts.reshape(-1, 3)

"""A force distribution summed per contact rectangle: the resultant, its point of application, the torsion.

The explanations (physics.forces, physics.bounds) solve for forces at the corners of every inset contact rectangle;
a person reads them per contact: what one body pushes on the other, where, and how close to an edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from physics.contacts import TABLE
from physics.equilibrium import EquilibriumSystem
from physics.units import GRAVITY

#: Normal forces below this fraction of the build's weight count as zero (no point of application reported).
UNLOADED_REL = 1e-9


@dataclass(frozen=True)
class ContactForce:
    """The force one body exerts on another through one contact rectangle (SI units).

    `a` pushes on `b` (`a` is "table" for the table); `normal` is the unit normal pointing into `b`.
    `force` is the resultant on `b` (newtons, x y z), applied at `point` (metres, the centre of pressure of the
    normal forces) together with a twisting moment `torsion_nm` about the normal (from friction spread over the
    rectangle). `rect` is the contact rectangle: its axis-aligned bounds (x0, x1, y0, y1, z0, z1), flat along
    the normal. `edge_distance_m` is the distance from `point` to the nearest edge of that rectangle: 0 means the
    block is about to tip about that edge.
    """

    a: str
    b: str
    normal: tuple[float, float, float]
    normal_n: float
    friction_n: float
    friction_use: float
    force: tuple[float, float, float]
    point: tuple[float, float, float]
    torsion_nm: float
    edge_distance_m: float
    rect: tuple[float, float, float, float, float, float]

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "normal": list(self.normal), "normal_n": round(self.normal_n, 6),
                "friction_n": round(self.friction_n, 6), "friction_use": round(self.friction_use, 4),
                "force": [round(v, 6) + 0.0 for v in self.force], "point": [round(v, 6) for v in self.point],
                "torsion_nm": round(self.torsion_nm, 8) + 0.0, "edge_distance_m": round(self.edge_distance_m, 6),
                "rect": [round(v, 6) for v in self.rect]}


def contact_arrays(sys_: EquilibriumSystem, x: np.ndarray) -> dict[str, np.ndarray]:
    """A solution's corner forces summed per contact rectangle, for all contacts at once (SI units): `normal_n`,
    `force` (the resultant on b), `point` (the centre of pressure of the normal forces; the rectangle's middle when
    unloaded), `torsion_nm` (about the normal), `friction_n`, `edge_m` (from the point to the nearest edge)."""
    K = len(sys_.contacts)
    unit = sys_.unit_force_n
    x = x[:sys_.ncol] * unit
    corner_force = np.zeros((len(sys_.corner_contact), 3))
    np.add.at(corner_force, sys_.col_corner, x[:, None] * sys_.col_force)
    f = corner_force.reshape(K, 4, 3)  # contact_corners gives every contact its 4 corners, in contact order
    p = sys_.corner_point.reshape(K, 4, 3)
    axis = np.array([c.axis for c in sys_.contacts], dtype=np.int64)
    rows = np.arange(K)
    fn = f[rows, :, axis]  # (K, 4)
    N = fn.sum(axis=1)
    F = f.sum(axis=1)
    total_weight = float(sum(b.mass for b in sys_.boxes)) * GRAVITY
    loaded = N > UNLOADED_REL * total_weight
    point = p.mean(axis=1)  # the middle of the inset rectangle is the middle of the rectangle
    point[loaded] = (fn[loaded, :, None] * p[loaded]).sum(axis=1) / N[loaded, None]
    torsion = np.cross(p - point[:, None, :], f).sum(axis=1)[rows, axis]
    ft = F.copy()
    ft[rows, axis] = 0.0
    fric = np.linalg.norm(ft, axis=1)
    rect = np.array([c.rect for c in sys_.contacts], dtype=float).reshape(K, 4)
    first = np.where(axis == 0, 1, 0)  # the two in-plane coordinates, ascending (contacts.Contact.rect)
    second = np.where(axis == 2, 1, 2)
    pu, pv = point[rows, first], point[rows, second]
    edge = np.maximum(0.0, np.minimum.reduce([pu - rect[:, 0], rect[:, 1] - pu, pv - rect[:, 2], rect[:, 3] - pv]))
    return {"normal_n": N, "force": F, "point": point, "torsion_nm": torsion, "friction_n": fric, "edge_m": edge,
            "loaded": loaded, "axis": axis, "rect": rect}


def per_contact(sys_: EquilibriumSystem, x: np.ndarray) -> list[ContactForce]:
    """Sum a solution's corner forces per contact rectangle: resultant, centre of pressure, torsion, edge gap."""
    ids = [b.id for b in sys_.boxes]
    a = contact_arrays(sys_, x)
    out = []
    for k, c in enumerate(sys_.contacts):
        axis = c.axis
        N = float(a["normal_n"][k])
        fric = float(a["friction_n"][k])
        use = fric / (sys_.mu * N) if a["loaded"][k] and sys_.mu > 0 else 0.0
        others = [i for i in range(3) if i != axis]
        u0, u1, v0, v1 = c.rect
        rect = [0.0] * 6
        rect[2 * others[0]], rect[2 * others[0] + 1] = u0, u1
        rect[2 * others[1]], rect[2 * others[1] + 1] = v0, v1
        rect[2 * axis] = rect[2 * axis + 1] = c.plane
        out.append(ContactForce("table" if c.a == TABLE else ids[c.a], ids[c.b],
                                tuple(float(v) for v in np.eye(3)[axis]), N, fric,
                                min(use, 1.0) if math.isfinite(use) else 0.0,
                                tuple(float(v) for v in a["force"][k]), tuple(float(v) for v in a["point"][k]),
                                float(a["torsion_nm"][k]), float(a["edge_m"][k]), tuple(float(v) for v in rect)))
    return out

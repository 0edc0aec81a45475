"""The equilibrium equations of a build with explicit contact forces, for the explanations (forces, push test).

The statics judge (physics.statics) poses equilibrium over friction-pyramid *generators*, which is the fastest
form for its many tilt LPs. Explaining a build needs the forces themselves, so this module poses the same
equations over the physical unknowns: at every corner of every contact rectangle (shrunk by the centre-of-mass
inset, exactly the corners the judge uses) a normal force f_n >= 0 and, on horizontal contacts, a friction force
(f_x, f_y) bounded by an octagon inscribed in the Coulomb cone (|f_t| <= mu f_n; exact along the axes and the
diagonals, at most 1 - cos(pi/8) = 7.6 % short in between). The octagon contains both of the judge's friction
squares, so whatever the judge finds standing has a solution here too. Side contacts carry normal force only, as
in the judge.

Numbers are normalised as in the judge: lengths in units of the mean box size, forces in units of the mean weight.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from physics.contacts import TABLE, Contact, contact_corners, find_contacts
from physics.model import Box
from physics.units import GRAVITY

#: Sides of the friction polygon (vertices on the cone at every 360/OCTAGON degrees, starting on +x).
OCTAGON = 8
#: HiGHS settings of the explanation LPs and QPs (small models: presolve off, as in the judge).
HIGHS_OPTIONS = {"output_flag": False, "presolve": "off"}


@dataclass
class HighsSolution:
    """What one HiGHS run returned: columns, row duals (None when not optimal) and the model status name."""

    x: np.ndarray | None
    duals: np.ndarray | None
    status: str


class EquilibriumSystem:
    """A x = b (6 rows per box: forces then moments about its centre) and the friction rows F x <= 0.

    Columns: per horizontal corner three (normal, friction x, friction y), per side corner one (normal). Column
    metadata says which contact and corner each belongs to, so solutions map back to contacts.
    """

    def __init__(self, boxes: Sequence[Box], mu: float, inset: float,
                 contacts: list[Contact] | None = None) -> None:
        self.boxes = list(boxes)
        self.mu = mu
        n = self.n = len(self.boxes)
        self.contacts = find_contacts(self.boxes) if contacts is None else contacts
        masses = np.array([b.mass for b in self.boxes], dtype=float)
        lo = np.array([b.lo for b in self.boxes], dtype=float).reshape(-1, 3)
        sizes = np.array([b.size for b in self.boxes], dtype=float).reshape(-1, 3)
        self.L = float(sizes.mean()) if n else 1.0
        self.mean_mass = float(masses.mean()) if n else 1.0
        self.unit_force_n = self.mean_mass * GRAVITY  # newtons per normalised force unit
        self.m = masses / self.mean_mass if n else masses
        self.centres = lo + sizes / 2
        c_idx, pts, axes = contact_corners(self.contacts, inset)
        self.corner_contact, self.corner_point, self.corner_axis = c_idx, pts, axes
        horizontal = axes == 2
        # one column per force component: (corner, component) with component 0 = normal, 1 = x, 2 = y friction
        corner_of, comp = [], []
        for k in range(len(c_idx)):
            comps = (0, 1, 2) if horizontal[k] else (0,)
            corner_of += [k] * len(comps)
            comp += list(comps)
        self.col_corner = np.array(corner_of, dtype=np.int64)
        self.col_comp = np.array(comp, dtype=np.int64)
        ncol = len(self.col_corner)
        # the unit force vector of each column, on body b
        eye = np.eye(3)
        normal_dir = eye[axes[self.col_corner]] if ncol else np.zeros((0, 3))
        f = np.where((self.col_comp == 0)[:, None], normal_dir,
                     np.where((self.col_comp == 1)[:, None], eye[0], eye[1])) if ncol else np.zeros((0, 3))
        self.col_force = f
        a = np.array([c.a for c in self.contacts], dtype=np.int64)[c_idx][self.col_corner] if ncol else \
            np.zeros(0, dtype=np.int64)
        b = np.array([c.b for c in self.contacts], dtype=np.int64)[c_idx][self.col_corner] if ncol else \
            np.zeros(0, dtype=np.int64)
        p = pts[self.col_corner] if ncol else np.zeros((0, 3))
        self.col_a, self.col_b = a, b
        rows = []
        for body, sign in ((b, 1.0), (a, -1.0)):
            ok = body != TABLE
            arm = np.zeros_like(p)
            arm[ok] = (p[ok] - self.centres[body[ok]]) / self.L
            wrench = sign * np.concatenate([f, np.cross(arm, f)], axis=1)  # (ncol, 6)
            r = 6 * np.where(ok, body, 0)[:, None] + np.arange(6)
            keep = ok[:, None] & (np.abs(wrench) > 1e-13)
            cols = np.broadcast_to(np.arange(ncol)[:, None], (ncol, 6))
            rows.append((cols[keep], r[keep], wrench[keep]))
        col = np.concatenate([x[0] for x in rows]) if rows else np.zeros(0, dtype=np.int64)
        row = np.concatenate([x[1] for x in rows]) if rows else np.zeros(0, dtype=np.int64)
        val = np.concatenate([x[2] for x in rows]) if rows else np.zeros(0)
        self.eq = (col, row, val)
        self.b_eq = np.zeros(6 * n)
        self.b_eq[2::6] = self.m  # contact forces carry the weight
        # friction rows: cos(t_j) f_x + sin(t_j) f_y - mu cos(pi/K) f_n <= 0 with edge normals t_j between vertices
        hcorners = np.flatnonzero(horizontal)
        self.h_corners = hcorners
        first_col = np.full(len(c_idx), -1, dtype=np.int64)
        if ncol:
            first_col[self.col_corner[::-1]] = np.arange(ncol)[::-1]
        self.corner_first_col = first_col
        fc, fr, fv = [], [], []
        half = math.pi / OCTAGON
        for j in range(OCTAGON):
            t = (2 * j + 1) * half
            for comp_off, coeff in ((0, -mu * math.cos(half)), (1, math.cos(t)), (2, math.sin(t))):
                if abs(coeff) < 1e-13:
                    continue
                fc.append(first_col[hcorners] + comp_off)
                fr.append(j * len(hcorners) + np.arange(len(hcorners)))
                fv.append(np.full(len(hcorners), coeff))
        self.fric = (np.concatenate(fc) if fc else np.zeros(0, dtype=np.int64),
                     np.concatenate(fr) if fr else np.zeros(0, dtype=np.int64),
                     np.concatenate(fv) if fv else np.zeros(0))
        self.n_fric = OCTAGON * len(hcorners)
        self.ncol = ncol
        self.col_lo = np.where(self.col_comp == 0, 0.0, -math.inf)
        self.col_hi = np.full(ncol, math.inf)

    # --- solving ---------------------------------------------------------------------------------------------

    def solve(self, extra_cols: Sequence[tuple[np.ndarray, np.ndarray]] = (), cost: np.ndarray | None = None,
              friction: bool = True, extra_bounds: Sequence[tuple[float, float]] = ()) -> HighsSolution:
        """One HiGHS run over [force columns, extra columns] with rows [equilibrium (= b_eq), friction (<= 0)].

        extra_cols: (rows, values) of further columns on the equilibrium rows (loads); cost: linear objective
        (minimised) over all columns; friction=False drops the friction rows (unlimited friction).
        (The minimum-norm forces are not a HiGHS QP: see physics.forces.)"""
        from physics.lp import highs  # noqa: PLC0415 - the same lazily loaded HiGHS extension

        hc = highs()
        if not hc:  # pragma: no cover - SciPy without the HiGHS object
            raise RuntimeError("SciPy's HiGHS extension is needed for the force explanations")
        n6 = 6 * self.n
        cols = [self.eq[0]]
        rows = [self.eq[1]]
        vals = [self.eq[2]]
        for e, (r, v) in enumerate(extra_cols):
            cols.append(np.full(len(r), self.ncol + e, dtype=np.int64))
            rows.append(np.asarray(r, dtype=np.int64))
            vals.append(np.asarray(v, dtype=float))
        nfric = self.n_fric if friction else 0
        if friction and nfric:
            cols.append(self.fric[0])
            rows.append(self.fric[1] + n6)
            vals.append(self.fric[2])
        total = self.ncol + len(extra_cols)
        col = np.concatenate(cols)
        row = np.concatenate(rows)
        val = np.concatenate(vals)
        order = np.lexsort((row, col))
        col, row, val = col[order], row[order], val[order]
        start = np.zeros(total + 1, dtype=np.int32)
        np.cumsum(np.bincount(col, minlength=total), out=start[1:])
        c = np.zeros(total) if cost is None else np.asarray(cost, dtype=float)
        lo = np.concatenate([self.col_lo, [b[0] for b in extra_bounds]])
        hi = np.concatenate([self.col_hi, [b[1] for b in extra_bounds]])
        row_lo = np.concatenate([self.b_eq, np.full(nfric, -math.inf)])
        row_hi = np.concatenate([self.b_eq, np.zeros(nfric)])
        h = hc._Highs()
        for k, v in HIGHS_OPTIONS.items():
            h.setOptionValue(k, v)
        h.passModel(total, n6 + nfric, len(val), int(hc.MatrixFormat.kColwise), int(hc.ObjSense.kMinimize),
                    0.0, c, lo, hi, row_lo, row_hi, start, row.astype(np.int32), val, np.zeros(total, dtype=np.int32))
        h.run()
        status = h.getModelStatus()
        if status != hc.HighsModelStatus.kOptimal:
            return HighsSolution(None, None, str(status).rsplit(".", 1)[-1])
        sol = h.getSolution()
        return HighsSolution(np.asarray(sol.col_value), np.asarray(sol.row_dual), "optimal")

    def point_load(self, body: int, point: Sequence[float], force: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
        """Rows and values of a unit external load `force` (direction) applied at `point` (metres) on `body`."""
        f = np.asarray(force, dtype=float)
        arm = (np.asarray(point, dtype=float) - self.centres[body]) / self.L
        # an external load enters the equilibrium rows with the opposite sign of a contact force (A x + load = w
        # means contact forces plus the load balance gravity)
        w = np.concatenate([f, np.cross(arm, f)])
        return 6 * body + np.arange(6), w

    def moving(self, duals: np.ndarray | None, rel_tol: float = 1e-3) -> tuple[str, ...]:
        """Boxes that move in the failure mode, largest virtual velocity first (the equilibrium rows' duals)."""
        if duals is None or self.n == 0:
            return ()
        v = np.abs(duals[:6 * self.n]).reshape(self.n, 6).max(axis=1)
        if v.max() <= 0:
            return ()
        order = np.argsort(-v, kind="stable")
        return tuple(self.boxes[i].id for i in order if v[i] > rel_tol * v.max())

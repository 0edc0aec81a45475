"""All admissible contact force distributions of a build as one HiGHS model, re-solved for many objectives.

A distribution is admissible when it balances every block (forces and moments), every contact pushes (normal
forces >= 0 at the corners of the inset contact rectangles, as in the statics judge) and friction stays inside the
friction octagon of physics.equilibrium at each corner of a horizontal contact (exact along the axes and the
diagonals, at most 7.6 % inside the Coulomb cone between them); side contacts push only. The bounds of
physics.bounds and the friction search of physics.friction_need minimise and maximise linear functions over this
set; their LPs share one model each and differ only in their objective (or in one coefficient per corner), so
HiGHS re-solves each from the previous optimal basis.

Two forms of the same set:
- `GeneratorSet`: each horizontal corner's force is a non-negative combination of the octagon cone's 8 edge
  rays (n + mu v_j, v_j the octagon's vertices on the unit circle). Only the 6 equilibrium rows per block remain,
  so each re-solve pivots on a small basis: the form for the many bounds LPs (measured 3x faster than the
  friction rows of physics.equilibrium on the start tower). Primal simplex: a new objective leaves the previous
  basis primal feasible (dual simplex took 5x the pivots).
- `FrictionRowSet`: a normal force per corner and 8 friction weights g_j >= 0 per horizontal corner with
  f_t = sum_j g_j v_j and one row sum_j g_j <= mu f_n (the octagon's vertices scaled by mu f_n and the origin span
  exactly that octagon). The friction coefficient sits in one coefficient per corner: the form for changing it.

Numbers are those of physics.equilibrium: lengths in mean box sizes, forces in mean block weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from physics.equilibrium import OCTAGON, EquilibriumSystem
from physics.lp import highs

#: Solver settings: small, very degenerate models (presolve off, as in the judge's LPs); primal simplex, since a
#: changed objective keeps the last basis primal feasible.
OPTIONS: dict[str, Any] = {"output_flag": False, "presolve": "off", "simplex_strategy": 4}
#: The octagon's vertex directions (radians): every 360/OCTAGON degrees from +x, as in physics.equilibrium.
ANGLES = 2 * math.pi * np.arange(OCTAGON) / OCTAGON

_INF = math.inf


class _Model:
    """One HiGHS model over columns mapped to the force columns of an EquilibriumSystem by the sparse matrix T."""

    def __init__(self, sys_: EquilibriumSystem, T: Any, extra_rows: Any, extra_hi: np.ndarray) -> None:
        import scipy.sparse as sp  # noqa: PLC0415 - sparse assembly only

        hc = highs()
        if not hc:  # pragma: no cover - SciPy without the HiGHS object
            raise RuntimeError("SciPy's HiGHS extension is needed for the force bounds")
        self.hc, self.sys, self.T = hc, sys_, T
        self.mu = sys_.mu
        n6 = 6 * sys_.n
        self.ncol = T.shape[1]
        eq_col, eq_row, eq_val = sys_.eq
        M = sp.csr_matrix((eq_val, (eq_row, eq_col)), shape=(n6, sys_.ncol)) @ T
        if extra_rows is not None:
            M = sp.vstack([M, extra_rows])
        M = M.tocsc()
        M.data[np.abs(M.data) < 1e-13] = 0.0  # cos(pi/2) and the like: rounding noise HiGHS would warn about
        M.eliminate_zeros()
        M.sort_indices()
        nrow = M.shape[0]
        self.h = hc._Highs()
        for k, v in OPTIONS.items():
            self.h.setOptionValue(k, v)
        self.h.passModel(self.ncol, nrow, M.nnz, int(hc.MatrixFormat.kColwise), int(hc.ObjSense.kMinimize), 0.0,
                         np.zeros(self.ncol), np.zeros(self.ncol), np.full(self.ncol, _INF),
                         np.concatenate([sys_.b_eq, np.full(nrow - n6, -_INF)]),
                         np.concatenate([sys_.b_eq, extra_hi]), M.indptr.astype(np.int32),
                         M.indices.astype(np.int32), M.data, np.zeros(self.ncol, dtype=np.int32))
        self.rows = nrow
        self.cost_cols = np.zeros(0, dtype=np.int32)
        self.lps = 0
        self.iterations = 0
        self.duals: np.ndarray | None = None

    def forces(self, x: np.ndarray) -> np.ndarray:
        """A solution as the EquilibriumSystem's force columns (normal, friction x, friction y per corner)."""
        return self.T @ x

    def set_cost(self, cols: np.ndarray, values: np.ndarray | float) -> None:
        """The objective (minimised): `values` on model columns `cols`, zero elsewhere."""
        if len(self.cost_cols):
            self.h.changeColsCost(len(self.cost_cols), self.cost_cols, np.zeros(len(self.cost_cols)))
        cols = np.asarray(cols, dtype=np.int32)
        vals = np.broadcast_to(np.asarray(values, dtype=float), (len(cols),)).copy()
        self.h.changeColsCost(len(cols), cols, vals)
        self.cost_cols = cols

    def add_rows(self, rows: list[tuple[np.ndarray, np.ndarray, float, float]]) -> None:
        """Append rows lo <= sum(values * x[cols]) <= hi, each given as (cols, values, lo, hi)."""
        for cols, vals, lo, hi in rows:
            keep = np.abs(vals) > 1e-13
            self.h.addRow(lo, hi, int(keep.sum()), np.asarray(cols, dtype=np.int32)[keep], np.asarray(vals)[keep])
        self.rows += len(rows)

    def drop_rows(self, count: int) -> None:
        """Delete the last `count` rows (those add_rows appended)."""
        self.h.deleteRows(count, np.arange(self.rows - count, self.rows, dtype=np.int32))
        self.rows -= count

    def solve(self) -> np.ndarray | None:
        """Optimise the current objective: the model's columns, or None when no distribution exists. The row
        duals of an optimum are kept in `duals`."""
        self.h.run()
        self.lps += 1
        self.iterations += self.h.getInfo().simplex_iteration_count
        if self.h.getModelStatus() != self.hc.HighsModelStatus.kOptimal:
            self.duals = None
            return None
        sol = self.h.getSolution()
        self.duals = np.asarray(sol.row_dual)
        return np.asarray(sol.col_value).copy()


class GeneratorSet(_Model):
    """The admissible set over the octagon cone's edge rays (module docstring). Columns: one normal force per side
    corner, then OCTAGON ray weights per horizontal corner. `contact_cols[k]` are contact k's columns and
    `contact_force[k]` the force each of them puts on body b (per unit, newtons / mean weight, x y z)."""

    def __init__(self, sys_: EquilibriumSystem) -> None:
        import scipy.sparse as sp  # noqa: PLC0415

        h = sys_.h_corners
        side = np.flatnonzero(sys_.corner_axis != 2)
        first = sys_.corner_first_col
        ng = OCTAGON * len(h)
        g = len(side) + np.arange(ng)
        mu = sys_.mu
        rows = np.concatenate([first[side], np.repeat(first[h], OCTAGON), np.repeat(first[h] + 1, OCTAGON),
                               np.repeat(first[h] + 2, OCTAGON)])
        cols = np.concatenate([np.arange(len(side)), g, g, g])
        vals = np.concatenate([np.ones(len(side)), np.ones(ng), mu * np.tile(np.cos(ANGLES), len(h)),
                               mu * np.tile(np.sin(ANGLES), len(h))])
        keep = np.abs(vals) > 1e-13
        T = sp.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(sys_.ncol, len(side) + ng))
        super().__init__(sys_, T, None, np.zeros(0))
        corner_of_col = np.concatenate([side, np.repeat(h, OCTAGON)])
        contact_of_col = sys_.corner_contact[corner_of_col]
        order = np.argsort(contact_of_col, kind="stable")
        bounds = np.searchsorted(contact_of_col[order], np.arange(len(sys_.contacts) + 1))
        self.contact_cols = [order[bounds[k]:bounds[k + 1]].astype(np.int32) for k in range(len(sys_.contacts))]
        Tc = T.tocsc()
        force = np.zeros((self.ncol, 3))
        for axis in range(3):
            force[:, axis] = np.asarray(Tc.multiply(sys_.col_force[:, axis][:, None]).sum(axis=0)).ravel()
        self.col_force = force

    def contact_force(self, k: int) -> np.ndarray:
        """(columns of contact k, 3): the force each of contact k's columns puts on its body b, per unit."""
        return self.col_force[self.contact_cols[k]]


class FrictionRowSet(_Model):
    """The admissible set with explicit friction weights and one friction row per horizontal corner (module
    docstring): the coefficient mu of each row can be changed in place (`set_mu`, `set_corner_mu`)."""

    def __init__(self, sys_: EquilibriumSystem) -> None:
        import scipy.sparse as sp  # noqa: PLC0415

        corners = len(sys_.corner_contact)
        h = sys_.h_corners
        first = sys_.corner_first_col
        nw = OCTAGON * len(h)
        w = corners + np.arange(nw)
        rows = np.concatenate([first, np.repeat(first[h] + 1, OCTAGON), np.repeat(first[h] + 2, OCTAGON)])
        cols = np.concatenate([np.arange(corners), w, w])
        vals = np.concatenate([np.ones(corners), np.tile(np.cos(ANGLES), len(h)), np.tile(np.sin(ANGLES), len(h))])
        keep = np.abs(vals) > 1e-13
        T = sp.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(sys_.ncol, corners + nw))
        # sum_j g_j - mu f_n <= 0 per horizontal corner (the normal force of corner c is column c)
        H = len(h)
        fr = sp.csr_matrix((np.concatenate([np.ones(nw), np.full(H, -sys_.mu)]),
                            (np.concatenate([np.arange(nw) // OCTAGON, np.arange(H)]),
                             np.concatenate([w, h]))), shape=(H, corners + nw))
        super().__init__(sys_, T, fr, np.zeros(H))
        self.fric_row = 6 * sys_.n + np.arange(H)
        self.h_corners = h
        self.corner_mu = np.full(H, sys_.mu)
        self.weight_cols = w

    def set_corner_mu(self, which: np.ndarray, mu: float) -> None:
        """Friction coefficient `mu` at horizontal corners `which` (indices into h_corners)."""
        for i in np.asarray(which).tolist():
            if self.corner_mu[i] != mu:
                self.h.changeCoeff(int(self.fric_row[i]), int(self.h_corners[i]), -mu)
                self.corner_mu[i] = mu

    def set_mu(self, mu: float) -> None:
        """The same friction coefficient at every corner."""
        self.set_corner_mu(np.arange(len(self.h_corners)), mu)
        self.mu = mu

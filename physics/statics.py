"""Statics judge: rigid-block equilibrium as a linear program (HiGHS, as bundled with SciPy).

Unknowns are compression-only contact forces at the corners of each contact rectangle (shrunk by the centre-of-
mass inset). Horizontal contacts (tops on bottoms, bottoms on the table) carry Coulomb friction through a
pyramid of FRICTION_SIDES generators inscribed in the cone; vertical (side) contacts carry normal force only, since
friction there lets the LP invent squeezing forces that nothing produces.

Tilt margin: tilting the table by theta towards d is, in the table's frame, gravity plus a horizontal body force
lambda * m * g * d on every block with lambda = tan(theta). The loads l = lambda * d the build survives form a
convex set C in the plane (a projection of the LP's feasible set). The margin is the radius of the largest disc
around 0 inside C: min over directions of the ray length r(d) = max{lambda : lambda d in C}, one LP per direction,
searched with certified bounds (docs/physics.md).

Speed (docs/physics.md, "Solver"): the LP matrices are assembled directly as compressed columns (no scipy.sparse),
SciPy's HiGHS extension is loaded without the rest of scipy.optimize, the two friction-pyramid turns' ray chains run
on two threads (HiGHS releases the GIL), and a build that provably falls skips the rays.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from physics.contacts import TABLE, TOUCH_TOL_M, Contact, contact_corners, find_contacts
from physics.model import Box
from physics.threads import side_by_side
from physics.units import DEFAULT_MU

#: Default centre-of-mass inset (metres): contact rectangles shrink by 1 mm so that a centre of mass exactly above
#: an edge (a knife-edge equilibrium no real block keeps) counts as falling; 1 mm is 2.5 % of the game's cube.
COM_INSET_M = 0.001
#: Sides of the friction pyramid (inscribed in the Coulomb cone). It is turned for each LP so that generators
#: point along, against and across the load direction: friction that resists the tilt (sliding) is exact;
#: components at 45 degrees to it are understated by up to 1 - cos(pi/4) = 29 % (never overstated). 4 sides keep
#: the 35-block LP half the size of 8 (measured 2x faster).
FRICTION_SIDES = 4
#: Directions sampled first (every 45 degrees: the axes and diagonals, where axis-aligned builds are weakest).
INITIAL_DIRECTIONS = 8
#: The weakest-direction search stops when its certified lower and upper bounds on the margin are this close
#: (degrees); far below the 1-degree band that separates `stable` from `marginal`.
TILT_TOL_DEG = 0.05
#: At most this many ray LPs (8 initial + refinements): each costs ~3-5 ms for 35 blocks. Polygonal (tipping)
#: limits certify within the first 8-10; curved ones (whole-build sliding) stop here with their bounds reported.
MAX_RAY_LPS = 12
#: HiGHS options. Presolve costs more than it saves on these small LPs (measured ~30 % slower). HiGHS's own
#: scaling stays on although the problem is already scaled to order-1 numbers: without it the 551 benchmark builds
#: took 12 % less CPU in all, but the 35-block start tower 28 % more pivots, and the LPs would stop at other
#: (equally optimal) vertices than before, changing the reported failure mechanisms.
HIGHS_OPTIONS: dict[str, Any] = {"output_flag": False, "presolve": "off"}
#: The rescue and mechanism LPs of a falling build are posed with the options `linprog(method="highs")` uses:
#: their optima are not unique, and these reproduce the vertex (so the margin) earlier versions reported.
LINPROG_OPTIONS: dict[str, Any] = {"output_flag": False, "presolve": "on", "simplex_strategy": 1}
#: Re-solve each friction-pyramid turn's model from the previous basis (only the load column changes). The LP is
#: very degenerate, so a ray 90 degrees on still takes 45-105 % of a cold solve's pivots; over 51 start towers the
#: warm starts took 20 % fewer pivots in all than cold solves, and the model is built once per turn. (On a 200-block
#: slab of cubes one warm ray took 16,600 pivots and 3.2 s where a cold one takes ~1,800 and 0.06 s, while on random
#: piles of 150-250 blocks warm starts still halve the time: large builds keep them, and slabs are settled by the
#: piece bounds of _Split without their whole LP.)
WARM_START = True
#: Builds of more blocks than this are judged by parts (_Split, docs/physics.md "At scale"); up to it, as one LP per
#: ray exactly as before (the start tower's LPs, pivots and results are unchanged).
SPLIT_MIN_BLOCKS = 64
#: Two ray lengths (load multipliers, order 1) this close count as equal when bounds are compared: LP noise is
#: ~1e-12, and 1e-9 in lambda is below 1e-7 degrees of tilt.
BOUND_TOL = 1e-9
#: Pieces (of distinct shapes) whose held bound is tried per ray before the sub-assembly's own LP decides.
MAX_HELD_TRIES = 8
#: The piece bounds are tried on a sub-assembly of at most MAX_PIECE_KINDS distinct piece shapes, at most
#: PIECE_REPEAT of its pieces (repeated shapes: slabs, walls, rows of towers share their LPs) and no piece over
#: half of it; otherwise (random piles: 40-90 % distinct pieces, measured) the bounds cost more than they save.
MAX_PIECE_KINDS = 48
PIECE_REPEAT = 0.25
#: The 8 initial rays come in two chains, one per friction-pyramid turn (axes / diagonals), that share nothing:
#: the second chain runs on a worker thread while the first runs here (HiGHS releases the GIL while it solves),
#: when the process may use more than one CPU. Same LPs, same order within each chain: same results either way.
PARALLEL_RAYS = True
#: Cap on the load multiplier (tan 89.4 deg): keeps every LP bounded; no real build reaches it.
LAMBDA_CAP = 100.0
#: lambda >= -STABLE_TOL counts as standing: solver noise on the normalised (order-1) problem is ~1e-9.
STABLE_TOL = 1e-7
#: A dual value (virtual velocity) above this fraction of the largest marks a block as part of a failure mode.
MECHANISM_REL_TOL = 1e-3
#: Sides of the polygon norm used to find the smallest rescuing tilt of a falling build (error <= 1 - cos(pi/16)).
RESCUE_NORM_SIDES = 16
#: Matrix entries smaller than this are dropped when the columns are assembled: cos(pi/2) = 6e-17 and the like are
#: rounding noise, and HiGHS would otherwise warn about (and drop) them itself. Real coefficients are order 1.
ZERO_COEFF = 1e-13

_INF = math.inf
_HIGHS_MODULE = "scipy.optimize._highspy._core"
_hc: Any = None  # SciPy's HiGHS extension module once loaded; False when it is not available
_hc_lock = threading.Lock()


def _load_highs_extension() -> Any:
    """SciPy's bundled HiGHS extension (`_Highs`, `HighsLp`), without importing scipy.optimize.

    `import scipy.optimize` loads ~500 ms of modules the judge never uses (the package imports every optimiser);
    the HiGHS extension itself loads in ~5 ms. It is loaded from its file under its own module name and registered
    in sys.modules, so a later `import scipy.optimize` finds and reuses it instead of initialising it twice. Any
    surprise (another SciPy layout) falls back to the normal import; without the object at all (older SciPy)
    the LPs go through `linprog`.
    """
    mod = sys.modules.get(_HIGHS_MODULE)
    if mod is None:
        try:
            import importlib.machinery  # noqa: PLC0415
            import importlib.util  # noqa: PLC0415

            spec = importlib.util.find_spec("scipy")
            folder = os.path.join(os.path.dirname(spec.origin), "optimize", "_highspy")
            suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
            path = next(os.path.join(folder, f) for f in sorted(os.listdir(folder))
                        if f.startswith("_core.") and f.endswith(suffixes))
            loader = importlib.machinery.ExtensionFileLoader(_HIGHS_MODULE, path)
            mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(_HIGHS_MODULE, loader,
                                                                                   origin=path))
            sys.modules[_HIGHS_MODULE] = mod
            loader.exec_module(mod)
        except Exception:  # noqa: BLE001 - any other layout: the normal import
            sys.modules.pop(_HIGHS_MODULE, None)
            try:
                from scipy.optimize._highspy import _core as mod  # noqa: PLC0415
            except ImportError:
                return False
    return mod if hasattr(mod, "_Highs") and hasattr(mod, "HighsLp") else False


def _highs() -> Any:
    """The HiGHS extension module, or False (then every LP goes through scipy's linprog)."""
    global _hc
    if _hc is None:
        with _hc_lock:
            if _hc is None:
                _hc = _load_highs_extension()
    return _hc


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class StaticsResult:
    """The statics judge's answer with its evidence.

    tilt_margin_deg is signed: > 0 the build stands and survives every table tilt up to that angle (fails at it in
    weakest_direction); < 0 it falls on the level table and -tilt_margin_deg is the smallest tilt that would hold it
    (weakest_direction is then the direction it falls); -90 when no tilt holds it (weakest_direction [0, 0]).
    """

    stable: bool
    tilt_margin_deg: float
    weakest_direction: tuple[float, float]
    ms: float
    margin_bounds_deg: tuple[float, float] = (0.0, 0.0)
    mechanism: tuple[str, ...] = ()
    lps: int = 0
    contacts: int = 0

    def to_json(self, detail: bool = False) -> dict:
        """The `statics` object of the stability verdict (docs/formats.md) (plus evidence when `detail`)."""
        # + 0.0: a margin of -0.0 (a ray of exactly 0 at the inset boundary) must print as 0.0
        d = {"stable": self.stable, "tilt_margin_deg": round(self.tilt_margin_deg, 2) + 0.0,
             "weakest_direction": [round(self.weakest_direction[0], 4) + 0.0, round(self.weakest_direction[1], 4) + 0.0],
             "ms": round(self.ms, 1)}
        if detail:
            d.update({"margin_bounds_deg": [round(v, 3) for v in self.margin_bounds_deg],
                      "mechanism": list(self.mechanism), "lps": self.lps, "contacts": self.contacts})
        return d


@dataclass
class _Columns:
    """A sparse matrix in compressed-column form (the layout HiGHS takes as it is)."""

    rows: int
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray

    @property
    def cols(self) -> int:
        return len(self.indptr) - 1

    @staticmethod
    def hstack(parts: Sequence[_Columns]) -> _Columns:
        starts, offset = [np.zeros(1, dtype=np.int64)], 0
        for p in parts:
            starts.append(p.indptr[1:] + offset)
            offset += p.indptr[-1]
        return _Columns(parts[0].rows, np.concatenate(starts),
                        np.concatenate([p.indices for p in parts]), np.concatenate([p.data for p in parts]))

    @staticmethod
    def single(rows: int, index: np.ndarray, values: np.ndarray) -> _Columns:
        keep = np.abs(values) > ZERO_COEFF
        return _Columns(rows, np.array([0, int(keep.sum())], dtype=np.int64), index[keep].astype(np.int32),
                        values[keep].astype(float))

    def shifted(self, offset: int, rows: int) -> _Columns:
        """The same columns with every row index moved down by offset, in a matrix of `rows` rows."""
        return _Columns(rows, self.indptr, self.indices + np.int32(offset), self.data)

    def scipy(self) -> Any:  # only for the linprog fallback
        import scipy.sparse as sp  # noqa: PLC0415

        return sp.csc_matrix((self.data, self.indices, self.indptr), shape=(self.rows, self.cols))


class _LP:
    """One HiGHS model, min c.x s.t. row_lo <= A x <= row_hi, lo <= x <= hi, kept for re-solves.

    Without SciPy's HiGHS object it keeps the arrays and solves each time with linprog (cold).
    """

    def __init__(self, A: _Columns, c: np.ndarray, lo: np.ndarray, hi: np.ndarray, row_lo: np.ndarray,
                 row_hi: np.ndarray, options: dict[str, Any] | None = None) -> None:
        self.A, self.c, self.lo, self.hi, self.row_lo, self.row_hi = A, c, lo, hi, row_lo, row_hi
        self.presolve = (HIGHS_OPTIONS if options is None else options).get("presolve") == "on"
        self.iterations = 0
        hc = _highs()
        self.h = None
        if hc:
            h = hc._Highs()
            for k, v in (HIGHS_OPTIONS if options is None else options).items():
                h.setOptionValue(k, v)
            if options is None:  # the array overload: no per-element conversion (~4x faster than a HighsLp)
                h.passModel(A.cols, A.rows, len(A.data), int(hc.MatrixFormat.kColwise),
                            int(hc.ObjSense.kMinimize), 0.0, c, lo, hi, row_lo, row_hi,
                            A.indptr.astype(np.int32), A.indices, A.data, np.zeros(A.cols, dtype=np.int32))
            else:  # exactly the HighsLp linprog passes (no integrality vector at all)
                lp = hc.HighsLp()
                lp.num_col_, lp.num_row_ = A.cols, A.rows
                lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = A.cols, A.rows
                lp.a_matrix_.format_ = hc.MatrixFormat.kColwise
                lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
                lp.col_cost_, lp.col_lower_, lp.col_upper_ = c, lo, hi
                lp.row_lower_, lp.row_upper_ = row_lo, row_hi
                h.passModel(lp)
            self.h = h

    def set_column(self, col: int, rows: np.ndarray, values: np.ndarray) -> None:
        """Rewrite one column's entries in `rows` (a zero value removes the entry)."""
        values = np.where(np.abs(values) > ZERO_COEFF, values, 0.0)
        if self.h is not None:
            for r, v in zip(rows.tolist(), values.tolist(), strict=True):
                self.h.changeCoeff(r, col, v)
            return
        A, keep = self.A, values != 0
        a, b = A.indptr[col], A.indptr[col + 1]
        A.indices = np.concatenate([A.indices[:a], rows[keep].astype(np.int32), A.indices[b:]])
        A.data = np.concatenate([A.data[:a], values[keep], A.data[b:]])
        A.indptr = A.indptr.copy()
        A.indptr[col + 1:] += int(keep.sum()) - (b - a)

    def solve(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(x, row duals) when optimal, else (None, None)."""
        if self.h is not None:
            h = self.h
            h.run()
            self.iterations += h.getInfo().simplex_iteration_count
            if h.getModelStatus() != _hc.HighsModelStatus.kOptimal:
                return None, None
            sol = h.getSolution()
            return np.asarray(sol.col_value), np.asarray(sol.row_dual)
        from scipy.optimize import linprog  # noqa: PLC0415

        A = self.A.scipy().tocsr()
        eq = self.row_lo == self.row_hi
        ub = ~eq
        res = linprog(self.c, A_ub=A[ub] if ub.any() else None, b_ub=self.row_hi[ub] if ub.any() else None,
                      A_eq=A[eq] if eq.any() else None, b_eq=self.row_lo[eq] if eq.any() else None,
                      bounds=[(lo, None if math.isinf(hi) else hi) for lo, hi in zip(self.lo, self.hi, strict=True)],
                      method="highs", options={"presolve": self.presolve})
        if res.status != 0:
            return None, None
        duals = np.zeros(self.A.rows)
        if eq.any():
            duals[eq] = res.eqlin.marginals
        if ub.any():
            duals[ub] = res.ineqlin.marginals
        return np.asarray(res.x), duals


class _Problem:
    """The equilibrium equations of one build, normalised to order-1 numbers, ready to solve for any direction."""

    def __init__(self, boxes: Sequence[Box], mu: float, inset: float,
                 contacts: list[Contact] | None = None, held: Sequence[Box] = ()) -> None:
        """`held` boxes (indices n, n+1, ... in `contacts`) are held in place like the table: contacts with them
        push on the free boxes, and they have no equations of their own (the bounds of _Split)."""
        self.boxes = list(boxes)
        self.mu = mu
        n = len(boxes)
        self.n = n
        masses = np.array([b.mass for b in boxes], dtype=float)
        lo = np.array([b.lo for b in boxes], dtype=float).reshape(-1, 3)
        sizes = np.array([b.size for b in boxes], dtype=float).reshape(-1, 3)
        # lengths in units of the mean box size, forces in units of the mean weight: order-1 coefficients
        self.L = float(sizes.mean())
        self.m = masses / masses.mean()
        centres = lo + sizes / 2
        if held:
            centres = np.concatenate([centres, [b.centre for b in held]])
        self.contacts: list[Contact] = find_contacts(boxes) if contacts is None else contacts
        c_idx, pts, axes = contact_corners(self.contacts, inset)
        a = np.array([c.a for c in self.contacts], dtype=np.int64)[c_idx]
        b = np.array([c.b for c in self.contacts], dtype=np.int64)[c_idx]
        arm_a = np.zeros_like(pts)
        on_body = a != TABLE
        arm_a[on_body] = (pts[on_body] - centres[a[on_body]]) / self.L
        arm_b = (pts - centres[b]) / self.L
        h = axes == 2
        self.horizontal = h
        # vertical (side) contacts: normal force only, along +axis on b
        rows, vals = self._entries(a[~h], b[~h], arm_a[~h], arm_b[~h], np.eye(3)[axes[~h]])
        self.Nv = self._compress(rows, vals)
        # horizontal contacts: the normal and the two tangential unit forces, combined per pyramid turn
        ah, bh, eye = a[h], b[h], np.eye(3)
        self._h_rows, self._h_normal = self._entries(ah, bh, arm_a[h], arm_b[h], np.tile(eye[2], (len(ah), 1)))
        self._h_tx = self._entries(ah, bh, arm_a[h], arm_b[h], np.tile(eye[0], (len(ah), 1)))[1]
        self._h_ty = self._entries(ah, bh, arm_a[h], arm_b[h], np.tile(eye[1], (len(ah), 1)))[1]
        self.b_eq = np.zeros(6 * n)
        self.b_eq[2::6] = self.m  # contact forces carry the weight: sum f = m g e_z
        self._load_rows = np.column_stack([6 * np.arange(n), 6 * np.arange(n) + 1]).ravel().astype(np.int32)
        self._gen: dict[float, _Columns] = {}
        self._models: dict[float, _LP] = {}
        self.lps = 0
        self._lock = threading.Lock()

    def _entries(self, a: np.ndarray, b: np.ndarray, arm_a: np.ndarray, arm_b: np.ndarray,
                 f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per column k, the 12 (row, value) pairs of a unit force f[k] at a corner (lever arms arm_a/arm_b from
        the two centres) on body b[k] and its reaction on body a[k]: 6 force/moment rows per body, the lower
        body index first. The table's (a = TABLE) and held boxes' entries have the row index 6n (dropped later)."""
        six = np.arange(6)
        on_a = np.concatenate([-f, -np.cross(arm_a, f)], axis=1)
        on_b = np.concatenate([f, np.cross(arm_b, f)], axis=1)
        rows_a = np.where(((a == TABLE) | (a >= self.n))[:, None], 6 * self.n, 6 * a[:, None] + six)
        rows_b = np.where((b >= self.n)[:, None], 6 * self.n, 6 * b[:, None] + six)
        a_first = ((a != TABLE) & (a < b))[:, None]
        rows = np.concatenate([np.where(a_first, rows_a, rows_b), np.where(a_first, rows_b, rows_a)], axis=1)
        vals = np.concatenate([np.where(a_first, on_a, on_b), np.where(a_first, on_b, on_a)], axis=1)
        return rows, vals

    def _compress(self, rows: np.ndarray, vals: np.ndarray) -> _Columns:
        """(k, 12) entries (rows ascending within each column) -> compressed columns without the zeros and the
        table's rows."""
        n6 = 6 * self.n
        valid = (np.abs(vals) > ZERO_COEFF) & (rows < n6)
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(valid.sum(axis=1), out=indptr[1:])
        return _Columns(n6, indptr, rows[valid].astype(np.int32), vals[valid])

    @staticmethod
    def _key(phi: float) -> float:
        return round(phi % (2 * math.pi / FRICTION_SIDES), 12)

    def generators(self, phi: float = 0.0) -> _Columns:
        """All contact-force columns with the friction pyramid turned so that one generator lies at angle phi:
        the side contacts' normals, then generator j of every horizontal corner for j = 0..FRICTION_SIDES-1."""
        key = self._key(phi)
        if key not in self._gen:
            vals = []
            for j in range(FRICTION_SIDES):
                t = key + 2 * math.pi * j / FRICTION_SIDES
                # n + mu (cos t tx + sin t ty), evaluated in this order (the judge's results do not depend on
                # the last bit, but its pivots do, and identical matrices keep results comparable across versions)
                vals.append(self._h_normal + self.mu * (math.cos(t) * self._h_tx + math.sin(t) * self._h_ty))
            rows = np.concatenate([self._h_rows] * FRICTION_SIDES)
            self._gen[key] = _Columns.hstack([self.Nv, self._compress(rows, np.concatenate(vals))])
        return self._gen[key]

    def load(self, d: tuple[float, float]) -> np.ndarray:
        """The values, on rows _load_rows, of a horizontal load multiplier in direction d (body force
        lambda m g d on every block)."""
        return np.column_stack([self.m * d[0], self.m * d[1]]).ravel()

    def load_column(self, d: tuple[float, float]) -> _Columns:
        return _Columns.single(6 * self.n, self._load_rows, self.load(d))

    def ray(self, phi: float) -> tuple[float | None, np.ndarray | None]:
        """Largest lambda with the load lambda * (cos phi, sin phi) in equilibrium (None: infeasible) and the
        duals of the equilibrium rows (the blocks' virtual velocities in the failure mode).

        One HiGHS model per friction-pyramid turn: a new direction only rewrites the load column, and HiGHS
        restarts from the previous optimal basis (WARM_START)."""
        G = self.generators(phi)
        key = self._key(phi)
        k = G.cols
        d = (math.cos(phi), math.sin(phi))
        lp = self._models.get(key) if WARM_START else None
        if lp is None:
            c = np.zeros(k + 1)
            c[k] = -1.0
            lo = np.zeros(k + 1)
            hi = np.full(k + 1, _INF)
            lo[k], hi[k] = -LAMBDA_CAP, LAMBDA_CAP
            lp = _LP(_Columns.hstack([G, self.load_column(d)]), c, lo, hi, self.b_eq, self.b_eq)
            if WARM_START:
                self._models[key] = lp
        else:
            lp.set_column(k, self._load_rows, self.load(d))
        x, duals = lp.solve()
        with self._lock:  # two chains may count at once
            self.lps += 1
        return (None, None) if x is None else (float(x[k]), duals)

    def lowest(self, phi: float) -> float | None:
        """Smallest lambda (most negative) with the load lambda * (cos phi, sin phi) in equilibrium, or None.
        A cold LP of its own: the piece bounds of _Split ask it of small pieces only."""
        G = self.generators(phi)
        k = G.cols
        c = np.zeros(k + 1)
        c[k] = 1.0
        lo = np.zeros(k + 1)
        hi = np.full(k + 1, _INF)
        lo[k], hi[k] = -LAMBDA_CAP, LAMBDA_CAP
        x, _ = _LP(_Columns.hstack([G, self.load_column((math.cos(phi), math.sin(phi)))]), c, lo, hi,
                   self.b_eq, self.b_eq).solve()
        with self._lock:
            self.lps += 1
        return None if x is None else float(x[k])

    def initial_rays(self) -> dict[float, tuple[float | None, np.ndarray | None]]:
        """The INITIAL_DIRECTIONS rays, as two chains (one per friction-pyramid turn, each on its own model) run
        side by side when PARALLEL_RAYS allows. A chain stops at its first ray that shows the build cannot stand
        unloaded (r < 0 or infeasible): the margin then comes from rescue(), not from the rays. Each chain's LPs
        and their order do not depend on the threads, so neither do the results."""
        chains: dict[float, list[float]] = {}
        for k in range(INITIAL_DIRECTIONS):
            phi = 2 * math.pi * k / INITIAL_DIRECTIONS
            chains.setdefault(self._key(phi), []).append(phi)
        rays: dict[float, tuple[float | None, np.ndarray | None]] = {}

        def run(chain: list[float]) -> None:
            for phi in chain:
                rays[phi] = self.ray(phi)
                r = rays[phi][0]
                if r is None or r < -STABLE_TOL:
                    return

        todo = list(chains.values())
        if PARALLEL_RAYS and len(todo) > 1 and _highs() and _cpus() > 1:
            side_by_side(lambda: [run(chain) for chain in todo[1:]], lambda: run(todo[0]), "statics-rays")
        else:
            for chain in todo:
                run(chain)
        return rays

    def rescue(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The smallest horizontal load (lx, ly) (polygon norm) that holds a falling build, or None, and duals.

        The polygon norm's minimiser is not unique (a whole edge of the 16-gon can be optimal), and the reported
        margin is the Euclidean length of the vertex HiGHS stops at; the LP is therefore posed exactly as
        `linprog(method="highs")` poses it (polygon rows first, LINPROG_OPTIONS), so the vertex, and the margin,
        are the ones earlier versions reported."""
        G = self.generators()
        k, n6, s = G.cols, 6 * self.n, RESCUE_NORM_SIDES
        ang = 2 * np.pi * np.arange(s) / s
        eq_rows = self._load_rows + s
        cols = [G.shifted(s, s + n6)]
        for d, trig in (((1.0, 0.0), np.cos(ang)), ((0.0, 1.0), np.sin(ang))):
            cols.append(_Columns.single(s + n6, np.concatenate([np.arange(s), eq_rows]),
                                        np.concatenate([trig, self.load(d)])))
        cols.append(_Columns.single(s + n6, np.arange(s), -np.ones(s)))
        c = np.zeros(k + 3)
        c[-1] = 1.0
        lo = np.concatenate([np.zeros(k), [-LAMBDA_CAP, -LAMBDA_CAP, 0.0]])
        hi = np.concatenate([np.full(k, _INF), [LAMBDA_CAP, LAMBDA_CAP, _INF]])
        x, duals = _LP(_Columns.hstack(cols), c, lo, hi, np.concatenate([np.full(s, -_INF), self.b_eq]),
                       np.concatenate([np.zeros(s), self.b_eq]), LINPROG_OPTIONS).solve()
        self.lps += 1
        if x is None:
            return None, None
        return x[k:k + 2], duals[s:]

    def unbalanced(self) -> np.ndarray:
        """Per body, the smallest extra force+moment (L1, normalised) equilibrium needs: nonzero = cannot rest.
        (Posed as linprog poses it, like rescue(): its optimum is not unique either.)"""
        G = self.generators()
        k, n6 = G.cols, 6 * self.n
        eye = np.arange(n6, dtype=np.int32)
        one = _Columns(n6, np.arange(n6 + 1, dtype=np.int64), eye, np.ones(n6))
        minus = _Columns(n6, np.arange(n6 + 1, dtype=np.int64), eye, -np.ones(n6))
        A = _Columns.hstack([G, one, minus])
        c = np.concatenate([np.zeros(k), np.ones(2 * n6)])
        x, _ = _LP(A, c, np.zeros(k + 2 * n6), np.full(k + 2 * n6, _INF), self.b_eq, self.b_eq,
                   LINPROG_OPTIONS).solve()
        self.lps += 1
        if x is None:  # cannot happen (the slacks make it feasible); blame every body rather than none
            return np.ones(self.n)
        s = np.abs(x[k:k + n6]) + np.abs(x[k + n6:])
        return s.reshape(self.n, 6).sum(axis=1)

    def mechanism(self, duals: np.ndarray | None) -> tuple[str, ...]:
        """Blocks that move in the failure mode: the LP duals are the blocks' virtual velocities (by size)."""
        if duals is None or self.n == 0:
            return ()
        v = np.abs(duals[:6 * self.n]).reshape(self.n, 6).max(axis=1)
        if v.max() <= 0:
            return ()
        order = np.argsort(-v)
        return tuple(self.boxes[i].id for i in order if v[i] > MECHANISM_REL_TOL * v.max())


def _groups(n: int, pairs: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Connected components of n nodes joined by pairs, each as ascending indices, by smallest member."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    out: dict[int, list[int]] = {}
    for i in range(n):
        out.setdefault(root(i), []).append(i)
    return list(out.values())


def _q(v: float) -> int:
    """A length or mass ratio quantised for shape keys (1 nm; well below TOUCH_TOL_M)."""
    return round(v * 1e9)


@dataclass
class _Piece:
    """Boxes (build indices) that hang together through supports, with their contacts renumbered for their own
    LP (the piece's boxes 0.. in build order, then the held neighbours n.. for the held LP)."""

    boxes: list[int]
    own: list[Contact]  # among its boxes and with the table
    held: list[Contact]  # side contacts with other pieces' boxes (renumbered n, n + 1, ...)
    neighbours: list[int]  # build indices of those boxes
    key: tuple
    held_key: tuple


class _Split:
    """A large build judged by parts, ray by ray: the same ray lengths as one LP over the whole build.

    Sub-assemblies that touch only through the table are independent: C is the intersection of their load sets,
    so r(d) = min over sub-assemblies. Within one, the pieces (boxes joined by supports: tops on bottoms) touch
    through frictionless side contacts only, and two bounds often pin r(d) without its LP:
    - lower: every piece standing alone under the load (side forces zero) is a solution of the whole, so
      r(d) >= L = min over pieces of r_alone(d), provided each piece alone also holds L (its smallest load <= L);
    - upper: a piece whose side neighbours are held in place (their contacts push on it for free) can only do
      better than in the build, so r(d) <= r_held(d) for any piece.
    A piece attaining L whose held bound is L too proves r(d) = L. Identical pieces (the same shape up to a shift
    in the plane) share their LPs. When the bounds do not meet, the sub-assembly's own LP decides (skipped when
    its lower bound already exceeds the smallest ray found).
    """

    _key = staticmethod(_Problem._key)

    def __init__(self, boxes: Sequence[Box], mu: float, inset: float, contacts: list[Contact]) -> None:
        self.boxes, self.mu, self.inset, self.contacts = list(boxes), mu, inset, contacts
        self.n = len(self.boxes)
        self.lps = 0
        self._lock = threading.Lock()
        self._whole: _Problem | None = None
        self._problems: dict[tuple, _Problem] = {}
        self._rays: dict[tuple, tuple[float | None, np.ndarray | None]] = {}
        self._lowest: dict[tuple, float | None] = {}
        # sub-assemblies whose piece bounds failed, by pyramid turn: the next rays solve them whole
        self._no_bounds: dict[int, set[float]] = {}
        self._chain_turns = {self._key(2 * math.pi * k / INITIAL_DIRECTIONS) for k in range(INITIAL_DIRECTIONS)}
        self._parts_lock = threading.Lock()
        self.assemblies: list[list[int]] = []
        self.pieces: list[_Piece] = []
        self.pieces_of: list[list[int]] = []

    def _split(self) -> None:
        """Find the sub-assemblies and pieces (on the first ray: a build that provably falls never needs them)."""
        with self._parts_lock:
            if not self.assemblies:
                self._split_now()

    def _split_now(self) -> None:
        contacts = self.contacts
        mean_mass = float(np.mean([b.mass for b in self.boxes]))
        self._shape = [(_q(b.lo[2]), _q(b.size[0]), _q(b.size[1]), _q(b.size[2]), _q(b.mass / mean_mass * 1e-3))
                       for b in self.boxes]
        touching = [(c.a, c.b) for c in contacts if c.a != TABLE]
        piece_of = [0] * self.n
        pieces = _groups(self.n, [(c.a, c.b) for c in contacts if c.a != TABLE and c.axis == 2])
        for p, members in enumerate(pieces):
            for i in members:
                piece_of[i] = p
        own: list[list[Contact]] = [[] for _ in pieces]
        cross: list[list[Contact]] = [[] for _ in pieces]
        for c in contacts:
            if c.a == TABLE or piece_of[c.a] == piece_of[c.b]:
                own[piece_of[c.b]].append(c)
            else:
                cross[piece_of[c.a]].append(c)
                cross[piece_of[c.b]].append(c)
        self.pieces = [self._piece(m, own[p], cross[p]) for p, m in enumerate(pieces)]
        assemblies = _groups(self.n, touching)
        self.pieces_of = [sorted({piece_of[i] for i in a}) for a in assemblies]
        self.assemblies = assemblies  # last: other threads wait for it

    def _piece(self, members: list[int], own: list[Contact], cross: list[Contact]) -> _Piece:
        local = {i: k for k, i in enumerate(members)}
        x0, y0 = min(self.boxes[i].lo[0] for i in members), min(self.boxes[i].lo[1] for i in members)

        def renumber(c: Contact, index: dict[int, int]) -> Contact:
            return Contact(TABLE if c.a == TABLE else index[c.a], index[c.b], c.axis, c.plane, c.rect)

        own_r = [renumber(c, local) for c in own]
        index = dict(local)
        neighbours: list[int] = []
        for c in cross:
            for i in (c.a, c.b):
                if i not in index:
                    index[i] = len(members) + len(neighbours)
                    neighbours.append(i)
        held = [renumber(c, index) for c in cross]
        key = tuple(self._shape[i] + (_q(self.boxes[i].lo[0] - x0), _q(self.boxes[i].lo[1] - y0)) for i in members)

        def shifted(c: Contact) -> tuple:
            # rect coordinates are (x, y), (y, z) or (x, z) by axis; shift the x and y ones
            if c.axis == 2:
                r = (c.rect[0] - x0, c.rect[1] - x0, c.rect[2] - y0, c.rect[3] - y0)
                plane = c.plane
            elif c.axis == 0:
                r = (c.rect[0] - y0, c.rect[1] - y0, c.rect[2], c.rect[3])
                plane = c.plane - x0
            else:
                r = (c.rect[0] - x0, c.rect[1] - x0, c.rect[2], c.rect[3])
                plane = c.plane - y0
            side = c.b < len(members)  # the piece is pushed along +axis (else along -axis)
            return (c.axis, side, _q(plane), *map(_q, r))

        held_key = (key, tuple(sorted(shifted(c) for c in held)))
        return _Piece(members, own_r, held, neighbours, key, held_key)

    # -- the LPs, shared by identical parts ---------------------------------------------------------------------

    def _problem(self, kind: str, key: tuple, make) -> _Problem:
        with self._lock:  # one model per part for both chains: each warm-starts its own pyramid turn's LPs
            prob = self._problems.get((kind, key))
            if prob is None:
                prob = self._problems[(kind, key)] = make()
        return prob

    def _ray(self, kind: str, key: tuple, make, phi: float) -> tuple[float | None, np.ndarray | None]:
        k = (kind, key, phi)
        if k not in self._rays:
            self._rays[k] = self._problem(kind, key, make).ray(phi)
            with self._lock:
                self.lps += 1
        return self._rays[k]

    def _alone(self, p: _Piece, phi: float) -> tuple[float | None, np.ndarray | None]:
        return self._ray("alone", p.key, lambda: _Problem([self.boxes[i] for i in p.boxes], self.mu, self.inset,
                                                          p.own), phi)

    def _held(self, p: _Piece, phi: float) -> tuple[float | None, np.ndarray | None]:
        return self._ray("held", p.held_key, lambda: _Problem(
            [self.boxes[i] for i in p.boxes], self.mu, self.inset, p.own + p.held,
            held=[self.boxes[i] for i in p.neighbours]), phi)

    def _alone_lowest(self, p: _Piece, phi: float) -> float | None:
        k = (p.key, phi)
        if k not in self._lowest:
            prob = self._problem("alone", p.key, lambda: _Problem([self.boxes[i] for i in p.boxes], self.mu,
                                                                  self.inset, p.own))
            self._lowest[k] = prob.lowest(phi)
            with self._lock:
                self.lps += 1
        return self._lowest[k]

    def _assembly(self, a: int, phi: float) -> tuple[float | None, np.ndarray | None]:
        members = self.assemblies[a]

        def make() -> _Problem:
            local = {i: k for k, i in enumerate(members)}
            cs = [Contact(TABLE if c.a == TABLE else local[c.a], local[c.b], c.axis, c.plane, c.rect)
                  for c in self.contacts if c.b in local]
            return _Problem([self.boxes[i] for i in members], self.mu, self.inset, cs)

        return self._ray("assembly", self._assembly_key(a), make, phi)

    def _assembly_key(self, a: int) -> tuple:
        members = self.assemblies[a]
        x0, y0 = min(self.boxes[i].lo[0] for i in members), min(self.boxes[i].lo[1] for i in members)
        return tuple(self._shape[i] + (_q(self.boxes[i].lo[0] - x0), _q(self.boxes[i].lo[1] - y0)) for i in members)

    def _full(self, members: list[int], duals: np.ndarray | None) -> np.ndarray | None:
        """A part's equilibrium duals spread over the whole build's rows (zero elsewhere)."""
        if duals is None:
            return None
        out = np.zeros(6 * self.n)
        idx = (6 * np.asarray(members)[:, None] + np.arange(6)).ravel()
        out[idx] = duals[:6 * len(members)]
        return out

    # -- one ray ------------------------------------------------------------------------------------------------

    def _bounds(self, a: int, phi: float) -> tuple[float | None, tuple | None]:
        """(lower bound L or None when the pieces give none, the proof (r, duals, members) that r(d) = L or None)."""
        turn = self._key(phi)
        failed = self._no_bounds.setdefault(a, set())
        # a chain learns only from its own turn's rays (so the results do not depend on the threads); the
        # refinement rays, which run after both chains, from either
        if turn in failed or (failed and turn not in self._chain_turns):
            return None, None
        pieces = [self.pieces[p] for p in self.pieces_of[a]]
        kinds = {p.key: p for p in pieces}
        if len(pieces) > 1 and (len(kinds) > MAX_PIECE_KINDS or len(kinds) > len(pieces) * PIECE_REPEAT
                                or 2 * max(len(p.boxes) for p in pieces) > len(self.assemblies[a])):
            failed.add(turn)  # the pieces' LPs would cost about as much as the sub-assembly's
            return None, None
        alone = {key: self._alone(p, phi) for key, p in kinds.items()}
        if any(r is None for r, _ in alone.values()):
            failed.add(turn)
            return None, None
        low = min(r for r, _ in alone.values())
        if len(pieces) > 1 and any((self._alone_lowest(p, phi) or _INF) > low + BOUND_TOL for p in kinds.values()):
            failed.add(turn)
            return None, None  # a piece cannot hold L alone: no lower bound
        d = (math.cos(phi), math.sin(phi))
        weakest = [p for p in pieces if alone[p.key][0] <= low + BOUND_TOL]

        def help_from_neighbours(p: _Piece) -> int:
            # side contacts that push against the load: the likelier such a piece is held up by them
            return sum(1 for c in p.held if c.axis < 2 and (1 if c.b < len(p.boxes) else -1) * d[c.axis] < -1e-12)

        tried: set[tuple] = set()
        for p in sorted(weakest, key=help_from_neighbours):
            if not p.held:
                return low, (low, alone[p.key][1], p.boxes)
            if p.held_key in tried:
                continue
            if len(tried) >= MAX_HELD_TRIES:
                break
            tried.add(p.held_key)
            r, duals = self._held(p, phi)
            if r is not None and r <= low + BOUND_TOL:
                return low, (low, duals, p.boxes)
        failed.add(turn)  # the bounds did not meet: the next rays go straight to the sub-assembly's LP
        return low, None

    def ray(self, phi: float) -> tuple[float | None, np.ndarray | None]:
        """r(d) and the duals of the part that fails first (None, None when some part cannot take the load)."""
        self._split()
        best, proof = _INF, None
        open_: list[tuple[float, int]] = []
        for a in range(len(self.assemblies)):
            low, found = self._bounds(a, phi)
            if found is not None:
                if found[0] < best:
                    best, proof = found[0], (found[1], found[2])
            else:
                open_.append((-_INF if low is None else low, a))
        for low, a in sorted(open_):
            if low >= best:
                break  # every remaining part holds at least the smallest ray found
            r, duals = self._assembly(a, phi)
            if r is None:
                return None, None
            if r < best:
                best, proof = r, (duals, self.assemblies[a])
        if proof is None:
            return None, None
        return best, self._full(proof[1], proof[0])

    initial_rays = _Problem.initial_rays

    # -- falling builds: the whole build's LPs ------------------------------------------------------------------

    def whole(self) -> _Problem:
        if self._whole is None:
            self._whole = _Problem(self.boxes, self.mu, self.inset, self.contacts)
        return self._whole

    def rescue(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        out = self.whole().rescue()
        self.lps += 1
        return out

    def unbalanced(self) -> np.ndarray:
        out = self.whole().unbalanced()
        self.lps += 1
        return out

    mechanism = _Problem.mechanism


def _segment_distance(p: np.ndarray, q: np.ndarray) -> tuple[float, np.ndarray]:
    """Distance from the origin to segment pq and the nearest point."""
    d = q - p
    dd = float(d @ d)
    t = 0.0 if dd == 0 else min(1.0, max(0.0, -float(p @ d) / dd))
    x = p + t * d
    return float(math.hypot(*x)), x


def _deg(lam: float) -> float:
    return math.degrees(math.atan(lam))


def _quick_fall(boxes: Sequence[Box], contacts: Sequence[Contact], inset: float,
                only: int | None = None) -> bool:
    """Exact quick test by virtual work, for boxes with nothing resting on them: True when one must fall.

    Tip such a box about the edge of its support hull (the bottom contacts, shrunk by the inset) nearest to its
    centre, towards its centre. Points of its bottom face move straight up or down, so friction there does no
    work; a side contact (frictionless) resists only if that face looks along the tipping direction. With the
    centre off the hull and no such face touched, gravity does positive work in a motion nothing resists: no
    equilibrium exists. Anything else is left to the LP.
    """
    on_top = {c.a for c in contacts if c.axis == 2}
    under: dict[int, list[tuple[float, float, float, float]]] = {}
    faces: dict[int, list[tuple[int, float]]] = {}  # box -> (axis, sign of the touching face's outward normal)
    for c in contacts:
        if c.axis == 2:
            under.setdefault(c.b, []).append(c.rect)
        else:
            faces.setdefault(c.a, []).append((c.axis, 1.0))
            faces.setdefault(c.b, []).append((c.axis, -1.0))
    for i, b in enumerate(boxes):
        if i in on_top or (only is not None and i != only):
            continue
        rects = under.get(i)
        if not rects:
            return True  # nothing under it and nothing on it: frictionless sides carry no weight
        cx, cy = b.centre[0], b.centre[1]
        if any(x0 + inset <= cx <= x1 - inset and y0 + inset <= cy <= y1 - inset for x0, x1, y0, y1 in rects):
            continue  # over one contact: the common case, no hull needed
        pts = np.array([(x, y) for x0, x1, y0, y1 in rects
                        for x in (x0 + inset, x1 - inset) for y in (y0 + inset, y1 - inset)])
        c = np.array((cx, cy))
        near = _nearest_on_hull(pts, c)
        if near is None:
            continue  # centre over the hull
        n = c - near
        if not any(sign * n[axis] > 1e-12 for axis, sign in faces.get(i, ())):
            return True
    return False


def _nearest_on_hull(pts: np.ndarray, p: np.ndarray) -> np.ndarray | None:
    """The point of the convex hull of the 2-D points nearest to p, or None when p lies in the hull."""
    # the distinct points in lexicographic order, as np.unique(..., axis=0) gives them (which would import numpy.ma,
    # ~17 ms, on its first call in a process)
    pts = np.array(sorted(set(map(tuple, pts.round(12).tolist()))))

    def cross(o, a, b) -> float:
        return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))

    hull: list[np.ndarray] = []  # Andrew's monotone chain, counter-clockwise
    for seq in (pts, pts[::-1]):
        start = len(hull)
        for q in seq:
            while len(hull) >= start + 2 and cross(hull[-2], hull[-1], q) <= 0:
                hull.pop()
            hull.append(q)
        hull.pop()
    if len(hull) >= 3 and all(cross(hull[k], hull[(k + 1) % len(hull)], p) >= -1e-15 for k in range(len(hull))):
        return None
    best, best_d = hull[0], math.inf
    for k in range(len(hull)):
        a, b = hull[k], hull[(k + 1) % len(hull)]
        ab = b - a
        t = 0.0 if not ab.any() else min(1.0, max(0.0, float((p - a) @ ab / (ab @ ab))))
        q = a + t * ab
        d = float(np.hypot(*(p - q)))
        if d < best_d:
            best, best_d = q, d
    return None if best_d < 1e-12 else best  # on a degenerate hull's segment: left to the LP


def stands(boxes: Sequence[Box], mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M,
           first: str | None = None) -> bool:
    """Does the build stand on a level table? The same equilibrium as judge_statics at zero tilt, without the
    margin search: two LPs, or none when _quick_fall already proves a box falls.
    This is the test for many candidate placements, where judge_statics' 8-12 LPs each would cost too much;
    `first` names the box just placed, to be tested on its own before the whole build."""
    boxes = list(boxes)
    if not boxes:
        return True
    if first is not None:
        # the box just placed is tested first against only the boxes that can touch it: most candidate
        # placements fail here, without the whole build's contact search
        k = next(j for j, b in enumerate(boxes) if b.id == first)
        lo, hi = np.array(boxes[k].lo), np.array(boxes[k].hi)
        near = [b for j, b in enumerate(boxes) if j == k or (np.all(np.array(b.lo) <= hi + TOUCH_TOL_M)
                                                                and np.all(np.array(b.hi) >= lo - TOUCH_TOL_M))]
        if _quick_fall(near, find_contacts(near), com_inset, only=near.index(boxes[k])):
            return False
    contacts = find_contacts(boxes)
    if _quick_fall(boxes, contacts, com_inset):
        return False
    prob = _Problem(boxes, mu, com_inset, contacts)
    # judge_statics' rays use the friction pyramid in both of its orientations (0 and half a side turned); both
    # must hold the unloaded build, or the two functions could differ on builds balanced at the friction limit
    for phi in (0.0, math.pi / FRICTION_SIDES):
        G = prob.generators(phi)
        k = G.cols
        x, _ = _LP(G, np.zeros(k), np.zeros(k), np.full(k, _INF), prob.b_eq, prob.b_eq).solve()
        if x is None:
            return False
    return True


def judge_statics(boxes: Sequence[Box], mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M,
                  contacts: list[Contact] | None = None) -> StaticsResult:
    """Does the build stand as rigid blocks, and what is its tilt margin? (See StaticsResult for conventions.)
    `contacts`: find_contacts(boxes) when the caller already has them (the removal map reuses one search)."""
    t0 = time.perf_counter()
    boxes = list(boxes)
    if not boxes:
        return StaticsResult(True, 90.0, (1.0, 0.0), 0.0, (90.0, 90.0))
    contacts = find_contacts(boxes) if contacts is None else contacts
    prob: _Problem | _Split = (_Problem(boxes, mu, com_inset, contacts) if len(boxes) <= SPLIT_MIN_BLOCKS
                               else _Split(boxes, mu, com_inset, contacts))

    def ms() -> float:
        return (time.perf_counter() - t0) * 1000

    # a box that provably falls (virtual work, no LP) skips the rays: their only use would be to find that out
    rays = {} if _quick_fall(boxes, contacts, com_inset) else prob.initial_rays()
    # the directions come in opposite pairs sharing one friction pyramid: r(d) >= 0 and r(-d) >= 0 put both
    # lambda d and -mu d in C, hence 0 by convexity; conversely 0 in C makes every r >= 0
    if not rays or any(r is None or r < -STABLE_TOL for r, _ in rays.values()):
        lam, duals = prob.rescue()
        if lam is None:
            s = prob.unbalanced()
            order = np.argsort(-s)
            mech = tuple(boxes[i].id for i in order if s[i] > MECHANISM_REL_TOL * max(s.max(), 1e-300))
            return StaticsResult(False, -90.0, (0.0, 0.0), ms(), (-90.0, -90.0), mech, prob.lps,
                                 len(prob.contacts))
        norm = float(np.hypot(*lam))
        # the rescue LP minimises a 16-gon norm: the Euclidean minimum lies between these bounds
        lo_deg, hi_deg = -_deg(norm), -_deg(norm * math.cos(math.pi / RESCUE_NORM_SIDES))
        fall = (float(-lam[0] / norm), float(-lam[1] / norm)) if norm > 0 else (0.0, 0.0)
        return StaticsResult(False, min(lo_deg, -1e-9), fall, ms(), (lo_deg, hi_deg), prob.mechanism(duals),
                             prob.lps, len(prob.contacts))

    # weakest direction: the ray ends p_k lie in C, so the triangle (0, p_k, p_k+1) does too and the margin in
    # that sector is at least the distance from 0 to the chord (lower bound); the smallest ray is an upper bound.
    # Refine the sector with the lowest bound at the chord's nearest point (exact in one step on a polygon edge).
    ray_lps = len(rays)
    while True:
        phis = sorted(rays)
        pts = [np.array([math.cos(p), math.sin(p)]) * max(rays[p][0], 0.0) for p in phis]
        upper_phi = min(phis, key=lambda p: rays[p][0])
        upper = max(rays[upper_phi][0], 0.0)
        lower, x, i = math.inf, None, 0
        for j in range(len(phis)):
            dist, near = _segment_distance(pts[j], pts[(j + 1) % len(phis)])
            if dist < lower:
                lower, x, i = dist, near, j
        if _deg(upper) - _deg(lower) <= TILT_TOL_DEG or ray_lps >= MAX_RAY_LPS:
            break
        a, b = phis[i], phis[(i + 1) % len(phis)]
        if b <= a:
            b += 2 * math.pi
        cand = math.atan2(x[1], x[0]) % (2 * math.pi)
        if not 1e-6 < (cand - a) % (2 * math.pi) < (b - a) - 1e-6:  # nearest point at a corner: bisect
            cand = ((a + b) / 2) % (2 * math.pi)
        r, duals = prob.ray(cand)
        ray_lps += 1
        rays[cand] = (r if r is not None else 0.0, duals)
    return StaticsResult(True, _deg(upper) + 0.0, (math.cos(upper_phi), math.sin(upper_phi)), ms(),
                         (_deg(lower), _deg(upper)), prob.mechanism(rays[upper_phi][1]), prob.lps,
                         len(prob.contacts))

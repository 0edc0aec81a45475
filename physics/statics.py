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
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from physics.contacts import TABLE, TOUCH_TOL_M, Contact, contact_corners, find_contacts
from physics.model import Box
from physics.units import DEFAULT_MU

#: Default centre-of-mass inset (metres): contact rectangles shrink by 1 mm so that a centre of mass exactly above
#: an edge (a knife-edge equilibrium no real block keeps) counts as falling; 1 mm is 2.5 % of the game's cube.
COM_INSET_M = 0.001
#: Sides of the friction pyramid (inscribed in the Coulomb cone). It is turned for each LP so that generators
#: point along, against and across the load direction: friction that resists the tilt (sliding) is exact;
#: components at 45 degrees to it are understated by up to 1 - cos(pi/4) = 29 % (never overstated). 4 sides keep
#: the 35-block LP half the size of 8 (measured 2x faster); warm starts do not help (the LP is very degenerate:
#: hundreds of pivots between neighbouring directions), so LP size is what counts.
FRICTION_SIDES = 4
#: Directions sampled first (every 45 degrees: the axes and diagonals, where axis-aligned builds are weakest).
INITIAL_DIRECTIONS = 8
#: The weakest-direction search stops when its certified lower and upper bounds on the margin are this close
#: (degrees); far below the 1-degree band that separates `stable` from `marginal`.
TILT_TOL_DEG = 0.05
#: At most this many ray LPs (8 initial + refinements): each costs ~4-8 ms for 35 blocks. Polygonal (tipping)
#: limits certify within the first 8-10; curved ones (whole-build sliding) stop here with their bounds reported.
MAX_RAY_LPS = 12
#: HiGHS options: presolve costs more than it saves on these small, well-scaled LPs (measured ~30 % slower).
HIGHS_OPTIONS = {"presolve": False}

#: Re-solve each friction-pyramid turn's model from the previous basis (only the load column changes): the LP is
#: so degenerate that this still takes ~60 % of a cold solve's pivots, but saves ~15 % of the 35-block time.
WARM_START = True

try:  # SciPy's bundled HiGHS object: lets one model be re-solved from the previous basis (warm start)
    from scipy.optimize._highspy import _core as _hc

    _HAVE_HIGHS = hasattr(_hc, "_Highs") and hasattr(_hc, "HighsLp")
except ImportError:  # pragma: no cover - older/newer SciPy: fall back to linprog, one cold solve per LP
    _hc = None
    _HAVE_HIGHS = False
#: Cap on the load multiplier (tan 89.4 deg): keeps every LP bounded; no real build reaches it.
LAMBDA_CAP = 100.0
#: lambda >= -STABLE_TOL counts as standing: solver noise on the normalised (order-1) problem is ~1e-9.
STABLE_TOL = 1e-7
#: A dual value (virtual velocity) above this fraction of the largest marks a block as part of a failure mode.
MECHANISM_REL_TOL = 1e-3
#: Sides of the polygon norm used to find the smallest rescuing tilt of a falling build (error <= 1 - cos(pi/16)).
RESCUE_NORM_SIDES = 16


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
        """The SPEC section 4 `statics` object (plus evidence when `detail`)."""
        d = {"stable": self.stable, "tilt_margin_deg": round(self.tilt_margin_deg, 2),
             "weakest_direction": [round(self.weakest_direction[0], 4) + 0.0, round(self.weakest_direction[1], 4) + 0.0],
             "ms": round(self.ms, 1)}
        if detail:
            d.update({"margin_bounds_deg": [round(v, 3) for v in self.margin_bounds_deg],
                      "mechanism": list(self.mechanism), "lps": self.lps, "contacts": self.contacts})
        return d


def _solve(A: sp.csc_matrix, b_eq: np.ndarray, c: np.ndarray, lo: np.ndarray,
           hi: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """min c.x s.t. A x = b_eq, lo <= x <= hi: (x, row duals), or (None, None) unless optimal.

    Uses SciPy's HiGHS object directly when present (skips linprog's input checks: ~20 % of a 35-block solve).
    """
    if not _HAVE_HIGHS:
        res = linprog(c, A_eq=A, b_eq=b_eq, bounds=np.column_stack([lo, hi]), method="highs",
                      options=HIGHS_OPTIONS)
        return (np.asarray(res.x), np.asarray(res.eqlin.marginals)) if res.status == 0 else (None, None)
    lp = _hc.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = A.shape[1], A.shape[0]
    lp.a_matrix_.format_ = _hc.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = c, lo, hi
    lp.row_lower_, lp.row_upper_ = b_eq, b_eq
    h = _hc._Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != _hc.HighsModelStatus.kOptimal:
        return None, None
    sol = h.getSolution()
    return np.asarray(sol.col_value), np.asarray(sol.row_dual)


class _Problem:
    """The equilibrium equations of one build, normalised to order-1 numbers, ready to solve for any direction."""

    def __init__(self, boxes: Sequence[Box], mu: float, inset: float,
                 contacts: list[Contact] | None = None) -> None:
        self.boxes = list(boxes)
        self.mu = mu
        n = len(boxes)
        self.n = n
        masses = np.array([b.mass for b in boxes], dtype=float)
        sizes = np.array([b.size for b in boxes], dtype=float)
        # lengths in units of the mean box size, forces in units of the mean weight: order-1 coefficients
        self.L = float(sizes.mean())
        self.m = masses / masses.mean()
        centres = np.array([b.centre for b in boxes], dtype=float)
        self.contacts: list[Contact] = find_contacts(boxes) if contacts is None else contacts
        c_idx, pts, axes = contact_corners(self.contacts, inset)
        a = np.array([self.contacts[k].a for k in c_idx], dtype=int)
        b = np.array([self.contacts[k].b for k in c_idx], dtype=int)
        self.horizontal = axes == 2
        # unit-force columns per corner: normal (along +axis on b) and, for horizontal contacts, tangential x / y
        self.N = self._columns(a, b, pts, np.eye(3)[axes], centres)
        h = self.horizontal
        self.Tx = self._columns(a[h], b[h], pts[h], np.tile([1.0, 0, 0], (h.sum(), 1)), centres)
        self.Ty = self._columns(a[h], b[h], pts[h], np.tile([0, 1.0, 0], (h.sum(), 1)), centres)
        self.Nh = self.N[:, np.flatnonzero(h)]
        self.Nv = self.N[:, np.flatnonzero(~h)]
        self.b_eq = np.zeros(6 * n)
        self.b_eq[2::6] = self.m  # contact forces carry the weight: sum f = m g e_z
        self._gen: dict[float, sp.csc_matrix] = {}
        self._models: dict[float, object] = {}

    def _columns(self, a: np.ndarray, b: np.ndarray, pts: np.ndarray, f: np.ndarray,
                 centres: np.ndarray) -> sp.csc_matrix:
        """Sparse (6n x k) matrix: column k = force f[k] at pts[k] on body b[k] and its reaction on body a[k]."""
        k = len(a)
        rows, cols, vals = [], [], []
        for body, sign in ((b, 1.0), (a, -1.0)):
            ok = body != TABLE
            if not ok.any():
                continue
            kk = np.flatnonzero(ok)
            r = (pts[kk] - centres[body[kk]]) / self.L
            ff = sign * f[kk]
            m = np.cross(r, ff)
            base = 6 * body[kk]
            for comp in range(3):
                rows += [base + comp, base + 3 + comp]
                cols += [kk, kk]
                vals += [ff[:, comp], m[:, comp]]
        if not rows:
            return sp.csc_matrix((6 * self.n, k))
        return sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(6 * self.n, k))

    def generators(self, phi: float = 0.0) -> sp.csc_matrix:
        """All contact-force columns with the friction pyramid turned so that one generator lies at angle phi."""
        key = round(phi % (2 * math.pi / FRICTION_SIDES), 12)
        if key not in self._gen:
            blocks = [self.Nv]
            for j in range(FRICTION_SIDES):
                t = key + 2 * math.pi * j / FRICTION_SIDES
                blocks.append(self.Nh + self.mu * (math.cos(t) * self.Tx + math.sin(t) * self.Ty))
            self._gen[key] = sp.hstack(blocks, format="csc")
        return self._gen[key]

    def load(self, d: tuple[float, float]) -> np.ndarray:
        """The column of a horizontal load multiplier in direction d (body force lambda m g d on every block)."""
        col = np.zeros(6 * self.n)
        col[0::6] = self.m * d[0]
        col[1::6] = self.m * d[1]
        return col

    def ray(self, phi: float) -> tuple[float | None, np.ndarray | None]:
        """Largest lambda with the load lambda * (cos phi, sin phi) in equilibrium (None: infeasible) and the
        duals of the equilibrium rows (the blocks' virtual velocities in the failure mode)."""
        G = self.generators(phi)
        if _HAVE_HIGHS and WARM_START:
            return self._ray_warm(phi, G)
        A = sp.hstack([G, sp.csc_matrix(self.load((math.cos(phi), math.sin(phi)))[:, None])], format="csc")
        k = A.shape[1]
        c = np.zeros(k)
        c[-1] = -1.0
        lo = np.zeros(k)
        hi = np.full(k, np.inf)
        lo[-1], hi[-1] = -LAMBDA_CAP, LAMBDA_CAP
        x, duals = _solve(A, self.b_eq, c, lo, hi)
        return (None, None) if x is None else (float(x[-1]), duals)

    def _ray_warm(self, phi: float, G: sp.csc_matrix) -> tuple[float | None, np.ndarray | None]:
        """Like ray(), keeping one HiGHS model per friction-pyramid turn: a new direction only rewrites the load
        column, and HiGHS restarts from the previous optimal basis."""
        key = round(phi % (2 * math.pi / FRICTION_SIDES), 12)
        k = G.shape[1]
        h = self._models.get(key)
        if h is None:
            A = sp.hstack([G, sp.csc_matrix(self.load((math.cos(phi), math.sin(phi)))[:, None])], format="csc")
            lp = _hc.HighsLp()
            lp.num_col_, lp.num_row_ = k + 1, A.shape[0]
            lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = k + 1, A.shape[0]
            lp.a_matrix_.format_ = _hc.MatrixFormat.kColwise
            lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
            c = np.zeros(k + 1)
            c[-1] = -1.0
            lp.col_cost_ = c
            lp.col_lower_ = np.concatenate([np.zeros(k), [-LAMBDA_CAP]])
            lp.col_upper_ = np.concatenate([np.full(k, np.inf), [LAMBDA_CAP]])
            lp.row_lower_, lp.row_upper_ = self.b_eq, self.b_eq
            h = _hc._Highs()
            h.setOptionValue("output_flag", False)
            h.setOptionValue("presolve", "off")
            h.passModel(lp)
            self._models[key] = h
        else:
            cx, cy = math.cos(phi), math.sin(phi)
            for i in range(self.n):
                h.changeCoeff(6 * i, k, float(self.m[i] * cx))
                h.changeCoeff(6 * i + 1, k, float(self.m[i] * cy))
        h.run()
        if h.getModelStatus() != _hc.HighsModelStatus.kOptimal:
            return None, None
        sol = h.getSolution()
        return float(sol.col_value[k]), np.asarray(sol.row_dual)

    def rescue(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The smallest horizontal load (lx, ly) (polygon norm) that holds a falling build, or None, and duals."""
        G = self.generators()
        k = G.shape[1]
        A = sp.hstack([G, sp.csc_matrix(self.load((1, 0))[:, None]), sp.csc_matrix(self.load((0, 1))[:, None]),
                       sp.csc_matrix((6 * self.n, 1))], format="csc")
        ang = 2 * np.pi * np.arange(RESCUE_NORM_SIDES) / RESCUE_NORM_SIDES
        A_ub = np.zeros((RESCUE_NORM_SIDES, k + 3))
        A_ub[:, k], A_ub[:, k + 1], A_ub[:, k + 2] = np.cos(ang), np.sin(ang), -1.0
        c = np.zeros(k + 3)
        c[-1] = 1.0
        bounds = [(0, None)] * k + [(-LAMBDA_CAP, LAMBDA_CAP)] * 2 + [(0, None)]
        res = linprog(c, A_ub=A_ub, b_ub=np.zeros(RESCUE_NORM_SIDES), A_eq=A, b_eq=self.b_eq, bounds=bounds,
                      method="highs")
        if res.status != 0:
            return None, None
        return res.x[k:k + 2], np.asarray(res.eqlin.marginals)

    def unbalanced(self) -> np.ndarray:
        """Per body, the smallest extra force+moment (L1, normalised) equilibrium needs: nonzero = cannot rest."""
        G = self.generators()
        k = G.shape[1]
        eye = sp.identity(6 * self.n, format="csc")
        A = sp.hstack([G, eye, -eye], format="csc")
        c = np.concatenate([np.zeros(k), np.ones(12 * self.n)])
        res = linprog(c, A_eq=A, b_eq=self.b_eq, bounds=(0, None), method="highs")
        s = np.abs(res.x[k:k + 6 * self.n]) + np.abs(res.x[k + 6 * self.n:])
        return s.reshape(self.n, 6).sum(axis=1)

    def mechanism(self, duals: np.ndarray | None) -> tuple[str, ...]:
        """Blocks that move in the failure mode: the LP duals are the blocks' virtual velocities (by size)."""
        if duals is None or self.n == 0:
            return ()
        v = np.abs(duals).reshape(self.n, 6).max(axis=1)
        if v.max() <= 0:
            return ()
        order = np.argsort(-v)
        return tuple(self.boxes[i].id for i in order if v[i] > MECHANISM_REL_TOL * v.max())


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
    pts = np.unique(pts.round(12), axis=0)

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
        k = G.shape[1]
        x, _ = _solve(G, prob.b_eq, np.zeros(k), np.zeros(k), np.full(k, np.inf))
        if x is None:
            return False
    return True


def judge_statics(boxes: Sequence[Box], mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M) -> StaticsResult:
    """Does the build stand as rigid blocks, and what is its tilt margin? (See StaticsResult for conventions.)"""
    t0 = time.perf_counter()
    boxes = list(boxes)
    if not boxes:
        return StaticsResult(True, 90.0, (1.0, 0.0), 0.0, (90.0, 90.0))
    prob = _Problem(boxes, mu, com_inset)

    def ms() -> float:
        return (time.perf_counter() - t0) * 1000

    rays: dict[float, tuple[float | None, np.ndarray | None]] = {}
    for k in range(INITIAL_DIRECTIONS):
        phi = 2 * math.pi * k / INITIAL_DIRECTIONS
        rays[phi] = prob.ray(phi)
    lps = INITIAL_DIRECTIONS
    # the directions come in opposite pairs sharing one friction pyramid: r(d) >= 0 and r(-d) >= 0 put both
    # lambda d and -mu d in C, hence 0 by convexity; conversely 0 in C makes every r >= 0
    if any(r is None or r < -STABLE_TOL for r, _ in rays.values()):
        lam, duals = prob.rescue()
        lps += 1
        if lam is None:
            s = prob.unbalanced()
            lps += 1
            order = np.argsort(-s)
            mech = tuple(boxes[i].id for i in order if s[i] > MECHANISM_REL_TOL * max(s.max(), 1e-300))
            return StaticsResult(False, -90.0, (0.0, 0.0), ms(), (-90.0, -90.0), mech, lps, len(prob.contacts))
        norm = float(np.hypot(*lam))
        # the rescue LP minimises a 16-gon norm: the Euclidean minimum lies between these bounds
        lo_deg, hi_deg = -_deg(norm), -_deg(norm * math.cos(math.pi / RESCUE_NORM_SIDES))
        fall = (float(-lam[0] / norm), float(-lam[1] / norm)) if norm > 0 else (0.0, 0.0)
        return StaticsResult(False, min(lo_deg, -1e-9), fall, ms(), (lo_deg, hi_deg), prob.mechanism(duals), lps,
                             len(prob.contacts))

    # weakest direction: the ray ends p_k lie in C, so the triangle (0, p_k, p_k+1) does too and the margin in
    # that sector is at least the distance from 0 to the chord (lower bound); the smallest ray is an upper bound.
    # Refine the sector with the lowest bound at the chord's nearest point (exact in one step on a polygon edge).
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
        if _deg(upper) - _deg(lower) <= TILT_TOL_DEG or lps >= MAX_RAY_LPS:
            break
        a, b = phis[i], phis[(i + 1) % len(phis)]
        if b <= a:
            b += 2 * math.pi
        cand = math.atan2(x[1], x[0]) % (2 * math.pi)
        if not 1e-6 < (cand - a) % (2 * math.pi) < (b - a) - 1e-6:  # nearest point at a corner: bisect
            cand = ((a + b) / 2) % (2 * math.pi)
        r, duals = prob.ray(cand)
        lps += 1
        rays[cand] = (r if r is not None else 0.0, duals)
    return StaticsResult(True, _deg(upper), (math.cos(upper_phi), math.sin(upper_phi)), ms(),
                         (_deg(lower), _deg(upper)), prob.mechanism(rays[upper_phi][1]), lps, len(prob.contacts))

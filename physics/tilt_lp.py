"""The statics judge's equilibrium LP of one build over friction-pyramid generators, solved ray by ray.

Unknowns are compression-only contact forces at the corners of each contact rectangle (shrunk by the centre-of-
mass inset). Horizontal contacts (tops on bottoms, bottoms on the table) carry Coulomb friction through a
pyramid of FRICTION_SIDES generators inscribed in the cone; vertical (side) contacts carry normal force only, since
friction there lets the LP invent squeezing forces that nothing produces. A ray is the largest horizontal body
force lambda * m * g * d (a table tilted by atan(lambda) towards d) that the build survives.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

import numpy as np

from physics.contacts import TABLE, Contact, contact_corners, find_contacts
from physics.lp import IPM_MIN_ROWS, LINPROG_OPTIONS, LP, ZERO_COEFF, Columns, cpus, highs
from physics.model import Box
from physics.symmetry import orbit_representatives, symmetries
from physics.threads import side_by_side

#: Sides of the friction pyramid (inscribed in the Coulomb cone). It is turned for each LP so that generators
#: point along, against and across the load direction: friction that resists the tilt (sliding) is exact;
#: components at 45 degrees to it are understated by up to 1 - cos(pi/4) = 29 % (never overstated). 4 sides keep
#: the 35-block LP half the size of 8 (measured 2x faster).
FRICTION_SIDES = 4
#: Directions sampled first (every 45 degrees: the axes and diagonals, where axis-aligned builds are weakest).
INITIAL_DIRECTIONS = 8
#: Re-solve each friction-pyramid turn's model from the previous basis (only the load column changes). The LP is
#: very degenerate, so a ray 90 degrees on still takes 45-105 % of a cold solve's pivots; over 51 start towers the
#: warm starts took 20 % fewer pivots in all than cold solves, and the model is built once per turn. (On a 200-block
#: slab of cubes one warm ray took 16,600 pivots and 3.2 s where a cold one takes ~1,800 and 0.06 s, while on random
#: piles of 150-250 blocks warm starts still halve the time: large builds keep them, and slabs are settled by the
#: piece bounds of physics.parts without their whole LP.)
WARM_START = True
#: The 8 initial rays come in two chains, one per friction-pyramid turn (axes / diagonals), that share nothing:
#: the second chain runs on a worker thread while the first runs here (HiGHS releases the GIL while it solves),
#: when the process may use more than one CPU. Same LPs, same order within each chain: same results either way.
PARALLEL_RAYS = True
#: How the ray and feasibility LPs are solved (physics.lp.LP): "auto" starts each on HiGHS's (warm) simplex and
#: hands a degenerate one to the interior-point method.
LP_METHOD = "auto"
#: Rays that a symmetry of the build maps onto each other are solved once (physics.symmetry).
USE_SYMMETRY = True
#: The smallest unit of the load multiplier an interior-point model is posed in (_scale).
MIN_LOAD_SCALE = 1e-4
#: Cap on the load multiplier (tan 89.4 deg): keeps every LP bounded; no real build reaches it.
LAMBDA_CAP = 100.0
#: lambda >= -STABLE_TOL counts as standing: solver noise on the normalised (order-1) problem is ~1e-9.
STABLE_TOL = 1e-7
#: A dual value (virtual velocity) above this fraction of the largest marks a block as part of a failure mode.
MECHANISM_REL_TOL = 1e-3
#: Sides of the polygon norm used to find the smallest rescuing tilt of a falling build (error <= 1 - cos(pi/16)).
RESCUE_NORM_SIDES = 16

_INF = math.inf


class TiltProblem:
    """The equilibrium equations of one build, normalised to order-1 numbers, ready to solve for any direction."""

    def __init__(self, boxes: Sequence[Box], mu: float, inset: float,
                 contacts: list[Contact] | None = None, held: Sequence[Box] = (), sides: int = FRICTION_SIDES) -> None:
        """`held` boxes (indices n, n+1, ... in `contacts`) are held in place like the table: contacts with them
        push on the free boxes, and they have no equations of their own (the bounds of SplitProblem). `sides`: of
        the friction pyramid, whose generators reach `mu` (physics.friction_models uses finer pyramids, and
        circumscribed ones as a pyramid of radius mu / cos(pi / sides))."""
        self.boxes = list(boxes)
        self.mu = mu
        self.sides = sides
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
        self._gen: dict[float, Columns] = {}
        self._models: dict[float, LP] = {}
        self.method = LP_METHOD
        # where the build stands on the table (its inset corners) and its centre of mass, normalised: the rigid
        # tipping bound that scales the load of an interior-point model (_scale)
        on_table = a == TABLE
        self._base = pts[on_table, :2] / self.L
        self._com = (self.m[:, None] * centres[:n]).sum(axis=0) / self.m.sum() / self.L if n else np.zeros(3)
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

    def _compress(self, rows: np.ndarray, vals: np.ndarray) -> Columns:
        """(k, 12) entries (rows ascending within each column) -> compressed columns without the zeros and the
        table's rows."""
        n6 = 6 * self.n
        valid = (np.abs(vals) > ZERO_COEFF) & (rows < n6)
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(valid.sum(axis=1), out=indptr[1:])
        return Columns(n6, indptr, rows[valid].astype(np.int32), vals[valid])

    @staticmethod
    def _key(phi: float, sides: int = FRICTION_SIDES) -> float:
        return round(phi % (2 * math.pi / sides), 12)

    def generators(self, phi: float = 0.0) -> Columns:
        """All contact-force columns with the friction pyramid turned so that one generator lies at angle phi:
        the side contacts' normals, then generator j of every horizontal corner for j = 0..FRICTION_SIDES-1."""
        key = self._key(phi, self.sides)
        if key not in self._gen:
            vals = []
            for j in range(self.sides):
                t = key + 2 * math.pi * j / self.sides
                # n + mu (cos t tx + sin t ty), evaluated in this order (the judge's results do not depend on
                # the last bit, but its pivots do, and identical matrices keep results comparable across versions)
                vals.append(self._h_normal + self.mu * (math.cos(t) * self._h_tx + math.sin(t) * self._h_ty))
            rows = np.concatenate([self._h_rows] * self.sides)
            self._gen[key] = Columns.hstack([self.Nv, self._compress(rows, np.concatenate(vals))])
        return self._gen[key]

    def load(self, d: tuple[float, float]) -> np.ndarray:
        """The values, on rows _load_rows, of a horizontal load multiplier in direction d (body force
        lambda m g d on every block)."""
        return np.column_stack([self.m * d[0], self.m * d[1]]).ravel()

    def load_column(self, d: tuple[float, float], keep_zeros: bool = False) -> Columns:
        return Columns.single(6 * self.n, self._load_rows, self.load(d), keep_zeros)

    def _scale(self, d: tuple[float, float]) -> float:
        """The unit of the load multiplier in an interior-point model: the build's rigid tipping bound towards d
        (the whole build turning about its base's edge is a failure mode, so r(d) <= s / h, s the reach of the
        base beyond the centre of mass along d, h the centre's height), when that is below 1. A tall build's rays
        are small (a 2,000-cube column's is 4.75e-4): in units of the bound they are of order 1, where the
        method's tolerances hold them to 1e-10; in units of 1 its regularisation of the KKT system moved that
        column's ray to 8e-7. The simplex's models keep the unit 1 (their results are unchanged)."""
        if self.method == "simplex" or (self.method == "auto" and 6 * self.n < IPM_MIN_ROWS) or not len(self._base):
            return 1.0
        reach = float((self._base @ np.asarray(d) - self._com[:2] @ np.asarray(d)).max())
        height = float(self._com[2])
        if reach <= 0 or height <= 0:
            return 1.0
        return min(1.0, max(reach / height, MIN_LOAD_SCALE))

    def ray(self, phi: float) -> tuple[float | None, np.ndarray | None]:
        """Largest lambda with the load lambda * (cos phi, sin phi) in equilibrium (None: infeasible) and the
        duals of the equilibrium rows (the blocks' virtual velocities in the failure mode).

        One HiGHS model per friction-pyramid turn: a new direction only rewrites the load column, and HiGHS
        restarts from the previous optimal basis (WARM_START)."""
        G = self.generators(phi)
        key = self._key(phi, self.sides)
        k = G.cols
        d = (math.cos(phi), math.sin(phi))
        unit = self._scale(d)
        scaled = (d[0] * unit, d[1] * unit)  # the load column of the multiplier in that unit
        lp = self._models.get(key) if WARM_START else None
        if lp is None:
            c = np.zeros(k + 1)
            c[k] = -1.0
            lo = np.zeros(k + 1)
            hi = np.full(k + 1, _INF)
            lo[k], hi[k] = -LAMBDA_CAP, LAMBDA_CAP
            # (every load entry kept, zeros too: an interior-point model keeps its solver while the pattern holds)
            lp = LP(Columns.hstack([G, self.load_column(scaled, keep_zeros=True)]), c, lo, hi, self.b_eq,
                    self.b_eq, method=self.method)
            if WARM_START:
                self._models[key] = lp
        else:
            lp.set_column(k, self._load_rows, self.load(scaled))
        x, duals = lp.solve()
        with self._lock:  # two chains may count at once
            self.lps += 1
        return (None, None) if x is None else (float(x[k]) * unit, duals)

    def lowest(self, phi: float) -> float | None:
        """Smallest lambda (most negative) with the load lambda * (cos phi, sin phi) in equilibrium, or None.
        A cold LP of its own: the piece bounds of SplitProblem ask it of small pieces only."""
        G = self.generators(phi)
        k = G.cols
        c = np.zeros(k + 1)
        c[k] = 1.0
        lo = np.zeros(k + 1)
        hi = np.full(k + 1, _INF)
        lo[k], hi[k] = -LAMBDA_CAP, LAMBDA_CAP
        x, _ = LP(Columns.hstack([G, self.load_column((math.cos(phi), math.sin(phi)))]), c, lo, hi,
                   self.b_eq, self.b_eq, method=self.method).solve()
        with self._lock:
            self.lps += 1
        return None if x is None else float(x[k])

    def initial_rays(self) -> dict[float, tuple[float | None, np.ndarray | None]]:
        """The INITIAL_DIRECTIONS rays, as two chains (one per friction-pyramid turn, each on its own model) run
        side by side when PARALLEL_RAYS allows. A chain stops at its first ray that shows the build cannot stand
        unloaded (r < 0 or infeasible): the margin then comes from rescue(), not from the rays. Each chain's LPs
        and their order do not depend on the threads, so neither do the results. A ray whose direction is the
        image of an earlier one under a symmetry of the build (physics.symmetry) is not solved but copied, after
        both chains."""
        phis = [2 * math.pi * k / INITIAL_DIRECTIONS for k in range(INITIAL_DIRECTIONS)]
        derived = orbit_representatives(phis, symmetries(self.boxes)) if USE_SYMMETRY else {}
        chains: dict[float, list[float]] = {}
        for phi in phis:
            if phi not in derived:
                chains.setdefault(self._key(phi, self.sides), []).append(phi)
        rays: dict[float, tuple[float | None, np.ndarray | None]] = {}

        def run(chain: list[float]) -> None:
            for phi in chain:
                rays[phi] = self.ray(phi)
                r = rays[phi][0]
                if r is None or r < -STABLE_TOL:
                    return

        todo = list(chains.values())
        if PARALLEL_RAYS and len(todo) > 1 and highs() and cpus() > 1:
            side_by_side(lambda: [run(chain) for chain in todo[1:]], lambda: run(todo[0]), "statics-rays")
        else:
            for chain in todo:
                run(chain)
        for phi, (psi, g) in derived.items():
            if psi in rays:  # (not when its chain stopped before it: the build falls either way)
                r, duals = rays[psi]
                rays[phi] = (r, g.duals(duals))
        return dict(sorted(rays.items()))

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
            cols.append(Columns.single(s + n6, np.concatenate([np.arange(s), eq_rows]),
                                        np.concatenate([trig, self.load(d)])))
        cols.append(Columns.single(s + n6, np.arange(s), -np.ones(s)))
        c = np.zeros(k + 3)
        c[-1] = 1.0
        lo = np.concatenate([np.zeros(k), [-LAMBDA_CAP, -LAMBDA_CAP, 0.0]])
        hi = np.concatenate([np.full(k, _INF), [LAMBDA_CAP, LAMBDA_CAP, _INF]])
        x, duals = LP(Columns.hstack(cols), c, lo, hi, np.concatenate([np.full(s, -_INF), self.b_eq]),
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
        one = Columns(n6, np.arange(n6 + 1, dtype=np.int64), eye, np.ones(n6))
        minus = Columns(n6, np.arange(n6 + 1, dtype=np.int64), eye, -np.ones(n6))
        A = Columns.hstack([G, one, minus])
        c = np.concatenate([np.zeros(k), np.ones(2 * n6)])
        x, _ = LP(A, c, np.zeros(k + 2 * n6), np.full(k + 2 * n6, _INF), self.b_eq, self.b_eq,
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

"""Contact forces of a standing build: the minimum-norm distribution (a convex QP on HiGHS).

A stack of rigid blocks is statically indeterminate: a block on four corners (or on two supports) can share its
weight among them in infinitely many ways, and rigid-body statics cannot say which one nature picks (that
depends on millimetre flatness and elasticity). `contact_forces` reports one well-defined member of that set:
the forces at the contact corners with the least sum of squares, subject to equilibrium of every block,
compression only and Coulomb friction (the exact cone |f_t| <= mu f_n at each corner of a horizontal contact; side
contacts push only). As in compas_cra's RBE solver, minimising the 2-norm spreads load as evenly as the geometry
allows and makes the answer unique (the objective is strictly convex).

Solver: HiGHS's QP solver took seconds on the 35-block start tower and stopped with residuals of 1e-5, so the QP
is solved through its dual, which is unconstrained and once differentiable: maximise
b.y - |P_K(A^T y)|^2 / 2 over y (one number per equilibrium row), where P_K projects onto the friction cones; the
forces are x = P_K(A^T y). A semismooth Newton method (generalised Hessian A J A^T, J the projection's
derivative, with a small Levenberg-Marquardt shift and an Armijo line search) converges quadratically; it stops
when the equilibrium residual is below SOLVE_TOL of the mean weight, so every reported distribution balances. It is *a* possible distribution, not *the* one: where it shows a contact nearly unloaded, another
equally valid distribution may load it; where it shows friction near its limit, equilibrium needs friction
there in every distribution only if the build is also close to sliding (compare the tilt margin).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from physics.bounds import ForceBounds, force_bounds
from physics.contacts import TABLE
from physics.equilibrium import OCTAGON, EquilibriumSystem
from physics.friction_need import CRITICAL_USE, FrictionNeed, friction_need
from physics.model import Box
from physics.statics import COM_INSET_M, stands
from physics.units import DEFAULT_MU, GRAVITY

#: A contact is "friction-critical" when every admissible distribution uses at least this share of its friction
#: (physics.friction_need; one distribution's friction use says nothing about that).
FRICTION_CRITICAL = CRITICAL_USE
#: The Newton solve stops when every equilibrium row balances to this fraction of the mean weight (moments: of the
#: mean weight times the mean box size).
SOLVE_TOL = 1e-10
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


@dataclass(frozen=True)
class ContactForces:
    """The answer of `contact_forces`: `stands` False (and no contacts) when no distribution exists. `contacts`:
    the minimum-norm distribution, one example; with bounds asked for, `bounds` (what every admissible
    distribution has in common, per contact in the same order, physics.bounds) and `friction` (the least friction
    coefficient and the friction-critical contacts, physics.friction_need)."""

    stands: bool
    contacts: tuple[ContactForce, ...]
    mu: float
    weight_n: float
    method: str = "minimum-norm"
    status: str = "optimal"
    ms: float = 0.0
    extra: dict = field(default_factory=dict)
    bounds: ForceBounds | None = field(default=None, repr=False)
    friction: FrictionNeed | None = field(default=None, repr=False)

    def most_loaded(self, k: int = 5) -> list[ContactForce]:
        return sorted(self.contacts, key=lambda c: -c.normal_n)[:k]

    def most_critical(self, k: int = 5) -> list[ContactForce]:
        return sorted((c for c in self.contacts if c.normal_n > 0), key=lambda c: -c.friction_use)[:k]

    def carried_by(self) -> dict[str, float]:
        """Per body: the total normal force it passes down or sideways to others (newtons): who carries whom."""
        out: dict[str, float] = {}
        for c in self.contacts:
            if c.a != "table":
                out[c.a] = out.get(c.a, 0.0) + c.normal_n
        return out

    def to_json(self, witnesses: bool = False) -> dict:
        """The JSON form (docs/formats.md); `witnesses`: every distribution a bound names, in full (large)."""
        out = {"stands": self.stands, "method": self.method, "mu": self.mu, "weight_n": round(self.weight_n, 6),
               "friction_critical_at": FRICTION_CRITICAL, "status": self.status,
               "contacts": [c.to_json() for c in self.contacts]}
        if self.bounds is not None:
            critical = set(self.friction.critical) if self.friction is not None else set()
            for k, (c, b) in enumerate(zip(out["contacts"], self.bounds.contacts, strict=True)):
                c["bounds"] = b.to_json() | {"friction_critical": k in critical}
        if self.friction is not None:
            out["least_mu"] = self.friction.to_json() | {"witness": self.extra.get("least_mu_witness", -1)}
        if witnesses and self.bounds is not None:
            out["distributions"] = [_compact(self.bounds.system, x) for x in self.bounds.distributions]
        return out


def _compact(sys_: EquilibriumSystem, x: np.ndarray) -> list[list[float]]:
    """A witness distribution, one row per contact: the resultant on b (N), its point (m), the torsion (N m)."""
    a = contact_arrays(sys_, x)
    rows = np.concatenate([a["force"], a["point"], a["torsion_nm"][:, None]], axis=1)
    return (np.round(rows, 9) + 0.0).tolist()


def contact_forces(boxes: Sequence[Box], mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M,
                   bounds: bool = False) -> ContactForces:
    """The minimum-norm contact force distribution of a build (module docstring), per contact rectangle; with
    `bounds`, also the bounds of every contact's force over all admissible distributions (physics.bounds) and the
    friction the build needs (physics.friction_need; for a falling build, the coefficient that would hold it).

    Uses the same contacts and inset corners as the statics judge, with the friction octagon (which contains the
    judge's pyramids), so a build the judge finds standing always has a distribution here; one it finds falling
    gets `stands=False` and none.
    """
    t0 = time.perf_counter()
    boxes = list(boxes)
    weight = sum(b.mass for b in boxes) * GRAVITY
    if not boxes:
        return ContactForces(True, (), mu, 0.0)
    if not stands(boxes, mu=mu, com_inset=com_inset):
        need = friction_need(EquilibriumSystem(boxes, mu, com_inset), stands=False) if bounds else None
        return ContactForces(False, (), mu, weight, status="falls", ms=(time.perf_counter() - t0) * 1000,
                             friction=need)
    sys_ = EquilibriumSystem(boxes, mu, com_inset)
    x, iterations = min_norm_forces(sys_)
    method, status = "minimum-norm", "optimal"
    if x is None:  # not converged (never seen): report a feasible distribution of the LP, and say so
        sol = sys_.solve()
        x, method, status = sol.x, "feasible (LP vertex)", "newton-not-converged"
        if x is None:
            return ContactForces(False, (), mu, weight, status=sol.status, ms=(time.perf_counter() - t0) * 1000)
    found = need = None
    extra_w = -1
    if bounds:
        found = force_bounds(sys_, [x])
        need = friction_need(sys_, stands=True)
        if need.witness is not None and found is not None:
            found.distributions.append(need.witness)
            extra_w = len(found.distributions) - 1
    return ContactForces(True, tuple(per_contact(sys_, x)), mu, weight, method, status,
                         (time.perf_counter() - t0) * 1000, {"newton_iterations": iterations, "least_mu_witness": extra_w},
                         found, need)


def _octagon_geometry(mu: float) -> tuple[np.ndarray, np.ndarray]:
    """The friction octagon cone's facet normals g_j (a_j . t - mu cos(pi/K) n <= 0, rows (n, tx, ty)) and edge
    rays r_j = (1, mu v_j), as in physics.equilibrium."""
    half = math.pi / OCTAGON
    t = (2 * np.arange(OCTAGON) + 1) * half
    g = np.stack([np.full(OCTAGON, -mu * math.cos(half)), np.cos(t), np.sin(t)], axis=1)
    v = 2 * half * np.arange(OCTAGON)
    r = np.stack([np.ones(OCTAGON), mu * np.cos(v), mu * np.sin(v)], axis=1)
    return g, r


def _project(z: np.ndarray, mu: float, horizontal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Projection of each corner's (n, tx, ty) onto its friction set (horizontal corners: the octagon cone of
    physics.equilibrium, the set the bounds and the push test use; side corners: n >= 0, t = 0), and its
    derivative as a (corners, 3, 3) array.

    The projection onto a polyhedral cone lies on one of its faces: the point itself when inside, its foot on one of
    the 8 facet planes, on one of the 8 edge rays, or the apex. Every candidate inside the cone is tried; the
    nearest is the projection (it is unique), and the derivative is that face's projector."""
    k = len(z)
    p = np.zeros_like(z)
    J = np.zeros((k, 3, 3))
    h = np.flatnonzero(horizontal)
    if len(h):
        zh = z[h]
        g, r = _octagon_geometry(mu)
        tol = 1e-12 * (1.0 + np.abs(zh).max(axis=1))
        # candidates (corners, 1 + 8 + 8 + 1, 3): itself, facet feet, ray feet, apex
        gz = zh @ g.T  # (corners, 8)
        feet = zh[:, None, :] - (np.maximum(gz, 0.0) / (g * g).sum(axis=1))[:, :, None] * g[None, :, :]
        rz = np.maximum(zh @ r.T, 0.0) / (r * r).sum(axis=1)
        rays = rz[:, :, None] * r[None, :, :]
        cand = np.concatenate([zh[:, None, :], feet, rays, np.zeros((len(h), 1, 3))], axis=1)
        inside = ((cand @ g.T) <= tol[:, None, None]).all(axis=2)
        dist = np.where(inside, ((cand - zh[:, None, :]) ** 2).sum(axis=2), np.inf)
        best = dist.argmin(axis=1)
        p[h] = cand[np.arange(len(h)), best]
        eye = np.eye(3)
        proj = np.concatenate([eye[None], eye[None] - g[:, :, None] * g[:, None, :] / (g * g).sum(axis=1)[:, None, None],
                               r[:, :, None] * r[:, None, :] / (r * r).sum(axis=1)[:, None, None], np.zeros((1, 3, 3))])
        Jh = proj[best]
        ray_idx = best - 1 - OCTAGON
        behind = (ray_idx >= 0) & (ray_idx < OCTAGON) & (rz[np.arange(len(h)), np.clip(ray_idx, 0, OCTAGON - 1)] <= 0)
        Jh[behind] = 0.0
        J[h] = Jh
    side = ~horizontal
    pos = side & (z[:, 0] > 0)
    p[pos, 0] = z[pos, 0]
    J[pos, 0, 0] = 1.0
    return p, J


def min_norm_forces(sys_: EquilibriumSystem, tol: float | None = None,
                    max_iter: int = 200) -> tuple[np.ndarray | None, int]:
    """The minimum-norm forces (normalised columns of sys_) by semismooth Newton on the dual (module docstring);
    (None, iterations) when it does not converge."""
    y0 = np.zeros(6 * sys_.n)
    y0[2::6] = sys_.centres[:, 2] / sys_.L + 1.0  # start: higher bodies lift (every contact from below pushes)
    p, _, it = dual_newton(sys_, y0, tol=tol, max_iter=max_iter)
    return p, it


def dual_newton(sys_: EquilibriumSystem, y0: np.ndarray, metric: np.ndarray | None = None, eps: float = 1.0,
                tol: float | None = None, max_iter: int = 200) -> tuple[np.ndarray | None, np.ndarray, int]:
    """Semismooth Newton on max_y b.y - y.M y / 2 - |P_K(A^T y)|^2 / (2 eps) (M = diag(metric), 0 when None):
    the dual of min over forces x in the friction sets of eps |x|^2 / 2 + |b - A x|^2_(M^-1) / 2. With M = 0 and
    eps = 1 that is the minimum-norm distribution (b = A x exactly); with M the blocks' inertia and a small eps it
    is Gauss's least constraint, and y the blocks' accelerations (physics.failure). Returns (the forces
    P_K(A^T y) / eps as sys_'s force columns, or None when it does not converge; y; iterations)."""
    import scipy.sparse as sp  # noqa: PLC0415 - sparse linear algebra: no BLAS threads (they thrash on 2 cores)
    from scipy.sparse.linalg import spsolve  # noqa: PLC0415

    tol = SOLVE_TOL if tol is None else tol
    b = sys_.b_eq
    mu = sys_.mu
    m = len(b)
    Mv = np.zeros(m) if metric is None else np.asarray(metric, dtype=float)
    # corners as (n, tx, ty) triples: side corners get two dummy columns that stay zero
    k = len(sys_.corner_contact)
    horizontal = sys_.corner_axis == 2
    slot = 3 * sys_.col_corner + sys_.col_comp
    col, row, val = sys_.eq
    A = sp.csr_matrix((val, (row, slot[col])), shape=(m, 3 * k))
    At = A.T.tocsr()
    # J's sparsity: the 3x3 block of every corner
    jr = (3 * np.arange(k)[:, None, None] + np.arange(3)[None, :, None]).repeat(3, axis=2).ravel()
    jc = (3 * np.arange(k)[:, None, None] + np.arange(3)[None, None, :]).repeat(3, axis=1).ravel()
    eye = sp.identity(m, format="csc")
    M = sp.diags(Mv, format="csc")
    y = np.asarray(y0, dtype=float).copy()

    def dual(y: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        z = (At @ y).reshape(k, 3)
        p, J = _project(z, mu, horizontal)
        flat = p.ravel()
        return (float(b @ y - 0.5 * y @ (Mv * y) - 0.5 * flat @ flat / eps), flat, J,
                b - Mv * y - A @ flat / eps)

    val_, p, J, g = dual(y)
    scale = max(1.0, float(np.abs(b).max()))
    for it in range(1, max_iter + 1):
        if float(np.abs(g).max()) <= tol * scale:
            return p[slot] / eps, y, it - 1
        Jm = sp.csr_matrix((J.ravel(), (jr, jc)), shape=(3 * k, 3 * k))
        H = (A @ Jm @ At).tocsc() / eps + M
        shift = min(1e-2, float(np.linalg.norm(g))) + 1e-12
        step = spsolve(H + shift * eye, g)
        if not np.all(np.isfinite(step)):
            step = g
        t = 1.0
        while True:
            val2, p2, J2, g2 = dual(y + t * step)
            if val2 >= val_ + 1e-4 * t * float(g @ step) or t < 1e-10:
                break
            t *= 0.5
        y, val_, p, J, g = y + t * step, val2, p2, J2, g2
    return None, y, max_iter


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

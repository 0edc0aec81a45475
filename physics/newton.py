"""The semismooth Newton method behind the minimum-norm forces (physics.forces) and a falling build's motion
(physics.failure): the dual of a quadratic program over forces in the friction sets, unconstrained and once
differentiable, solved with the projection onto those sets.
"""

from __future__ import annotations

import math

import numpy as np

from physics.equilibrium import OCTAGON, EquilibriumSystem

#: The Newton solve stops when every equilibrium row balances to this fraction of the mean weight (moments: of the
#: mean weight times the mean box size).
SOLVE_TOL = 1e-10


def _octagon_geometry(mu: float) -> tuple[np.ndarray, np.ndarray]:
    """The friction octagon cone's facet normals g_j (a_j . t - mu cos(pi/K) n <= 0, rows (n, tx, ty)) and edge
    rays r_j = (1, mu v_j), as in physics.equilibrium."""
    half = math.pi / OCTAGON
    t = (2 * np.arange(OCTAGON) + 1) * half
    g = np.stack([np.full(OCTAGON, -mu * math.cos(half)), np.cos(t), np.sin(t)], axis=1)
    v = 2 * half * np.arange(OCTAGON)
    r = np.stack([np.ones(OCTAGON), mu * np.cos(v), mu * np.sin(v)], axis=1)
    return g, r


def project(z: np.ndarray, mu: float, horizontal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
        p, J = project(z, mu, horizontal)
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

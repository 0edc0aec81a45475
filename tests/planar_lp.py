"""An independent planar statics LP for the friction tests: builds whose boxes all span the same y range are
judged in the x-z plane, where Coulomb's cone is exact with two generators (n + mu t, n - mu t). Written from
scratch on scipy's linprog (no code of physics' judge), with the same model: contact segments shrunk by the
centre-of-mass inset at both ends, compression only, friction on horizontal contacts, none on side faces."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

TOUCH = 1e-6


def _segments(boxes, inset: float):
    """(a, b, normal axis 0 = x / 1 = z, two end points (x, z)) of every contact; a = -1 is the table."""
    lo = np.array([[b.lo[0], b.lo[2]] for b in boxes])
    hi = lo + np.array([[b.size[0], b.size[2]] for b in boxes])
    out = []

    def seg(u0, u1, fixed, axis):
        if u1 - u0 >= 2 * inset:
            u0, u1 = u0 + inset, u1 - inset
        else:
            u0 = u1 = (u0 + u1) / 2
        return [(fixed, u) if axis == 0 else (u, fixed) for u in (u0, u1)]

    for j in range(len(boxes)):
        if abs(lo[j, 1]) < TOUCH:
            out.append((-1, j, 1, seg(lo[j, 0], hi[j, 0], 0.0, 1)))
    for i in range(len(boxes)):
        for j in range(len(boxes)):
            if i == j:
                continue
            for axis in (0, 1):
                other = 1 - axis
                if abs(hi[i, axis] - lo[j, axis]) < TOUCH:
                    u0, u1 = max(lo[i, other], lo[j, other]), min(hi[i, other], hi[j, other])
                    if u1 - u0 > TOUCH:
                        out.append((i, j, axis, seg(u0, u1, hi[i, axis], axis)))
    return out


def planar_stands(boxes, mu: float, inset: float = 0.001, g: float = 9.81) -> bool:
    """Is there a planar force distribution balancing every box (3 equations each) at coefficient mu?"""
    n = len(boxes)
    c = np.array([[b.lo[0] + b.size[0] / 2, b.lo[2] + b.size[2] / 2] for b in boxes])
    cols = []
    for a, b, axis, pts in _segments(boxes, inset):
        nrm = np.array([1.0, 0.0]) if axis == 0 else np.array([0.0, 1.0])
        gens = [nrm] if axis == 0 else [nrm + mu * np.array([1.0, 0.0]), nrm - mu * np.array([1.0, 0.0])]
        for p in pts:
            for f in gens:
                col = np.zeros(3 * n)
                for body, sign in ((b, 1.0), (a, -1.0)):
                    if body < 0:
                        continue
                    r = np.array(p) - c[body]
                    col[3 * body:3 * body + 3] += sign * np.array([f[0], f[1], r[0] * f[1] - r[1] * f[0]])
                cols.append(col)
    if not cols:
        return False
    A = np.array(cols).T
    w = np.array([b.mass * g for b in boxes])
    rhs = np.zeros(3 * n)
    rhs[1::3] = w
    scale = w.mean()
    res = linprog(np.zeros(A.shape[1]), A_eq=A, b_eq=rhs / scale, bounds=(0, None), method="highs")
    return res.status == 0


def planar_least_mu(boxes, inset: float = 0.001, tol: float = 1e-5, mu_max: float = 3.0) -> float | None:
    """The least coefficient at which planar_stands holds, by bisection (None: not even at mu_max)."""
    if planar_stands(boxes, 0.0, inset):
        return 0.0
    if not planar_stands(boxes, mu_max, inset):
        return None
    lo, hi = 0.0, mu_max
    while hi - lo > tol:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if planar_stands(boxes, mid, inset) else (mid, hi)
    return hi

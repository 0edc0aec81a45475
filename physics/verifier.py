"""Check a `tower-certificate/1` document with numpy alone: no LP, no code shared with the judge.

The whole method is on one page of docs/physics.md ("Certificates"), so that anyone can re-implement it:

- the boxes: positive sizes and masses, none below the table, no two overlapping;
- *stands*: every force acts at a point of a real contact (the two faces touch, the point lies in their overlap
  shrunk by the centre-of-mass inset), pushes (compression only), its friction part lies in the cone
  |f_t| <= mu f_n (side contacts: none), and every block is balanced: the forces on it plus its weight sum to zero,
  and so do their moments about its centre;
- *falls*: with each block's virtual velocity v and angular velocity w, at every corner p of every contact the
  verifier finds itself (all touching faces with positive overlap, and the table), the relative velocity
  u = (v_b + w_b x (p - c_b)) - (v_a + w_a x (p - c_a)) separates at least mu times as fast as it slides
  (u_n >= mu |u_t|; side contacts u_n >= 0), so any force the cone allows does no negative work on it, while
  gravity does positive work (-g sum m_i v_i,z > 0): by the principle of virtual work (Farkas' lemma) no
  distribution of such forces can balance the blocks.

Each check allows the certificate's stated tolerances (relative to the mean weight, the mean box size and the
fastest box corner). `verify` returns a Report: what was checked, the worst residual of each check, and the first
check that failed with where; BadCertificate is malformed input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

FORMAT = "tower-certificate/1"


class BadCertificate(ValueError):
    """The document is no certificate (a missing or mistyped field, an unknown block)."""


@dataclass
class Report:
    """`checks`: (what, worst value, allowed) per check made; `failed`: the check that failed and where (None:
    verified)."""

    claim: str
    checks: list[tuple[str, float, float]] = field(default_factory=list)
    failed: str | None = None

    @property
    def ok(self) -> bool:
        return self.failed is None

    def check(self, what: str, worst: float, allowed: float, where: str) -> bool:
        self.checks.append((what, worst, allowed))
        if worst > allowed and self.failed is None:
            self.failed = f"{what}: {where} ({worst:.3g} where {allowed:.3g} is allowed)"
        return worst <= allowed

    def lines(self) -> list[str]:
        out = [f"claim: {self.claim}"]
        out += [f"{'ok    ' if w <= a else 'FAILED'} {what}: worst {w:.3g} (allowed {a:.3g})"
                for what, w, a in self.checks]
        scaled = [(w / a, what) for what, w, a in self.checks if a > 0]
        if scaled:
            ratio, what = max(scaled)
            out.append(f"worst residual: {ratio:.3g} of its tolerance ({what})")
        out.append("verified" if self.ok else f"refuted: {self.failed}")
        return out


def _num(v: Any, where: str, n: int | None = None) -> np.ndarray:
    a = np.asarray(v, dtype=object)
    if n is not None and a.shape != (n,):
        raise BadCertificate(f"{where}: expected a list of {n} numbers")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in a.ravel()):
        raise BadCertificate(f"{where}: expected numbers")
    out = a.astype(float)
    if not np.all(np.isfinite(out)):
        raise BadCertificate(f"{where}: expected finite numbers")
    return out


def _vectors(forces: list, here: str) -> tuple[np.ndarray, np.ndarray]:
    """The points and forces of one contact's list as (k, 3) arrays; malformed entries are named."""
    try:
        pts = np.array([e["point"] for e in forces], dtype=float).reshape(-1, 3)
        fs = np.array([e["force"] for e in forces], dtype=float).reshape(-1, 3)
        if len(pts) == len(fs) == len(forces) and np.isfinite(pts).all() and np.isfinite(fs).all() and not any(
                isinstance(x, bool) for e in forces for x in (*e["point"], *e["force"])):
            return pts, fs
    except (KeyError, TypeError, ValueError):
        pass
    for fi, e in enumerate(forces):  # the slow way, to say where
        _num(_get(e, "point", f"{here}.forces[{fi}]"), f"{here}.forces[{fi}].point", 3)
        _num(_get(e, "force", f"{here}.forces[{fi}]"), f"{here}.forces[{fi}].force", 3)
    raise BadCertificate(f"{here}.forces: expected points and forces of 3 numbers")  # pragma: no cover


def _get(d: Any, key: str, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise BadCertificate(f"{where}: missing {key!r}")
    return d[key]


def verify(doc: Any) -> Report:
    """Check the certificate `doc` (the parsed JSON); BadCertificate when it is malformed."""
    if _get(doc, "format", "$") != FORMAT:
        raise BadCertificate(f"$.format: expected {FORMAT!r}")
    claim = _get(doc, "claim", "$")
    if claim not in ("stands", "falls"):
        raise BadCertificate("$.claim: expected 'stands' or 'falls'")
    model, tol = _get(doc, "model", "$"), _get(doc, "tolerance", "$")
    mu, inset, g, touch = (float(_num(_get(model, k, "$.model"), f"$.model.{k}", None))
                           for k in ("mu", "com_inset_m", "gravity_m_s2", "touch_tol_m"))
    tols = {k: float(_num(_get(tol, k, "$.tolerance"), f"$.tolerance.{k}"))
            for k in ("balance", "force", "point_m", "velocity", "power")}
    raw = _get(doc, "boxes", "$")
    if not isinstance(raw, list) or not raw:
        raise BadCertificate("$.boxes: expected a non-empty list")
    ids = [str(_get(b, "id", f"$.boxes[{i}]")) for i, b in enumerate(raw)]
    if len(set(ids)) != len(ids):
        raise BadCertificate("$.boxes: ids are not unique")
    index = {b: i for i, b in enumerate(ids)}
    lo = np.array([_num(_get(b, "lo", f"$.boxes[{i}]"), f"$.boxes[{i}].lo", 3) for i, b in enumerate(raw)])
    size = np.array([_num(_get(b, "size", f"$.boxes[{i}]"), f"$.boxes[{i}].size", 3) for i, b in enumerate(raw)])
    mass = np.array([float(_num(_get(b, "mass_kg", f"$.boxes[{i}]"), f"$.boxes[{i}].mass_kg"))
                     for i, b in enumerate(raw)])
    hi, centre = lo + size, lo + size / 2
    weight, length = float(mass.mean() * g), float(size.mean())
    rep = Report(claim)

    # the boxes: real solids, above the table, not inside each other
    bad = np.flatnonzero((size.min(axis=1) <= 0) | (mass <= 0))
    rep.check("positive sizes and masses", float(len(bad)), 0, f"box {ids[bad[0]]}" if len(bad) else "")
    rep.check("no box below the table", max(0.0, float(-lo[:, 2].min())), touch,
              f"box {ids[int(np.argmin(lo[:, 2]))]}")
    depth = np.minimum(hi[:, None, :], hi[None, :, :]) - np.maximum(lo[:, None, :], lo[None, :, :])
    pen = depth.min(axis=2)
    np.fill_diagonal(pen, 0.0)
    i, j = np.unravel_index(int(np.argmax(pen)), pen.shape)
    rep.check("no two boxes overlap (m)", max(0.0, float(pen.max())), touch, f"boxes {ids[i]} and {ids[j]}")
    if not rep.ok:
        return rep
    if claim == "stands":
        _stands(doc, rep, index, ids, lo, hi, centre, mass, mu, inset, g, touch, tols, weight, length)
    else:
        _falls(doc, rep, index, ids, lo, hi, centre, mass, mu, inset, g, touch, tols)
    return rep


def _face(a: int | None, b: int, lo: np.ndarray, hi: np.ndarray, touch: float) -> tuple[int, float, np.ndarray] | None:
    """(normal axis, plane, overlap rectangle [lo0, hi0, lo1, hi1] in the other two axes) of a face of a (None:
    the table) touching a face of b with positive area, b on the +axis side; None when they do not touch."""
    if a is None:
        return (2, 0.0, np.array([lo[b, 0], hi[b, 0], lo[b, 1], hi[b, 1]])) if abs(lo[b, 2]) <= touch else None
    for k in (2, 0, 1):
        if abs(hi[a, k] - lo[b, k]) <= touch:
            o = [m for m in range(3) if m != k]
            r = np.array([max(lo[a, o[0]], lo[b, o[0]]), min(hi[a, o[0]], hi[b, o[0]]),
                          max(lo[a, o[1]], lo[b, o[1]]), min(hi[a, o[1]], hi[b, o[1]])])
            if r[1] - r[0] > touch and r[3] - r[2] > touch:
                return k, float(hi[a, k]), r
    return None


def _inset(r: np.ndarray, inset: float) -> np.ndarray:
    """The rectangle shrunk by the inset on every side; a side shorter than twice the inset becomes its mid-line."""
    out = r.copy()
    for s in (0, 2):
        if r[s + 1] - r[s] >= 2 * inset:
            out[s], out[s + 1] = r[s] + inset, r[s + 1] - inset
        else:
            out[s] = out[s + 1] = (r[s] + r[s + 1]) / 2
    return out


def _stands(doc: dict, rep: Report, index: dict, ids: list, lo, hi, centre, mass, mu, inset, g, touch, tols,
            weight, length) -> None:
    contacts = _get(doc, "contacts", "$")
    if not isinstance(contacts, list):
        raise BadCertificate("$.contacts: expected a list")
    rows: list[tuple] = []  # per force: a (-1: table), b, normal axis, plane, inset rectangle, point, force, where
    for ci, c in enumerate(contacts):
        here = f"$.contacts[{ci}]"
        a_id, b_id = str(_get(c, "a", here)), str(_get(c, "b", here))
        if b_id not in index or (a_id != "table" and a_id not in index):
            raise BadCertificate(f"{here}: unknown block {a_id if b_id in index else b_id!r}")
        a, b = (None if a_id == "table" else index[a_id]), index[b_id]
        face = _face(a, b, lo, hi, touch)
        if face is None:
            rep.check("forces act on touching faces", 1.0, 0.0, f"{here}: {a_id} and {b_id} do not touch")
            return
        k, plane, rect = face
        if not np.allclose(_num(_get(c, "normal", here), f"{here}.normal", 3), np.eye(3)[k]):
            rep.check("forces act on touching faces", 1.0, 0.0, f"{here}: the normal is not the faces' normal")
            return
        r = _inset(rect, inset)
        forces = _get(c, "forces", here)
        if not isinstance(forces, list):
            raise BadCertificate(f"{here}.forces: expected a list")
        pts, fs = _vectors(forces, here)
        for fi in range(len(forces)):
            rows.append((-1 if a is None else a, b, k, plane, r, pts[fi], fs[fi],
                         f"{here}.forces[{fi}] ({a_id} on {b_id})"))
    n = len(ids)
    F, M = np.zeros((n, 3)), np.zeros((n, 3))
    F[:, 2] -= mass * g
    if rows:
        a = np.array([x[0] for x in rows])
        b = np.array([x[1] for x in rows])
        k = np.array([x[2] for x in rows])
        plane = np.array([x[3] for x in rows])
        r = np.array([x[4] for x in rows])
        p = np.array([x[5] for x in rows])
        f = np.array([x[6] for x in rows])
        m = np.arange(len(rows))
        o0, o1 = np.where(k == 0, 1, 0), np.where(k == 2, 1, 2)  # the two in-plane axes, ascending
        off = np.max([np.abs(p[m, k] - plane), r[:, 0] - p[m, o0], p[m, o0] - r[:, 1], r[:, 2] - p[m, o1],
                      p[m, o1] - r[:, 3], np.zeros(len(m))], axis=0)
        fn, ft = f[m, k], np.hypot(f[m, o0], f[m, o1])
        push = np.maximum(-fn, 0.0) / weight
        cone = np.maximum(ft - np.where(k == 2, mu * np.maximum(fn, 0.0), 0.0), 0.0) / weight
        for what, val, allowed in (("force points inside their contact areas (m)", off, tols["point_m"]),
                                   ("compression only (mean weights)", push, tols["force"]),
                                   (f"friction inside the cone mu = {mu:g}, none on side faces (mean weights)",
                                    cone, tols["force"])):
            rep.check(what, float(val.max()), allowed, rows[int(np.argmax(val))][7])
        np.add.at(F, b, f)
        np.add.at(M, b, np.cross(p - centre[b], f))
        on = a >= 0
        np.add.at(F, a[on], -f[on])
        np.add.at(M, a[on], -np.cross(p[on] - centre[a[on]], f[on]))
    res = np.maximum(np.abs(F).max(axis=1) / weight, np.abs(M).max(axis=1) / (weight * length))
    rep.check("every block balanced, forces and moments (mean weights)", float(res.max()), tols["balance"],
              f"block {ids[int(np.argmax(res))]}")


def _falls(doc: dict, rep: Report, index: dict, ids: list, lo, hi, centre, mass, mu, inset, g, touch,
           tols) -> None:
    mech = _get(doc, "mechanism", "$")
    if not isinstance(mech, list):
        raise BadCertificate("$.mechanism: expected a list")
    n = len(ids)
    v, w = np.zeros((n, 3)), np.zeros((n, 3))  # a block not named stays at rest
    for mi, e in enumerate(mech):
        here = f"$.mechanism[{mi}]"
        bid = str(_get(e, "block", here))
        if bid not in index:
            raise BadCertificate(f"{here}: unknown block {bid!r}")
        v[index[bid]] = _num(_get(e, "velocity", here), f"{here}.velocity", 3)
        w[index[bid]] = _num(_get(e, "angular_velocity", here), f"{here}.angular_velocity", 3)
    # the fastest box corner sets the scale of the velocity tolerance
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    arms = signs[None, :, :] * ((hi - lo) / 2)[:, None, :]
    speed = float(np.linalg.norm(v[:, None, :] + np.cross(w[:, None, :], arms), axis=2).max())
    if speed <= 0:
        rep.check("gravity does positive work (of the weight times the fastest corner's speed)", 1.0, 0.0,
                  "nothing moves")
        return

    def at(i: int | None, p: np.ndarray) -> np.ndarray:
        return np.zeros(3) if i is None else v[i] + np.cross(w[i], p - centre[i])

    worst, where, count = 0.0, "", 0
    # candidate pairs (a's +axis face in the plane of b's -axis face on some axis), then each one exactly
    near = np.zeros((n, n), dtype=bool)
    for k in range(3):
        near |= np.abs(hi[:, None, k] - lo[None, :, k]) <= touch
    np.fill_diagonal(near, False)
    pairs = [(None, b) for b in range(n)] + list(zip(*np.nonzero(near), strict=True))
    for a, b in pairs:
        face = _face(a, b, lo, hi, touch)
        if face is None:
            continue
        k, plane, rect = face
        r = _inset(rect, inset)
        o = [m for m in range(3) if m != k]
        for s, t in ((r[0], r[2]), (r[0], r[3]), (r[1], r[2]), (r[1], r[3])):
            p = np.zeros(3)
            p[k], p[o[0]], p[o[1]] = plane, s, t
            u = at(b, p) - at(a, p)
            slide = float(np.hypot(*u[o]))
            gap = u[k] - (mu * slide if k == 2 else 0.0)
            count += 1
            if -gap > worst:
                worst, where = -gap, f"{'table' if a is None else ids[a]} under/beside {ids[b]} at {p.round(6).tolist()}"
    rep.check(f"no contact corner closes ({count} corners; mu = {mu:g}: separates >= mu x slides) "
              "(of the fastest corner's speed)", worst / speed, tols["velocity"], where)
    power = float(-g * (mass * v[:, 2]).sum())
    scale = float(mass.sum() * g * speed)
    rep.check("gravity does positive work (its shortfall, of the weight times the fastest corner's speed)",
              max(tols["power"] - power / scale, 0.0), 0.0, f"gravity's power {power:.3g} W")

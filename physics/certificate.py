"""A statics verdict's proof as a JSON document anyone can check (format `tower-certificate/1`).

- *stands*: a force distribution of the inner friction model at the build's coefficient, written per contact as
  the force at each corner of the contact rectangle (shrunk by the centre-of-mass inset): every block balanced,
  compression only, friction inside Coulomb's cone (the inner pyramid lies inside it), every point inside its
  contact's area.
- *falls*: a mechanism, the Farkas vector of the outer model's imbalance LP (physics.friction_models.imbalance):
  a virtual velocity and angular velocity of each block under which gravity does positive work and no contact
  corner's relative velocity leaves the dual of the friction cone (it separates at least mu times as fast as it
  slides; side contacts, frictionless, only separate or slide), so no contact force the cone allows can resist.

physics.verifier checks such a document with numpy alone and shares no code with this module or the judge
(docs/physics.md, "Certificates").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from physics.contacts import TABLE, Contact, contact_corners, find_contacts
from physics.friction_models import FALLS, MARGINAL, STANDS, decide, inner_problem, phase, zero_load
from physics.model import Box
from physics.statics import COM_INSET_M, StaticsResult, judge_statics
from physics.tilt_lp import TiltProblem
from physics.units import DEFAULT_MU, GRAVITY

FORMAT = "tower-certificate/1"
#: What the verifier allows (stated in every certificate): the balance of each block's forces and moments, in
#: units of the mean weight (and of the mean weight times the mean box size); friction beyond the cone and
#: negative normal forces, in units of the mean weight; a force point off its contact area, in metres.
TOLERANCE = {"balance": 1e-6, "force": 1e-9, "point_m": 1e-7, "velocity": 1e-7, "power": 1e-7}


class NoCertificate(ValueError):
    """The verdict cannot be proven: neither friction model decides (a marginal statics verdict)."""


def certificate(boxes: Sequence[Box], mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M,
                result: StaticsResult | None = None) -> dict[str, Any]:
    """The proof of the statics verdict of `boxes` (judged here unless `result` is given) as a JSON document."""
    boxes = list(boxes)
    result = judge_statics(boxes, mu=mu, com_inset=com_inset) if result is None else result
    contacts = find_contacts(boxes)
    doc: dict[str, Any] = {
        "format": FORMAT, "claim": "", "model": {
            "mu": mu, "com_inset_m": com_inset, "gravity_m_s2": GRAVITY, "touch_tol_m": 1e-6,
            "friction": "Coulomb cone |f_t| <= mu f_n on horizontal contacts; side contacts frictionless"},
        "tolerance": dict(TOLERANCE),
        "boxes": [{"id": b.id, "lo": list(b.lo), "size": list(b.size), "mass_kg": b.mass} for b in boxes]}
    if result.undecided:
        raise NoCertificate("neither friction model decides: the inner one does not hold the build, the outer "
                            "one does")
    if result.stable:
        doc["claim"] = STANDS
        doc["contacts"] = _forces(boxes, mu, com_inset, contacts, result)
    else:
        doc["claim"] = FALLS
        doc["mechanism"] = _mechanism(boxes, mu, com_inset, contacts, result)
    if result.friction is not None:
        doc["friction_models"] = result.friction.to_json()
    return doc


def _forces(boxes: list[Box], mu: float, inset: float, contacts: list[Contact],
            result: StaticsResult) -> list[dict]:
    """Per contact, the corner forces of a level-table distribution of the model that holds the build."""
    bracket = result.friction
    if bracket is not None and bracket.verdict == STANDS and bracket.forces is not None:
        # the same model (the same columns) as the one that held the build
        prob, x = inner_problem(boxes, mu, inset, contacts, bracket.sides), bracket.forces
    else:
        prob = TiltProblem(boxes, mu, inset, contacts)
        x = zero_load(prob)
    if x is None:  # pragma: no cover - the judge found the build standing in this model
        raise RuntimeError("the model that holds the build found no distribution")
    c_idx, pts, axes = contact_corners(contacts, inset)
    h = axes == 2
    unit = float(np.mean([b.mass for b in boxes])) * GRAVITY  # forces are in mean weights
    f = np.zeros((len(pts), 3))
    nv = int((~h).sum())
    f[np.flatnonzero(~h), axes[~h]] = x[:nv]
    hk = np.flatnonzero(h)
    key = prob._key(phase(prob), prob.sides)
    for j in range(prob.sides):
        t = key + 2 * math.pi * j / prob.sides
        w = x[nv + j * len(hk): nv + (j + 1) * len(hk)]
        f[hk] += w[:, None] * np.array([prob.mu * math.cos(t), prob.mu * math.sin(t), 1.0])
    f *= unit
    out = []
    for k, c in enumerate(contacts):
        mine = np.flatnonzero(c_idx == k)
        out.append({"a": "table" if c.a == TABLE else boxes[c.a].id, "b": boxes[c.b].id,
                    "normal": [float(v) for v in np.eye(3)[c.axis]],
                    "forces": [{"point": [float(v) for v in pts[i]], "force": [float(v) for v in f[i]]}
                               for i in mine]})
    return out


def _mechanism(boxes: list[Box], mu: float, inset: float, contacts: list[Contact],
               result: StaticsResult) -> list[dict]:
    """Per block, the virtual velocity of its centre and its angular velocity (the fastest box corner moves at
    1 m/s) from the outer model's Farkas vector."""
    bracket = result.friction
    if bracket is None or bracket.verdict != FALLS or bracket.farkas is None:
        bracket = decide(boxes, mu, inset, contacts)
    if bracket.verdict == MARGINAL or bracket.farkas is None:
        raise NoCertificate("neither friction model decides")
    if bracket.verdict == STANDS:  # pragma: no cover - the judge found it falling in an inner model
        raise RuntimeError("the judge's falling build stands in an inner friction model")
    n = len(boxes)
    y = -bracket.farkas[:6 * n].reshape(n, 6)
    L = float(np.array([b.size for b in boxes]).mean())
    v, w = y[:, :3], y[:, 3:] / L
    half = np.array([b.size for b in boxes]) / 2
    # the largest speed of a box corner: |v| + |w| |r| bounds it; scale to 1 m/s
    speed = float((np.linalg.norm(v, axis=1) + np.linalg.norm(w, axis=1) * np.linalg.norm(half, axis=1)).max())
    scale = 1.0 / speed if speed > 0 else 1.0
    return [{"block": b.id, "velocity": [float(c) for c in v[i] * scale],
             "angular_velocity": [float(c) for c in w[i] * scale]} for i, b in enumerate(boxes)]


__all__ = ["FORMAT", "TOLERANCE", "NoCertificate", "certificate"]

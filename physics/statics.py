"""Statics judge: rigid-block equilibrium as a linear program.

Does a build stand as rigid blocks on a level table, and what is its tilt margin? Tilting the table by theta
towards d is, in the table's frame, gravity plus a horizontal body force lambda * m * g * d on every block with
lambda = tan(theta). The loads l = lambda * d the build survives form a convex set C in the plane (a projection of
the LP's feasible set). The margin is the radius of the largest disc around 0 inside C: min over directions of the
ray length r(d) = max{lambda : lambda d in C}, one LP per direction, searched with certified bounds
(docs/physics.md).

The parts, one module each: the LP layer (physics.lp: HiGHS's simplex for small models, an interior-point method
for large ones), the equilibrium LP of one build (physics.tilt_lp), large builds judged by parts
(physics.parts), the weakest-direction search (physics.margin) and the virtual-work test that finds falling boxes
without an LP (physics.virtual_work). This module holds the judge's two entry points and its answer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from physics.contacts import TOUCH_TOL_M, Contact, find_contacts
from physics.failure import Failure, failure_of
from physics.friction_models import FALLS, MARGINAL, STANDS, Bracket, decide
from physics.lp import LP
from physics.margin import TILT_TOL_DEG, deg, search
from physics.model import Box
from physics.parts import SPLIT_MIN_BLOCKS, SplitProblem
from physics.tilt_lp import FRICTION_SIDES, MECHANISM_REL_TOL, RESCUE_NORM_SIDES, STABLE_TOL, TiltProblem
from physics.units import DEFAULT_MU
from physics.virtual_work import quick_fall

__all__ = ["COM_INSET_M", "SPLIT_MIN_BLOCKS", "TILT_TOL_DEG", "StaticsResult", "judge_statics", "stands"]

#: Default centre-of-mass inset (metres): contact rectangles shrink by 1 mm so that a centre of mass exactly above
#: an edge (a knife-edge equilibrium no real block keeps) counts as falling; 1 mm is 2.5 % of the game's cube.
COM_INSET_M = 0.001


@dataclass(frozen=True)
class StaticsResult:
    """The statics judge's answer with its evidence.

    tilt_margin_deg is signed: > 0 the build stands and survives every table tilt up to that angle (fails at it in
    weakest_direction); < 0 it falls on the level table and -tilt_margin_deg is the smallest tilt that would hold it
    (weakest_direction is then the direction it falls); -90 when no tilt holds it (weakest_direction [0, 0]).
    """

    stable: bool  # the inner friction model holds the build (physics.friction_models)
    tilt_margin_deg: float
    weakest_direction: tuple[float, float]
    ms: float
    margin_bounds_deg: tuple[float, float] = (0.0, 0.0)
    mechanism: tuple[str, ...] = ()
    lps: int = 0
    contacts: int = 0
    #: how it starts to fail (physics.failure), worked out from the critical LP's duals when first asked
    failure_of: Any = field(default=None, compare=False, repr=False)
    #: the inner and outer friction models' answers where the judge's squares did not decide (None elsewhere)
    friction: Bracket | None = field(default=None, compare=False, repr=False)

    @property
    def failure(self) -> Failure | None:
        return None if self.failure_of is None else self.failure_of()

    @property
    def undecided(self) -> bool:
        """Neither friction model decided: the inner one does not hold the build, the outer one does (the
        verdict is marginal; tilt_margin_deg is 0)."""
        return self.friction is not None and self.friction.verdict == MARGINAL

    @property
    def answer(self) -> str:
        """stands, falls or marginal (the statics verdict with the friction models' bracket)."""
        return MARGINAL if self.undecided else STANDS if self.stable else FALLS

    def to_json(self, detail: bool = False) -> dict:
        """The `statics` object of the stability verdict (docs/formats.md) (plus evidence when `detail`)."""
        # + 0.0: a margin of -0.0 (a ray of exactly 0 at the inset boundary) must print as 0.0
        d = {"stable": self.stable, "tilt_margin_deg": round(self.tilt_margin_deg, 2) + 0.0,
             "weakest_direction": [round(self.weakest_direction[0], 4) + 0.0, round(self.weakest_direction[1], 4) + 0.0],
             "ms": round(self.ms, 1)}
        if detail:
            d.update({"margin_bounds_deg": [round(v, 3) for v in self.margin_bounds_deg],
                      "mechanism": list(self.mechanism), "lps": self.lps, "contacts": self.contacts})
            if self.failure is not None:
                d["failure"] = self.failure.to_json()
            if self.friction is not None:  # (detail only: the other documents' statics objects stay as they were)
                d["friction"] = self.friction.to_json()
        return d


def stands(boxes: Sequence[Box], mu: float = DEFAULT_MU, com_inset: float = COM_INSET_M,
           first: str | None = None) -> bool:
    """Does the build stand on a level table? The same equilibrium as judge_statics at zero tilt, without the
    margin search: two LPs, or none when quick_fall already proves a box falls.
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
        if quick_fall(near, find_contacts(near), com_inset, only=near.index(boxes[k])):
            return False
    contacts = find_contacts(boxes)
    if quick_fall(boxes, contacts, com_inset):
        return False
    prob = TiltProblem(boxes, mu, com_inset, contacts)
    # judge_statics' rays use the friction pyramid in both of its orientations (0 and half a side turned): where
    # both hold the unloaded build it stands; elsewhere the bracketing friction models decide, as there
    for phi in (0.0, math.pi / FRICTION_SIDES):
        G = prob.generators(phi)
        k = G.cols
        x, _ = LP(G, np.zeros(k), np.zeros(k), np.full(k, math.inf), prob.b_eq, prob.b_eq, method=prob.method).solve()
        if x is None:  # the squares do not decide: the bracketing models do, as in judge_statics
            return decide(boxes, mu, com_inset, contacts).verdict == STANDS
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
    prob: TiltProblem | SplitProblem = (TiltProblem(boxes, mu, com_inset, contacts)
                                        if len(boxes) <= SPLIT_MIN_BLOCKS
                                        else SplitProblem(boxes, mu, com_inset, contacts))

    def ms() -> float:
        return (time.perf_counter() - t0) * 1000

    # a box that provably falls (virtual work, no LP) skips the rays: their only use would be to find that out
    rays = {} if quick_fall(boxes, contacts, com_inset) else prob.initial_rays()
    # the directions come in opposite pairs sharing one friction pyramid: r(d) >= 0 and r(-d) >= 0 put both
    # lambda d and -mu d in C, hence 0 by convexity; conversely 0 in C makes every r >= 0
    bracket = None
    if rays and any(r is None or r < -STABLE_TOL for r, _ in rays.values()):
        # the squares inscribed in the cone do not hold it: the inner and outer pyramids decide
        # (physics.friction_models); where the inner one holds it, the margin is searched with that model
        bracket = decide(boxes, mu, com_inset, contacts)
        prob.lps += bracket.lps
        kept = replace(bracket, problem=None)  # (the result is pickled to other processes: no solver in it)
        if bracket.verdict == STANDS:
            return replace(_stands_finer(bracket, t0, prob.lps, boxes, contacts, com_inset, mu), friction=kept)
        if bracket.verdict == MARGINAL:
            return StaticsResult(False, 0.0, (0.0, 0.0), ms(), (0.0, 0.0), (), prob.lps, len(prob.contacts),
                                 None, kept)
        bracket = kept
    if not rays or bracket is not None:
        lam, duals = prob.rescue()
        if lam is None:
            s = prob.unbalanced()
            order = np.argsort(-s)
            mech = tuple(boxes[i].id for i in order if s[i] > MECHANISM_REL_TOL * max(s.max(), 1e-300))
            return StaticsResult(False, -90.0, (0.0, 0.0), ms(), (-90.0, -90.0), mech, prob.lps,
                                 len(prob.contacts), failure_of(boxes, contacts, com_inset, None, None, mu), bracket)
        norm = float(np.hypot(*lam))
        # the rescue LP minimises a 16-gon norm: the Euclidean minimum lies between these bounds
        lo_deg, hi_deg = -deg(norm), -deg(norm * math.cos(math.pi / RESCUE_NORM_SIDES))
        fall = (float(-lam[0] / norm), float(-lam[1] / norm)) if norm > 0 else (0.0, 0.0)
        return StaticsResult(False, min(lo_deg, -1e-9), fall, ms(), (lo_deg, hi_deg), prob.mechanism(duals),
                             prob.lps, len(prob.contacts), failure_of(boxes, contacts, com_inset, duals, None, mu),
                             bracket)

    duals = {phi: d for phi, (_, d) in rays.items()}

    def ray(phi: float) -> float | None:
        r, duals[phi] = prob.ray(phi)
        return r

    m = search({phi: r for phi, (r, _) in rays.items()}, ray, len(rays))
    return StaticsResult(True, deg(m.upper) + 0.0, (math.cos(m.phi), math.sin(m.phi)), ms(), m.bounds_deg,
                         prob.mechanism(duals[m.phi]), prob.lps, len(prob.contacts),
                         failure_of(boxes, contacts, com_inset, duals[m.phi], (math.cos(m.phi), math.sin(m.phi)), mu,
                                    prob.sides if isinstance(prob, TiltProblem) else None))


def _stands_finer(bracket: Bracket, t0: float, lps: int, boxes: list[Box], contacts: list[Contact],
                  com_inset: float, mu: float) -> StaticsResult:
    """A build the inner pyramid of bracket.sides sides holds (and the squares do not): its tilt margin, searched
    with that model's rays as judge_statics searches the squares' (a lower bound of the cone's margin)."""
    prob = bracket.problem
    assert prob is not None
    before = prob.lps  # (its level-table LP is counted in bracket.lps)
    rays = prob.initial_rays()
    duals = {phi: d for phi, (_, d) in rays.items()}
    if any(r is None for r, _ in rays.values()):  # pragma: no cover - 0 is in its load set, so every ray is >= 0
        raise RuntimeError("a ray of the model that holds the build found no equilibrium")

    def ray(phi: float) -> float | None:
        r, duals[phi] = prob.ray(phi)
        return r

    m = search({phi: max(r, 0.0) for phi, (r, _) in rays.items()}, ray, len(rays))
    d = (math.cos(m.phi), math.sin(m.phi))
    return StaticsResult(True, max(deg(m.upper), 0.0) + 0.0, d, (time.perf_counter() - t0) * 1000, m.bounds_deg,
                         prob.mechanism(duals[m.phi]), lps + prob.lps - before, len(contacts),
                         failure_of(boxes, contacts, com_inset, duals[m.phi], d, mu, prob.sides), bracket)

"""Two models of Coulomb's friction cone that bracket it, for the verdicts friction decides.

The judge's rays use a 4-sided pyramid inscribed in the cone |f_t| <= mu f_n, turned by 0 or 45 degrees: it holds
a build only where the true cone does (an inner model), but it reaches only cos(45 deg) = 71 % of mu between its
generators, so a build that needs between 71 % and 100 % of mu in that direction failed in one of the turns and was
called falling. Here a build the squares do not hold is decided by a pair of pyramids of N sides at the build's mu:

- the **inner** one, inscribed (generators n + mu t_j): a distribution inside it is inside the cone, so the build
  *stands* (the distribution is the proof: physics.certificate writes it);
- the **outer** one, circumscribed (generators n + mu / cos(pi / N) t_j, its facets tangent to the cone): the cone
  lies inside it, so where no distribution exists in it, none exists in the cone and the build *falls* (the proof
  is the Farkas vector of its L1 imbalance LP: virtual velocities of the blocks under which every force the outer
  pyramid allows, hence every force the cone allows, does no negative work while gravity does positive work).

N runs through SIDES (4 outer only, the inner squares having failed; then 8, 16, 32, 64) until one of the two
decides; where neither does, the verdict is *marginal*: the build needs a coefficient within a factor cos(pi / 64)
(0.12 %) of its own, and both answers are reported. The least friction coefficient (least_mu) is bracketed the same
way: the inner pyramid's least coefficient is an upper bound of the cone's, cos(pi / N) times it a lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from physics.contacts import Contact, find_contacts
from physics.lp import LP, Columns
from physics.model import Box
from physics.tilt_lp import TiltProblem

#: Pyramid sides tried in turn (the 4-sided one only as the outer model: the judge's squares are its inner ones).
SIDES = (4, 8, 16, 32, 64)
#: The outer model cannot hold the build when the least L1 imbalance of its equilibrium (in mean weights) exceeds
#: this: HiGHS's feasibility tolerance is 1e-7, so a smaller imbalance is solver noise, not a proof.
FALL_TOL = 1e-6
#: HiGHS options of the imbalance LP: tight dual feasibility, so that the Farkas vector (its duals) lets no
#: force of the outer pyramid do negative work beyond rounding.
IMBALANCE_OPTIONS = {"output_flag": False, "presolve": "off", "dual_feasibility_tolerance": 1e-10,
                     "primal_feasibility_tolerance": 1e-10}
#: The least coefficient is bracketed to this (absolute).
MU_TOL = 2e-4
#: Coefficients searched for the least one (no wood, rubber or sandpaper grips better than 2).
MU_MAX = 2.0

STANDS, FALLS, MARGINAL = "stands", "falls", "marginal"


@dataclass(frozen=True)
class Bracket:
    """What the inner and outer pyramids of `sides` sides say at coefficient `mu`: `verdict` stands (the inner one
    holds the build: `forces` are its generator weights, `problem` its model), falls (the outer one cannot:
    `farkas` its row duals, the blocks' virtual velocities up to sign) or marginal (neither decided at the finest
    pyramid)."""

    verdict: str
    sides: int
    mu: float
    problem: TiltProblem | None = None
    forces: np.ndarray | None = None
    farkas: np.ndarray | None = None
    imbalance: float = 0.0
    lps: int = 0

    def to_json(self) -> dict:
        """The two models and what each says (docs/physics.md, "Friction: two models that bracket the cone")."""
        inner = self.verdict == STANDS
        outer = self.verdict != FALLS
        return {"verdict": self.verdict, "mu": self.mu,
                "inner": {"model": f"{self.sides}-sided pyramid inscribed in the cone", "stands": inner},
                "outer": {"model": f"{self.sides}-sided pyramid circumscribed about the cone", "stands": outer}}


def inner_problem(boxes: Sequence[Box], mu: float, inset: float, contacts: list[Contact],
                  sides: int) -> TiltProblem:
    """The equilibrium LP with the pyramid of `sides` sides inscribed in the cone of coefficient mu."""
    return TiltProblem(boxes, mu, inset, contacts, sides=sides)


def outer_problem(boxes: Sequence[Box], mu: float, inset: float, contacts: list[Contact],
                  sides: int) -> TiltProblem:
    """The same with the pyramid circumscribed about the cone (its generators reach mu / cos(pi / sides)), turned
    by half a side (phase)."""
    prob = TiltProblem(boxes, mu / math.cos(math.pi / sides), inset, contacts, sides=sides)
    prob.outer_phase = math.pi / sides  # type: ignore[attr-defined]
    return prob


def phase(prob: TiltProblem) -> float:
    """The turn of a model's pyramid: the inner one has generators along the axes (exact there), the outer one is
    turned by half a side, so that its facets touch the cone along the axes (exact there too)."""
    return getattr(prob, "outer_phase", 0.0)


def zero_load(prob: TiltProblem) -> np.ndarray | None:
    """Generator weights of a distribution holding the build on a level table, or None when there is none."""
    G = prob.generators(phase(prob))
    k = G.cols
    x, _ = LP(G, np.zeros(k), np.zeros(k), np.full(k, math.inf), prob.b_eq, prob.b_eq, method=prob.method).solve()
    prob.lps += 1
    return None if x is None else np.maximum(x, 0.0)


def imbalance(prob: TiltProblem) -> tuple[float, np.ndarray]:
    """The least L1 imbalance of the level-table equilibrium (in mean weights) and the LP's row duals y.

    min 1.(s+ + s-) s.t. G x + s+ - s- = b, x, s >= 0: at the optimum the duals satisfy G^T y <= 0 (reduced costs
    of x), |y| <= 1 (of the slacks) and b.y = the optimum. When that is positive, y is Farkas' certificate that
    G x = b has no solution x >= 0: -y is a virtual motion (per block the velocity of its centre and, in units of
    1 / mean box size, its angular velocity) on which every allowed contact force does no negative work and
    gravity does positive work."""
    G = prob.generators(phase(prob))
    k, n6 = G.cols, 6 * prob.n
    eye = np.arange(n6, dtype=np.int32)
    one = Columns(n6, np.arange(n6 + 1, dtype=np.int64), eye, np.ones(n6))
    minus = Columns(n6, np.arange(n6 + 1, dtype=np.int64), eye, -np.ones(n6))
    c = np.concatenate([np.zeros(k), np.ones(2 * n6)])
    lp = LP(Columns.hstack([G, one, minus]), c, np.zeros(k + 2 * n6), np.full(k + 2 * n6, math.inf), prob.b_eq,
            prob.b_eq, IMBALANCE_OPTIONS, method="simplex" if n6 < 300 else "ipm")
    x, y = lp.solve()
    prob.lps += 1
    if x is None:  # cannot happen (the slacks make it feasible): no proof either way
        return 0.0, np.zeros(n6)
    return float(c @ x), y


def decide(boxes: Sequence[Box], mu: float, inset: float, contacts: list[Contact] | None = None,
           sides: Sequence[int] = SIDES) -> Bracket:
    """Stands, falls or marginal at coefficient mu, for a build the judge's squares do not hold (module
    docstring): the outer pyramid of each size in turn, then the inner one of that size."""
    contacts = find_contacts(boxes) if contacts is None else contacts
    lps = 0
    n_last = sides[-1]
    for n in sides:
        outer = outer_problem(boxes, mu, inset, contacts, n)
        v, y = imbalance(outer)
        lps += outer.lps
        if v > FALL_TOL:
            return Bracket(FALLS, n, mu, outer, farkas=y, imbalance=v, lps=lps)
        if n == 4:
            continue  # the judge's inscribed squares have failed already
        inner = inner_problem(boxes, mu, inset, contacts, n)
        x = zero_load(inner)
        lps += inner.lps
        if x is not None:
            return Bracket(STANDS, n, mu, inner, forces=x, lps=lps)
    return Bracket(MARGINAL, n_last, mu, lps=lps)


def stands_with(boxes: Sequence[Box], mu: float, inset: float, contacts: list[Contact], sides: int,
                outer: bool) -> bool:
    """Does the inner (outer) pyramid of `sides` sides at coefficient mu hold the build on a level table?"""
    make = outer_problem if outer else inner_problem
    return zero_load(make(boxes, mu, inset, contacts, sides)) is not None


@dataclass(frozen=True)
class LeastMu:
    """The least friction coefficient of the cone model lies in [lower, upper]: the inner pyramid of `sides` sides
    holds the build at `upper`, the outer one cannot at `lower` (0 and 0 when it needs no friction; upper None
    when nothing up to MU_MAX holds it)."""

    lower: float
    upper: float | None
    sides: int
    lps: int

    def to_json(self) -> dict:
        return {"lower": round(self.lower, 5), "upper": None if self.upper is None else round(self.upper, 5),
                "sides": self.sides}


def _bisect(lo: float, hi: float, width: float, holds: Callable[[float], bool]) -> tuple[float, float]:
    """Narrow [lo, hi] to `width` around the least coefficient at which `holds` is true (false at lo, true at
    hi)."""
    while hi - lo > width:
        mid = (lo + hi) / 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def least_mu(boxes: Sequence[Box], inset: float, contacts: list[Contact] | None = None, tol: float = MU_TOL,
             sides: Sequence[int] = (8, 16, 32, 64, 128)) -> LeastMu:
    """Bracket the least friction coefficient at which the build stands (LeastMu) to within `tol`: bisection on
    the inner pyramid's coefficient (an upper bound) and on the outer one's (a lower bound), from 8 sides up until
    the two are within tol."""
    boxes = list(boxes)
    contacts = find_contacts(boxes) if contacts is None else contacts
    lps = 0

    def holds(m: float, n: int, outer: bool) -> bool:
        nonlocal lps
        lps += 1
        return stands_with(boxes, m, inset, contacts, n, outer)

    if holds(0.0, 4, False):
        return LeastMu(0.0, 0.0, 4, lps)
    lo, hi = 0.0, MU_MAX
    if not holds(hi, sides[0], False):
        return LeastMu(lo, None, sides[0], lps)
    for n in sides:
        # the inner pyramid's least coefficient (an upper bound of the cone's): each pyramid's vertices are among
        # the next one's, so a finer one holds the build wherever the coarser one does and hi stays valid
        _, hi = _bisect(lo, hi, tol / 4, lambda m, n=n: holds(m, n, False))
        # the outer pyramid's (a lower bound): the largest coefficient found at which it cannot hold the build
        if not holds(max(hi - tol / 2, 0.0), n, True):
            lo = max(lo, hi - tol / 2)
        else:
            lo, _ = _bisect(lo, hi, tol / 4, lambda m, n=n: holds(m, n, True))
        if hi - lo <= tol:
            return LeastMu(lo, hi, n, lps)
    return LeastMu(lo, hi, sides[-1], lps)

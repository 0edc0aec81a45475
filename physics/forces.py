"""Contact forces of a standing build: the minimum-norm distribution as one example, and (with `bounds`) what
every admissible distribution has in common (physics.bounds) and the friction the build needs
(physics.friction_need).

A stack of rigid blocks is statically indeterminate: a block on four corners (or on two supports) can share its
weight among them in infinitely many ways, and rigid-body statics cannot say which one nature picks (that
depends on millimetre flatness and elasticity). `contact_forces` reports one well-defined member of that set:
the forces at the contact corners with the least sum of squares, subject to equilibrium of every block,
compression only and Coulomb friction (the friction octagon of physics.equilibrium at each corner of a horizontal
contact, the set the bounds and the push test use; side contacts push only). As in compas_cra's RBE solver, minimising the 2-norm spreads load as evenly as the geometry
allows and makes the answer unique (the objective is strictly convex).

Solver: HiGHS's QP solver took seconds on the 35-block start tower and stopped with residuals of 1e-5, so the QP
is solved through its dual, which is unconstrained and once differentiable: maximise
b.y - |P_K(A^T y)|^2 / 2 over y (one number per equilibrium row), where P_K projects onto the friction sets; the
forces are x = P_K(A^T y) (physics.newton: a semismooth Newton method, generalised Hessian A J A^T, J the
projection's derivative, with a small Levenberg-Marquardt shift and an Armijo line search, converging
quadratically; it stops when the equilibrium residual is below physics.newton.SOLVE_TOL of the mean weight, so every reported
distribution balances). It is *a* possible distribution, not *the* one: where it shows a contact nearly unloaded,
another equally valid distribution may load it; where it shows friction at its limit, the build may need none
there (the bounds and physics.friction_need say what every distribution needs).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from physics.bounds import ForceBounds, force_bounds
from physics.equilibrium import EquilibriumSystem
from physics.friction_need import CRITICAL_USE, FrictionNeed, friction_need
from physics.model import Box
from physics.newton import dual_newton
from physics.per_contact import ContactForce, contact_arrays, per_contact
from physics.statics import COM_INSET_M, stands
from physics.units import DEFAULT_MU, GRAVITY

__all__ = ["ContactForce", "ContactForces", "contact_arrays", "contact_forces", "min_norm_forces", "per_contact"]

#: A contact is "friction-critical" when every admissible distribution uses at least this share of its friction
#: (physics.friction_need; one distribution's friction use says nothing about that).
FRICTION_CRITICAL = CRITICAL_USE


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


def min_norm_forces(sys_: EquilibriumSystem, tol: float | None = None,
                    max_iter: int = 200) -> tuple[np.ndarray | None, int]:
    """The minimum-norm forces (normalised columns of sys_) by semismooth Newton on the dual (module docstring);
    (None, iterations) when it does not converge."""
    y0 = np.zeros(6 * sys_.n)
    y0[2::6] = sys_.centres[:, 2] / sys_.L + 1.0  # start: higher bodies lift (every contact from below pushes)
    p, _, it = dual_newton(sys_, y0, tol=tol, max_iter=max_iter)
    return p, it

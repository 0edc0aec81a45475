"""The friction a build needs: the least friction coefficient at which it stands, and the contacts that need
nearly all of theirs.

A build of boxes on a level table often stands with no friction at all: every block's weight goes straight down
through its supports and no contact needs a sideways force. Friction is needed where something leans: a block
pressed sideways by a neighbour, an overhang wedged against another block. The least coefficient mu* is the
smallest mu at which some admissible distribution exists (physics.admissible, friction inside each corner's
octagon of radius mu f_n). Feasibility only grows with mu, so mu* is found by bisection on the friction-row form of
the set (one coefficient per corner changes; HiGHS re-solves from the last basis); every feasible solve also
shows the friction its distribution actually uses (the largest ratio of a corner's friction, in the octagon's
norm, to its normal force), which is an upper bound at once. The answer is that of a distribution that stands
with it (the witness), with the largest coefficient found too small below it.

"Friction-critical" is a property of the build, not of one distribution: a contact is friction-critical when every
admissible distribution at the build's coefficient uses at least CRITICAL_USE of the friction there, i.e. the build
falls if that contact's coefficient alone drops to CRITICAL_USE mu. No contact is critical when mu* <=
CRITICAL_USE mu (the witness at mu* uses at most that much everywhere), so a build that stands without friction
has none; otherwise only contacts the witness loads that much are tested, one LP each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from physics.admissible import FrictionRowSet
from physics.equilibrium import OCTAGON, EquilibriumSystem

#: A contact is friction-critical when every admissible distribution uses at least this share of its friction.
CRITICAL_USE = 0.8
#: The least friction coefficient is found to within this (absolute): the answer stands, this much less may not.
MU_TOL = 5e-4
#: Falling builds: coefficients up to this are tried (no wood, rubber or sandpaper grips better).
MU_MAX = 2.0


@dataclass(frozen=True)
class FrictionNeed:
    """`least_mu`: the least friction coefficient at which the build stands (0 when it needs none; None when no
    coefficient up to MU_MAX holds it), proven by distribution `witness` (force columns of the system, normalised)
    standing at it; `too_small`: a coefficient at which no distribution exists (below least_mu by at most MU_TOL;
    None when least_mu is 0). `critical`: indices of the friction-critical contacts at the build's coefficient."""

    least_mu: float | None
    too_small: float | None
    witness: np.ndarray | None
    critical: tuple[int, ...] = ()
    lps: int = 0

    def to_json(self) -> dict:
        return {"least_mu": None if self.least_mu is None else round(self.least_mu, 4),
                "too_small_mu": None if self.too_small is None else round(self.too_small, 4),
                "critical_use": CRITICAL_USE}


def octagon_use(sys_: EquilibriumSystem, x: np.ndarray) -> np.ndarray:
    """Per horizontal corner, the friction coefficient distribution x needs there: the octagon norm of the
    friction over the normal force (0 without friction)."""
    h = sys_.h_corners
    first = sys_.corner_first_col[h]
    n, tx, ty = x[first], x[first + 1], x[first + 2]
    half = math.pi / OCTAGON
    t = (2 * np.arange(OCTAGON) + 1) * half
    gauge = np.maximum((np.outer(tx, np.cos(t)) + np.outer(ty, np.sin(t))).max(axis=1), 0.0) / math.cos(half)
    scale = max(1.0, float(np.abs(x).max()) if len(x) else 1.0)
    return np.where(gauge <= 1e-12 * scale, 0.0, gauge / np.maximum(n, 1e-300))


def contact_use(sys_: EquilibriumSystem, x: np.ndarray) -> np.ndarray:
    """Per contact, the largest friction coefficient its corners need in distribution x."""
    out = np.zeros(len(sys_.contacts))
    np.maximum.at(out, sys_.corner_contact[sys_.h_corners], octagon_use(sys_, x))
    return out


def friction_need(sys_: EquilibriumSystem, stands: bool) -> FrictionNeed:
    """The least friction coefficient and the friction-critical contacts of a build (module docstring).
    `stands`: whether the build stands at its own coefficient sys_.mu (then the search starts below it)."""
    model = FrictionRowSet(sys_)
    mu = sys_.mu
    model.set_cost(model.weight_cols, 1.0)  # the least total friction: a witness that leans on friction little

    def at(m: float) -> np.ndarray | None:
        model.set_mu(m)
        x = model.solve()
        return None if x is None else model.forces(x)

    x = at(0.0)
    if x is not None:
        return FrictionNeed(0.0, None, x, (), model.lps)
    lo = 0.0
    hi_x = at(mu) if stands else None
    hi = mu
    if hi_x is None:
        # (a build the judge holds only with a finer inner pyramid than the octagon, physics.friction_models,
        # needs more than the octagon's mu: searched above it like a falling build's)
        lo = mu
        hi_x = at(MU_MAX)
        if hi_x is None:
            return FrictionNeed(None, MU_MAX, None, (), model.lps)
        hi = MU_MAX
    hi = min(hi, float(octagon_use(sys_, hi_x).max()))
    while hi - lo > MU_TOL:
        mid = (lo + hi) / 2
        x = at(mid)
        if x is None:
            lo = mid
        else:
            hi_x, hi = x, min(mid, float(octagon_use(sys_, x).max()))
    critical = _critical(sys_, model, hi_x, hi) if stands and hi > CRITICAL_USE * mu else ()
    return FrictionNeed(hi, lo, hi_x, critical, model.lps)


def _critical(sys_: EquilibriumSystem, model: FrictionRowSet, witness: np.ndarray, least: float) -> tuple[int, ...]:
    """Contacts whose coefficient cannot drop to CRITICAL_USE mu without the build falling (module docstring)."""
    mu = sys_.mu
    limit = CRITICAL_USE * mu
    model.set_mu(mu)
    corner_contact = sys_.corner_contact[sys_.h_corners]
    open_ = set(np.flatnonzero(contact_use(sys_, witness) > limit * (1 + 1e-9)).tolist())
    critical = []
    while open_:
        k = min(open_)
        open_.discard(k)
        mine = np.flatnonzero(corner_contact == k)
        model.set_corner_mu(mine, limit)
        x = model.solve()
        model.set_corner_mu(mine, mu)
        if x is None:
            critical.append(k)
        else:  # this distribution shows every contact it loads lightly is not critical either
            open_ -= set(np.flatnonzero(contact_use(sys_, model.forces(x)) <= limit * (1 + 1e-9)).tolist())
    return tuple(sorted(critical))

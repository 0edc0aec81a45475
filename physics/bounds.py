"""What statics determines about each contact, and what it leaves open: bounds over all admissible distributions.

Rigid-block equilibrium is statically indeterminate wherever a block rests on more than three points: infinitely
many force distributions balance it, and rigid-body statics cannot say which one the real blocks pick. What it
can say is the range. For every contact, over all admissible distributions (physics.admissible: every block
balanced, compression only, friction inside its octagon), `force_bounds` finds the least and the greatest normal
force and the least and greatest magnitude of the resultant, each with a distribution that attains it. This is
the lower-bound (safe) theorem of limit analysis read per contact, as masonry engineers read the range of thrust
lines an arch admits: a contact whose least normal force is above zero carries at least that in *every* way the
build can stand; one whose least is zero may carry nothing; one whose bounds meet is determinate.

Cost: two LPs per contact at most, all on one model (only the objective changes; HiGHS re-solves warm), fewer
by three shortcuts. Side contacts carry no weight, so a horizontal contact that alone links a group of blocks to the
table through horizontal contacts (a bridge of that graph) carries exactly the group's weight in every
distribution: determinate, no LP. Every distribution solved on the way proves something for all contacts at once:
a contact it leaves unloaded may carry nothing (least normal force 0), one that carries everything resting on it
carries its greatest. And the least normal force is sought with the contact's friction held at zero: when that
constraint costs nothing (its duals vanish) the same LP gives the least resultant too (the normal force alone).

The resultant's magnitude |F| = sqrt(N^2 + |f_t|^2) is convex, so its greatest value over the set is not an LP.
It is at most sqrt(1 + mu^2) times the greatest normal force (friction at its limit), which a self-balancing friction
squeeze riding on the greatest normal force often reaches; the greatest resultant reported is the largest among
all distributions solved (attained, with its witness), with that bound beside it (`resultant_bounds_n`). The least
resultant is exact where a distribution carries the least normal force without friction at the contact (nearly
always); elsewhere the least found is reported, with the least normal force as its lower bound.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from physics.admissible import GeneratorSet
from physics.contacts import TABLE
from physics.equilibrium import EquilibriumSystem
from physics.per_contact import per_contact

#: A normal force below this (mean block weights) is zero: the contact carries nothing.
ZERO = 1e-9
#: Bounds closer than this (mean block weights) meet: the contact is determinate.
DETERMINATE = 1e-7


@dataclass(frozen=True)
class ContactBound:
    """The range of one contact's force over all admissible distributions (newtons).

    `normal_n` and `resultant_n`: (least, greatest), each attained by the distribution `witness[...]` names (an
    index into ForceBounds.distributions: keys normal_least, normal_greatest, resultant_least, resultant_greatest).
    `resultant_bounds_n`: what the true least and greatest resultant are certainly within (equal to resultant_n
    where those are exact). `friction_critical`: every admissible distribution at the build's friction coefficient
    uses at least physics.friction_need.CRITICAL_USE of this contact's friction (physics.friction_need)."""

    a: str
    b: str
    normal_n: tuple[float, float]
    resultant_n: tuple[float, float]
    resultant_bounds_n: tuple[float, float]
    witness: dict[str, int]
    bridge: bool = False
    friction_critical: bool = False

    @property
    def carries(self) -> str:
        """"determinate", "may-carry-nothing" or "must-carry" (at least normal_n[0])."""
        lo, hi = self.normal_n
        if hi - lo <= DETERMINATE * max(1.0, hi):
            return "determinate"
        return "may-carry-nothing" if lo <= 0.0 else "must-carry"

    def to_json(self) -> dict:
        return {"normal_n": [round(v, 6) for v in self.normal_n], "resultant_n": [round(v, 6) for v in self.resultant_n],
                "resultant_bounds_n": [round(v, 6) for v in self.resultant_bounds_n], "carries": self.carries,
                "friction_critical": self.friction_critical, "witness": dict(self.witness)}


@dataclass
class ForceBounds:
    """Per contact (in the order of physics.contacts.find_contacts) the bounds of its force, and the distributions
    attaining them (`distributions`: the EquilibriumSystem's force columns, normalised; `distribution_forces(i)`
    gives one as ContactForces)."""

    contacts: list[ContactBound]
    distributions: list[np.ndarray]
    system: EquilibriumSystem = field(repr=False)
    lps: int = 0
    ms: float = 0.0

    def distribution(self, i: int) -> list:
        """Distribution i per contact (physics.per_contact.ContactForce: resultant, point, torsion)."""
        return per_contact(self.system, self.distributions[i])


class ContactSums:
    """Per contact, the normal force and the resultant (on body b) of a distribution over the EquilibriumSystem's
    force columns, for all contacts at once (one sparse product per axis)."""

    def __init__(self, sys_: EquilibriumSystem) -> None:
        import scipy.sparse as sp  # noqa: PLC0415

        self.K = len(sys_.contacts)
        contact = sys_.corner_contact[sys_.col_corner]
        self.S = [sp.csr_matrix((sys_.col_force[:, a], (contact, np.arange(sys_.ncol))), shape=(self.K, sys_.ncol))
                  for a in range(3)]
        self.axis = np.array([c.axis for c in sys_.contacts], dtype=np.int64)

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        F = np.stack([S @ x for S in self.S], axis=1) if self.K else np.zeros((0, 3))
        return F[np.arange(self.K), self.axis], F


def carried_weights(sys_: EquilibriumSystem) -> tuple[dict[int, float], np.ndarray]:
    """Two facts about the vertical loads, from the graph of horizontal contacts (side contacts carry no weight):

    - determinate: contacts that alone link a group of blocks to the table through horizontal contacts (bridges of
      that graph), with the group's weight (mean block weights): vertical balance of the group fixes their normal
      force in every distribution;
    - at most: per contact, the weight of its upper block and of everything that rests on it, directly or through
      others (the most its normal force can be; side contacts: inf)."""
    n = sys_.n
    table = n
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n + 1)]
    up: list[list[int]] = [[] for _ in range(n)]
    for k, c in enumerate(sys_.contacts):
        if c.axis != 2:
            continue
        a = table if c.a == TABLE else c.a
        adj[a].append((c.b, k))
        adj[c.b].append((a, k))
        if c.a != TABLE:
            up[c.a].append(c.b)
    out: dict[int, float] = {}
    for k in _bridges(adj):
        c = sys_.contacts[k]
        group = _side(adj, c.b, k)
        if table not in group:
            out[k] = float(sys_.m[sorted(group)].sum())
    most = np.full(len(sys_.contacts), math.inf)
    closure: dict[int, float] = {}
    for k, c in enumerate(sys_.contacts):
        if c.axis == 2:
            if c.b not in closure:
                seen, todo = {c.b}, [c.b]
                while todo:
                    for w in up[todo.pop()]:
                        if w not in seen:
                            seen.add(w)
                            todo.append(w)
                closure[c.b] = float(sys_.m[sorted(seen)].sum())
            most[k] = closure[c.b]
    return out, most


def _bridges(adj: list[list[tuple[int, int]]]) -> list[int]:
    """The edges (contact indices) of a multigraph whose removal disconnects it (iterative Tarjan: a deep tower
    must not hit the recursion limit)."""
    nodes = len(adj)
    order = [-1] * nodes
    low = [0] * nodes
    parent_edge = [-1] * nodes
    counter = 0
    found: list[int] = []
    for root in range(nodes):
        if order[root] >= 0:
            continue
        order[root] = low[root] = counter
        counter += 1
        stack = [(root, iter(adj[root]))]
        while stack:
            v, it = stack[-1]
            for w, k in it:
                if k == parent_edge[v]:
                    continue
                if order[w] < 0:
                    parent_edge[w] = k
                    order[w] = low[w] = counter
                    counter += 1
                    stack.append((w, iter(adj[w])))
                    break
                low[v] = min(low[v], order[w])
            else:
                stack.pop()
                if stack:
                    u = stack[-1][0]
                    low[u] = min(low[u], low[v])
                    if low[v] > order[u]:
                        found.append(parent_edge[v])
    return found


def _side(adj: list[list[tuple[int, int]]], start: int, cut: int) -> set[int]:
    """The nodes reachable from `start` without crossing edge `cut`."""
    seen = {start}
    todo = [start]
    while todo:
        v = todo.pop()
        for w, k in adj[v]:
            if k != cut and w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def force_bounds(sys_: EquilibriumSystem, examples: Sequence[np.ndarray] = ()) -> ForceBounds | None:
    """The bounds of every contact's force (module docstring), or None when no admissible distribution exists.
    `examples`: distributions already known to be admissible (the minimum-norm one), kept as witnesses 0, 1, ..."""
    t0 = time.perf_counter()
    K = len(sys_.contacts)
    sums = ContactSums(sys_)
    model = GeneratorSet(sys_)
    horizontal = sums.axis == 2
    det, most = carried_weights(sys_)
    found = _Found(K, sums, most)
    for x in examples:
        found.keep(np.asarray(x, dtype=float))
    model.set_cost([], 0.0)
    x0 = model.solve()
    if x0 is None:
        return None
    first = found.keep(model.forces(x0))
    for k, w in det.items():
        found.fix(k, w, first)
    # greatest normal force where no distribution seen so far reached the weight resting on the contact
    for k in range(K):
        if not np.isnan(found.hi[k]):
            continue
        model.set_cost(model.contact_cols[k], -model.contact_force(k)[:, sums.axis[k]])
        x = model.solve()
        if x is None:  # pragma: no cover - the set is non-empty and bounded (the weights bound every force)
            raise RuntimeError(f"greatest normal force of contact {k}: {model.h.getModelStatus()}")
        i = found.keep(model.forces(x))
        found.hi[k], found.w_hi[k] = found.N[i][k], i
    # least normal force, with the contact's friction held at zero: when that costs nothing (the two rows' duals
    # vanish) the optimum is the least normal force and the least resultant at once
    for k in range(K):
        if not np.isnan(found.lo[k]) and not np.isnan(found.r_lo[k]):
            continue
        cols, force = model.contact_cols[k], model.contact_force(k)
        model.set_cost(cols, force[:, sums.axis[k]])
        if horizontal[k]:
            model.add_rows([(cols, force[:, a], 0.0, 0.0) for a in (0, 1)])
        x = model.solve()
        free = x is not None and (not horizontal[k] or float(np.abs(model.duals[-2:]).max()) <= 1e-9)
        if horizontal[k]:
            model.drop_rows(2)
        if x is not None:
            i = found.keep(model.forces(x))
            if free:
                found.lo[k], found.w_lo[k] = found.N[i][k], i
                found.r_lo[k], found.w_rlo[k] = found.N[i][k], i
                continue
        if np.isnan(found.lo[k]):  # friction here lowers the least normal force: solve without the rows
            x = model.solve()
            j = found.keep(model.forces(x))
            found.lo[k], found.w_lo[k] = found.N[j][k], j
    return found.result(sys_, model.lps + 0, (time.perf_counter() - t0) * 1000)


class _Found:
    """The bounds known so far and the distributions that prove them; every distribution kept tightens them."""

    def __init__(self, K: int, sums: ContactSums, most: np.ndarray) -> None:
        self.K, self.sums, self.most = K, sums, most
        self.dists: list[np.ndarray] = []
        self.N: list[np.ndarray] = []
        self.F: list[np.ndarray] = []
        self.lo, self.hi, self.r_lo = np.full(K, np.nan), np.full(K, np.nan), np.full(K, np.nan)
        self.w_lo, self.w_hi, self.w_rlo = np.full(K, -1), np.full(K, -1), np.full(K, -1)
        self.determinate = np.zeros(K, dtype=bool)

    def fix(self, k: int, value: float, witness: int) -> None:
        """Contact k's normal force is `value` in every distribution (vertical balance)."""
        self.lo[k] = self.hi[k] = value
        self.w_lo[k] = self.w_hi[k] = witness
        self.determinate[k] = True
        self._frictionless(len(self.dists) - 1 if witness < 0 else witness)

    def keep(self, x: np.ndarray) -> int:
        """Record a distribution (force columns) and what it proves: contacts it leaves unloaded may carry
        nothing; contacts carrying everything that rests on them carry their greatest normal force."""
        N, F = self.sums(x)
        self.dists.append(x)
        self.N.append(N)
        self.F.append(F)
        i = len(self.dists) - 1
        zero = np.isnan(self.lo) & (N <= ZERO)
        self.lo[zero], self.w_lo[zero] = 0.0, i
        self.r_lo[zero], self.w_rlo[zero] = 0.0, i
        full = np.isnan(self.hi) & (N >= self.most - DETERMINATE)
        self.hi[full], self.w_hi[full] = N[full], i
        self._frictionless(i)
        return i

    def _frictionless(self, i: int) -> None:
        """Where distribution i carries a contact's least normal force without friction, that is also its least
        resultant (|F| >= N >= least)."""
        N, F = self.N[i], self.F[i]
        t = np.hypot(F[:, 0], F[:, 1]) * (self.sums.axis == 2)
        ok = np.isnan(self.r_lo) & ~np.isnan(self.lo) & (N <= self.lo + DETERMINATE) & (t <= ZERO)
        self.r_lo[ok], self.w_rlo[ok] = N[ok], i

    def result(self, sys_: EquilibriumSystem, lps: int, ms: float) -> ForceBounds:
        K, unit = self.K, sys_.unit_force_n
        mu = sys_.mu
        mag = np.linalg.norm(np.stack(self.F), axis=2) if self.F else np.zeros((0, K))  # (distributions, contacts)
        # the greatest resultant found among all distributions (sqrt(1 + mu^2) times the greatest normal at most)
        best = mag.argmax(axis=0)
        r_hi, w_rhi = mag[best, np.arange(K)], best
        cap = np.where(self.sums.axis == 2, math.sqrt(1 + mu * mu), 1.0) * self.hi
        # the least resultant: exact where a distribution carries the least normal force without friction there;
        # else the least found, and the least normal force below it
        least = mag.argmin(axis=0)
        exact = ~np.isnan(self.r_lo)
        r_lo = np.where(exact, self.r_lo, mag[least, np.arange(K)])
        w_rlo = np.where(exact, self.w_rlo, least)
        r_lo_cert = np.where(exact, self.r_lo, self.lo)
        ids = [b.id for b in sys_.boxes]
        out = []
        for k, c in enumerate(sys_.contacts):
            out.append(ContactBound(
                "table" if c.a == TABLE else ids[c.a], ids[c.b], (float(self.lo[k] * unit), float(self.hi[k] * unit)),
                (float(r_lo[k] * unit), float(r_hi[k] * unit)),
                (float(r_lo_cert[k] * unit), float(max(cap[k], r_hi[k]) * unit)),
                {"normal_least": int(self.w_lo[k]), "normal_greatest": int(self.w_hi[k]),
                 "resultant_least": int(w_rlo[k]), "resultant_greatest": int(w_rhi[k])},
                bridge=bool(self.determinate[k])))
        return ForceBounds(out, self.dists, sys_, lps, ms)

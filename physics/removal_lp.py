"""The statics judge of "the build without box i", for every i, from ONE set of LP models (the removal map's core).

Removing box i from the tilt LP of physics.statics changes only what touches i: its six equilibrium rows become
0 = 0 (their right-hand side, i's weight, and i's entries in the load column go to zero) and every contact-force
column acting on i is fixed at zero. So each ray LP is built once for the whole build, and for each i those
bounds are changed, the LP re-solved from the previous optimal basis (HiGHS's dual simplex repairs the few
columns that changed) and the bounds restored. On the 35-block start tower that takes about 5x fewer simplex
pivots than 35 cold judges.

The ray values are the same LP optima as the judge's (the load multiplier lambda is scale-free), and the margin
search below mirrors `judge_statics` step for step (initial rays every 45 degrees, then the certified refinement),
so the verdicts and margins agree with one `judge_statics(remove(boxes, [id]))` per box. Anything else, a build
that falls without i (the rescue and mechanism LPs), or a box whose removal a virtual-work test shows to drop
something, is handed to `judge_statics` itself.

This module builds on the statics judge's parts (`TiltProblem`, `LP`, `Columns`, the margin search) and
tests/test_physics_explain.py checks it against the judge.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np

import physics.tilt_lp as tilt
from physics.contacts import TABLE, Contact
from physics.lp import LP, ZERO_COEFF, Columns, cpus, highs
from physics.margin import deg, search
from physics.model import Box
from physics.statics import StaticsResult, judge_statics
from physics.threads import side_by_side
from physics.virtual_work import quick_fall

#: Start every removal's ray LP from the whole build's optimal basis for that direction (one change away) rather
#: than from the previous removal's (two changes away).
RESET_BASIS = True
#: HiGHS options of the removal models on top of the judge's.
WARM_OPTIONS: dict[str, object] = {"simplex_scale_strategy": 0}


def rest_contacts(contacts: Sequence[Contact], n: int, drop: int) -> list[Contact]:
    """The contacts of the build without box `drop`, re-indexed as in `remove` (later boxes move down one)."""
    out = []
    for c in contacts:
        if c.a == drop or c.b == drop:
            continue
        a = c.a if c.a == TABLE or c.a < drop else c.a - 1
        b = c.b if c.b < drop else c.b - 1
        out.append(Contact(a, b, c.axis, c.plane, c.rect))
    return out


class RemovalStatics:
    """Ray LPs of one build, re-solved per removed box (module docstring)."""

    def __init__(self, boxes: Sequence[Box], mu: float, inset: float, contacts: list[Contact]) -> None:
        self.boxes = list(boxes)
        self.mu, self.inset, self.contacts = mu, inset, contacts
        self.n = len(self.boxes)
        self.prob = tilt.TiltProblem(self.boxes, mu, inset, contacts)
        self.models: dict[object, LP] = {}  # per initial direction: only bounds change between removals
        self._phi: dict[object, float] = {}  # where each model's load column points
        self._basis: dict[object, object] = {}  # the whole build's optimal basis per initial direction
        self.lps = 0
        self._lock = threading.Lock()

    def _columns_of(self, G: Columns, box: int) -> np.ndarray:
        rows = G.indices
        hit = (rows >= 6 * box) & (rows < 6 * box + 6)
        cols = np.repeat(np.arange(G.cols), np.diff(G.indptr))[hit]
        return np.unique(cols).astype(np.int32)

    def _model(self, key: object, phi: float) -> tuple[LP, int]:
        """The model `key` (a direction of the initial rays, or a friction-pyramid turn for refinements) with its
        load column pointing along phi."""
        G = self.prob.generators(phi)
        k = G.cols
        d = (math.cos(phi), math.sin(phi))
        lp = self.models.get(key)
        if lp is None:
            c = np.zeros(k + 1)
            c[k] = -1.0
            lo = np.zeros(k + 1)
            hi = np.full(k + 1, math.inf)
            lo[k], hi[k] = -tilt.LAMBDA_CAP, tilt.LAMBDA_CAP
            lp = LP(Columns.hstack([G, self.prob.load_column(d)]), c, lo, hi, self.prob.b_eq,
                        self.prob.b_eq)
            for name, value in WARM_OPTIONS.items():
                lp.h.setOptionValue(name, value)
            self.models[key] = lp
            self._phi[key] = phi
            if RESET_BASIS and not isinstance(key, tuple):
                lp.solve()  # the whole build's optimum: every removal starts from it
                with self._lock:
                    self.lps += 1
                self._basis[key] = lp.h.getBasis()
        elif self._phi[key] != phi:
            lp.set_column(k, self.prob._load_rows, self.prob.load(d))
            self._phi[key] = phi
        if key in self._basis:
            lp.h.setBasis(self._basis[key])
        return lp, k

    def ray_without(self, phi: float, box: int, refine: bool = False) -> float | None:
        """Largest lambda along phi that the build without `box` survives (None: no equilibrium at all)."""
        lp, k = self._model(("turn", self.prob._key(phi)) if refine else phi, phi)
        h = lp.h
        cols = self._columns_of(self.prob.generators(phi), box)
        d = (math.cos(phi), math.sin(phi))
        rows = np.arange(6 * box, 6 * box + 6)
        zeros = np.zeros(len(cols))
        h.changeColsBounds(len(cols), cols, zeros, zeros)
        for r in rows:
            h.changeRowBounds(int(r), 0.0, 0.0)
        h.changeCoeff(6 * box, k, 0.0)
        h.changeCoeff(6 * box + 1, k, 0.0)
        try:
            x, _ = lp.solve()
        finally:
            h.changeColsBounds(len(cols), cols, zeros, np.full(len(cols), math.inf))
            for r in rows:
                h.changeRowBounds(int(r), float(self.prob.b_eq[r]), float(self.prob.b_eq[r]))
            for r, v in zip((6 * box, 6 * box + 1), (self.prob.m[box] * d[0], self.prob.m[box] * d[1]), strict=True):
                if abs(v) > ZERO_COEFF:
                    h.changeCoeff(r, k, v)
        with self._lock:  # two threads may count at once
            self.lps += 1
        return None if x is None else float(x[k])

    def judge_without(self, box: int, rays: dict[float, float | None]) -> StaticsResult | None:
        """The judge's answer for the build without `box`, given its initial rays (from `initial_rays`), or None
        when the judge itself must decide (it falls: the rescue and mechanism LPs are the judge's)."""
        if any(r is None or r < -tilt.STABLE_TOL for r in rays.values()):
            return None
        m = search(dict(rays), lambda phi: self._refine(phi, box), len(rays))
        return StaticsResult(True, deg(m.upper) + 0.0, (math.cos(m.phi), math.sin(m.phi)), 0.0, m.bounds_deg, (),
                             m.lps, 0)

    def _refine(self, phi: float, box: int) -> float | None:
        # refinements share one model per friction-pyramid turn (as the judge's do); only the load column turns
        return self.ray_without(phi, box, refine=True)


def statics_without_each(boxes: Sequence[Box], contacts: list[Contact], mu: float, inset: float,
                         which: Sequence[int], answered: Callable[[int, StaticsResult], None] | None = None
                         ) -> tuple[dict[int, StaticsResult], dict]:
    """For each box index in `which`: the statics answer of the build without it. Warm-started ray LPs where the
    rest stands; `judge_statics` itself where it falls (a virtual-work test already proves that, or one of its
    rays does: its other rays are then not solved). `answered(i, result)` is called in this thread as soon as a
    removal's answer is known (the removal map starts its PyBullet run then); the falling ones come first."""
    t0 = time.perf_counter()
    boxes = list(boxes)
    n = len(boxes)
    out: dict[int, StaticsResult] = {}

    def judged(i: int, res: StaticsResult) -> None:
        out[i] = res
        if answered is not None:
            answered(i, res)

    def rest_of(i: int) -> tuple[list[Box], list[Contact]]:
        return [b for j, b in enumerate(boxes) if j != i], rest_contacts(contacts, n, i)

    def cold_judge(i: int, rest: list[Box], sub: list[Contact]) -> None:
        judged(i, judge_statics(rest, mu=mu, com_inset=inset, contacts=sub))

    warm = RemovalStatics(boxes, mu, inset, contacts) if n > 1 and highs() else None
    todo = []
    for i in which:
        rest, sub = rest_of(i)
        if warm is not None and not quick_fall(rest, sub, inset):
            todo.append(i)
        else:
            cold_judge(i, rest, sub)
    phis = [2 * math.pi * k / tilt.INITIAL_DIRECTIONS for k in range(tilt.INITIAL_DIRECTIONS)]
    rays: dict[int, dict[float, float | None]] = {i: {} for i in todo}
    falling: set[int] = set()  # a ray found no equilibrium: judge_without would hand it to the judge

    def run(chunk: Sequence[float]) -> None:
        for phi in chunk:  # direction outside, removals inside: consecutive solves differ only in bounds
            for i in todo:
                if i in falling:
                    continue
                r = warm.ray_without(phi, i)
                rays[i][phi] = r
                if r is None or r < -tilt.STABLE_TOL:
                    falling.add(i)  # a set's add is atomic: the other thread at worst solves one ray more

    if todo and tilt.PARALLEL_RAYS and cpus() > 1:
        # the directions' models share nothing: half of them on a worker thread (HiGHS releases the GIL)
        side_by_side(lambda: run(phis[1::2]), lambda: run(phis[0::2]), "removal-rays")
    else:
        run(phis)
    for i in todo:  # the falling ones first: their PyBullet runs are the long ones
        if i in falling:
            cold_judge(i, *rest_of(i))
    for i in [i for i in todo if i not in falling]:
        res = warm.judge_without(i, rays[i])
        assert res is not None  # it hands a removal to the judge only for the rays `falling` caught
        judged(i, res)
    return out, {"warm_lps": 0 if warm is None else warm.lps, "warm": len(todo) - len(falling),
                 "cold": len(which) - len(todo) + len(falling), "ms": (time.perf_counter() - t0) * 1000}

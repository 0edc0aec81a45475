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
import multiprocessing
import queue
import resource
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

import physics.tilt_lp as tilt
from physics.contacts import TABLE, Contact
from physics.failure import failure_of
from physics.lp import IPM_MIN_ROWS, LP, ZERO_COEFF, Columns, cpus, highs
from physics.margin import deg, search
from physics.model import Box
from physics.statics import StaticsResult, judge_statics
from physics.symmetry import Symmetry, symmetries
from physics.threads import side_by_side
from physics.virtual_work import quick_fall

#: Start every removal's ray LP from the whole build's optimal basis for that direction (one change away) rather
#: than from the previous removal's (two changes away).
RESET_BASIS = True
#: HiGHS options of the removal models on top of the judge's.
WARM_OPTIONS: dict[str, object] = {"simplex_scale_strategy": 0}
#: Builds of this many boxes or more are mapped by `judge_statics` itself, one removal at a time, spread over
#: processes: their models have IPM_MIN_ROWS rows or more, where the judge leaves the simplex for the interior-point
#: method (and its symmetry), while the warm re-solves here are simplex only. On interlocked builds those ran away
#: (degenerate vertices): the 95-block running-bond wall's map took 3.4 times as long as judging each removal on
#: its own, the 189-block wall's 11 times (issue 44). Smaller builds keep them, degenerate ones too: the 46-block
#: Jenga tower's warm map took 68 start-tower verdicts, judged one by one 174 (bench_removal_map.py).
COLD_MIN_BOXES = IPM_MIN_ROWS // 6
#: A statics-only map's warm re-solves answer this many removals at a time (their rays, then their margins)
#: before starting the next ones, so that the first answers come within a second or two (the lab draws the map as
#: they come) rather than all at the end. (A map with PyBullet runs takes every falling removal first instead:
#: their runs are the long ones.)
ANSWER_PART = 6
#: The removals judged on their own run on this many forked processes at most (1: here, in order).
PROCESSES = 2
#: Judge one removal of each pair (or four) that a symmetry of the build maps onto each other, and mirror its
#: answer for the others (the judge's own rule for rays, physics.symmetry).
USE_SYMMETRY = True


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


_build: tuple | None = None  # in a worker process: (boxes, contacts, mu, inset) of the build being mapped


def _start_worker(build: tuple) -> None:
    global _build
    _build = build


def _judge_without(i: int) -> tuple[int, StaticsResult]:
    """In a worker: judge_statics of the build without box i."""
    assert _build is not None
    boxes, contacts, mu, inset = _build
    rest = [b for j, b in enumerate(boxes) if j != i]
    return i, judge_statics(rest, mu=mu, com_inset=inset, contacts=rest_contacts(contacts, len(boxes), i))


def mirrored(res: StaticsResult, g: Symmetry, boxes: Sequence[Box], contacts: list[Contact], j: int,
             inset: float, mu: float) -> StaticsResult:
    """The judge's answer for the build without box g.perm[j], from its answer `res` for the build without box j:
    the one build is the other's mirror image under g (a symmetry of the whole build), so its rays are the mirrored
    rays, its margin and bounds the same, its weakest direction and failing blocks the images (physics.symmetry)."""
    n = len(boxes)
    i = int(g.perm[j])
    rest_j = [k for k in range(n) if k != j]
    index_i = {k: a for a, k in enumerate(k for k in range(n) if k != i)}
    perm = np.array([index_i[int(g.perm[k])] for k in rest_j], dtype=np.int64)
    on_rest = Symmetry(g.name, g.flip, perm)
    fx, fy = (-1.0 if f else 1.0 for f in g.flip)
    d = (res.weakest_direction[0] * fx + 0.0, res.weakest_direction[1] * fy + 0.0)
    ids = {boxes[k].id: boxes[int(g.perm[k])].id for k in rest_j}
    failure = None
    if res.failure_of is not None:
        _, _, _, duals, load, _, sides = res.failure_of.args
        rest = [b for k, b in enumerate(boxes) if k != i]
        failure = failure_of(rest, rest_contacts(contacts, n, i), inset, on_rest.duals(duals),
                             None if load is None else d, mu, sides)
    friction = None if res.friction is None else replace(res.friction, forces=None, farkas=None)
    return replace(res, weakest_direction=d, mechanism=tuple(ids[m] for m in res.mechanism), failure_of=failure,
                   friction=friction)


def default_processes() -> int:
    """PROCESSES where there are as many CPUs and fork is available, else 1. Also 1 in a daemonic process (it may
    have no children) and in one under a CPU-time limit (RLIMIT_CPU: the lab's budgeted workers): forked workers
    would each get a fresh budget of their own."""
    if PROCESSES < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if multiprocessing.current_process().daemon or resource.getrlimit(resource.RLIMIT_CPU)[0] != resource.RLIM_INFINITY:
        return 1
    return max(1, min(PROCESSES, cpus()))


class OneByOne:
    """judge_statics of the build without box i, for each i submitted, on a pool of forked processes (the build
    reaches them through fork, the answers come back pickled) or, with one process, here, one at each `next()`
    (so a caller hears of each answer as it is found: the lab draws the map block by block). `next()`
    gives (i, answer) in the order they are found. Use it as a context manager: the pool is closed, and its
    workers waited for, whatever happens (no process is left behind)."""

    def __init__(self, boxes: Sequence[Box], contacts: list[Contact], mu: float, inset: float,
                 processes: int | None = None) -> None:
        self.build = (list(boxes), contacts, mu, inset)
        self.processes = default_processes() if processes is None else max(1, processes)
        self.pool: Any = None
        self.done: queue.Queue = queue.Queue()
        self.todo: deque[int] = deque()  # with one process: submitted, not yet judged
        self.pending = 0

    def submit(self, i: int) -> None:
        self.pending += 1
        if self.processes == 1:  # judged when its answer is asked for (`next`): answers come one by one
            self.todo.append(i)
            return
        if self.pool is None:
            self.pool = multiprocessing.get_context("fork").Pool(self.processes, initializer=_start_worker,
                                                                 initargs=(self.build,))
        self.pool.apply_async(_judge_without, (i,), callback=self.done.put, error_callback=self.done.put)

    def next(self) -> tuple[int, StaticsResult]:
        if self.processes == 1:
            global _build
            saved, _build = _build, self.build
            try:
                self.done.put(_judge_without(self.todo.popleft()))
            finally:
                _build = saved
        out = self.done.get()
        self.pending -= 1
        if isinstance(out, BaseException):
            raise out
        return out

    def __enter__(self) -> OneByOne:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if self.pool is not None:
            if kind is not None:
                self.pool.terminate()
            else:
                self.pool.close()
            self.pool.join()
            self.pool = None


def statics_without_each(boxes: Sequence[Box], contacts: list[Contact], mu: float, inset: float,
                         which: Sequence[int], answered: Callable[[int, StaticsResult], None] | None = None,
                         processes: int | None = None,
                         part_size: int | None = None) -> tuple[dict[int, StaticsResult], dict]:
    """For each box index in `which`: the statics answer of the build without it. Warm-started ray LPs where the
    rest stands; `judge_statics` itself where it falls (a virtual-work test already proves that, or one of its
    rays does: its other rays are then not solved). `answered(i, result)` is called in this thread as soon as a
    removal's answer is known (the removal map starts its PyBullet run then); the falling ones come first.
    Large builds (COLD_MIN_BOXES) are judged one removal at a time on `processes` processes
    (judged_one_by_one), each answer handed over as it comes. `part_size`: the warm re-solves answer that many
    removals at a time (ANSWER_PART: the first answers come at once; the falling ones first within each part)
    rather than all together (None: every falling one before every standing one)."""
    t0 = time.perf_counter()
    boxes = list(boxes)
    n = len(boxes)
    out: dict[int, StaticsResult] = {}
    warm = RemovalStatics(boxes, mu, inset, contacts) if 1 < n < COLD_MIN_BOXES and highs() else None
    if warm is None and n > 1:
        # a symmetry of the build maps the build without box j onto the build without its image i: one of them is
        # judged, the other is its mirror image (the same margin, the direction and the blocks mirrored)
        group = symmetries(boxes) if USE_SYMMETRY else []
        wanted = set(which)
        copies: dict[int, list[tuple[int, Symmetry]]] = {}
        for i in which:
            rep = next(((j, g) for g in group if (j := int(g.perm[i])) in copies), None)
            if rep is None:
                copies[i] = []
            else:
                copies[rep[0]].append((i, rep[1]))
        cold = 0
        with OneByOne(boxes, contacts, mu, inset, processes) as pool:
            for j in copies:
                pool.submit(j)
            while pool.pending:
                j, res = pool.next()
                cold += 1
                found = [(j, res)]
                if res.stable and not res.undecided:
                    found += [(i, mirrored(res, g, boxes, contacts, j, inset, mu)) for i, g in copies.get(j, ())]
                else:  # a falling build's margin comes from the rescue LP, whose vertex is not mirrored exactly
                    for i, _ in copies.get(j, ()):
                        pool.submit(i)
                for i, r in found:
                    if i in wanted:
                        out[i] = r
                        if answered is not None:
                            answered(i, r)
        return out, {"warm_lps": 0, "warm": 0, "cold": cold, "mirrored": len(which) - cold,
                     "ms": (time.perf_counter() - t0) * 1000, "one_by_one": True}

    def judged(i: int, res: StaticsResult) -> None:
        out[i] = res
        if answered is not None:
            answered(i, res)

    def rest_of(i: int) -> tuple[list[Box], list[Contact]]:
        return [b for j, b in enumerate(boxes) if j != i], rest_contacts(contacts, n, i)

    def cold_judge(i: int, rest: list[Box], sub: list[Contact]) -> None:
        judged(i, judge_statics(rest, mu=mu, com_inset=inset, contacts=sub))

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

    def run(chunk: Sequence[float], part: Sequence[int]) -> None:
        for phi in chunk:  # direction outside, removals inside: consecutive solves differ only in bounds
            for i in part:
                if i in falling:
                    continue
                r = warm.ray_without(phi, i)
                rays[i][phi] = r
                if r is None or r < -tilt.STABLE_TOL:
                    falling.add(i)  # a set's add is atomic: the other thread at worst solves one ray more

    # `part_size` removals at a time, each answered before the next are started (the lab draws the map as it
    # comes); every initial ray starts from the whole build's basis (RESET_BASIS) and the refinements come in the
    # same order, so the answers do not depend on the parts
    step = max(1, len(todo) if part_size is None else part_size)
    # (with parts, the first is one removal: its answer comes once the whole build's models are set up)
    bounds = [0, *range(1 if part_size else step, len(todo), step), len(todo)]
    for start, stop in zip(bounds, bounds[1:], strict=False):
        part = todo[start:stop]
        if not part:
            continue
        if tilt.PARALLEL_RAYS and cpus() > 1:
            # the directions' models share nothing: half of them on a worker thread (HiGHS releases the GIL)
            side_by_side(lambda part=part: run(phis[1::2], part), lambda part=part: run(phis[0::2], part),
                         "removal-rays")
        else:
            run(phis, part)
        for i in part:  # the falling ones first: their PyBullet runs are the long ones
            if i in falling:
                cold_judge(i, *rest_of(i))
        for i in [i for i in part if i not in falling]:
            res = warm.judge_without(i, rays[i])
            assert res is not None  # it hands a removal to the judge only for the rays `falling` caught
            judged(i, res)
    return out, {"warm_lps": 0 if warm is None else warm.lps, "warm": len(todo) - len(falling),
                 "cold": len(which) - len(todo) + len(falling), "ms": (time.perf_counter() - t0) * 1000}

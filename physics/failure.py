"""How a build starts to fail, read from the statics LP's dual: which blocks move, how, and whether they tip or
slide.

The duals of the equilibrium rows of the judge's critical LP (the weakest tilt ray of a standing build, the rescue
LP of a falling one) are a virtual motion of the blocks: per block a velocity v of its centre (the force rows)
and an angular velocity w (the moment rows, whose lever arms are in mean box sizes L, so w = dual / L). By LP
duality this is the collapse mechanism of limit analysis: the motion on which the loads do the most work per unit
the contacts can resist. Its sign is fixed by the driving load: gravity does positive work on a falling build's
motion, the tilt load on a standing build's.

Tip or slide: at the corners of every contact of a moving block the relative velocity of the two bodies is
v_b + w_b x (p - c_b) - (the same for a). A block tipping about an edge of a horizontal contact rotates about an
axis in the contact plane, so its corners only lift off (relative motion along the normal). A sliding block moves
along the contact (with the LP's associated flow it also lifts by mu per unit slid: the dilatancy of a friction
pyramid; the slide direction reported is the tangential part). The mode is "tip" when only rotation appears,
"slide" when friction contacts slip and nothing rotates, "tip-and-slide" when both, "drop" when nothing holds the
blocks at all (the judge found no dual: they fall straight down).

For large builds judged by parts (physics.parts) the duals come from the part that fails first, whose lever arms
use that part's mean box size: the rotation axes are then placed approximately.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from physics.contacts import TABLE, Contact, contact_corners
from physics.model import Box
from physics.units import DEFAULT_MU

#: A block moves in the failure mode when its largest dual is at least this share of the largest (the judge's
#: physics.tilt_lp.MECHANISM_REL_TOL).
MOVING_REL = 1e-3
#: Rotation (spin times the block's half diagonal) or slip below this share of the fastest block's speed is none.
MODE_REL = 0.02


@dataclass(frozen=True)
class BlockMotion:
    """One moving block's virtual motion: `velocity` of its centre (relative: the fastest centre's is 1),
    `spin` (radians per metre travelled by the fastest centre, a vector along the axis, right-handed) and, when it
    turns, `axis_point`: the point of the rotation axis nearest its centre (metres)."""

    block: str
    velocity: tuple[float, float, float]
    spin: tuple[float, float, float]
    axis_point: tuple[float, float, float] | None

    def to_json(self) -> dict:
        return {"block": self.block, "velocity": [round(v, 4) + 0.0 for v in self.velocity],
                "spin_rad_per_m": [round(v, 3) + 0.0 for v in self.spin],
                "axis_point": None if self.axis_point is None else [round(v, 5) + 0.0 for v in self.axis_point]}


@dataclass(frozen=True)
class Failure:
    """The failure mode: `mode` (tip, slide, tip-and-slide, drop), the moving blocks fastest first, and the
    contacts where blocks slip (`slides_on`) and pivot (`pivots_on`), each as (upper body, lower body)."""

    mode: str
    motions: tuple[BlockMotion, ...]
    slides_on: tuple[tuple[str, str], ...] = ()
    pivots_on: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict:
        return {"mode": self.mode, "blocks": [m.to_json() for m in self.motions],
                "slides_on": [list(p) for p in self.slides_on], "pivots_on": [list(p) for p in self.pivots_on]}


class failure_of:  # noqa: N801 - used like a function: the judge calls it to make the lazy answer
    """A lazily evaluated, cached `failure_mode` (the judge keeps it on its answer; most answers are never asked).
    A plain object, so verdicts still pickle (batch workers send them back)."""

    def __init__(self, boxes: Sequence[Box], contacts: list[Contact], inset: float, duals: np.ndarray | None,
                 load: tuple[float, float] | None, mu: float = DEFAULT_MU, sides: int | None = None) -> None:
        self.args = (list(boxes), contacts, inset, duals, load, mu, sides)
        self.done = False
        self.answer: Failure | None = None

    def __call__(self) -> Failure | None:
        if not self.done:
            self.answer = failure_mode(*self.args)
            self.done = True
        return self.answer


#: Gauss's least constraint is solved with this much of the forces' own norm added (in mean block weights): small
#: enough that the accelerations are those of the unregularised problem to ~1e-3, large enough to keep Newton's steps
#: well conditioned (at 1e-6 some start towers without a block took hundreds of steps).
GAUSS_EPS = 1e-4
#: ... and stopped when every block's balance is off by less than this (mean block weights; the accelerations are
#: then good to ~1e-4 of the fastest), or after GAUSS_ITERATIONS steps (5-10 are usual): tighter stops cost
#: hundreds of steps on a start tower without a grey block, for digits nobody draws.
GAUSS_TOL, GAUSS_ITERATIONS = 1e-6, 50


def inertia_metric(boxes: Sequence[Box], m: np.ndarray, L: float) -> np.ndarray:
    """Per row of the judge's duals (per block 3 translation, 3 rotation times L), the blocks' masses and
    moments of inertia in the LPs' units (mean block masses, lengths in L): y.(metric * y) is twice the
    kinetic energy of the motion y."""
    size = np.array([b.size for b in boxes], dtype=float) / L
    inertia = np.stack([size[:, 1] ** 2 + size[:, 2] ** 2, size[:, 0] ** 2 + size[:, 2] ** 2,
                        size[:, 0] ** 2 + size[:, 1] ** 2], axis=1) * m[:, None] / 12
    return np.concatenate([np.repeat(m[:, None], 3, axis=1), inertia], axis=1).ravel()


#: The least-energy motion may give up this share of the ray's optimum (the LP's own tolerance is ~1e-9) ...
FACE_REL_TOL = 1e-8
#: ... is refined on the constraints it holds within this share of the largest (the interior point's are ~1e-9;
#: those it does not hold are of order 1) ...
ACTIVE_TOL = 1e-6
#: ... by least squares that counts singular values below this share of the largest as 0 ...
RANK_TOL = 1e-9
#: ... and its rows below this share of the largest are rounding noise.
ZERO_MOTION = 1e-12


def least_motion(boxes: Sequence[Box], contacts: list[Contact], inset: float, duals: np.ndarray,
                 load: tuple[float, float], mu: float, sides: int) -> np.ndarray:
    """How a standing build starts to move once the table tilts past its weakest ray: the motion of least kinetic
    energy among the ray LP's optimal duals (rows like theirs), or `duals` itself when that cannot be found.

    The ray's optimal duals form a face of its dual polyhedron (a cube sliding on a friction pyramid may slip
    anywhere within 45 degrees of the load, spinning or not), and the simplex stops at any vertex of it (which one
    changes with its pivots, so with the code's and HiGHS's versions). Gauss's least constraint at a load just beyond the ray (the load's work on a
    motion a is ray.a - b.a + delta * l.a, the first part <= 0 on every admissible motion and 0 on the face only)
    tends, as delta -> 0, to the motion of the face with l.a = 1 whose kinetic energy a.(metric * a) is least:
    unique (a strictly convex QP over a convex set), solved by Clarabel. `sides`: of the ray LP's pyramid."""
    from physics.lp import IPM_SETTINGS, clarabel  # noqa: PLC0415 - only when a standing build's failure is asked
    from physics.tilt_lp import TiltProblem  # noqa: PLC0415

    cl = clarabel()
    prob = TiltProblem(boxes, mu, inset, contacts, sides=sides)
    n6 = 6 * prob.n
    y0 = np.asarray(duals[:n6], dtype=float)
    G = prob.generators(math.atan2(load[1], load[0])).scipy()
    ell = prob.load_column(load, keep_zeros=True).scipy().toarray().ravel()  # the tilt load's column
    work = float(ell @ y0)
    if not cl or work == 0:
        return y0
    y0 = y0 / work  # the dual's own sign: G^T y0 >= 0, b.y0 = the ray
    level = float(prob.b_eq @ y0)
    if (G.T @ y0).min() < -1e-6 * max(1.0, float(np.abs(y0).max())):  # not the duals of this LP (a capped ray)
        return np.asarray(duals[:n6], dtype=float)
    import scipy.sparse as sp  # noqa: PLC0415

    A = sp.vstack([sp.csr_matrix(ell), -G.T, sp.csr_matrix(prob.b_eq)], format="csc")
    b = np.concatenate([[1.0], np.zeros(G.shape[1]), [level + FACE_REL_TOL * max(1.0, abs(level))]])
    settings = cl.DefaultSettings()
    for key, value in IPM_SETTINGS.items():
        setattr(settings, key, value)
    metric = inertia_metric(prob.boxes, prob.m, prob.L)
    sol = cl.DefaultSolver(sp.diags(metric, format="csc"), np.zeros(n6), A, b,
                           [cl.ZeroConeT(1), cl.NonnegativeConeT(A.shape[0] - 1)], settings).solve()
    if not str(sol.status).endswith("Solved"):
        return np.asarray(duals[:n6], dtype=float)
    y = np.asarray(sol.x)
    # the interior point is good to ~1e-9: the exact minimiser is that of the affine set its active constraints
    # span (the generators it does not slip off, the load's work 1, the face's level), by least squares
    scale = np.sqrt(metric)
    slack = G.T @ y
    rows = sp.vstack([G[:, slack <= ACTIVE_TOL * max(1.0, float(np.abs(slack).max()))].T, sp.csr_matrix(ell),
                      sp.csr_matrix(prob.b_eq)]).toarray() / scale
    rhs = np.zeros(rows.shape[0])
    rhs[-2:] = 1.0, level
    # (a rank cut well above rounding: the face's rows are dependent, and noise must not pick a vertex again)
    exact = np.linalg.lstsq(rows, rhs, rcond=RANK_TOL)[0] / scale
    if np.allclose(rows @ (exact * scale), rhs, atol=1e-9) and (G.T @ exact).min() >= -1e-9:
        y = exact
    # (exact zeros where the motion has none: a cube sliding without turning reports no spin of 1e-17)
    y[np.abs(y) < ZERO_MOTION * float(np.abs(y).max())] = 0.0
    return y


def initial_motion(boxes: Sequence[Box], contacts: list[Contact], inset: float, mu: float) -> np.ndarray | None:
    """How a falling build starts to move: the blocks' accelerations from rest by Gauss's principle of least
    constraint, as rows like the judge's duals (per block 3 translation, then 3 rotation times the mean box size).

    Among all motions the contacts allow (no corner sinks into what it rests on; with the friction sets of
    physics.equilibrium, whose associated flow lets a slipping corner lift by mu per unit slid), the real one
    maximises the work of gravity minus half the kinetic energy rate it costs (sum m |a|^2 + w.I w). That is the
    dual of balancing the blocks as well as the contacts can (the unbalanced force, weighted by the inverse
    inertia, is least), solved here as the minimum-norm forces are (physics.newton.dual_newton), with the
    blocks' inertia as the metric. Unlike an LP's dual, whose vertex may set blocks that merely ride along in
    motion at any speed, this motion is unique and weighs each block by its inertia: it is the one PyBullet's first
    steps follow (tests/test_physics_failure.py)."""
    from physics.equilibrium import EquilibriumSystem  # noqa: PLC0415 - only for falling builds, when asked
    from physics.newton import dual_newton  # noqa: PLC0415

    sys_ = EquilibriumSystem(boxes, mu, inset, contacts)
    metric = inertia_metric(sys_.boxes, sys_.m, sys_.L)
    # the accelerations need only a few digits (they are drawn and compared in direction): a looser stop than the
    # forces' 1e-10, which the small rotational inertias keep Newton from reaching
    _, y, _ = dual_newton(sys_, np.zeros(6 * sys_.n), metric=metric, eps=GAUSS_EPS, tol=GAUSS_TOL,
                          max_iter=GAUSS_ITERATIONS)
    return y


def failure_mode(boxes: Sequence[Box], contacts: list[Contact], inset: float, duals: np.ndarray | None,
                 load: tuple[float, float] | None, mu: float = DEFAULT_MU,
                 sides: int | None = None) -> Failure | None:
    """The failure mode from the critical LP's equilibrium-row duals (module docstring). `load`: the direction of
    the tilt load for a standing build's weakest ray, None for a falling build (gravity drives it); duals None:
    a falling build no tilt holds (they come from `unbalanced_duals`). `sides`: of the friction pyramid of the
    whole build's ray LP the duals come from (the least-energy motion of its optimal face is taken), None when
    they come from elsewhere (a part of a large build: the duals are taken as they are)."""
    boxes = list(boxes)
    n = len(boxes)
    if n == 0:
        return None
    if load is None:  # a falling build: how it really starts to move
        duals = initial_motion(boxes, contacts, inset, mu)
    elif duals is not None and sides is not None:  # a standing build: not the solver's choice of vertex
        duals = least_motion(boxes, contacts, inset, duals, load, mu, sides)
    if duals is None:
        return None
    y = np.asarray(duals[:6 * n], dtype=float).reshape(n, 6)
    size = np.array([b.size for b in boxes], dtype=float)
    L = float(size.mean())
    centre = np.array([b.lo for b in boxes], dtype=float) + size / 2
    mass = np.array([b.mass for b in boxes], dtype=float)
    v, w = y[:, :3], y[:, 3:] / L
    if load is None:
        work = -float(mass @ v[:, 2])  # gravity's work on the motion
    else:
        work = float(mass @ (v[:, 0] * load[0] + v[:, 1] * load[1]))  # the tilt load's work
    if work < 0:
        v, w = -v, -w
    strength = np.abs(y).max(axis=1)
    if strength.max() <= 0:
        return None
    moving = np.flatnonzero(strength > MOVING_REL * strength.max())
    moving = moving[np.argsort(-strength[moving], kind="stable")]
    half_diag = np.linalg.norm(size, axis=1) / 2
    speed = float(np.linalg.norm(v[moving], axis=1).max())
    if speed <= 1e-9 * float((np.linalg.norm(w[moving], axis=1) * half_diag[moving]).max()):
        speed = float((np.linalg.norm(w[moving], axis=1) * half_diag[moving]).max())  # turning in place
    v, w = v / speed, w / speed
    turning = np.linalg.norm(w, axis=1) * half_diag > MODE_REL
    motions = []
    for i in moving.tolist():
        axis_point = None
        if turning[i]:
            ww = float(w[i] @ w[i])
            axis_point = tuple(float(c) for c in centre[i] + np.cross(w[i], v[i]) / ww)
        motions.append(BlockMotion(boxes[i].id, tuple(float(c) for c in v[i]), tuple(float(c) for c in w[i]),
                                   axis_point))
    slides, pivots = _contacts_in_motion(boxes, contacts, inset, centre, v, w, set(moving.tolist()))
    rotate = bool(turning[moving].any())
    # neither turning nor slipping on a friction contact: the blocks fall straight off what holds them (side faces)
    mode = "tip-and-slide" if slides and rotate else "slide" if slides else "tip" if rotate else "drop"
    return Failure(mode, tuple(motions), tuple(slides), tuple(pivots))


def _contacts_in_motion(boxes: list[Box], contacts: list[Contact], inset: float, centre: np.ndarray, v: np.ndarray,
                        w: np.ndarray, moving: set[int]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Horizontal contacts of moving blocks where the two bodies slip against each other, and those where one
    turns about an edge (some corners stay, others lift off)."""
    ids = [b.id for b in boxes]
    idx = [k for k, c in enumerate(contacts) if c.axis == 2 and (c.b in moving or c.a in moving)]
    if not idx:
        return [], []
    sub = [contacts[k] for k in idx]
    which, pts, _ = contact_corners(sub, inset)

    def velocity(body: np.ndarray, p: np.ndarray) -> np.ndarray:
        out = np.zeros_like(p)
        ok = body != TABLE
        out[ok] = v[body[ok]] + np.cross(w[body[ok]], p[ok] - centre[body[ok]])
        return out

    a = np.array([c.a for c in sub])[which]
    b = np.array([c.b for c in sub])[which]
    rel = velocity(b, pts) - velocity(a, pts)
    lift = rel[:, 2]
    slip = np.hypot(rel[:, 0], rel[:, 1])
    slides, pivots = [], []
    for j, c in enumerate(sub):
        mine = which == j
        name = (ids[c.b], "table" if c.a == TABLE else ids[c.a])
        if slip[mine].max() > MODE_REL:
            slides.append(name)
        elif lift[mine].max() > MODE_REL and lift[mine].min() <= MODE_REL * 0.5:
            pivots.append(name)
    return slides, pivots


def describe(failure: Failure | None) -> str:
    """The mode in words: "slides", "tips over", "tips and slides", "drops"."""
    if failure is None:
        return "tips over"
    return {"slide": "slides", "tip": "tips over", "tip-and-slide": "tips and slides",
            "drop": "drops"}[failure.mode]


def heading(velocity: Sequence[float]) -> float:
    """The horizontal direction (radians from +x) of a velocity; NaN when it is (nearly) vertical."""
    return math.atan2(velocity[1], velocity[0]) if math.hypot(velocity[0], velocity[1]) > 1e-9 else math.nan

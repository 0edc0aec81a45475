"""Dynamics judge: the build as rigid bodies in PyBullet (DIRECT mode, one private client per call).

pybullet is imported lazily (and with its build-time banner on stdout suppressed), so `import physics` stays light
and `tower check --json` prints only JSON.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections import deque
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from physics.model import Box
from physics.units import DEFAULT_MU, GRAVITY

#: Simulation step (s) and sequential-impulse solver iterations per step, chosen by the drift measurements in
#: docs/physics.md (`benchmarks/bench_physics.py --drift`): at 1/240 s a 10-cube column rocks by +-2 mm (4 mm
#: peak) whatever the iterations; at 1/480 s with 50 iterations it stays within 0.6 mm and the 35-block towers
#: within 0.1 mm. The cost barely grows (the residual exit below ends most steps' iterations early).
TIME_STEP_S = 1.0 / 480
SOLVER_ITERATIONS = 50
#: Contact ERP (fraction of penetration corrected per step). Bullet's default 0.2 lets the column's stacked
#: contacts sink and creep by millimetres; 0.8 closes penetration faster without bounce (restitution is 0).
CONTACT_ERP = 0.8
#: Solver early exit: stop iterating once the squared impulse change of an iteration is below this. It is an
#: absolute number, so masses are rescaled to a mean of SIM_MEAN_MASS_KG first (rigid contact dynamics with
#: Coulomb friction is unchanged when every mass is multiplied by one constant). Measured: halves the 35-block
#: cost, column drift unchanged (docs/physics.md).
SOLVER_RESIDUAL = 1e-5
#: Bullet keeps a contact point, and widens every box's bounding box for the broad phase, by this distance (m).
#: Its default, 20 mm, half the game's cube, makes every cube of a slab a candidate pair of the cubes two columns
#: away. 2 mm is more than a box moves in one step until it falls at ~1 m/s (2 mm per 1/480 s step: 5 cm of free
#: fall, long after a collapse is certain), and costs the 2,000-cube slab ~20 % less per step (docs/physics.md).
CONTACT_BREAKING_M = 0.002
SIM_MEAN_MASS_KG = 1.0
#: Tall builds: a chain of at least TALL_LAYERS boxes each resting on the one below (a column of 20 cubes, a hollow
#: tower of 20 courses) are set down gently: gravity grows from 0 to g over TALL_GRAVITY_RAMP_S, and contacts
#: correct TALL_CONTACT_ERP of their penetration per step. Measured (docs/physics.md, "Tall builds"): at full
#: gravity from the first step the sequential-impulse solver, starting from zero impulses, lets the upper courses
#: fall freely for ~20 ms (a 20-cube column's top sinks 2.3 mm), and ERP 0.8 then throws them up (a 400-block
#: hollow tower's top course 30 mm, a 40-cube column 1.1 m); more iterations made it worse, split impulse and the
#: MLCP solvers did not help; the ramp lets the warm-started impulses build up with the load, and the lower ERP
#: stops the overshoot. Shorter builds keep the settings above (their drift, and every verdict of the benchmarks).
TALL_LAYERS = 16
TALL_GRAVITY_RAMP_S = 0.2
TALL_CONTACT_ERP = 0.4
#: Every box is one Bullet rigid body (maximal coordinates): a step costs about half of what PyBullet's default
#: (one Featherstone multibody per box) costs on the 35-block towers, and at scale far less (slabs of cubes: 18 ms
#: vs 350 ms per step at 200 boxes, 108 ms vs 2 s at 392). The two formulations differ on knife-edge balances, above
#: all on zero-area edge-on-edge contacts, which the rigid-body solver holds at any time step. So the half-step
#: re-run of physics.verdict uses multibodies (`reduced=True`) on builds below this many boxes, where they are
#: affordable: on the 551 benchmark builds that keeps the judges' agreement of the multibody-only judge (99.7 % of
#: the non-marginal builds), changes 2 verdicts (both now MuJoCo's), and costs 0.66x its CPU (docs/physics.md).
REDUCED_RECHECK_MAX_BOXES = 64
#: Poses and velocities are read every this many steps (1/60 s at 480 Hz): the collapse thresholds are far
#: coarser than what a block moves in 17 ms, and reading 35 poses per step would cost as much as the physics.
CHECK_EVERY = 8
#: Collapse thresholds (docs/formats.md, "stability"): a block moved more than 10 mm or turned more than 10 degrees.
COLLAPSE_MOVE_MM = 10.0
COLLAPSE_TURN_DEG = 10.0
#: At rest: over the last REST_WINDOW_S every block moved less than REST_MOVE_M and turned less than
#: REST_TURN_DEG, i.e. its mean speed stayed under 0.5 mm/s and 0.5 deg/s. The mean over the window, not the
#: speed read at one instant: Bullet's iterative solver leaves standing towers chattering at up to ~8 deg/s and
#: ~4 mm/s around a fixed pose (amplitudes of micrometres), which kept instantaneous-speed tests from ever seeing
#: rest on most start towers (2 s simulated instead of 0.4).
REST_WINDOW_S = 0.1
REST_MOVE_M = 0.00005
REST_TURN_DEG = 0.05
#: ... tested from this time on. A block whose centre is a distance e past its support edge tips with angular
#: acceleration ~ g e / (2/3 edge^2) (a 4 cm cube: ~9 rad/s2 per mm), so by 0.25 s even e = 10 micrometres turns
#: faster than the rest threshold; builds balanced on a knife edge that Bullet's noise tips over were all moving
#: 3x faster than the threshold (or more) before their collapse, on the 551 benchmark builds (docs/physics.md).
REST_MIN_S = 0.25
#: Recorded runs (record_trajectory=True: the viewer's what-if and collapse animations) keep the earlier rest test:
#: every speed read under 0.5 mm/s and 0.5 deg/s at every check for 0.2 s, after at least 0.4 s. Under the
#: solver's chatter it seldom fires once something has fallen, so an animation shows the fall and the settling
#: (the viewer's collapse GIF is cut from it) and a build that stays put is recorded for 0.4 s, as before.
TRAJECTORY_REST_SPEED_M_S = 0.0005
TRAJECTORY_REST_SPIN_RAD_S = math.radians(0.5)
TRAJECTORY_REST_WINDOW_S = 0.2
TRAJECTORY_REST_MIN_S = 0.4
#: Trajectory frames per second when recording (enough for a smooth viewer animation).
TRAJECTORY_FPS = 30

_pybullet: Any = None


def _flush_c_stdout() -> None:
    """fflush(NULL) through libc, if there is one."""
    try:
        import ctypes  # noqa: PLC0415

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def _import_pybullet() -> Any:
    """Import pybullet once with file descriptors 1 and 2 pointed at /dev/null.

    Its build-time banner must not reach stdout (`--json` output); this wheel writes it to stderr, others to
    stdout, so both are silenced, and C's stdio buffer is flushed before they are restored.
    """
    global _pybullet
    if _pybullet is None:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = {fd: os.dup(fd) for fd in (1, 2)}
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            for fd in saved:
                os.dup2(devnull, fd)
            os.close(devnull)
            import pybullet  # noqa: PLC0415

            _pybullet = pybullet
            _flush_c_stdout()
        finally:
            for fd, keep in saved.items():
                os.dup2(keep, fd)
                os.close(keep)
    return _pybullet


def load_pybullet() -> None:
    """Import pybullet now (a worker warming up), its banner silenced as for every other use."""
    _import_pybullet()


def connect() -> int:
    """A private PyBullet client (DIRECT mode) for `judge_dynamics(..., client=...)`; `disconnect` it when done."""
    pb = _import_pybullet()
    return pb.connect(pb.DIRECT)


def disconnect(client: int) -> None:
    """Close a client from `connect`."""
    _import_pybullet().disconnect(physicsClientId=client)


@dataclass(frozen=True)
class DynamicsResult:
    """The dynamics judge's answer: did anything move more than the collapse thresholds, and how far."""

    collapsed: bool
    moved: tuple[str, ...]
    max_displacement_mm: float
    max_rotation_deg: float
    simulated_s: float
    ms: float
    trajectory: list[dict] | None = field(default=None, repr=False)
    settings: dict = field(default_factory=dict)
    engine: str = "pybullet"  # or "mujoco" (physics.mujoco_judge)

    def to_json(self, detail: bool = False) -> dict:
        """The `dynamics` object of the stability verdict (docs/formats.md) (plus the simulation settings when `detail`)."""
        d = {"engine": self.engine, "collapsed": self.collapsed, "moved": list(self.moved),
             "max_displacement_mm": round(self.max_displacement_mm, 2),
             "max_rotation_deg": round(self.max_rotation_deg, 2), "simulated_s": round(self.simulated_s, 3),
             "ms": round(self.ms, 1)}
        if detail:
            d["settings"] = dict(self.settings)
        return d


def _turn_deg(q: Sequence[float]) -> float:
    """Rotation angle of quaternion (x, y, z, w) away from the identity (the boxes start unrotated)."""
    return math.degrees(2 * math.acos(min(1.0, abs(q[3]))))


def _turn_between_deg(p: Sequence[float], q: Sequence[float]) -> float:
    """Rotation angle between two orientations (x, y, z, w), accurate for tiny angles (atan2, not acos)."""
    # vector and scalar parts of conj(p) * q
    w = p[3] * q[3] + p[0] * q[0] + p[1] * q[1] + p[2] * q[2]
    x = p[3] * q[0] - p[0] * q[3] - p[1] * q[2] + p[2] * q[1]
    y = p[3] * q[1] + p[0] * q[2] - p[1] * q[3] - p[2] * q[0]
    z = p[3] * q[2] - p[0] * q[1] + p[1] * q[0] - p[2] * q[3]
    return math.degrees(2 * math.atan2(math.sqrt(x * x + y * y + z * z), abs(w)))


def support_layers(boxes: Sequence[Box]) -> int:
    """The longest chain of boxes each resting on the one below (1 for boxes on the table alone)."""
    from physics.contacts import TABLE, find_contacts, resting_on  # noqa: PLC0415

    under = resting_on(find_contacts(boxes))
    depth: dict[int, int] = {}
    for i in sorted(range(len(boxes)), key=lambda k: boxes[k].lo[2]):  # a box's supports lie lower
        depth[i] = 1 + max((depth.get(a, 1) for a in under.get(i, ()) if a != TABLE), default=0)
    return max(depth.values(), default=0)


def _create_bodies(pb: Any, cid: int, boxes: Sequence[Box], masses: Sequence[float], maximal: bool) -> list[int]:
    """One body per box, in the boxes' order; boxes of one size share a collision shape, and a run of consecutive
    boxes of one size and mass is created by one batch call. The bodies and their order are the same as one call
    per box gives (so are the simulations: tests/test_physics_dynamics.py), at a fraction of the cost: pybullet
    spends ~0.3-0.6 ms on each `createMultiBody` call, more than 35 boxes' first steps."""
    shapes: dict[tuple[float, ...], int] = {}
    out: list[int] = []
    k = 0
    while k < len(boxes):
        size, mass = tuple(boxes[k].size), masses[k]
        j = k + 1
        while j < len(boxes) and tuple(boxes[j].size) == size and masses[j] == mass:
            j += 1
        if size not in shapes:
            shapes[size] = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[s / 2 for s in size], physicsClientId=cid)
        if j - k == 1 or not maximal:  # a batch of multibodies registers only its first body (pybullet 3.2)
            out.extend(pb.createMultiBody(mass, shapes[size], basePosition=b.centre, useMaximalCoordinates=maximal,
                                          physicsClientId=cid) for b in boxes[k:j])
        else:
            out.extend(pb.createMultiBody(mass, shapes[size], batchPositions=[b.centre for b in boxes[k:j]],
                                          useMaximalCoordinates=True, physicsClientId=cid))
        k = j
    return out


def judge_dynamics(boxes: Sequence[Box], mu: float = DEFAULT_MU, seconds: float = 2.0,
                   record_trajectory: bool = False, early_stop: bool = True,
                   time_step: float = TIME_STEP_S, solver_iterations: int = SOLVER_ITERATIONS,
                   fixed: Collection[str] = (), client: int | None = None,
                   reduced: bool = False) -> DynamicsResult:
    """Simulate the build for `seconds` and report whether (and which) blocks moved past the collapse thresholds.

    early_stop ends the run once a collapse is certain or once every block has been at rest (REST_MOVE_M,
    REST_TURN_DEG) over the last REST_WINDOW_S, from REST_MIN_S on. While recording, it ends the run only at rest,
    by the earlier test (TRAJECTORY_REST_*): the viewer wants the whole fall. `fixed`: ids of boxes simulated as
    immovable (mass 0) obstacles, e.g. the part of a build that cannot take part in the fall statics found
    (physics.moving_part); they never count as moved and are left out of the rest test. `client`: a PyBullet
    client (from `connect`) to run in, emptied first and left connected, instead of a private one per call: it
    saves the connection's cost when many builds are simulated in a row (same results). `reduced`: one Featherstone
    multibody per box instead of one rigid body (REDUCED_RECHECK_MAX_BOXES; slower, and holds no edge-on-edge
    balance). Trajectory frames are {"t": s, "poses": {id: [[x, y, z],
    [qx, qy, qz, qw]]}} with box centres in metres, at TRAJECTORY_FPS, including t = 0.
    """
    t0 = time.perf_counter()
    pb = _import_pybullet()
    boxes = list(boxes)
    maximal = not reduced
    tall = support_layers(boxes) >= TALL_LAYERS
    erp, ramp_s = (TALL_CONTACT_ERP, TALL_GRAVITY_RAMP_S) if tall else (CONTACT_ERP, 0.0)
    settings = {"time_step_s": time_step, "solver_iterations": solver_iterations, "contact_erp": erp,
                "mu": mu, "maximal_coordinates": maximal}
    if tall:
        settings["gravity_ramp_s"] = ramp_s
    fixed = set(fixed)
    if fixed:
        settings["fixed_boxes"] = len([b for b in boxes if b.id in fixed])
    cid = pb.connect(pb.DIRECT) if client is None else client
    try:
        if client is not None:
            pb.resetSimulation(physicsClientId=cid)
        pb.setGravity(0, 0, -GRAVITY, physicsClientId=cid)
        pb.setPhysicsEngineParameter(fixedTimeStep=time_step, numSolverIterations=solver_iterations,
                                     numSubSteps=0, contactERP=erp, enableConeFriction=0,
                                     solverResidualThreshold=SOLVER_RESIDUAL,
                                     deterministicOverlappingPairs=1,
                                     contactBreakingThreshold=CONTACT_BREAKING_M, physicsClientId=cid)
        body_mu = math.sqrt(mu)  # Bullet's pair friction is the product of the two bodies' values
        # the table is of the same kind as the boxes: a rigid-body table under rigid boxes makes their contacts
        # plain rigid-body ones (a multibody table costs the 2,000-cube slab 20 % more per step)
        plane = pb.createMultiBody(0, pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=cid),
                                   useMaximalCoordinates=maximal, physicsClientId=cid)
        ids = []
        start = []
        fixed_bodies = []
        # the scale of the whole build, fixed boxes included: the moving ones get the masses of the full simulation
        mass_scale = SIM_MEAN_MASS_KG * len(boxes) / max(sum(b.mass for b in boxes), 1e-300)
        masses = [0.0 if b.id in fixed else b.mass * mass_scale for b in boxes]
        for b, body in zip(boxes, _create_bodies(pb, cid, boxes, masses, maximal), strict=True):
            (fixed_bodies if b.id in fixed else ids).append(body)
            if b.id not in fixed:
                start.append(b.centre)
        free = [b for b in boxes if b.id not in fixed]
        for body in [plane, *fixed_bodies, *ids]:
            pb.changeDynamics(body, -1, lateralFriction=body_mu, spinningFriction=0, rollingFriction=0,
                              restitution=0, linearDamping=0, angularDamping=0, frictionAnchor=1,
                              activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING, physicsClientId=cid)

        n_steps = max(1, round(seconds / time_step))
        frame_every = max(1, round(1 / (TRAJECTORY_FPS * time_step)))
        window_checks = max(1, round(REST_WINDOW_S / (CHECK_EVERY * time_step)))
        min_rest_step = round((REST_MIN_S + ramp_s) / time_step)  # at rest under full gravity
        ramp_steps = round(ramp_s / time_step)
        history: deque[list[tuple]] = deque(maxlen=window_checks + 1)  # poses at the last regular checks
        rec_rest_steps = max(1, round(TRAJECTORY_REST_WINDOW_S / time_step))
        rec_min_step = round(TRAJECTORY_REST_MIN_S / time_step)
        moving_at = 0  # recorded runs: the last checked step at which something was still moving
        max_disp = [0.0] * len(free)
        max_turn = [0.0] * len(free)
        trajectory: list[dict] | None = [] if record_trajectory else None
        if trajectory is not None:
            trajectory.append({"t": 0.0, "poses": {b.id: [list(b.centre), [0.0, 0.0, 0.0, 1.0]]
                                                   for b in boxes}})
        step = 0
        while step < n_steps:
            if step < ramp_steps:
                pb.setGravity(0, 0, -GRAVITY * (step + 1) / ramp_steps, physicsClientId=cid)
            pb.stepSimulation(physicsClientId=cid)
            step += 1
            frame = trajectory is not None and step % frame_every == 0
            regular = step % CHECK_EVERY == 0
            if not regular and not frame and step < n_steps:
                continue
            poses = [pb.getBasePositionAndOrientation(body, physicsClientId=cid) for body in ids]
            for k, (pos, q) in enumerate(poses):
                d = math.dist(pos, start[k]) * 1000
                if d > max_disp[k]:
                    max_disp[k] = d
                a = _turn_deg(q)
                if a > max_turn[k]:
                    max_turn[k] = a
            if frame:
                trajectory.append({"t": step * time_step,
                                   "poses": {free[k].id: [list(pos), list(q)] for k, (pos, q) in enumerate(poses)}})
            if trajectory is not None:  # recorded run: the earlier rest test (TRAJECTORY_REST_*)
                for body in ids:
                    v, w = pb.getBaseVelocity(body, physicsClientId=cid)
                    if math.hypot(*v) > TRAJECTORY_REST_SPEED_M_S or math.hypot(*w) > TRAJECTORY_REST_SPIN_RAD_S:
                        moving_at = step
                        break
                if early_stop and step - moving_at >= rec_rest_steps and step >= rec_min_step:
                    break
                continue
            if not regular:
                continue
            history.append(poses)
            if not early_stop:
                continue
            if step >= min_rest_step and len(history) > window_checks and all(
                    math.dist(pos, p0) <= REST_MOVE_M and _turn_between_deg(q0, q) <= REST_TURN_DEG
                    for (pos, q), (p0, q0) in zip(poses, history[0], strict=True)):
                break
            if max(max_disp, default=0.0) > COLLAPSE_MOVE_MM or max(max_turn, default=0.0) > COLLAPSE_TURN_DEG:
                break
    finally:
        if client is None:
            pb.disconnect(physicsClientId=cid)
    moved = tuple(b.id for k, b in enumerate(free)
                  if max_disp[k] > COLLAPSE_MOVE_MM or max_turn[k] > COLLAPSE_TURN_DEG)
    return DynamicsResult(bool(moved), moved, max(max_disp, default=0.0), max(max_turn, default=0.0),
                          step * time_step, (time.perf_counter() - t0) * 1000, trajectory, settings)

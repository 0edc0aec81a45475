"""Dynamics judge: the build as rigid bodies in PyBullet (DIRECT mode, one private client per call).

pybullet is imported lazily (and with its build-time banner on stdout suppressed), so `import physics` stays light
and `tower check --json` prints only JSON.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Sequence
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
SIM_MEAN_MASS_KG = 1.0
#: Poses and velocities are read every this many steps (1/60 s at 480 Hz): the collapse thresholds are far
#: coarser than what a block moves in 17 ms, and reading 35 poses per step would cost as much as the physics.
CHECK_EVERY = 8
#: Collapse thresholds from SPEC section 4: a block moved more than 10 mm or turned more than 10 degrees.
COLLAPSE_MOVE_MM = 10.0
COLLAPSE_TURN_DEG = 10.0
#: At rest: every block slower than 0.5 mm/s and 0.5 deg/s ...
REST_SPEED_M_S = 0.0005
REST_SPIN_RAD_S = math.radians(0.5)
#: ... for this long, after at least REST_MIN_S: a block tipping from 1 mm past its edge is already far faster by
#: 0.25 s (angular acceleration ~ g * e / (edge^2 * 2/3) ~ 9 rad/s2 for a 4 cm cube), so rest there is real.
REST_WINDOW_S = 0.2
REST_MIN_S = 0.4
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

    def to_json(self, detail: bool = False) -> dict:
        """The SPEC section 4 `dynamics` object (plus the simulation settings when `detail`)."""
        d = {"engine": "pybullet", "collapsed": self.collapsed, "moved": list(self.moved),
             "max_displacement_mm": round(self.max_displacement_mm, 2),
             "max_rotation_deg": round(self.max_rotation_deg, 2), "simulated_s": round(self.simulated_s, 3),
             "ms": round(self.ms, 1)}
        if detail:
            d["settings"] = dict(self.settings)
        return d


def _turn_deg(q: Sequence[float]) -> float:
    """Rotation angle of quaternion (x, y, z, w) away from the identity (the boxes start unrotated)."""
    return math.degrees(2 * math.acos(min(1.0, abs(q[3]))))


def judge_dynamics(boxes: Sequence[Box], mu: float = DEFAULT_MU, seconds: float = 2.0,
                   record_trajectory: bool = False, early_stop: bool = True,
                   time_step: float = TIME_STEP_S, solver_iterations: int = SOLVER_ITERATIONS) -> DynamicsResult:
    """Simulate the build for `seconds` and report whether (and which) blocks moved past the collapse thresholds.

    early_stop ends the run once a collapse is certain (not while recording: the viewer wants the whole fall) or
    once every block has been at rest for REST_WINDOW_S. Trajectory frames are {"t": s, "poses": {id: [[x, y, z],
    [qx, qy, qz, qw]]}} with box centres in metres, at TRAJECTORY_FPS, including t = 0.
    """
    t0 = time.perf_counter()
    pb = _import_pybullet()
    boxes = list(boxes)
    settings = {"time_step_s": time_step, "solver_iterations": solver_iterations, "contact_erp": CONTACT_ERP,
                "mu": mu}
    cid = pb.connect(pb.DIRECT)
    try:
        pb.setGravity(0, 0, -GRAVITY, physicsClientId=cid)
        pb.setPhysicsEngineParameter(fixedTimeStep=time_step, numSolverIterations=solver_iterations,
                                     numSubSteps=0, contactERP=CONTACT_ERP, enableConeFriction=0,
                                     solverResidualThreshold=SOLVER_RESIDUAL,
                                     deterministicOverlappingPairs=1, physicsClientId=cid)
        body_mu = math.sqrt(mu)  # Bullet's pair friction is the product of the two bodies' values
        plane = pb.createMultiBody(0, pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=cid),
                                   physicsClientId=cid)
        ids = []
        start = []
        mass_scale = SIM_MEAN_MASS_KG * len(boxes) / max(sum(b.mass for b in boxes), 1e-300)
        for b in boxes:
            shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[s / 2 for s in b.size], physicsClientId=cid)
            body = pb.createMultiBody(b.mass * mass_scale, shape, basePosition=b.centre, physicsClientId=cid)
            ids.append(body)
            start.append(b.centre)
        for body in [plane, *ids]:
            pb.changeDynamics(body, -1, lateralFriction=body_mu, spinningFriction=0, rollingFriction=0,
                              restitution=0, linearDamping=0, angularDamping=0, frictionAnchor=1,
                              activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING, physicsClientId=cid)

        n_steps = max(1, round(seconds / time_step))
        frame_every = max(1, round(1 / (TRAJECTORY_FPS * time_step)))
        rest_steps_needed = max(1, round(REST_WINDOW_S / time_step))
        min_rest_step = round(REST_MIN_S / time_step)
        max_disp = [0.0] * len(boxes)
        max_turn = [0.0] * len(boxes)
        trajectory: list[dict] | None = [] if record_trajectory else None
        if trajectory is not None:
            trajectory.append({"t": 0.0, "poses": {b.id: [list(b.centre), [0.0, 0.0, 0.0, 1.0]]
                                                   for b in boxes}})
        moving_at = 0  # the last checked step at which something was still moving
        step = 0
        while step < n_steps:
            pb.stepSimulation(physicsClientId=cid)
            step += 1
            frame = trajectory is not None and step % frame_every == 0
            if step % CHECK_EVERY and not frame and step < n_steps:
                continue
            resting = True
            poses = {}
            for k, body in enumerate(ids):
                pos, q = pb.getBasePositionAndOrientation(body, physicsClientId=cid)
                s = start[k]
                d = math.dist(pos, s) * 1000
                if d > max_disp[k]:
                    max_disp[k] = d
                a = _turn_deg(q)
                if a > max_turn[k]:
                    max_turn[k] = a
                if frame:
                    poses[boxes[k].id] = [list(pos), list(q)]
                if resting:
                    v, w = pb.getBaseVelocity(body, physicsClientId=cid)
                    if math.hypot(*v) > REST_SPEED_M_S or math.hypot(*w) > REST_SPIN_RAD_S:
                        resting = False
            if frame:
                trajectory.append({"t": step * time_step, "poses": poses})
            if not resting:
                moving_at = step
            if not early_stop:
                continue
            if step - moving_at >= rest_steps_needed and step >= min_rest_step:
                break
            if trajectory is None and (max(max_disp) > COLLAPSE_MOVE_MM or max(max_turn) > COLLAPSE_TURN_DEG):
                break
    finally:
        pb.disconnect(physicsClientId=cid)
    moved = tuple(b.id for k, b in enumerate(boxes)
                  if max_disp[k] > COLLAPSE_MOVE_MM or max_turn[k] > COLLAPSE_TURN_DEG)
    return DynamicsResult(bool(moved), moved, max(max_disp, default=0.0), max(max_turn, default=0.0),
                          step * time_step, (time.perf_counter() - t0) * 1000, trajectory, settings)

"""A third, independent dynamics judge: the build as rigid boxes in MuJoCo (optional extra `mujoco`).

Same boxes, masses, friction and collapse rule as the PyBullet judge (a box moved more than 10 mm or turned more
than 10 degrees), a different engine: MuJoCo's soft-contact convex solver (Newton, elliptic friction cones)
instead of Bullet's sequential impulses. `mujoco` is imported only when this judge runs.

Contact settings (measured, docs/physics.md): MuJoCo's default contact softness (solref 0.02 s, solimp 0.9-0.95)
lets a column of 10 of the game's cubes sink by millimetres under its own weight. A stiffer contact, time
constant SOLREF_S = 0.004 s (twice the time step, the stiffest MuJoCo recommends) and impedance SOLIMP, keeps it
within a fraction of a millimetre.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from physics.dynamics import COLLAPSE_MOVE_MM, COLLAPSE_TURN_DEG, DynamicsResult, _turn_deg
from physics.model import Box
from physics.units import DEFAULT_MU, GRAVITY

#: Time step (s), contact time constant (s) and damping ratio, impedance (dmin, dmax, width in m): see above.
TIME_STEP_S = 0.002
SOLREF_S, SOLREF_DAMPING = 0.004, 1.0
SOLIMP = (0.99, 0.999, 0.0005)
#: Poses are read every this many steps (1/50 s); the run stops once a collapse is certain or, from REST_MIN_S on,
#: when no box moved more than REST_MOVE_M over the last REST_WINDOW_S (as the PyBullet judge).
CHECK_EVERY = 10
REST_MIN_S, REST_WINDOW_S, REST_MOVE_M = 0.25, 0.1, 0.00005


def build_mjcf(boxes: Sequence[Box], mu: float) -> str:
    """The MJCF model: a fixed plane and one free box body per Box (real sizes and masses, friction mu: MuJoCo
    takes the larger of two geoms' values, so every geom gets mu)."""
    ref = f"{SOLREF_S} {SOLREF_DAMPING}"
    imp = " ".join(str(v) for v in SOLIMP)
    bodies = []
    for k, b in enumerate(boxes):
        half = " ".join(f"{s / 2:.9g}" for s in b.size)
        pos = " ".join(f"{c:.9g}" for c in b.centre)
        bodies.append(f'<body name="b{k}" pos="{pos}"><freejoint/><geom type="box" size="{half}" mass="{b.mass:.9g}"'
                      f' friction="{mu} 0 0" solref="{ref}" solimp="{imp}"/></body>')
    return (f'<mujoco><option timestep="{TIME_STEP_S}" gravity="0 0 {-GRAVITY}" solver="Newton" cone="elliptic" '
            f'integrator="implicitfast"/>'
            f'<worldbody><geom type="plane" size="0 0 1" friction="{mu} 0 0" solref="{ref}" solimp="{imp}"/>'
            + "".join(bodies) + "</worldbody></mujoco>")


def judge_mujoco(boxes: Sequence[Box], mu: float = DEFAULT_MU, seconds: float = 2.0) -> DynamicsResult:
    """Simulate the build in MuJoCo and report, like `judge_dynamics`, which boxes passed the collapse rule."""
    import mujoco  # noqa: PLC0415 - the optional extra, only when this judge runs

    t0 = time.perf_counter()
    boxes = list(boxes)
    model = mujoco.MjModel.from_xml_string(build_mjcf(boxes, mu))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    start = [tuple(data.qpos[7 * k:7 * k + 3]) for k in range(len(boxes))]
    max_disp = [0.0] * len(boxes)
    max_turn = [0.0] * len(boxes)
    history: list[list[tuple[float, ...]]] = []
    window = max(1, round(REST_WINDOW_S / (CHECK_EVERY * TIME_STEP_S)))
    steps = max(1, round(seconds / TIME_STEP_S))
    step = 0
    while step < steps:
        mujoco.mj_step(model, data, CHECK_EVERY)
        step += CHECK_EVERY
        poses = []
        for k in range(len(boxes)):
            q = data.qpos[7 * k:7 * k + 7]
            pos = tuple(q[:3])
            poses.append(pos)
            max_disp[k] = max(max_disp[k], math.dist(pos, start[k]) * 1000)
            w, x, y, z = q[3:7]  # MuJoCo quaternions are (w, x, y, z)
            max_turn[k] = max(max_turn[k], _turn_deg((x, y, z, w)))
        history.append(poses)
        if max(max_disp, default=0.0) > COLLAPSE_MOVE_MM or max(max_turn, default=0.0) > COLLAPSE_TURN_DEG:
            break
        if step * TIME_STEP_S >= REST_MIN_S and len(history) > window and all(
                math.dist(p, p0) <= REST_MOVE_M for p, p0 in zip(poses, history[-1 - window], strict=True)):
            break
    moved = tuple(b.id for k, b in enumerate(boxes)
                  if max_disp[k] > COLLAPSE_MOVE_MM or max_turn[k] > COLLAPSE_TURN_DEG)
    settings = {"engine": "mujoco", "time_step_s": TIME_STEP_S, "solref": [SOLREF_S, SOLREF_DAMPING],
                "solimp": list(SOLIMP), "solver": "Newton", "cone": "elliptic", "mu": mu}
    return DynamicsResult(bool(moved), moved, max(max_disp, default=0.0), max(max_turn, default=0.0),
                          step * TIME_STEP_S, (time.perf_counter() - t0) * 1000, None, settings, engine="mujoco")

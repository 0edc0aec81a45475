"""PyBullet on tall, thin and near-limit builds (issue 43), beside the statics verdict and MuJoCo: a hollow square
tower of bricks (20-40 courses, up to 400 blocks), columns of 20-40 cubes, harmonic overhang stacks at 0.90-0.97 of their limit, and Jenga
towers with bricks pulled. Prints per build the statics verdict and margin, PyBullet's and MuJoCo's answers and
largest displacements, and the disagreements.

    python benchmarks/bench_tall.py [--only hollow|column|harmonic|jenga] [--step S] [--iterations N] [--erp E]
                                    [--no-mujoco]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import physics  # noqa: E402
from physics import dynamics  # noqa: E402
from physics.builds import column  # noqa: E402
from physics.model import Box  # noqa: E402
from physics.units import WOOD_DENSITY, grid_box  # noqa: E402
from physics.verdict import judge_dynamics_checked  # noqa: E402


def hollow_tower(courses: int) -> list[Box]:
    """A hollow square tower of doubles laid flat (4 x 2 x 2 units), 10 to a course around a 12 x 12 square,
    the corners overlapped alternately (the x walls run through on even courses, the y walls on odd ones)."""
    out = []
    for z in range(courses):
        h = 2 * z
        if z % 2 == 0:
            spots = [((4 * i, y), (4, 2)) for y in (0, 10) for i in range(3)]
            spots += [((x, 2 + 4 * j), (2, 4)) for x in (0, 10) for j in range(2)]
        else:
            spots = [((x, 4 * i), (2, 4)) for x in (0, 10) for i in range(3)]
            spots += [((2 + 4 * j, y), (4, 2)) for y in (0, 10) for j in range(2)]
        out += [grid_box(f"h{z}_{k}", (x, y, h), (sx, sy, 2)) for k, ((x, y), (sx, sy)) in enumerate(spots)]
    return out


def harmonic(n: int, frac: float, length: float = 0.08, height: float = 0.02) -> list[Box]:
    """n bricks (8 x 4 x 2 cm, lying double cubes) stacked as the harmonic overhang at `frac` of its limit: block k
    from the top sticks out frac * length / (2 k) past the one below, so the centre of mass of every upper stack
    lies (1 - frac) * length / 2 inside the edge under it (0.95: 2 mm; 0.97: 1.2 mm, the inset is 1 mm)."""
    x = [0.0] * n
    for k in range(1, n):
        x[n - 1 - k] = x[n - k] - frac * length / (2 * k)
    lo = min(x)
    m = WOOD_DENSITY * length * 0.04 * height
    return [Box(f"s{i}", (x[i] - lo, 0.0, i * height), (length, 0.04, height), m) for i in range(n)]


def jenga(levels: int, pulled: int, seed: int) -> list[Box]:
    """A Jenga tower (bricks 7.5 x 2.5 x 1.5 cm, three to a level, levels crossing) with `pulled` bricks taken
    from levels below the top three: a side brick or the middle one, never two of one level."""
    L, W, H = 0.075, 0.025, 0.015
    rng = random.Random(seed)
    m = WOOD_DENSITY * L * W * H
    bricks = {}
    for z in range(levels):
        for k in range(3):
            if z % 2 == 0:
                bricks[(z, k)] = Box(f"j{z}_{k}", (0.0, k * W, z * H), (L, W, H), m)
            else:
                bricks[(z, k)] = Box(f"j{z}_{k}", (k * W, 0.0, z * H), (W, L, H), m)
    for z in rng.sample(range(levels - 3), pulled):
        bricks.pop((z, rng.choice([0, 1, 2])))
    return list(bricks.values())


def tall_set(only: str | None = None) -> list[tuple[str, list[Box]]]:
    out = []
    if only in (None, "hollow"):
        out += [(f"hollow tower of {c} courses", hollow_tower(c)) for c in (20, 30, 40)]
    if only in (None, "column"):
        out += [(f"column of {n} cubes", column(n)) for n in (20, 30, 40)]
    if only in (None, "harmonic"):
        out += [(f"harmonic stack of {n} at {f:.2f}", harmonic(n, f)) for n in (4, 6, 8, 10)
                for f in (0.90, 0.93, 0.95, 0.97)]
    if only in (None, "jenga"):
        out += [(f"jenga 18 levels, {p} pulled (seed {s})", jenga(18, p, s)) for p in (3, 6, 9, 12) for s in (1, 2, 3)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--step", type=float, help="PyBullet's time step (s)")
    ap.add_argument("--iterations", type=int)
    ap.add_argument("--erp", type=float)
    ap.add_argument("--no-mujoco", action="store_true")
    args = ap.parse_args()
    if args.erp:
        dynamics.CONTACT_ERP = args.erp  # (read at each run)
    plain = args.step or args.iterations  # one run at these settings, not the product's judge with its re-run
    mujoco = None
    if not args.no_mujoco:
        try:
            from physics.mujoco_judge import judge_mujoco as mujoco  # noqa: PLC0415
        except ImportError:
            pass
    disagree = 0
    rows = tall_set(args.only)
    for name, boxes in rows:
        s = physics.judge_statics(boxes)
        t = time.perf_counter()
        d = dynamics.judge_dynamics(boxes, time_step=args.step or dynamics.TIME_STEP_S,
                                    solver_iterations=args.iterations or dynamics.SOLVER_ITERATIONS) if plain \
            else judge_dynamics_checked(boxes, s)
        dt = time.perf_counter() - t
        m = mujoco(boxes) if mujoco else None
        same = s.stable != d.collapsed
        disagree += not same
        print(f"{name:42} {len(boxes):4} blocks  statics {'stands' if s.stable else 'falls '} {s.tilt_margin_deg:7.2f} deg"
              f"  pybullet {'falls ' if d.collapsed else 'stands'} {d.max_displacement_mm:8.2f} mm ({dt:5.1f} s"
              f"{', re-run' if d.settings.get('recheck') else ''})"
              + (f"  mujoco {'falls ' if m.collapsed else 'stands'} {m.max_displacement_mm:8.2f} mm" if m else "")
              + ("" if same else "  DISAGREE"), flush=True)
    print(f"{len(rows)} builds, PyBullet and statics disagree on {disagree}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

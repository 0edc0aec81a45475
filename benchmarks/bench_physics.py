"""Physics benchmarks (targets in docs/benchmarks.md): statics and dynamics verdict times on a 35-block tower, and how often the
two judges agree on random builds. Prints medians.

    python benchmarks/bench_physics.py               # all figures
    python benchmarks/bench_physics.py --quick       # fewer runs, 100 random builds
    python benchmarks/bench_physics.py --drift       # the time-step / iteration drift table of docs/physics.md

Also: the ratio of our PyBullet verdict against a straightforward settle (1000 Hz, 50 iterations, Bullet's
defaults otherwise, 2 s simulated, no early stop) measured in the same run, and a sweep of legal builds (start
towers and builds reached in random Climbers games) that must all stand in both judges.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from physics import Box, grid_box, judge_dynamics, judge_statics
from physics.builds import column, packed_tower, random_build
from physics.verdict import STABLE_MARGIN_DEG

#: Seed of the random-build generator (agreement figure) and of the towers.
SEED = 2026


def tower_35(seed: int = 0) -> tuple[list[Box], str]:
    """A realistic start tower: the lead's generator when it is importable, else physics' own packed tower."""
    try:
        from tower.climbers.setup import random_start_tower  # noqa: PLC0415

        build = random_start_tower(seed)
        return [grid_box(b.id, b.origin, b.size) for b in build.blocks], "tower.climbers.setup.random_start_tower"
    except ImportError:
        return packed_tower(seed), "physics.builds.packed_tower"


def median_ms(fn, runs: int) -> tuple[float, float, object]:
    """Median wall-clock and process-CPU milliseconds of fn() over runs, and its last result."""
    wall, cpu, out = [], [], None
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return statistics.median(wall), statistics.median(cpu), out


def _agreement_case(i: int) -> tuple[int, int, float, float, bool, bool, tuple[str, ...], float]:
    """One random build: (index, blocks, signed margin, signed margin without the COM inset, statics stands,
    dynamics collapsed, moved ids, max displacement mm)."""
    rng = random.Random(SEED * 1000 + i)
    n = rng.randint(2, 40)
    boxes = random_build(rng, n)
    s = judge_statics(boxes)
    # a build that falls only because of the 1 mm inset balances on a knife edge: decided by noise, not mechanics
    bare = s.tilt_margin_deg if s.stable else judge_statics(boxes, com_inset=0.0).tilt_margin_deg
    d = judge_dynamics(boxes)
    return i, n, s.tilt_margin_deg, bare, s.stable, d.collapsed, d.moved, d.max_displacement_mm


def non_marginal(margin: float, bare: float, stable: bool) -> bool:
    """Clearly stands (margin >= 1 deg) or clearly falls (it needs >= 1 deg of tilt to stand even without the
    centre-of-mass inset, so it is no knife-edge balance)."""
    return margin >= STABLE_MARGIN_DEG if stable else bare <= -STABLE_MARGIN_DEG


def agreement(n_builds: int, jobs: int) -> None:
    t = time.perf_counter()
    with ProcessPoolExecutor(jobs) as ex:
        rows = list(ex.map(_agreement_case, range(n_builds), chunksize=4))
    clear = [r for r in rows if non_marginal(r[2], r[3], r[4])]
    agree = [r for r in clear if r[4] == (not r[5])]
    all_agree = sum(r[4] == (not r[5]) for r in rows)
    stands = sum(r[4] for r in clear)
    print(f"judges agree: {100 * len(agree) / max(len(clear), 1):.1f} % of {len(clear)} non-marginal builds "
          f"({stands} stand with margin >= {STABLE_MARGIN_DEG:g} deg, {len(clear) - stands} fall needing >= "
          f"{STABLE_MARGIN_DEG:g} deg even without the inset); disagreements {len(clear) - len(agree)}; "
          f"all {n_builds} builds: {100 * all_agree / n_builds:.1f} % "
          f"[{time.perf_counter() - t:.0f} s, {jobs} jobs]  (target >= 99 %)")
    for i, n, margin, bare, stable, collapsed, moved, disp in rows:
        if stable == collapsed:
            print(f"  {'disagreement' if non_marginal(margin, bare, stable) else 'marginal'}: build {i} ({n} blocks)"
                  f" statics {'stands' if stable else 'falls'} margin {margin:.2f} deg (no inset {bare:.2f});"
                  f" dynamics {'collapsed' if collapsed else 'stood'}, max displacement {disp:.1f} mm, "
                  f"moved {list(moved)[:6]}")


def straightforward_settle(boxes: list[Box], seconds: float = 2.0) -> float:
    """The baseline the issue names: plain PyBullet at 1000 Hz with 50 solver iterations and otherwise Bullet's
    defaults, real masses, every pose read every step, no early stop. Returns wall seconds."""
    from physics.dynamics import _import_pybullet  # noqa: PLC0415

    pb = _import_pybullet()
    t = time.perf_counter()
    cid = pb.connect(pb.DIRECT)
    try:
        pb.setGravity(0, 0, -9.81, physicsClientId=cid)
        pb.setPhysicsEngineParameter(fixedTimeStep=1 / 1000, numSolverIterations=50, physicsClientId=cid)
        pb.createMultiBody(0, pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=cid), physicsClientId=cid)
        ids = [pb.createMultiBody(b.mass, pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[v / 2 for v in b.size],
                                                                  physicsClientId=cid),
                                  basePosition=b.centre, physicsClientId=cid) for b in boxes]
        for _ in range(round(seconds * 1000)):
            pb.stepSimulation(physicsClientId=cid)
            for body in ids:
                pb.getBasePositionAndOrientation(body, physicsClientId=cid)
    finally:
        pb.disconnect(physicsClientId=cid)
    return time.perf_counter() - t


def _legal_case(k: int) -> tuple[str, int, str, bool, bool, float]:
    """Build k of the legal sweep: even k a start tower, odd k the build after a random Climbers game's moves."""
    from tower.app.stability import judge_build  # noqa: PLC0415
    from tower.climbers.legality import check_build  # noqa: PLC0415
    from tower.climbers.setup import random_start_tower  # noqa: PLC0415
    from tower.games import new_game  # noqa: PLC0415

    if k % 2 == 0:
        name, build = f"start tower {k}", random_start_tower(SEED + k)
    else:
        state, rng = new_game("climbers", 2 + k % 4, seed=SEED + k), random.Random(k)
        for _ in range(rng.randint(10, 150)):
            if state.is_over:
                break
            state.apply(state.random_move(rng))
        name, build = f"game {k} after {len(state.history)} moves", state.to_build()
    problems = [v.rule for v in check_build(build) if v.rule != "block-count"]
    v = judge_build(build)
    return name, len(problems), v.verdict, v.statics.stable, v.dynamics.collapsed, v.statics.tilt_margin_deg


def legal_sweep(n: int, jobs: int) -> None:
    """Every legal build stands in both judges, and none comes out `collapses`."""
    t = time.perf_counter()
    with ProcessPoolExecutor(jobs) as ex:
        rows = list(ex.map(_legal_case, range(n), chunksize=2))
    illegal = [r for r in rows if r[1]]
    both = [r for r in rows if r[3] and not r[4]]
    collapses = [r for r in rows if r[2] == "collapses"]
    verdicts = {v: sum(r[2] == v for r in rows) for v in ("stable", "marginal", "collapses")}
    print(f"legal builds: {len(rows) - len(illegal)} of {n} legal; stand in both judges: {len(both)}; "
          f"verdicts {verdicts}; smallest tilt margin {min(r[5] for r in rows):.2f} deg "
          f"[{time.perf_counter() - t:.0f} s]  (target: all stand, none collapses)")
    for r in rows:
        if r[1] or not (r[3] and not r[4]) or r[2] == "collapses":
            print(f"  {r[0]}: {r[1]} problems, verdict {r[2]}, statics stands {r[3]}, dynamics collapsed {r[4]}")
    if collapses:
        print(f"  FAILED: {len(collapses)} legal builds came out `collapses`")


def drift_table() -> None:
    """Max displacement over 2 s for builds that must stand, per time step and iteration count."""
    builds = [("column of 10 cubes", column(10)), ("packed tower", packed_tower(0))]
    builds += [(f"start tower {k}", tower_35(k)[0]) for k in (1, 2)]
    print("| time step | iterations | " + " | ".join(name for name, _ in builds) + " | 35-block CPU s |")
    print("|---|---|" + "---|" * (len(builds) + 1))
    for dt, it in [(1 / 240, 20), (1 / 240, 50), (1 / 240, 100), (1 / 360, 30), (1 / 480, 20), (1 / 480, 50),
                   (1 / 960, 50)]:
        cells, cpu = [], 0.0
        for name, b in builds:
            t = time.process_time()
            r = judge_dynamics(b, early_stop=False, time_step=dt, solver_iterations=it)
            if name == "packed tower":
                cpu = time.process_time() - t
            cells.append(f"{r.max_displacement_mm:.2f} mm / {r.max_rotation_deg:.2f} deg")
        print(f"| 1/{1 / dt:.0f} s | {it} | " + " | ".join(cells) + f" | {cpu:.2f} |", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--drift", action="store_true")
    ap.add_argument("--builds", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = ap.parse_args()
    if args.drift:
        drift_table()
        return 0
    boxes, source = tower_35(0)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"35-block tower from {source}: {len(boxes)} boxes; load average {load:.1f} on {os.cpu_count()} CPUs "
          f"(wall times include other processes' load; CPU times do not)", flush=True)
    runs = 5 if args.quick else 21
    judge_statics(boxes)  # warm-up: imports, caches
    ms, cpu, s = median_ms(lambda: judge_statics(boxes), runs)
    print(f"statics verdict + tilt margin (35 blocks): median {ms:.1f} ms wall ({cpu:.1f} ms CPU) over {runs} runs"
          f"  (target <= 50 ms); "
          f"margin {s.tilt_margin_deg:.2f} deg towards {[round(v, 3) for v in s.weakest_direction]}, "
          f"bounds {[round(v, 3) for v in s.margin_bounds_deg]}, {s.lps} LPs, {s.contacts} contacts", flush=True)
    runs = 3 if args.quick else 7
    judge_dynamics(boxes, seconds=0.05)
    ms, cpu, d = median_ms(lambda: judge_dynamics(boxes, seconds=2.0, early_stop=False), runs)
    print(f"dynamics verdict (35 blocks, 2 s simulated in full): median {ms:.0f} ms wall ({cpu:.0f} ms CPU) over "
          f"{runs} runs  "
          f"(target <= 1.5 s); max displacement {d.max_displacement_mm:.2f} mm", flush=True)
    ms, cpu, d = median_ms(lambda: judge_dynamics(boxes, seconds=2.0), runs)
    print(f"dynamics verdict (35 blocks, default early stop at rest): median {ms:.0f} ms wall ({cpu:.0f} ms CPU) "
          f"over {runs} runs, "
          f"stopped at {d.simulated_s:.2f} s simulated", flush=True)
    base = [straightforward_settle(boxes) for _ in range(1 if args.quick else 3)]
    ours = median_ms(lambda: judge_dynamics(boxes, seconds=2.0), 1 if args.quick else 3)[0] / 1000
    print(f"straightforward settle (1000 Hz, 50 iterations, 2 s, no early stop): median {statistics.median(base):.1f} s "
          f"over {len(base)} runs; our verdict {ours:.2f} s: {statistics.median(base) / ours:.0f}x faster", flush=True)
    legal_sweep(20 if args.quick else 100, args.jobs)
    n_builds = (100 if args.quick else 500) if args.builds is None else args.builds
    if n_builds > 0:  # --builds 0: timings only
        agreement(n_builds, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

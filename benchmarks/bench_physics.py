"""Physics benchmarks (targets in docs/benchmarks.md): statics and dynamics verdict times on a 35-block tower, the whole
`tower check` command and the share of it spent in physics, and how often the two judges agree on random builds.
Prints medians, with the targets.

    python benchmarks/bench_physics.py               # all figures
    python benchmarks/bench_physics.py --quick       # fewer runs, 100 random builds
    python benchmarks/bench_physics.py --drift       # the time-step / iteration drift table of docs/physics.md
    python benchmarks/bench_physics.py --step-policy # PyBullet step / iterations / half-step re-run on 551 builds
    python benchmarks/bench_physics.py --save-reference old.json   # per-build results of the 500 agreement
    python benchmarks/bench_physics.py --compare old.json          # builds and start towers 0..50, or a
                                                     # comparison with such a file (margins, verdicts)

To compare two versions of `physics`, save a reference with the other version first on the path
(`PYTHONPATH=/path/to/other/checkout python benchmarks/bench_physics.py --save-reference old.json --builds 500`).

Also: the ratio of our PyBullet verdict against a straightforward settle (1000 Hz, 50 iterations, Bullet's
defaults otherwise, 2 s simulated, no early stop) measured in the same run, and a sweep of legal builds (start
towers and builds reached in random Climbers games) that must all stand in both judges.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from physics import Box, grid_box, judge_dynamics, judge_statics
from physics.builds import column, packed_tower, random_build
from physics.verdict import STABLE_MARGIN_DEG, combine

#: Seed of the random-build generator (agreement figure) and of the towers.
SEED = 2026
#: Targets: statics verdict + tilt margin of a 35-block start tower (median wall ms) and the whole
#: `tower check FILE` command on a start tower, statics and PyBullet (median wall s).
STATICS_TARGET_MS = 40.0
CHECK_TARGET_S = 0.5
#: Start towers in the reference sweep (seeds 0..50).
REFERENCE_TOWERS = 51


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


def agreement_build(i: int) -> list[Box]:
    """Random build i of the agreement sweep."""
    rng = random.Random(SEED * 1000 + i)
    return random_build(rng, rng.randint(2, 40))


def _judged(name: str, boxes: list[Box]) -> dict:
    """Both judges' answers on one build, as a plain dict (the reference-file row)."""
    s = judge_statics(boxes)
    # a build that falls only because of the 1 mm inset balances on a knife edge: decided by noise, not mechanics
    bare = s.tilt_margin_deg if s.stable else judge_statics(boxes, com_inset=0.0).tilt_margin_deg
    d = judge_dynamics(boxes)
    return {"name": name, "blocks": len(boxes), "stable": s.stable, "margin": s.tilt_margin_deg, "bare": bare,
            "bounds": list(s.margin_bounds_deg), "lps": s.lps, "statics_ms": s.ms, "collapsed": d.collapsed,
            "moved": list(d.moved), "displacement_mm": d.max_displacement_mm, "simulated_s": d.simulated_s,
            "dynamics_ms": d.ms, "verdict": combine(s, d)}


def _agreement_case(i: int) -> dict:
    return _judged(f"build {i}", agreement_build(i))


def _tower_case(seed: int) -> dict:
    return _judged(f"start tower {seed}", tower_35(seed)[0])


def non_marginal(margin: float, bare: float, stable: bool) -> bool:
    """Clearly stands (margin >= 1 deg) or clearly falls (it needs >= 1 deg of tilt to stand even without the
    centre-of-mass inset, so it is no knife-edge balance)."""
    return margin >= STABLE_MARGIN_DEG if stable else bare <= -STABLE_MARGIN_DEG


def agreement(n_builds: int, jobs: int) -> list[dict]:
    t = time.perf_counter()
    with ProcessPoolExecutor(jobs) as ex:
        rows = list(ex.map(_agreement_case, range(n_builds), chunksize=4))
    clear = [r for r in rows if non_marginal(r["margin"], r["bare"], r["stable"])]
    agree = [r for r in clear if r["stable"] == (not r["collapsed"])]
    all_agree = sum(r["stable"] == (not r["collapsed"]) for r in rows)
    stands = sum(r["stable"] for r in clear)
    print(f"judges agree: {100 * len(agree) / max(len(clear), 1):.1f} % of {len(clear)} non-marginal builds "
          f"({stands} stand with margin >= {STABLE_MARGIN_DEG:g} deg, {len(clear) - stands} fall needing >= "
          f"{STABLE_MARGIN_DEG:g} deg even without the inset); disagreements {len(clear) - len(agree)}; "
          f"all {n_builds} builds: {100 * all_agree / n_builds:.1f} % "
          f"[{time.perf_counter() - t:.0f} s, {jobs} jobs]  (target >= 99 %)")
    lps = sorted(r["lps"] for r in rows)
    print(f"  statics LPs per verdict over these builds: median {statistics.median(lps):g}, "
          f"total {sum(lps)}; dynamics simulated {sum(r['simulated_s'] for r in rows):.1f} s in all "
          f"(median {statistics.median(r['simulated_s'] for r in rows):.3f} s)")
    for r in rows:
        if r["stable"] == r["collapsed"]:
            kind = "disagreement" if non_marginal(r["margin"], r["bare"], r["stable"]) else "marginal"
            print(f"  {kind}: {r['name']} ({r['blocks']} blocks) statics {'stands' if r['stable'] else 'falls'} "
                  f"margin {r['margin']:.2f} deg (no inset {r['bare']:.2f}); dynamics "
                  f"{'collapsed' if r['collapsed'] else 'stood'}, max displacement {r['displacement_mm']:.1f} mm, "
                  f"moved {r['moved'][:6]}")
    return rows


def reference_rows(n_builds: int, jobs: int, agreement_rows: list[dict] | None = None) -> list[dict]:
    """Both judges on the agreement builds and on start towers 0..REFERENCE_TOWERS-1."""
    with ProcessPoolExecutor(jobs) as ex:
        if agreement_rows is None:
            agreement_rows = list(ex.map(_agreement_case, range(n_builds), chunksize=4))
        towers = list(ex.map(_tower_case, range(REFERENCE_TOWERS), chunksize=2))
    return agreement_rows + towers


def compare(rows: list[dict], path: str) -> None:
    """What changed against a reference file: stands/falls, margins, collapsed flags, verdicts."""
    with open(path) as f:
        ref = {r["name"]: r for r in json.load(f)}
    both = [(r, ref[r["name"]]) for r in rows if r["name"] in ref]
    if not both:
        print(f"compare: no build of {path} was judged here")
        return
    diffs = sorted(((abs(r["margin"] - o["margin"]), r["name"]) for r, o in both), reverse=True)
    print(f"against {path} ({len(both)} builds): max |margin difference| {diffs[0][0]:.2g} deg ({diffs[0][1]}), "
          f"{sum(d > 0.05 for d, _ in diffs)} builds differ by more than 0.05 deg; "
          f"stands/falls differ on {[r['name'] for r, o in both if r['stable'] != o['stable']]}; "
          f"dynamics collapsed differs on {[r['name'] for r, o in both if r['collapsed'] != o['collapsed']]}; "
          f"verdict differs on {[r['name'] for r, o in both if r['verdict'] != o['verdict']]}")
    for what in ("lps", "simulated_s", "statics_ms", "dynamics_ms"):
        new, old = sum(r[what] for r, _ in both), sum(o[what] for _, o in both)
        print(f"  {what}: {old:.1f} -> {new:.1f} in all")


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


#: Run inside `python -c` by check_timing(): `tower check FILE` as the CLI runs it, with physics.judge wrapped to
#: time the physics (its own import included; numpy, which the rules import anyway, is imported first).
CHECK_PROBE = """
import json, sys, time
import numpy
t, c = time.perf_counter(), time.process_time()
import physics
spent = {"import": time.perf_counter() - t, "import_cpu": time.process_time() - c}
judge = physics.judge
def timed(*args, **kwargs):
    t, c = time.perf_counter(), time.process_time()
    v = judge(*args, **kwargs)
    spent["judge"], spent["judge_cpu"] = time.perf_counter() - t, time.process_time() - c
    spent["statics_ms"], spent["dynamics_ms"] = v.statics.ms, v.dynamics.ms if v.dynamics else 0.0
    return v
physics.judge = timed
import runpy
sys.argv = ["tower", "check", sys.argv[1]]
try:
    runpy.run_module("tower", run_name="__main__")  # python -m tower check FILE
except SystemExit as e:
    code = e.code
sys.stderr.write("PHYSICS " + json.dumps(spent) + "\\n")
sys.exit(code)
"""


def check_timing(runs: int) -> None:
    """`tower check FILE` on start tower 0 as a whole command (median wall and CPU), and the part spent in physics
    (its import and the judge call, measured inside a second, instrumented run of the same command)."""
    import resource  # noqa: PLC0415

    def child_cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tower0.json")
        made = subprocess.run([sys.executable, "-m", "tower", "new", "--seed", "0", "-o", path],
                              capture_output=True, text=True)
        if made.returncode != 0:
            print(f"tower check: skipped (tower new failed: {made.stderr.strip()[:200]})")
            return
        # as installed: Python caches compiled modules (pip writes them for site-packages, an editable install on
        # its first run), so the timed runs follow one untimed run with bytecode writing on
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run([sys.executable, "-m", "tower", "check", path], capture_output=True, text=True, env=env)
        walls, cpus, parts = [], [], []
        for _ in range(runs):
            t, c = time.perf_counter(), child_cpu()
            p = subprocess.run([sys.executable, "-m", "tower", "check", path], capture_output=True, text=True,
                               env=env)
            walls.append(time.perf_counter() - t)
            cpus.append(child_cpu() - c)
            q = subprocess.run([sys.executable, "-c", CHECK_PROBE, path], capture_output=True, text=True, env=env)
            line = [x for x in q.stderr.splitlines() if x.startswith("PHYSICS ")]
            if p.returncode not in (0, 1) or not line:
                print(f"tower check: skipped (exit {p.returncode}: {(p.stderr or q.stderr).strip()[-300:]})")
                return
            parts.append(json.loads(line[-1][len("PHYSICS "):]))
    wall, cpu = statistics.median(walls), statistics.median(cpus)

    def med(key: str) -> float:
        return statistics.median(s[key] for s in parts)

    physics_s, physics_cpu = med("import") + med("judge"), med("import_cpu") + med("judge_cpu")
    print(f"tower check (start tower 0, statics + PyBullet): median {wall:.2f} s wall, {cpu:.2f} s CPU over {runs} "
          f"runs  (target <= {CHECK_TARGET_S:g} s); physics {physics_s:.2f} s wall ({100 * physics_s / wall:.0f} %),"
          f" {physics_cpu:.2f} s CPU ({100 * physics_cpu / cpu:.0f} %): import physics {1000 * med('import'):.0f} ms,"
          f" statics {med('statics_ms'):.0f} ms, dynamics (pybullet import and connect included) "
          f"{med('dynamics_ms'):.0f} ms", flush=True)


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


def statics_timing(boxes: list[Box], runs: int) -> None:
    """Median statics verdict time on one tower (as the issue measures it), with the rays in parallel and in
    sequence, and over distinct towers (every build judged once: nothing carried over between calls)."""
    import physics.tilt_lp as statics  # noqa: PLC0415 - where PARALLEL_RAYS lives

    judge_statics(boxes)  # warm-up: imports, caches
    ms, cpu, s = median_ms(lambda: judge_statics(boxes), runs)
    print(f"statics verdict + tilt margin (35 blocks): median {ms:.1f} ms wall ({cpu:.1f} ms CPU) over {runs} runs"
          f"  (target <= {STATICS_TARGET_MS:g} ms); "
          f"margin {s.tilt_margin_deg:.2f} deg towards {[round(v, 3) for v in s.weakest_direction]}, "
          f"bounds {[round(v, 3) for v in s.margin_bounds_deg]}, {s.lps} LPs, {s.contacts} contacts", flush=True)
    one_thread = ""
    if hasattr(statics, "PARALLEL_RAYS"):  # (versions before it had one thread only)
        parallel = statics.PARALLEL_RAYS
        try:
            statics.PARALLEL_RAYS = False
            ms1, cpu1, _ = median_ms(lambda: judge_statics(boxes), runs)
        finally:
            statics.PARALLEL_RAYS = parallel
        one_thread = f"the same with the rays in one thread: median {ms1:.1f} ms wall ({cpu1:.1f} ms CPU); "
    others = [tower_35(seed)[0] for seed in range(1, 1 + max(5, runs))]
    cold = []
    for b in others:
        t = time.perf_counter()
        judge_statics(b)
        cold.append((time.perf_counter() - t) * 1000)
    print(f"  {one_thread}start towers 1..{len(others)}, each judged once: median {statistics.median(cold):.1f} ms "
          f"wall", flush=True)


#: Dynamics settings compared by --step-policy: the current one, a finer step always, more solver iterations
#: always, and the current one re-run at half the step where the judges disagree or the margin is small (the
#: judge: rigid bodies first, multibodies for the re-run); then the whole judge with multibodies in both runs
#: (before issue 26's work) and with rigid bodies in both (docs/physics.md, "Rigid bodies first"); then the judge
#: with its re-run simulating the whole build instead of the part statics sees fall (before: "A focused re-run").
#: The last three rows re-run the whole build.
STEP_POLICIES = ("1/480 s (before)", "1/960 s always", "1/480 s, 150 iterations", "1/480 s + half-step re-run",
                 "multibodies + re-run", "rigid bodies + rigid re-run", "whole-build re-run")


def _checked(boxes: list[Box], s, reduced: tuple[bool, bool]):
    """judge_dynamics_checked with the kind of bodies of each run chosen, (first run, re-run) reduced or not (the
    re-run as multibodies only up to REDUCED_RECHECK_MAX_BOXES, as the judge), and the whole build re-run."""
    from physics.dynamics import REDUCED_RECHECK_MAX_BOXES, TIME_STEP_S  # noqa: PLC0415
    from physics.verdict import needs_recheck  # noqa: PLC0415

    first = judge_dynamics(boxes, reduced=reduced[0])
    if not needs_recheck(s, first):
        return first
    fine = judge_dynamics(boxes, time_step=TIME_STEP_S / 2,
                         reduced=reduced[1] and len(boxes) <= REDUCED_RECHECK_MAX_BOXES)
    return replace(fine, settings={**fine.settings, "recheck": True})


def _policy_case(k: int) -> dict:
    """Build k of the 551-build set (the 500 agreement builds, then start towers 0..50) under each policy."""
    from physics.dynamics import SOLVER_ITERATIONS, TIME_STEP_S  # noqa: PLC0415
    from physics.verdict import judge_dynamics_checked  # noqa: PLC0415

    boxes = agreement_build(k) if k < 500 else tower_35(k - 500)[0]
    s = judge_statics(boxes)
    bare = s.tilt_margin_deg if s.stable else judge_statics(boxes, com_inset=0.0).tilt_margin_deg
    row = {"k": k, "stable": s.stable, "margin": s.tilt_margin_deg, "bare": bare, "runs": {}}
    runs = {STEP_POLICIES[0]: lambda: judge_dynamics(boxes),
            STEP_POLICIES[1]: lambda: judge_dynamics(boxes, time_step=TIME_STEP_S / 2),
            STEP_POLICIES[2]: lambda: judge_dynamics(boxes, solver_iterations=3 * SOLVER_ITERATIONS),
            STEP_POLICIES[3]: lambda: judge_dynamics_checked(boxes, s),
            STEP_POLICIES[4]: lambda: _checked(boxes, s, reduced=(True, True)),
            STEP_POLICIES[5]: lambda: _checked(boxes, s, reduced=(False, False)),
            STEP_POLICIES[6]: lambda: _checked(boxes, s, reduced=(False, True))}
    for name, run in runs.items():
        t = time.process_time()
        d = run()
        row["runs"][name] = {"collapsed": d.collapsed, "cpu_ms": (time.process_time() - t) * 1000,
                             "rechecked": bool(d.settings.get("recheck"))}
    return row


def step_policy(jobs: int, n_builds: int = 500, towers: int = REFERENCE_TOWERS) -> None:
    """--step-policy: agreement with the statics judge and CPU cost of each dynamics setting on the 551 builds."""
    ks = list(range(n_builds)) + [500 + t for t in range(towers)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(jobs) as ex:
        rows = list(ex.map(_policy_case, ks, chunksize=4))
    clear = [r for r in rows if non_marginal(r["margin"], r["bare"], r["stable"])]
    base_cpu = sum(r["runs"][STEP_POLICIES[0]]["cpu_ms"] for r in rows)
    print(f"dynamics step policies on {len(rows)} builds ({n_builds} agreement builds + start towers 0..{towers - 1}), "
          f"{jobs} jobs, {time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.1f}")
    print(f"  {'policy':28} {'agree (non-marginal)':>22} {'agree (all)':>12} {'CPU s':>8} {'x before':>9} "
          f"{'re-runs':>8}")
    for name in STEP_POLICIES:
        agree_clear = sum(r["stable"] == (not r["runs"][name]["collapsed"]) for r in clear)
        agree_all = sum(r["stable"] == (not r["runs"][name]["collapsed"]) for r in rows)
        cpu = sum(r["runs"][name]["cpu_ms"] for r in rows)
        reruns = sum(r["runs"][name]["rechecked"] for r in rows)
        print(f"  {name:28} {100 * agree_clear / max(len(clear), 1):17.1f} % ({len(clear) - agree_clear:>2}) "
              f"{100 * agree_all / len(rows):10.1f} % {cpu / 1000:8.1f} {cpu / base_cpu:9.2f} {reruns:8d}")
    towers_cpu = [r["runs"][STEP_POLICIES[3]]["cpu_ms"] / r["runs"][STEP_POLICIES[0]]["cpu_ms"]
                  for r in rows if r["k"] >= 500]
    print(f"  start towers: the re-run policy costs {statistics.median(towers_cpu):.2f}x the single run (median)")
    for label, (a, b) in (("changed by the re-run", (0, 3)), ("rigid first run changed", (4, 3)),
                          ("focused re-run changed", (6, 3))):
        for r in rows:
            before, after = (r["runs"][STEP_POLICIES[i]]["collapsed"] for i in (a, b))
            if before != after:
                print(f"  {label}: {'build ' + str(r['k']) if r['k'] < 500 else 'tower ' + str(r['k'] - 500)}"
                      f" statics {'stands' if r['stable'] else 'falls'} ({r['margin']:.2f} deg); PyBullet "
                      f"({STEP_POLICIES[a]}) {'falls' if before else 'stands'} -> {'falls' if after else 'stands'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--drift", action="store_true")
    ap.add_argument("--builds", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--save-reference", metavar="FILE", help="write per-build results of both judges")
    ap.add_argument("--compare", metavar="FILE", help="compare per-build results with a saved reference")
    ap.add_argument("--step-policy", action="store_true",
                    help="PyBullet settings against time-step artefacts: agreement and cost on the 551 builds")
    args = ap.parse_args()
    if args.drift:
        drift_table()
        return 0
    if args.step_policy:
        step_policy(args.jobs, 500 if args.builds is None else args.builds)
        return 0
    n_builds = (100 if args.quick else 500) if args.builds is None else args.builds
    if args.save_reference:  # results only, no timings
        rows = reference_rows(n_builds, args.jobs)
        with open(args.save_reference, "w") as f:
            json.dump(rows, f)
        print(f"wrote {args.save_reference}: {len(rows)} builds")
        return 0
    boxes, source = tower_35(0)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"35-block tower from {source}: {len(boxes)} boxes; load average {load:.1f} on {os.cpu_count()} CPUs "
          f"(wall times include other processes' load; CPU times do not)", flush=True)
    statics_timing(boxes, 5 if args.quick else 21)
    runs = 3 if args.quick else 7
    judge_dynamics(boxes, seconds=0.05)
    ms, cpu, d = median_ms(lambda: judge_dynamics(boxes, seconds=2.0, early_stop=False), runs)
    print(f"dynamics verdict (35 blocks, 2 s simulated in full): median {ms:.0f} ms wall ({cpu:.0f} ms CPU) over "
          f"{runs} runs; max displacement {d.max_displacement_mm:.2f} mm", flush=True)
    ms, cpu, d = median_ms(lambda: judge_dynamics(boxes, seconds=2.0), runs)
    print(f"dynamics verdict (35 blocks, default early stop at rest): median {ms:.0f} ms wall ({cpu:.0f} ms CPU) "
          f"over {runs} runs, "
          f"stopped at {d.simulated_s:.2f} s simulated", flush=True)
    check_timing(3 if args.quick else 7)
    base = [straightforward_settle(boxes) for _ in range(1 if args.quick else 3)]
    ours = median_ms(lambda: judge_dynamics(boxes, seconds=2.0), 1 if args.quick else 3)[0] / 1000
    print(f"straightforward settle (1000 Hz, 50 iterations, 2 s, no early stop): median {statistics.median(base):.1f} s "
          f"over {len(base)} runs; our verdict {ours:.2f} s: {statistics.median(base) / ours:.0f}x faster", flush=True)
    legal_sweep(20 if args.quick else 100, args.jobs)
    if n_builds > 0:  # --builds 0: timings only
        rows = agreement(n_builds, args.jobs)
        if args.compare:
            compare(reference_rows(n_builds, args.jobs, rows), args.compare)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Why a build stands: timings of the removal map, contact forces and the push test on the 35-block start tower,
each printed beside one statics verdict of the same tower timed in the same run, and the removal map checked
against one `remove` + judge per block on random builds.

    python benchmarks/bench_explain.py                 # timings + the check on 100 random builds
    python benchmarks/bench_explain.py --check 20      # fewer builds in the check
    python benchmarks/bench_explain.py --check 0       # timings only
    python benchmarks/bench_explain.py --check 100 --towers 8 --moving-part   # the moving-part map checked too

    python benchmarks/bench_explain.py --bounds-only   # the force bounds and the least friction coefficient only

Targets (docs/benchmarks.md): the start tower's whole removal map <= 1.0 s, its statics part <= 0.4 s; all force
bounds of start tower 0 within 10 statics verdicts, its least friction coefficient within 3 (issue 32).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from physics import contact_forces, judge, judge_statics, push_margin, removal_map, remove
from physics.builds import random_build
from physics.units import grid_box

MAP_TARGET_S, MAP_STATICS_TARGET_S = 1.0, 0.4
#: Issue 32's targets, in statics verdicts of start tower 0 timed in the same run.
BOUNDS_TARGET, LEAST_MU_TARGET = 10.0, 3.0
#: Start towers the bounds are also timed on (how the ratio spreads).
BOUNDS_TOWERS = 10
#: The speed the targets assume: one statics verdict of start tower 0 in 40 ms (issue 20's machine). Each map time
#: is also printed scaled to it (times this run's verdict / 40 ms): the ratio carries from machine to machine.
TARGET_VERDICT_MS = 40.0
#: Start towers whose whole removal maps are timed (seed 3 is the one `tower new --seed 3` writes).
MAP_TOWERS = (0, 3)
#: ... and the default map of start towers 0..SPREAD_TOWERS-1, once each (how the time spreads over towers).
SPREAD_TOWERS = 10
WORDS = {"stable": "stands", "marginal": "marginal", "collapses": "falls"}


def start_tower(seed: int = 0):
    from tower.climbers.setup import random_start_tower  # noqa: PLC0415

    return [grid_box(b.id, b.origin, b.size) for b in random_start_tower(seed).blocks]


CPU: list[float] = []  # the CPU ms of the last median_ms call (all threads, and the map's worker processes)


def cpu_s() -> float:
    """CPU seconds (user + sys) of this process and of its finished child processes (the map's simulations)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def median_ms(fn, runs: int) -> tuple[float, object]:
    """Median wall ms of fn() over runs and its last result; the median CPU ms goes to CPU[0]."""
    times, cpu, out = [], [], None
    for _ in range(runs):
        t, c = time.perf_counter(), cpu_s()
        out = fn()
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((cpu_s() - c) * 1000)
    CPU[:] = [statistics.median(cpu)]
    return statistics.median(times), out


def timings(runs: int, spread: int = 3) -> None:
    boxes = start_tower(0)
    judge_statics(boxes)  # warm: HiGHS loaded
    one, _ = median_ms(lambda: judge_statics(boxes), 2 * runs + 1)
    one_cpu = CPU[0]
    print(f"reference: one statics verdict of start tower 0 (35 blocks): median {one:.0f} ms wall, {one_cpu:.0f} ms "
          f"CPU over {2 * runs + 1}")
    ms, m = median_ms(lambda: removal_map(boxes, dynamics="none"), runs)
    print(f"removal map, statics only: median {ms:.0f} ms = {ms / one:.1f} verdicts wall, {CPU[0]:.0f} ms = "
          f"{CPU[0] / one_cpu:.1f} verdicts CPU "
          f"(target statics part <= {MAP_STATICS_TARGET_S * 1000:.0f} ms = {MAP_STATICS_TARGET_S * 1000 / 40:.0f} "
          f"verdicts at the 40 ms verdict target); {m.extra['warm']} removals warm-started, {m.cold_judges} by the "
          f"judge itself, {m.extra['warm_lps']} warm LPs")
    cold, _ = median_ms(lambda: [judge_statics(remove(boxes, [b.id])) for b in boxes], max(1, runs // 2))
    print(f"  the same as 35 cold judge_statics(remove(...)): median {cold:.0f} ms = {cold / one:.1f} verdicts wall "
          f"({cold / ms:.1f}x the map), {CPU[0] / one_cpu:.1f} verdicts CPU")
    judge(boxes)  # warm: pybullet loaded
    full, _ = median_ms(lambda: judge(boxes), 2 * runs + 1)
    full_cpu = CPU[0]
    print(f"reference: one full judge (statics + PyBullet) of start tower 0: median {full:.0f} ms wall, "
          f"{full_cpu:.0f} ms CPU over {2 * runs + 1}")
    for seed in MAP_TOWERS:
        tower = start_tower(seed)
        for label, kw in (("default (whole build, 2 processes)", {}),
                          ("whole build, 1 process", {"processes": 1}),
                          ("moving part, 2 processes", {"simulation": "moving-part"})):
            parts = []

            def run_map(kw=kw, tower=tower, parts=parts):
                m = removal_map(tower, **kw)
                parts.append((m.statics_ms, m.dynamics_ms))
                return m

            ms, m = median_ms(run_map, runs)
            st_ms = statistics.median(p[0] for p in parts)
            dy_ms = statistics.median(p[1] for p in parts)
            print(f"removal map of start tower {seed}, {label}: median {ms:.0f} ms wall = {ms / full:.1f} judges, "
                  f"{CPU[0]:.0f} ms CPU = {CPU[0] / full_cpu:.1f} judges = {CPU[0] / one_cpu:.0f} statics verdicts; "
                  f"{ms * TARGET_VERDICT_MS / one:.0f} ms at the targets' speed "
                  f"(target whole map <= {MAP_TARGET_S * 1000:.0f} ms wall on an idle machine); statics search "
                  f"{st_ms:.0f} ms wall (PyBullet runs beside it), then PyBullet {dy_ms:.0f} ms wall; "
                  f"{m.dynamics_runs} runs; classes "
                  + ", ".join(f"{k} {len(v)}" for k, v in m.by_class().items()))
    # each tower's map `spread` times, the rounds interleaved (a slow moment of the machine hits every tower alike)
    towers = [start_tower(seed) for seed in range(SPREAD_TOWERS)]
    times: list[list[float]] = [[] for _ in towers]
    searches: list[float] = []
    for _ in range(spread):
        for k, tower in enumerate(towers):
            t = time.perf_counter()
            m = removal_map(tower)
            times[k].append((time.perf_counter() - t) * 1000)
            searches.append(m.statics_ms)
    walls = [statistics.median(v) for v in times]
    scaled = [w * TARGET_VERDICT_MS / one for w in walls]
    limit = MAP_TARGET_S * 1000
    print(f"removal map (default) of start towers 0..{SPREAD_TOWERS - 1}, median of {spread} each: median "
          f"{statistics.median(walls):.0f} ms wall = {statistics.median(walls) / full:.1f} judges (min {min(walls):.0f}, "
          f"max {max(walls):.0f}; {sum(w <= limit for w in walls)} of {SPREAD_TOWERS} within {limit:.0f} ms); statics "
          f"search median {statistics.median(searches):.0f} ms; per tower " + " ".join(f"{w:.0f}" for w in walls))
    print(f"  at the targets' speed (x {TARGET_VERDICT_MS:.0f} / {one:.0f} ms): median {statistics.median(scaled):.0f} ms "
          f"(min {min(scaled):.0f}, max {max(scaled):.0f}); {sum(w <= limit for w in scaled)} of {SPREAD_TOWERS} "
          f"within {limit:.0f} ms")
    ms, f = median_ms(lambda: contact_forces(boxes), runs)
    print(f"contact forces (minimum-norm, {len(f.contacts)} contacts): median {ms:.0f} ms = {ms / one:.1f} verdicts; "
          f"Newton iterations {f.extra.get('newton_iterations')}")
    ms, _ = median_ms(lambda: [push_margin(boxes, "h3", d) for d in ("+x", "-x", "+y", "-y")], runs)
    print(f"push test, 4 directions on h3: median {ms:.0f} ms = {ms / one:.1f} verdicts")


def leaning_cube():
    """A cube half over another, leaning on a standing double cube: it needs friction (mu >= 1/39), so its least
    coefficient takes the bisection rather than the one LP of a build that stands without friction."""
    return [grid_box("y", (0, 0, 0), (2, 2, 2)), grid_box("x", (1, 0, 2), (2, 2, 2)),
            grid_box("z", (3, 0, 0), (2, 2, 4))]


def bounds_timings(runs: int) -> None:
    """All force bounds and the least friction coefficient (physics.bounds, physics.friction_need) of start tower 0,
    then of start towers 0..BOUNDS_TOWERS-1 and a build that needs friction, each as a ratio to one statics verdict
    of the same build timed in the same run (interleaved, so a slow moment of the machine hits both alike)."""
    from physics.bounds import force_bounds  # noqa: PLC0415
    from physics.equilibrium import EquilibriumSystem  # noqa: PLC0415
    from physics.friction_need import friction_need  # noqa: PLC0415
    from physics.statics import COM_INSET_M  # noqa: PLC0415

    def bounds(b):
        return force_bounds(EquilibriumSystem(b, 0.5, COM_INSET_M))

    def least(b):
        return friction_need(EquilibriumSystem(b, 0.5, COM_INSET_M), stands=True)

    builds = [(f"start tower {s}", start_tower(s)) for s in range(BOUNDS_TOWERS)] + [("leaning cube", leaning_cube())]
    judge_statics(builds[0][1])
    rows = []
    for name, b in builds:
        v, bo, le = [], [], []
        for _ in range(runs):  # interleaved: verdict, bounds, least friction, verdict, ...
            for fn, out in ((judge_statics, v), (bounds, bo), (least, le)):
                t = time.perf_counter()
                res = fn(b)
                out.append((time.perf_counter() - t) * 1000)
                if fn is bounds:
                    found = res
                elif fn is least:
                    need = res
        one, b_ms, l_ms = statistics.median(v), statistics.median(bo), statistics.median(le)
        rows.append((name, one, b_ms, l_ms, found, need))
    name, one, b_ms, l_ms, found, need = rows[0]
    kinds = [c.carries for c in found.contacts]
    print(f"reference: one statics verdict of {name}: median {one:.0f} ms over {runs}")
    print(f"force bounds of {name} ({len(found.contacts)} contacts: {kinds.count('determinate')} determinate, "
          f"{kinds.count('must-carry')} must carry, {kinds.count('may-carry-nothing')} may carry nothing): median "
          f"{b_ms:.0f} ms = {b_ms / one:.1f} verdicts (target <= {BOUNDS_TARGET:.0f}); {found.lps} LPs")
    print(f"least friction coefficient of {name} ({need.least_mu:g}): median {l_ms:.1f} ms = {l_ms / one:.2f} verdicts "
          f"(target <= {LEAST_MU_TARGET:.0f}); {need.lps} LPs")
    ratios = [r[2] / r[1] for r in rows[:BOUNDS_TOWERS]]
    mu_ratios = [r[3] / r[1] for r in rows[:BOUNDS_TOWERS]]
    print(f"start towers 0..{BOUNDS_TOWERS - 1}: bounds median {statistics.median(ratios):.1f} verdicts (min "
          f"{min(ratios):.1f}, max {max(ratios):.1f}; {sum(r <= BOUNDS_TARGET for r in ratios)} of {len(ratios)} within "
          f"the target); least friction median {statistics.median(mu_ratios):.2f} verdicts (max {max(mu_ratios):.2f}); "
          f"LPs per tower " + " ".join(str(r[4].lps) for r in rows[:BOUNDS_TOWERS]))
    name, one, b_ms, l_ms, found, need = rows[-1]
    print(f"{name} (needs mu >= {need.least_mu:.4f}): verdict {one:.1f} ms, bounds {b_ms:.1f} ms = {b_ms / one:.1f} "
          f"verdicts, least friction {l_ms:.1f} ms = {l_ms / one:.1f} verdicts ({need.lps} LPs)")


def check_command(runs: int) -> None:
    """`tower check FILE` on start tower 0 (both judges) as a whole command, beside one statics verdict."""
    boxes = start_tower(0)
    one, _ = median_ms(lambda: judge_statics(boxes), 7)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.json")
        subprocess.run([sys.executable, "-m", "tower", "new", "--seed", "0", "-o", path], check=True,
                       capture_output=True)
        # as installed: compiled modules cached (one untimed run writes them where an editable install keeps them)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run([sys.executable, "-m", "tower", "check", path], capture_output=True, env=env)
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "tower", "check", path], capture_output=True, env=env)
            times.append(time.perf_counter() - t)
    print(f"tower check (start tower 0, statics + PyBullet) whole command: median {statistics.median(times):.2f} s "
          f"over {runs} (target <= 0.5 s); one statics verdict in this process {one:.0f} ms")


def check_against_remove(n: int, seed: int = 7, moving_part: bool = False, towers: int = 0) -> None:
    """The map against one `remove` + judge per block: statics only (exact), and the default map against the
    full `judge` (which runs PyBullet on every block; the map only where statics is in doubt). With moving_part,
    the moving-part map too, on the random builds and on `towers` start towers."""
    rng = random.Random(seed)
    same_s = same_d = same_p = total = 0
    differ = []
    t0 = time.perf_counter()
    builds = [(f"build {b}", random_build(rng, rng.randint(2, 16))) for b in range(n)]
    builds += [(f"start tower {s}", start_tower(s)) for s in range(towers)]
    for name, boxes in builds:
        m_s = removal_map(boxes, dynamics="none") if name.startswith("build") else None
        m_d = removal_map(boxes)
        m_p = removal_map(boxes, simulation="moving-part") if moving_part else m_d
        for k, e_d in enumerate(m_d.entries):
            rest = remove(boxes, [e_d.block])
            total += 1
            if m_s is not None:
                same_s += m_s.entries[k].verdict == WORDS[judge(rest, statics_only=True).verdict]
            else:
                same_s += 1  # start towers: the statics-only map is checked by the random builds
            full = WORDS[judge(rest).verdict]
            same_d += e_d.verdict == full
            same_p += m_p.entries[k].verdict == full
            if e_d.verdict != full or m_p.entries[k].verdict != full:
                differ.append(f"{name} without {e_d.block}: map {e_d.verdict}, moving-part map "
                              f"{m_p.entries[k].verdict}, judge {full}")
    print(f"removal map vs one remove + judge per block on {n} random builds and {towers} start towers ({total} "
          f"removals, {time.perf_counter() - t0:.0f} s): statics only identical {same_s}/{total}; default map vs "
          f"the full judge identical {same_d}/{total}" + (f"; moving-part map identical {same_p}/{total}"
                                                          if moving_part else ""))
    for line in differ[:10]:
        print("  " + line)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--check", type=int, default=100, metavar="N", help="random builds in the check (0: none)")
    ap.add_argument("--moving-part", action="store_true", help="check the moving-part map as well")
    ap.add_argument("--towers", type=int, default=0, metavar="N", help="start towers 0..N-1 in the check too")
    ap.add_argument("--no-command", action="store_true", help="skip timing the `tower check` command")
    ap.add_argument("--spread", type=int, default=3, metavar="N",
                    help="maps of each of start towers 0..9 (median of N, interleaved)")
    ap.add_argument("--bounds-only", action="store_true", help="only the force bounds and the least friction")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall times include other processes)")
    bounds_timings(args.runs)
    if args.bounds_only:
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
        return 0
    timings(args.runs, args.spread)
    if not args.no_command:
        check_command(args.runs)
    if args.check or args.towers:
        check_against_remove(args.check, moving_part=args.moving_part, towers=args.towers)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

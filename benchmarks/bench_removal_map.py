"""The removal map's statics on interlocked builds (issue 44), beside judging each removal on its own.

    python benchmarks/bench_removal_map.py                  # the table (about 20-40 minutes on a loaded machine)
    python benchmarks/bench_removal_map.py --quick          # the smaller builds only
    python benchmarks/bench_removal_map.py --before 100     # also the map as it was (warm simplex) up to 100 blocks

Per build: one statics verdict with tilt margin (`judge_statics`, median of --runs), the statics-only removal map
(`removal_map(..., dynamics="none")`, median of --map-runs), the one-at-a-time map (`judge_statics(remove(...))`
for every block, median of --single-runs, default once: it is the slow one) and the reference judge (benchmarks/statics_reference.py, the judge before issue 26, one
verdict, up to --reference-max blocks). Every time is printed as a ratio to one statics verdict of the 35-block
start tower 0 timed just before that build's row (median of 5), so it carries across machines; wall and CPU
(this process and its workers) both. Each map is checked against the one-at-a-time map block by block: the same
answer (stands / falls / marginal) and, where the map judged the removal itself or mirrored it, the same margin
within 1e-6 degrees (the warm simplex map of small builds agrees to its 0.05-degree search tolerance).

Targets (issue 44): the 95-block wall within 20 start-tower verdicts, the 189-block wall and a 200-block
asymmetric build within 60, the start tower no slower than before.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import statics_reference as reference  # noqa: E402
from bench_statics_scale import start_tower  # noqa: E402

import physics.removal_lp as removal_lp  # noqa: E402
from physics import judge_statics, removal_map, remove  # noqa: E402
from physics.builds import flemish_wall, hollow_tower, jenga_tower, random_interlocked, running_bond_wall  # noqa: E402

#: (name, build, in --quick)
BUILDS = (
    ("start tower 0", lambda: start_tower(0), True),
    ("Jenga tower, 18 levels, 8 pulled", lambda: jenga_tower(18, 8, random.Random(1)), True),
    ("running-bond wall, 10 courses", lambda: running_bond_wall(10), True),
    ("hollow tower, 10 courses", lambda: hollow_tower(10), True),
    ("Flemish wall, 6 x 6", lambda: flemish_wall(6, 6), True),
    ("running-bond wall, 14 courses", lambda: running_bond_wall(14), False),
    ("random interlocked heap", lambda: random_interlocked(random.Random(44), 200), False),
)
TARGETS = {"running-bond wall, 10 courses": 20, "running-bond wall, 14 courses": 60, "random interlocked heap": 60}
MARGIN_TOL_DEG = 1e-6


def cpu_s() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn, runs: int) -> tuple[float, float, object]:
    """Median wall and CPU seconds of `runs` calls, and the last result."""
    walls, cpus, out = [], [], None
    for _ in range(runs):
        t, c = time.perf_counter(), cpu_s()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(cpu_s() - c)
    return statistics.median(walls), statistics.median(cpus), out


def one_at_a_time(boxes) -> dict:
    return {b.id: judge_statics(remove(boxes, [b.id])) for b in boxes}


def differences(m, single: dict) -> int:
    bad = 0
    for e in m.entries:
        r = single[e.block]
        tol = MARGIN_TOL_DEG if m.extra.get("one_by_one") else 0.1
        if r.answer != e.statics.answer or abs(r.tilt_margin_deg - e.statics.tilt_margin_deg) > tol:
            print(f"  differs: without {e.block}: map {e.statics.answer} {e.statics.tilt_margin_deg:.9f}, "
                  f"alone {r.answer} {r.tilt_margin_deg:.9f}", flush=True)
            bad += 1
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--map-runs", type=int, default=3)
    ap.add_argument("--single-runs", type=int, default=1, help="runs of the one-at-a-time map (the slow one)")
    ap.add_argument("--reference-max", type=int, default=120)
    ap.add_argument("--before", type=int, default=0, help="also time the map as it was up to this many blocks")
    args = ap.parse_args()
    st = start_tower(0)
    judge_statics(st)
    print(f"load average {open('/proc/loadavg').read().split()[:3]}", flush=True)
    print("| build | blocks | verdict | removal map | one-at-a-time map | map before | reference judge | target | "
          "same answers |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    for name, make, quick in BUILDS:
        if args.quick and not quick:
            continue
        boxes = make()
        n = len(boxes)
        ref_w, ref_c, _ = timed(lambda: judge_statics(st), 5)

        def x(w: float, c: float, ref_w: float = ref_w, ref_c: float = ref_c) -> str:
            return f"{w / ref_w:.1f}x ({c / ref_c:.1f}x CPU)"

        vw, vc, _ = timed(lambda b=boxes: judge_statics(b), args.runs)
        mw, mc, m = timed(lambda b=boxes: removal_map(b, dynamics="none"), args.map_runs)
        sw, sc, single = timed(lambda b=boxes: one_at_a_time(b), args.single_runs)
        bad = differences(m, single)
        before = "not run"
        if n <= args.before:
            saved = removal_lp.COLD_MIN_BOXES
            removal_lp.COLD_MIN_BOXES = 10 ** 9
            try:
                bw, bc, _ = timed(lambda b=boxes: removal_map(b, dynamics="none"), 1)
            finally:
                removal_lp.COLD_MIN_BOXES = saved
            before = x(bw, bc)
        old = "not run"
        if n <= args.reference_max:
            ow, oc, _ = timed(lambda b=boxes: reference.judge_statics(b), 1)
            old = x(ow, oc)
        target = f"<= {TARGETS[name]}x" if name in TARGETS else ""
        how = "one by one" if m.extra.get("one_by_one") else "warm simplex"
        print(f"| {name} | {n} | {x(vw, vc)} | {x(mw, mc)}, {how}, {m.extra.get('mirrored', 0)} mirrored | "
              f"{x(sw, sc)} | {before} | {old} | {target} | {n - bad}/{n} |", flush=True)
        print(f"  (start tower verdict {ref_w * 1000:.0f} ms wall, {ref_c * 1000:.0f} ms CPU; map {mw:.1f} s, "
              f"one at a time {sw:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

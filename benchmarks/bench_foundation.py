"""Benchmarks for the Climbers foundation: reading and checking a build, and generating start towers.

Run: python benchmarks/bench_foundation.py [--runs N] [--towers N]

Figures printed (medians over several runs, with the spread):
- load + validate a 35-block build file: read, parse, schema checks (tower.climbers.build.load_build) and the legality
  check (tower.climbers.legality.check_build); also the two parts separately;
- generate one start tower (tower.climbers.setup.random_start_tower) over different seeds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tower.climbers.build import load_build, save_build
from tower.climbers.legality import check_build
from tower.climbers.setup import random_start_tower


def timed(fn: Callable[[], object], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU times in milliseconds of `runs` calls (after one warm-up call).

    CPU time is printed too: on a busy shared machine it is the steadier of the two.
    """
    fn()
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - w) * 1000)
    return wall, cpu


def report(label: str, times: tuple[list[float], list[float]]) -> None:
    wall, cpu = times
    q = statistics.quantiles(wall, n=10) if len(wall) >= 10 else [min(wall)] * 9
    print(f"{label:48} median {statistics.median(wall):8.2f} ms wall, {statistics.median(cpu):8.2f} ms CPU"
          f"   (wall p10 {q[0]:.2f}, p90 {q[-1]:.2f}, n={len(wall)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200, help="runs of the load+validate figure")
    ap.add_argument("--towers", type=int, default=40, help="start towers generated (one seed each)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tower.json"
        build = random_start_tower(0)
        save_build(build, path)
        assert len(build.blocks) == 35 and check_build(build) == []
        print(f"build file: {len(build.blocks)} blocks, {path.stat().st_size} bytes")
        report("load + validate (parse + legality), 35 blocks", timed(lambda: check_build(load_build(path)), args.runs))
        report("  load only (read + parse + schema)", timed(lambda: load_build(path), args.runs))
        report("  legality check only", timed(lambda: check_build(build), args.runs))

    seeds = iter(range(1, 10**6))
    report("generate a start tower (distinct seeds)", timed(lambda: random_start_tower(next(seeds)), args.towers))


if __name__ == "__main__":
    main()

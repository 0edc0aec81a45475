"""What a certificate costs (issue 43): writing one (physics.certificate) and verifying it (physics.verifier), beside
the statics verdict it proves, timed in the same run (medians), on the start tower and on a 200-block wall; and the
certificates of many start towers and of the friction-bearing builds all verify.

    python benchmarks/bench_certificate.py [--runs 7] [--towers 500]

Targets: writing + verifying <= one start-tower verdict on the start tower, <= the verdict itself on a 200-block
wall.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import physics  # noqa: E402
from physics.builds import running_bond_wall  # noqa: E402
from physics.certificate import certificate  # noqa: E402
from physics.verifier import verify  # noqa: E402


def start_tower(seed: int) -> list[physics.Box]:
    from tower.climbers.setup import random_start_tower  # noqa: PLC0415

    return [physics.grid_box(b.id, b.origin, b.size) for b in random_start_tower(seed).blocks]


def ms(fn, *args) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn(*args)
    return (time.perf_counter() - t) * 1000, out


def written(boxes: list[physics.Box], result: physics.StaticsResult) -> dict:
    """The certificate through JSON, as a file carries it."""
    return json.loads(json.dumps(certificate(boxes, result=result)))


def costs(boxes: list[physics.Box], runs: int, reference: list[physics.Box]) -> dict:
    """Medians (ms) of the build's verdict, of writing its certificate, of verifying it (through JSON, as a file
    carries it), and of the reference's verdict, interleaved run by run."""
    rows = {"reference": [], "verdict": [], "write": [], "verify": []}
    for _ in range(runs):
        rows["reference"].append(ms(physics.judge_statics, reference)[0])
        t, r = ms(physics.judge_statics, boxes)
        rows["verdict"].append(t)
        t, doc = ms(written, boxes, r)
        rows["write"].append(t)
        t, rep = ms(verify, doc)
        rows["verify"].append(t)
        assert rep.ok, rep.lines()
    out = {k: statistics.median(v) for k, v in rows.items()}
    out["both"] = statistics.median([w + v for w, v in zip(rows["write"], rows["verify"], strict=True)])
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--towers", type=int, default=100, help="start towers whose certificates must verify")
    args = ap.parse_args()
    tower = start_tower(0)
    physics.judge_statics(tower)  # warm: imports, the HiGHS extension
    wall = running_bond_wall(14, 15)
    print(f"start tower 0 ({len(tower)} blocks) and a running-bond wall of {len(wall)} blocks, medians of {args.runs}")
    for name, boxes in (("start tower 0", tower), (f"wall of {len(wall)}", wall)):
        c = costs(boxes, args.runs, tower)
        print(f"{name}: verdict {c['verdict']:.1f} ms, certificate written {c['write']:.1f} ms, verified "
              f"{c['verify']:.1f} ms; both {c['both']:.1f} ms = {c['both'] / c['reference']:.2f} start-tower "
              f"verdicts ({c['reference']:.1f} ms) = {c['both'] / c['verdict']:.2f} of its own verdict")
    ratios, claims = [], {"stands": 0, "falls": 0}
    t0 = time.perf_counter()
    for seed in range(args.towers):
        boxes = start_tower(seed)
        tv, r = ms(physics.judge_statics, boxes)
        tc, doc = ms(written, boxes, r)
        tr, rep = ms(verify, doc)
        if not rep.ok:
            print(f"start tower {seed}: NOT VERIFIED: {rep.failed}")
            return 1
        claims[doc["claim"]] += 1
        ratios.append((tc + tr) / tv)
    print(f"{args.towers} start towers: all verified ({claims}), writing + verifying a median "
          f"{statistics.median(ratios):.2f} (max {max(ratios):.2f}) of each tower's own verdict, "
          f"{time.perf_counter() - t0:.1f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())

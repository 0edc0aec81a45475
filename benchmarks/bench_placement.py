"""Aimed block placement (viewer/placement.py): what picking a block of a start tower costs, once, and what one
mouse move costs, each beside a reference timed in the same run (one statics verdict of the 35-block start tower,
so the ratios carry across machines). Prints medians over the movable blocks of several start towers.

1. grouping: `BlockPlacements.from_moves` for one block (its legal moves, the build, the words of each move);
2. why-not: `explain_with` (the game's refusal for the columns around the tower that no placement covers);
3. the JSON the page receives (`to_json`, serialised): size in kB;
4. one pointer move: `Aim.point` + `current` + `status` (what runs per mouse move, no game involved).

    python benchmarks/bench_placement.py [--towers N] [--points N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--towers", type=int, default=4, help="start towers (seeds 0..N-1)")
    ap.add_argument("--points", type=int, default=2000, help="pointer moves timed per block")
    args = ap.parse_args()

    from physics import grid_box, judge_statics
    from tower.climbers.setup import random_start_tower
    from tower.games.registry import new_game
    from viewer.placement import Aim, BlockPlacements

    boxes = [grid_box(b.id, b.origin, b.size) for b in random_start_tower(0).blocks]
    judge_statics(boxes)  # warm-up
    ref = []
    group, why, size, point, counts = [], [], [], [], []
    for seed in range(args.towers):
        t = time.perf_counter()
        judge_statics(boxes)
        ref.append(time.perf_counter() - t)
        st = new_game("climbers", 3, seed, {})
        st.apply(st.move_type.parse("skip", st))
        legal = st.legal_moves()
        build = st.to_build()

        def explain(text: str, st=st) -> str | None:
            refused = st.explain(st.move_type.parse(text, st))
            return None if refused is None else refused.message

        for block in sorted({m.block for m in legal if m.kind == "block"}):
            mine = [m for m in legal if m.kind == "block" and m.block == block]
            t = time.perf_counter()
            ps = BlockPlacements.from_moves(block, mine, build, words=st.move_words)
            group.append(time.perf_counter() - t)
            t = time.perf_counter()
            ps.explain_with(explain)
            why.append(time.perf_counter() - t)
            size.append(len(json.dumps(ps.to_json())) / 1000)
            counts.append(len(mine))
            aim = Aim(ps)
            pts = [(6 + (k * 7919 % 2000) / 100, 6 + (k * 104729 % 2000) / 100, (k % 5) * 1.0)
                   for k in range(args.points)]
            t = time.perf_counter()
            for p in pts:
                aim.point(p, (0.0, 0.0, 1.0))
                aim.status()
            point.append((time.perf_counter() - t) / len(pts))
    ms = statistics.median
    print(f"load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}; {len(group)} blocks of {args.towers} "
          f"start towers, {ms(counts):.0f} placements a block (median, max {max(counts)})")
    r = ms(ref) * 1000
    print(f"reference: one statics verdict of the 35-block start tower  {r:8.2f} ms")
    for name, values in (("grouping (from_moves, with words)", group), ("why-not (explain_with)", why)):
        v = ms(values) * 1000
        print(f"{name:<48} {v:8.2f} ms  ({v / r:.2f} x reference; max {max(values) * 1000:.1f} ms)")
    v = ms(point) * 1e6
    print(f"{'one pointer move (Aim.point + status)':<48} {v:8.1f} us  ({v / 1000 / r:.4f} x reference)")
    print(f"{'JSON sent to the page per picked block':<48} {ms(size):8.1f} kB  (max {max(size):.1f} kB)")


if __name__ == "__main__":
    main()

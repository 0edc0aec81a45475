"""Viewer benchmark (SPEC section 7): build scene + first offscreen frame of a Climbers start tower, and later
frames after an in-place update. Prints medians (wall clock, plus CPU time of all threads: llvmpipe renders on
every core, so a busy machine inflates the wall clock but hardly the CPU time).

    /work/.venv/bin/python benchmarks/bench_viewer.py [--runs N] [--size WxH]
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--size", default="960x720")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))

    t0 = time.perf_counter()
    import pyvista.plotting  # noqa: F401  (pyvista loads its plotting part, and matplotlib with it, lazily)

    from tower.legality import check_build
    from tower.setup import random_start_tower
    from viewer.render import SceneRenderer
    from viewer.scene import build_scene

    print(f"imports (tower + pyvista.plotting + matplotlib + vtk), once per process: {time.perf_counter() - t0:.2f} s")
    towers = [random_start_tower(seed) for seed in range(args.runs + 1)]

    # the very first renderer of a process also creates the EGL context and compiles shaders
    t0 = time.perf_counter()
    r = SceneRenderer(build_scene(towers[0], check_build(towers[0])), window_size=size)
    r.image()
    r.close()
    print(f"first scene + frame of the process (EGL context, shaders): {time.perf_counter() - t0:.3f} s")

    first, first_cpu = [], []
    for b in towers[1:]:
        w, c = time.perf_counter(), time.process_time()
        r = SceneRenderer(build_scene(b, check_build(b)), window_size=size)
        r.image()
        first.append(time.perf_counter() - w)
        first_cpu.append(time.process_time() - c)
        r.close()
    print(f"build scene + first offscreen frame, start tower, {size[0]}x{size[1]}: median "
          f"{statistics.median(first) * 1000:.0f} ms wall, {statistics.median(first_cpu) * 1000:.0f} ms CPU "
          f"(target <= 1000 ms)")

    r = SceneRenderer(build_scene(towers[0]), window_size=size)
    r.image()
    scenes = [build_scene(b.without({b.blocks[-1 - k % 5].id}), selected=b.blocks[k % 7].id)
              for k, b in enumerate(towers * 8)]
    frame, frame_cpu, update = [], [], []
    for k in range(args.frames):
        w, c = time.perf_counter(), time.process_time()
        r.update(scenes[k % len(scenes)])
        u = time.perf_counter()
        r.render()
        frame.append(time.perf_counter() - w)
        frame_cpu.append(time.process_time() - c)
        update.append(u - w)
    r.close()
    print(f"later frame (in-place update + render): median {statistics.median(frame) * 1000:.1f} ms wall, "
          f"{statistics.median(frame_cpu) * 1000:.1f} ms CPU, of which the update {statistics.median(update) * 1000:.1f}"
          f" ms (target <= 50 ms)")


if __name__ == "__main__":
    main()

"""Viewer benchmark (targets in docs/benchmarks.md). Prints medians of:

1. scene build + first offscreen frame of a Climbers start tower (a fresh renderer each time; target <= 1 s);
2. later frames after a move: a Climbers game played move by move, each new position shown by the in-place
   update of one renderer plus a render (target <= 50 ms);
3. a 60-move replay rendered to an animated GIF (`tower replay --gif`): the first 60 moves of a Diabolo game
   (Climbers games end sooner), and a whole Climbers game for comparison.

Wall clock, plus CPU time of all threads: llvmpipe renders on every core, so a busy machine inflates the wall
clock but hardly the CPU time.

    .venv/bin/python benchmarks/bench_viewer.py [--runs N] [--frames N] [--size WxH]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def played(game: str, players: int, seed: int, moves: int):
    from tower.games import new_game
    from tower.games.ai import make_agent

    state = new_game(game, players, seed=seed)
    agent = make_agent("ai:random", seed=seed)
    while not state.is_over and len(state.history) < moves:
        state.apply(agent.choose(state))
    return state


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--size", default="960x720")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))

    t0 = time.perf_counter()
    import pyvista.plotting  # noqa: F401  (pyvista loads its plotting part, and matplotlib with it, lazily)

    from tower.climbers.legality import check_build
    from tower.climbers.setup import random_start_tower
    from viewer.render import SceneRenderer
    from viewer.scene import build_scene
    from viewer.view import state_scene

    print(f"imports (tower + pyvista.plotting + matplotlib + vtk), once per process: {time.perf_counter() - t0:.2f} s")
    towers = [random_start_tower(seed) for seed in range(args.runs + 1)]

    # the very first renderer of a process also creates the EGL context and compiles shaders
    t0 = time.perf_counter()
    r = SceneRenderer(build_scene(towers[0], check_build(towers[0])), window_size=size)
    r.image()
    r.close()
    print(f"first scene + frame of the process (EGL context, shaders): {time.perf_counter() - t0:.3f} s")

    # 1. scene build + first frame
    first, first_cpu = [], []
    for b in towers[1:]:
        w, c = time.perf_counter(), time.process_time()
        r = SceneRenderer(build_scene(b, check_build(b)), window_size=size)
        r.image()
        w, c = time.perf_counter() - w, time.process_time() - c
        r.close()
        first.append(w)
        first_cpu.append(c)
    print(f"1. scene build + first offscreen frame, start tower, {size[0]}x{size[1]}: median "
          f"{statistics.median(first) * 1000:.0f} ms wall, {statistics.median(first_cpu) * 1000:.0f} ms CPU "
          f"over {len(first)} runs (target <= 1000 ms)")

    # 2. later frames after a move: every position of real games, one renderer updated in place
    from viewer.replay import states

    positions = []
    seed = 0
    while len(positions) < args.frames + 1:  # Climbers games are short: as many as it takes
        positions += states(played("climbers", 4, seed, 10**6).record())
        seed += 1
    t0 = time.perf_counter()
    scenes = [state_scene(s) for s in positions[: args.frames + 1]]
    build_ms = (time.perf_counter() - t0) / len(scenes) * 1000
    r = SceneRenderer(scenes[0], window_size=size)
    r.image()
    frame, frame_cpu, update = [], [], []
    for sc in scenes[1:]:
        w, c = time.perf_counter(), time.process_time()
        r.update(sc)
        u = time.perf_counter()
        r.render()
        frame.append(time.perf_counter() - w)
        frame_cpu.append(time.process_time() - c)
        update.append(u - w)
    r.close()
    print(f"2. later frame after a move (in-place update + render, {len(frame)} Climbers moves): median "
          f"{statistics.median(frame) * 1000:.1f} ms wall, {statistics.median(frame_cpu) * 1000:.1f} ms CPU, of which "
          f"the update {statistics.median(update) * 1000:.1f} ms (target <= 50 ms); the state-to-scene step "
          f"{build_ms:.1f} ms per position (mean)")

    # 3. replays to GIF
    from viewer.replay import GIF_SIZE, render_gif

    with tempfile.TemporaryDirectory() as tmp:
        for label, game, players, seed, moves in (("Diabolo, first 60 moves", "diabolo", 4, 1, 60),
                                                   ("Climbers, a whole game", "climbers", 4, 2, 10**6)):
            record = played(game, players, seed, moves).record()
            times, cpu = [], []
            frames = 0
            for _ in range(max(1, args.runs // 2)):
                out = Path(tmp) / "replay.gif"
                w, c = timed(lambda record=record, out=out: render_gif(record, out))
                frames = len(record["moves"]) + 1
                times.append(w)
                cpu.append(c)
            print(f"3. replay to GIF ({label}: {len(record['moves'])} moves, {frames} frames at "
                  f"{GIF_SIZE[0]}x{GIF_SIZE[1]}): median {statistics.median(times):.2f} s wall, "
                  f"{statistics.median(cpu):.2f} s CPU over {len(times)} runs, "
                  f"{statistics.median(times) / frames * 1000:.0f} ms per frame")


if __name__ == "__main__":
    main()

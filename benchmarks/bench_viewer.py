"""Viewer benchmark (targets in docs/benchmarks.md). Prints medians of:

1. scene build + first offscreen frame of a Climbers start tower (a fresh renderer each time; target <= 1 s);
2. later frames after a move: a Climbers game played move by move, each new position shown by the in-place
   update of one renderer plus a render (target <= 50 ms);
3. a 60-move replay rendered to an animated GIF (`tower replay --gif`): the first 60 moves of a Diabolo game
   (Climbers games end sooner), and a whole Climbers game for comparison;
4. whole commands as a user runs them, each a fresh process: `tower view FILE --screenshot PNG` (target <= 2 s)
   and `tower check FILE` (target <= 1.2 s), wall clock and CPU time (the process and its threads);
5. the CPU an idle play window uses (a person to move, nothing happening; target < 5 % of a core): a real window
   on a private Xvfb display (skipped when Xvfb is not installed), measured from /proc over --idle seconds.

Wall clock, plus CPU time of all threads: llvmpipe renders on every core, so a busy machine inflates the wall
clock but hardly the CPU time. The load average is printed with the figures. `--tree DIR` runs parts 4 and 5
from another checkout of the project (e.g. the commit before a change: `git worktree add /tmp/base COMMIT`),
so before and after are measured in the same conditions.

    .venv/bin/python benchmarks/bench_viewer.py [--runs N] [--frames N] [--size WxH] [--only PARTS] [--tree DIR]
        [--idle SECONDS]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
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


def load() -> str:
    return "load average " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def tower_env(tree: str | None) -> dict[str, str]:
    """The environment of a `tower` process run from `tree` (None: this checkout, as installed)."""
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree  # ahead of the editable install of this checkout
    return env


def command(args: list[str], tree: str | None, cwd: str) -> tuple[float, float]:
    """Run `tower ARGS` as a fresh process (from `tree` if given) in `cwd`, a folder outside any checkout (python -m
    would import the package of the current folder first); (wall s, CPU s of the process and its threads)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tower", *args], env=tower_env(tree), cwd=cwd, capture_output=True,
                          text=True)
    wall = time.perf_counter() - w
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"tower {' '.join(args)} failed: {proc.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def whole_commands(runs: int, tree: str | None) -> None:
    from tower.climbers.build import save_build
    from tower.climbers.setup import random_start_tower

    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "tower.json"
        save_build(random_start_tower(5), build)
        for label, args in (("tower view FILE --screenshot PNG", ["view", str(build), "--screenshot",
                                                                   str(Path(tmp) / "t.png")]),
                            ("tower check FILE", ["check", str(build)])):
            command(args, tree, tmp)  # warm the file cache
            times = [command(args, tree, tmp) for _ in range(runs)]
            walls, cpus = [t[0] for t in times], [t[1] for t in times]
            print(f"4. {label} (35-block start tower{', ' + tree if tree else ''}): median "
                  f"{statistics.median(walls):.2f} s wall (min {min(walls):.2f}), {statistics.median(cpus):.2f} s CPU "
                  f"over {runs} runs; {load()}")


def idle_window_cpu(seconds: float, tree: str | None) -> None:
    """CPU share of a play window left alone with a person to move, on a private Xvfb display."""
    if not shutil.which("Xvfb"):
        print("5. idle play window: skipped (Xvfb is not installed)")
        return
    display = f":{90 + os.getpid() % 100}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = dict(tower_env(tree), DISPLAY=display)
    env.pop("VTK_DEFAULT_OPENGL_WINDOW", None)
    tick = os.sysconf("SC_CLK_TCK")
    tmp = tempfile.mkdtemp()
    try:
        time.sleep(2.0)
        for game, seats in (("climbers", "human,ai:greedy"), ("diabolo", "human,ai:greedy,ai:greedy")):
            proc = subprocess.Popen([sys.executable, "-m", "tower", "play", game, "--players", seats], cwd=tmp,
                                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                time.sleep(15.0)  # open the window; the AIs before the person move and animate
                if proc.poll() is not None:
                    raise SystemExit(f"the {game} window did not stay open: {proc.stderr.read().strip()[-300:]}")
                fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
                start = int(fields[11]) + int(fields[12])
                time.sleep(seconds)
                fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
                used = (int(fields[11]) + int(fields[12]) - start) / tick
                print(f"5. idle {game} play window{', ' + tree if tree else ''}: {used / seconds * 100:.1f} % of a core "
                      f"over {seconds:.0f} s (target < 5 %); {load()}")
            finally:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    finally:
        xvfb.terminate()
        xvfb.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--size", default="960x720")
    ap.add_argument("--only", default="1,2,3,4,5", help="parts to run, e.g. 4,5")
    ap.add_argument("--tree", help="run parts 4 and 5 from this checkout (a baseline)")
    ap.add_argument("--idle", type=float, default=20.0, help="seconds an idle window is watched")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    parts = set(args.only.split(","))
    if "4" in parts:
        whole_commands(args.runs, args.tree)
    if "5" in parts:
        idle_window_cpu(args.idle, args.tree)
    if not parts & {"1", "2", "3"}:
        return

    t0 = time.perf_counter()
    from tower.climbers.legality import check_build
    from tower.climbers.setup import random_start_tower
    from viewer.renderer import SceneRenderer
    from viewer.scene import build_scene

    print(f"imports (tower + numpy + vtk), once per process: {time.perf_counter() - t0:.2f} s")
    towers = [random_start_tower(seed) for seed in range(args.runs + 1)]

    # the very first renderer of a process also creates the EGL context and compiles shaders
    t0 = time.perf_counter()
    r = SceneRenderer(build_scene(towers[0], check_build(towers[0])), window_size=size)
    r.image()
    r.close()
    print(f"first scene + frame of the process (EGL context, shaders): {time.perf_counter() - t0:.3f} s")

    # 1. scene build + first frame
    if "1" in parts:
        first_frames(towers[1:], size)
    # 2. later frames after a move: every position of real games, one renderer updated in place
    if "2" in parts:
        later_frames(args.frames, size)
    # 3. replays to GIF
    if "3" in parts:
        gif_replays(args.runs)


def first_frames(towers: list, size: tuple[int, int]) -> None:
    from tower.climbers.legality import check_build
    from viewer.renderer import SceneRenderer
    from viewer.scene import build_scene

    first, first_cpu = [], []
    for b in towers:
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



def later_frames(count: int, size: tuple[int, int]) -> None:
    from viewer.renderer import SceneRenderer
    from viewer.replay import states
    from viewer.view import state_scene

    positions = []
    seed = 0
    while len(positions) < count + 1:  # Climbers games are short: as many as it takes
        positions += states(played("climbers", 4, seed, 10**6).record())
        seed += 1
    t0 = time.perf_counter()
    scenes = [state_scene(s) for s in positions[: count + 1]]
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



def gif_replays(runs: int) -> None:
    from viewer.replay import GIF_SIZE, render_gif

    with tempfile.TemporaryDirectory() as tmp:
        for label, game, players, seed, moves in (("Diabolo, first 60 moves", "diabolo", 4, 1, 60),
                                                   ("Climbers, a whole game", "climbers", 4, 2, 10**6)):
            record = played(game, players, seed, moves).record()
            times, cpu = [], []
            frames = 0
            for _ in range(max(1, runs // 2)):
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

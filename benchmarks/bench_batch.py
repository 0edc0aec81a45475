"""Benchmarks for batches: Ray against the local process pool, the speed-up from 1 to 2 workers, and the figures
behind the cluster projection in docs/batch.md.

Run: python benchmarks/bench_batch.py [--runs R] [--quick]   (needs the extra `cluster`)

Figures printed (medians over R runs; each run starts its own pool or local Ray, as `tower simulate` does):
- 200 Diabolo games (greedy seats): wall time on one process, on the local pool (2 workers) and on a local Ray
  (2 CPUs), with Ray's start-up shown apart, and the overhead per game of Ray against the pool;
- 20 Climbers games (one search seat, two greedy): the pool against Ray (not one process: too long); target: Ray
  local within 1.3x of the pool's wall time;
- the cost of one task (an empty one) on the pool and on a running Ray: what a task adds to a game, and the
  driver's limit in tasks per second;
- the speed-up with 1 and 2 workers (pool and Ray) on the Climbers batch;
- the projection of N games on K nodes from the per-game cost and the per-task overhead (docs/batch.md).
The machine's load average is printed with the figures: on a shared 2-core machine, compare runs made together.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from tower.app.batch import GameBatch, play_indexed
from tower.app.batchrun import run_batch, run_items
from tower.app.runners import LocalPool, RayRunner

DIABOLO = GameBatch("diabolo", ("ai:greedy",) * 4, 0)
#: One search seat (fixed iterations, a time limit that never bites, so the games are the same on every runner).
CLIMBERS = GameBatch("climbers", ("ai:mcts:iters=20,time=60", "ai:greedy", "ai:greedy"), 0)
#: Greedy seats only: about a second a game, many games in a short measurement of the speed-up.
CLIMBERS_GREEDY = GameBatch("climbers", ("ai:greedy",) * 3, 0)


def noop(item: Any) -> dict[str, Any]:
    return {"index": item}


def load() -> str:
    return "load average " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def wall(batch: GameBatch, games: int, jobs: int, ray: str | None) -> tuple[float, list[dict[str, Any]]]:
    """Seconds for the whole batch as `tower simulate` runs it (runner start-up included), and its results."""
    start = time.perf_counter()
    results, _ = run_batch(play_indexed, [batch.item(i) for i in range(games)], total=games, jobs=jobs, ray=ray,
                           log=None, what="bench", unit="game", quiet=True)
    assert len(results) == games
    return time.perf_counter() - start, results


def ray_start_up() -> float:
    start = time.perf_counter()
    runner = RayRunner("", 2)
    try:
        return time.perf_counter() - start
    finally:
        runner.close()


def compare(name: str, batch: GameBatch, games: int, runs: int, alone: bool) -> dict[str, float]:
    """Median wall times: one process (if `alone`), the pool of 2, a local Ray of 2 CPUs, Ray's start-up alone;
    and `game_s`, the median time a game took on its worker."""
    times: dict[str, list[float]] = {"one process": [], "pool (2)": [], "Ray local (2)": [], "Ray start-up": []}
    game_ms: list[float] = []
    for _ in range(runs):
        if alone:
            times["one process"].append(wall(batch, games, 1, None)[0])
        seconds, results = wall(batch, games, 2, None)
        times["pool (2)"].append(seconds)
        game_ms += [r["ms"] for r in results]
        times["Ray local (2)"].append(wall(batch, games, 2, "")[0])
        times["Ray start-up"].append(ray_start_up())
    med = {k: statistics.median(v) for k, v in times.items() if v}
    med["game_s"] = statistics.median(game_ms) / 1000
    print(f"\n{name}: {games} games, median of {runs} run(s); {load()}")
    for k in times:
        if k in med:
            print(f"  {k:>14}: {med[k]:7.2f} s" + (f"  ({games / med[k]:.2f} games/s)" if k != "Ray start-up" else ""))
    print(f"  a game on a worker: median {med['game_s'] * 1000:.0f} ms")
    ratio = med["Ray local (2)"] / med["pool (2)"]
    per_game = (med["Ray local (2)"] - med["pool (2)"]) / games * 1000
    print(f"  Ray / pool: {ratio:.2f}x; Ray's overhead per game {per_game:+.1f} ms "
          f"({(med['Ray local (2)'] - med['Ray start-up'] - med['pool (2)']) / games * 1000:+.1f} ms without "
          f"its start-up)")
    med["ratio"] = ratio
    return med


def task_cost(runner: Any, tasks: int) -> float:
    """Seconds a task costs end to end (submit, run, result back) when `tasks` empty tasks go one per chunk."""
    pending, done = [], 0
    window = 2 * runner.workers
    start = time.perf_counter()
    next_item = 0
    while done < tasks:
        while next_item < tasks and len(pending) < window:
            pending.append(runner.submit(noop, [next_item]))
            next_item += 1
        for handle, _ in runner.wait(pending):
            pending.remove(handle)
            done += 1
    return (time.perf_counter() - start) / tasks


def task_costs(tasks: int) -> dict[str, float]:
    print(f"\ncost of one empty task ({tasks} tasks, 2 workers, runner already running); {load()}")
    out = {}
    pool = LocalPool(2)
    try:
        task_cost(pool, 20)  # start the workers
        out["pool"] = task_cost(pool, tasks)
    finally:
        pool.close()
    ray = RayRunner("", 2)
    try:
        task_cost(ray, 20)
        out["Ray"] = task_cost(ray, tasks)
    finally:
        ray.close()
    for k, v in out.items():
        print(f"  {k:>5}: {v * 1000:.2f} ms a task ({1 / v:.0f} tasks/s through one driver)")
    return out


def speed_up(batch: GameBatch, games: int, runs: int) -> dict[str, float]:
    """Median wall time with 1 and 2 workers, runners started and warm beforehand (the work alone)."""
    print(f"\nspeed-up, {batch.game} {'/'.join(batch.seats)}, {games} games, median of {runs} run(s) "
          f"(runner start-up excluded); {load()}")
    items = [batch.item(i) for i in range(games)]
    times: dict[str, list[float]] = {}
    for label, make in (("pool", LocalPool), ("Ray", lambda j: RayRunner("", j))):
        for jobs in (1, 2):
            runner = make(jobs)
            try:
                list(run_items(runner, noop, list(range(2 * jobs))))  # workers up
                list(run_items(runner, play_indexed, items[: 2 * jobs]))  # and warm (modules imported)
                for _ in range(runs):
                    start = time.perf_counter()
                    n = sum(len(c) for c in run_items(runner, play_indexed, items))
                    times.setdefault(f"{label} {jobs}", []).append(time.perf_counter() - start)
                    assert n == games
            finally:
                runner.close()
    out = {k: statistics.median(v) for k, v in times.items()}
    for label in ("pool", "Ray"):
        print(f"  {label:>4}: 1 worker {out[f'{label} 1']:.1f} s, 2 workers {out[f'{label} 2']:.1f} s: "
              f"speed-up {out[f'{label} 1'] / out[f'{label} 2']:.2f}x")
    return out


def projection(per_game_s: float, task_s: float, start_s: float, efficiency: float) -> None:
    """T(N, K) = start-up + N * g / (K * c * e) + (N / b) * o: the per-task cost o is paid by the one driver,
    b games a task (a chunk of about a second of work)."""
    cores = 16
    b = max(1, round(1.0 / per_game_s))
    print(f"\nprojection: g = {per_game_s:.2f} s a game (one core), o = {task_s * 1000:.1f} ms a task, "
          f"start-up {start_s:.0f} s, efficiency e = {efficiency:.2f}, {cores} cores a node, {b} game(s) a task")
    for n in (1_000, 10_000, 100_000):
        cells = []
        for k in (1, 4, 16, 64):
            t = start_s + n * per_game_s / (k * cores * efficiency) + n / b * task_s
            cells.append(f"K={k}: {t / 3600:6.2f} h")
        print(f"  N={n:>7}: " + "  ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one run, fewer Climbers games")
    args = ap.parse_args()
    runs = 1 if args.quick else args.runs
    climbers_games = 6 if args.quick else 20
    print(load())
    compare("Diabolo", DIABOLO, 200, runs, alone=True)
    climbers = compare("Climbers", CLIMBERS, climbers_games, runs, alone=False)
    print(f"  target: Ray local within 1.3x of the pool: {'met' if climbers['ratio'] <= 1.3 else 'NOT met'}")
    costs = task_costs(200 if args.quick else 1000)
    ups = speed_up(CLIMBERS_GREEDY, 8 if args.quick else 16, runs)
    per_game = climbers["game_s"]
    efficiency = min(1.0, ups["Ray 1"] / ups["Ray 2"] / 2)  # above 1 is the noise of a shared machine
    projection(per_game, costs["Ray"], climbers["Ray start-up"], efficiency)


if __name__ == "__main__":
    main()

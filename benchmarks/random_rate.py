"""Random games through the public API only: `rng.choice(state.legal_moves())`, then `state.apply(move)`, to the end.

This is what a script, a server or a test harness pays per move (no game's private fast path such as
`random_move`). The card game benchmarks call `measure` for their random-game figures, and `compare` for a
before/after figure: it plays the same games in child processes, alternating between this checkout and a
baseline checkout (another worktree or a copy of an older commit), so both sides see the same machine load.

Run: python benchmarks/random_rate.py GAME [--players N] [--games G] [--runs R] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def play(game: str, players: int | None, seed: int) -> int:
    """One game of uniformly random legal moves, chosen from `legal_moves()` and applied with `apply`; its moves."""
    from tower.games import new_game

    state = new_game(game, players, seed=seed)
    rng = random.Random(seed)
    moves = 0
    while not state.is_over:
        state.apply(rng.choice(state.legal_moves()))
        moves += 1
    return moves


def measure(game: str, players: int | None, games: int, first_seed: int = 0,
            cycle: tuple[int, ...] = (), warmup: int = 0) -> dict[str, float]:
    """Games per wall-clock second and per CPU second for `games` games (seeds from `first_seed`; `cycle` lists
    player counts to take in turn instead of `players`), and the median game length. Before the clock starts,
    the game's modules are imported (this machine does not cache compiled modules: importing is compiling) and
    `warmup` games are played (seeds far from the measured ones), so what a game remembers is filled as in a
    long-running process."""
    from tower.games import game_class

    game_class(game)
    for i in range(warmup):
        play(game, cycle[i % len(cycle)] if cycle else players, 10**6 + first_seed + i)
    wall, cpu = time.perf_counter(), time.process_time()
    lengths = [play(game, cycle[i % len(cycle)] if cycle else players, first_seed + i) for i in range(games)]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall": games / wall, "cpu": games / cpu, "moves": statistics.median(lengths)}


def _child(checkout: Path, game: str, players: int | None, games: int, first_seed: int,
           cycle: tuple[int, ...], warmup: int) -> dict[str, float]:
    """`measure` in a fresh process importing the code of `checkout`."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    args = [sys.executable, str(HERE / "random_rate.py"), game, "--games", str(games), "--first-seed",
            str(first_seed), "--warmup", str(warmup), "--json"]
    if players:
        args += ["--players", str(players)]
    if cycle:
        args += ["--cycle", ",".join(map(str, cycle))]
    out = subprocess.run(args, env=env, cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def compare(game: str, players: int | None, games: int, runs: int, baseline: Path,
            cycle: tuple[int, ...] = (), warmup: int = 0) -> dict[str, list[dict[str, float]]]:
    """`runs` rounds, each measuring the baseline and then this checkout on the same seeds."""
    out: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for r in range(runs):
        seed = 1000 * r
        out["before"].append(_child(baseline, game, players, games, seed, cycle, warmup))
        out["after"].append(_child(ROOT, game, players, games, seed, cycle, warmup))
    return out


def report(label: str, runs: list[dict[str, float]]) -> str:
    wall = statistics.median(r["wall"] for r in runs)
    cpu = statistics.median(r["cpu"] for r in runs)
    each = ", ".join(f"{r['wall']:.0f}" for r in runs)
    return f"{label}: median {wall:.1f} games/s wall clock, {cpu:.1f} per CPU second (runs, wall: {each})"


def print_rates(game: str, cases: list[tuple[str, int | None, tuple[int, ...]]], games: int, runs: int,
                baseline: Path | None, target: float, warmup: int = 0) -> None:
    """The benchmarks' random-game figures: per case (label, players, player-count cycle), the medians of `runs`
    runs of `games` games through the public API (each run in a warm process: `warmup` games first), and with
    `baseline` the same before and after, alternately."""
    print(load())
    for label, players, cycle in cases:
        if baseline:
            result = compare(game, players, games, runs, baseline, cycle, warmup)
            print(f"random games, {label}, {report('before', result['before'])}")
            print(f"random games, {label}, {report('after', result['after'])}  target >= {target:g}")
        else:
            done = [measure(game, players, games, 1000 * r, cycle, warmup if r == 0 else 0) for r in range(runs)]
            print(f"random games, {label}, {report('this code', done)}  target >= {target:g}; median "
                  f"{statistics.median(r['moves'] for r in done):.0f} moves a game")
    print(load(), flush=True)


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"
    except OSError:
        return "load average unknown"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game")
    ap.add_argument("--players", type=int)
    ap.add_argument("--cycle", default="", help="player counts to take in turn, e.g. 3,4,5")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=0, help="games played before the clock starts (each run)")
    ap.add_argument("--baseline", type=Path, help="a checkout to compare with (before), run alternately")
    ap.add_argument("--json", action="store_true", help="one measurement as JSON (used by --baseline)")
    a = ap.parse_args(argv)
    cycle = tuple(int(x) for x in a.cycle.split(",") if x)
    if a.json:
        print(json.dumps(measure(a.game, a.players, a.games, a.first_seed, cycle, a.warmup)))
        return
    print(load())
    if a.baseline:
        result = compare(a.game, a.players, a.games, a.runs, a.baseline, cycle, a.warmup)
        print(report("before", result["before"]))
        print(report("after ", result["after"]))
    else:
        runs = [measure(a.game, a.players, a.games, 1000 * r, cycle, a.warmup if r == 0 else 0) for r in range(a.runs)]
        print(report(a.game, runs))
    print(load())


if __name__ == "__main__":
    main()

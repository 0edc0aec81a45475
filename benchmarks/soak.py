"""Soak: `tower simulate` over all four games with `--jobs 2`, again and again, watching for errors and memory growth.

Run: python benchmarks/soak.py [--minutes 10] [--run-seconds 90] [--interval 1] [--players SPEC]

Each run is one `tower simulate GAME --games N --jobs 2 --json --seed S` process; the games rotate and every run
gets new seeds. N is sized from the game's measured speed so a run lasts about --run-seconds (the pool's worker
processes live for the whole run, so a leak in the rules or the AI shows as memory growing within a run). While a
run goes on, the resident memory (RSS, from /proc) of the simulate process and all its descendants is sampled.

Printed: every run (game, games, seconds, errors; the pool workers' RSS at the start and end of the steady part,
after the first quarter of the run, and the slope of a least-squares line through it; the main process's RSS); a
sampled RSS series; per game the workers' RSS at the end of its first and last measured run. Memory counts as flat
when no run's workers grow faster than --max-slope MiB/min by more than --max-rise MiB, and no game's last run ends
more than --max-growth MiB above its first. Exit status 1 on any error or growth. The first run of each game is a
short one that measures its speed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

GAMES = ("climbers", "seventh-heaven", "partners", "diabolo")
TOWER = Path(sys.executable).parent / "tower"


# --- memory of a process tree (from /proc; Linux) ---------------------------------------------------------------

def _parents() -> dict[int, int]:
    """pid -> parent pid of every process."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                stat = fh.read()
        except OSError:  # gone meanwhile
            continue
        out[int(name)] = int(stat.rpartition(")")[2].split()[1])
    return out


def _rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def descendants(root: int) -> set[int]:
    """The pids of every process now alive below `root`."""
    parents = _parents()
    tree, frontier = set(), [root]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parents.items() if pp == p and c not in tree]
        tree.update(kids)
        frontier += kids
    return tree


def tree_rss(root: int) -> tuple[float, float, int]:
    """(RSS in MiB of `root`, of all its descendants together, number of descendants)."""
    tree = descendants(root)
    return _rss_mib(root), sum(_rss_mib(p) for p in tree), len(tree)


# --- one run -------------------------------------------------------------------------------------------------

@dataclass
class Run:
    game: str
    games: int
    seed: int
    seconds: float = 0.0
    ok: bool = False
    problem: str = ""
    #: (t since start, main process MiB, pool workers MiB, number of workers)
    samples: list[tuple[float, float, float, int]] = field(default_factory=list)

    def steady(self) -> list[tuple[float, float, float, int]]:
        """The samples after the first quarter (imports, warm caches) while the whole pool was up."""
        full = max((s[3] for s in self.samples), default=0)
        return [s for s in self.samples if s[0] >= self.seconds / 4 and s[3] == full]

    def rise(self) -> tuple[float, float]:
        """(MiB per minute, MiB over the steady part) of a least-squares line through the workers' RSS."""
        pts = self.steady()
        if len(pts) < 3:
            return 0.0, 0.0
        line = statistics.linear_regression([s[0] for s in pts], [s[2] for s in pts])
        return line.slope * 60, line.slope * (pts[-1][0] - pts[0][0])


def simulate(game: str, games: int, seed: int, jobs: int, players: str | None, interval: float) -> Run:
    run = Run(game, games, seed)
    cmd = [str(TOWER), "simulate", game, "--games", str(games), "--jobs", str(jobs), "--json", "--seed", str(seed)]
    if players:
        cmd += ["--players", ",".join([players] * _default_players(game))]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(interval):
            main_mib, workers_mib, n = tree_rss(proc.pid)
            if n:
                run.samples.append((time.perf_counter() - start, main_mib, workers_mib, n))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    run.seconds = time.perf_counter() - start
    if proc.returncode != 0:
        run.problem = f"exit status {proc.returncode}: {err.strip().splitlines()[-1:] or ''}"
    elif "Traceback" in err:
        run.problem = f"stderr: {err.strip()[:200]}"
    else:
        try:
            summary = json.loads(out)
        except ValueError:
            run.problem = f"stdout is not the JSON summary: {out[:200]!r}"
        else:
            if summary.get("games") != games:
                run.problem = f"{summary.get('games')} games reported, {games} asked"
            else:
                run.ok = True
    return run


def _default_players(game: str) -> int:
    from tower.games import game_class

    return game_class(game).default_players


# --- the soak ------------------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="total duration (default 10)")
    ap.add_argument("--run-seconds", type=float, default=90.0, help="aim for runs this long (default 90)")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between RSS samples (default 1)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--players", help="one AI for every seat, e.g. ai:random (default: simulate's, ai:greedy)")
    ap.add_argument("--max-slope", type=float, default=2.0, help="MiB/min the workers may grow in a run (default 2)")
    ap.add_argument("--max-rise", type=float, default=4.0,
                    help="... and only counts when they rise more than this many MiB in the run (default 4)")
    ap.add_argument("--max-growth", type=float, default=16.0,
                    help="MiB a game's last run may end above its first (default 16)")
    args = ap.parse_args()
    if not Path("/proc/self/status").exists():
        print("soak: needs /proc (Linux) to sample memory", file=sys.stderr)
        return 2
    deadline = time.perf_counter() + args.minutes * 60
    rate: dict[str, float] = {}  # measured games per second (pool start-up included)
    runs: list[Run] = []
    series: list[tuple[float, str, float, float]] = []  # (t since soak start, game, main MiB, workers MiB)
    t0 = time.perf_counter()
    k = 0
    print(f"soak: {args.minutes:g} min of `tower simulate GAME --jobs {args.jobs}` over {', '.join(GAMES)}")
    print("RSS in MiB: `workers` is the pool's processes together (start and end of the steady part), `main` the\n"
          "simulate process itself (it keeps every game's result, so it grows a little with the games played)")
    print(f"{'run':>4} {'game':15} {'games':>6} {'seconds':>8} {'procs':>5} {'workers':>15} {'MiB/min':>8} "
          f"{'main':>6}  status")
    while time.perf_counter() < deadline:
        game = GAMES[k % len(GAMES)]
        target = max(5.0, min(args.run_seconds, deadline - time.perf_counter()))
        games = max(2 * args.jobs, int(rate[game] * target)) if game in rate else 4 * args.jobs  # first: measure
        began = time.perf_counter() - t0
        run = simulate(game, games, 1_000_000 * k, args.jobs, args.players, args.interval)
        runs.append(run)
        rate[game] = games / run.seconds
        series += [(began + t, game, m, w) for t, m, w, _ in run.samples]
        status = "ok" if run.ok else f"ERROR {run.problem}"
        steady = run.steady()
        if steady:
            print(f"{k:4} {game:15} {games:6} {run.seconds:8.1f} {steady[-1][3]:5} {steady[0][2]:7.1f}->"
                  f"{steady[-1][2]:6.1f} {run.rise()[0]:8.2f} {steady[-1][1]:6.1f}  {status}", flush=True)
        else:
            print(f"{k:4} {game:15} {games:6} {run.seconds:8.1f} {'(too short to sample: speed measured)':>38}  "
                  f"{status}", flush=True)
        k += 1

    print("\nRSS series (every ~10 s):")
    last = -10.0
    for t, game, main_mib, workers_mib in series:
        if t - last >= 10:
            print(f"  t={t:6.0f} s  {game:15} workers {workers_mib:7.1f} MiB   main {main_mib:6.1f} MiB")
            last = t
    errors = [r for r in runs if not r.ok]
    measured = [r for r in runs if len(r.steady()) >= 3]
    print(f"\nruns: {len(runs)}, errors: {len(errors)}, games played: {sum(r.games for r in runs if r.ok)}")
    for r in errors:
        print(f"  ERROR in {r.game} (--seed {r.seed}, --games {r.games}): {r.problem}")
    growing = []
    if measured:
        slopes = [r.rise()[0] for r in measured]
        print(f"workers' slope within runs (steady part): median {statistics.median(slopes):+.2f} MiB/min, "
              f"largest {max(slopes, key=abs):+.2f} MiB/min (limit {args.max_slope:g} MiB/min with a rise over "
              f"{args.max_rise:g} MiB)")
        growing += [f"{r.game} run (seed {r.seed}) rose {r.rise()[1]:.1f} MiB at {r.rise()[0]:+.1f} MiB/min"
                    for r in measured if r.rise()[0] > args.max_slope and r.rise()[1] > args.max_rise]
    for game in GAMES:
        ends = [r.steady()[-1][2] for r in measured if r.game == game]
        if ends:
            print(f"  {game:15} measured runs {len(ends):3}: workers' RSS at the end of the first {ends[0]:7.1f} MiB, "
                  f"of the last {ends[-1]:7.1f} MiB")
            if ends[-1] - ends[0] > args.max_growth:
                growing.append(f"{game} ended {ends[-1] - ends[0]:.0f} MiB above its first run")
    print("memory: " + ("flat" if not growing else "GROWING: " + "; ".join(growing)))
    return 1 if errors or growing else 0


if __name__ == "__main__":
    sys.exit(main())

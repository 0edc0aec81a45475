"""How fast the search player thinks: MCTS iterations per CPU second in each game, on positions of real games.

Run: python benchmarks/bench_search_speed.py [--game GAME ...] [--positions N] [--iters N] [--spec SPEC]
     [--baseline DIR] [--runs R]

Figures printed (medians over the positions; CPU time of this process, so the machine's load does not inflate
them): per game, the search's iterations per CPU second and the CPU time of one decision, with the reference
timed in the same run: one greedy decision in the same positions. The positions: for each seed, the game's
default seating played by greedy players for a seeded number of moves (positions with a single legal move are
skipped). The search is `mcts` with only an iteration cap (`--iters`, default per game below) unless `--spec`
names another (its time limit is taken away). With --baseline DIR the same positions are measured in child
processes for the code in DIR (before) and this checkout (after), alternately, `--runs` times.
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

#: iterations a decision measured per game: about what one tenth of a second allows (fewer: less noise in the
#: median of a few positions weighs more than a long search)
ITERS = {"climbers": 20, "seventh-heaven": 300, "partners": 1000, "diabolo": 800}
FAR = 10**6  # the time limit that is never reached


def positions(game: str, count: int) -> list:
    """`count` positions with a choice, reached by greedy play from seeded deals."""
    from tower.games import new_game
    from tower.games.ai import make_agent

    out = []
    seed = 0
    while len(out) < count:
        rng = random.Random(seed)
        state = new_game(game, None, seed=seed)
        agents = [make_agent("greedy", seed=seed * 10 + p) for p in range(state.num_players)]
        for _ in range(rng.randrange(60)):
            if state.is_over:
                break
            state.apply(agents[state.current_player].choose(state))
        if not state.is_over and len(state.search_moves()) > 1:
            out.append(state)
        seed += 1
    return out


def measure(game: str, count: int, iters: int, spec: str | None) -> dict[str, float]:
    """Median CPU seconds of a search decision and of a greedy decision over `count` positions."""
    from tower.games.ai import make_agent

    states = positions(game, count)
    spec = spec or f"mcts:iters={iters}"
    kind, _, params = spec.partition(":")
    parts = [p for p in params.split(",") if p and not p.startswith("time=")]
    spec = f"{kind}:" + ",".join([*parts, f"time={FAR}"])
    search, greedy = [], []
    for i, state in enumerate(states):
        agent = make_agent(spec, seed=i)
        c = time.process_time()
        agent.choose(state.clone())
        search.append(time.process_time() - c)
        agent = make_agent("greedy", seed=i)
        c = time.process_time()
        agent.choose(state.clone())
        greedy.append(time.process_time() - c)
    return {"search": statistics.median(search), "greedy": statistics.median(greedy), "iters": iters}


def _child(checkout: Path, game: str, count: int, iters: int, spec: str | None) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    args = [sys.executable, str(HERE / "bench_search_speed.py"), "--game", game, "--positions", str(count),
            "--iters", str(iters), "--json"]
    if spec:
        args += ["--spec", spec]
    out = subprocess.run(args, env=env, cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def line(label: str, r: dict[str, float]) -> str:
    return (f"{label}: {r['iters'] / r['search']:.0f} iterations per CPU second ({1000 * r['search']:.1f} ms CPU "
            f"for {r['iters']:g}); one greedy decision {1000 * r['greedy']:.2f} ms CPU (search / greedy "
            f"{r['search'] / r['greedy']:.1f})")


def main(argv: list[str] | None = None) -> None:
    from tower.games import game_names

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", choices=game_names(), help="only this game (repeatable)")
    ap.add_argument("--positions", type=int, default=12, help="positions a game")
    ap.add_argument("--iters", type=int, help="iterations a decision (default per game)")
    ap.add_argument("--spec", help="the search player (an mcts spec; its time limit is taken away)")
    ap.add_argument("--baseline", type=Path, help="a checkout to compare with (before), run alternately")
    ap.add_argument("--runs", type=int, default=2, help="rounds of before/after with --baseline")
    ap.add_argument("--json", action="store_true", help="one game's measurement as JSON (used by --baseline)")
    a = ap.parse_args(argv)
    games = a.game or list(game_names())
    if a.json:
        print(json.dumps(measure(games[0], a.positions, a.iters or ITERS[games[0]], a.spec)))
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    for game in games:
        iters = a.iters or ITERS[game]
        if a.baseline:
            for _ in range(a.runs):
                before = _child(a.baseline, game, a.positions, iters, a.spec)
                after = _child(ROOT, game, a.positions, iters, a.spec)
                print(f"{game}: " + line("before", before), flush=True)
                print(f"{game}: " + line("after ", after) + f"; after / before {before['search'] / after['search']:.2f}"
                      " x the iterations a CPU second", flush=True)
        else:
            print(f"{game}: " + line("this code", measure(game, a.positions, iters, a.spec)), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()

"""The AI levels people choose by name (easy, normal, strong): the level ladder of each game and the 0.1 s table.

Run: python benchmarks/bench_levels.py [--table] [--ladder] [--games N] [--jobs J] [--game GAME ...]
     python benchmarks/bench_levels.py --match GAME A B [--layout h2h|table] [--games N] [--progress]

Figures printed (every match with the seats rotated: each deal is played once in every seat layout, so the luck
of the deal falls on both sides alike; a game's share for a side is its seats' win shares over all seats' shares,
with 95 % Wilson intervals):

- `--table`: the `normal` level (0.1 s a move) against greedy in the issue's layout: The Climbers 1 against 2
  greedy (3 players, parity 33 %), In 7th Heaven 1 against 3 greedy (4 players, parity 25 %), Partners a team
  against the greedy team (4 players, parity 50 %), Diabolo 1 against 2 greedy (3 players, parity 33 %).
- `--ladder`: head to head (The Climbers with 2 players, Partners team against team, In 7th Heaven and Diabolo
  2 against 2 in every seating of 4 players; parity 50 % each): each level against greedy, each pair of levels,
  and the strong level against today's 1 s search (`mcts`). `easy` is the greedy player itself, so its line
  against greedy is parity by definition and is not played.
- `--match GAME A B`: one such match between any two AI specs.

Time-limited players lose strength when the machine is loaded, both sides alike in a head-to-head match; the
load average is printed with each line, and the CPU time of each side's decisions. `--untimed` takes the time
limits away (x100) so that only the iteration caps count: every level's cap is what its time allows on one core
of the reference machine, and today's 1 s search in The Climbers is capped at the 40 iterations it makes there,
so the figures no longer depend on the load (the levels' own CPU time a decision is printed to check the caps).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from duel import match

from tower.games import game_class, game_names
from tower.games.ai import LEVELS, level_spec

#: The seat layouts of each match kind: A and B mark the two sides' seats.
TABLE = {
    "climbers": ["ABB", "BAB", "BBA"],
    "seventh-heaven": ["ABBB", "BABB", "BBAB", "BBBA"],
    "partners": ["ABAB", "BABA"],
    "diabolo": ["ABB", "BAB", "BBA"],
}
#: In 7th Heaven at its usual 4 players (2 against 2 in every seating), where the levels' iteration caps are what
#: their time allows; a 2-player game's longer playouts make each iteration about 1.6 times dearer.
H2H = {
    "climbers": ["AB", "BA"],
    "seventh-heaven": ["AABB", "ABBA", "BBAA", "BAAB", "ABAB", "BABA"],
    "partners": ["ABAB", "BABA"],
    "diabolo": ["AABB", "ABBA", "BBAA", "BAAB", "ABAB", "BABA"],
}
#: The search player every level is measured against at the top: today's 1 s search (its code name).
REFERENCE = "mcts"
#: Today's 1 s search with its time limit as an iteration cap where the time is what ends it (--untimed).
UNTIMED_REFERENCE = {"climbers": "mcts:iters=40"}
UNTIMED = 100.0  # --untimed multiplies every time limit by this


def untimed(game: str, spec: str) -> str:
    """`spec` (a level or a code name) with its time limit taken away, so that its iteration cap ends a search."""
    name = spec.removeprefix("ai:")
    if name in LEVELS:
        name = level_spec(game_class(game), name)
    if name == REFERENCE:
        name = UNTIMED_REFERENCE.get(game, REFERENCE)
    kind, _, params = name.partition(":")
    if kind not in ("mcts", "ismcts"):
        return name
    parts = [p for p in params.split(",") if p and not p.startswith("time=")]
    budget = next((float(p[5:]) for p in params.split(",") if p.startswith("time=")), 1.0)
    return f"{kind}:" + ",".join([*parts, f"time={budget * UNTIMED:g}"])


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def run(game: str, a: str, b: str, layout: dict[str, list[str]], games: int, jobs: int, seed: int,
        no_clock: bool = False, progress: bool = False) -> None:
    specs = (untimed(game, a), untimed(game, b)) if no_clock else (a, b)
    result = match(game, *specs, layout[game], games, first_seed=seed, jobs=jobs, progress=progress)
    print(f"  {game}: {result.line()}  [{load()}]" + (f" (untimed: {a} = {specs[0]}, {b} = {specs[1]})"
                                                     if no_clock else ""), flush=True)


def ladder(game: str, games: int, jobs: int, seed: int, no_clock: bool = False) -> None:
    specs = {level: level_spec(game_class(game), level) for level in LEVELS}
    print(f"{game}: " + ", ".join(f"{k} = {v}" for k, v in specs.items()), flush=True)
    for level in LEVELS:
        if specs[level] != "greedy":
            run(game, level, "greedy", H2H, games, jobs, seed, no_clock)
    for i, high in enumerate(LEVELS):
        for low in LEVELS[:i]:
            if specs[low] != "greedy":  # against greedy already above
                run(game, high, low, H2H, games, jobs, seed, no_clock)
    run(game, "strong", REFERENCE, H2H, games, jobs, seed, no_clock)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="store_true", help="the normal level against greedy, the issue's layout")
    ap.add_argument("--ladder", action="store_true", help="every level against greedy and against each other")
    ap.add_argument("--match", nargs=3, metavar=("GAME", "A", "B"), help="one match between two AI specs")
    ap.add_argument("--layout", choices=("h2h", "table"), default="h2h", help="seat layout of --match")
    ap.add_argument("--game", action="append", choices=game_names(), help="only this game (repeatable)")
    ap.add_argument("--games", type=int, default=96, help="games a match (a multiple of 6 rotates every layout)")
    ap.add_argument("--jobs", type=int, default=1, help="games at once (a time-limited AI wants a core each)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first deal")
    ap.add_argument("--progress", action="store_true", help="a line after each game of --match")
    ap.add_argument("--untimed", action="store_true", help="iteration caps only, no time limits (load-proof)")
    args = ap.parse_args(argv)
    games = args.game or list(game_names())
    start = time.perf_counter()
    if args.match:
        game, a, b = args.match
        run(game, a, b, H2H if args.layout == "h2h" else TABLE, args.games, args.jobs, args.seed, args.untimed,
            args.progress)
    if args.table:
        print("the normal level (0.1 s a move) against greedy, seats rotated:", flush=True)
        for game in games:
            run(game, "normal", "greedy", TABLE, args.games, args.jobs, args.seed, args.untimed)
    if args.ladder:
        for game in games:
            ladder(game, args.games, args.jobs, args.seed, args.untimed)
    if not (args.match or args.table or args.ladder):
        ap.error("say what to measure: --table, --ladder or --match")
    print(f"{time.perf_counter() - start:.0f} s in all", file=sys.stderr)


if __name__ == "__main__":
    main()

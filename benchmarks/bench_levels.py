"""The AI levels people choose by name (easy, normal, strong): the level ladder of each game and the 0.1 s table.

Run: python benchmarks/bench_levels.py [--table] [--ladder] [--games N] [--jobs J] [--game GAME ...]
     python benchmarks/bench_levels.py --match GAME A B [--layout h2h|table] [--games N]

Figures printed (every match with the seats rotated: each deal is played once in every seat layout, so the luck
of the deal falls on both sides alike; a game's share for a side is its seats' win shares over all seats' shares,
with 95 % Wilson intervals):

- `--table`: the `normal` level (0.1 s a move) against greedy in the issue's layout: The Climbers 1 against 2
  greedy (3 players, parity 33 %), In 7th Heaven 1 against 3 greedy (4 players, parity 25 %), Partners a team
  against the greedy team (4 players, parity 50 %), Diabolo 1 against 2 greedy (3 players, parity 33 %).
- `--ladder`: head to head (The Climbers and In 7th Heaven with 2 players, Partners team against team, Diabolo
  2 against 2 in every seating of 4 players; parity 50 % each): each level against greedy, each pair of levels,
  and the strong level against today's 1 s search (`mcts`). `easy` is the greedy player itself, so its line
  against greedy is parity by definition and is not played.
- `--match GAME A B`: one such match between any two AI specs.

Time-limited players lose strength when the machine is loaded, both sides alike in a head-to-head match; the
load average is printed with each line. Run it with `nice` on a shared machine and compare lines taken together.
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
H2H = {
    "climbers": ["AB", "BA"],
    "seventh-heaven": ["AB", "BA"],
    "partners": ["ABAB", "BABA"],
    "diabolo": ["AABB", "ABBA", "BBAA", "BAAB", "ABAB", "BABA"],
}
#: The search player every level is measured against at the top: today's 1 s search (its code name).
REFERENCE = "mcts"


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def run(game: str, a: str, b: str, layout: dict[str, list[str]], games: int, jobs: int, seed: int) -> None:
    result = match(game, a, b, layout[game], games, first_seed=seed, jobs=jobs)
    print(f"  {result.line()}  [{load()}]", flush=True)


def ladder(game: str, games: int, jobs: int, seed: int) -> None:
    specs = {level: level_spec(game_class(game), level) for level in LEVELS}
    print(f"{game}: " + ", ".join(f"{k} = {v}" for k, v in specs.items()), flush=True)
    for level in LEVELS:
        if specs[level] != "greedy":
            run(game, level, "greedy", H2H, games, jobs, seed)
    for i, high in enumerate(LEVELS):
        for low in LEVELS[:i]:
            if specs[low] != "greedy":  # against greedy already above
                run(game, high, low, H2H, games, jobs, seed)
    run(game, "strong", REFERENCE, H2H, games, jobs, seed)


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
    args = ap.parse_args(argv)
    games = args.game or list(game_names())
    start = time.perf_counter()
    if args.match:
        game, a, b = args.match
        run(game, a, b, H2H if args.layout == "h2h" else TABLE, args.games, args.jobs, args.seed)
    if args.table:
        print("the normal level (0.1 s a move) against greedy, seats rotated:", flush=True)
        for game in games:
            run(game, "normal", "greedy", TABLE, args.games, args.jobs, args.seed)
    if args.ladder:
        for game in games:
            ladder(game, args.games, args.jobs, args.seed)
    if not (args.match or args.table or args.ladder):
        ap.error("say what to measure: --table, --ladder or --match")
    print(f"{time.perf_counter() - start:.0f} s in all", file=sys.stderr)


if __name__ == "__main__":
    main()

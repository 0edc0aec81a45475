"""Partners benchmarks: random games per second, and the search team against the greedy team.

Random games go through the public API only (`rng.choice(state.legal_moves())`, `state.apply`): median of --runs
runs of --games games (target >= 80 games/s); with --baseline DIR the same for the code in DIR (before) and this
checkout (after), run alternately in fresh processes, so both see the same machine load.

Run: python benchmarks/bench_partners.py [--runs 5] [--games 20] [--duel 40] [--mcts SPEC] [--jobs 2] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from random_rate import print_rates

from tower.games import new_game
from tower.games.ai import make_agent


def duel(args: tuple[int, str]) -> tuple[bool, float, int]:
    """One game, search team against greedy team; the search team sits at seats 0+2 on even seeds.
    Returns (search team won, slowest search decision in s, moves)."""
    seed, spec = args
    search_seats = {0, 2} if seed % 2 == 0 else {1, 3}
    state = new_game("partners", seed=seed)
    agents = [make_agent(spec if p in search_seats else "greedy", seed * 10 + p) for p in range(4)]
    slowest = 0.0
    while not state.is_over:
        p = state.current_player
        t0 = time.perf_counter()
        move = agents[p].choose(state)
        if p in search_seats:
            slowest = max(slowest, time.perf_counter() - t0)
        state.apply(move)
    winners = set(state.result()["winners"])
    return bool(winners & search_seats), slowest, len(state.history)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--duel", type=int, default=40, help="search-vs-greedy games (0 to skip)")
    ap.add_argument("--mcts", default="mcts", help="search spec (default: the game's own settings)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="print each duel game as it ends")
    ap.add_argument("--baseline", type=Path, help="a checkout to compare the random-game rate with (before)")
    ap.add_argument("--warmup", type=int, default=20, help="random games played before the clock starts")
    a = ap.parse_args()
    if a.runs:
        print_rates("partners", [("4 players", 4, ())], a.games, a.runs, a.baseline, 80, a.warmup)
    if a.duel:
        seeds = [a.seed + i for i in range(a.duel)]
        t0 = time.perf_counter()
        results = []
        with ProcessPoolExecutor(a.jobs) as pool:
            for r in pool.map(duel, [(s, a.mcts) for s in seeds]):
                results.append(r)
                if a.verbose:
                    print(f"  game {len(results)}: search team {'won' if r[0] else 'lost'} "
                          f"({sum(x[0] for x in results)}/{len(results)})", flush=True)
        wins = sum(r[0] for r in results)
        n = len(results)
        rate = wins / n
        half = 1.96 * (rate * (1 - rate) / n) ** 0.5
        print(f"{a.mcts} team vs greedy team: won {wins}/{n} = {100 * rate:.1f}% (95% +-{100 * half:.1f}), "
              f"seats alternated; slowest decision {max(r[1] for r in results):.2f} s; "
              f"median {statistics.median(r[2] for r in results):.0f} moves; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

"""Partners benchmarks: random games per second, and the search team against the greedy team.

Run: python benchmarks/bench_partners.py [--runs 5] [--games 20] [--duel 40] [--mcts SPEC] [--jobs 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from tower.games import new_game
from tower.games.ai import make_agent


def random_game(seed: int) -> int:
    """One game of four random players to its end (a win: draws would need the move limit); its length."""
    state = new_game("partners", seed=seed)
    agent = make_agent("random", seed)
    moves = 0
    while not state.is_over:
        state.apply(agent.choose(state))
        moves += 1
    assert len(state.result()["winners"]) == 2, "a random game hit the move limit"
    return moves


def random_rate(runs: int, games: int) -> tuple[float, float, float]:
    """Median games/s (wall clock and CPU time) over `runs` runs of `games` games, and the median length."""
    wall, cpu, lengths = [], [], []
    for r in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        lengths += [random_game(r * 1000 + g) for g in range(games)]
        wall.append(games / (time.perf_counter() - w0))
        cpu.append(games / (time.process_time() - c0))
    return statistics.median(wall), statistics.median(cpu), statistics.median(lengths)


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
    a = ap.parse_args()
    if a.runs:
        wall, cpu, length = random_rate(a.runs, a.games)
        print(f"random games: median {wall:.1f} games/s wall clock, {cpu:.1f} games/s CPU time "
              f"({a.runs} runs x {a.games} games, median {length:.0f} moves per game)")
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

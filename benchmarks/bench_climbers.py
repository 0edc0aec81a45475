"""Benchmarks for The Climbers: move generation, random games, the search player (targets in docs/benchmarks.md).

Run: python benchmarks/bench_climbers.py [--runs N] [--games N] [--mcts-games N] [--mcts SPEC]
     [--jobs J] [--thousand]

Figures printed (medians; the machine's load average is printed alongside, as these 2-core machines are shared):
- all legal block moves of a 35-block start tower (ClimbersState.block_table, cache cleared; target <= 5 ms),
  and the same as a list of Move objects (block_moves);
- random AI games, start to end, 2-5 players (games per second; target >= 5);
- MCTS decisions at its default budget (decisions per second, the slowest decision; limit 2 s), greedy too;
- MCTS against two greedy players in 3-player games with the seats rotated (win share, a shared win counting
  1/k; target >= 60 %); --mcts takes any `make_agent` spec (default `mcts`) to compare settings;
- with --thousand: 1000 random 2-5 player games, checked to finish without error.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from tower.climbers.game import ClimbersState
from tower.games.ai import GreedyAgent, RandomAgent, make_agent


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {os.cpu_count()} cores"


def block_phase_state(seed: int) -> ClimbersState:
    """A fresh 3-player game at its first block step (figure step skipped)."""
    state = ClimbersState(3, seed)
    state.apply(state.move_type.parse("skip"))
    assert state.phase == "block" and len(state.ids) == 35
    return state


def bench_block_moves(runs: int) -> None:
    table_ms, list_ms, sizes = [], [], []
    for k in range(runs):
        state = block_phase_state(k % 10)
        state._table_cache = None
        t = time.perf_counter()
        table = state.block_table()
        table_ms.append((time.perf_counter() - t) * 1000)
        sizes.append(len(table))
        state._table_cache = None
        t = time.perf_counter()
        state.block_moves()
        list_ms.append((time.perf_counter() - t) * 1000)
    print(f"block moves of a 35-block start tower: block_table median {statistics.median(table_ms):.2f} ms "
          f"(p90 {statistics.quantiles(table_ms, n=10)[-1]:.2f}), as Move objects {statistics.median(list_ms):.2f} ms;"
          f" {statistics.median(sizes):.0f} moves, n={runs}  [{load()}]")


def play(state: ClimbersState, agents: list, times: dict[str, list[float]] | None = None) -> tuple[ClimbersState, float]:
    """Play to the end; returns the state and the slowest non-random decision (seconds); `times` collects
    decision times per agent name."""
    slowest = 0.0
    while not state.is_over:
        agent = agents[state.current_player]
        t = time.perf_counter()
        move = agent.choose(state)
        dt = time.perf_counter() - t
        if not isinstance(agent, RandomAgent):
            slowest = max(slowest, dt)
            if times is not None:
                times.setdefault(agent.name, []).append(dt)
        state.apply(move)
    return state, slowest


def bench_random_games(games: int) -> None:
    per_game, moves = [], []
    rng = random.Random(0)
    for g in range(games):
        t = time.perf_counter()
        state, _ = play(ClimbersState(2 + g % 4, 1000 + g), [RandomAgent(rng)] * 5)
        per_game.append(time.perf_counter() - t)
        moves.append(len(state.history))
    print(f"random games (2-5 players): {1 / statistics.median(per_game):.1f} games/s by the median game "
          f"({games / sum(per_game):.1f} overall), median {statistics.median(moves):.0f} moves, n={games}  [{load()}]")


def search_game(args: tuple[int, str]) -> tuple[float, float, dict[str, list[float]], str]:
    """Game g: the search player in seat g % 3, greedy elsewhere. Returns (its win share, the slowest AI
    decision, decision times per agent, a line describing the game)."""
    g, spec = args
    seat = g % 3
    times: dict[str, list[float]] = {}
    agents = [GreedyAgent(random.Random(100 * g + q)) for q in range(3)]
    agents[seat] = make_agent(spec, seed=g)
    state, worst = play(ClimbersState(3, 5000 + g), agents, times)  # type: ignore[arg-type]
    line = (f"{spec} in seat {seat}, winners {state.result()['winners']}, heights {state.result()['scores']}, "
            f"{state.turn} turns")
    return state.win_shares()[seat], worst, times, line


def bench_search(games: int, spec: str = "mcts", jobs: int = 1) -> None:
    label = "MCTS" if spec == "mcts" else spec
    decision_times: dict[str, list[float]] = {}
    wins = 0.0
    mcts_times: list[float] = []
    slowest = 0.0
    # one game per worker process: a time-budgeted search needs a core of its own, so --jobs <= cores
    with ProcessPoolExecutor(jobs) as pool:
        for g, (share, worst, times, line) in enumerate(pool.map(search_game, [(g, spec) for g in range(games)])):
            wins += share
            slowest = max(slowest, worst)
            for name, ts in times.items():
                decision_times.setdefault(name, []).extend(ts)
            print(f"  game {g + 1}: {line}", flush=True)
    # decision speed, measured apart on a few positions
    rng = random.Random(7)
    for k in range(6):
        state = ClimbersState(3, 7000 + k)
        for _ in range(rng.randrange(0, 6)):
            if not state.is_over:
                state.apply(state.random_move(rng))
        if state.is_over:
            continue
        t = time.perf_counter()
        make_agent(spec, seed=k).choose(state)
        mcts_times.append(time.perf_counter() - t)
    mcts_all = decision_times.get("mcts", [0.0])
    greedy_all = decision_times.get("greedy", [0.0])
    print(f"{label} (default budget) decisions: median {statistics.median(mcts_times):.2f} s "
          f"({1 / statistics.median(mcts_times):.1f}/s) on fresh positions, median {statistics.median(mcts_all):.2f} s "
          f"/ max {max(mcts_all):.2f} s in the games (n={len(mcts_all)}); greedy in the games median "
          f"{statistics.median(greedy_all) * 1000:.0f} ms / max {max(greedy_all) * 1000:.0f} ms; "
          f"slowest AI decision {slowest:.2f} s  [{load()}]")
    rate = wins / max(1, games)
    half = 1.96 * math.sqrt(rate * (1 - rate) / max(1, games))
    print(f"{label} vs 2 greedy, 3 players, seats rotated: it won {wins:.1f} of {games} "
          f"({100 * rate:.1f} %, 95 % interval +-{100 * half:.1f}; an even share would be 33 %)  [{load()}]")


def bench_thousand() -> None:
    rng = random.Random(1)
    t = time.perf_counter()
    for g in range(1000):
        play(ClimbersState(2 + g % 4, 20_000 + g), [RandomAgent(rng)] * 5)  # raises on any error
    print(f"1000 random 2-5 player games finished without error in {time.perf_counter() - t:.0f} s  [{load()}]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30, help="start towers timed for the block-move figure (>= 2)")
    ap.add_argument("--games", type=int, default=40, help="random games")
    ap.add_argument("--mcts-games", type=int, default=9, help="MCTS vs greedy games (a multiple of 3)")
    ap.add_argument("--mcts", default="mcts", help="the search player's make_agent spec, e.g. mcts:rollout=10")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for the MCTS games (<= cores)")
    ap.add_argument("--thousand", action="store_true", help="also play 1000 random games")
    args = ap.parse_args()
    if args.runs < 2:
        ap.error("--runs needs at least 2 towers (the figure quotes a p90)")
    bench_block_moves(args.runs)
    bench_random_games(args.games)
    if args.mcts_games:
        bench_search(args.mcts_games, args.mcts, args.jobs)
    if args.thousand:
        bench_thousand()


if __name__ == "__main__":
    main()

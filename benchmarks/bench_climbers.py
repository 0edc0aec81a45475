"""Benchmarks for The Climbers: the public API's move lists and games, the search player (targets in
docs/benchmarks.md).

Run: python benchmarks/bench_climbers.py [--runs N] [--games N] [--positions N] [--mcts-games N]
     [--mcts SPEC] [--jobs J] [--thousand]

Figures printed (medians; the machine's load average is printed alongside, as these 2-core machines are shared).
The first three go through the public API only (what users, adapters and RL code call), so the same script
measures the code before and after a change:
- `legal_moves()` in the block step of a 35-block start tower (a fresh state each run: nothing cached; Move
  objects, sorted, unique; target median <= 8 ms), and how long iterating over all of them takes;
- `legal_moves()` in the first figure step of random mid-game positions, the exact net-height rule included
  (target median <= 30 ms, p99 <= 150 ms); also the positions whose figure stands on a block (the costly case);
- random 3-player games played as `state.apply(rng.choice(state.legal_moves()))` (target >= 5 games/s);
- random 2-5 player games by the random player (`random_move`, which draws without listing every move);
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


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by the nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def block_phase_state(seed: int) -> ClimbersState:
    """A fresh 3-player game at its first block step (figure step skipped)."""
    state = ClimbersState(3, seed)
    state.apply(state.move_type.parse("skip"))
    assert state.phase == "block" and len(state.to_build().blocks) == 35
    return state


def bench_block_moves(runs: int) -> None:
    list_ms, walk_ms, sizes = [], [], []
    for k in range(runs):
        state = block_phase_state(k % 10)
        t = time.perf_counter()
        moves = state.legal_moves()
        list_ms.append((time.perf_counter() - t) * 1000)
        sizes.append(len(moves))
        t = time.perf_counter()
        for _ in moves:
            pass
        walk_ms.append((time.perf_counter() - t) * 1000)
    print(f"legal_moves() in the block step of a 35-block start tower: median {statistics.median(list_ms):.2f} ms "
          f"(p90 {percentile(list_ms, 0.9):.2f}); iterating over all of them {statistics.median(walk_ms):.2f} ms; "
          f"{statistics.median(sizes):.0f} moves, n={runs}  [{load()}]")


def midgame_positions(count: int, seed: int = 0) -> list[dict]:
    """States (as JSON, so nothing is cached when they are read back) at the first figure step of random
    3-player games, from the 5th turn on."""
    rng = random.Random(seed)
    out: list[dict] = []
    g = 0
    while len(out) < count:
        state = ClimbersState(3, 3000 + g)
        g += 1
        keep_from = rng.randrange(5, 30)
        while not state.is_over and len(out) < count:
            if state.phase == "figure1" and state.turn >= keep_from and rng.random() < 0.35:
                out.append(state.to_json())
                keep_from = state.turn + rng.randrange(3, 12)
            state.apply(rng.choice(state.legal_moves()))
    return out


def bench_figure_step(positions: int) -> None:
    docs = midgame_positions(positions)
    all_ms, climbed_ms = [], []
    for doc in docs:
        state = ClimbersState.from_json(doc)
        t = time.perf_counter()
        state.legal_moves()
        ms = (time.perf_counter() - t) * 1000
        all_ms.append(ms)
        if state.figures[state.current_player][2] > 0:
            climbed_ms.append(ms)
    line = (f"legal_moves() in the first figure step, random mid-game positions: median "
            f"{statistics.median(all_ms):.1f} ms, p99 {percentile(all_ms, 0.99):.1f} ms, max {max(all_ms):.1f} ms "
            f"(n={len(all_ms)})")
    if climbed_ms:
        line += (f"; figure on a block: median {statistics.median(climbed_ms):.1f} ms, p99 "
                 f"{percentile(climbed_ms, 0.99):.1f} ms (n={len(climbed_ms)})")
    print(f"{line}  [{load()}]")


def bench_public_games(games: int) -> None:
    per_game, moves = [], []
    rng = random.Random(0)
    for g in range(games):
        state = ClimbersState(3, 1000 + g)
        t = time.perf_counter()
        while not state.is_over:
            state.apply(rng.choice(state.legal_moves()))
        per_game.append(time.perf_counter() - t)
        moves.append(len(state.history))
    print(f"random 3-player games via rng.choice(legal_moves()) + apply: {games / sum(per_game):.2f} games/s "
          f"overall ({1 / statistics.median(per_game):.2f} by the median game), median {statistics.median(moves):.0f}"
          f" moves, n={games}  [{load()}]")


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
    print(f"random player games (random_move, 2-5 players): {games / sum(per_game):.1f} games/s overall "
          f"({1 / statistics.median(per_game):.1f} by the median game), median {statistics.median(moves):.0f} moves, "
          f"n={games}  [{load()}]")


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
    ap.add_argument("--runs", type=int, default=30, help="start towers timed for the block-step figure (>= 2)")
    ap.add_argument("--positions", type=int, default=200, help="mid-game positions for the figure-step figure")
    ap.add_argument("--public-games", type=int, default=20, help="random games through legal_moves() + apply")
    ap.add_argument("--games", type=int, default=40, help="random player games")
    ap.add_argument("--mcts-games", type=int, default=9, help="MCTS vs greedy games (a multiple of 3)")
    ap.add_argument("--mcts", default="mcts", help="the search player's make_agent spec, e.g. mcts:rollout=10")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for the MCTS games (<= cores)")
    ap.add_argument("--thousand", action="store_true", help="also play 1000 random games")
    args = ap.parse_args()
    if args.runs < 2:
        ap.error("--runs needs at least 2 towers (the figure quotes a p90)")
    bench_block_moves(args.runs)
    if args.positions:
        bench_figure_step(args.positions)
    if args.public_games:
        bench_public_games(args.public_games)
    if args.games:
        bench_random_games(args.games)
    if args.mcts_games:
        bench_search(args.mcts_games, args.mcts, args.jobs)
    if args.thousand:
        bench_thousand()


if __name__ == "__main__":
    main()

"""Games between AI players for the strength figures: one search seat against greedy seats (the card-game
benchmarks), and matches of two AIs with the seats rotated (`bench_levels.py`)."""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from tower.app.batch import wilson
from tower.games import new_game
from tower.games.ai import make_agent


def seat_game(game: str, players: int, game_seed: int, seat: int, spec: str) -> tuple[float, float, int]:
    """One game with `spec` in `seat` and greedy elsewhere: (the seat's win share, its slowest decision in s, its
    decisions). A first place shared by k players counts 1/k."""
    state = new_game(game, players, seed=game_seed)
    agents = [make_agent(spec if p == seat else "greedy", seed=game_seed * 10 + p) for p in range(players)]
    slowest, decisions = 0.0, 0
    while not state.is_over:
        player = state.current_player
        assert player is not None
        t = time.perf_counter()
        move = agents[player].choose(state)
        if player == seat:
            slowest = max(slowest, time.perf_counter() - t)
            decisions += 1
        state.apply(move)
    return state.win_shares()[seat], slowest, decisions


@dataclass
class Played:
    """One game of a match: the win shares, and per seat the slowest decision (wall clock) and the CPU time of
    its decisions with a choice (more than one legal move)."""

    shares: list[float]
    slowest: list[float]
    cpu: list[list[float]]
    length: int


def play_seats(job: tuple[str, tuple[str, ...], int]) -> Played:
    """One game of (game, one AI spec per seat, seed). CPU time is this process's own, so it does not grow with
    the machine's load as the wall clock does."""
    from tower.app.stability import statics_stands

    game, seats, seed = job
    state = new_game(game, len(seats), seed=seed, judge=statics_stands)
    agents = [make_agent(s, seed=seed * 7919 + i) for i, s in enumerate(seats)]
    slowest = [0.0] * len(seats)
    cpu: list[list[float]] = [[] for _ in seats]
    while not state.is_over:
        p = state.current_player
        assert p is not None
        choice = len(state.legal_moves()) > 1
        t, c = time.perf_counter(), time.process_time()
        move = agents[p].choose(state)
        slowest[p] = max(slowest[p], time.perf_counter() - t)
        if choice:
            cpu[p].append(time.process_time() - c)
        state.apply(move)
    return Played(state.win_shares(), slowest, cpu, len(state.history))


@dataclass
class MatchResult:
    a: str
    b: str
    games: int
    share: float  # A's share of the wins, summed over the games
    parity: float  # A's share if A played exactly like B
    slowest_a: float
    slowest_b: float
    cpu_a: list[float]  # CPU seconds of each decision with a choice
    cpu_b: list[float]
    median_length: float
    seconds: float

    @property
    def rate(self) -> float:
        return self.share / self.games if self.games else 0.0

    def line(self) -> str:
        lo, hi = wilson(self.share, self.games)
        cpu = " / ".join(f"{_mean(c):.3f} s (max {max(c, default=0):.2f})" for c in (self.cpu_a, self.cpu_b))
        return (f"{self.a} vs {self.b}: {self.a} {100 * self.rate:.1f} % of the wins (95 % interval "
                f"{100 * lo:.1f}-{100 * hi:.1f}, n={self.games}, parity {100 * self.parity:.0f} %); CPU a decision "
                f"{cpu}; slowest decision {self.slowest_a:.2f} s / {self.slowest_b:.2f} s wall clock; median "
                f"{self.median_length:.0f} moves; {self.seconds:.0f} s")


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def match(game: str, a: str, b: str, patterns: list[str], games: int, first_seed: int = 0, jobs: int = 1,
          progress: bool = False) -> MatchResult:
    """`games` games of `a` against `b`, seats laid out by `patterns` (e.g. ["ABB", "BAB", "BBA"]): game i uses
    pattern i % len(patterns) and seed first_seed + i // len(patterns), so every deal is played once in each
    layout and luck of the deal falls on both sides alike. A game's share for A is the A seats' win shares over
    all seats' shares (a team's win counts once; a game nobody wins counts half)."""
    jobs_list = []
    for i in range(games):
        pattern = patterns[i % len(patterns)]
        seats = tuple(a if c == "A" else b for c in pattern)
        jobs_list.append((game, seats, first_seed + i // len(patterns)))
    start = time.perf_counter()
    share, slow, cpu, lengths = 0.0, {"A": 0.0, "B": 0.0}, {"A": [], "B": []}, []
    with ProcessPoolExecutor(jobs) as pool:
        for i, game_played in enumerate(pool.map(play_seats, jobs_list)):
            pattern = patterns[i % len(patterns)]
            shares = game_played.shares
            mine = sum(s for s, c in zip(shares, pattern, strict=True) if c == "A")
            total = sum(shares)
            share += mine / total if total else 0.5
            for side, wall, times in zip(pattern, game_played.slowest, game_played.cpu, strict=True):
                slow[side] = max(slow[side], wall)
                cpu[side] += times
            lengths.append(game_played.length)
            if progress:
                print(f"    {i + 1}/{games}: {a} {100 * share / (i + 1):.1f} % so far, "
                      f"{time.perf_counter() - start:.0f} s", flush=True)
    lengths.sort()
    parity = sum(p.count("A") for p in patterns) / sum(len(p) for p in patterns)
    return MatchResult(a, b, games, share, parity, slow["A"], slow["B"], cpu["A"], cpu["B"],
                       lengths[len(lengths) // 2], time.perf_counter() - start)

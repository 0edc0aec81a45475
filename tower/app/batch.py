"""Batches of AI games: one game from its job, a run's games by index, and the statistics of many
(`tower simulate`, `tower demo`)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from tower.app.batchrun import item_seed

#: z of the two-sided 95 % normal interval (the Wilson intervals of the win shares).
Z95 = 1.959964
SIMULATE_FORMAT = "tower-simulate/1"  # the `format` of the `tower simulate --json` document, naming its schema


def play_one(job: tuple[str, list[str], int, dict[str, Any]]) -> dict[str, Any]:
    """One AI game from (game, seats, seed, options): its winners, win shares, scores and length."""
    from tower.app.stability import statics_stands
    from tower.games import new_game
    from tower.games.ai import make_agent

    game, seats, seed, options = job
    state = new_game(game, len(seats), seed, options, judge=statics_stands)
    agents = [make_agent(s, seed=seed * 7919 + i) for i, s in enumerate(seats)]
    while not state.is_over:
        state.apply(agents[state.current_player].choose(state))
    res = state.result()
    return {"seed": seed, "winners": res.get("winners", []), "shares": state.win_shares(),
            "scores": res.get("scores", []), "length": len(state.history)}


@dataclass(frozen=True)
class GameBatch:
    """What decides every game of a run: game i is played from seed `item_seed(seed, i)`, so a game's result
    depends on (seed, i) alone, never on which worker plays it or when."""

    game: str
    seats: tuple[str, ...]
    seed: int
    options: dict[str, Any] = field(default_factory=dict)

    def header(self) -> dict[str, Any]:
        """The run's identity, the first line of its results file (`--resume` checks it)."""
        return {"command": "simulate", "game": self.game, "players": list(self.seats), "seed": self.seed,
                "options": self.options}

    def item(self, index: int) -> tuple[int, tuple[str, list[str], int, dict[str, Any]]]:
        return index, (self.game, list(self.seats), item_seed(self.seed, index), self.options)


def play_indexed(item: tuple[int, tuple[str, list[str], int, dict[str, Any]]]) -> dict[str, Any]:
    """The task a worker runs: game `index` of a batch, with the time it took (`ms`, not part of the result)."""
    index, job = item
    start = time.perf_counter()
    result = play_one(job)
    return {"index": index, **result, "ms": round((time.perf_counter() - start) * 1000, 1)}


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a rate; behaves at 0 and 1 and for small n, where mean +- z*se does not. A split
    first place counts as a fraction of a win."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # rounding can put a bound a hair past p when p is 0 or 1; the interval always holds p
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def summarise(game: str, seats: list[str], results: list[dict[str, Any]], elapsed: float,
              played: int | None = None) -> dict[str, Any]:
    """Win rates per seat and per AI (with 95 % Wilson intervals), mean scores and game lengths.

    The sums run in game-index order, so the summary is the same whatever order the games finished in;
    `played` (default: all) is how many of the results this run played, for games/s.
    """
    results = sorted(results, key=lambda r: r.get("index", 0))
    n = len(results)
    played = n if played is None else played
    wins = [0.0] * len(seats)
    scores = [0.0] * len(seats)
    for r in results:
        for i, share in enumerate(r["shares"][: len(seats)]):
            wins[i] += share
        for i, s in enumerate(r["scores"][: len(seats)]):
            scores[i] += float(s)
    by_ai: dict[str, list[int]] = {}
    for i, s in enumerate(seats):
        by_ai.setdefault(s, []).append(i)
    lengths = [r["length"] for r in results]

    def rate(seat_list: list[int]) -> dict[str, Any]:
        # an AI in k seats plays k seat-games a game; its rate is the mean over its seats
        won, trials = sum(wins[i] for i in seat_list), n * len(seat_list)
        return {"win_rate": won / trials if trials else 0.0, "ci95": list(wilson(won, trials))}

    return {
        "format": SIMULATE_FORMAT, "game": game, "games": n, "players": seats, "seconds": elapsed,
        "games_per_s": played / elapsed if elapsed else 0.0,
        "seats": [{"seat": i, "player": s, **rate([i]), "mean_score": scores[i] / n if n else 0.0}
                  for i, s in enumerate(seats)],
        "by_ai": {k: rate(v)["win_rate"] for k, v in by_ai.items()},
        "by_ai_ci95": {k: rate(v)["ci95"] for k, v in by_ai.items()},
        "length": {"mean": sum(lengths) / n if n else 0.0, "min": min(lengths, default=0),
                   "max": max(lengths, default=0)},
    }

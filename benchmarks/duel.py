"""One search seat against greedy seats: the game the AI-strength figures of the card-game benchmarks count."""

from __future__ import annotations

import time

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

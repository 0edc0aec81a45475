"""Batches of AI games: one game from its job, and the statistics of many (`tower simulate`, `tower demo`)."""

from __future__ import annotations

from typing import Any


def play_one(job: tuple[str, list[str], int, dict[str, Any]]) -> dict[str, Any]:
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


def summarise(game: str, seats: list[str], results: list[dict[str, Any]], elapsed: float) -> dict[str, Any]:
    n = len(results)
    wins = [0.0] * len(seats)
    scores = [0.0] * len(seats)
    for r in results:
        for i, share in enumerate(r["shares"][: len(seats)]):
            wins[i] += share
        for i, s in enumerate(r["scores"][: len(seats)]):
            scores[i] += float(s)
    by_ai: dict[str, list[float]] = {}
    for i, s in enumerate(seats):
        by_ai.setdefault(s, []).append(wins[i] / n)
    lengths = [r["length"] for r in results]
    return {
        "game": game, "games": n, "players": seats, "seconds": elapsed, "games_per_s": n / elapsed if elapsed else 0.0,
        "seats": [{"seat": i, "player": s, "win_rate": wins[i] / n, "mean_score": scores[i] / n}
                  for i, s in enumerate(seats)],
        "by_ai": {k: sum(v) / len(v) for k, v in by_ai.items()},
        "length": {"mean": sum(lengths) / n, "min": min(lengths), "max": max(lengths)},
    }

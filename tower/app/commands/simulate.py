"""`tower simulate`: AI-against-AI batches and their statistics."""

from __future__ import annotations

import sys
import time
from typing import Any

from tower.app.batch import play_one, summarise
from tower.app.output import EXIT_OK, print_json
from tower.app.seats import build_options, parse_options, parse_players
from tower.games.errors import BadInput


def run(args) -> int:
    from tower.games import game_class

    cls = game_class(args.game)
    if args.games < 1:
        raise BadInput("--games must be at least 1", "")
    if args.jobs < 1:
        raise BadInput("--jobs must be at least 1", "")
    seats = parse_players(args.players, args.game) if args.players else ["ai:greedy"] * cls.default_players
    if "human" in seats:
        raise BadInput("--players: simulate plays AIs only (no 'human')", "")
    options = parse_options(args.option, args.game)
    if args.build:
        options = build_options(args.build, args.game, len(seats), options)
    jobs = [(args.game, seats, args.seed + i, options) for i in range(args.games)]
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), desc=f"{args.game}", unit="game", file=sys.stderr, disable=args.json or None)
    if args.jobs == 1:
        for job in jobs:
            results.append(play_one(job))
            bar.update()
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(args.jobs) as pool:
            for r in pool.imap(play_one, jobs, chunksize=max(1, len(jobs) // (args.jobs * 20))):
                results.append(r)
                bar.update()
    bar.close()
    elapsed = time.perf_counter() - start
    summary = summarise(args.game, seats, results, elapsed)
    if args.json:
        print_json(summary)
    else:
        print(f"{args.game}: {len(results)} games, {len(seats)} players, {summary['games_per_s']:.1f} games/s")
        for seat in summary["seats"]:
            print(f"  seat {seat['seat']} {seat['player']:>14}: wins {seat['win_rate'] * 100:5.1f} %"
                  f"  mean score {seat['mean_score']:.2f}")
        for name, rate in summary["by_ai"].items():
            print(f"  {name:>20}: win rate {rate * 100:.1f} %")
        print(f"  game length: mean {summary['length']['mean']:.1f} moves (min {summary['length']['min']}, "
              f"max {summary['length']['max']})")
    return EXIT_OK

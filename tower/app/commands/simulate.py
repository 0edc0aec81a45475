"""`tower simulate`: AI-against-AI batches and their statistics, on this machine or on Ray."""

from __future__ import annotations

import sys

from tower.app.batch import GameBatch, play_indexed, summarise
from tower.app.batchrun import (
    BatchStopped,
    check_batch_flags,
    interrupted,
    results_log,
    run_batch,
    stopped_line,
)
from tower.app.output import EXIT_FOUND, EXIT_OK, print_json
from tower.app.seats import game_options, parse_players
from tower.games.errors import BadInput


def run(args) -> int:
    from tower.games import game_class

    cls = game_class(args.game)
    if args.games < 1:
        raise BadInput("--games must be at least 1", "")
    check_batch_flags(args)
    seats = parse_players(args.players, args.game) if args.players else ["ai:greedy"] * cls.default_players
    if "human" in seats:
        raise BadInput("--players: simulate plays AIs only (no 'human')", "")
    batch = GameBatch(args.game, tuple(seats), args.seed, game_options(args.option, args.build, args.game, len(seats)))
    log = results_log(args, batch.header())
    done = {i: r for i, r in log.done.items() if i < args.games} if log else {}
    items = [batch.item(i) for i in range(args.games) if i not in done]
    try:
        new, elapsed = run_batch(play_indexed, items, total=args.games, jobs=args.jobs, ray=args.ray, log=log,
                                 what=args.game, unit="game", quiet=args.json)
    except BatchStopped as exc:
        print(stopped_line("simulate", exc, log), file=sys.stderr)
        return EXIT_FOUND
    except KeyboardInterrupt:
        return interrupted("simulate", log)
    results = [*done.values(), *new]
    summary = summarise(args.game, seats, results, elapsed, played=len(new))
    if args.plot:
        from tower.app.plots import plot_games

        plot_games(summary, results, args.plot)
    if args.json:
        print_json(summary)
        return EXIT_OK
    print(f"{args.game}: {len(results)} games, {len(seats)} players, {summary['games_per_s']:.1f} games/s")
    for seat in summary["seats"]:
        lo, hi = seat["ci95"]
        print(f"  seat {seat['seat']} {seat['player']:>14}: wins {seat['win_rate'] * 100:5.1f} %"
              f" (95 % CI {lo * 100:.1f}-{hi * 100:.1f})  mean score {seat['mean_score']:.2f}")
    for name, rate in summary["by_ai"].items():
        lo, hi = summary["by_ai_ci95"][name]
        print(f"  {name:>20}: win rate {rate * 100:.1f} % (95 % CI {lo * 100:.1f}-{hi * 100:.1f})")
    print(f"  game length: mean {summary['length']['mean']:.1f} moves (min {summary['length']['min']}, "
          f"max {summary['length']['max']})")
    if args.plot:
        print(f"  plot: {args.plot}")
    return EXIT_OK

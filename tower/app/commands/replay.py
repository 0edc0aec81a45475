"""`tower replay`: step through a game record in the window or the terminal, or render it to a GIF."""

from __future__ import annotations

import sys

from tower.app.output import EXIT_OK, check_output_path
from tower.games.errors import BadInput


def run(args) -> int:
    from tower.games import replay
    from tower.games.reader import read_json

    record = read_json(args.record)
    try:
        final = replay(record)
    except BadInput as exc:
        raise exc.in_source(args.record) from None
    if args.gif:
        check_output_path(args.gif, "--gif")
        from viewer.replay import render_gif

        render_gif(record, args.gif)
        print(f"wrote {args.gif}", file=sys.stderr)
        return EXIT_OK
    if not args.text:
        try:
            from viewer.replay import replay_window
        except ImportError:
            args.text = True
        else:
            return replay_window(record)
    from tower.games import new_game

    state = new_game(final.name, final.num_players, final.seed, final.options)
    print(f"{final.name}, {final.num_players} players, seed {final.seed}: {len(final.history)} moves")
    for i, move in enumerate(final.history):
        p = state.current_player
        state.apply(move)
        print(f"{i + 1:4}. {state.player_label(p)}: {move}")
    print("result:", final.outcome_text() if final.is_over else "(game not finished)")
    return EXIT_OK

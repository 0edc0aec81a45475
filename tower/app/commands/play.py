"""`tower play`: a game in the 3D window, or in the terminal with `--text`."""

from __future__ import annotations

import io

from tower.app.output import seed_or_fresh
from tower.app.seats import check_seats, game_options, parse_players
from tower.app.stability import statics_stands
from tower.app.textplay import text_loop
from tower.games.errors import BadInput


def run(args) -> int:
    from tower.games import load_game, new_game
    from tower.games.ai import make_agent

    if args.load and args.build:
        raise BadInput("--build starts a new game: it cannot go with --load", "")
    if args.load:
        # one loading path for the window and the terminal: the record's moves and the seats saved with it
        state, saved = load_game(args.load, judge=statics_stands)
        if state.name != args.game:
            raise BadInput(f"the record is a {state.name} game, not {args.game}", "$.game", args.load)
        if args.players:
            seats = parse_players(args.players, args.game)
            if len(seats) != state.num_players:
                raise BadInput(f"--players: the record is a {state.num_players}-player game, got {len(seats)}", "")
        else:
            seats = check_seats(saved, args.load) if saved else ["human"] * state.num_players
    else:
        seats = parse_players(args.players, args.game)
        options = game_options(args.option, args.build, args.game, len(seats))
        # a new deal every game unless asked for one; the record keeps the seed, so a saved game replays exactly.
        # The seed is said once the game is dealt: an option the game refuses prints its one line and nothing else
        said = io.StringIO()
        args.seed = seed_or_fresh(args.seed, "replay", said)
        try:
            state = new_game(args.game, len(seats), args.seed, options, judge=statics_stands)
        except BadInput as exc:
            if exc.where.startswith("$.options"):  # an option's value the game refuses: name it as it was given
                raise BadInput(f"--option: {exc.what}", "") from None
            raise
        print(said.getvalue(), end="", flush=True)
    if not args.text:
        try:
            from viewer.play_window import play_window
        except ImportError:
            raise BadInput("the 3D window is not available in this installation; use --text", "") from None
        from tower.app import stability

        return play_window(state, seats, save_path=args.load, physics=stability)
    agents = {i: make_agent(s, seed=state.seed * 31 + i) for i, s in enumerate(seats) if s != "human"}
    return text_loop(state, seats, agents)

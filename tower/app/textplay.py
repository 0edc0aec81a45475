"""Terminal play: the position as text, moves typed at a prompt, and the commands around them."""

from __future__ import annotations

import json
import sys
from typing import Any

from tower.app.output import EXIT_OK
from tower.games.errors import BadInput

HELP = """commands: a move in its text form | moves | hint | undo | status | save FILE | help | quit"""


def text_loop(state, seats: list[str], agents: dict[int, Any], stdin=None) -> int:
    from tower.games import save_record
    from tower.games.errors import IllegalMove

    stdin = stdin or sys.stdin
    print(f"{state.name}: {state.num_players} players ({', '.join(seats)}), seed {state.seed}. {HELP}")
    shown = -1  # the history length whose position was last printed: answers to commands don't repeat it
    while not state.is_over:
        p = state.current_player
        if p in agents:
            move = agents[p].choose(state)
            state.apply(move)
            print(f"player {p} ({seats[p]}): {move}")
            continue
        if shown != len(state.history):
            print()
            print(state.describe(p))
            shown = len(state.history)
        print(f"player {p} to move> ", end="", flush=True)
        line = stdin.readline()
        if not line:
            print("\nend of input: leaving the game")
            return EXIT_OK
        text = line.strip()
        if not text:
            continue
        word, _, rest = text.partition(" ")
        if word in ("quit", "exit"):
            return EXIT_OK
        if word == "help":
            print(HELP)
            print(state.move_help())
        elif word == "status":
            shown = -1
        elif word == "moves":
            moves = state.legal_moves()
            print(f"{len(moves)} legal moves: " + ", ".join(map(str, moves[:60])) + (" ..." if len(moves) > 60 else ""))
        elif word == "hint":
            from tower.games.ai import make_agent

            print("hint:", make_agent("mcts:time=1.0", seed=len(state.history)).choose(state))
        elif word == "undo":
            # take back to the last human decision, skipping the AIs' replies
            if not state.history:
                print("nothing to undo")
                continue
            state = state.undo()
            while state.history and state.current_player in agents:
                state = state.undo()
            shown = -1
        elif word == "save":
            if not rest:
                print("save needs a file name")
                continue
            try:
                save_record(state, rest.strip(), seats)
                print(f"saved to {rest.strip()}")
            except OSError as exc:
                print(f"cannot save: {exc.strerror}")
        else:
            try:
                state.apply_text(text)
            except BadInput as exc:
                print(f"not understood: {exc.what}")
            except IllegalMove as exc:
                print(f"illegal ({exc.rule}): {exc.message}")
    res = state.result()
    print("game over:", json.dumps(res))
    return EXIT_OK

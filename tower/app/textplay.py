"""Terminal play: the position as text, moves typed at a prompt, and the commands around them.

What one person may not see is never printed while another could read it: other players' moves are told in their
public words (`state.public_move`), and in a game with hidden hands the screen is cleared and handed over ("pass to
P2, press Enter") whenever a different person is to type.
"""

from __future__ import annotations

import sys
from typing import Any

from tower.app.output import EXIT_OK
from tower.games.errors import BadInput, IllegalMove

HELP = ("commands: a move in its text form | moves [FILTER] | more | hint | undo | status | save FILE | help | "
        "quit")
#: Moves listed at a time; `more` shows the next page.
PAGE = 60
#: Puts the cursor top left and clears the screen and the scroll-back (ANSI), so the next person cannot read the
#: last one's hand, not even by scrolling up.
CLEAR = "\x1b[H\x1b[2J\x1b[3J"
#: Characters that join the parts of a move's word: `moves 12,10` finds `12,10,4`, `moves green` finds `green+1`.
JOINERS = ",+-/:>"


def matches(text: str, terms: list[str]) -> bool:
    """Does every term name a word of the move `text`, whole or as its first part (`12,10` -> `12,10,4`)?"""
    words = text.lower().split()
    return all(any(w == t or (w.startswith(t) and w[len(t)] in JOINERS) for w in words) for t in terms)


class TextGame:
    """One terminal game: the state, the seats, who sits at the screen, the pages of a move listing."""

    def __init__(self, state: Any, seats: list[str], agents: dict[int, Any], stdin: Any) -> None:
        self.state = state
        self.seats = seats
        self.agents = agents
        self.stdin = stdin
        humans = [i for i, s in enumerate(seats) if s == "human"]
        # private hands need a hand-over between two different people at one terminal
        self.private = not state.perfect_information and len(humans) > 1
        self.at_screen: int | None = None  # the person whose position was last printed
        self.shown = -1  # the history length whose position was last printed
        self.listing: list[str] = []
        self.page = 0
        #: (player, public words) of every move since the start, for the recap after a hand-over
        self.told: list[tuple[int, str]] = [(-1, str(m)) for m in state.history]
        self.last_turn: dict[int, int] = {}  # person -> history length when they last moved

    def name(self, p: int) -> str:
        seat = self.seats[p]
        return self.state.player_label(p) + ("" if seat == "human" else f" ({seat})")

    def line(self, p: int, text: str) -> str:
        from viewer.play import move_line

        return move_line(self.state.player_label(p), self.name(p), text)

    def apply(self, move: Any, p: int) -> None:
        public = self.state.public_move(move, p)
        self.state.apply(move)
        self.told.append((p, public))

    def run(self) -> int:
        state = self.state
        print(f"{state.title or state.name}: {state.num_players} players "
              f"({', '.join(self.name(p) for p in range(state.num_players))}), seed {state.seed}. {HELP}")
        while not self.state.is_over:
            p = self.state.current_player
            if p in self.agents:
                move = self.agents[p].choose(self.state)
                self.apply(move, p)
                print(self.line(p, self.told[-1][1]))
                continue
            if not self.hand_over(p):
                return self.leave()
            if self.shown != len(self.state.history):
                print()
                print(self.state.describe(p))
                self.shown = len(self.state.history)
            print(f"{self.name(p)} to move> ", end="", flush=True)
            line = self.stdin.readline()
            if not line:
                return self.leave()
            if self.command(line.strip(), p) == "quit":
                return EXIT_OK
        print(f"game over: {self.state.outcome_text()}")
        return EXIT_OK

    def leave(self) -> int:
        print("\nend of input: leaving the game")
        return EXIT_OK

    def hand_over(self, p: int) -> bool:
        """Clear the screen and wait for Enter when a different person is to type; False at the end of input."""
        if self.private and self.at_screen is not None and self.at_screen != p:
            print(CLEAR, end="")
            print(f"pass to {self.name(p)}, press Enter", end="", flush=True)
            if not self.stdin.readline():
                return False
            self.shown = -1
            since = self.last_turn.get(p, 0)
            recap = ["  " + self.line(q, text) for q, text in self.told[since:] if q >= 0]
            if recap:
                print("\nsince your last turn:")
                print("\n".join(recap))
        self.at_screen = p
        return True

    def command(self, text: str, p: int) -> str | None:
        if not text:
            return None
        word, _, rest = text.partition(" ")
        if word in ("quit", "exit"):
            return "quit"
        if word == "help":
            print(HELP)
            print(self.state.move_help())
        elif word == "status":
            self.shown = -1
        elif word == "moves":
            self.list_moves(rest.split())
        elif word == "more":
            self.more()
        elif word == "hint":
            from tower.games.ai import make_agent

            print("hint:", make_agent("mcts:time=1.0", seed=len(self.state.history)).choose(self.state))
        elif word == "undo":
            self.undo()
        elif word == "save":
            self.save(rest.strip())
        else:
            try:
                move = self.state.move_type.parse(text, self.state)
                self.apply(move, p)
            except BadInput as exc:
                print(f"not understood: {exc.what}")
            except IllegalMove as exc:
                print(f"illegal ({exc.rule}): {exc.message}")
            else:
                self.last_turn[p] = len(self.state.history)
        return None

    def list_moves(self, terms: list[str]) -> None:
        texts = [str(m) for m in self.state.legal_moves()]
        lowered = [t.lower() for t in terms]
        self.listing = [text for text in texts if matches(text, lowered)]
        self.page = 0
        if terms and not self.listing:
            print(f"no legal move matches '{' '.join(terms)}' (a filter names a block like h7, a cell x,y or "
                  "x,y,z, a card, or any word of a move)")
            return
        head = f"{len(self.listing)} moves match '{' '.join(terms)}'" if terms else f"{len(texts)} legal moves"
        print(head + ":")
        self.show_page()

    def more(self) -> None:
        if (self.page + 1) * PAGE >= len(self.listing):
            print("no more moves in this listing (type 'moves' or 'moves FILTER')")
            return
        self.page += 1
        self.show_page()

    def show_page(self) -> None:
        """One page of the listing in columns as wide as the terminal allows."""
        import shutil

        lo = self.page * PAGE
        page = self.listing[lo:lo + PAGE]
        width = max(map(len, page), default=0) + 3
        columns = max(1, shutil.get_terminal_size((100, 24)).columns // width)
        rows = -(-len(page) // columns)
        for r in range(rows):
            print("".join(page[r + c * rows].ljust(width) for c in range(columns) if r + c * rows < len(page)).rstrip())
        pages = -(-len(self.listing) // PAGE)
        if pages > 1:
            tail = "; 'more' for the next" if self.page + 1 < pages else ""
            print(f"(page {self.page + 1} of {pages}{tail}; 'moves FILTER' narrows it: a block, a cell x,y, a card)")

    def undo(self) -> None:
        """Take back to the last human decision, skipping the AIs' replies."""
        state = self.state
        if not state.history:
            print("nothing to undo")
            return
        state = state.undo()
        while state.history and state.current_player in self.agents:
            state = state.undo()
        self.state = state
        del self.told[len(state.history):]
        self.shown = -1

    def save(self, path: str) -> None:
        from tower.games import save_record

        if not path:
            print("save needs a file name")
            return
        try:
            save_record(self.state, path, self.seats)
            print(f"saved to {path}")
        except OSError as exc:
            print(f"cannot save: {exc.strerror}")


def text_loop(state: Any, seats: list[str], agents: dict[int, Any], stdin: Any = None) -> int:
    """Play `state` in the terminal until it ends or the input does; `agents` move the AI seats."""
    return TextGame(state, seats, agents, stdin or sys.stdin).run()

"""Interactive play in the 3D window, for every game: the controller.

`PlayController` holds everything the window shows and does (the legal-move menu with a 3D preview, AI turns,
the log, hotseat hand-over, hint, undo, save and load, The Climbers' block and target picking and what-if) and
is tested without a window. The window (`viewer.play_window`) only maps keys and clicks to controller calls and
shows `controller.scene()`.

The game decides legality: the menu is `state.legal_moves()`, a confirmed move goes through `state.apply`, a
preview applies the move to a copy of the state, a hint comes from an AI player.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tower.games.errors import BadInput, IllegalMove

MENU_ROWS = 9  # legal moves listed around the highlighted one
LOG_ROWS = 6
MENU_WIDTH = 56  # characters per menu line: the menu must leave most of the window to the 3D scene
HINT_AI = "ai:greedy"  # instant; the terminal's `hint` may think longer, a window must not freeze


@dataclass(frozen=True)
class LogEntry:
    """One move in the window's log: its text for the player who made it, and in public words for everyone else."""

    ply: int  # its index in the game's history
    player: int
    text: str
    public: str
    words: str = ""  # the move in words a newcomer understands (`state.move_words`)


def move_line(label: str, who: str, text: str) -> str:
    """One line of a move log: `who` (the player's `label`, perhaps with the AI playing the seat) and the move's
    words. A game's public words may already name the player ("P2 has chosen whether to double"): then the
    name is not said twice."""
    if text.startswith(label + " "):
        return who + text[len(label):]
    return f"{who}: {text}"


def _wrapped(text: str, lead: str) -> list[str]:
    """One entry of the menu or the log in lines of the panel's width: wrapped, never cut off; the lines after
    the first indented under its text."""
    return textwrap.wrap(text, MENU_WIDTH, initial_indent=lead, subsequent_indent=" " * (len(lead) + 2)) or [lead]


class PlayController:
    """Game flow for the window: a cursor over the legal moves, AI seats, log, hand-over, undo, save, load."""

    def __init__(self, state: Any, seats: list[str], seed: int = 0, save_path: str | Path | None = None,
                 physics: Any = None) -> None:
        #: the physics judges (`viewer.Physics`) for what-if; None: what-if is not offered
        if len(seats) != state.num_players:
            raise BadInput(f"{len(seats)} seats for a {state.num_players}-player game", "")
        self.physics = physics
        self.seed = seed
        self.save_path = Path(save_path) if save_path else Path(f"tower-{state.name}-save.json")
        self.log: list[LogEntry] = []
        self.message = ""
        self._start(state, seats)

    def _start(self, state: Any, seats: list[str]) -> None:
        from tower.games.ai import make_agent

        self.state = state
        self.seats = list(seats)
        self.agents = {i: make_agent(s, seed=self.seed * 31 + i) for i, s in enumerate(seats) if s != "human"}
        self.humans = [i for i, s in enumerate(seats) if s == "human"]
        # private cards need a hand-over screen between two different people at the same screen
        self.private = not state.perfect_information and len(self.humans) > 1
        cur = state.current_player
        self.viewer = cur if cur in self.humans else (self.humans[0] if self.humans else 0)  # whose view is shown
        #: the person whose private view was last on screen (None: nobody's yet, e.g. after loading a game)
        self.revealed: int | None = self.viewer
        self.handover = False
        self.selected_block: str | None = None
        self.aim: Any = None  # The Climbers: the pointer over the selected block's placements (viewer.placement)
        self.hover: str | None = None
        self.pointed = ""  # The Climbers: the block under the pointer by its id, and what a click on it does
        #: the card games: the pointer over this position's click paths (viewer.cards.pointing), and whether the
        #: menu's highlighted move was chosen by the keyboard (then it is previewed, else the pointer's move is)
        self.pointer: Any = None
        self._pointer_key: tuple | None = None
        self.keyboard = False
        self.whatif = False
        self.removed: str | None = None  # what-if: the block taken away
        self.index = 0
        self.moves: list[Any] = []
        self._preview_key: tuple | None = None
        self._after = None  # the scene after the highlighted move (card games' preview), cached
        self.refresh()

    # --- menu ----------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the legal moves (only those of the selected block, if one is picked) and clamp the cursor."""
        moves = self.state.legal_moves()
        if self.selected_block is not None:
            mine = [m for m in moves if getattr(m, "kind", None) == "block" and m.block == self.selected_block]
            if mine:
                moves = mine
            else:
                self.selected_block = None
        if self.selected_block is None:
            self.aim = None
        if self.state.construction and not callable(getattr(moves, "blocks", None)):
            from viewer.climbers_pointing import natural_key

            # blocks counted as people count them: c1, c2, ..., c10 (each kind of move keeps its place)
            kinds = list(dict.fromkeys(getattr(m, "kind", "") for m in moves))
            order = sorted(range(len(moves)), key=lambda i: (kinds.index(getattr(moves[i], "kind", "")),
                                                             natural_key(getattr(moves[i], "block", None) or ""), i))
            moves = [moves[i] for i in order]
        self.moves = moves
        self.index = min(self.index, max(len(moves) - 1, 0))
        self._refresh_pointer()

    def _refresh_pointer(self) -> None:
        """The card games' pointer over the click paths of the position shown (made once per position)."""
        st = self.state
        if st.construction or self.handover or not self.human_to_move:
            self.pointer, self._pointer_key = None, None
            return
        key = (id(st), len(st.history), st.current_player)
        if key != self._pointer_key:
            from viewer.cards.clickpaths import card_table
            from viewer.cards.pointing import CardPointer

            self.pointer = CardPointer(card_table(st, st.current_player))
            self._pointer_key = key

    @property
    def current_move(self) -> Any | None:
        return self.moves[self.index] if self.moves else None

    def cycle(self, step: int = 1) -> None:
        if self.moves:
            self.index = (self.index + step) % len(self.moves)
            self.keyboard = True
            if self.pointer is not None:  # the keyboard's choice: the pointer's half-made choice goes
                self.pointer.reset()
            if self.aim is not None:  # the keyboard's way through the placements: the ghost goes along
                self.aim.choose(str(self.moves[self.index]))

    def select(self, move: Any) -> bool:
        """Put the cursor on `move` if the menu lists it."""
        for i, m in enumerate(self.moves):
            if m == move:
                self.index = i
                return True
        return False

    @property
    def human_to_move(self) -> bool:
        p = self.state.current_player
        return p is not None and p not in self.agents

    def confirm(self) -> bool:
        """Apply the highlighted move (a human's turn only); True if a move was made. On the hand-over screen:
        the person now at the screen sees their view."""
        if self.handover:
            self.handover = False
            self.revealed = self.viewer
            self._refresh_pointer()
            return False
        move = self.current_move
        if move is None or not self.human_to_move or self.whatif:
            return False
        return self._apply(move)

    def _apply(self, move: Any) -> bool:
        p = self.state.current_player
        public = self.state.public_move(move, p)  # worded for the others before the move changes the state
        words = self.state.move_words(move)
        try:
            self.state.apply(move)
        except IllegalMove as exc:  # the game said no: show why, change nothing
            self.message = f"illegal ({exc.rule}): {exc.message}"
            return False
        self.log.append(LogEntry(len(self.state.history) - 1, p, str(move), public, words))
        self.message = ""
        self.selected_block = None
        self.hover = None
        self.pointed = ""
        self.keyboard = False
        self.index = 0
        self._after_move()
        self.refresh()
        return True

    def _after_move(self) -> None:
        nxt = self.state.current_player
        if nxt is not None and nxt not in self.agents:
            self._face(nxt)

    def _face(self, person: int) -> None:
        """`person` is to look at the screen now. With private hands, anyone but the one whose view was shown last
        (and anyone at all while a hand-over is pending) gets the blank hand-over screen first."""
        if self.private and (self.handover or person != self.revealed):
            self.handover = True
        self.viewer = person

    def ai_step(self) -> bool:
        """Let the AI to move (if any) make one move; True if it did."""
        p = self.state.current_player
        if p is None or p not in self.agents or self.handover:
            return False
        return self._apply(self.agents[p].choose(self.state))

    def run_ais(self, limit: int = 10_000) -> int:
        """AI moves until a human is to move or the game ends; the number of moves made."""
        n = 0
        while n < limit and self.ai_step():
            n += 1
        return n

    def hint(self) -> Any | None:
        """An AI's choice for the player to move, put under the cursor (the menu shows all moves again)."""
        from tower.games.ai import make_agent

        if not self.human_to_move or self.handover:
            return None
        self.selected_block = None
        self.refresh()
        move = make_agent(HINT_AI, seed=len(self.state.history)).choose(self.state)
        self.select(move)
        self.keyboard = True
        if self.pointer is not None:
            self.pointer.reset()
        self.message = f"hint: {move}"
        return move

    def _name(self, p: int | None) -> str:
        """The game's name for a player (`player_label`), with the AI that plays the seat."""
        if p is None:
            return "-"
        return self.state.player_label(p) + ("" if self.seats[p] == "human" else f" ({self.seats[p]})")

    def names(self) -> list[str]:
        """Every player as the game names them (`player_label`): the same words in the scene, menu and log."""
        return [self.state.player_label(p) for p in range(self.state.num_players)]

    def log_lines(self) -> list[str]:
        """The log as the person at the screen may read it: their own moves in full, the others' in public words
        (until the game is over: then its record, every move in it, is public)."""
        out = []
        for e in self.log:
            text = e.text if e.player == self.viewer or self.state.is_over else e.public
            # in words wherever the move itself may be read (a hidden one keeps its public sentence)
            out.append(move_line(self.state.player_label(e.player), self._name(e.player),
                                 e.words if e.words and text == e.text else text))
        return out

    # --- The Climbers: picking -----------------------------------------------------------------------------
    def movable_blocks(self) -> list[str]:
        """Blocks the game offers a block move for right now."""
        if not self.state.construction or not self.human_to_move:
            return []
        return sorted({m.block for m in self.state.legal_moves() if m.kind == "block"})

    def click_block(self, block_id: str | None) -> bool:
        """Pick a block: the menu becomes its legal placements (ghosts). False if the game offers none."""
        if block_id is None or block_id not in self.movable_blocks():
            self.selected_block = None
            self.refresh()
            if block_id is not None:
                from viewer.climbers_pointing import refusal

                self.message = refusal(self.state, block_id)
            return False
        from viewer.placement import Aim, BlockPlacements, explainer

        self.selected_block = block_id
        self.index = 0
        self.refresh()
        st = self.state
        placements = BlockPlacements.from_moves(block_id, self.moves, st.to_build(), words=st.move_words)
        placements.explain_with(explainer(st))
        self.aim = Aim(placements)
        self.aim.choose(str(self.current_move))
        self.message = f"{block_id}: point where it goes (wheel or r turns it), click to place it"
        return True

    # --- The Climbers: aiming a picked block (viewer.placement) ----------------------------------------------
    def _follow_aim(self) -> None:
        cur = self.aim.current if self.aim is not None else None
        if cur is not None:
            for i, m in enumerate(self.moves):
                if str(m) == cur.text:
                    self.index = i
                    break
        self.message = self.aim.status() if self.aim is not None else self.message

    def aim_at(self, hit: Any, normal: Any = (0.0, 0.0, 1.0)) -> bool:
        """The pointer is over `hit` (a point of a block face or the table; None: nothing) with the face's
        `normal`: the ghost goes to the placement there. True if what is shown changed."""
        if self.aim is None:
            return False
        before = (self.aim.current, self.message)
        self.aim.point(hit, normal)
        self._follow_aim()
        return (self.aim.current, self.message) != before

    def turn(self, step: int = 1) -> bool:
        """The next (or previous) shape or face up at the aimed spot (the wheel, r / R)."""
        if self.aim is None or not self.aim.options:
            return False
        self.aim.cycle(step)
        self._follow_aim()
        return True

    def place(self) -> bool:
        """Place the picked block where the pointer aims (a click); True if the move was made. Where nothing can
        go the message says why."""
        if self.aim is None or self.whatif or self.handover or not self.human_to_move:
            return False
        cur = self.aim.current
        if cur is None:
            self._follow_aim()
            return False
        move = next((m for m in self.moves if str(m) == cur.text), None)
        return move is not None and self._apply(move)

    def click(self, layer: str, index: int, scene: Any) -> bool:
        """A click on item `index` of `layer` (as `SceneRenderer.pick` names it) in the shown `scene`.

        A block offers its placements; a ghost placement or a highlighted target cell is chosen, and chosen
        again (a second click) it is played; a click on the preview of the highlighted move (a solid ghost, a
        ghost figure or pawn) plays it. True if a move was made."""
        if self.whatif or self.handover or not self.human_to_move:
            return False
        if self.pointer is not None and layer in ("blocks", "figures"):
            return self.card_click(self.pointer.spot_at(layer, index, scene))
        if layer == "blocks":
            block = scene.blocks[index].id
            stone = [m for m in self.moves if getattr(m, "kind", None) == "stone" and m.block == block]
            if stone:  # step 4: a click on a top the stone may go on chooses it, a second lays it
                return self._choose(stone)
            self.click_block(block)
            return False
        if layer in ("ghosts", "ghost_sel") and scene.ghosts[index].label:
            return self._choose([m for m in self.moves if str(m) == scene.ghosts[index].label])
        if layer in ("ghost_sel", "ghost_figs") and self.current_move is not None:
            return self._apply(self.current_move)  # the preview of the highlighted move: play it
        if layer == "targets":
            texts = self.target_cells().get(tuple(scene.markers[index].cell), [])
            return self._choose([m for t in texts for m in self.moves if str(m) == t])
        return False

    def _choose(self, candidates: list[Any]) -> bool:
        if not candidates:
            return False
        if self.current_move in candidates:  # chosen already: this click plays it
            return self._apply(self.current_move)
        self.select(candidates[0])
        more = f" ({len(candidates)} ways: cycle with the arrows)" if len(candidates) > 1 else ""
        self.message = f"click again or Enter: {self.state.move_words(self.current_move)}{more}"
        return False

    # --- the card games: pointing (viewer.cards.pointing) ------------------------------------------------------------
    def card_click(self, key: str | None) -> bool:
        """A click on spot `key` of a card game's table (None: on nothing): a card lifts and its targets light up;
        the click that settles a move plays it. True if a move was made."""
        if self.pointer is None or self.whatif or self.handover or not self.human_to_move:
            return False
        text = self.pointer.click(key)
        if text is not None:
            move = next((m for m in self.moves if str(m) == text), None)
            return move is not None and self._apply(move)
        self.keyboard = False
        self._follow_pointer()
        self.message = self.pointer.message
        return False

    def card_point(self, key: str | None) -> bool:
        """The pointer is over spot `key` of a card game's table (None: nothing); True if what is shown changed.
        The move a click there would play is previewed and said in words."""
        if self.pointer is None or self.handover:
            return False
        if not self.pointer.point(key):
            return False
        if key is not None or not self.keyboard:
            self.keyboard = False
            self._follow_pointer()
        self.message = self.pointer.words() or self.pointer.message or self.pointer.status()
        return True

    def _follow_pointer(self) -> None:
        current = self.pointer.current() if self.pointer is not None else None
        if current is not None:
            text = self.pointer.table.moves[current][0]
            self.index = next((i for i, m in enumerate(self.moves) if str(m) == text), self.index)

    def hover_block(self, block_id: str | None) -> bool:
        """The block under the mouse: outlined if clicking it would do something, and said by its id with what a
        click on it does (`pointed`); True if that changed."""
        offered = block_id if self.whatif or block_id in self.movable_blocks() else None
        if self.whatif and self.removed is not None:
            offered = None
        pointed = self._pointed_words(block_id)
        changed = offered != self.hover or pointed != self.pointed
        self.hover = offered
        self.pointed = pointed
        return changed

    def _pointed_words(self, block_id: str | None) -> str:
        """The Climbers: a block under the pointer, by its id, and what a click on it does now."""
        if block_id is None or not self.state.construction:
            return ""
        if self.whatif or not self.human_to_move or self.handover:
            return f"block {block_id}"
        if block_id in self.movable_blocks():
            return f"block {block_id}: click to pick it up, then point where it goes"
        if any(getattr(m, "kind", None) == "stone" and m.block == block_id for m in self.moves):
            return f"block {block_id}: click to lay the blocking stone on it"
        from viewer.climbers_pointing import refusal

        return refusal(self.state, block_id)

    def deselect(self) -> None:
        self.selected_block = None
        self.aim = None
        self.hover = None
        if self.pointer is not None:
            self.pointer.reset()
        if self.whatif:
            self.leave_whatif()
        self.refresh()

    # --- what-if (The Climbers) ----------------------------------------------------------------------------
    def toggle_whatif(self) -> bool:
        """Enter or leave what-if mode (click a block to see the construction without it)."""
        if not self.state.construction:
            self.message = "what-if is for games played on a block construction (The Climbers)"
            return False
        if self.physics is None:
            self.message = "what-if needs the physics judges, which this window was not given"
            return False
        if self.whatif:
            self.leave_whatif()
        else:
            self.whatif = True
            self.selected_block = None
            self.message = "what-if: click a block to take it away (x or Esc to go back)"
            self.refresh()
        return self.whatif

    def leave_whatif(self) -> None:
        self.whatif = False
        self.removed = None
        self.hover = None
        self.message = ""

    def whatif_remove(self, block_id: str, seconds: float = 2.0) -> list[dict[str, Any]]:
        """Take `block_id` away (in the picture only) and simulate: the PyBullet trajectory of the rest."""
        self.removed = block_id
        self.hover = None
        return self.whatif_frames(block_id, seconds)

    def whatif_frames(self, block_id: str, seconds: float = 2.0) -> list[dict[str, Any]]:
        """PyBullet trajectory of the construction with `block_id` taken away (the state is not touched)."""
        build = self.state.to_build().without({block_id})
        result = self.physics.fall(build, seconds)
        self.message = (f"without {block_id}: " + ("COLLAPSES" if result.collapsed else "stands")
                        + (f" ({', '.join(result.moved[:5])} move)" if result.moved else "")
                        + "; x or Esc restores")
        return result.trajectory or []

    # --- undo, save, load ----------------------------------------------------------------------------------
    def undo(self) -> bool:
        """Take back to the previous human decision (the AIs' replies go too); the moves leave the log. If that
        decision is another person's, the screen is handed over first."""
        if not self.state.history:
            return False
        state = self.state.undo()
        while state.history and state.current_player in self.agents:
            state = state.undo()
        taken = len(self.state.history) - len(state.history)
        self.state = state
        self.log = [e for e in self.log if e.ply < len(state.history)]
        self.message = f"took back {taken} move{'s' if taken != 1 else ''}"
        self.selected_block = None
        if state.current_player is not None and state.current_player not in self.agents:
            self._face(state.current_player)
        self.refresh()
        return True

    def save(self, path: str | Path | None = None) -> str:
        from tower.games import save_record

        path = path or self.save_path
        try:
            save_record(self.state, path, self.seats)
        except OSError as exc:
            self.message = f"cannot save to {path}: {exc.strerror}"
        else:
            self.message = f"saved to {path}"
        return self.message

    def load(self, path: str | Path | None = None) -> bool:
        """Resume a saved record of the same game; a bad file leaves the game as it is and says why."""
        from tower.games import load_game

        path = path or self.save_path
        try:
            state, saved = load_game(path, judge=self.state.judge)
            seats = saved or self.seats
            if state.name == self.state.name and state.num_players == self.state.num_players:
                self._check_seats(seats)
        except BadInput as exc:
            self.message = f"cannot load: {exc}"[:MENU_WIDTH * 3]
            return False
        except OSError as exc:
            self.message = f"cannot load {path}: {exc.strerror}"
            return False
        if state.name != self.state.name or state.num_players != self.state.num_players:
            self.message = f"cannot load: {path} is a {state.num_players}-player {state.name} game"
            return False
        self._start(state, seats)
        self.log = []
        # whoever is at the screen now, the next person to move sees the hand-over screen first
        self.revealed = None
        cur = state.current_player
        if cur is not None and cur not in self.agents:
            self._face(cur)
        self.message = f"loaded {path}: move {len(state.history)}"
        return True

    @staticmethod
    def _check_seats(seats: list[str]) -> None:
        from tower.games.ai import make_agent

        for s in seats:
            if s != "human":
                make_agent(s)  # BadInput for a seat no AI plays

    # --- what the window shows -----------------------------------------------------------------------------
    def text_lines(self) -> list[str]:
        """Whose turn, the message, the menu of legal moves, the log and the keys (the window's right-hand text)."""
        st = self.state
        lines = []
        if st.is_over:
            lines += textwrap.wrap(f"game over: {st.outcome_text()}", MENU_WIDTH)
        else:
            p = st.current_player
            lines.append(f"{self._name(p)} to move" + ("" if p not in self.agents else " (thinking...)"))
        if self.moves and self.human_to_move and not self.whatif:
            what = f"places for {self.selected_block}" if self.selected_block is not None else "legal moves"
            lines.append(f"{what} {self.index + 1}/{len(self.moves)}")
            lo = max(0, min(self.index - MENU_ROWS // 2, len(self.moves) - MENU_ROWS))
            for i in range(lo, min(lo + MENU_ROWS, len(self.moves))):
                said = st.move_words(self.moves[i])  # the move in words a newcomer understands
                if self.selected_block is not None:  # every line places the same block: say only where and how
                    said = said.removeprefix(f"put block {self.selected_block} at ")
                lines += _wrapped(said, "> " if i == self.index else "  ")
        prompt = st.prompt() if self.human_to_move and not st.is_over else None
        for text in (prompt, self.message, self.pointed):
            if text:
                lines += textwrap.wrap(text, MENU_WIDTH)
        lines += [f"  [{key}] {words}" for key, words in self.action_keys()]
        if self.log:
            lines.append("log:")
            for entry in self.log_lines()[-LOG_ROWS:]:
                lines += _wrapped(entry, "  ")
        return lines + self.key_lines()

    def action_keys(self) -> list[tuple[str, str]]:
        """The Climbers: the moves that name no place on the table (the step's skip, pass), with their keys and
        words, as the page shows them as buttons beside its pointer's line."""
        if not self.state.construction or not self.human_to_move or self.whatif or self.handover:
            return []
        from viewer.climbers_pointing import ACTION_KEYS

        return [(ACTION_KEYS[str(m)], self.state.move_words(m)) for m in self._unplaced()]

    def _unplaced(self) -> list[Any]:
        """The legal moves that name no place (skip, pass). A block step's move list (thousands of placements,
        built as they are read) holds none: it is not read."""
        from viewer.climbers_pointing import ACTION_KEYS

        legal = self.state.legal_moves()
        if callable(getattr(legal, "blocks", None)):
            return []
        return [m for m in legal if str(m) in ACTION_KEYS]

    def action(self, key: str) -> bool:
        """The key of a move that names no place (`action_keys`): play it. True if a move was made."""
        from viewer.climbers_pointing import ACTION_KEYS

        if not self.state.construction or not self.human_to_move or self.whatif or self.handover:
            return False
        text = next((t for t, k in ACTION_KEYS.items() if k == key), None)
        move = next((m for m in self._unplaced() if str(m) == text), None)
        if move is None:
            return False
        return self._apply(move)

    def key_lines(self) -> list[str]:
        """The keys of this window, only those that do something in this game."""
        keys = ["arrows/n/p choose", "Enter play", "h hint", "u undo"]
        if self.aim is not None:
            keys = ["point: where", "wheel/r: turn", "click: place", "Esc: other block", "arrows: list"]
        if self.pointer is not None:
            keys.insert(0, "click a card, then a lit place")
        if self.state.construction and self.aim is None:
            keys.append("click block: its places")
            if self.physics is not None:
                keys.append("x what-if")
        keys += ["k save", "l load", "1-4 view", "r reset", "q quit"]
        lines = ["keys:"]
        for i, key in enumerate(keys):  # whole entries per line: "l load" never split
            item = f" {key}" + ("," if i < len(keys) - 1 else "")
            if len(lines[-1]) + len(item) > MENU_WIDTH:
                lines.append("     ")
            lines[-1] += item
        return lines

    def scene(self):
        """The scene the window shows now (a blank hand-over screen hides private cards between people)."""
        from viewer.games import scene_for_view
        from viewer.scene import Scene

        if self.handover:
            return Scene(title=f"Hand over to {self._name(self.viewer)} - press Enter when ready",
                         lines=["(cards hidden)"])
        view = self.state.view(self.viewer)
        if not self.state.construction:
            scene = self._card_preview(scene_for_view(self.state.layout, view, names=self.names()))
            if self.pointer is not None:
                scene = self.pointer.decorate(scene)
            scene.menu = self.text_lines()
            return scene
        scene = self._climbers_scene(view)
        scene.menu = self.text_lines()
        return scene

    def _card_preview(self, now: Any):
        """`now` with what the highlighted move would change on the table: the move applied to a copy of the
        state, seen by the same player (hands left out: a preview must not show the card a move would draw)."""
        from viewer.games import scene_for_view
        from viewer.motion import with_preview

        move = self.current_move if self.human_to_move else None
        if self.pointer is not None and not self.keyboard:  # pointing: the move the pointer settles, if any
            current = self.pointer.current()
            move = None if current is None else next(
                (m for m in self.moves if str(m) == self.pointer.table.moves[current][0]), None)
        if move is None:
            return now
        key = (id(self.state), len(self.state.history), str(move), self.viewer)
        if key != self._preview_key:
            after = self.state.clone()
            try:
                after.apply(move)
            except IllegalMove:
                self._after = None
            else:
                self._after = scene_for_view(after.layout, after.view(self.viewer), names=self.names())
            self._preview_key = key
        return now if self._after is None else with_preview(now, self._after)

    def _climbers_scene(self, view: dict[str, Any]):
        from tower.climbers.build import parse_build
        from viewer.games import scene_for_view
        from viewer.scene import SceneFigure, SceneStone, ghost_from_move

        build = parse_build(view["build"])
        if self.whatif:
            if self.removed is not None:
                view = dict(view, build=dict(view["build"], blocks=[b for b in view["build"]["blocks"]
                                                                    if b.get("id") != self.removed]))
            return scene_for_view(self.state.layout, view, hover=self.hover, names=self.names())
        move = self.current_move if self.human_to_move else None
        ghosts, targets, ghost_figures, stones = [], [], [], []
        if self.aim is not None:
            # aiming: one ghost, where the pointer is (none where nothing can go): no clutter
            cur = self.aim.current
            if cur is not None and move is not None and str(move) == cur.text:
                ghosts = [ghost_from_move(move, build, selected=True)]
        elif move is not None and move.kind == "block":
            ghosts = [ghost_from_move(move, build, selected=True)]
        elif move is not None and move.kind in ("fig", "stone", "skip", "pass"):
            # the places a click chooses a move by: a figure's destinations, the free tops a stone may go on
            cells = self.target_cells()
            targets = list(cells)
            colour = view["players"][self.state.current_player]["colour"]
            if move.kind == "fig":
                ghost_figures = [SceneFigure(colour, tuple(move.cell))]
            elif move.kind == "stone":
                at = next((c for c, ms in cells.items() if str(move) in ms), None)
                if at is not None:  # the stone drawn on the free cell it would take
                    stones = [SceneStone(colour, move.block, (at[0] + 0.5, at[1] + 0.5, float(at[2])))]
        selected = self.selected_block or (move.block if move is not None and move.kind in ("block", "stone")
                                           else None)
        movable = self.movable_blocks() if self.selected_block is None else []
        scene = scene_for_view(self.state.layout, view, selected=selected, movable=movable, ghosts=ghosts,
                               targets=targets, hover=self.hover, names=self.names())
        scene.ghost_figures = ghost_figures
        scene.stones += stones
        return scene

    def target_cells(self) -> dict[tuple[int, int, int], list[str]]:
        """The Climbers: cell -> the moves a click on it chooses (`viewer.climbers_pointing.move_cells`), made
        once per position."""
        from viewer.climbers_pointing import move_cells

        key = (id(self.state), len(self.state.history))
        if getattr(self, "_cells_key", None) != key:
            legal = self.state.legal_moves()
            self._cells = {} if callable(getattr(legal, "blocks", None)) else move_cells(self.state, list(legal))
            self._cells_key = key
        return self._cells

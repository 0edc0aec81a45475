"""Interactive play in the 3D window, for every game.

`PlayController` holds everything the window shows and does (the legal-move menu, AI turns, the log, hotseat
hand-over, undo, save, The Climbers' block picking and what-if) and is tested without a window. The window
code in `play_window` only maps keys and clicks to controller calls and shows `controller.scene()`.

The game decides legality: the menu is `state.legal_moves()`, a confirmed move goes through `state.apply`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tower.errors import BadInput, IllegalMove

MENU_ROWS = 9  # legal moves listed around the highlighted one
LOG_ROWS = 6


class PlayController:
    """Game flow for the window: a cursor over the legal moves, AI seats, log, hand-over, undo, save."""

    def __init__(self, state: Any, seats: list[str], seed: int = 0) -> None:
        from tower.ai import make_agent

        if len(seats) != state.num_players:
            raise BadInput(f"{len(seats)} seats for a {state.num_players}-player game", "")
        self.state = state
        self.seats = list(seats)
        self.agents = {i: make_agent(s, seed=seed * 31 + i) for i, s in enumerate(seats) if s != "human"}
        self.humans = [i for i, s in enumerate(seats) if s == "human"]
        # private cards need a hand-over screen between two different people at the same screen
        self.private = state.name != "climbers" and len(self.humans) > 1
        self.viewer = self.humans[0] if self.humans else 0  # whose view is shown
        self.handover = False
        self.log: list[str] = []
        self.selected_block: str | None = None
        self.index = 0
        self.moves: list[Any] = []
        self.message = ""
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
        self.moves = moves
        self.index = min(self.index, max(len(moves) - 1, 0))

    @property
    def current_move(self) -> Any | None:
        return self.moves[self.index] if self.moves else None

    def cycle(self, step: int = 1) -> None:
        if self.moves:
            self.index = (self.index + step) % len(self.moves)

    @property
    def human_to_move(self) -> bool:
        p = self.state.current_player
        return p is not None and p not in self.agents

    def confirm(self) -> bool:
        """Apply the highlighted move (a human's turn only); True if a move was made."""
        if self.handover:
            self.handover = False
            return False
        move = self.current_move
        if move is None or not self.human_to_move:
            return False
        return self._apply(move)

    def _apply(self, move: Any) -> bool:
        p = self.state.current_player
        try:
            self.state.apply(move)
        except IllegalMove as exc:  # the game said no: show why, change nothing
            self.message = f"illegal ({exc.rule}): {exc.message}"
            return False
        self.log.append(f"{self._name(p)}: {move}")
        self.message = ""
        self.selected_block = None
        self.index = 0
        self._after_move(p)
        self.refresh()
        return True

    def _after_move(self, last: int | None) -> None:
        nxt = self.state.current_player
        if nxt is None or nxt in self.agents:
            return
        if self.private and nxt != self.viewer:
            self.handover = True
        self.viewer = nxt

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

    def _name(self, p: int | None) -> str:
        if p is None:
            return "-"
        view = self.state.view(p)
        players = view.get("players")
        colour = players[p].get("colour") if isinstance(players, list) and p < len(players) and \
            isinstance(players[p], dict) else None
        return f"P{p}" + (f" {colour}" if colour else "") + ("" if self.seats[p] == "human" else f" ({self.seats[p]})")

    # --- The Climbers: picking blocks ----------------------------------------------------------------------
    def movable_blocks(self) -> list[str]:
        """Blocks the game offers a block move for right now."""
        if self.state.name != "climbers" or not self.human_to_move:
            return []
        return sorted({m.block for m in self.state.legal_moves() if m.kind == "block"})

    def click_block(self, block_id: str | None) -> bool:
        """Pick a block: the menu becomes its legal placements (ghosts). False if the game offers none."""
        if block_id is None or block_id not in self.movable_blocks():
            self.selected_block = None
            self.refresh()
            if block_id is not None:
                self.message = f"block {block_id} cannot move now"
            return False
        self.selected_block = block_id
        self.index = 0
        self.refresh()
        self.message = f"{len(self.moves)} placements for {block_id}: cycle, Enter to place"
        return True

    def deselect(self) -> None:
        self.selected_block = None
        self.refresh()

    # --- undo, save ----------------------------------------------------------------------------------------
    def undo(self) -> bool:
        """Take back to the previous human decision (the AIs' replies go too)."""
        if not self.state.history:
            return False
        state = self.state.undo()
        while state.history and state.current_player in self.agents:
            state = state.undo()
        self.state = state
        self.log.append("(undo)")
        self.selected_block = None
        self.handover = False
        if state.current_player is not None and state.current_player not in self.agents:
            self.viewer = state.current_player
        self.refresh()
        return True

    def save(self, path: str | Path) -> str:
        from tower.games import save_record

        save_record(self.state, path, self.seats)
        self.message = f"saved to {path}"
        return self.message

    # --- what-if (The Climbers) ----------------------------------------------------------------------------
    def whatif_frames(self, block_id: str, seconds: float = 2.0) -> list[dict[str, Any]]:
        """PyBullet trajectory of the construction with `block_id` taken away (the state is not touched)."""
        from physics import judge_dynamics
        from tower.stability import build_boxes

        build = self.state.to_build().without({block_id})
        result = judge_dynamics(build_boxes(build), seconds=seconds, record_trajectory=True)
        self.message = (f"without {block_id}: " + ("COLLAPSES" if result.collapsed else "stands")
                        + (f" ({', '.join(result.moved[:5])} move)" if result.moved else ""))
        return result.trajectory or []

    # --- what the window shows -----------------------------------------------------------------------------
    def text_lines(self) -> list[str]:
        """Whose turn, the message, the menu of legal moves and the log (the window's right-hand text)."""
        st = self.state
        lines = []
        if st.is_over:
            lines.append(f"GAME OVER: {st.result()}"[:110])
        else:
            p = st.current_player
            lines.append(f"{self._name(p)} to move" + ("" if p not in self.agents else " (thinking...)"))
        if self.moves and self.human_to_move:
            lines.append(f"legal moves {self.index + 1}/{len(self.moves)}  (<-/-> or n/b, Enter)")
            lo = max(0, min(self.index - MENU_ROWS // 2, len(self.moves) - MENU_ROWS))
            for i in range(lo, min(lo + MENU_ROWS, len(self.moves))):
                lines.append(("> " if i == self.index else "  ") + str(self.moves[i])[:70])
        if self.message:
            lines.append(self.message)
        if self.log:
            lines.append("log:")
            lines += ["  " + entry[:70] for entry in self.log[-LOG_ROWS:]]
        return lines

    def scene(self):
        """The scene the window shows now (a blank hand-over screen hides private cards between people)."""
        from viewer.games import scene_for_view
        from viewer.scene import Scene

        if self.handover:
            return Scene(title=f"Hand over to player {self.viewer} - press Enter when ready",
                         lines=["(cards hidden)"])
        view = self.state.view(self.viewer)
        if self.state.name != "climbers":
            scene = scene_for_view(self.state.name, view)
            scene.menu = self.text_lines()
            return scene
        from tower.build import parse_build
        from viewer.scene import ghost_from_move

        build = parse_build(view["build"])
        move = self.current_move if self.human_to_move else None
        ghosts, targets = [], []
        if move is not None and move.kind == "block":
            ghosts = [ghost_from_move(move, build, selected=True)]
            if self.selected_block is not None:
                ghosts += [ghost_from_move(m, build) for m in self.moves if m is not move][:24]
        elif move is not None and move.kind == "fig":
            targets = [m.cell for m in self.moves if m.kind == "fig"]
        selected = self.selected_block or (move.block if move is not None and move.kind in ("block", "stone")
                                           else None)
        movable = self.movable_blocks() if self.selected_block is None else []
        scene = scene_for_view("climbers", view, selected=selected, movable=movable, ghosts=ghosts,
                               targets=targets)
        scene.menu = self.text_lines()
        return scene


def play_window(state: Any, seats: list[str]) -> int:
    """The interactive window (needs a display). Keys in docs/viewer.md; thin by design."""
    from viewer.render import SceneRenderer, require_display, set_block_poses
    from viewer.view import add_camera_keys

    require_display("the play window", "tower play GAME --text plays in the terminal")
    ctl = PlayController(state, seats)
    r = SceneRenderer(ctl.scene(), off_screen=False, window_size=(1280, 820))
    pl = r.plotter
    animation: dict[str, Any] = {"frames": [], "i": 0}

    def show() -> None:
        r.update(ctl.scene(), render=True)

    def act(fn, *args) -> None:
        fn(*args)
        show()

    def tick(*_: Any) -> None:
        if animation["frames"]:  # what-if playback, one trajectory frame per tick
            from physics.units import UNIT_M

            i = animation["i"]
            set_block_poses(r, animation["frames"][i]["poses"], UNIT_M)
            r.render()
            animation["i"] += 1
            if animation["i"] >= len(animation["frames"]):
                animation["frames"] = []
                show()  # restore: the game state was never changed
            return
        if ctl.ai_step():
            show()

    def whatif() -> None:
        if ctl.selected_block is None:
            ctl.message = "click a block first, then x for what-if"
            show()
            return
        block = ctl.selected_block
        frames = ctl.whatif_frames(block)
        scene = ctl.scene()
        scene.blocks = [b for b in scene.blocks if b.id != block]
        scene.ghosts, scene.markers = [], []
        scene.menu = [ctl.message]
        r.update(scene, render=True)
        animation.update(frames=frames, i=0)

    def click(*_: Any) -> None:
        x, y = pl.iren.interactor.GetEventPosition()
        act(ctl.click_block, r.pick_block(x, y))

    for key in ("Right", "n"):
        pl.add_key_event(key, lambda: act(ctl.cycle, 1))
    for key in ("Left", "b"):
        pl.add_key_event(key, lambda: act(ctl.cycle, -1))
    pl.add_key_event("Return", lambda: act(ctl.confirm))
    pl.add_key_event("Escape", lambda: act(ctl.deselect))
    pl.add_key_event("u", lambda: act(ctl.undo))
    pl.add_key_event("k", lambda: act(ctl.save, f"tower-{state.name}-save.json"))
    pl.add_key_event("x", whatif)
    add_camera_keys(r)
    pl.iren.add_observer("LeftButtonPressEvent", click)
    pl.add_timer_event(max_steps=10**9, duration=60, callback=tick)
    pl.show(title=f"tower-sim: {state.name}")
    return 0

"""What each player of an In 7th Heaven game sees: the public view, a player's view (with the own hand), the text
of the outcome and the terminal description of a position.

`SeventhHeavenViews` is a base class of `SeventhHeavenState` (state.py); its methods read the state's fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardgames.seventh_heaven.board import COLOURS, START
from cardgames.seventh_heaven.cards import KIND_NAME
from cardgames.seventh_heaven.moves import DISCARD, OVER, SWAP

if TYPE_CHECKING:
    from cardgames.seventh_heaven.board import Board
    from tower.games.base import Move


class SeventhHeavenViews:
    """The views and texts of `SeventhHeavenState`."""

    if TYPE_CHECKING:  # the state's fields these read
        name: str
        num_players: int
        length: int
        board: Board
        pos: list[int]
        holder: list[int]
        ncol: int
        hands: list[list[int]]
        deck: list[int]
        discard: list[int]
        phase: str
        turn: int
        swap_space: int
        discard_queue: list[int]
        discard_left: int
        refilling: bool
        arrivals: list[list[int]]
        placed: list[list[int]]
        opening: bool
        exchanges: list[tuple[int, int, int, int]]
        history: list[Move]
        pairs: bool
        complete: list[int]

        @property
        def current_player(self) -> int | None: ...
        def player_label(self, player: int) -> str: ...
        def result(self) -> dict[str, Any]: ...

    # --- views --------------------------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        """Pawns, partner cards (face up), the discard pile and every exchange of partner cards are public; hands
        and the deck are not (only their sizes)."""
        out: dict[str, Any] = {
            "game": self.name,
            "players": self.num_players,
            "labels": [self.player_label(p) for p in range(self.num_players)],
            "track_length": self.length,
            "specials": {"jumps": {str(space): to for space, to in sorted(self.board.jumps.items())},
                         "must_swap": sorted(self.board.must_swap), "may_swap": sorted(self.board.may_swap)},
            "pawns": {COLOURS[c]: self.pos[c] for c in range(self.ncol)},
            "partners": {COLOURS[c]: (self.holder[c] if self.holder[c] >= 0 else None) for c in range(self.ncol)},
            "hand_sizes": [len(h) for h in self.hands],
            "deck": len(self.deck),
            "discard": [KIND_NAME[k] for k in self.discard],
            "phase": self.phase,
            "turn": self.turn,
            "current_player": self.current_player,
            "swap_space": self.swap_space,
            "discard_queue": list(self.discard_queue),
            "discard_left": self.discard_left,
            "refilling": self.refilling,
            "arrivals": [[COLOURS[c] for c in g] for g in self.arrivals],
            "placed": [list(g) for g in self.placed],
            "opening": self.opening,
            "exchanges": [{"by": by, "took": COLOURS[take], "gave": COLOURS[give],
                           "from": None if held < 0 else held} for by, take, give, held in self.exchanges],
            "last_move": str(self.history[-1]) if self.history else None,
        }
        if self.phase == OVER:
            out["result"] = self.result()
        return out

    def view(self, player: int) -> dict[str, Any]:
        """The public view plus `player`'s own hand."""
        return {**self.public_view(), "you": player, "hand": sorted(KIND_NAME[k] for k in self.hands[player])}

    def outcome_text(self) -> str:
        """Who won and why: "P1 wins: the blue partner reached 7th Heaven first; places: 1. P1, 2. P3 and P0"."""
        r = self.result()
        names = " and ".join(self.player_label(p) for p in r["winners"])
        if self.pairs and self.complete:
            why = "both partners reached 7th Heaven first"
        elif r["reason"] != "cards-out" or (self.placed and r["winners"] == self.placed[0]):
            why = f"the {' and '.join(r['arrivals'][0])} partner reached 7th Heaven first" if r["arrivals"] else ""
        else:
            why = "the cards ran out; nearest partner to 7th Heaven"
        places = ", ".join(f"{i}. " + " and ".join(self.player_label(p) for p in group)
                           for i, group in enumerate(r["places"], 1))
        verb = "wins" if len(r["winners"]) == 1 else "share the win"
        return f"{names} {verb}: {why}; places: {places}"

    def describe(self, player: int) -> str:
        v = self.view(player)
        length = v["track_length"]
        label = self.player_label
        lines = [f"In 7th Heaven - you are {label(player)}" + (f", last move: {v['last_move']}" if v["last_move"] else "")]
        lines.append(f"track: Garden Party 0 ... 7th Heaven {length}; {self.board.special_text()}")
        by_space: dict[int, list[str]] = {}
        for colour, space in v["pawns"].items():
            by_space.setdefault(space, []).append(colour)
        for space in sorted(by_space, reverse=True):
            name = "7th Heaven" if space >= length else ("Garden Party" if space == START else f"space {space}")
            owners = []
            for colour in by_space[space]:
                h = v["partners"][colour]
                owners.append(f"{colour}({'you' if h == player else 'beside board' if h is None else label(h)})")
            lines.append(f"  {name:>12}: {', '.join(owners)}")
        mine = [c for c, h in v["partners"].items() if h == player]
        lines.append(f"your partner card{'s' if len(mine) > 1 else ''}: {' and '.join(mine) or 'none'} - you win "
                     f"by bringing {'these pawns' if len(mine) > 1 else 'this pawn'} to 7th Heaven, whoever moves it")
        note = self._exchange_note(player, v["exchanges"])
        if note:
            lines.append(note)
        lines.append("hands: " + ", ".join(f"{label(i)}={n}" for i, n in enumerate(v["hand_sizes"]))
                     + f"; deck {v['deck']}")
        lines.append("your hand: " + (" ".join(v["hand"]) or "(empty)"))
        if v["discard"]:
            lines.append("discard pile (top last): " + " ".join(v["discard"][-8:]))
        if v["phase"] == OVER:
            lines.append("game over: " + self.outcome_text())
        elif v["phase"] == SWAP:
            lines.append(f"{label(v['turn'])} landed on space {v['swap_space']}: 'swap <colour>'"
                         + (" or 'keep'" if v["swap_space"] in self.board.may_swap else ""))
        elif v["phase"] == DISCARD:
            lines.append(f"three cards: {label(v['current_player'])} discards {v['discard_left']} more "
                         "('discard <card>')")
        elif v["opening"]:
            lines.append(f"{label(v['turn'])} opens the game: the first card must move a partner forward with a "
                         "+1..+5 card (coloured or white), unless the hand holds none")
        else:
            lines.append(f"{label(v['turn'])} to play a card")
        return "\n".join(lines)

    def _exchange_note(self, player: int, exchanges: list[dict[str, Any]]) -> str:
        """Why `player`'s partner colour last changed, from the public exchange log ("" if it never did)."""
        label = self.player_label
        for e in reversed(exchanges):
            if e["by"] == player:
                whom = "from beside the board" if e["from"] is None else f"from {label(e['from'])}"
                return f"your colour changed: you took the {e['took']} partner card {whom} and gave {e['gave']}"
            if e["from"] == player:
                return (f"your colour changed: {label(e['by'])} took your {e['took']} partner card and gave you "
                        f"{e['gave']} in return")
        return ""

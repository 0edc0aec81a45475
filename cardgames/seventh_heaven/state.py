"""A game of In 7th Heaven, in the rule text's order: set-up (partner cards face up, twelve sympathy cards each),
the opening play, a turn (a card moves a pawn or exchanges a partner card), the special spaces, 7th Heaven and the
next places, the end when the cards run out, the 2-3 player rules and the eight text cards; then the result and
saving.

The board is in board.py, the cards in cards.py, the move texts in moves.py, the AI players' hooks in search.py,
what each player sees (views and texts) in views.py.
Rulings where the texts are silent are listed in docs/seventh-heaven.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Self

from cardgames.seventh_heaven.board import (
    COLOUR_INDEX,
    COLOURS,
    MIN_TRACK,
    PAIR_PLAYERS,
    SPECIALS,
    START,
    TRACK_LENGTH,
    make_board,
)
from cardgames.seventh_heaven.cards import (
    ARROW_COPIES,
    BACKWARD_COPIES,
    CARDS3,
    CLOUD,
    CLOUD_STEPS,
    FINGER,
    FOOT,
    FOOT_MAX,
    FORWARD,
    FORWARD_COPIES,
    HAND_SIZE,
    HEART,
    KIND,
    KIND_COLOUR,
    KIND_NAME,
    KIND_TYPE,
    KIND_VALUE,
    MUSHROOM,
    MUSHROOM_MAX,
    NUM,
    PEPPER,
    PEPPER_STEPS,
    SNAIL,
    SNAIL_STEPS,
    TEXT,
    THREE_CARDS,
    WHITE,
    WHITE_SETS,
    build_deck,
)
from cardgames.seventh_heaven.moves import (
    DISCARD,
    DISCARD_CARD,
    FINGER_BARE,
    FINGER_ON,
    FOOT_BARE,
    FOOT_ON,
    HEART_BARE,
    HEART_ON,
    MUSHROOM_TAKE,
    OVER,
    PLAY,
    PLAY_CARD,
    PLAY_ON,
    SWAP,
    TEXT_KEY,
    TRADE_CARD,
    TRADE_GIVE,
    SeventhHeavenMove,
    move_words,
    mv,
)
from cardgames.seventh_heaven.search import SeventhHeavenSearch
from cardgames.seventh_heaven.views import SeventhHeavenViews
from tower.games.base import GameState, Move
from tower.games.errors import BadInput, IllegalMove


class SeventhHeavenState(SeventhHeavenViews, SeventhHeavenSearch, GameState):
    """The state of one game of In 7th Heaven."""

    name: ClassVar[str] = "seventh-heaven"
    title: ClassVar[str] = "In 7th Heaven"
    credit: ClassVar[str] = "Wolfgang Kramer, FX Schmid 1989"
    layout: ClassVar[str] = "heaven-track"
    encoding: ClassVar[str | None] = "cardgames.seventh_heaven.encoding"
    move_type: ClassVar[type[Move]] = SeventhHeavenMove
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    default_players: ClassVar[int] = 4
    max_game_length: ClassVar[int] = 400  # every play or discard uses up one of the 99 cards; swaps follow plays
    # the search player's settings, measured against greedy (docs/seventh-heaven.md): with the generic c = 0.7
    # at 200 iterations it won 50.8 %, with these 62.9 % (n = 240)
    search_exploration: ClassVar[float] = 1.0
    search_iterations: ClassVar[int] = 600
    # the levels people choose by name: iteration caps at what 0.1 s and 1 s allow on one core (docs/ai.md)
    ai_levels: ClassVar[dict[str, str]] = {"easy": "greedy", "normal": "mcts:time=0.1,iters=380",
                                           "strong": "mcts:time=1,iters=3800"}
    default_options: ClassVar[dict[str, Any]] = {
        "track_length": TRACK_LENGTH,
        "colours": len(COLOURS),
        "forward_copies": FORWARD_COPIES,
        "backward_copies": BACKWARD_COPIES,
        "white_sets": WHITE_SETS,
        "arrow_copies": ARROW_COPIES,
        "text_cards": True,
        "hand_size": HAND_SIZE,
        "play_for_places": True,
        "specials": SPECIALS,
    }
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "track_length": tuple(range(MIN_TRACK, 41)),
        "colours": (4, 5, 6),
        "forward_copies": (1, 2, 3, 4),
        "backward_copies": (0, 1, 2),
        "white_sets": (0, 1, 2),
        "arrow_copies": (0, 1, 2),
        "hand_size": tuple(range(4, 21)),
    }
    option_help: ClassVar[dict[str, tuple[str, str]]] = {
        "track_length": ("Track length", "the space number of 7th Heaven (a shorter track gives a shorter game)"),
        "colours": ("Pawn colours", "how many pawns and partner colours are in play"),
        "forward_copies": ("Forward cards", "copies of each +1..+5 card per colour"),
        "backward_copies": ("Backward cards", "copies of each -1 and -2 card per colour"),
        "white_sets": ("White jokers", "sets of white cards, which move any pawn"),
        "arrow_copies": ("Arrows", "arrow cards per colour (move a pawn up to the next pawn ahead)"),
        "text_cards": ("Text cards", "include the cards that say what they do (heart, mushroom, snail, ...)"),
        "hand_size": ("Hand size", "cards each player holds in hand"),
        "play_for_places": ("Play for places", "with 4-6 players, play on for second place and after"),
        "specials": ("Special spaces", "what the special spaces do, as SPACE:EFFECT pairs (2:5 means from 2 on "
                                       "to 5; must/may swap partner cards)"),
    }
    how_to_play: ClassVar[str] = (
        "Goal: the pawn of the colour on your partner card reaches 7th Heaven first. Any player may move any "
        "pawn: what counts is whose partner card that pawn's colour is.\n\n"
        "Your turn: play one card. A coloured number moves the pawn of that colour; a white number moves the pawn "
        "you name; an arrow moves a pawn up to the next pawn ahead. Instead of moving, a coloured card can take the "
        "partner card of that colour (you hand over yours): a trade.\n\n"
        "Text cards do what they say (heart: take a partner card; mushroom: draw cards; snail, cloud: the first "
        "pawn back; pepper: the last pawn forward; foot, finger: forward).\n\n"
        "Special spaces: 2 leads on to 5, 6 to 9, 13 back to 10; ending on 4 you must swap partner cards, on 8 "
        "and 14 you may.")

    def move_words(self, move: Move) -> str:
        return move_words(move)  # type: ignore[arg-type]

    def prompt(self) -> str | None:
        """After landing on a swap space: what the swap asks (the moves alone say only which cards)."""
        if self.phase != SWAP:
            return None
        space = self.swap_space
        which = " and which of yours you give" if self.pairs else ""
        if "keep" not in {m.verb for m in self.legal_moves()}:  # type: ignore[attr-defined]
            return (f"Space {space}: you must swap partner cards. Choose another player's partner card to take"
                    f"{which}; they get yours.")
        return (f"Space {space}: you may swap partner cards. Choose another player's partner card to take{which}, "
                "or keep yours.")

    def __init__(self, players: int, seed: int | None = 0, options: dict[str, Any] | None = None) -> None:
        super().__init__(players, seed, options)
        o = self.options
        ncol = o["colours"]
        self.pairs = players <= PAIR_PLAYERS  # the 2-3 player rules: two partners each
        if ncol < players * (2 if self.pairs else 1):
            raise BadInput(f"{ncol} colours are too few partner cards for {players} players", "$.options.colours")
        self.board = make_board(o["track_length"], o["specials"])
        self.length = o["track_length"]
        self.ncol = ncol
        self.pos = [START] * ncol  # all partner pawns start at the Garden Party
        # partner cards, dealt face up: holder[colour] is a player, or -1 for a card lying beside the board
        order = list(range(ncol))
        self.rng.shuffle(order)
        self.holder = [-1] * ncol
        for i in range(players * (2 if self.pairs else 1)):
            self.holder[order[i]] = i % players
        deck = build_deck(o)
        self.rng.shuffle(deck)
        self.hands: list[list[int]] = []
        for _ in range(players):
            take = min(o["hand_size"], len(deck))
            self.hands.append(deck[len(deck) - take:])
            del deck[len(deck) - take:]
        self.deck = deck  # face down; the top card is the last
        self.discard: list[int] = []  # face up
        self.turn = 0  # the youngest player begins: seat 0
        #: no card played yet: the first play must move a partner forward with +1..+5 if the player can
        self.opening = True
        self.phase = PLAY
        self.swap_space = 0  # the special space that asks for a swap (SWAP phase)
        self.discard_queue: list[int] = []  # the three-cards card: players still to discard, first is acting
        self.discard_left = 0
        self.refilling = self.pairs  # 2-3 players refill to 12 until the first pawn reaches 7th Heaven
        self.arrivals: list[list[int]] = []  # colours reaching 7th Heaven, grouped by move, in order
        self.placed: list[list[int]] = []  # players reaching 7th Heaven (a first partner with 2-3 players)
        self.complete: list[int] = []  # 2-3 players: those with both partners in 7th Heaven
        self.end_reason = ""
        #: every exchange of partner cards, public: (taker, colour taken, colour given, previous holder or -1)
        self.exchanges: list[tuple[int, int, int, int]] = []
        # Search copies stop once the winner is known: the places after the first never change the winner.
        self.stop_at_winner = False
        self._legal: list[SeventhHeavenMove] | None = None

    # --- who is playing ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        if self.phase == OVER:
            return None
        if self.phase == DISCARD:
            return self.discard_queue[0]
        return self.turn

    def partners_of(self, player: int) -> list[int]:
        """Colours of the partner cards `player` holds."""
        return [c for c in range(self.ncol) if self.holder[c] == player]

    def finished(self, player: int) -> bool:
        """4-6 players: a player whose partner is in 7th Heaven takes no further part."""
        if self.pairs or not self.placed:
            return False
        return any(player in group for group in self.placed)

    def in_heaven(self, colour: int) -> bool:
        return self.pos[colour] >= self.length

    # --- legal moves --------------------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return list(legal)

    def _gives(self, player: int) -> list[str]:
        """What `player` may hand over in a swap: with 2-3 players he names it, else his one card."""
        if not self.pairs:
            return [""]
        return [COLOURS[c] for c in range(self.ncol) if self.holder[c] == player and self.pos[c] < self.length]

    def _takes(self, player: int) -> list[int]:
        """Partner cards `player` may take: not his own, not one whose pawn is in 7th Heaven."""
        return [c for c in range(self.ncol) if self.holder[c] != player and self.pos[c] < self.length]

    def _generate(self) -> list[SeventhHeavenMove]:
        if self.phase == OVER:
            return []
        p = self.current_player
        assert p is not None
        out: list[SeventhHeavenMove] = []
        if self.phase == DISCARD:
            out = [DISCARD_CARD[k] for k in set(self.hands[p])]
        elif self.phase == SWAP:
            gives = self._gives(p)
            out = [mv("swap", "", COLOURS[c], 0, g) for c in self._takes(p) for g in gives]
            if self.swap_space not in self.board.must_swap or not out:
                out.append(mv("keep"))
        else:
            out = (self.opening and self._opening_plays(p)) or self._plays(p)
        out.sort(key=TEXT_KEY)  # unique by construction: one entry per distinct card and choice
        return out

    def _opening_plays(self, p: int) -> list[SeventhHeavenMove]:
        """The first play of the game: a +1..+5 card, coloured or white, moving a partner forward ([] if the
        player holds none; then any card may open)."""
        out: list[SeventhHeavenMove] = []
        for k in set(self.hands[p]):
            if KIND_TYPE[k] == NUM and KIND_VALUE[k] in FORWARD:
                if KIND_COLOUR[k] == WHITE:
                    out.extend(PLAY_ON[k][c] for c in range(self.ncol) if self.pos[c] < self.length)
                else:
                    out.append(PLAY_CARD[k])
        return out

    def _plays(self, p: int) -> list[SeventhHeavenMove]:
        length, pos, holder, pairs = self.length, self.pos, self.holder, self.pairs
        live = [c for c, q in enumerate(pos) if q < length]
        mine = [c for c in live if holder[c] == p]  # with 2-3 players, the partner cards p may hand over
        out: list[SeventhHeavenMove] = []
        add = out.append
        for k in set(self.hands[p]):
            c = KIND_COLOUR[k]
            if c >= 0:  # a coloured number or arrow moves its pawn (a dead card once it is in 7th Heaven) ...
                add(PLAY_CARD[k])
                if pos[c] < length and holder[c] != p:  # ... or takes its partner card
                    if pairs:
                        out.extend([TRADE_GIVE[k][g + 1] for g in mine])
                    else:
                        add(TRADE_CARD[k])
            elif KIND_TYPE[k] != TEXT:  # a white joker moves any pawn not yet in 7th Heaven
                if live:
                    on = PLAY_ON[k]
                    out.extend([on[c2] for c2 in live])
                else:
                    add(PLAY_CARD[k])
            elif k == HEART:
                takes = [t for t in live if holder[t] != p]
                if takes and pairs and mine:
                    out.extend([HEART_ON[t][g + 1] for t in takes for g in mine])
                elif takes and not pairs:
                    out.extend([HEART_ON[t][0] for t in takes])
                else:
                    add(HEART_BARE)
            elif k == MUSHROOM:
                most = min(MUSHROOM_MAX, len(self.deck))
                out.extend(MUSHROOM_TAKE[1:most + 1] if most else MUSHROOM_TAKE[:1])  # an empty deck brings nothing
            elif k == FOOT:
                leaders = self._front()
                if leaders:
                    out.extend([FOOT_ON[c2][n] for c2 in leaders for n in range(1, FOOT_MAX + 1)])
                else:
                    add(FOOT_BARE)
            elif k == FINGER:
                if mine:
                    out.extend([FINGER_ON[c2] for c2 in mine])
                else:
                    add(FINGER_BARE)
            else:  # three cards, pepper pot, snail, cloud: no choice
                add(PLAY_CARD[k])
        return out

    def _front(self) -> list[int]:
        """The first partner pawns: nearest to 7th Heaven, not yet in it."""
        return self._extreme(max)

    def _back(self) -> list[int]:
        """The last partner pawns (those furthest from 7th Heaven)."""
        return self._extreme(min)

    def _extreme(self, pick: Callable[[list[int]], int]) -> list[int]:
        """The pawns not yet in 7th Heaven standing where `pick` (max or min) of their spaces is."""
        live = [self.pos[c] for c in range(self.ncol) if self.pos[c] < self.length]
        if not live:
            return []
        at = pick(live)
        return [c for c in range(self.ncol) if self.pos[c] == at]

    def _next_ahead(self, space: int) -> int | None:
        """The nearest space ahead of `space` holding a pawn; pawns in 7th Heaven no longer count."""
        ahead = [q for q in self.pos if space < q < self.length]
        return min(ahead) if ahead else None

    # --- why a move is illegal --------------------------------------------------------------------------
    def explain(self, move: Move) -> IllegalMove | None:
        if self.phase == OVER:
            return IllegalMove("game-over", "the game is over")
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        for m in legal:
            if m is move:  # one of the objects `legal_moves()` handed out (moves are made once each)
                return None
        if move in legal:  # an equal move, read from text
            return None
        return self._why(move)  # type: ignore[arg-type]

    def _why(self, m: SeventhHeavenMove) -> IllegalMove:
        p = self.current_player
        assert p is not None
        if self.phase == SWAP and m.verb not in ("swap", "keep"):
            return IllegalMove("special-space-swap", f"first settle the partner swap of space {self.swap_space}")
        if self.phase == DISCARD and m.verb != "discard":
            return IllegalMove("three-cards", f"player {p} must first discard for the three-cards card")
        if m.verb == "keep":
            if self.phase == SWAP:
                return IllegalMove("space-4-must-swap", "on space 4 you must swap your partner card")
            return IllegalMove("keep-only-after-special-space", "keep answers a swap offered by space 8 or 14")
        if m.verb == "swap" and self.phase != SWAP:
            return IllegalMove(
                "swap-needs-card", "swap only after landing on 4, 8 or 14; to exchange with a card use 'trade'"
            )
        if self.phase == PLAY and m.verb == "discard":
            return IllegalMove("discard-only-for-three-cards", "cards are discarded only for the three-cards card")
        if m.card and KIND[m.card] not in self.hands[p]:
            return IllegalMove("card-not-in-hand", f"{m.card} is not in your hand")
        if self.phase == PLAY and self.opening and self._opening_plays(p) and m in self._plays(p):
            return IllegalMove("opening-forward-card", "the first play of the game moves a partner forward with a "
                                                       "+1..+5 card (coloured or white) while you hold one")
        k = KIND.get(m.card, -1)
        colour = COLOUR_INDEX.get(m.colour, -1)
        if m.verb == "trade":
            if k < 0 or KIND_TYPE[k] == TEXT or KIND_COLOUR[k] == WHITE:
                return IllegalMove("exchange-needs-coloured-card", "only a coloured number or arrow exchanges a partner")
            if m.colour:
                return IllegalMove("exchange-takes-card-colour", "the partner card taken is the card's colour")
        if m.verb in ("trade", "swap") or k == HEART:
            take = KIND_COLOUR[k] if m.verb == "trade" else colour
            if take >= 0 and self.pos[take] >= self.length:
                return IllegalMove("seventh-heaven-is-final", "a partner in 7th Heaven can no longer be swapped")
            if take >= 0 and self.holder[take] == p:
                return IllegalMove("swap-for-another-partner", "you already hold that partner card")
            if self.pairs and not m.give:
                return IllegalMove("choose-card-to-give", "with 2-3 players name the card you give: 'give <colour>'")
            if not self.pairs and m.give:
                return IllegalMove("give-only-with-2-3-players", "with 4-6 players you give your one partner card")
            if m.give and m.give not in self._gives(p):
                return IllegalMove("give-own-partner", f"you cannot give {m.give}: not yours or already in 7th Heaven")
        if k >= 0 and KIND_TYPE[k] != TEXT:
            if KIND_COLOUR[k] == WHITE and m.verb == "play" and not m.colour:
                return IllegalMove("white-card-names-pawn", f"say which pawn {m.card} moves, e.g. 'play {m.card} red'")
            if KIND_COLOUR[k] != WHITE and m.colour and m.verb == "play":
                own = COLOURS[KIND_COLOUR[k]]
                return IllegalMove("coloured-card-moves-own-colour", f"{m.card} moves only the {own} pawn")
            if colour >= 0 and self.pos[colour] >= self.length:
                return IllegalMove("seventh-heaven-is-final", "a pawn in 7th Heaven no longer moves")
        if k == MUSHROOM:
            return IllegalMove("mushroom-takes-1-to-4", f"take 1-{min(MUSHROOM_MAX, len(self.deck))} cards")
        if k == FOOT:
            return IllegalMove("foot-moves-first-pawn", "the foot moves a first pawn forward 1-3 spaces")
        if k == FINGER:
            return IllegalMove("finger-moves-your-partner", "the finger moves your own partner pawn")
        if k == HEART:
            return IllegalMove("heart-takes-another-partner", "name the partner card you take")
        return IllegalMove("not-legal", f"{m} is not a legal move now")

    # --- applying moves ---------------------------------------------------------------------------------
    def _apply(self, move: Move) -> None:
        m: SeventhHeavenMove = move  # type: ignore[assignment]
        self._legal = None
        self.opening = False  # the first move of a game is always the opening play
        p = self.discard_queue[0] if self.phase == DISCARD else self.turn
        verb = m.verb
        if verb == "play" or verb == "trade":
            k = KIND[m.card]
            self.hands[p].remove(k)
            self.discard.append(k)
            if verb == "trade":
                self._swap(p, KIND_COLOUR[k], m.give)
            else:
                self._effect(p, k, m)
            if self.phase == PLAY:
                self._end_turn()
            return
        if verb == "discard":
            k = KIND[m.card]
            self.hands[p].remove(k)
            self.discard.append(k)
            self.discard_left -= 1
            if self.discard_left <= 0:
                self._draw(p, THREE_CARDS)
                self.discard_queue.pop(0)
                self._next_discarder()
            return
        # swap or keep, after landing on a swap space
        if verb == "swap":
            self._swap(p, COLOUR_INDEX[m.colour], m.give)
        self.phase = PLAY
        self.swap_space = 0
        self._end_turn()

    def _effect(self, p: int, k: int, m: SeventhHeavenMove) -> None:
        """Carry out a played sympathy card."""
        kind_type = KIND_TYPE[k]
        pos, length = self.pos, self.length
        if kind_type != TEXT:
            c = KIND_COLOUR[k]
            if c == WHITE:
                c = COLOUR_INDEX.get(m.colour, -1)
            if c < 0 or pos[c] >= length:
                return  # a card for a pawn in 7th Heaven has no significance
            if kind_type == NUM:
                self._move((c,), pos[c] + KIND_VALUE[k])
            else:
                target = self._next_ahead(pos[c])
                if target is not None:
                    self._move([c], target)
        elif k == HEART:
            if m.colour:
                self._swap(p, COLOUR_INDEX[m.colour], m.give)
        elif k == MUSHROOM:
            self._draw(p, m.n)
        elif k == CARDS3:
            self.discard_queue = [q for q in (*range(p, self.num_players), *range(p)) if not self.finished(q)]
            self._next_discarder()
        elif k == PEPPER:
            back = self._back()
            if back:
                self._move(back, pos[back[0]] + PEPPER_STEPS)
        elif k == SNAIL or k == CLOUD:
            front = self._front()
            if front:
                self._move(front, pos[front[0]] - (SNAIL_STEPS if k == SNAIL else CLOUD_STEPS))
        elif k == FOOT:
            if m.colour:
                c = COLOUR_INDEX[m.colour]
                self._move([c], pos[c] + m.n)
        elif k == FINGER and m.colour:
            c = COLOUR_INDEX[m.colour]
            company = any(pos[o] == pos[c] for o in range(self.ncol) if o != c)
            target = None if company else self._next_ahead(pos[c])
            if target is not None:
                self._move([c], target)

    def _move(self, colours: Sequence[int], target: int) -> None:
        """Move pawns (all on one space) to `target`, then carry out the space they land on."""
        pos, length, board = self.pos, self.length, self.board
        # never behind the start; surplus points are lost
        target = length if target > length else START if target < START else target
        if target == pos[colours[0]]:
            return
        for c in colours:
            pos[c] = target
        if target >= length:
            self._arrive(colours)
        elif target in board.jumps:
            for c in colours:
                pos[c] = board.jumps[target]  # moves made by a special space trigger nothing further
        elif target in board.must_swap or target in board.may_swap:
            p = self.turn
            if self._takes(p) and self._gives(p):
                self.phase = SWAP
                self.swap_space = target

    def _arrive(self, colours: Sequence[int]) -> None:
        """Pawns reach 7th Heaven: their card holders are placed (who moved them does not matter)."""
        self.arrivals.append(list(colours))
        group: list[int] = []
        for c in colours:
            h = self.holder[c]
            if h < 0:
                continue
            already = any(h in g for g in self.placed)
            if not already and h not in group:
                group.append(h)
            if self.pairs and all(self.pos[o] >= self.length for o in self.partners_of(h)):
                if h not in self.complete:
                    self.complete.append(h)
        if group:
            self.placed.append(group)

    def _swap(self, p: int, take: int, give: str) -> None:
        """`p` takes partner card `take` and hands his own (or the named one) to its holder."""
        if self.pairs:
            mine = COLOUR_INDEX[give]
        else:
            mine = self.holder.index(p)  # his one partner card
        self.exchanges.append((p, take, mine, self.holder[take]))
        self.holder[mine] = self.holder[take]
        self.holder[take] = p

    def _draw(self, p: int, n: int) -> None:
        n = min(n, len(self.deck))
        if n > 0:
            self.hands[p].extend(self.deck[-n:])
            del self.deck[-n:]

    def _next_discarder(self) -> None:
        """Three cards: the next player discards 3 (all if fewer) and draws 3; empty hands just draw."""
        while self.discard_queue:
            q = self.discard_queue[0]
            self.discard_left = min(THREE_CARDS, len(self.hands[q]))
            if self.discard_left > 0:
                self.phase = DISCARD
                return
            self._draw(q, THREE_CARDS)
            self.discard_queue.pop(0)
        self.phase = PLAY
        self._end_turn()

    def _end_turn(self) -> None:
        p = self.turn
        if self.refilling:
            self._draw(p, self.options["hand_size"] - len(self.hands[p]))
            if self.arrivals:
                self.refilling = False  # the first arrival's turn was the last refill
        if self._decided():
            self.phase = OVER
            self.end_reason = "seventh-heaven"
            return
        n, hands = self.num_players, self.hands
        for step in range(1, n + 1):
            q = (p + step) % n
            if hands[q] and not self.finished(q):
                self.turn = q
                return
        self.phase = OVER  # nobody can play any more: the last sympathy card has been played
        self.end_reason = "cards-out"

    def _decided(self) -> bool:
        if not self.placed:
            return False  # nobody has a partner in 7th Heaven yet
        if self.pairs:
            return bool(self.complete)
        if self.stop_at_winner or not self.options["play_for_places"]:
            return True
        unplaced = self.num_players - sum(len(g) for g in self.placed)
        return unplaced <= 1

    # --- the result ---------------------------------------------------------------------------------------
    def _rank_key(self, p: int) -> tuple[int, int, int]:
        """Smaller is better: both partners in (2-3 players), order of reaching 7th Heaven, nearest pawn."""
        done = 0 if p in self.complete else 1
        for order, group in enumerate(self.placed):
            if p in group:
                return (done, order, 0)  # placed players are ordered by arrival alone
        near = max([q for q, h in zip(self.pos, self.holder, strict=True) if h == p], default=-1)
        return (done, len(self.placed) + 1, -near)

    def win_shares(self) -> list[float]:
        """The winners of `result()` share the win, worked out without the rest of the result (the search reads
        this after every playout)."""
        keys = [self._rank_key(p) for p in range(self.num_players)]
        best = min(keys)
        share = 1.0 / keys.count(best)
        return [share if key == best else 0.0 for key in keys]

    def result(self) -> dict[str, Any]:
        keys = [self._rank_key(p) for p in range(self.num_players)]
        best = min(keys)
        winners = [p for p in range(self.num_players) if keys[p] == best]
        scores = [sum(1 for q in keys if q > keys[p]) for p in range(self.num_players)]
        places: list[list[int]] = []
        for key in sorted(set(keys)):
            places.append([p for p in range(self.num_players) if keys[p] == key])
        return {
            "winners": winners,
            "scores": scores,
            "places": places,
            "reason": self.end_reason,
            "arrivals": [[COLOURS[c] for c in g] for g in self.arrivals],
        }

    # --- copies and saving --------------------------------------------------------------------------------
    def clone(self) -> Self:
        new = self._copy()
        new.rng = random.Random.__new__(random.Random)  # not seeded: its state is set at once
        new.rng.setstate(self.rng.getstate())
        return new

    def _copy(self) -> Self:
        """A copy that still shares the random generator (`clone` gives it its own; re-dealt copies a new one)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.pos = self.pos[:]
        new.holder = self.holder[:]
        new.hands = [h[:] for h in self.hands]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.discard_queue = self.discard_queue[:]
        new.arrivals = [g[:] for g in self.arrivals]
        new.placed = [g[:] for g in self.placed]
        new.complete = self.complete[:]
        new.exchanges = self.exchanges[:]
        new.history = self.history[:]
        new.options = dict(self.options)
        new._legal = None
        return new

    def to_json(self) -> dict[str, Any]:
        data = self.base_json()
        data.update(
            pos=list(self.pos),
            holder=list(self.holder),
            hands=[[KIND_NAME[k] for k in h] for h in self.hands],
            deck=[KIND_NAME[k] for k in self.deck],
            discard=[KIND_NAME[k] for k in self.discard],
            turn=self.turn,
            phase=self.phase,
            swap_space=self.swap_space,
            discard_queue=list(self.discard_queue),
            discard_left=self.discard_left,
            refilling=self.refilling,
            arrivals=[list(g) for g in self.arrivals],
            placed=[list(g) for g in self.placed],
            complete=list(self.complete),
            end_reason=self.end_reason,
            opening=self.opening,
            exchanges=[list(e) for e in self.exchanges],
        )
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        try:
            state = cls(data["players"], data["seed"], data["options"])
            state.load_base_json(data)
            state.pos = [int(x) for x in data["pos"]]
            state.holder = [int(x) for x in data["holder"]]
            state.hands = [[KIND[name] for name in h] for h in data["hands"]]
            state.deck = [KIND[name] for name in data["deck"]]
            state.discard = [KIND[name] for name in data["discard"]]
            state.turn = int(data["turn"])
            state.phase = str(data["phase"])
            state.swap_space = int(data["swap_space"])
            state.discard_queue = [int(x) for x in data["discard_queue"]]
            state.discard_left = int(data["discard_left"])
            state.refilling = bool(data["refilling"])
            state.arrivals = [list(g) for g in data["arrivals"]]
            state.placed = [list(g) for g in data["placed"]]
            state.complete = list(data["complete"])
            state.end_reason = str(data["end_reason"])
            state.opening = bool(data.get("opening", not state.history))
            state.exchanges = [(int(a), int(b), int(c), int(d)) for a, b, c, d in data.get("exchanges", [])]
        except (KeyError, TypeError, ValueError) as exc:
            raise BadInput(f"not a {cls.name} state: {exc}") from None
        state._legal = None
        return state

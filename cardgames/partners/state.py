"""A game of Partners, in the rule text's order: set-up, the deal and the partner exchange, turns (a card played, or
the hand thrown away when none can be used), the winning team; then what each player sees and saving.

The board and how pawns walk are in track.py, the cards in cards.py, move texts and move generation in moves.py,
the AI players' hooks in search.py. Rulings where the text is silent are documented in docs/partners.md.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Self

from cardgames.partners.cards import CARD_NAMES, CARD_ORDER, DEALS_PER_DEALER, HAND_SIZE, parse_deck, unique
from cardgames.partners.moves import DISCARD, PartnersMove, card_plays, exchange_moves, move_words, play_card
from cardgames.partners.search import PartnersSearch
from cardgames.partners.track import BASE, COLOURS, PAWNS_PER_PLAYER, SECTION, Track, pawn_name
from tower.games.base import GameState, Move
from tower.games.errors import BadInput, IllegalMove

#: moves shown in the public log
_LOG = 12


class PartnersState(PartnersSearch, GameState):
    """A game of Partners: 4 players (or the 6-player edition) in teams of two sitting opposite."""

    name: ClassVar[str] = "partners"
    title: ClassVar[str] = "Partners"
    credit: ClassVar[str] = "Thomas Bisgaard (Denmark)"
    layout: ClassVar[str] = "partners-track"
    encoding: ClassVar[str | None] = "cardgames.partners.encoding"
    move_type = PartnersMove
    min_players = 4
    max_players = 6
    player_counts = (4, 6)  # teams of two sitting opposite; 6 is the six-player edition
    default_players = 4
    max_game_length = 20_000
    default_options: ClassVar[dict[str, Any]] = {"deck": "standard", "home_stack": True, "move_limit": 6000}
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {}
    option_help: ClassVar[dict[str, tuple[str, str]]] = {
        "deck": ("Deck", "standard (110 cards), or your own mix written like heart=6,7=12,switch=4"),
        "home_stack": ("Pawns share the home", "two pawns of one player may stand on their home space together"),
        "move_limit": ("Move limit", "the game stops as a draw after this many cards played (a safety stop; a "
                                     "small number gives a short game)"),
    }
    how_to_play: ClassVar[str] = (
        "Goal: you and your partner (the player opposite) bring all eight of your pawns into your finish zones "
        "before the other team.\n\n"
        "Each deal gives everyone four cards; partners first hand each other one card. Then, in turn, you play one "
        "card and move by it. A heart (or an 8 or 13) brings a pawn out of your base onto your home space. Numbers "
        "move a pawn that many spaces forward; -4 moves it back; a 7 may be split over several pawns; switch swaps "
        "two pawns anywhere.\n\n"
        "Landing on a pawn sends it back to its base, whoever it belongs to. A pawn sitting on its own home is a "
        "wall nobody passes. After one round of the board a pawn turns into its finish zone.\n\n"
        "If no card of yours can be used, you throw your hand away and wait for the next deal. Once your four pawns "
        "are home you move your partner's.")

    def move_words(self, move: Move) -> str:
        return move_words(move)

    # --- set-up -------------------------------------------------------------------------------------------------
    def __init__(self, players: int = 4, seed: int | None = 0, options: dict[str, Any] | None = None) -> None:
        super().__init__(players, seed, options)
        if players % 2:
            raise BadInput("partners needs teams of two sitting opposite: 4 or 6 players", "$.players")
        self.deck_counts = parse_deck(self.options["deck"])
        if sum(self.deck_counts.values()) < HAND_SIZE * players + 1:
            raise BadInput("the deck is too small to deal", "$.options.deck")
        if not 1 <= self.options["move_limit"] <= self.max_game_length:
            raise BadInput(f"move_limit must be 1..{self.max_game_length}", "$.options.move_limit")
        n = players
        self.move_limit = self.options["move_limit"]
        self.board = Track(n, self.options["home_stack"])
        self.loc: list[int] = [BASE] * (PAWNS_PER_PLAYER * n)
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.deck: list[str] = [c for c in CARD_ORDER for _ in range(self.deck_counts[c])]
        self.discard: list[str] = []
        self.gives: list[str | None] = [None] * n  # cards chosen for the exchange, not yet swapped
        self.gave: list[str | None] = [None] * n  # what each player gave this deal (he and his partner know)
        self.received: list[str | None] = [None] * n
        #: the card a player knows his partner still holds (the one he gave, until a card of that kind is played)
        self.known: list[str | None] = [None] * n
        self.dealer = n - 1  # so seat 0 (yellow) starts the first deal
        self.deals_left = DEALS_PER_DEALER
        self.phase = "exchange"
        self.turn = 0
        self.winner_team: int | None = None
        self.moves_played = 0
        #: who made the last moves of `history` (public: the log names the players)
        self.movers: list[int] = []
        self._legal: list[PartnersMove] | None = None
        self.rng.shuffle(self.deck)
        self._deal()

    # the seats and the board, for people and tests reading a position
    def partner(self, player: int) -> int:
        return self.board.partner(player)

    def team_of(self, player: int) -> int:
        return self.board.team_of(player)

    def teams(self) -> list[list[int]]:
        return self.board.teams()

    def in_finish(self, where: int) -> bool:
        return where >= self.board.fin

    def all_home(self, seat: int) -> bool:
        return self.board.all_home(seat, self.loc)

    def controlled(self, player: int) -> int:
        """Whose pawns `player` moves: his own, or his partner's once all his are in the finish."""
        return self.board.controlled_in(player, self.loc)

    # --- the deal and the exchange --------------------------------------------------------------------------
    def _deal(self) -> None:
        """Deal four cards each; a dealer deals three times, then the next one shuffles everything."""
        n = self.num_players
        if self.deals_left == 0:
            self.dealer = (self.dealer + 1) % n
            self.deals_left = DEALS_PER_DEALER
            self.deck.extend(self.discard)
            self.discard.clear()
            self.rng.shuffle(self.deck)
        if len(self.deck) < HAND_SIZE * n:  # only with a small custom deck
            self.deck.extend(self.discard)
            self.discard.clear()
            self.rng.shuffle(self.deck)
        self.deals_left -= 1
        for _ in range(HAND_SIZE):
            for k in range(1, n + 1):
                self.hands[(self.dealer + k) % n].append(self.deck.pop())
        for hand in self.hands:
            hand.sort(key=CARD_ORDER.index)
        self.gives = [None] * n
        self.gave = [None] * n
        self.received = [None] * n
        self.known = [None] * n
        self.phase = "exchange"
        self.turn = (self.dealer + 1) % n

    def _swap(self) -> None:
        """Both teams swap at once, face down."""
        for p in range(self.num_players):
            card = self.gives[self.partner(p)]
            assert card is not None
            self.hands[p].append(card)
            self.hands[p].sort(key=CARD_ORDER.index)
            self.received[p] = card
            self.gave[p] = self.known[p] = self.gives[p]
        self.gives = [None] * self.num_players
        self.phase = "play"
        self.turn = (self.dealer + 1) % self.num_players

    # --- turns ----------------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.phase == "over" else self.turn

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def legal_moves(self) -> list[PartnersMove]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return list(legal)

    def _generate(self) -> list[PartnersMove]:
        """The legal moves, built in sort order: by card, then action, pawns, steps."""
        if self.phase == "over":
            return []
        cards = unique(self.hands[self.turn])
        if self.phase == "exchange":
            return exchange_moves(cards)
        return card_plays(self.board, self.loc, cards, self.turn)

    def explain(self, move: Move) -> IllegalMove | None:
        """Why `move` is illegal now, naming the rule (None if it is legal)."""
        legal = self._legal
        if legal is not None:
            for m in legal:
                if m is move:  # one of the objects `legal_moves()` handed out for this very position
                    return None
        if self.phase == "over":
            return IllegalMove("game-over", "the game is over")
        if not isinstance(move, PartnersMove):
            return IllegalMove("wrong-game", f"{move!r} is not a partners move")
        p = self.turn
        hand = self.hands[p]
        if self.phase == "exchange":
            if move.action != "give":
                return IllegalMove("exchange", "first every player gives his partner one card, face down")
            if move.card not in hand:
                return IllegalMove("not-in-hand", f"you hold no {CARD_NAMES.get(move.card, move.card)}")
            return None
        if move.action == "give":
            return IllegalMove("exchange", "the exchange is over for this deal; play a card")
        if move.action == "discard":
            if self.legal_moves() != [DISCARD]:
                return IllegalMove("must-play", "you can use a card, so you must play one")
            return None
        if move.card not in hand:
            return IllegalMove("not-in-hand", f"you hold no {CARD_NAMES.get(move.card, move.card)}")
        err = play_card(self.board, p, move, self.loc[:])
        return None if err is None else IllegalMove(*err)

    def _apply(self, move: Move) -> None:
        p = self.turn
        n = self.num_players
        self._legal = None
        movers = self.movers
        movers.append(p)
        if len(movers) > 2 * _LOG:
            del movers[:_LOG]  # the log shows the last moves only
        action = move.action  # type: ignore[attr-defined]
        if action == "give":
            self.hands[p].remove(move.card)  # type: ignore[attr-defined]
            self.gives[p] = move.card  # type: ignore[attr-defined]
            for k in range(1, n + 1):
                q = (p + k) % n
                if self.gives[q] is None:
                    self.turn = q
                    break
            else:
                self._swap()
            return
        self.moves_played += 1
        mate = (p + n // 2) % n
        loc = self.loc
        hand = self.hands[p]
        if action == "discard":
            self.discard.extend(hand)
            if self.known[mate] in hand:
                self.known[mate] = None  # the partner's card has left the hand
            hand.clear()
        else:
            card = move.card  # type: ignore[attr-defined]
            hand.remove(card)
            self.discard.append(card)
            if self.known[mate] == card:
                self.known[mate] = None  # maybe his card, maybe another copy: the partner can't be sure
            board = self.board
            if action == "step":  # already checked by explain: just walk
                home = board.walk(loc, move.pawns[0], move.steps[0], True) >= board.fin  # type: ignore[attr-defined]
            else:
                assert isinstance(move, PartnersMove)
                err = play_card(board, p, move, loc)
                assert err is None, err
                # a switch never touches a finish zone; the pawns a 7 moved may have come home
                home = action == "seven" and max(loc[q] for q in move.pawns) >= board.fin
            # only the player's team can have brought pawns home, and only if the card moved one into a finish zone
            if home and board.all_home(p, loc) and board.all_home(mate, loc):
                self.winner_team = p % (n // 2)
                self.phase = "over"
                return
        if self.moves_played >= self.move_limit:
            self.phase = "over"  # a draw: the table gave up (never seen in ordinary play)
            return
        hands = self.hands
        q = p + 1 if p + 1 < n else 0
        while q != p:
            if hands[q]:
                self.turn = q
                return
            q = q + 1 if q + 1 < n else 0
        if hand:
            return  # only the player himself still holds cards: he plays on
        self._deal()

    # --- the winner -----------------------------------------------------------------------------------------
    def result(self) -> dict[str, Any]:
        teams = self.teams()
        home = [sum(1 for pawn in range(PAWNS_PER_PLAYER * s, PAWNS_PER_PLAYER * (s + 1))
                    if self.in_finish(self.loc[pawn])) for s in range(self.num_players)]
        team_home = [home[a] + home[b] for a, b in teams]
        winners = [] if self.winner_team is None else list(teams[self.winner_team])
        return {
            "winners": winners,
            "scores": [team_home[self.team_of(p)] for p in range(self.num_players)],
            "teams": teams,
            "winning_team": self.winner_team,
            "pawns_home": home,
            "moves": self.moves_played,
        }

    def win_shares(self) -> list[float]:
        """A team's win is each partner's whole win (a draw at the move limit wins nobody anything)."""
        winners = self.result()["winners"]
        return [1.0 if p in winners else 0.0 for p in range(self.num_players)]

    # --- what a player sees ---------------------------------------------------------------------------------
    def where_text(self, where: int) -> str:
        """A location as people say it: base, space 1..64 (yellow's first space is 1), home-r, finish-y1."""
        return self.board.where_text(where)

    def player_label(self, player: int) -> str:
        """The seat and its colour, e.g. "P1 red"."""
        return f"P{player} {COLOURS[player]}"

    def public_move(self, move: Move, player: int) -> str:
        """A card given in the exchange is face down: the others learn only that one was given."""
        assert isinstance(move, PartnersMove)
        if move.action == "give":
            return f"{self.player_label(player)} passed a card to the partner"
        return str(move)

    def public_view(self) -> dict[str, Any]:
        """What everybody sees: the pawns, the cards played, hand sizes, who has given in the exchange (never
        which card), whose turn it is and the recent moves as told to all."""
        recent = min(_LOG, len(self.movers))  # a state saved before `movers` existed has none
        log = [self.public_move(m, p) if m.action == "give" else f"{self.player_label(p)}: {m}"  # type: ignore[attr-defined]
               for m, p in zip(self.history[len(self.history) - recent:], self.movers[-recent:], strict=True)]
        return {
            "game": self.name,
            "players": self.num_players,
            "colours": [COLOURS[s] for s in range(self.num_players)],
            "labels": [self.player_label(s) for s in range(self.num_players)],
            "teams": self.teams(),
            "phase": self.phase,
            "current_player": self.current_player,
            "dealer": self.dealer,
            "deals_left": self.deals_left,
            "pawns": {pawn_name(i): self.where_text(w) for i, w in enumerate(self.loc)},
            "locations": list(self.loc),
            "hand_sizes": [len(h) for h in self.hands],
            "exchanged": [g is not None for g in self.gives],
            "discard": [CARD_NAMES[c] for c in self.discard],
            "deck_size": len(self.deck),
            "moves_played": self.moves_played,
            "log": log,
            "winners": self.result()["winners"] if self.phase == "over" else [],
        }

    def view(self, player: int) -> dict[str, Any]:
        """The public view plus what `player` alone (with his partner, for the exchange) knows: his hand, the card
        he is giving, what he gave and received this deal, and the card he knows his partner still holds."""
        def name(card: str | None) -> str | None:
            return None if card is None else CARD_NAMES[card]

        return {
            **self.public_view(),
            "you": player,
            "hand": [CARD_NAMES[c] for c in self.hands[player]],
            "giving": name(self.gives[player]),
            "gave": name(self.gave[player]),
            "received": name(self.received[player]),
            "partner_holds": name(self.known[player]),
        }

    def outcome_text(self) -> str:
        """"P0 yellow and P2 blue win: all 8 pawns of the team are home; pawns home: yellow+blue 8, red+green 5"."""
        res = self.result()
        homes = "; pawns home: " + ", ".join(
            "+".join(COLOURS[s] for s in team) + f" {res['scores'][team[0]]}" for team in res["teams"])
        if not res["winners"]:
            return (f"nobody wins: the game stopped at the move limit ({self.options['move_limit']} card plays)"
                    + homes)
        names = " and ".join(self.player_label(p) for p in res["winners"])
        return f"{names} win: all {2 * PAWNS_PER_PLAYER} pawns of the team are home" + homes

    def describe(self, player: int) -> str:
        """A terminal picture of `view(player)`: each seat's pawns, the hand, the exchange, the last moves."""
        v = self.view(player)
        lines = []
        for seat, label in enumerate(v["labels"]):
            pawns = [f"{pawn_name(seat * PAWNS_PER_PLAYER + i)}:{v['pawns'][pawn_name(seat * PAWNS_PER_PLAYER + i)]}"
                     for i in range(PAWNS_PER_PLAYER)]
            marks = []
            if seat == player:
                marks.append("you")
            elif seat == self.partner(player):
                marks.append("partner")
            if seat == v["dealer"]:
                marks.append("dealer")
            if seat == v["current_player"]:
                marks.append("to play")
            tag = f" ({', '.join(marks)})" if marks else ""
            lines.append(f"{label:<9} home before space {SECTION * seat + 1:>2}, {v['hand_sizes'][seat]} cards"
                         f"{tag}: {' '.join(pawns)}")
        lines.append(f"places: base = in the base; 1-{self.board.size} = a track space (1 is yellow's first); "
                     "home-r = on red's home; finish-b1..4 = blue's finish zone (1 is the deepest case)")
        lines.append(f"phase: {v['phase']}; your hand: {', '.join(v['hand']) or '-'}")
        if v["phase"] == "exchange":
            given = [v["labels"][s] for s, done in enumerate(v["exchanged"]) if done]
            lines.append("exchange: each player passes one card face down to the partner; given so far: "
                         + (", ".join(given) or "nobody"))
        if v["giving"]:
            lines.append(f"you are giving: {v['giving']} (your partner receives it when everybody has given)")
        if v["gave"] or v["received"]:
            lines.append(f"this deal's exchange: you gave {v['gave']}, you received {v['received']}")
        if v["partner_holds"]:
            lines.append(f"your partner still holds the {v['partner_holds']} you gave (until a card of that kind "
                         "is played)")
        if v["discard"]:
            lines.append(f"last card played: {v['discard'][-1]} ({len(v['discard'])} in the middle)")
        if v["log"]:
            lines.append("last moves: " + "; ".join(v["log"][-8:]))
        if v["phase"] == "over":
            lines.append("game over: " + self.outcome_text())
        return "\n".join(lines)

    # --- saving and copying -------------------------------------------------------------------------------
    _FIELDS = ("loc", "hands", "deck", "discard", "gives", "gave", "received", "known", "dealer", "deals_left",
               "phase", "turn", "winner_team", "moves_played", "movers")

    def to_json(self) -> dict[str, Any]:
        data = self.base_json()
        for key in self._FIELDS:
            value = getattr(self, key)
            data[key] = [list(x) for x in value] if key == "hands" else (list(value) if isinstance(value, list)
                                                                         else value)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        try:
            state = cls(data["players"], data["seed"], data["options"])
            for key in cls._FIELDS:
                value = data[key] if key != "movers" else data.get(key, [])
                setattr(state, key, [list(x) for x in value] if key == "hands" else
                        (list(value) if isinstance(value, list) else value))
            state.load_base_json(data)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, BadInput):
                raise
            raise BadInput(f"not a partners state: {exc}", "$") from None
        state._legal = None
        return state

    def clone(self) -> Self:
        """A fast copy (no JSON): MCTS clones a lot."""
        new = self._copy()
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        return new

    def _copy(self) -> Self:
        """Everything but the random generator, which is shared until the caller replaces it."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.loc = self.loc[:]
        new.hands = [h[:] for h in self.hands]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.gives = self.gives[:]
        new.gave = self.gave[:]
        new.received = self.received[:]
        new.known = self.known[:]
        new.history = self.history[:]
        new.movers = self.movers[:]
        return new

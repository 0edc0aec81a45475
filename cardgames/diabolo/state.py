"""A game of Diabolo, in the rule text's order: the deal, a turn (draw, then place a card beside the row of its
colour), the placing rules (3 per side, a row closes at 5 cards), the end of a round (2 closed rows, 3 with 5
players), the scoring of every row (more angel points: the highest hand sum gains them, doubled by a committed
doubler; more devil points: the highest hand sum loses them; equal: nothing) and the next rounds; then what each
player sees and saving.

The cards and rows are in cards.py, the move texts in moves.py, the AI players' hooks in search.py. Rulings where
the text is silent are listed in docs/diabolo.md.
"""

from __future__ import annotations

import math
import random
from bisect import insort
from typing import Any, ClassVar, Self

from cardgames.diabolo.cards import (
    ANGEL,
    BOTH_OPEN,
    CLOSED_ROWS_TO_END,
    CLOSED_ROWS_TO_END_5P,
    COLOURS,
    DEVIL,
    DOUBLE,
    HAND_SIZE,
    KIND_COLOUR,
    KIND_VALUE,
    MAX_CARDS,
    MAX_PER_SIDE,
    OVER,
    PLAY,
    ROW_CLOSES_AT,
    SIDES,
    VALUES,
    card_text,
    kind,
    kind_colour,
    parse_values,
)
from cardgames.diabolo.moves import DISCARD, DOUBLE_NO, DOUBLE_YES, PLACE_OPTIONS, DiaboloMove
from cardgames.diabolo.search import ROUND_SPREAD, DiaboloSearch
from tower.games.base import GameState, Move
from tower.games.errors import BadInput, IllegalMove


def _result_view(entry: list[Any]) -> dict[str, Any]:
    """One scored row as the public sees it."""
    c, devil, angel, doubled, sums, points = entry
    return {"colour": COLOURS[c], "devil": devil, "angel": angel,
            "outcome": "gain" if angel > devil else "loss" if devil > angel else "none",
            "doubled": list(doubled), "sums": None if sums is None else list(sums), "points": list(points)}


class DiaboloState(DiaboloSearch, GameState):
    """The state of one game of Diabolo."""

    name: ClassVar[str] = "diabolo"
    title: ClassVar[str] = "Diabolo"
    credit: ClassVar[str] = "Michael Schacht, AMIGO 2006"
    layout: ClassVar[str] = "diabolo-rows"
    encoding: ClassVar[str | None] = "cardgames.diabolo.encoding"
    move_type: ClassVar[type[Move]] = DiaboloMove
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 5
    default_players: ClassVar[int] = 4
    # per round: every turn draws one card (at most MAX_CARDS * 5 - 3 * 4), every row asks each player once
    max_game_length: ClassVar[int] = 5 * (MAX_CARDS * len(COLOURS) + len(COLOURS) * 5)
    default_options: ClassVar[dict[str, Any]] = {"values": VALUES, "hand_size": HAND_SIZE}
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {"hand_size": tuple(range(3, 11))}
    option_help: ClassVar[dict[str, tuple[str, str]]] = {
        "values": ("Card values", "the values of the cards of one colour, comma-separated (5 to 20 values of 1-9); "
                                  "fewer cards give shorter rounds"),
        "hand_size": ("Hand size", "cards dealt to each player at the start of a round"),
    }
    how_to_play: ClassVar[str] = (
        "Goal: the most points after as many rounds as there are players.\n\n"
        "Your turn: you have already drawn a card. Put one card of your hand beside the row of its colour, on the "
        "devil side (left) or the angel side (right). A side takes 3 cards, a row 5; then it is closed. If none of "
        "your cards fits, you show your hand and throw one card away.\n\n"
        "When 2 rows are closed (3 with 5 players) the round ends and every row is scored, red first. A row with "
        "more angel points pays: whoever holds the most of that colour in hand gains that sum. A row with more "
        "devil points costs: whoever holds the most of that colour loses that sum. Equal: nothing.\n\n"
        "Your doubler: before a paying row is compared, everyone still holding a doubler says, in secret, whether "
        "to bet it on that row. A bet doubler doubles your gain if you hold the most of that colour; either way it "
        "is spent for the rest of the round. Keep it and you are asked again at the next paying row. Every "
        "doubler comes back at the start of the next round.")

    def __init__(self, players: int, seed: int | None = 0, options: dict[str, Any] | None = None) -> None:
        super().__init__(players, seed, options)
        self.values = parse_values(self.options["values"])
        self.hand_size = self.options["hand_size"]
        self.deck_kinds = [kind(c, v) for c in range(len(COLOURS)) for v in self.values]
        if players * self.hand_size >= len(self.deck_kinds):
            raise BadInput(f"{len(self.deck_kinds)} cards are too few to deal {self.hand_size} to {players} players",
                           "$.options")
        self.colour_total = sum(self.values)
        self.to_end = CLOSED_ROWS_TO_END_5P if players == 5 else CLOSED_ROWS_TO_END
        self.scores = [0] * players
        self.round = 0
        self.dealer = players - 1  # so that seat 0, left of the first dealer, begins
        # public scoring log of the current (or last) round: [colour, devil, angel, doubled, sums|None, points]
        self.results: list[list[Any]] = []
        self.horizon = False  # search copies end with the round and guess the later rounds (see determinize)
        self.guessed_winners: list[int] | None = None
        self.last_mover = -1  # who made the last move (public)
        self._proj: list[float] = []
        self._proj_key = -1
        self._deal()

    # --- the deal ---------------------------------------------------------------------------------------
    def _deal(self) -> None:
        """Shuffle all number cards, deal the hands, hand back the doublers; left of the dealer begins."""
        n = self.num_players
        # a shuffle by random sort keys: uniform, seeded, and much quicker than random.shuffle
        deck = sorted(self.deck_kinds, key=lambda _k, r=self.rng.random: r())
        self.hands = []
        for _ in range(n):
            self.hands.append(sorted(deck[-self.hand_size:]))  # hands stay sorted: moves come out in order
            del deck[-self.hand_size:]
        self.deck = deck  # face down; the top card is the last
        self.discards: list[int] = []  # face up, public
        self.shown: list[list[int]] = [[] for _ in range(n)]  # cards known to all, from a shown hand
        # public: per player and colour, the angel points minus the devil points placed this round
        self.leans = [[0] * len(COLOURS) for _ in range(n)]
        self.rows = [[[], []] for _ in COLOURS]  # rows[colour][side] = values placed there
        self.row_sums = [[0, 0] for _ in COLOURS]
        self.closed = [False] * len(COLOURS)
        self.open_sides = [BOTH_OPEN] * len(COLOURS)  # bit 1: the angel side takes a card, bit 0: the devil side
        self.nclosed = 0
        self.doubler = [True] * n
        self.phase = PLAY
        self.turn = (self.dealer + 1) % n
        self.scoring_row = -1
        self.asking: list[int] = []  # doubler decisions still to come for the row being scored
        self.commits: dict[int, bool] = {}  # decided so far, hidden until the row is scored
        self._legal: list[Move] | None = None
        self._start_turn()

    def _start_turn(self) -> None:
        """A turn begins with drawing a card; an empty draw pile ends the round (docs: a ruling)."""
        if not self.deck:
            self._start_scoring()
            return
        insort(self.hands[self.turn], self.deck.pop())

    # --- who is playing ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        if self.phase == PLAY:
            return self.turn
        if self.phase == DOUBLE:
            return self.asking[0]
        return None

    # --- legal moves ------------------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self._legal is None:
            self._legal = self._generate()
        return list(self._legal)

    def _generate(self) -> list[Move]:
        if self.phase == OVER:
            return []
        if self.phase == DOUBLE:
            return [DOUBLE_NO, DOUBLE_YES]
        hand = self.hands[self.turn]  # sorted, and kind order is text order ("angel" < "devil" follows)
        out: list[Move] = []
        open_sides = self.open_sides
        prev = -1
        for k in hand:
            if k != prev:
                out += PLACE_OPTIONS[k][open_sides[KIND_COLOUR[k]]]
                prev = k
        if not out:  # nothing fits: show the hand and discard a card
            out = [DISCARD[k] for k in sorted(set(hand))]
        return out

    def can_place(self, player: int) -> bool:
        """Whether `player` holds a card of a row that is still open (an open row always has a free side)."""
        closed = self.closed
        return any(not closed[KIND_COLOUR[k]] for k in self.hands[player])

    # --- why a move is illegal --------------------------------------------------------------------------
    def explain(self, move: Move) -> IllegalMove | None:
        if self.phase == OVER:
            return IllegalMove("game-over", "the game is over")
        if not isinstance(move, DiaboloMove):
            return IllegalMove("wrong-game", f"{move!r} is not a diabolo move")
        k, verb = move._kind, move.verb  # type: ignore[attr-defined]
        if self.phase == DOUBLE:
            if verb != "double":
                return IllegalMove("scoring-in-progress",
                                   f"the {COLOURS[self.scoring_row]} row is being scored: say 'double yes' or 'double no'")
            return None
        if verb == "double":
            return IllegalMove("no-doubler-decision", "doublers are committed only when a row with more angel "
                                                      "points is scored")
        if k not in self.hands[self.turn]:
            return IllegalMove("not-in-hand", f"you hold no {card_text(k)}")
        c = kind_colour(k)
        if verb == "discard":
            if self.can_place(self.turn):
                return IllegalMove("must-place", "a card may be discarded only when no card of the hand can be placed")
            return None
        if self.closed[c]:
            return IllegalMove("row-closed", f"the {COLOURS[c]} row has {ROW_CLOSES_AT} cards and is closed")
        side = move._side  # type: ignore[attr-defined]
        if len(self.rows[c][side]) >= MAX_PER_SIDE:
            return IllegalMove("side-full", f"the {SIDES[side]} side of the {COLOURS[c]} row already has "
                                            f"{MAX_PER_SIDE} cards")
        return None

    # --- a turn -----------------------------------------------------------------------------------------
    def _apply(self, move: Move) -> None:
        self._legal = None
        k, side = move._kind, move._side  # type: ignore[attr-defined]
        if self.phase == DOUBLE:
            self.last_mover = self.asking.pop(0)
            self._commit(self.last_mover, bool(side))
            return
        p = self.last_mover = self.turn
        self.hands[p].remove(k)
        if move.verb == "discard":
            self.discards.append(k)
            # the hand was shown: everyone now knows what is left in it
            self.shown[p] = sorted(self.hands[p])
            self._next_turn()
            return
        shown = self.shown[p]
        if shown and k in shown:
            shown.remove(k)
        c = KIND_COLOUR[k]
        row = self.rows[c]
        row[side].append(KIND_VALUE[k])
        self.row_sums[c][side] += KIND_VALUE[k]
        self.leans[p][c] += KIND_VALUE[k] if side == ANGEL else -KIND_VALUE[k]
        if len(row[side]) >= MAX_PER_SIDE:
            self.open_sides[c] &= ~(1 << side)
        if len(row[DEVIL]) + len(row[ANGEL]) >= ROW_CLOSES_AT:
            self.closed[c] = True
            self.open_sides[c] = 0
            self.nclosed += 1
            if self.nclosed >= self.to_end:
                self._start_scoring()
                return
        self._next_turn()

    def _next_turn(self) -> None:
        self.turn = (self.turn + 1) % self.num_players
        self._start_turn()

    # --- scoring ----------------------------------------------------------------------------------------
    def colour_sum(self, player: int, colour: int) -> int:
        """The sum of `player`'s hand cards of `colour`."""
        return sum(KIND_VALUE[k] for k in self.hands[player] if KIND_COLOUR[k] == colour)

    def colour_sums(self, player: int) -> list[int]:
        """`player`'s hand sum per colour."""
        sums = [0] * len(COLOURS)
        for k in self.hands[player]:
            sums[KIND_COLOUR[k]] += KIND_VALUE[k]
        return sums

    def _start_scoring(self) -> None:
        self.phase = DOUBLE
        self.results = []
        self.scoring_row = -1
        self._next_row()

    def _next_row(self) -> None:
        """Score rows in order until one needs doubler decisions (more angel points, doublers left)."""
        n = self.num_players
        while self.scoring_row + 1 < len(COLOURS):
            self.scoring_row += 1
            c = self.scoring_row
            if self.row_sums[c][ANGEL] > self.row_sums[c][DEVIL]:
                first = (self.dealer + 1) % n
                self.asking = [p for p in (*range(first, n), *range(first)) if self.doubler[p]]
                if self.asking:
                    self.commits = {}
                    return
            self._score_row(c)
        self._end_round()

    def _commit(self, player: int, yes: bool) -> None:
        self.commits[player] = yes
        if not self.asking:
            self._score_row(self.scoring_row)
            self._next_row()

    def _score_row(self, c: int) -> None:
        """More angel points: the highest hand sums gain them; more devil points: they lose them."""
        devil, angel = self.row_sums[c]
        n = self.num_players
        doubled = sorted(p for p, yes in self.commits.items() if yes)
        for p in doubled:
            self.doubler[p] = False  # spent once committed, whether it pays or not
        self.commits = {}
        points = [0] * n
        sums = None
        if angel != devil:  # the hands' cards of this colour are shown and compared
            sums = [self.colour_sum(p, c) for p in range(n)]
            top = max(sums)
            if top > 0:
                for p in range(n):
                    if sums[p] == top:  # ties for the highest sum all score
                        points[p] = top * (2 if p in doubled else 1) if angel > devil else -top
                        self.scores[p] += points[p]
        self.results.append([c, devil, angel, doubled, sums, points])

    def _end_round(self) -> None:
        self.round += 1
        self.asking = []
        if self.round >= self.num_players:  # as many rounds as players
            self.phase = OVER
            self.scoring_row = -1
            return
        if self.horizon:
            # a search copy: the later rounds are drawn, not played (their deals are unknown anyway)
            spread = ROUND_SPREAD * math.sqrt(self.num_players - self.round)
            final = [s + self.rng.gauss(0.0, spread) for s in self.scores]
            best = max(final)
            self.guessed_winners = [p for p in range(self.num_players) if final[p] == best]
            self.phase = OVER
            self.scoring_row = -1
            return
        self.dealer = (self.dealer + 1) % self.num_players
        keep = self.results
        self._deal()
        self.results = keep  # the last round's scoring stays on show

    # --- the end ----------------------------------------------------------------------------------------
    def result(self) -> dict[str, Any]:
        best = max(self.scores)
        if self.guessed_winners is not None:
            return {"winners": list(self.guessed_winners), "scores": list(self.scores), "rounds": self.round,
                    "guessed": True}
        return {"winners": [p for p in range(self.num_players) if self.scores[p] == best],
                "scores": list(self.scores), "rounds": self.round}

    # --- what a player sees -----------------------------------------------------------------------------
    def move_words(self, move: Move) -> str:
        """"put the red 3 on the angel side of the red row", "yes: double my gain on the red row (...)"."""
        m: Any = move
        if m.verb == "double":
            row = COLOURS[self.scoring_row] if self.scoring_row >= 0 else "this"
            if m.side == "yes":
                return f"yes: double my gain on the {row} row (my doubler is then spent for this round)"
            return "no: keep my doubler for a later row of this round"
        if m.verb == "discard":
            return f"throw away the {m.colour} {m.value} (no card in hand fits a row)"
        return f"put the {m.colour} {m.value} on the {m.side} side of the {m.colour} row"

    def prompt(self) -> str | None:
        if self.phase != DOUBLE or self.scoring_row < 0:
            return None
        row = COLOURS[self.scoring_row]
        return (f"Double your gain on the {row} row? The {row} row has more angel points: whoever holds the most "
                f"{row} in hand gains that sum. If you say yes, your doubler doubles your gain if you hold the "
                f"most, and is spent for this round either way. If you say no, you are asked again at the next "
                f"row that pays. Doublers come back next round.")

    def public_move(self, move: Move, player: int) -> str:
        """A doubler answer stays secret until every player has answered (all answer at the same time)."""
        if move.verb == "double":  # type: ignore[attr-defined]
            return f"{self.player_label(player)} has chosen whether to double"
        return str(move)

    def public_view(self) -> dict[str, Any]:
        """What everybody sees: the rows, scores, hand sizes, the draw pile's size, discards and shown cards, who
        still holds a doubler, who has answered the doubler question (never the answer) and the last scoring."""
        return {
            "game": self.name,
            "players": self.num_players,
            "labels": [self.player_label(p) for p in range(self.num_players)],
            "round": self.round + (self.phase != OVER),
            "rounds": self.num_players,
            "dealer": self.dealer,
            "phase": self.phase,
            "current_player": self.current_player,
            "rows": [{"colour": COLOURS[c], "devil": list(self.rows[c][DEVIL]), "angel": list(self.rows[c][ANGEL]),
                      "closed": self.closed[c]} for c in range(len(COLOURS))],
            "scoring_row": COLOURS[self.scoring_row] if self.phase == DOUBLE else None,
            "decided": sorted(self.commits),  # who has chosen already, never what
            "scores": list(self.scores),
            "hand_sizes": [len(h) for h in self.hands],
            "shown": [[card_text(k) for k in s] for s in self.shown],
            "deck_size": len(self.deck),
            "discards": [card_text(k) for k in self.discards],
            "doublers": list(self.doubler),
            "results": [_result_view(r) for r in self.results],
            "last_move": (self.public_move(self.history[-1], self.last_mover) if self.history else None),
        }

    def view(self, player: int) -> dict[str, Any]:
        """The public view plus `player`'s hand, his doubler and his own pending doubler answer."""
        return {
            **self.public_view(),
            "player": player,
            "hand": [card_text(k) for k in sorted(self.hands[player])],
            "my_commitment": self.commits.get(player),
            "my_doubler": self.doubler[player],
        }

    def outcome_text(self) -> str:
        """"P2 wins with 39 points; scores: P0 12, P1 -3, P2 39" (a shared first place: "P1 and P2 share ...")."""
        res = self.result()
        winners = res["winners"]
        names = " and ".join(self.player_label(p) for p in winners)
        top = res["scores"][winners[0]]
        head = f"{names} {'wins' if len(winners) == 1 else 'share the win'} with {top} points"
        return head + "; scores: " + ", ".join(f"{self.player_label(p)} {x}" for p, x in enumerate(res["scores"]))

    def describe(self, player: int) -> str:
        v = self.view(player)
        label = self.player_label
        lines = [f"Diabolo, round {v['round']} of {v['rounds']}; you are {label(player)}; dealer {label(v['dealer'])}"]
        lines.append("rows: cards on the devil side (left) count against, on the angel side (right) for; a side "
                     f"holds {MAX_PER_SIDE} cards, a row closes at {ROW_CLOSES_AT}")
        width = 3 * 2 + 2
        for r in v["rows"]:
            devil = " ".join(map(str, r["devil"])).rjust(width)
            angel = " ".join(map(str, r["angel"])).ljust(width)
            mark = "closed" if r["closed"] else ""
            lines.append(f"  {r['colour']:>6}  devil {devil} | {angel} angel  "
                         f"({sum(r['devil'])}:{sum(r['angel'])}) {mark}".rstrip())
        lines.append("scores: " + ", ".join(f"{label(p)} {s}" for p, s in enumerate(v["scores"])))
        lines.append("cards in hand: " + ", ".join(f"{label(p)} {s}" for p, s in enumerate(v["hand_sizes"]))
                     + f"; draw pile {v['deck_size']}")
        lines.append("doublers (each player's one doubler per round; 'in hand' can still double a gain, 'spent' was "
                     "committed to a scored row): "
                     + ", ".join(f"{label(p)} {'in hand' if d else 'spent'}" for p, d in enumerate(v["doublers"])))
        for p, cards in enumerate(v["shown"]):
            if cards and p != player:
                lines.append(f"{label(p)} had to show the hand and still holds: {', '.join(cards)}")
        if v["discards"]:
            lines.append("discarded: " + ", ".join(v["discards"]))
        for r in v["results"]:
            pts = ", ".join(f"{label(p)} {x:+d}" for p, x in enumerate(r["points"]) if x)
            doubled = f"; doubled by {', '.join(label(p) for p in r['doubled'])}" if r["doubled"] else ""
            lines.append(f"scored {r['colour']}: devil {r['devil']} v angel {r['angel']}: {r['outcome']}"
                         + (f" ({pts})" if pts else "") + doubled)
        if v["last_move"]:
            lines.append(f"last move: {v['last_move']}")
        lines.append("your hand: " + (", ".join(v["hand"]) or "empty"))
        if v["phase"] == DOUBLE:
            answered = ", ".join(label(p) for p in v["decided"]) or "nobody yet"
            mine = v["my_commitment"]
            lines.append(f"scoring the {v['scoring_row']} row (more angel points): every player with a doubler in "
                         "hand answers in secret whether to commit it (double yes / double no); the answers are "
                         f"shown together once all are in. Answered: {answered}"
                         + ("" if mine is None else f"; your answer: {'yes' if mine else 'no'}"))
        elif v["phase"] == OVER:
            lines.append("game over: " + self.outcome_text())
        return "\n".join(lines)

    # --- saving -----------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        d = self.base_json()
        d.update({
            "scores": list(self.scores), "round": self.round, "dealer": self.dealer, "phase": self.phase,
            "turn": self.turn, "hands": [sorted(h) for h in self.hands],
            "deck": list(self.deck), "discards": list(self.discards), "shown": [list(s) for s in self.shown],
            "rows": [[list(r[DEVIL]), list(r[ANGEL])] for r in self.rows], "doubler": list(self.doubler),
            "scoring_row": self.scoring_row, "asking": list(self.asking),
            "commits": [[p, yes] for p, yes in sorted(self.commits.items())],
            "results": [list(r) for r in self.results], "leans": [list(x) for x in self.leans],
            "last_mover": self.last_mover,
        })
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        try:
            state = cls(data["players"], data["seed"], data["options"])
            state.load_base_json(data)
            state.scores = list(data["scores"])
            state.round, state.dealer, state.phase = data["round"], data["dealer"], data["phase"]
            state.turn = data["turn"]
            state.hands = [sorted(cards) for cards in data["hands"]]
            state.deck, state.discards = list(data["deck"]), list(data["discards"])
            state.shown = [list(s) for s in data["shown"]]
            state.rows = [[list(r[0]), list(r[1])] for r in data["rows"]]
            state.row_sums = [[sum(r[0]), sum(r[1])] for r in state.rows]
            state.closed = [len(r[0]) + len(r[1]) >= ROW_CLOSES_AT for r in state.rows]
            state.nclosed = sum(state.closed)
            state.open_sides = [0 if closed else (len(r[ANGEL]) < MAX_PER_SIDE) << 1 | (len(r[DEVIL]) < MAX_PER_SIDE)
                                for r, closed in zip(state.rows, state.closed, strict=True)]
            state.doubler = list(data["doubler"])
            state.scoring_row, state.asking = data["scoring_row"], list(data["asking"])
            state.commits = {p: yes for p, yes in data["commits"]}
            state.results = [list(r) for r in data["results"]]
            state.leans = [list(x) for x in data["leans"]]
            state.last_mover = int(data.get("last_mover", -1))
            state._legal = None
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise BadInput(f"not a diabolo state: {exc}") from None
        return state

    def clone(self) -> Self:
        """A fast copy (MCTS clones a lot): only the mutable containers are copied."""
        new = self._copy(random.Random())
        new.rng.setstate(self.rng.getstate())
        return new

    def _copy(self, rng: random.Random) -> Self:
        """A copy drawing its future randomness from `rng`."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.rng = rng
        new._proj_key = -1
        new.history = list(self.history)
        new.scores = list(self.scores)
        new.hands = [h[:] for h in self.hands]
        new.deck = list(self.deck)
        new.discards = list(self.discards)
        new.shown = [list(s) for s in self.shown]
        new.leans = [list(x) for x in self.leans]
        new.rows = [[r[0][:], r[1][:]] for r in self.rows]
        new.row_sums = [s[:] for s in self.row_sums]
        new.closed = list(self.closed)
        new.open_sides = list(self.open_sides)
        new.doubler = list(self.doubler)
        new.asking = list(self.asking)
        new.commits = dict(self.commits)
        new.results = list(self.results)  # entries are never changed once written
        return new

"""What the AI players read of a Partners game (the `GameState` AI hooks): re-dealing the hidden cards, the value of
a position, the greedy player's move values, the playout policy and the search's rewards.

`PartnersSearch` is a base class of `PartnersState` (state.py); its methods read the state's fields. The settings
were tuned with benchmarks/bench_partners.py (docs/partners.md has the measurements).
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Self

from cardgames.partners.cards import CARD_ORDER, LEAVE_CARDS
from cardgames.partners.moves import PartnersMove, play_card
from cardgames.partners.track import BASE, FINISH, PAWNS_PER_PLAYER

if TYPE_CHECKING:
    from cardgames.partners.track import Track

ROLLOUT_RANDOM = 0.2  # share of random moves in playouts, so they do not all follow one line
ROLLOUT_SAMPLE = 6  # 7s and switches looked at in full per playout move before sampling the rest
# the search's leaf value is 0.5 + 0.5 tanh(REWARD_GAIN x heuristic): an ordinary move shifts the heuristic by
# about 0.01, which must show against the exploration term
REWARD_GAIN = 10.0
#: how much a card is worth keeping (rough, for the exchange)
KEEP = {"H": 3, "1": 5, "2": 2, "3": 2, "4": 6, "5": 3, "6": 3, "7": 7, "8": 5, "9": 4, "10": 4, "12": 4,
        "13": 6, "S": 6}

#: table size -> pawn -> location + 1 -> progress (made once per table size)
_PROGRESS_TABLES: dict[int, list[list[float]]] = {}


class PartnersSearch:
    """The AI hooks of `PartnersState`."""

    if TYPE_CHECKING:  # the state's fields these hooks read
        board: Track
        loc: list[int]
        hands: list[list[str]]
        deck: list[str]
        discard: list[str]
        gives: list[str | None]
        gave: list[str | None]
        received: list[str | None]
        known: list[str | None]
        deck_counts: dict[str, int]
        phase: str
        turn: int
        num_players: int
        _legal: list[PartnersMove] | None

        def _copy(self) -> Self: ...
        def _generate(self) -> list[PartnersMove]: ...
        def legal_moves(self) -> list[PartnersMove]: ...
        def partner(self, player: int) -> int: ...
        def win_shares(self) -> list[float]: ...

    # plain `mcts` (today's search, kept as measured) values a node by `rewards` at once; the levels play 8 moves
    # out first (`rollout=8`), which beat it by far (docs/partners.md has the measurements)
    rollout_depth = 0
    # measured against the greedy team (benchmarks/bench_partners.py, n=100 each): 600 iterations won 65-67 %
    # at c = 0.1, 0.3 and 1.0; 200 iterations 59 %
    search_exploration = 0.3
    search_iterations = 600
    # the levels people choose by name (docs/ai.md): short playouts valued by `rewards`; the caps are what 0.1 s
    # allows on one core, and for strong the 1,000 iterations (about 0.25 s) measured against today's search
    ai_levels = {"easy": "greedy", "normal": "mcts:time=0.1,iters=400,rollout=8",
                 "strong": "mcts:time=1,iters=1000,rollout=8"}

    # --- hidden information -------------------------------------------------------------------------------------
    def determinize(self, player: int, rng: random.Random) -> Self:
        """Re-deal what `player` cannot see: other hands, the cards in the exchange, the deck order."""
        new = self._copy()  # gets its own generator below
        n = self.num_players
        mate = self.partner(player)
        counts = dict(self.deck_counts)
        keep = self.known[player]  # kept up to date from public plays only (see PartnersState._apply)
        for c in (*self.hands[player], *self.discard, self.gives[player], keep):
            if c is not None:
                counts[c] -= 1
        pool = [c for c in CARD_ORDER for _ in range(counts[c])]
        rng.shuffle(pool)
        for q in range(n):
            if q == player:
                continue
            size = len(self.hands[q])
            hand = [keep] if q == mate and keep is not None else []
            while len(hand) < size:
                hand.append(pool.pop())
            hand.sort(key=CARD_ORDER.index)
            new.hands[q] = hand
            if self.gives[q] is not None:
                new.gives[q] = pool.pop()
            if q != mate:
                new.known[q] = new.gave[q] = new.received[q] = None
        new.known[mate] = new.gave[mate] = None  # what the partner knows about my hand is not mine to guess
        new.deck = pool
        new.rng = random.Random(rng.random())
        new._legal = None
        return new

    # --- the value of a position --------------------------------------------------------------------------------
    def progress(self, pawn: int, where: int | None = None) -> float:
        """Rough worth of a pawn's place: 0 in the base, more the further it came, most in the finish."""
        where = self.loc[pawn] if where is None else where
        if where == BASE:
            return 0.0
        board = self.board
        r = board.relative(pawn, where)
        if r > board.size:  # in the finish: a big bonus, and deeper is better
            return 20.0 + r + 6.0 * (r - board.size)
        return 12.0 + r

    def _progress_table(self) -> list[list[float]]:
        """progress() for every pawn and location (index location + 1), made once per table size."""
        table = _PROGRESS_TABLES.get(self.num_players)
        if table is None:
            size = self.board.size + self.num_players * (1 + FINISH) + 1
            table = [[self.progress(p, w - 1) for w in range(size)] for p in range(len(self.loc))]
            _PROGRESS_TABLES[self.num_players] = table
        return table

    def heuristic(self, player: int, loc: list[int] | None = None) -> float:
        """Team progress minus the best other team's, scaled to about [-1, 1]."""
        loc = self.loc if loc is None else loc
        table = self._progress_table()
        half = self.num_players // 2
        if half == 2:  # the usual game, spelled out because the AI calls this very often
            a = (table[0][loc[0] + 1] + table[1][loc[1] + 1] + table[2][loc[2] + 1] + table[3][loc[3] + 1]
                 + table[8][loc[8] + 1] + table[9][loc[9] + 1] + table[10][loc[10] + 1] + table[11][loc[11] + 1])
            b = (table[4][loc[4] + 1] + table[5][loc[5] + 1] + table[6][loc[6] + 1] + table[7][loc[7] + 1]
                 + table[12][loc[12] + 1] + table[13][loc[13] + 1] + table[14][loc[14] + 1]
                 + table[15][loc[15] + 1])
            diff = a - b if player % 2 == 0 else b - a
        else:
            totals = [0.0] * half
            for pawn, w in enumerate(loc):
                totals[(pawn // PAWNS_PER_PLAYER) % half] += table[pawn][w + 1]
            diff = totals[player % half] - max(totals[t] for t in range(half) if t != player % half)
        return diff / (2 * PAWNS_PER_PLAYER * (self.board.size + 40))

    def rewards(self) -> list[float]:
        """The search's graded reward per player: 1 for the winning team, 0 for the others at the end; before
        it 0.5 + 0.5 tanh(REWARD_GAIN x heuristic), so every margin of progress counts."""
        if self.phase == "over":
            return self.win_shares()
        return [0.5 + 0.5 * math.tanh(REWARD_GAIN * self.heuristic(p)) for p in range(self.num_players)]

    # --- choosing moves -----------------------------------------------------------------------------------------
    def greedy_score(self, move: PartnersMove, player: int) -> float:
        """One-move look-ahead: team progress after the move, with a nudge to give the partner what he lacks."""
        if move.action == "give":
            mate = self.partner(player)
            need = 0.0
            in_base = sum(1 for i in range(PAWNS_PER_PLAYER) if self.loc[mate * PAWNS_PER_PLAYER + i] == BASE)
            if move.card in LEAVE_CARDS and in_base:
                need += 2.0 + in_base
            return need - KEEP[move.card]
        if move.action == "discard":
            return 0.0
        loc = self.loc[:]
        play_card(self.board, player, move, loc)
        value = self.heuristic(player, loc)
        # a tie-break that keeps the strong cards for later
        return value - 0.0005 * KEEP[move.card]

    def random_move(self, rng: random.Random) -> PartnersMove:
        """A uniform draw from `legal_moves()`: the very same `rng.choice` on the same list, so a random player
        makes the same moves with or without this hook; it only saves copying the list."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return rng.choice(legal)

    def rollout_move(self, rng: random.Random) -> PartnersMove:
        """Playouts: the greedy choice, scored cheaply (a step only changes its own pawn and maybe a victim);
        sometimes a random move, and only a sample of the many 7 and switch moves is looked at."""
        moves = self.legal_moves()
        if len(moves) == 1 or rng.random() < ROLLOUT_RANDOM:
            return rng.choice(moves)
        p = self.turn
        if self.phase == "exchange":
            return max(moves, key=lambda m: self.greedy_score(m, p))
        table = self._progress_table()
        loc = self.loc
        board = self.board
        t = board.size
        half = self.num_players // 2
        team = p % half
        best = moves[0]
        best_value = -1e9
        others = 0
        for m in moves:
            a = m.action
            if a == "step":
                pawn = m.pawns[0]
                here = loc[pawn]
                dest = board.walk(loc, pawn, m.steps[0], True, dry=True)
                value = table[pawn][dest + 1] - table[pawn][here + 1]
                if dest < t and dest in loc:
                    victim = loc.index(dest)
                    loss = table[victim][dest + 1]
                    value += -loss if (victim // PAWNS_PER_PLAYER) % half == team else loss
            elif a == "out":
                seat = board.controlled_in(p, loc)
                value = table[seat * PAWNS_PER_PLAYER][t + seat + 1]
            else:
                others += 1
                if others > ROLLOUT_SAMPLE and rng.random() < 0.7:
                    continue
                after = loc[:]
                play_card(board, p, m, after)
                value = self._diff(loc, after, team)
            value -= 0.05 * KEEP[m.card]
            if value > best_value:
                best, best_value = m, value
        return best

    def _diff(self, before: list[int], after: list[int], team: int) -> float:
        """Change of (own team's progress - the others') from `before` to `after`."""
        table = self._progress_table()
        half = self.num_players // 2
        total = 0.0
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            if a != b:
                change = table[i][a + 1] - table[i][b + 1]
                total += change if (i // PAWNS_PER_PLAYER) % half == team else -change
        return total

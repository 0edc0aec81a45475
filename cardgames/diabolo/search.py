"""What the AI players read of a Diabolo game (the `GameState` AI hooks): re-dealing the hidden cards (weighted by
where each player placed this round; the levels' re-deals read from the placements, inference.py), the greedy
estimate of a move from a player's own view, the playout policy, and the search's reward (each player's chance
to win).

`DiaboloSearch` is a base class of `DiaboloState` (state.py); its methods read the state's fields. The settings and
what was tried are in docs/diabolo.md.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self

from cardgames.diabolo.cards import (
    ANGEL,
    COLOURS,
    DEVIL,
    DOUBLE,
    KIND_COLOUR,
    KIND_VALUE,
    OVER,
    ROW_CLOSES_AT,
    kind_colour,
    kind_value,
)
from cardgames.diabolo.estimate import TANH, TANH_OFFSET, colour_value, row_lean, top_chance
from cardgames.diabolo.inference import placements, sample_hands
from cardgames.diabolo.moves import DOUBLE_NO, DOUBLE_YES
from tower.games.base import Move

# --- the AI -------------------------------------------------------------------------------------------------
ROLLOUT_RANDOM = 0.1  # share of uniformly random moves in search playouts (the rest follow a quick estimate)
DOUBLER_RESERVE = 3.0  # points a still-unused doubler is worth while later angel rows may come
# how strongly a search re-deal believes the others' placements: an unseen card of a colour goes to a player's
# hand with weight exp(INFER_WEIGHT x that player's lean in the colour this round), the pile with weight 1
INFER_WEIGHT = 0.7
ROUND_SPREAD = 9.0  # spread (standard deviation) of one player's points in a round: search copies stop at
#                     the round's end and draw the later rounds' points from a normal distribution this wide

class DiaboloSearch:
    """The AI hooks of `DiaboloState`."""

    if TYPE_CHECKING:  # the state's fields these hooks read
        num_players: int
        phase: str
        turn: int
        round: int
        scores: list[int]
        hands: list[list[int]]
        deck: list[int]
        discards: list[int]
        shown: list[list[int]]
        leans: list[list[int]]
        rows: list[list[list[int]]]
        row_sums: list[list[int]]
        closed: list[bool]
        doubler: list[bool]
        scoring_row: int
        asking: list[int]
        commits: dict[int, bool]
        results: list[list[Any]]
        colour_total: int
        guessed_winners: list[int] | None
        history: list[Move]
        horizon: bool
        _legal: list[Move] | None
        _proj: list[float]
        _proj_key: int
        dealer: int

        def _copy(self, rng: random.Random) -> Self: ...
        def _generate(self) -> list[Move]: ...
        def colour_sum(self, player: int, colour: int) -> int: ...
        def colour_sums(self, player: int) -> list[int]: ...
        def win_shares(self) -> list[float]: ...

    def determinize(self, player: int, rng: random.Random) -> Self:
        """Re-deal what `player` cannot see: the other hands (beyond shown cards), the draw pile and the other
        players' undisclosed doubler choices for the row being scored.

        During scoring, cards of colours already revealed by a scored row stay where they are; the unseen cards
        of the other colours are re-dealt among the other hands and the draw pile, each hand keeping its size.
        """
        kept, pool, counts, kept_deck = self._unseen(player)
        rng.shuffle(pool)
        if INFER_WEIGHT:
            pool = self._deal_by_leans(pool, counts, rng)
        hands = {}
        for p in kept:
            hands[p] = kept[p] + pool[-counts[p]:] if counts[p] else kept[p]
            del pool[len(pool) - counts[p]:]
        return self._redealt(player, hands, kept_deck + pool, rng)

    def _unseen(self, player: int) -> tuple[dict[int, list[int]], list[int], list[int], list[int]]:
        """What `player` cannot see, split: per other player the cards everybody knows it holds (shown, or of a
        colour revealed by a scored row), the unseen cards (the draw pile's first, then each hand's), how many
        unseen cards each player holds, and the pile's cards of revealed colours (they stay in the pile)."""
        revealed = {r[0] for r in self.results if r[4] is not None} if self.phase == DOUBLE else set()
        pool: list[int] = []
        counts: list[int] = [0] * self.num_players
        kept_deck: list[int] = []
        for k in self.deck:
            (kept_deck if kind_colour(k) in revealed else pool).append(k)
        kept: dict[int, list[int]] = {}
        for p in range(self.num_players):
            if p == player:
                continue
            known = list(self.shown[p])
            keep: list[int] = []
            for k in self.hands[p]:
                if k in known:
                    known.remove(k)
                    keep.append(k)
                elif KIND_COLOUR[k] in revealed:
                    keep.append(k)
                else:
                    pool.append(k)
                    counts[p] += 1
            kept[p] = keep
        return kept, pool, counts, kept_deck

    def _redealt(self, player: int, hands: dict[int, list[int]], deck: list[int], rng: random.Random) -> Self:
        """A search copy with these other hands and this pile (shuffled), the others' hidden doubler answers
        re-guessed from their new hands."""
        new = self._copy(rng)  # the copy draws from the searcher's generator: the real one would foretell deals
        new.horizon = True
        for p, hand in hands.items():
            new.hands[p] = sorted(hand)
        new.deck = deck
        rng.shuffle(new.deck)
        if self.phase == DOUBLE:
            c = self.scoring_row
            new.commits = {p: (yes if p == player else new._wants_double(p, c)) for p, yes in self.commits.items()}
        new._legal = None
        return new

    # `deal=placements` in a spec: re-deals drawn by how likely they make the others' placements (inference.py)
    search_deals = ("placements",)
    # search copies from such re-deals value their leaves by the projection reading their hands (`rewards`)
    informed = False

    def redealer(self, player: int, rng: random.Random, deal: str | None = None) -> Callable[[], Self]:
        """Re-deals for a search; with ``deal="placements"`` they come from a chain that weighs each other hand
        by how likely it makes that player's placements this round (run once here; each call then copies one of
        its re-deals at random), and the copies value their leaves reading the re-dealt hands (`informed`)."""
        if deal is None:
            return lambda: self.determinize(player, rng)
        if deal not in self.search_deals:
            raise NotImplementedError(deal)
        n = self.num_players
        kept, pool, counts, kept_deck = self._unseen(player)
        pool.sort()  # where the unseen cards really are must not even order the shuffle
        rng.shuffle(pool)
        hidden = {}
        for p in kept:
            hidden[p] = pool[len(pool) - counts[p]:]
            del pool[len(pool) - counts[p]:]
        # this round's moves: its placements and forced discards, one a turn from left of the dealer
        end = len(self.history)
        while end and self.history[end - 1].verb == "double":
            end -= 1
        moves = self.history[end - sum(len(a) + len(b) for a, b in self.rows) - len(self.discards):end]
        steps = placements(moves, (self.dealer + 1) % n, n, len(COLOURS))
        deals = sample_hands(hidden, kept, pool, steps, self.colour_total, n, rng)

        def redeal() -> Self:
            hands, pile = deals[int(rng.random() * len(deals))]
            new = self._redealt(player, hands, kept_deck + pile, rng)
            new.informed = True
            return new
        return redeal

    def _deal_by_leans(self, pool: list[int], counts: list[int], rng: random.Random) -> list[int]:
        """`pool` reordered so that, cut from the end by `counts`, each card more likely lands with a player who
        placed its colour on the angel side this round (the greedy estimate keeps a colour it leads and puts
        colours it does not lead on the devil side), and the rest is the pile."""
        n = self.num_players
        weight = [[math.exp(INFER_WEIGHT * x) for x in self.leans[p]] for p in range(n)]
        room = list(counts)
        pile = len(pool) - sum(counts)
        hands: list[list[int]] = [[] for _ in range(n)]
        rest: list[int] = []
        for k in pool:
            c = KIND_COLOUR[k]
            x = rng.random() * (pile + sum(room[p] * weight[p][c] for p in range(n)))
            for p in range(n):
                x -= room[p] * weight[p][c]
                if x < 0 and room[p]:
                    hands[p].append(k)
                    room[p] -= 1
                    break
            else:
                if pile > 0:
                    rest.append(k)
                    pile -= 1
                else:  # rounding left x just above 0: the card goes to a hand with room
                    p = max(range(n), key=room.__getitem__)
                    hands[p].append(k)
                    room[p] -= 1
        for p in reversed(range(n)):  # the caller cuts hands off the end, seat 0 first
            rest += hands[p]
        return rest

    # --- the AI hooks ---------------------------------------------------------------------------------------
    def _wants_double(self, player: int, colour: int) -> bool:
        """A quick doubler policy reading all hands (used on determinized copies only)."""
        mine = self.colour_sum(player, colour)
        if mine <= 0:
            return False
        return all(self.colour_sum(q, colour) <= mine for q in range(self.num_players) if q != player)

    def heuristic(self, player: int) -> float:
        """Score plus the expected result of the rows still to score (the search ranks players by it).

        Reads all hands: the agents call it on determinized copies only.
        """
        key = len(self.history)
        if self._proj_key != key:  # the search asks for every player in turn: project once
            self._proj, self._proj_key = self._projection(), key
        return self.scores[player] + self._proj[player]

    # MCTS playouts stop at once (tower.games.ai reads this): the leaf is valued by `rewards`, from each player's own
    # view. Playouts reading the re-dealt hands played far worse (see docs/diabolo.md).
    rollout_depth = 0
    # the levels people choose by name (docs/ai.md): both search on the re-deals read from the placements; normal
    # with the iterations 0.1 s allows on one core, strong with today's 2,000 (about 0.15 s: it already beats
    # today's search, and more iterations bought the plain search nothing)
    ai_levels = {"easy": "greedy", "normal": "mcts:time=0.1,iters=780,deal=placements",
                 "strong": "mcts:time=1,iters=2000,deal=placements"}

    def rewards(self) -> list[float]:
        """The search's graded reward: each player's chance to win, from the scores plus the rows' expected points
        and a normal spread of ROUND_SPREAD per round still to come. The rows' points: while cards are placed, each
        player's own-view estimate; on re-deals read from the placements (`informed`) and while a round is being
        scored, the projection reading the hands (`heuristic`). Exact shares once the game is really over. A chance
        instead of one drawn winner keeps the search's signal from drowning in noise."""
        n = self.num_players
        left = n - self.round  # rounds not played to the end, the current one included
        if self.phase == OVER and self.guessed_winners is None or left <= 0:
            return self.win_shares()
        if self.phase == OVER:
            values = self.scores
        elif self.phase == DOUBLE or self.informed:
            values = [self.heuristic(p) for p in range(n)]
        else:
            values = [self.scores[p] + self._own_view_value(p) for p in range(n)]
        scale = 2.0 * ROUND_SPREAD * math.sqrt(left)  # Phi(d / (sqrt 2 sigma)) = (1 + erf(d / 2 sigma)) / 2
        chances = [math.prod(0.5 * (1.0 + math.erf((values[p] - values[q]) / scale)) for q in range(n) if q != p)
                   for p in range(n)]
        total = sum(chances)
        return [x / total for x in chances]

    def _own_view_value(self, player: int) -> float:
        """The greedy estimate of this round's open rows for `player`, from `player`'s own view only."""
        others, _ = self._estimates(player)
        mine = self.colour_sums(player)
        total = 0.0
        for c in range(len(COLOURS)):
            devil, angel = self.row_sums[c]
            lean = row_lean(angel - devil, len(self.rows[c][0]) + len(self.rows[c][1]) >= ROW_CLOSES_AT)
            total += colour_value(mine[c], lean, others[c], self.num_players)
        return total

    def _projection(self) -> list[float]:
        """Expected points per player from the rows not yet scored this round (all hands known)."""
        n = self.num_players
        out = [0.0] * n
        if self.phase == OVER:
            return out
        ended = self.phase == DOUBLE
        start = self.scoring_row if ended else 0
        all_sums = [self.colour_sums(p) for p in range(n)]
        best_gain = [0.0] * n  # the best row for a doubler still in hand
        for c in range(start, len(COLOURS)):
            devil, angel = self.row_sums[c]
            lean = row_lean(angel - devil, self.closed[c] or ended)
            if not lean:
                continue
            sums = [all_sums[p][c] for p in range(n)]
            top = max(sums)
            if top <= 0:
                continue
            for p in range(n):
                if sums[p] == top:
                    out[p] += lean * top
                    if lean > 0 and self.doubler[p]:
                        if ended and c == self.scoring_row and p in self.commits:
                            if self.commits[p]:
                                out[p] += top  # committed for this very row
                        elif lean * top > best_gain[p]:
                            best_gain[p] = lean * top
        for p in range(n):
            if self.doubler[p] and not (ended and self.commits.get(p)):
                out[p] += best_gain[p]
        return out

    def _estimates(self, player: int) -> tuple[list[float], float]:
        """From `player`'s information only: the expected hand sum of one other player per colour, and how
        likely a given unseen card sits in another player's hand rather than in the draw pile."""
        n = self.num_players
        unseen = [float(self.colour_total)] * len(COLOURS)
        mine = self.colour_sums(player)
        for c in range(len(COLOURS)):
            unseen[c] -= self.row_sums[c][0] + self.row_sums[c][1] + mine[c]
        for k in self.discards:
            unseen[kind_colour(k)] -= kind_value(k)
        others = sum(map(len, self.hands)) - len(self.hands[player])
        share = others / max(1, others + len(self.deck))
        return [max(0.0, u) * share / (n - 1) for u in unseen], share

    def greedy_score(self, move: Move, player: int) -> float:
        """The greedy player's one-move estimate, from `player`'s own view only."""
        n = self.num_players
        others, _ = self._estimates(player)
        k, side = move._kind, move._side  # type: ignore[attr-defined]
        if move.verb == "double":
            c = self.scoring_row
            mine = self.colour_sum(player, c)
            p_top = top_chance(mine, others[c])
            later = any(self.row_sums[r][ANGEL] > self.row_sums[r][DEVIL] for r in range(c + 1, len(COLOURS)))
            gain = mine * p_top - (DOUBLER_RESERVE if later else 0.0)
            return gain if side else 0.0
        total = 0.0
        my_sums = self.colour_sums(player)
        for c in range(len(COLOURS)):
            devil, angel = self.row_sums[c]
            mine = my_sums[c]
            count = len(self.rows[c][0]) + len(self.rows[c][1])
            if kind_colour(k) == c:
                mine -= kind_value(k)
                if move.verb == "place":
                    if side == ANGEL:
                        angel += kind_value(k)
                    else:
                        devil += kind_value(k)
                    count += 1
            total += colour_value(mine, row_lean(angel - devil, count >= ROW_CLOSES_AT), others[c], n)
        return total

    def random_move(self, rng: random.Random) -> Move:
        """A uniformly random legal move (the random player's hook: no copy of the move list)."""
        if self._legal is None:
            self._legal = self._generate()
        return self._legal[int(rng.random() * len(self._legal))]

    def rollout_move(self, rng: random.Random) -> Move:
        """Playout policy: mostly the best quick estimate reading the (determinized) hands, sometimes random."""
        if self._legal is None:
            self._legal = self._generate()
        moves = self._legal
        if len(moves) == 1 or rng.random() < ROLLOUT_RANDOM:
            return moves[int(rng.random() * len(moves))]
        if self.phase == DOUBLE:
            return DOUBLE_YES if self._wants_double(self.asking[0], self.scoring_row) else DOUBLE_NO
        if moves[0].verb == "discard":
            return moves[int(rng.random() * len(moves))]
        p = self.turn
        n = self.num_players
        # per colour: my sum and the best other sum, read once
        mine_c = self.colour_sums(p)
        other_c = [0] * len(COLOURS)
        for q in range(n):
            if q != p:
                for c, x in enumerate(self.colour_sums(q)):
                    if x > other_c[c]:
                        other_c[c] = x
        share = 1.0 / (n - 1)
        rows, row_sums = self.rows, self.row_sums
        best, best_value = moves[0], -math.inf
        for move in moves:
            k, side = move._kind, move._side  # type: ignore[attr-defined]
            c, v = KIND_COLOUR[k], KIND_VALUE[k]
            devil, angel = row_sums[c]
            d = angel - devil
            closes = len(rows[c][0]) + len(rows[c][1]) + 1 >= ROW_CLOSES_AT
            before = TANH[d + TANH_OFFSET]
            d += v if side == ANGEL else -v
            after = ((d > 0) - (d < 0)) if closes else TANH[d + TANH_OFFSET]
            mine, other = mine_c[c], other_c[c]
            stake_before = mine if mine >= other else -other * share
            mine -= v
            stake_after = mine if mine >= other else -other * share
            value = after * stake_after - before * stake_before
            if value > best_value:
                best, best_value = move, value
        return best

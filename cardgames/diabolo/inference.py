"""Reading the others' hands from their placements this round: a re-deal of what a player cannot see, drawn in
proportion to how likely each other player's placements were with the hand it is dealt.

The model of a placement is the greedy estimate (estimate.py, the one `greedy_score` uses): a player holding sums `mine` per
colour values placing card k on a side by the change it makes to that colour's expected points, and picks among
its legal placements with probability proportional to exp(BELIEF_BETA x that change). A hand that makes the
actual placements likely (a player that sent a red 5 to the devil side probably does not lead red) weighs more.

The hand a player held at an earlier placement is its hand now plus the cards it placed since (the cards it drew
since are not taken out: they are unknown, and the approximation only blurs the estimate a little).

The re-deals come from a Metropolis chain over the unseen cards: swap a hidden card of one player with one of
another player or of the draw pile and keep the swap with probability min(1, likelihood ratio). The chain reads
only what the player sees (its own hand, the placements, shown cards, hand and pile sizes), so it never peeks.
Settings and figures: docs/diabolo.md.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from cardgames.diabolo.cards import ANGEL, DEVIL, KIND_COLOUR, KIND_VALUE, MAX_PER_SIDE, ROW_CLOSES_AT
from cardgames.diabolo.estimate import colour_value, row_lean

BELIEF_BETA = 1.0  # how sharply the model's placements follow the estimate (3 and 0.5 played worse: docs/ai.md)
BURN_IN = 300  # swaps before the first re-deal is kept
THIN = 10  # swaps between two kept re-deals
KEPT = 64  # re-deals kept per decision; each search iteration takes one of them at random


@dataclass(frozen=True)
class Placement:
    """One placement this round: who made it, the card, the side, and the rows as they stood before it."""

    player: int
    kind: int
    side: int
    sums: tuple[tuple[int, int], ...]  # per colour: (devil points, angel points)
    counts: tuple[tuple[int, int], ...]  # per colour: (devil cards, angel cards)


def placements(moves: Sequence, first_player: int, num_players: int, colours: int) -> list[Placement]:
    """This round's placements from its moves in order (places and forced discards, one a turn, the first made by
    `first_player`), with the rows replayed from empty."""
    sums = [[0, 0] for _ in range(colours)]
    counts = [[0, 0] for _ in range(colours)]
    out: list[Placement] = []
    for j, move in enumerate(moves):
        if move.verb != "place":
            continue
        k, side = move._kind, move._side
        out.append(Placement((first_player + j) % num_players, k, side,
                             tuple((a, b) for a, b in sums), tuple((a, b) for a, b in counts)))
        c = KIND_COLOUR[k]
        sums[c][side] += KIND_VALUE[k]
        counts[c][side] += 1
    return out


def log_likelihood(hand: Sequence[int], mine_steps: Sequence[Placement], colour_total: int, n: int,
                   share: float) -> float:
    """Log-probability of one player's placements this round (`mine_steps`, in order) if it holds `hand` now.
    `share` is how likely an unseen card is in some other hand rather than in the pile."""
    held = list(hand)
    total = 0.0
    for step in reversed(mine_steps):  # the hand at a placement: the hand now plus the cards placed since
        held.append(step.kind)
        mine = [0] * len(step.sums)
        for k in held:
            mine[KIND_COLOUR[k]] += KIND_VALUE[k]
        scores: dict[tuple[int, int], float] = {}
        for k in set(held):
            c, v = KIND_COLOUR[k], KIND_VALUE[k]
            (devil_n, angel_n), (devil, angel) = step.counts[c], step.sums[c]
            placed = devil_n + angel_n
            if placed >= ROW_CLOSES_AT:
                continue
            other = max(0.0, colour_total - devil - angel - mine[c]) * share / (n - 1)
            balance = angel - devil
            before = colour_value(mine[c], row_lean(balance, False), other, n)
            closes = placed + 1 >= ROW_CLOSES_AT
            for side, count, sign in ((DEVIL, devil_n, -1), (ANGEL, angel_n, 1)):
                if count < MAX_PER_SIDE:
                    after = colour_value(mine[c] - v, row_lean(balance + sign * v, closes), other, n)
                    scores[(k, side)] = BELIEF_BETA * (after - before)
        chosen = scores.get((step.kind, step.side))
        if chosen is None:  # cannot happen with the true hand; a blurred one may miss a side: no evidence
            continue
        top = max(scores.values())
        total += chosen - top - math.log(sum(math.exp(s - top) for s in scores.values()))
    return total


def sample_hands(hidden: dict[int, list[int]], fixed: dict[int, list[int]], pile: list[int],
                 steps: Sequence[Placement], colour_total: int, n: int, rng: random.Random,
                 kept: int = KEPT) -> list[tuple[dict[int, list[int]], list[int]]]:
    """`kept` re-deals of the unseen cards, each as (the other players' whole hands, the pile), from a Metropolis
    chain started at the re-deal given (`hidden`: per other player its unseen cards; `fixed`: cards everybody
    has seen in that hand; `pile`: the rest). The lists given are used up."""
    share = sum(map(len, hidden.values())) / max(1, sum(map(len, hidden.values())) + len(pile))
    own = {q: [s for s in steps if s.player == q] for q in hidden}

    def ll(q: int) -> float:
        return log_likelihood(fixed[q] + hidden[q], own[q], colour_total, n, share)

    value = {q: ll(q) for q in hidden}
    movable = [q for q in hidden if hidden[q] and own[q]]  # nothing to learn about a player yet to place
    spots = [(q, j) for q in hidden for j in range(len(hidden[q]))]
    out: list[tuple[dict[int, list[int]], list[int]]] = []
    for step in range(BURN_IN + THIN * kept):
        if movable:
            q = movable[int(rng.random() * len(movable))]
            a = int(rng.random() * len(hidden[q]))
            pick = int(rng.random() * (len(spots) + len(pile)))
            if pick < len(spots):
                r, j = spots[pick]
                if r != q:
                    hidden[q][a], hidden[r][j] = hidden[r][j], hidden[q][a]
                    new_q, new_r = ll(q), ll(r)
                    delta = new_q + new_r - value[q] - value[r]
                    if delta >= 0 or rng.random() < math.exp(delta):
                        value[q], value[r] = new_q, new_r
                    else:
                        hidden[q][a], hidden[r][j] = hidden[r][j], hidden[q][a]
            else:
                j = pick - len(spots)
                hidden[q][a], pile[j] = pile[j], hidden[q][a]
                new_q = ll(q)
                delta = new_q - value[q]
                if delta >= 0 or rng.random() < math.exp(delta):
                    value[q] = new_q
                else:
                    hidden[q][a], pile[j] = pile[j], hidden[q][a]
        if step >= BURN_IN and (step - BURN_IN) % THIN == THIN - 1:
            out.append(({q: sorted(fixed[q] + hidden[q]) for q in hidden}, list(pile)))
    return out

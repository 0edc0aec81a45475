"""The greedy estimate of one colour's points, shared by the greedy player and the search (search.py) and by the
model of the others' placements (inference.py): how surely a row ends angel or devil, and how likely a hand sum
is the highest."""

from __future__ import annotations

import math

from cardgames.diabolo.cards import MAX_VALUE

BALANCE_SCALE = 4.0  # how many points of lead make an open row's outcome "likely" in the estimates
OTHERS_FACTOR = 1.6  # 1.6 x one other player's expected sum stands in for the best of the others
TOP_SCALE = 1.5  # spread of the chance of holding the highest sum

TANH_OFFSET = 3 * MAX_VALUE * 2  # row balances lie within +-(3 cards x 9) and one more card
TANH = [math.tanh((i - TANH_OFFSET) / BALANCE_SCALE) for i in range(2 * TANH_OFFSET + 1)]


def row_lean(balance: int, closed: bool) -> float:
    """How surely a row ends angel (+1) or devil (-1): exact once closed, an estimate while open."""
    if closed:
        return (balance > 0) - (balance < 0)
    return TANH[balance + TANH_OFFSET]


def top_chance(mine: int, other: float) -> float:
    """The chance that no other player's sum of a colour beats `mine`, given one other's expected sum."""
    return 1.0 / (1.0 + math.exp((OTHERS_FACTOR * other - mine) / TOP_SCALE)) if mine else 0.0


def colour_value(mine: int, lean: float, other: float, n: int) -> float:
    """Expected points from one colour: mine if my sum is likely the highest, minus the others' share."""
    if not lean:
        return 0.0
    p_top = top_chance(mine, other)
    return lean * (mine * p_top - (1.0 - p_top) * OTHERS_FACTOR * other / (n - 1))

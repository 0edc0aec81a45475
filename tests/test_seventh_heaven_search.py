"""In 7th Heaven's fast search paths against the slow ones they replace: the same moves from the same random
numbers, on positions of random games of every size and several rule options."""

from __future__ import annotations

import random

import pytest

from cardgames.seventh_heaven import SeventhHeavenState
from tower.games.ai import make_agent
from tower.games.base import GameState

OPTIONS = [{}, {"track_length": 15, "specials": "3:must,5:9,7:may"}, {"colours": 4, "text_cards": True,
                                                                     "white_sets": 2, "arrow_copies": 2}]


def positions(count: int, seed: int = 0) -> list[SeventhHeavenState]:
    """`count` positions of random games (2-6 players, some rule options), from the opening play to the end."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        players = rng.choice([2, 3, 4, 5, 6])
        options = rng.choice(OPTIONS)
        if options.get("colours", 6) < players * (2 if players <= 3 else 1):
            continue
        s = SeventhHeavenState(players, rng.randrange(10**6), dict(options))
        for _ in range(rng.randrange(120)):
            if s.is_over:
                break
            s.apply(s.random_move(rng))
        out.append(s)
    return out


def test_fast_playouts_make_the_moves_of_rollout_move_from_the_same_random_numbers():
    checked = 0
    for i, s in enumerate(positions(120)):
        rng = random.Random(i)
        start = s.determinize(s.current_player, rng) if not s.is_over else s.clone()
        fast, slow = start.clone(), start.clone()
        fast_rng, slow_rng = random.Random(i), random.Random(i)
        fast.playout(fast_rng, 200)
        GameState.playout(slow, slow_rng, 200)  # the general loop: rollout_move, then _apply
        assert fast.to_json() == slow.to_json()  # the whole game: every move, the hands, the deck
        assert fast_rng.getstate() == slow_rng.getstate()
        checked += len(fast.history) - len(start.history)
    assert checked > 1000  # the positions led to many playout moves


def test_fast_playouts_stop_after_the_limit_and_at_the_end():
    s = SeventhHeavenState(4, 3)
    s.apply(s.legal_moves()[0])
    d = s.determinize(s.current_player, random.Random(1))
    before = len(d.history)
    d.playout(random.Random(2), 5)
    assert len(d.history) == before + 5
    d.playout(random.Random(2), 10_000)
    assert d.is_over


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_search_with_an_iteration_cap_decides_as_with_the_slow_playouts(players, monkeypatch):
    states = [s for s in positions(40, seed=players) if s.num_players == players and not s.is_over][:3]
    states = states or [SeventhHeavenState(players, 5)]
    fast = [make_agent("mcts:iters=60", seed=i).choose(s.clone()) for i, s in enumerate(states)]
    monkeypatch.setattr(SeventhHeavenState, "playout", GameState.playout)
    slow = [make_agent("mcts:iters=60", seed=i).choose(s.clone()) for i, s in enumerate(states)]
    assert fast == slow

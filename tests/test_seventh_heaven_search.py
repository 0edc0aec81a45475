"""In 7th Heaven's fast search paths against the slow ones they replace: the same moves from the same random
numbers, on positions of random games of every size and several rule options."""

from __future__ import annotations

import random

import pytest

from cardgames.seventh_heaven import COLOURS, KIND_NAME, SeventhHeavenState
from cardgames.seventh_heaven.cards import KIND_COLOUR, KIND_TYPE, TEXT
from tower.games.ai import make_agent
from tower.games.base import GameState, shuffle

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


def plain_plays(s: SeventhHeavenState) -> list[str]:
    """The play-phase moves after the opening as the rule text lists them, written plainly (the state's listing
    takes its moves from tables made once)."""
    p = s.current_player
    live = [c for c in range(s.ncol) if s.pos[c] < s.length]
    mine = [c for c in live if s.holder[c] == p]
    gives = [f" give {COLOURS[c]}" for c in mine] if s.pairs else [""]
    out = []
    for k in set(s.hands[p]):
        name, c = KIND_NAME[k], KIND_COLOUR[k]
        if KIND_TYPE[k] != TEXT and c >= 0:
            out.append(f"play {name}")
            if c in live and s.holder[c] != p:
                out += [f"trade {name}{g}" for g in gives]
        elif KIND_TYPE[k] != TEXT:
            out += [f"play {name} {COLOURS[c2]}" for c2 in live] or [f"play {name}"]
        elif name == "heart":
            takes = [t for t in live if s.holder[t] != p]
            out += [f"play heart {COLOURS[t]}{g}" for t in takes for g in gives] or ["play heart"]
        elif name == "mushroom":
            out += [f"play mushroom {n}" for n in range(1, min(4, len(s.deck)) + 1)] or ["play mushroom 0"]
        elif name == "foot":
            out += [f"play foot {n} {COLOURS[c2]}" for c2 in s._front() for n in (1, 2, 3)] or ["play foot 1"]
        elif name == "finger":
            out += [f"play finger {COLOURS[c2]}" for c2 in mine] or ["play finger"]
        else:
            out.append(f"play {name}")
    return sorted(out)


def test_the_listing_of_moves_is_the_rule_texts():
    seen = 0
    for s in positions(300, seed=11):
        if s.phase == "play" and not s.opening:
            assert [str(m) for m in s.legal_moves()] == plain_plays(s)
            seen += 1
    assert seen > 100


def test_win_shares_are_the_results_winners():
    for s in positions(60, seed=12):
        d = s.determinize(s.current_player, random.Random(1)) if not s.is_over else s.clone()
        d.stop_at_winner = False
        d.playout(random.Random(2), 10_000)
        winners = d.result()["winners"]
        assert d.win_shares() == [1 / len(winners) if p in winners else 0.0 for p in range(d.num_players)]


def test_shuffle_draws_as_random_shuffle():
    for n in (0, 1, 2, 3, 7, 8, 9, 33, 64, 65, 99):
        for seed in range(5):
            fast, slow = list(range(n)), list(range(n))
            fast_rng, slow_rng = random.Random(seed), random.Random(seed)
            shuffle(fast, fast_rng)
            slow_rng.shuffle(slow)
            assert fast == slow and fast_rng.getstate() == slow_rng.getstate()


def test_clone_and_determinize_copy_the_state_and_share_nothing():
    s = positions(1, seed=13)[0]
    c = s.clone()
    assert c.to_json() == s.to_json()
    c.hands[0].append(c.deck.pop())
    c.rng.random()
    assert c.to_json() != s.to_json()
    d = s.determinize(s.current_player, random.Random(1))
    d.pos[0] += 1
    d.holder[0] = 3
    assert s.to_json() == s.clone().to_json() and d.pos != s.pos and d.rng is not s.rng

"""Diabolo's re-deals read from the placements (`deal=placements`): they keep what the player sees, never read what
it cannot, and know the others' hands better than a uniform re-deal."""

from __future__ import annotations

import random
import statistics

import pytest

from cardgames.diabolo import DiaboloState
from cardgames.diabolo.cards import DOUBLE, KIND_COLOUR, KIND_VALUE, PLAY
from cardgames.diabolo.inference import log_likelihood, placements
from tower.app.seats import parse_players
from tower.games import game_class, new_game
from tower.games.ai import MCTSAgent, make_agent
from tower.games.errors import BadInput


def greedy_game(seed: int, moves: int) -> DiaboloState:
    """A 4-player game of greedy players, `moves` moves in (stopped early at a doubler question or the end)."""
    state = DiaboloState(4, seed)
    agents = [make_agent("greedy", seed=seed * 10 + p) for p in range(4)]
    for _ in range(moves):
        if state.phase != PLAY:
            break
        state.apply(agents[state.current_player].choose(state))
    return state


def colour_sums(hand: list[int]) -> list[int]:
    sums = [0] * 5
    for k in hand:
        sums[KIND_COLOUR[k]] += KIND_VALUE[k]
    return sums


def test_the_placements_replay_the_round_in_order():
    state = DiaboloState(3, 2)
    rng = random.Random(2)
    checked = set()
    movers: list[int] = []
    start, round_ = 0, 0
    while not state.is_over and len(checked) < 2:
        if state.phase == PLAY:
            movers.append(state.current_player)
        state.apply(rng.choice(state.legal_moves()))
        if state.round != round_:  # a new deal: its moves start here
            start, round_, movers = len(state.history), state.round, []
        if len(movers) == 7 and state.phase == PLAY:
            moves = state.history[start:]
            steps = placements(moves, (state.dealer + 1) % 3, 3, 5)
            assert [s.player for s in steps] == [p for p, m in zip(movers, moves, strict=True) if m.verb == "place"]
            last = steps[-1]
            c = KIND_COLOUR[last.kind]
            before = list(last.sums[c])
            before[last.side] += KIND_VALUE[last.kind]
            assert before == state.row_sums[c]  # the rows before the last placement, plus it, are the rows now
            checked.add(state.round)
    assert checked == {0, 1}  # the first round and one dealt by another dealer


def test_redeals_keep_what_the_player_sees_and_move_only_unseen_cards():
    state = greedy_game(5, 15)
    assert state.phase == PLAY
    me = state.current_player
    redeal = state.redealer(me, random.Random(1), "placements")
    for _ in range(20):
        copy = redeal()
        assert copy.view(me) == state.view(me)
        assert sorted(sum(copy.hands, []) + copy.deck) == sorted(sum(state.hands, []) + state.deck)
    assert any(redeal().hands[(me + 1) % 4] != state.hands[(me + 1) % 4] for _ in range(20))


def test_redeals_keep_the_view_while_doublers_are_asked_and_across_rounds():
    seen = set()
    for seed in range(3):
        state = DiaboloState(3 + seed, seed)
        agents = [make_agent("greedy", seed=seed * 10 + p) for p in range(state.num_players)]
        while not state.is_over:
            me = state.current_player
            if len(state.history) % 5 == 0 or state.phase != PLAY:
                redeal = state.redealer(me, random.Random(len(state.history)), "placements")
                for _ in range(3):
                    copy = redeal()
                    assert copy.view(me) == state.view(me) and copy.informed
                    assert sorted(sum(copy.hands, []) + copy.deck) == sorted(sum(state.hands, []) + state.deck)
                seen.add(state.phase)
            state.apply(agents[me].choose(state))
    assert seen == {PLAY, DOUBLE}


def test_redeals_never_read_the_hidden_cards():
    state = greedy_game(7, 13)
    assert state.phase == PLAY
    me = state.current_player
    # a state the player cannot tell apart: two other players' unseen cards and the pile shuffled among them
    other = state.clone()
    a, b = [q for q in range(4) if q != me][:2]
    pool = other.hands[a] + other.hands[b] + other.deck
    random.Random(3).shuffle(pool)
    other.hands[a], other.hands[b] = sorted(pool[:len(state.hands[a])]), sorted(pool[len(state.hands[a]):][:len(state.hands[b])])
    other.deck = pool[len(state.hands[a]) + len(state.hands[b]):]
    assert other.view(me) == state.view(me) and other.hands != state.hands
    first = state.redealer(me, random.Random(9), "placements")
    second = other.redealer(me, random.Random(9), "placements")
    for _ in range(10):
        x, y = first(), second()
        assert x.hands == y.hands and sorted(x.deck) == sorted(y.deck)


def test_the_placements_tell_the_others_hands_better_than_a_uniform_redeal():
    read, uniform, true_ll, redeal_ll = [], [], [], []
    for seed in range(8):
        state = greedy_game(100 + seed, 14 + seed % 5)
        if state.phase != PLAY:
            continue
        me = state.current_player
        others = [q for q in range(4) if q != me]
        truth = {q: colour_sums(state.hands[q]) for q in others}
        rng = random.Random(seed)
        redeal = state.redealer(me, rng, "placements")
        for _ in range(32):
            x, y = redeal(), state.determinize(me, rng)
            read += [abs(a - b) for q in others for a, b in zip(colour_sums(x.hands[q]), truth[q], strict=True)]
            uniform += [abs(a - b) for q in others for a, b in zip(colour_sums(y.hands[q]), truth[q], strict=True)]
        steps = placements(state.history, 0, 4, 5)
        for q in others:
            own = [s for s in steps if s.player == q]
            true_ll.append(log_likelihood(state.hands[q], own, state.colour_total, 4, 0.5))
            redeal_ll.append(log_likelihood(state.determinize(me, rng).hands[q], own, state.colour_total, 4, 0.5))
    # greedy players place by the very estimate the model reads: their true hands explain their placements best
    assert statistics.mean(true_ll) > statistics.mean(redeal_ll) + 1.0
    assert statistics.mean(read) < 0.93 * statistics.mean(uniform)


def test_the_redeal_is_a_setting_of_the_games_that_offer_it():
    diabolo = game_class("diabolo")
    agent = make_agent("mcts:deal=placements,iters=40", seed=1, game=diabolo)
    assert isinstance(agent, MCTSAgent) and agent.deal == "placements"
    state = greedy_game(3, 9)
    assert agent.choose(state) in state.legal_moves()
    with pytest.raises(BadInput, match="climbers has no search re-deal 'placements'"):
        make_agent("mcts:deal=placements", game=game_class("climbers"))
    with pytest.raises(BadInput, match="--players: .*diabolo has no search re-deal 'nope'"):
        parse_players("human,mcts:deal=nope,greedy", "diabolo")
    with pytest.raises(BadInput, match="has no search re-deal 'placements'"):
        make_agent("mcts:deal=placements").choose(new_game("partners", seed=1))

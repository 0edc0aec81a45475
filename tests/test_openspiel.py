"""The OpenSpiel adapter (extra `openspiel`): OpenSpiel's own random-simulation test for every game and player
count, serialisation, re-dealing for information-set search, and OpenSpiel's MCTS / IS-MCTS as players.

TOWER_SLOW=1 runs more simulations per case.
"""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
tos = pytest.importorskip("tower.games.interop.openspiel")

from tower.games import game_class, game_names, new_game  # noqa: E402
from tower.games.ai import make_agent  # noqa: E402
from tower.games.errors import BadInput  # noqa: E402
from tower.games.interop.actions import codec_for  # noqa: E402

SIMS = 6 if os.environ.get("TOWER_SLOW") == "1" else 1
CASES = [(name, n) for name in game_names() for n in game_class(name).allowed_players()]
HIDDEN = [name for name in game_names() if not game_class(name).perfect_information]
#: Random Partners games can run to thousands of moves; CI ends them at a move limit (a draw).
SHORT = {} if os.environ.get("TOWER_SLOW") == "1" else {"partners": {"move_limit": 400}}


def _played(game, steps: int, seed: int = 1):
    """An OpenSpiel state after `steps` random actions (fewer if the game ends)."""
    state = game.new_initial_state()
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("name", "players"), CASES)
def test_random_simulation_test_passes(name, players):
    game = tos.load_game(name, players=players, seed=players, **SHORT.get(name, {}))
    pyspiel.random_sim_test(game, num_sims=SIMS, serialize=True, verbose=False)


@pytest.mark.parametrize("name", game_names())
def test_each_game_is_registered_with_its_facts(name):
    game = pyspiel.load_game(tos.short_name(name))
    kind = game.get_type()
    assert game.num_distinct_actions() == codec_for(name).num_actions
    assert game.num_players() == game_class(name).default_players
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    perfect = kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert perfect == game_class(name).perfect_information != kind.provides_information_state_tensor
    assert kind.provides_information_state_string
    state = game.new_initial_state()
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()
    # the same parameters give the same game: the seed is a parameter
    assert str(game.new_initial_state()) == str(pyspiel.load_game(str(game)).new_initial_state())


def test_text_options_travel_in_game_strings():
    game = tos.load_game("diabolo", players=3, seed=9, values="1;2;3;4;5;6", hand_size=4)
    again = pyspiel.load_game(str(game))
    assert again.tower_name == "diabolo" and again.prototype.values == [1, 2, 3, 4, 5, 6]
    assert str(again.new_initial_state()) == str(game.new_initial_state())
    deck = ";".join(f"{card}@9" for card in ("heart", "1/14", "2", "3", "-4", "5", "6", "7", "8", "9", "10", "12",
                                               "13", "switch"))
    game = tos.load_game("partners", deck=deck)
    assert set(pyspiel.load_game(str(game)).prototype.deck_counts.values()) == {9}
    game = tos.load_game("seventh-heaven", players=3, specials="3:7;5:must;11:2")
    assert pyspiel.load_game(str(game)).prototype.options["specials"] == "3:7,5:must,11:2"


def test_bad_parameters_are_refused():
    with pytest.raises(BadInput):
        tos.load_game("partners", players=5)
    with pytest.raises(BadInput):
        tos.load_game("diabolo", hand_size=99)


def test_a_half_chosen_move_survives_serialisation():
    game = tos.load_game("climbers", players=2, seed=3)
    state = game.new_initial_state()
    state.apply_action(0)  # skip the first figure move: the block move comes next
    block = next(a for a in state.legal_actions() if state.action_to_string(a).startswith("block"))
    state.apply_action(block)
    assert state.game_state.phase == "block" and state.stepper.fixed
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(again) == str(state) and again.legal_actions() == state.legal_actions()
    assert again.history() == state.history()
    assert again.observation_string(0) == state.observation_string(0) != state.observation_string(1)


@pytest.mark.parametrize("name", HIDDEN)
def test_resampling_keeps_what_the_player_sees_and_redeals_the_rest(name):
    game = tos.load_game(name, seed=11)
    state = _played(game, 12)
    me = state.current_player()
    others = [q for q in range(game.num_players()) if q != me]
    changed = False
    for seed in range(6):
        world = state.resampled(me, random.Random(seed))
        assert world.observation_string(me) == state.observation_string(me)
        assert world.observation_tensor(me) == state.observation_tensor(me)
        assert world.legal_actions() == state.legal_actions()
        changed |= any(world.observation_string(q) != state.observation_string(q) for q in others)
    assert changed, "some re-deal must differ from the real hands"


def test_climbers_information_state_is_the_public_move_list():
    game = tos.load_game("climbers", players=3, seed=2)
    start = game.new_initial_state()
    state = _played(game, 6)
    texts = {state.information_state_string(p) for p in range(3)}
    assert len(texts) == 1 and texts != {start.information_state_string(0)}
    assert state.clone().information_state_string(0) == state.information_state_string(0)


def test_openspiel_searchers_play_whole_card_games():
    for name, players, steps in (("diabolo", 3, None), ("seventh-heaven", 2, None), ("partners", 4, 8)):
        state = new_game(name, players, seed=21)
        agents = [make_agent("ai:openspiel-ismcts:sims=8,rollout=10", seed=1),
                  make_agent("ai:openspiel-mcts:sims=8,rollout=10", seed=2)] + \
            [make_agent("random", seed=3 + p) for p in range(players - 2)]
        moves = 0
        while not state.is_over and (steps is None or moves < steps):
            state.apply(agents[state.current_player].choose(state))  # apply refuses an illegal move
            moves += 1
        assert steps is not None or state.is_over and state.result()["winners"], name


def test_openspiel_searchers_play_climbers_moves():
    state = new_game("climbers", 2, seed=5)
    agents = [make_agent("ai:openspiel-mcts:sims=4,rollout=2", seed=1),
              make_agent("ai:openspiel-ismcts:sims=4,rollout=2", seed=2)]
    while len(state.history) < 8 and not state.is_over:
        state.apply(agents[state.current_player].choose(state))
    assert len(state.history) == 8 or state.is_over


@pytest.mark.parametrize("spec", ["ai:openspiel-mcts:time=1", "ai:openspiel-ismcts:sims=many",
                                  "ai:openspiel-mcts:sims=0"])
def test_bad_search_settings_are_refused(spec):
    with pytest.raises(BadInput):
        make_agent(spec)


#: In 7th Heaven at its smallest: 2 players, 4 colours, one card of each +1..+5 per colour, hands of 4, the
#: shortest track and no special spaces (about 25 moves of 4 choices).
SHORT_DECK = dict(colours=4, forward_copies=1, backward_copies=0, white_sets=0, arrow_copies=0, text_cards=False,
                  hand_size=4, track_length=15, specials="")


@pytest.mark.parametrize("name", HIDDEN)
def test_information_states_hide_exactly_what_the_view_hides(name):
    """A re-deal of what the player cannot see (`resampled`) changes none of the player's information state or
    observation, as string or tensor, but changes another player's; the tensors have the advertised sizes."""
    game = tos.load_game(name, seed=4, **SHORT.get(name, {}))
    state = _played(game, 10)
    me = state.current_player()
    others = [q for q in range(game.num_players()) if q != me]
    assert len(state.information_state_tensor(me)) == game.information_state_tensor_size()
    told_apart = False
    for seed in range(4):
        world = state.resampled(me, random.Random(seed))
        assert world.information_state_string(me) == state.information_state_string(me)
        assert world.information_state_tensor(me) == state.information_state_tensor(me)
        assert world.observation_tensor(me) == state.observation_tensor(me)
        told_apart |= any(world.information_state_string(q) != state.information_state_string(q) for q in others)
    assert told_apart, "another player's information state must show their own (re-dealt) hand"


@pytest.mark.parametrize("name", HIDDEN)
def test_information_state_recalls_the_past_and_is_the_same_however_it_was_kept(name):
    """Kept move by move from the start, or replayed from the record after a save: the same strings and
    tensors. A player's information state changes with every move (they remember having seen it)."""
    game = tos.load_game(name, seed=6, recall=12, **SHORT.get(name, {}))
    state = game.new_initial_state()
    seen = [state.information_state_string(0)]  # asked at the start: from here on the trail is kept move by move
    rng = random.Random(2)
    for _ in range(12):
        state.apply_action(rng.choice(state.legal_actions()))
        seen.append(state.information_state_string(0))
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    for p in range(game.num_players()):
        assert again.information_state_string(p) == state.information_state_string(p)
        assert again.information_state_tensor(p) == state.information_state_tensor(p)
    assert len(set(seen)) == len(seen)
    # the recall part names the moves the player saw, the last one first: here, the move just made
    tensor = np.asarray(state.information_state_tensor(0))
    recall = tensor[len(state.observation_tensor(0)):].reshape(12, -1)
    assert recall.sum() > 0 and recall[0, :game.num_players()].sum() == 1


def test_partners_recall_hides_the_card_passed_face_down():
    """In the exchange a card goes face down to the partner: the other team sees that a card was passed, not
    which; the giver sees it in full."""
    game = tos.load_game("partners", seed=3, recall=4, move_limit=400)
    state = game.new_initial_state()
    giver = state.current_player()
    assert state.stepper.state.phase == "exchange"
    state.apply_action(state.legal_actions()[0])
    players = game.num_players()
    opponent = (giver + 1) % players
    mine = np.asarray(state.information_state_tensor(giver))[len(state.observation_tensor(giver)):]
    theirs = np.asarray(state.information_state_tensor(opponent))[len(state.observation_tensor(opponent)):]
    assert mine[players] == 0 and mine[players + 1:].sum() >= 1  # the giver knows the card
    assert theirs[players] == 1 and theirs[players + 1:].sum() == 0  # the other side: hidden


def test_a_dealt_game_begins_with_the_deal_at_a_chance_node():
    game = tos.load_game("seventh-heaven", dealt=True, players=2, deals=3, seed=40, **SHORT_DECK)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = game.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(k, 1 / 3) for k in range(3)]
    deals = set()
    for k in range(3):
        child = state.child(k)
        assert not child.is_chance_node() and child.game_state.seed == 40 + k
        deals.add(json.dumps(child.game_state.hands))
    assert len(deals) == 3
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_outcome_sampling_cfr_learns_a_policy_over_information_states():
    """OpenSpiel's outcome-sampling Monte Carlo CFR, which keys everything by information state, runs on the
    short-deck In 7th Heaven: its average policy is a distribution over the legal actions, and it is the same in
    two positions a player cannot tell apart (benchmarks/bench_solvers.py measures how it plays)."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = tos.load_game("seventh-heaven", dealt=True, players=2, deals=2, recall=30, **SHORT_DECK)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    np.random.seed(0)  # the solver samples with numpy's global generator
    for _ in range(30):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state().child(0)
    me = state.current_player()
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and abs(sum(probs.values()) - 1) < 1e-9
    assert len(set(probs.values())) > 1, "30 iterations visit the first decision: it is no longer uniform"
    world = state.resampled(me, random.Random(1))
    assert world.game_state.hands[1 - me] != state.game_state.hands[1 - me]
    assert policy.action_probabilities(world) == probs

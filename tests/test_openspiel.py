"""The OpenSpiel adapter (extra `openspiel`): OpenSpiel's own random-simulation test for every game and player
count, serialisation, re-dealing for information-set search, and OpenSpiel's MCTS / IS-MCTS as players.

TOWER_SLOW=1 runs more simulations per case.
"""

from __future__ import annotations

import os
import random

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
    assert perfect == game_class(name).perfect_information == kind.provides_information_state_string
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

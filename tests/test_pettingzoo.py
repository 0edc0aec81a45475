"""The PettingZoo adapter (extra `rl`): PettingZoo's own API and seed tests for every game, action masks that
are exactly the legal actions, seeds that name the game, and rewards that share the win.

TOWER_SLOW=1 runs the API test over more cycles and every player count.
"""

from __future__ import annotations

import functools
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from tower.games import game_class, game_names, new_game  # noqa: E402
from tower.games.interop.pettingzoo import env  # noqa: E402

SLOW = os.environ.get("TOWER_SLOW") == "1"
CYCLES = 1000 if SLOW else 150
CASES = [(name, n) for name in game_names()
         for n in (game_class(name).allowed_players() if SLOW else (game_class(name).default_players,))]


@pytest.mark.parametrize(("name", "players"), CASES)
def test_pettingzoo_api_and_seed_tests_pass(name, players):
    with warnings.catch_warnings():
        # PettingZoo warns about every dict observation (as for its own masked classic games)
        warnings.filterwarnings("ignore", message="Observation (space for each agent|is not a NumPy)")
        api_test(env(name, players=players, seed=3), num_cycles=CYCLES)
        seed_test(functools.partial(env, name, players=players), num_cycles=CYCLES)


@pytest.mark.parametrize("name", game_names())
def test_the_mask_is_exactly_the_legal_actions_and_the_win_is_shared(name):
    options = {"move_limit": 150} if name == "partners" else {}  # a long random game ends as a draw there
    e = env(name, seed=8, options=options)
    e.reset(seed=8)
    raw = e.unwrapped
    rng = np.random.default_rng(8)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        assert e.observation_space(agent).contains(obs)
        legal = raw.stepper.legal_actions()
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        for other in e.possible_agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(int(rng.choice(legal)))
    state = raw.stepper.state
    winners = state.result()["winners"] or list(range(state.num_players))
    assert sum(total.values()) == pytest.approx(1.0)
    assert all(total[f"player_{p}"] == pytest.approx(1 / len(winners)) for p in winners)


@pytest.mark.parametrize("name", game_names())
def test_reset_with_a_seed_plays_the_game_of_that_seed(name):
    e = env(name, seed=0)
    for seed in (5, 6):
        e.reset(seed=seed)
        assert e.unwrapped.stepper.state.to_json() == new_game(name, seed=seed).to_json()
    e.reset()  # the next seed comes from a generator seeded by the last explicit seed
    first = e.unwrapped.stepper.state.seed
    e.reset(seed=6)
    e.reset()
    assert e.unwrapped.stepper.state.seed == first


def test_an_illegal_action_is_refused():
    e = env("diabolo", seed=1)
    e.reset(seed=1)
    legal = set(e.unwrapped.stepper.legal_actions())
    with pytest.raises(ValueError):
        e.step(next(a for a in range(e.action_space(e.agent_selection).n) if a not in legal))

"""The action-id encoding and the stepper under both adapters (no optional extra needed).

Every legal move of every game must be reachable by exactly one sequence of action ids, all inside the game's
fixed bound; a half-chosen move must survive a save; the numeric observations must keep their size and range.
"""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from tower.games import game_class, game_names, new_game
from tower.games.interop.actions import EncodingError, codec_for
from tower.games.interop.features import observation
from tower.games.interop.stepper import Stepper, final_returns

CASES = [(name, n) for name in game_names() for n in game_class(name).allowed_players()]
STEPS = 40  # decisions per playout: enough to reach every phase of a turn
SAMPLE = 25  # legal moves round-tripped per decision (The Climbers has thousands)


def _playout(game: str, players: int, seed: int):
    """Yield a stepper at the start of each decision of a seeded random playout."""
    stepper = Stepper(new_game(game, players, seed))
    rng = random.Random(seed)
    for _ in range(STEPS):
        if stepper.is_over:
            return
        yield stepper, rng
        for action in stepper.actions_for(rng.choice(stepper.candidates())):
            stepper.apply_action(action)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_legal_move_has_one_bounded_action_path(game, players):
    codec = codec_for(game)
    for stepper, rng in _playout(game, players, seed=3):
        moves = stepper.candidates()
        for move in rng.sample(moves, min(SAMPLE, len(moves))):
            probe = stepper.copy()
            done = len(probe.state.history)
            path = stepper.actions_for(move)
            for i, action in enumerate(path):
                assert 0 <= action < codec.num_actions
                assert action in probe.legal_actions()
                assert probe.legal_actions() == sorted(set(probe.legal_actions()))
                result = probe.apply_action(action)
                assert (result is None) == (i < len(path) - 1), f"{move}: the move completes only at its last id"
            assert probe.state.history[done:] == [move]


@pytest.mark.parametrize("game", game_names())
def test_a_move_has_the_same_ids_wherever_it_is_legal(game):
    codec = codec_for(game)
    keys: dict[str, tuple[int, ...]] = {}
    for stepper, rng in _playout(game, game_class(game).default_players, seed=5):
        moves = stepper.candidates()
        for move in rng.sample(moves, min(4 * SAMPLE, len(moves))):
            assert keys.setdefault(str(move), codec.key(stepper.state, move)) == codec.key(stepper.state, move)
    assert len(keys) > STEPS


def test_a_half_chosen_move_survives_a_save():
    stepper = Stepper(new_game("climbers", 3, seed=2))
    stepper.apply_action(stepper.actions_for(next(m for m in stepper.candidates() if m.kind == "skip"))[0])
    assert stepper.state.phase == "block"
    block = next(m for m in stepper.candidates() if m.kind == "block")
    stepper.apply_action(stepper.actions_for(block)[0])
    assert stepper.fixed and all(m.block == block.block for m in stepper.candidates())
    again = Stepper.from_json(stepper.to_json())
    assert again.fixed == stepper.fixed
    assert again.legal_actions() == stepper.legal_actions()
    assert again.candidates() == stepper.candidates()


def test_an_illegal_action_is_refused_and_changes_nothing():
    stepper = Stepper(new_game("diabolo", 4, seed=1))
    legal = set(stepper.legal_actions())
    before = stepper.state.to_json()
    for action in (next(a for a in range(stepper.codec.num_actions) if a not in legal), -1,
                   stepper.codec.num_actions):
        with pytest.raises(ValueError):
            stepper.apply_action(action)
    assert stepper.state.to_json() == before


def test_a_move_beyond_the_encodings_bounds_fails_loudly():
    from tower.climbers.moves import ClimbersMove

    state = new_game("climbers", 2, seed=1)
    pushes = tuple(((1, 1, 2), (i, 2, 2)) for i in range(6))  # more pushed figures than figures exist
    move = ClimbersMove("block", cell=(1, 1, 2), block=state.ids[0], size=(2, 2, 2), top=0, pushes=pushes)
    with pytest.raises(EncodingError):
        codec_for("climbers").key(state, move)


@pytest.mark.parametrize("game", game_names())
def test_the_winners_share_the_returns(game):
    state = new_game(game, seed=4)
    rng = random.Random(4)
    assert final_returns(state) == [0.0] * state.num_players
    while not state.is_over:
        state.apply(rng.choice(state.legal_moves()))
    returns = final_returns(state)
    assert sum(returns) == pytest.approx(1.0)
    winners = state.result()["winners"]
    assert all(returns[p] == pytest.approx(1 / len(winners)) for p in winners)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_observations_keep_their_size_and_range(game, players):
    sizes = set()
    for stepper, _ in _playout(game, players, seed=7):
        for p in range(players):
            vector = observation(game, stepper.state.view(p), p, players)
            sizes.add(vector.shape)
            assert vector.dtype == np.float32 and np.all(np.abs(vector) <= 1.0)
    assert len(sizes) == 1


def test_importing_the_rules_does_not_import_the_adapters():
    code = ("import sys, tower, tower.games.ai, tower.games, cardgames.diabolo, cardgames.partners; "
            "bad = [m for m in ('pyspiel', 'pettingzoo', 'gymnasium', 'tower.games.interop') if m in sys.modules]; "
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

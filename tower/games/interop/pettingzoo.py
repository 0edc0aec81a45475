"""The four games as PettingZoo AEC environments with action masks (extra `rl`).

    from tower.games.interop.pettingzoo import env
    e = env("diabolo", players=4, seed=7)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` in seat order. Actions are the ids of `tower.games.interop.actions`
(`Discrete(num_actions)`); a move that needs several fields takes several steps of the same agent. An
observation is ``{"observation": float32 vector, "action_mask": int8 vector}``: the vector is
`tower.games.interop.features` of the agent's own view plus a mark on each id of the move it is choosing; the mask
is all zeros for an agent that is not to act. Rewards come at the end: the winners share 1.
``reset(seed=s)`` plays the game with seed `s`; a reset without a seed takes the next seed from a generator
seeded by the last explicit seed (or the constructor's). Game options are fixed when the environment is made
(the observation size may depend on them); ``reset``'s `options` are not used.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tower.games.interop.actions import codec_for
from tower.games.interop.features import observation
from tower.games.interop.stepper import Stepper
from tower.games.registry import game_class, new_game


class TowerEnv(AECEnv):
    """One of the registered games as an agent-environment-cycle environment."""

    metadata = {"render_modes": ["ansi"], "name": "tower_v0", "is_parallelizable": False}

    def __init__(self, game: str, players: int | None = None, seed: int = 0,
                 options: dict[str, Any] | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        cls = game_class(game)
        self.game = game
        self.num_players = cls.default_players if players is None else players
        self.options = dict(options or {})
        probe = new_game(game, self.num_players, seed, self.options)  # checks players and options now
        self.codec = codec_for(game)
        self.metadata = {**self.metadata, "name": f"tower_{game.replace('-', '_')}_v0"}
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(self.num_players)]
        size = len(observation(game, probe.view(0), 0, self.num_players)) + self.codec.num_actions
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-1.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.codec.num_actions,), np.int8),
        }) for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(self.codec.num_actions) for a in self.possible_agents}
        self._seeds = random.Random(seed)
        self._next_seed = seed
        self.stepper: Stepper | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
            self._next_seed = seed
        game_seed, self._next_seed = self._next_seed, self._seeds.getrandbits(31)
        self.stepper = Stepper(new_game(self.game, self.num_players, game_seed, self.options), self.codec)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._agent(self.stepper.current_player)

    def _agent(self, player: int | None) -> str:
        return self.possible_agents[player if player is not None else 0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.stepper is not None, "call reset() first"
        player = self.possible_agents.index(agent)
        state = self.stepper.state
        mask = np.zeros(self.codec.num_actions, np.int8)
        chosen = np.zeros(self.codec.num_actions, np.float32)
        if state.current_player == player:
            mask[self.stepper.legal_actions()] = 1
            chosen[self.stepper.pending_actions()] = 1.0
        vector = np.concatenate([observation(self.game, state.view(player), player, self.num_players), chosen])
        return {"observation": vector, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.stepper is not None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.stepper.apply_action(int(action))
        if self.stepper.is_over:
            for a, r in zip(self.possible_agents, self.stepper.returns(), strict=True):
                self.rewards[a] = r
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self._agent(self.stepper.current_player)
        self._accumulate_rewards()

    def render(self) -> str | None:
        """`ansi`: the game as the agent to act sees it (its own private cards included)."""
        if self.render_mode != "ansi" or self.stepper is None:
            return None
        player = self.stepper.current_player
        return self.stepper.state.describe(0 if player is None else player)

    def close(self) -> None:
        pass


def raw_env(game: str, **kwargs: Any) -> TowerEnv:
    return TowerEnv(game, **kwargs)


def env(game: str, **kwargs: Any) -> AECEnv:
    """`TowerEnv` inside PettingZoo's usual checks (an action outside the space, calls out of order)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(TowerEnv(game, **kwargs)))

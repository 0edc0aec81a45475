"""The four games as OpenSpiel Python games (extra `openspiel`), and OpenSpiel's MCTS / IS-MCTS as AI players.

Importing this module registers `tower_climbers`, `tower_seventh_heaven`, `tower_partners` and `tower_diabolo`;
`pyspiel.load_game("tower_diabolo", {"players": 3, "seed": 7})` then works like any OpenSpiel game. Parameters:
`players`, `seed` (0 .. 2**31-1) and every game option under its own name (`max_rounds`, `hand_size`, ...).

- Actions: `tower.games.interop.actions` (a move is one or more ids, one per field that needs a choice).
- Chance: every game draws from its own generator, seeded by the `seed` parameter and kept in the state, so
  for fixed parameters the same actions always give the same game: all four are `DETERMINISTIC` games whose
  deal the players cannot see. Explicit chance nodes would need the rules modules to expose their draws;
  `SAMPLED_STOCHASTIC` would be the other honest label, but OpenSpiel serialises such games through an RNG
  held by the game object, which Python games cannot provide. The seed is never part of an observation, and
  `resample_from_infostate` re-deals what a player cannot see as if the seed were unknown.
- Observations: `state.view(player)` as canonical JSON (strings) and `tower.games.interop.features` (tensors), plus
  the part of a move chosen so far.
- Information states (perfect recall): The Climbers' is its move list (nothing is hidden); a card game's is the
  sequence of the player's views (`tower.games.interop.infostate`), as a string and as a tensor that recalls the
  last `recall` moves (a parameter, default 8) as the player saw them.
- Dealt games for solvers: `tower_seventh_heaven_dealt`, `tower_partners_dealt` and `tower_diabolo_dealt` begin
  with an explicit chance node choosing one of `deals` deals (default 16) with equal chances, deal k being the
  game of seed `seed + k`: a small imperfect-information game in which the deal really is unknown, for CFR and
  its kin (benchmarks/bench_solvers.py).
- Returns: the winners share 1, everybody else 0 (constant sum); nothing before the end.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from tower.games.base import GameState, Move
from tower.games.errors import BadInput
from tower.games.interop.actions import codec_for, encoding_module
from tower.games.interop.features import observation
from tower.games.interop.infostate import Trail, is_public, recall_size, recall_vector
from tower.games.interop.stepper import Stepper
from tower.games.records import MAX_SEED
from tower.games.registry import game_class, game_names

SEED_LIMIT = MAX_SEED + 1  # OpenSpiel's integer parameters are 32-bit
RECALL = 8  # moves an information-state tensor recalls unless the `recall` parameter says otherwise
DEALS = 16  # deals a dealt game chooses from unless the `deals` parameter says otherwise


def short_name(game: str, dealt: bool = False) -> str:
    """The OpenSpiel name of a registered game: ``tower_`` and the name with underscores (then ``_dealt`` for the
    game that begins with a chance node choosing the deal)."""
    return "tower_" + game.replace("-", "_") + ("_dealt" if dealt else "")


def _json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@functools.cache
def _game_type(game: str, dealt: bool = False) -> pyspiel.GameType:
    cls = game_class(game)
    T = pyspiel.GameType
    perfect = cls.perfect_information
    extra = ({"deals": DEALS} if dealt else {}) | ({} if perfect else {"recall": RECALL})
    return T(
        short_name=short_name(game, dealt),
        long_name=f"tower-sim {game}" + (", dealt by chance" if dealt else ""),
        dynamics=T.Dynamics.SEQUENTIAL,
        # given the seed, no chance: see the module docstring; a dealt game draws its deal at a chance node
        chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC if dealt else T.ChanceMode.DETERMINISTIC,
        information=T.Information.PERFECT_INFORMATION if perfect else T.Information.IMPERFECT_INFORMATION,
        utility=T.Utility.CONSTANT_SUM,
        reward_model=T.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=not perfect,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": cls.default_players, "seed": 0, **extra,
                                 **_os_params(cls.default_options)},
    )


def _os_value(value: Any) -> Any:
    """An option as an OpenSpiel parameter. OpenSpiel game strings read ``name(key=value,...)``, so a text
    option writes its commas as semicolons and its equals signs as at-signs (``values=1;1;2``,
    ``deck=heart@6;7@8``); `_tower_value` turns them back. Colons pass as they are (In 7th Heaven's
    ``specials=2:5;4:must``)."""
    return value.replace(",", ";").replace("=", "@") if isinstance(value, str) else value


def _os_params(options: dict[str, Any]) -> dict[str, Any]:
    """The options OpenSpiel can carry as game parameters: scalars and texts. A document option with no default
    (The Climbers' `start` build) is left out: such games start from the game's default set-up when loaded through
    OpenSpiel, and an agent's game only needs the rules, as its states wrap the position it is given."""
    return {k: _os_value(v) for k, v in options.items() if v is not None and not isinstance(v, (dict, list))}


def _tower_value(value: Any) -> Any:
    return value.replace(";", ",").replace("@", "=") if isinstance(value, str) else value


class TowerGame(pyspiel.Game):
    """One registered game with fixed parameters; its states wrap a `GameState` (see `TowerState`).

    Each game registers its own subclass (`GAME_CLASSES`, `DEALT_CLASSES`) naming the game in `tower_game` and
    whether a chance node deals (`dealt`)."""

    tower_game = ""
    dealt = False

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game = self.tower_game
        cls = game_class(game)
        kind = _game_type(game, self.dealt)
        params = {**kind.parameter_specification, **(params or {})}
        players, seed = params.pop("players"), params.pop("seed")
        recall, deals = params.pop("recall", 0), params.pop("deals", 0)
        if not 0 <= seed < SEED_LIMIT:
            raise BadInput(f"seed must be 0..{SEED_LIMIT - 1} for OpenSpiel, got {seed}", "$.seed")
        if not 0 <= recall <= 10_000 or (self.dealt and not 1 <= deals <= 10_000):
            raise BadInput(f"recall must be 0..10000 and deals 1..10000, got {recall} and {deals}", "$")
        codec = codec_for(game)
        options = {k: _tower_value(v) for k, v in params.items()}
        prototype = cls(players, seed, options)  # checks players and options; cloned for each new game
        info = pyspiel.GameInfo(
            num_distinct_actions=codec.num_actions,
            max_chance_outcomes=deals,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=cls.max_game_length * codec.num_fields,
        )
        given = {"players": players, "seed": seed} | ({"deals": deals} if self.dealt else {}) \
            | ({} if cls.perfect_information else {"recall": recall})
        super().__init__(kind, info, {**given, **params})
        self.tower_name, self.codec, self.prototype = game, codec, prototype
        self.recall, self.deals, self.options = recall, deals, options

    def new_initial_state(self) -> TowerState:
        return TowerState(self, dealing=self.dealt)

    def deal(self, k: int) -> GameState:
        """Deal `k` of a dealt game: the game of seed `seed + k`."""
        return self.prototype.create(self.prototype.num_players, self.prototype.seed + k, self.options)

    def state_of(self, state: GameState) -> TowerState:
        """An OpenSpiel state playing on from a copy of `state` (its action history starts empty)."""
        return TowerState(self, Stepper(state.clone(), self.codec))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TowerObserver:
        return TowerObserver(self, iig_obs_type, params)


class _Core:
    """The Python side of a `TowerState`. OpenSpiel clones a state by making a fresh one and deep-copying its
    attributes, so the game is made lazily here and copied with the game's own (fast) `clone`. `dealing`: a dealt
    game before its chance node; `trail`: the views so far, kept once an information state was asked for."""

    __slots__ = ("prototype", "_stepper", "dealing", "trail")

    def __init__(self, prototype: GameState | None, stepper: Stepper | None = None, dealing: bool = False,
                 trail: Trail | None = None) -> None:
        self.prototype = prototype
        self._stepper = stepper
        self.dealing = dealing
        self.trail = trail

    @property
    def stepper(self) -> Stepper:
        if self._stepper is None:
            assert self.prototype is not None and not self.dealing
            self._stepper = Stepper(self.prototype.clone())
        return self._stepper

    def __deepcopy__(self, memo: dict) -> _Core:
        return _Core(self.prototype, None if self._stepper is None else self._stepper.copy(), self.dealing,
                     None if self.trail is None else self.trail.copy())

    def __getstate__(self) -> dict[str, Any]:  # OpenSpiel serialises a Python state by pickling its attributes
        return {"dealing": True} if self.dealing else {"stepper": self.stepper.to_json()}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.prototype, self.trail = None, None
        self.dealing = bool(data.get("dealing"))
        self._stepper = None if self.dealing else Stepper.from_json(data["stepper"])

    def recalled(self) -> Trail:
        """The trail, replayed from the start the first time it is asked for (then kept up move by move)."""
        if self.trail is None:
            self.trail = Trail.replay(self.stepper.state, self.stepper.codec)
        return self.trail


class TowerState(pyspiel.State):
    """An OpenSpiel state: a game plus the part of the current move chosen so far."""

    def __init__(self, game: TowerGame, stepper: Stepper | None = None, dealing: bool = False) -> None:
        super().__init__(game)
        self._core = _Core(game.prototype, stepper, dealing)

    @property
    def stepper(self) -> Stepper:
        return self._core.stepper

    @property
    def game_state(self) -> GameState:
        """The wrapped game (read it, do not change it: the pending choice refers to it)."""
        return self.stepper.state

    def current_player(self) -> int:
        if self._core.dealing:
            return pyspiel.PlayerId.CHANCE
        player = self.stepper.current_player
        return pyspiel.PlayerId.TERMINAL if player is None else player

    def _legal_actions(self, player: int) -> list[int]:
        return self.stepper.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """A dealt game's first node: each of its deals, equally likely."""
        deals = self.get_game().deals
        return [(k, 1.0 / deals) for k in range(deals)] if self._core.dealing else []

    def _apply_action(self, action: int) -> None:
        core = self._core
        if core.dealing:
            core._stepper = Stepper(self.get_game().deal(int(action)))
            core.dealing = False
            core.trail = Trail.start(core._stepper.state)
            return
        stepper = self.stepper
        mover = stepper.current_player
        move = stepper.apply_action(int(action))
        if move is not None and core.trail is not None:
            assert mover is not None
            ids = tuple(stepper.codec.offsets[f] + v for f, v in enumerate(stepper.last_key))
            core.trail.add(stepper.state, mover, ids, is_public(stepper.state, move, mover))

    def _action_to_string(self, player: int, action: int) -> str:
        if self._core.dealing:
            return f"deal {action}"
        return self.stepper.action_text(int(action))

    def is_terminal(self) -> bool:
        return not self._core.dealing and self.stepper.is_over

    def returns(self) -> list[float]:
        return [0.0] * self.get_game().num_players() if self._core.dealing else self.stepper.returns()

    def trail(self) -> Trail:
        """What every player has seen so far (`infostate.Trail`)."""
        return self._core.recalled()

    def resampled(self, player: int, rng: random.Random) -> TowerState:
        """A state `player` cannot tell from this one: what they cannot see re-dealt (`GameState.determinize`),
        with a fresh generator for the draws to come. The move being chosen stays chosen."""
        stepper = Stepper(self.stepper.state.determinize(player, rng), self.stepper.codec, self.stepper.fixed)
        return TowerState(self.get_game(), stepper)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TowerState:
        return self.resampled(player_id, random.Random(int(probability_sampler() * 2**53)))

    def __str__(self) -> str:
        return "deal pending" if self._core.dealing else _json(self.stepper.to_json())


class TowerObserver:
    """OpenSpiel's Python observer protocol: `tensor`, `dict`, `set_from`, `string_from`.

    A player's own observation (what they see now) or, with `perfect_recall`, their information state: The
    Climbers' move list (no tensor), a card game's views so far (`infostate`)."""

    def __init__(self, game: TowerGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.game_name = game.tower_name
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.hidden = not game.prototype.perfect_information
        if self.hidden and iig_obs_type is not None and (
                not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(f"{game.tower_name}: only a player's own observation is provided")
        self.recall = game.recall
        self.tensor: np.ndarray | None = None
        self.dict: dict[str, np.ndarray] = {}
        if not self.perfect_recall or self.hidden:
            state = game.prototype
            size = len(observation(game.tower_name, state.view(0), 0, state.num_players)) + game.codec.num_actions
            self.tensor = np.zeros(size, np.float32)
            self.dict = {"observation": self.tensor}
            if self.perfect_recall:  # then the moves recalled, after the observation
                self.tensor = np.zeros(size + recall_size(game.codec, state.num_players, self.recall), np.float32)
                self.dict = {"observation": self.tensor[:size], "recall": self.tensor[size:]}

    def set_from(self, state: TowerState, player: int) -> None:
        if self.tensor is None:
            return
        if state._core.dealing:
            self.tensor[:] = 0.0
            return
        now = observation_vector(state.stepper, player)
        self.tensor[:len(now)] = now
        if self.perfect_recall:
            players = state.stepper.state.num_players
            self.tensor[len(now):] = recall_vector(state.trail(), state.stepper.codec, player, players, self.recall)

    def string_from(self, state: TowerState, player: int) -> str:
        if state._core.dealing:
            return "deal pending"
        s = state.stepper
        chosen = f" choosing {s.pending_actions()}" if s.fixed and s.current_player == player else ""
        if self.perfect_recall and not self.hidden:
            return "moves: " + "; ".join(str(m) for m in s.state.history) + chosen
        view = s.state.view(player)
        if self.perfect_recall:
            return state.trail().string(view, player) + chosen
        return _json(view) + chosen


def observation_vector(stepper: Stepper, player: int) -> np.ndarray:
    """`features.observation` of the player's view, then a mark on each id of the move they are choosing."""
    state = stepper.state
    chosen = np.zeros(stepper.codec.num_actions, np.float32)
    if stepper.fixed and stepper.current_player == player:
        chosen[stepper.pending_actions()] = 1.0
    return np.concatenate([observation(state.name, state.view(player), player, state.num_players), chosen])


# Registered as classes, as OpenSpiel's own Python games are: a class lives until the interpreter is gone,
# whereas a plain callable held by OpenSpiel's registry would be freed after it, which aborts the process.
GAME_CLASSES: dict[str, type[TowerGame]] = {
    game: type(f"TowerGame_{game.replace('-', '_')}", (TowerGame,), {"tower_game": game}) for game in game_names()
}
#: The card games again, each beginning with a chance node that chooses the deal (for CFR and its kin).
DEALT_CLASSES: dict[str, type[TowerGame]] = {
    game: type(f"TowerGame_{game.replace('-', '_')}_dealt", (TowerGame,), {"tower_game": game, "dealt": True})
    for game in game_names() if not game_class(game).perfect_information
}


def register() -> list[str]:
    """Register every game with OpenSpiel (again is harmless); returns their OpenSpiel names."""
    known = set(pyspiel.registered_names())
    names = []
    for classes, dealt in ((GAME_CLASSES, False), (DEALT_CLASSES, True)):
        for game, game_cls in classes.items():
            name = short_name(game, dealt)
            if name not in known:
                pyspiel.register_game(_game_type(game, dealt), game_cls)
            names.append(name)
    return names


def load_game(game: str, dealt: bool = False, **params: Any) -> TowerGame:
    """`pyspiel.load_game` for one of our games by its tower name, e.g. ``load_game("diabolo", players=3)``;
    `dealt`: the game that begins with a chance node choosing one of `deals` deals."""
    register()
    return pyspiel.load_game(short_name(game, dealt), params)


# --- AI players -----------------------------------------------------------------------------------------------


class PlayoutEvaluator(mcts.Evaluator):
    """Leaf values from one playout on the game itself (its `rollout_move` policy where it has one, else random
    moves), cut off after `limit` moves and scored like `tower.games.ai` scores its own playouts. Playing out on the
    `GameState` skips the per-field decisions, which are only a way of naming moves."""

    def __init__(self, rng: random.Random, limit: int) -> None:
        self.rng = rng
        self.limit = limit

    def evaluate(self, state: TowerState) -> np.ndarray:
        stepper = state.stepper
        game = stepper.state.clone()
        if stepper.fixed:  # finish the move being chosen at random among those still open
            game.apply(self.rng.choice(stepper.candidates()))
        for _ in range(self.limit):
            if game.is_over:
                break
            game.apply(game.rollout_move(self.rng))
        return np.array(game.rewards())

    def prior(self, state: TowerState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


@dataclass
class OpenSpielAgent:
    """A `tower.games.ai` agent that decides with OpenSpiel's MCTS (`mcts`) or IS-MCTS (`ismcts`) bot.

    A move that takes several actions is decided one action at a time, each by a fresh search. The MCTS bot
    searches the real position only where nothing is hidden; in a card game it searches one world re-dealt
    from what the player can see, so it never peeks. IS-MCTS re-deals before every simulation; on The Climbers,
    where nothing is hidden, it is plain MCTS (OpenSpiel's IS-MCTS takes imperfect-information games only).
    """

    search: str
    rng: random.Random
    simulations: int = 100
    uct_c: float = 2.0
    rollout_limit: int = 100
    name: str = ""
    _given: frozenset[str] = frozenset()  # settings the spec named (game defaults do not override them)
    _games: dict[str, TowerGame] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.name = self.name or f"openspiel-{self.search}"
        self._np = np.random.RandomState(self.rng.getrandbits(32))

    def choose(self, state: GameState) -> Move:
        game = self._game_for(state)
        os_state = game.state_of(state)
        done = len(state.history)
        while True:
            os_state.apply_action(self._action(game, os_state))
            history = os_state.game_state.history
            if len(history) > done:
                return history[-1]

    def _game_for(self, state: GameState) -> TowerGame:
        key = _json([state.name, state.num_players, state.options])
        if key not in self._games:  # the seed does not matter: the agent's states wrap the position given
            self._games[key] = load_game(state.name, players=state.num_players, **_os_params(state.options))
        return self._games[key]

    def _settings(self, game: str) -> tuple[int, int]:
        """(simulations, playout limit) for `game`: the spec's, else the game's defaults, else the agent's."""
        defaults = getattr(encoding_module(game), "OPENSPIEL_DEFAULTS", {})
        pick = {k: getattr(self, k) if k in self._given else defaults.get(k, getattr(self, k))
                for k in ("simulations", "rollout_limit")}
        return pick["simulations"], pick["rollout_limit"]

    def _action(self, game: TowerGame, os_state: TowerState) -> int:
        legal = os_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        simulations, rollout_limit = self._settings(game.tower_name)
        evaluator = PlayoutEvaluator(self.rng, rollout_limit)
        player = os_state.current_player()
        if self.search == "ismcts" and not game.prototype.perfect_information:
            bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, simulations, random_state=self._np,
                                   use_observation_string=True)
            bot.set_resampler(lambda s, p: s.resampled(p, self.rng))
            return int(bot.step(os_state))
        root = os_state if game.prototype.perfect_information else os_state.resampled(player, self.rng)
        bot = mcts.MCTSBot(game, self.uct_c, simulations, evaluator, solve=False, random_state=self._np)
        return int(bot.step(root))


def make_agent(search: str, settings: dict[str, str], rng: random.Random) -> OpenSpielAgent:
    """The agent for ``ai:openspiel-mcts[:sims=N,c=X,rollout=N]`` (and ``openspiel-ismcts``).

    Without settings a decision takes well under 2 s here for the card games (100 simulations, playouts of
    up to 100 moves); a game whose moves are dearer to play out names its own defaults as `OPENSPIEL_DEFAULTS` in
    its encoding module. Settings given in the spec always win.
    """
    kwargs: dict[str, Any] = {}
    names = {"sims": ("simulations", int), "iters": ("simulations", int), "c": ("uct_c", float),
             "rollout": ("rollout_limit", int)}
    for key, value in settings.items():
        if key not in names:
            raise BadInput(f"unknown setting {key!r} for openspiel-{search} (sims, c, rollout)", "")
        attr, kind = names[key]
        try:
            kwargs[attr] = kind(value)
        except ValueError:
            raise BadInput(f"AI setting {key!r} needs a number, got {value!r}", "") from None
    if kwargs.get("simulations", 1) < 1 or kwargs.get("rollout_limit", 0) < 0:
        raise BadInput("sims must be at least 1 and rollout at least 0", "")
    return OpenSpielAgent(search, rng, **kwargs, _given=frozenset(kwargs))


register()

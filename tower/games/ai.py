"""AI players for every game: random, greedy (one-move look-ahead) and (IS-)MCTS.

The agents use the game API (`legal_moves`, `apply`, `clone`, `determinize`) and the hooks `GameState` declares
with defaults: `heuristic`, `greedy_score`, `random_move`, `rollout_move`, `search_moves`, `rewards` and the
search settings `search_exploration`, `search_iterations`, `rollout_depth`, `focused_search` (docs/ai.md).
Information-set MCTS re-deals what the searching player cannot see before every iteration (`determinize`), so it
never peeks. Agent kinds from optional extras are found through `AGENT_KINDS` by module path, imported only when
asked for.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from tower.games.base import GameState, Move
from tower.games.errors import BadInput

DEFAULT_BUDGET_S = 1.0  # stays well inside the 2 s per decision the spec allows


class Agent(Protocol):
    name: str

    def choose(self, state: GameState) -> Move: ...


def outcome_rewards(state: GameState) -> list[float]:
    """Reward in [0, 1] per player (the game's `rewards()`)."""
    return list(state.rewards())


@dataclass
class RandomAgent:
    rng: random.Random
    name: str = "random"

    def choose(self, state: GameState) -> Move:
        return state.random_move(self.rng)


@dataclass
class GreedyAgent:
    """Best immediate heuristic after the move (the game's `greedy_score` hook if it has one)."""

    rng: random.Random
    name: str = "greedy"

    def choose(self, state: GameState) -> Move:
        me = state.current_player
        assert me is not None
        moves = state.legal_moves()
        best: list[Move] = []
        best_value = -math.inf
        for move in moves:
            score = state.greedy_score(move, me)
            if score is not None:
                value = float(score)
            else:
                child = state.determinize(me, self.rng)
                child.apply(move)
                value = child.rewards()[me] if child.is_over else float(child.heuristic(me))
            if value > best_value + 1e-12:
                best, best_value = [move], value
            elif abs(value - best_value) <= 1e-12:
                best.append(move)
        return self.rng.choice(best)


@dataclass
class _Node:
    move: Move | None
    player: int | None  # who made `move`
    parent: _Node | None
    children: dict[Move, _Node] = field(default_factory=dict)
    visits: int = 0
    available: int = 0
    total: float = 0.0
    # where nothing is hidden: the position at this node (never changed: playouts run on copies) and its
    # candidate moves, worked out once instead of on every visit
    state: GameState | None = field(default=None, repr=False)
    moves: list[Move] | None = field(default=None, repr=False)


@dataclass
class MCTSAgent:
    """Single-observer information-set MCTS (Cowling et al. 2012); plain UCT when nothing is hidden.

    `iterations` caps the work, `budget_s` the time; whichever comes first ends the search. `widen` (progressive
    widening): a node visited n times has at most `widen` x sqrt(n + 1) children, so the visits go to the first
    moves tried (in a focused search the best-scored) instead of one look at each; None expands every move first.
    `reuse`: where nothing is hidden, the next decision starts from the part of this tree the game went down (in
    The Climbers a turn is three decisions of one player, so most of the tree is still good).
    """

    rng: random.Random
    iterations: int | None = None  # None: the game's `search_iterations`, else 2000
    budget_s: float = DEFAULT_BUDGET_S
    exploration: float | None = None  # None: the game's `search_exploration`, else 0.7
    rollout_limit: int | None = None  # None: the game's `rollout_depth`, else 200
    widen: float | None = None
    reuse: bool = False
    deal: str | None = None  # None: the game's `determinize`; else one of its `search_deals`
    name: str = "mcts"
    _kept: tuple[list[Move], _Node] | None = field(default=None, repr=False)

    def choose(self, state: GameState) -> Move:
        me = state.current_player
        assert me is not None
        moves = _candidates(state)
        if len(moves) == 1:
            return moves[0]
        check_deal(type(state), self.deal)
        root = self._reused(state) or _Node(None, None, None)
        deadline = time.perf_counter() + self.budget_s
        # a game may tune its own search (measured per game); a setting given in the spec wins
        self._c = self.exploration if self.exploration is not None else state.search_exploration
        iterations = self.iterations if self.iterations is not None else state.search_iterations
        if state.perfect_information:
            # nothing to re-deal: the tree keeps each node's position, and iterations start from the root's
            if root.state is None:
                root.state = state.clone()
            for i in range(iterations):
                if i and time.perf_counter() > deadline:
                    break
                self._iterate_kept(root)
        else:
            redeal = state.redealer(me, self.rng, self.deal)
            for i in range(iterations):
                if i and time.perf_counter() > deadline:
                    break
                self._iterate(root, redeal())
        best = max(root.children.values(), key=lambda n: (n.visits, n.total))
        if self.reuse and state.perfect_information:
            self._kept = (list(state.history), root)
        return best.move  # type: ignore[return-value]

    def _reused(self, state: GameState) -> _Node | None:
        """The node of the kept tree that the game's moves since the last decision lead to, as a new root."""
        if self._kept is None:
            return None
        history, node = self._kept
        self._kept = None
        if state.history[:len(history)] != history:
            return None
        for move in state.history[len(history):]:
            node = node.children.get(move)  # type: ignore[assignment]
            if node is None:
                return None
        node.parent, node.move, node.player = None, None, None
        return node

    def _iterate(self, root: _Node, sim: GameState) -> None:
        node = root
        # selection: descend while every legal move here has a child
        while not sim.is_over:
            legal = _candidates(sim)
            untried = self._to_expand(node, legal)
            if untried:
                move = self._pick_untried(sim, untried)
                player = sim.current_player
                _play(sim, move)
                child = _Node(move, player, node, available=1)
                node.children[move] = child
                node = child
                break
            node = self._best_child(node, legal)
            _play(sim, node.move)  # type: ignore[arg-type]
        self._rollout(node, sim)

    def _iterate_kept(self, root: _Node) -> None:
        """One iteration of plain UCT in a tree that keeps the positions (the same moves and playouts as
        `_iterate` on a copy of the root; only what is worked out again on every visit is spared)."""
        node = root
        while True:
            here: GameState = node.state  # type: ignore[assignment]
            if here.is_over:
                self._rollout(node, here.clone())
                return
            if node.moves is None:
                node.moves = _candidates(here)
            legal = node.moves
            untried = self._to_expand(node, legal)
            if untried:
                move = self._pick_untried(here, untried)
                sim = here.clone()
                _play(sim, move)
                child = _Node(move, here.current_player, node, available=1, state=sim)
                node.children[move] = child
                self._rollout(child, sim.clone())
                return
            node = self._best_child(node, legal)

    def _to_expand(self, node: _Node, legal: list[Move]) -> list[Move]:
        """Count one more chance for each child whose move is legal here, and return the untried moves if the node
        should grow a child now (every move untried, no widening, or widening allows one more); else []."""
        for m in legal:
            child = node.children.get(m)
            if child is not None:
                child.available += 1
        untried = [m for m in legal if m not in node.children]
        if untried and (self.widen is None or len(legal) == len(untried)
                        or len(node.children) < self.widen * math.sqrt(node.visits + 1)):
            return untried
        return []

    def _best_child(self, node: _Node, legal: list[Move]) -> _Node:
        """The child of the legal moves tried so far (widening leaves some untried) with the best UCT value,
        counting only the visits in which its move was available."""
        return max(
            (node.children[m] for m in legal if m in node.children),
            key=lambda c: c.total / c.visits + self._c * math.sqrt(math.log(max(1, c.available)) / c.visits),
        )

    def _rollout(self, node: _Node, sim: GameState) -> None:
        """Play out from `sim` (the position at `node`) and count the result on the path back to the root."""
        sim.playout(self.rng, self.rollout_limit if self.rollout_limit is not None else sim.rollout_depth)
        rewards = sim.rewards()
        n: _Node | None = node
        while n is not None:
            n.visits += 1
            if n.player is not None:
                n.total += rewards[n.player]
            n = n.parent

    def _pick_untried(self, sim: GameState, untried: list[Move]) -> Move:
        """A random untried move; where the game focuses the search or the tree widens progressively, the best by
        the game's `search_priors` (ties at random), so a node's first few children are the moves most worth a
        look."""
        if not sim.focused_search and self.widen is None:
            return self.rng.choice(untried)
        values = sim.search_priors(untried)
        best = max(values)
        return self.rng.choice([m for m, v in zip(untried, values, strict=True) if v == best])


def check_deal(game: type[GameState], deal: str | None) -> None:
    """BadInput unless `deal` (a `deal=` setting) is None or one of the game's `search_deals`."""
    if deal is not None and deal not in game.search_deals:
        raise BadInput(f"{game.name} has no search re-deal {deal!r} (it has: "
                       f"{', '.join(game.search_deals) or 'none'})", "")


def _play(sim: GameState, move: Move) -> None:
    """Apply a move the game itself offered (`search_moves`, `rollout_move`) without asking again whether it is
    legal: in The Climbers that question lists every block move, which would cost more than the playout."""
    sim._apply(move)
    sim.history.append(move)


def _candidates(state: GameState) -> list[Move]:
    """The moves the tree expands: the game's `search_moves()` (every legal move unless it focuses the search)."""
    return state.search_moves()


AGENT_KINDS = ("random", "greedy", "mcts", "ismcts", "openspiel-mcts", "openspiel-ismcts")
#: The settings of an `mcts` spec: name in the spec -> (MCTSAgent field, how the value is read).
MCTS_SETTINGS: dict[str, tuple[str, Any]] = {
    "iters": ("iterations", int), "iterations": ("iterations", int), "time": ("budget_s", float),
    "c": ("exploration", float), "rollout": ("rollout_limit", int), "widen": ("widen", float),
    "reuse": ("reuse", lambda v: bool(int(v))), "deal": ("deal", str),
}
#: The AI levels people choose by name, weakest first; each game says which player plays each level
#: (`GameState.ai_levels`; the measured win rates are in docs/ai.md).
LEVELS = ("easy", "normal", "strong")
LEVEL_WORDS = {
    "easy": "looks one move ahead (instant)",
    "normal": "searches a tenth of a second a move",
    "strong": "searches up to a second a move, the strongest",
}


@dataclass
class LevelAgent:
    """The AI playing a level (`LEVELS`) in whatever game it is handed: the game's `ai_levels` names the player."""

    level: str
    seed: int = 0
    name: str = ""
    _agents: dict[type, Agent] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.name = self.name or self.level

    def choose(self, state: GameState) -> Move:
        cls = type(state)
        agent = self._agents.get(cls)
        if agent is None:
            agent = self._agents[cls] = make_agent(level_spec(cls, self.level), self.seed)
        return agent.choose(state)


def level_spec(game: type[GameState] | GameState, level: str) -> str:
    """The code name of the player that plays `level` in `game` (e.g. ``mcts:time=0.1``)."""
    return game.ai_levels[level]


def make_agent(spec: str, seed: int = 0, game: type[GameState] | None = None) -> Agent:
    """An AI from a level (``easy``, ``normal``, ``strong``) or a code name like ``greedy``, ``mcts``,
    ``mcts:iters=500``, ``mcts:time=0.5`` (``ai:`` prefix ok); ``openspiel-mcts`` / ``openspiel-ismcts``
    (``:sims=N,c=X,rollout=N``) need the extra `openspiel`. With `game`, settings only some games know
    (``deal=``) are checked against it at once instead of at the first move."""
    text = spec.removeprefix("ai:")
    kind, _, params = text.partition(":")
    if kind in LEVELS:
        if params:
            raise BadInput(f"the level {kind!r} takes no settings (got {spec!r}); a code name like "
                           f"'mcts:time=0.5' does", "")
        return LevelAgent(kind, seed)
    rng = random.Random(seed)
    if kind == "random":
        return RandomAgent(rng)
    if kind == "greedy":
        return GreedyAgent(rng)
    if kind in ("mcts", "ismcts"):
        kwargs: dict[str, Any] = {}
        for part in filter(None, params.split(",")):
            key, _, value = part.partition("=")
            if key not in MCTS_SETTINGS:
                raise BadInput(f"unknown AI setting {key!r} in {spec!r} ({', '.join(MCTS_SETTINGS)})", "")
            name, kind_of = MCTS_SETTINGS[key]
            try:
                kwargs[name] = kind_of(value)
            except ValueError:
                raise BadInput(f"AI setting {key!r} needs a number, got {value!r}", "") from None
        agent = MCTSAgent(rng, **kwargs)
        if game is not None:
            check_deal(game, agent.deal)
        return agent
    if kind in ("openspiel-mcts", "openspiel-ismcts"):
        try:  # the optional extra `openspiel`: imported only when asked for
            from tower.games.interop.openspiel import make_agent as make_openspiel_agent
        except ImportError as exc:
            if (exc.name or "").split(".")[0] not in ("pyspiel", "open_spiel"):
                raise
            raise BadInput(f"AI {kind!r} needs OpenSpiel: pip install 'tower-sim[openspiel]'", "") from None
        settings = dict(part.partition("=")[::2] for part in filter(None, params.split(",")))
        return make_openspiel_agent(kind.removeprefix("openspiel-"), settings, rng)
    raise BadInput(f"unknown AI {spec!r} (a level: {', '.join(LEVELS)}; or one of: {', '.join(AGENT_KINDS)})", "")

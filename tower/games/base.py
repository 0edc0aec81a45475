"""The contract every game implements (docs/api.md).

A game is a `GameState` subclass plus a `Move` subclass. The state owns its seeded random generator, so the
same seed and the same moves give the same game; `history` is the list of applied moves, which makes a record,
a replay and the undo stack one and the same thing.

A game also *declares what it is*: the class attributes and hooks below (with defaults) are everything the AI
players, the OpenSpiel/PettingZoo adapters, the viewer and the server read about a game. No code outside the
registry asks a game for its name to decide what to do.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Self

from tower.games.errors import BadInput, IllegalMove


class Move(ABC):
    """A small frozen, hashable value (subclasses are ``@dataclass(frozen=True)``).

    One style for every game: the text form (`str(move)`, read back by `parse`) is what a person types, what the
    server and the records carry (the JSON form is that text) and what orders `legal_moves()` unless a game knows
    a better order. A game writes `__str__` and `parse`; the rest comes from here.
    """

    @abstractmethod
    def __str__(self) -> str:
        """Short text a person can type; `parse` reads it back."""

    @classmethod
    @abstractmethod
    def parse(cls, text: str, state: GameState | None = None) -> Self:
        """Read the text form; raises BadInput on malformed text (not IllegalMove)."""

    def to_json(self) -> Any:
        """JSON form: the text form."""
        return str(self)

    @classmethod
    def from_json(cls, data: Any) -> Self:
        """Read the JSON form; raises BadInput on malformed data."""
        if not isinstance(data, str):
            raise BadInput(f"a move is its text form, got {type(data).__name__}", "$")
        return cls.parse(data)

    def sort_key(self) -> Any:
        """Key that orders `legal_moves()`; the text form unless a game knows better."""
        return str(self)


#: A physics judge a game may consult (The Climbers' `support=physical` option): (build, id of the block just
#: placed) -> does the construction stand. Rules code never imports physics; the application hands one in.
Judge = Callable[[Any, str], bool]


class GameState(ABC):
    """Mutable game state. Subclasses set `name`, `title`, `move_type`, `min_players`, `max_players`."""

    name: ClassVar[str]
    #: The game's printed title, its author and publisher (shown by the CLI, the lobby and the docs).
    title: ClassVar[str] = ""
    credit: ClassVar[str] = ""
    move_type: ClassVar[type[Move]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    #: The player counts the game allows, where not every count from min to max is one (e.g. teams of two).
    player_counts: ClassVar[tuple[int, ...]] = ()
    #: Upper bound on the number of moves in one game (the conformance suite checks it).
    max_game_length: ClassVar[int] = 10_000

    # --- what the game is: traits read by the AI, the adapters, the viewer and the server ------------------------
    #: Every player sees everything (`view(p)` is the same for all p): no hand-over screen between people at one
    #: screen, spectators see all, plain MCTS instead of information-set MCTS, an OpenSpiel information state.
    perfect_information: ClassVar[bool] = False
    #: How the viewer lays the table out: "tower" (a block construction with figures) or the name of a card-table
    #: layout the viewer knows ("heaven-track", "partners-track", "diabolo-rows").
    layout: ClassVar[str] = ""
    #: The position is a block construction (`to_build()`): the viewer offers what-if (take a block away and watch
    #: the physics), moves can be chosen by clicking blocks and cells (moves with `kind`, `block`, `cell`), and
    #: the game is handed the application's physics judge (`judge=`) when one is given.
    construction: ClassVar[bool] = False
    #: Module defining `codec()` (integer action fields) and `observation(view, player, players)` (a fixed-size
    #: vector) for the OpenSpiel and PettingZoo adapters; None: the game has no such encoding.
    encoding: ClassVar[str | None] = None
    #: The rule option that takes a `tower-build/1` document to start the game from (`tower play|simulate GAME
    #: --build FILE` sets it; the record then carries the whole build); None: the game starts from no build.
    build_option: ClassVar[str | None] = None

    # --- search settings (measured per game; docs/ai.md) ---------------------------------------------------------
    #: UCT exploration constant and iteration cap of the search player (`c=` and `iters=` in a spec override them).
    search_exploration: ClassVar[float] = 0.7
    search_iterations: ClassVar[int] = 2000
    #: Moves after which a playout stops and `rewards()` ranks the players.
    rollout_depth: ClassVar[int] = 200
    #: `search_moves()` offers a short subset of the legal moves (games with thousands of them); the search tree
    #: then tries them best `search_priors` first.
    focused_search: ClassVar[bool] = False
    #: Other ways a search may re-deal what its player cannot see (`deal=NAME` in a spec, read by `redealer`), so a
    #: level can read more into the others' moves while the plain `mcts` player stays as measured.
    search_deals: ClassVar[tuple[str, ...]] = ()
    #: The AI levels people choose by name (`tower.games.ai.LEVELS`: easy, normal, strong), each as the code name
    #: of the player that plays it in this game (measured per game: docs/ai.md).
    ai_levels: ClassVar[dict[str, str]] = {"easy": "greedy", "normal": "mcts:time=0.1", "strong": "mcts:time=1"}

    def __init__(self, players: int, seed: int | None, options: dict[str, Any] | None, *,
                 judge: Judge | None = None) -> None:
        if not isinstance(players, int) or isinstance(players, bool):
            raise BadInput(f"players must be a whole number, got {players!r}", "$.players")
        if players not in self.allowed_players():
            raise BadInput(f"{self.name} is for {self.players_text()} players, got {players}", "$.players")
        self.num_players = players
        self.seed = 0 if seed is None else int(seed)
        self.options = self.resolve_options(options or {})
        self.rng = random.Random(self.seed)
        self.history: list[Move] = []
        #: The physics judge handed in by the application (see `Judge`); None in pure rules use.
        self.judge = judge

    @classmethod
    def allowed_players(cls) -> tuple[int, ...]:
        return cls.player_counts or tuple(range(cls.min_players, cls.max_players + 1))

    @classmethod
    def players_text(cls) -> str:
        """The allowed player counts as a person says them: `2-5` or `4 or 6`."""
        counts = cls.allowed_players()
        if counts == tuple(range(counts[0], counts[-1] + 1)) and len(counts) > 2:
            return f"{counts[0]}-{counts[-1]}"
        return " or ".join(map(str, counts))

    # --- options -------------------------------------------------------------------------------
    #: name -> default value; a value's type is the type the option must have.
    default_options: ClassVar[dict[str, Any]] = {}
    #: name -> allowed values (where the choice is from a set).
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {}
    #: name -> (label, one line saying what the option changes): how the lobby names and explains each option.
    option_help: ClassVar[dict[str, tuple[str, str]]] = {}
    #: A short "how to play" for newcomers, in plain words (paragraphs separated by blank lines): the pages show it.
    how_to_play: ClassVar[str] = ""

    @classmethod
    def option_words(cls, name: str) -> tuple[str, str]:
        """(label, explanation) of a rule option: the game's `option_help`, else its name in words."""
        return cls.option_help.get(name, (name.replace("_", " ").capitalize(), ""))

    @classmethod
    def resolve_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with `options`; unknown names and wrong types are BadInput."""
        if not isinstance(options, dict):
            raise BadInput("options must be an object", "$.options")
        out = dict(cls.default_options)
        for key, value in options.items():
            if key not in cls.default_options:
                known = ", ".join(sorted(cls.default_options)) or "none"
                raise BadInput(f"unknown option {key!r} for {cls.name} (known: {known})", f"$.options.{key}")
            default = cls.default_options[key]
            if isinstance(default, bool) != isinstance(value, bool) or not isinstance(value, type(default)):
                raise BadInput(
                    f"option {key!r} must be {type(default).__name__}, got {value!r}", f"$.options.{key}"
                )
            choices = cls.option_choices.get(key)
            if choices is not None and value not in choices:
                raise BadInput(f"option {key!r} must be one of {list(choices)}, got {value!r}", f"$.options.{key}")
            out[key] = value
        return out

    # --- the game API --------------------------------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """Index of the player to act; None when the game is over."""

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Sorted, unique; [] when the game is over."""

    @abstractmethod
    def _apply(self, move: Move) -> None:
        """Apply a move already known to be legal."""

    @abstractmethod
    def result(self) -> dict[str, Any]:
        """{"winners": [...], "scores": [...], ...}; meaningful once `is_over`."""

    def win_shares(self) -> list[float]:
        """Each player's share of the win once the game is over: first places shared by k players win 1/k each,
        nobody wins in a draw. Team games override it (a team's win is each member's whole win)."""
        winners = self.result().get("winners", [])
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(self.num_players)]

    @abstractmethod
    def view(self, player: int) -> dict[str, Any]:
        """JSON-able dict of what `player` may see: the one gate for private information."""

    def public_view(self) -> dict[str, Any]:
        """What a spectator may see: only public information (no hand at all). Games with hidden information
        override it; for the others it is any player's view."""
        if self.perfect_information:
            return self.view(0)
        raise NotImplementedError(f"{self.name} has hidden information: it must define public_view()")

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """Complete state, JSON-able."""

    @classmethod
    @abstractmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Inverse of `to_json`."""

    @property
    def is_over(self) -> bool:
        return self.current_player is None

    def explain(self, move: Move) -> IllegalMove | None:
        """Why `move` is not legal now (None if it is). Games override for precise rule names."""
        if self.is_over:
            return IllegalMove("game-over", "the game is over")
        if move in self.legal_moves():
            return None
        return IllegalMove("not-legal", f"{move} is not a legal move now")

    def apply(self, move: Move) -> None:
        """Apply `move`; raises IllegalMove (naming the rule) and leaves the state unchanged if illegal."""
        if not isinstance(move, self.move_type):
            raise IllegalMove("wrong-game", f"{move!r} is not a {self.name} move")
        problem = self.explain(move)
        if problem is not None:
            raise problem
        self._apply(move)
        self.history.append(move)

    def player_label(self, player: int) -> str:
        """How a player is named to people, the same everywhere (terminal, window, browser): the seat and, where
        the game has them, the colour (e.g. "P1 yellow")."""
        return f"P{player}"

    def outcome_text(self) -> str:
        """The end of the game in words for people ("P2 yellow wins with 39 points; scores: ..."); meaningful once
        `is_over`. Games override it to say what their result means."""
        res = self.result()
        winners = res.get("winners", [])
        names = " and ".join(self.player_label(p) for p in winners)
        head = f"{names} win{'s' if len(winners) == 1 else ''}" if winners else "nobody wins"
        scores = res.get("scores")
        if scores:
            head += "; scores: " + ", ".join(f"{self.player_label(p)} {s}" for p, s in enumerate(scores))
        return head

    def public_move(self, move: Move, player: int) -> str:
        """How `move`, made by `player`, is told to everyone else (move logs, the server's live feed, spectators):
        its text, unless the move is a hidden decision (a card passed face down, a doubler chosen at the same time
        as the others), which games word without the secret ("P2 passed a card to the partner")."""
        return str(move)

    def move_words(self, move: Move) -> str:
        """`move` (legal now, for the player to move) in words a newcomer understands, as the move lists show it
        ("climb to (11,16), height 2, with the long ladder"); the move's text unless the game words it better."""
        return str(move)

    def prompt(self) -> str | None:
        """The question the player to move is answering, with what the answer entails, when the moves alone do not
        say it (e.g. Diabolo's doubler); None when the moves speak for themselves."""
        return None

    def move_help(self) -> str:
        """How to type a move, for people (the terminal's `help` prints it): the move type's docstring unless the
        game words it better."""
        import inspect
        import sys

        cls = self.move_type
        doc = cls.__doc__ or ""
        if not doc or doc.startswith(f"{cls.__name__}("):  # a dataclass's default docstring merely repeats fields
            doc = sys.modules[cls.__module__].__doc__ or ""
        return inspect.cleandoc(doc).replace("``", "")

    def describe(self, player: int) -> str:
        """What `player` sees, as text for the terminal UI (built from `view(player)` only)."""
        import json

        return json.dumps(self.view(player), indent=1)

    def apply_text(self, text: str) -> Move:
        """Parse and apply a move typed by a person; returns the move."""
        move = self.move_type.parse(text, self)
        self.apply(move)
        return move

    def clone(self) -> Self:
        """An independent copy (subclasses may override with something faster)."""
        copy = type(self).from_json(self.to_json())
        copy.judge = self.judge
        return copy

    def determinize(self, player: int, rng: random.Random) -> Self:
        """A copy in which everything `player` cannot see is re-dealt at random, consistent with `view(player)`.

        Used by information-set search and by the conformance suite. Games without hidden information
        return a plain clone.
        """
        return self.clone()

    def redealer(self, player: int, rng: random.Random, deal: str | None = None) -> Callable[[], Self]:
        """What a search calls before each iteration for a fresh re-deal of what `player` cannot see: by default
        `determinize`; `deal` names one of the game's `search_deals`, which may do its work once per decision."""
        if deal is not None:
            raise NotImplementedError(deal)  # a game with `search_deals` overrides this
        return lambda: self.determinize(player, rng)

    # --- hooks the AI players use (defaults make a plain game work; games override to play better or faster) ---
    def heuristic(self, player: int) -> float:
        """How well `player` stands now (larger is better); ranks players when a playout is cut off."""
        return 0.0

    def greedy_score(self, move: Move, player: int) -> float | None:
        """The greedy player's one-move value of `move` for `player`, computed without a copy of the state; None:
        the greedy player tries the move on a copy and reads `heuristic` (or the result)."""
        return None

    def random_move(self, rng: random.Random) -> Move:
        """A legal move drawn uniformly (games with thousands of moves draw without listing them all)."""
        return rng.choice(self.legal_moves())

    def rollout_move(self, rng: random.Random) -> Move:
        """The playout policy of the search player: a legal move (uniform unless a game knows better)."""
        return rng.choice(self.legal_moves())

    def playout(self, rng: random.Random, limit: int) -> None:
        """The search's playout from here: `rollout_move(rng)` moves, applied without asking again whether they
        are legal, until the game is over or `limit` moves are made. A game may override it with a faster loop
        that makes the same moves from the same random numbers (In 7th Heaven does)."""
        history = self.history
        for _ in range(limit):
            if self.is_over:
                return
            move = self.rollout_move(rng)
            self._apply(move)
            history.append(move)

    def search_moves(self) -> list[Move]:
        """The moves the search tree expands: every legal move unless `focused_search`."""
        return self.legal_moves()

    def search_priors(self, moves: list[Move]) -> list[float]:
        """A cheap value of each of these moves to the player to move (larger is better): a focused or widening
        search tries untried moves best first. Default: `greedy_score` (0 where the game has none)."""
        me = self.current_player
        return [float(self.greedy_score(m, me) or 0.0) for m in moves]  # type: ignore[arg-type]

    def rewards(self) -> list[float]:
        """Reward in [0, 1] per player for the search: `win_shares()` at the end (equal shares in a draw), before
        it a ranking by `heuristic` with partial credit, so a cut-off playout still ranks the leaders first."""
        n = self.num_players
        if self.is_over:
            shares = self.win_shares()
            return shares if any(shares) else [1.0 / n] * n
        values = [float(self.heuristic(p)) for p in range(n)]
        best, worst = max(values), min(values)
        lead = [p for p in range(n) if values[p] == best]
        return [0.5 + 0.5 / len(lead) if p in lead else 0.5 * (values[p] - worst) / ((best - worst) or 1)
                for p in range(n)]

    # --- records ----------------------------------------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """This game as a `game-record/1` document."""
        return {
            "format": "game-record/1",
            "game": self.name,
            "players": self.num_players,
            "seed": self.seed,
            "options": dict(self.options),
            "moves": [m.to_json() for m in self.history],
        }

    def undo(self) -> Self:
        """A new state with the last move taken back (replayed from the start: simple and exact)."""
        state = self.restart()
        for move in self.history[:-1]:
            state.apply(move)
        return state

    def restart(self) -> Self:
        """The same game (players, seed, options, judge) before its first move."""
        return type(self).create(self.num_players, self.seed, self.options, judge=self.judge)

    @classmethod
    def create(cls, players: int, seed: int | None, options: dict[str, Any] | None, *,
               judge: Judge | None = None) -> Self:
        """A new game. Only a construction game (`construction`) consults a physics judge: others are not handed
        one, so their constructors need not take the argument."""
        if judge is None or not cls.construction:
            return cls(players, seed, options)
        return cls(players, seed, options, judge=judge)  # type: ignore[call-arg]

    def base_json(self) -> dict[str, Any]:
        """Fields every `to_json` carries (subclasses add theirs)."""
        return {
            "game": self.name,
            "players": self.num_players,
            "seed": self.seed,
            "options": dict(self.options),
            "rng": _rng_to_json(self.rng),
            "history": [m.to_json() for m in self.history],
        }

    def load_base_json(self, data: dict[str, Any]) -> None:
        """Restore what `base_json` wrote (call from `from_json` after construction)."""
        self.rng = _rng_from_json(data["rng"])
        self.history = [self.move_type.from_json(m) for m in data["history"]]


def _rng_to_json(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_from_json(data: list[Any]) -> random.Random:
    rng = random.Random()
    rng.setstate((data[0], tuple(data[1]), data[2]))
    return rng


def shuffle(items: list[Any], rng: random.Random) -> None:
    """`rng.shuffle(items)`: the same order from the same numbers, about twice as fast (the search re-deals the
    hidden cards before every iteration). It draws as `Random.shuffle` and `_randbelow` do; a test holds it to
    them."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        bits = n.bit_length()
        j = getrandbits(bits)
        while j >= n:  # draw again rather than fold the surplus over: every place equally likely
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]

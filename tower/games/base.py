"""The contract every game implements (SPEC section 5).

A game is a `GameState` subclass plus a `Move` subclass. The state owns its seeded random generator, so the
same seed and the same moves give the same game; `history` is the list of applied moves, which makes a record,
a replay and the undo stack one and the same thing.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Self

from tower.games.errors import BadInput, IllegalMove


class Move(ABC):
    """A small frozen, hashable value (subclasses are ``@dataclass(frozen=True)``)."""

    @abstractmethod
    def __str__(self) -> str:
        """Short text a person can type; `parse` reads it back."""

    @classmethod
    @abstractmethod
    def parse(cls, text: str, state: GameState | None = None) -> Self:
        """Read the text form; raises BadInput on malformed text (not IllegalMove)."""

    @abstractmethod
    def to_json(self) -> Any:
        """JSON-able form; `from_json` reads it back."""

    @classmethod
    @abstractmethod
    def from_json(cls, data: Any) -> Self:
        """Read the JSON form; raises BadInput on malformed data."""

    def sort_key(self) -> Any:
        """Key that orders `legal_moves()`; the text form unless a game knows better."""
        return str(self)


class GameState(ABC):
    """Mutable game state. Subclasses set `name`, `move_type`, `min_players`, `max_players`."""

    name: ClassVar[str]
    move_type: ClassVar[type[Move]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    #: The player counts the game allows, where not every count from min to max is one (e.g. teams of two).
    player_counts: ClassVar[tuple[int, ...]] = ()
    #: Upper bound on the number of moves in one game (the conformance suite checks it).
    max_game_length: ClassVar[int] = 10_000

    def __init__(self, players: int, seed: int | None, options: dict[str, Any] | None) -> None:
        if not isinstance(players, int) or isinstance(players, bool):
            raise BadInput(f"players must be a whole number, got {players!r}", "$.players")
        if players not in self.allowed_players():
            raise BadInput(f"{self.name} is for {self.players_text()} players, got {players}", "$.players")
        self.num_players = players
        self.seed = 0 if seed is None else int(seed)
        self.options = self.resolve_options(options or {})
        self.rng = random.Random(self.seed)
        self.history: list[Move] = []

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
        return type(self).from_json(self.to_json())

    def determinize(self, player: int, rng: random.Random) -> Self:
        """A copy in which everything `player` cannot see is re-dealt at random, consistent with `view(player)`.

        Used by information-set search and by the conformance suite. Games without hidden information
        return a plain clone.
        """
        return self.clone()

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
        """A new state with the last move taken back (replayed from the record: simple and exact)."""
        from tower.games.registry import new_game

        state = new_game(self.name, self.num_players, self.seed, self.options)
        for move in self.history[:-1]:
            state.apply(move)
        return state  # type: ignore[return-value]

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

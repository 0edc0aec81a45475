"""Game records (`game-record/1`, docs/formats.md) and game options, on a tiny game registered for the test.

The fake game: players take turns adding 1 or 2 to a shared total; whoever reaches `target` wins.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from tower.games import GAMES, GameState, Move, load_record, new_game, replay, save_record
from tower.games.errors import BadInput, IllegalMove


@dataclass(frozen=True)
class AddMove(Move):
    n: int

    def __str__(self) -> str:
        return f"add {self.n}"

    @classmethod
    def parse(cls, text: str, state: GameState | None = None) -> AddMove:
        word, _, num = text.partition(" ")
        if word != "add" or not num.isdigit():
            raise BadInput(f"not a move: {text!r}", "")
        return cls(int(num))

    def to_json(self) -> Any:
        return {"add": self.n}

    @classmethod
    def from_json(cls, data: Any) -> AddMove:
        if not isinstance(data, dict) or set(data) != {"add"}:
            raise BadInput("expected {\"add\": n}", "$")
        if not isinstance(data["add"], int) or isinstance(data["add"], bool):
            raise BadInput("n must be a whole number", "$.add")
        return cls(data["add"])


class CountState(GameState):
    name = "count-test"
    move_type = AddMove
    min_players, max_players, default_players = 1, 3, 2
    default_options: ClassVar[dict[str, Any]] = {"target": 5, "big_steps": False, "mode": "race"}
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {"mode": ("race", "misere")}

    def __init__(self, players: int, seed: int | None, options: dict[str, Any] | None) -> None:
        super().__init__(players, seed, options)
        self.total = 0

    @property
    def current_player(self) -> int | None:
        return None if self.total >= self.options["target"] else len(self.history) % self.num_players

    def legal_moves(self) -> list[Move]:
        return [] if self.is_over else [AddMove(1), AddMove(2)] + ([AddMove(3)] if self.options["big_steps"] else [])

    def _apply(self, move: Move) -> None:
        assert isinstance(move, AddMove)
        self.total += move.n

    def result(self) -> dict[str, Any]:
        last = (len(self.history) - 1) % self.num_players
        return {"winners": [last] if self.is_over else [], "scores": [0] * self.num_players}

    def view(self, player: int) -> dict[str, Any]:
        return {"total": self.total}

    def to_json(self) -> dict[str, Any]:
        return {**self.base_json(), "total": self.total}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CountState:
        s = cls(data["players"], data["seed"], data["options"])
        s.load_base_json(data)
        s.total = data["total"]
        return s


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    monkeypatch.setitem(GAMES, "count-test", f"{__name__}:CountState")


def played(moves=(1, 2, 1), players: int = 2, **options: Any) -> CountState:
    state = CountState(players, 3, options)
    for n in moves:
        state.apply(AddMove(n))
    return state


def record(**changes: Any) -> dict[str, Any]:
    r = played().record()
    for k, v in changes.items():
        if v is None:
            r.pop(k)
        else:
            r[k] = v
    return r


# --- records -------------------------------------------------------------------------------------------------

def test_a_record_names_format_game_players_seed_options_and_moves():
    r = played(target=7).record()
    assert r == {"format": "game-record/1", "game": "count-test", "players": 2, "seed": 3,
                 "options": {"target": 7, "big_steps": False, "mode": "race"},
                 "moves": [{"add": 1}, {"add": 2}, {"add": 1}]}


def test_replaying_a_record_reproduces_the_game():
    original = played((2, 2, 1))
    again = replay(json.loads(json.dumps(original.record())))
    assert again.to_json() == original.to_json()
    assert again.is_over and again.result() == original.result()


def test_replay_upto_stops_after_that_many_moves():
    assert replay(played((1, 1, 1, 1)).record(), upto=2).history == [AddMove(1), AddMove(1)]


def test_a_saved_record_loads_back_into_the_same_game(tmp_path):
    state = played()
    save_record(state, tmp_path / "game.json", ["human", "ai:greedy"])
    assert json.loads((tmp_path / "game.json").read_text())["agents"] == ["human", "ai:greedy"]
    assert load_record(tmp_path / "game.json").to_json() == state.to_json()


def test_a_failed_save_leaves_the_previous_record_intact_and_no_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "game.json"
    save_record(played((1,)), path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        save_record(played((2, 2)), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


BAD_RECORDS = [
    ("not-an-object", ["game-record/1"], "$"),
    ("wrong-format", record(format="game-record/2"), "$.format"),
    ("build-file-format", record(format="tower-build/1"), "$.format"),
    ("unknown-game", record(game="chess"), "$.game"),
    ("game-not-a-string", record(game=["count-test"]), "$.game"),
    ("seed-a-string", record(seed="7"), "$.seed"),
    ("seed-a-float", record(seed=7.0), "$.seed"),
    ("seed-a-boolean", record(seed=True), "$.seed"),
    ("players-a-string", record(players="2"), "$.players"),
    ("players-too-many", record(players=9), "$.players"),
    ("moves-not-a-list", record(moves={"add": 1}), "$.moves"),
    ("move-malformed", record(moves=[{"add": 1}, {"plus": 1}]), "$.moves[1]"),
    ("move-field-wrong-type", record(moves=[{"add": 1}, {"add": "2"}]), "$.moves[1].add"),
    ("move-illegal", record(moves=[{"add": 1}, {"add": 3}]), "$.moves[1]"),
    ("move-after-the-end", record(moves=[{"add": 2}, {"add": 2}, {"add": 2}, {"add": 1}]), "$.moves[3]"),
    ("unknown-key", record(comment="hi"), "$.comment"),
    ("missing-moves", record(moves=None), "$"),
    ("missing-game", record(game=None), "$"),
    ("unknown-option", record(options={"speed": 3}), "$.options.speed"),
    ("options-not-an-object", record(options=["target"]), "$.options"),
]


@pytest.mark.parametrize(("name", "rec", "where"), BAD_RECORDS, ids=[b[0] for b in BAD_RECORDS])
def test_replaying_a_bad_record_is_bad_input_naming_the_json_path(name, rec, where):
    with pytest.raises(BadInput) as exc:
        replay(rec)
    assert exc.value.where == where


def test_loading_a_bad_record_file_names_the_file_and_the_path(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record(seed="x")))
    with pytest.raises(BadInput) as exc:
        load_record(path)
    assert exc.value.source == str(path) and exc.value.where == "$.seed"
    assert str(path) in str(exc.value) and "$.seed" in str(exc.value)


def test_loading_a_record_that_is_not_json_is_bad_input(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "game-record/1", "seed": NaN}')
    with pytest.raises(BadInput) as exc:
        load_record(path)
    assert exc.value.source == str(path)


def test_replay_on_the_command_line_rejects_a_bad_record_in_one_line(tower_cli, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "game-record/1", "game": "climbers", "players": 2, "seed": "x",
                                "moves": []}))
    proc = tower_cli(["replay", str(path), "--text"])
    assert proc.returncode == 2
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert str(path) in line and "$.seed" in line


def test_an_illegal_move_leaves_the_state_unchanged():
    state = played((1,))
    before = state.to_json()
    with pytest.raises(IllegalMove):
        state.apply(AddMove(3))
    assert state.to_json() == before


# --- options -------------------------------------------------------------------------------------------------

def test_options_not_given_take_their_defaults():
    assert CountState.resolve_options({}) == {"target": 5, "big_steps": False, "mode": "race"}


def test_an_option_given_overrides_its_default_only():
    assert CountState.resolve_options({"big_steps": True}) == {"target": 5, "big_steps": True, "mode": "race"}
    assert AddMove(3) in played((), big_steps=True).legal_moves()


@pytest.mark.parametrize(("options", "where"), [
    ({"speed": 1}, "$.options.speed"),
    ({"Target": 5}, "$.options.Target"),
    ({"target": "5"}, "$.options.target"),
    ({"target": 5.0}, "$.options.target"),
    ({"target": True}, "$.options.target"),
    ({"big_steps": 1}, "$.options.big_steps"),
    ({"big_steps": "yes"}, "$.options.big_steps"),
    ({"mode": 1}, "$.options.mode"),
    ({"mode": "sudden-death"}, "$.options.mode"),
    (["target"], "$.options"),
])
def test_an_unknown_option_or_a_wrong_type_is_bad_input(options, where):
    with pytest.raises(BadInput) as exc:
        CountState.resolve_options(options)
    assert exc.value.where == where
    with pytest.raises(BadInput):
        new_game("count-test", 2, 0, options)


def test_the_options_of_a_game_are_in_its_record_and_survive_a_replay():
    state = played((1, 1, 1, 1, 1, 1), target=9, mode="misere")
    again = replay(state.record())
    assert again.options == {"target": 9, "big_steps": False, "mode": "misere"}
    assert not again.is_over

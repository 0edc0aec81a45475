"""`tower play GAME --text`: the terminal game a person types into."""

from __future__ import annotations

import io

from tower.app.textplay import text_loop
from tower.games import load_record, new_game


def play(lines: list[str], capsys, game: str = "diabolo", seats=("human", "human", "human")):
    state = new_game(game, len(seats), seed=3)
    text_loop(state, list(seats), {}, stdin=io.StringIO("".join(line + "\n" for line in lines)))
    return state, capsys.readouterr().out


def test_a_typed_move_is_played_and_the_new_position_shown(capsys):
    first = new_game("diabolo", 3, seed=3).legal_moves()[0]
    state, out = play([str(first), "quit"], capsys)
    assert [str(m) for m in state.history] == [str(first)]
    assert out.count("round 1 of 3") == 2  # the start and the position after the move


def test_commands_answer_without_repeating_the_position(capsys):
    _, out = play(["help", "moves", "quit"], capsys)
    assert out.count("round 1 of 3") == 1
    assert "legal moves:" in out


def test_an_illegal_move_names_its_rule_and_changes_nothing(capsys):
    state = new_game("diabolo", 3, seed=3)
    hand = {str(m) for m in state.legal_moves()}
    bad = next(f"place {c} {v} angel" for c in ("red", "yellow", "green", "purple", "blue") for v in range(1, 6)
               if f"place {c} {v} angel" not in hand)
    state, out = play([bad, "quit"], capsys)
    assert state.history == []
    assert "illegal (" in out


def test_undo_takes_back_the_last_move_and_save_writes_a_record(capsys, tmp_path):
    first = new_game("diabolo", 3, seed=3).legal_moves()[0]
    path = tmp_path / "game.json"
    _, out = play([str(first), "undo", f"save {path}", "quit"], capsys)
    assert load_record(path).history == []  # the move was taken back before saving
    assert f"saved to {path}" in out

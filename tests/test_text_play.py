"""`tower play GAME --text`: the terminal game a person types into."""

from __future__ import annotations

import io
import subprocess
import sys

from tower.app.textplay import CLEAR, text_loop
from tower.games import load_record, new_game

TOWER = [sys.executable, "-m", "tower"]


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
    # three people at one terminal: Enter at each hand-over (to the next person, and back after the undo)
    _, out = play([str(first), "", "undo", "", f"save {path}", "quit"], capsys)
    assert load_record(path).history == []  # the move was taken back before saving
    assert out.count(CLEAR) == 2
    assert f"saved to {path}" in out




def test_ai_moves_are_printed_in_their_public_words(capsys, monkeypatch):
    from tower.games.ai import make_agent

    state = new_game("diabolo", 3, seed=3)
    monkeypatch.setattr(type(state), "public_move", lambda self, move, player: f"<P{player} secret>")
    agents = {i: make_agent("ai:random", seed=i) for i in range(3)}
    text_loop(state, ["ai:random"] * 3, agents, stdin=io.StringIO(""))
    played = [line for line in capsys.readouterr().out.splitlines() if "(ai:random):" in line]
    assert len(played) == len(state.history)
    assert all(line.endswith("secret>") for line in played)


def test_hotseat_hands_are_separated_by_a_hand_over(capsys):
    state = new_game("diabolo", 3, seed=3)
    first = state.current_player
    move = str(state.legal_moves()[0])
    _, out = play([move, "", "quit"], capsys)
    before, sep, after = out.partition(CLEAR)
    assert sep, "no cleared screen between two people"
    assert "your hand" in before and "your hand" in after
    second = new_game("diabolo", 3, seed=3)
    second.apply_text(move)
    label = second.player_label(second.current_player)
    assert f"pass to {label}" in after.split("your hand")[0] and "press Enter" in after
    assert second.current_player != first


def test_no_hand_over_while_input_does_not_confirm(capsys):
    state = new_game("diabolo", 3, seed=3)
    move = str(state.legal_moves()[0])
    _, out = play([move], capsys)  # input ends on the hand-over screen: the next hand is never printed
    assert out.count("your hand") == 1


def test_moves_filters_by_a_word_or_a_cell_and_pages(capsys):
    state = new_game("climbers", 2, seed=1)
    state.apply_text("skip")
    moves = [str(m) for m in state.legal_moves()]
    block = next(m.split()[1] for m in moves if m.startswith("block"))
    mine = [m for m in moves if m.split()[1:2] == [block]]
    cell = next(m.split()[2] for m in moves if m.startswith("block")).rsplit(",", 1)[0]
    at_cell = [m for m in moves if len(m.split()) > 2 and m.split()[2].startswith(cell + ",")]
    text_loop(state, ["human", "human"], {}, stdin=io.StringIO(f"moves {block}\nmoves {cell}\nmoves\nmore\nquit\n"))
    out = capsys.readouterr().out
    assert f"{len(mine)} moves match '{block}'" in out
    assert f"{len(at_cell)} moves match '{cell}'" in out
    listed_first = out.split(f"moves match '{block}'")[1].split("moves match")[0]
    assert all(m in listed_first for m in mine[:20])
    assert len(moves) > 120
    assert moves[0] in out and moves[60] in out  # 'more' shows the next page
    assert "more" in out


def test_game_over_is_said_in_words(capsys):
    from tower.games.ai import make_agent

    state = new_game("diabolo", 3, seed=2)
    agents = {i: make_agent("ai:random", seed=i) for i in range(3)}
    text_loop(state, ["ai:random"] * 3, agents, stdin=io.StringIO(""))
    out = capsys.readouterr().out
    assert state.outcome_text() in out and '"winners"' not in out


def test_text_play_load_keeps_the_saved_seats(tower_cli, tmp_path):
    from tower.games import save_record

    state = new_game("diabolo", 3, seed=3)
    save_record(state, tmp_path / "g.json", ["ai:random", "ai:random", "ai:random"])
    proc = subprocess.run([*TOWER, "play", "diabolo", "--text", "--load", str(tmp_path / "g.json")],
                          input="", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "(ai:random)" in proc.stdout and "human" not in proc.stdout.splitlines()[0]


def test_text_play_load_of_a_build_says_it_is_a_build(tmp_path):
    from tower.climbers.build import save_build
    from tower.climbers.setup import random_start_tower

    save_build(random_start_tower(1), tmp_path / "t.json")
    proc = subprocess.run([*TOWER, "play", "climbers", "--text", "--load", str(tmp_path / "t.json")],
                          input="", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and "this is a build" in proc.stderr
    assert "not a game record" in proc.stderr


def test_a_game_without_seed_is_a_fresh_deal_said_and_saved_so_it_replays(tmp_path, capsys):
    from tower.app.output import seed_or_fresh

    def run(*extra: str, save: str) -> subprocess.CompletedProcess:
        return subprocess.run([*TOWER, "play", "diabolo", "--text", "--players", "human,greedy,greedy", *extra],
                              input=f"save {tmp_path / save}\nquit\n", capture_output=True, text=True, timeout=120)

    first = run(save="a.json")
    assert first.returncode == 0, first.stderr
    said = first.stdout.splitlines()[0]
    seed = int(said.split()[1].rstrip(":"))
    assert said == f"seed {seed}: replay with --seed {seed}"
    again = run("--seed", str(seed), save="b.json")
    assert not again.stdout.startswith("seed ")  # a seed given is not said again
    assert load_record(tmp_path / "a.json").seed == seed
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()
    # the seeds drawn differ from game to game (the old default dealt seed 0 every time)
    assert len({seed_or_fresh(None, "replay") for _ in range(5)}) > 1 and seed_or_fresh(7, "replay") == 7
    capsys.readouterr()

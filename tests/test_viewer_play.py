"""The play controller (menu, AI seats, hand-over, undo, save, picking, what-if), card scenes, replays."""

from __future__ import annotations

import json

import pytest

from tower.app import stability
from tower.games import new_game
from viewer.play import PlayController


def test_menu_lists_the_games_legal_moves_and_enter_applies_one() -> None:
    state = new_game("climbers", 2, seed=1)
    ctl = PlayController(state, ["human", "human"])
    assert ctl.moves == state.legal_moves()
    ctl.cycle(3)
    ctl.cycle(-1)
    chosen = ctl.current_move
    assert chosen == state.legal_moves()[2]
    said = state.move_words(chosen)
    assert ctl.confirm()
    assert state.history[-1] == chosen
    assert ctl.log_lines()[-1].endswith(said) and said != str(chosen)  # the log speaks in words


def test_clicking_a_movable_block_offers_its_placements_as_ghosts() -> None:
    state = new_game("climbers", 2, seed=1)
    ctl = PlayController(state, ["human", "ai:random"])
    ctl.confirm()  # the optional figure move first
    movable = ctl.movable_blocks()
    assert movable
    assert not ctl.click_block("no-such-block")
    assert ctl.click_block(movable[0])
    assert ctl.moves and all(m.kind == "block" and m.block == movable[0] for m in ctl.moves)
    scene = ctl.scene()
    chosen = [g for g in scene.ghosts if g.selected]
    assert len(chosen) == 1 and chosen[0].origin == tuple(ctl.current_move.cell)
    assert scene.blocks[scene.block_index(movable[0])].selected
    ctl.confirm()
    assert state.history[-1].block == movable[0]


def test_ai_seats_move_by_themselves_and_undo_goes_back_to_the_human() -> None:
    state = new_game("seventh-heaven", 3, seed=4)
    ctl = PlayController(state, ["human", "ai:random", "ai:random"])
    ctl.run_ais()
    while not ctl.human_to_move and not ctl.state.is_over:
        ctl.confirm()
        ctl.run_ais()
    assert ctl.state.is_over or ctl.state.current_player == 0
    before = len(ctl.state.history)
    if ctl.confirm():
        ctl.run_ais()
        assert ctl.undo()
        assert ctl.state.current_player == 0 and len(ctl.state.history) <= before


def test_hotseat_hides_private_cards_between_two_humans() -> None:
    state = new_game("diabolo", 3, seed=3)
    ctl = PlayController(state, ["human", "human", "human"])
    first = state.current_player
    for _ in range(20):
        if ctl.handover:
            break
        ctl.confirm()
    assert ctl.handover, "the turn never passed to another person"
    scene = ctl.scene()
    assert not scene.blocks and "Hand over" in scene.title  # no hand on screen
    assert ctl.viewer != first or state.current_player == ctl.viewer
    ctl.confirm()  # Enter: the next person looks
    assert not ctl.handover and ctl.scene().blocks


def test_save_writes_a_record_that_resumes_the_game(tmp_path) -> None:
    from tower.games import load_record

    state = new_game("climbers", 2, seed=5)
    ctl = PlayController(state, ["human", "ai:random"])
    ctl.confirm()
    ctl.save(tmp_path / "game.json")
    doc = json.loads((tmp_path / "game.json").read_text())
    assert doc["format"] == "game-record/1" and doc["agents"] == ["human", "ai:random"]
    assert load_record(tmp_path / "game.json").history == state.history


def test_whatif_runs_pybullet_without_touching_the_game() -> None:
    pytest.importorskip("pybullet")
    state = new_game("climbers", 2, seed=1)
    ctl = PlayController(state, ["human", "human"], physics=stability)
    before = state.to_json()
    block = state.to_build().blocks[0].id
    frames = ctl.whatif_frames(block, seconds=0.5)
    assert frames and "poses" in frames[0] and block not in frames[0]["poses"]
    assert state.to_json() == before
    assert ctl.message.startswith(f"without {block}")


@pytest.mark.parametrize("game,players", [("seventh-heaven", 3), ("partners", 4), ("diabolo", 3)])
def test_card_game_scenes_show_board_pawns_and_the_hand(game: str, players: int) -> None:
    from viewer.games import scene_for_view

    state = new_game(game, players, seed=1)
    view = state.view(0)
    scene = scene_for_view(state.layout, view)
    hand = [b for b in scene.blocks if b.id.startswith("hand-")]
    assert len(hand) == len(view["hand"])
    assert any("hand" in line for line in scene.lines)
    if game == "seventh-heaven":
        assert len(scene.figures) == 6
        assert sum(b.id.startswith("space-") for b in scene.blocks) == view["track_length"] + 1
        assert scene.blocks[scene.block_index("space-4")].faces[4] == "purple"  # must swap
    elif game == "partners":
        assert len(scene.figures) == 16
        assert sum(b.id.startswith("space-") for b in scene.blocks) == 64
        assert sum(b.id.startswith("finish-") for b in scene.blocks) == 16
    else:
        assert sum(b.id.startswith("row-") for b in scene.blocks) == 5


def test_render_gif_of_a_short_record(tmp_path) -> None:
    import imageio.v3 as iio

    from viewer.replay import render_gif

    state = new_game("diabolo", 3, seed=1)
    for _ in range(3):
        state.apply(state.legal_moves()[0])
    out = tmp_path / "game.gif"
    assert render_gif(state.record(), out, size=(240, 180)) == 4
    frames = iio.imread(out, index=None)
    assert frames.shape[0] == 4 and frames.shape[1:3] == (180, 240)
    assert [p.name for p in tmp_path.iterdir()] == ["game.gif"]


def test_windows_wire_up_without_a_display(monkeypatch, tmp_path) -> None:
    """With the viewer forced offscreen, show() returns at once: the key, click and timer wiring still runs."""
    import viewer.renderer
    from viewer.play_window import play_window
    from viewer.replay import replay_window

    monkeypatch.setattr(viewer.renderer, "OFF_SCREEN", True)
    state = new_game("climbers", 2, seed=1)
    assert play_window(state, ["human", "ai:random"]) == 0
    state.apply(state.legal_moves()[0])
    assert replay_window(state.record()) == 0


def test_hint_and_whatif_in_a_card_game() -> None:
    from tower.games.ai import make_agent

    state = new_game("partners", 4, seed=2)
    ctl = PlayController(state, ["human"] * 4)
    move = ctl.hint()
    assert move == make_agent("ai:greedy", seed=0).choose(new_game("partners", 4, seed=2))
    assert ctl.current_move == move and ctl.message == f"hint: {move}"
    assert not ctl.toggle_whatif() and "Climbers" in ctl.message
    assert ctl.confirm() and state.history == [move]


def test_loading_a_record_of_another_game_changes_nothing(tmp_path) -> None:
    from tower.games import save_record

    other = new_game("diabolo", 3, seed=1)
    save_record(other, tmp_path / "diabolo.json")
    state = new_game("climbers", 2, seed=1)
    ctl = PlayController(state, ["human", "human"])
    ctl.confirm()
    assert not ctl.load(tmp_path / "diabolo.json")
    assert "diabolo" in ctl.message and ctl.state is state and len(state.history) == 1
    assert not ctl.load(tmp_path / "missing.json") and ctl.message.startswith("cannot load")


def test_demo_writes_every_game_and_a_collapse_animation(tmp_path) -> None:
    pytest.importorskip("pybullet")
    import imageio.v3 as iio
    import numpy as np

    from tower.climbers.setup import random_start_tower
    from viewer.demo import demo_pictures

    lines = demo_pictures(random_start_tower(1), tmp_path, stability)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["climbers.png", "collapse.gif", "diabolo.png", "partners.png", "seventh-heaven.png",
                     "start-tower.png"]
    assert any(line.startswith("animation:") and "collapse.gif" in line for line in lines)
    frames = iio.imread(tmp_path / "collapse.gif", index=None)
    assert len(frames) > 10
    # the first frame marks the block, the rest show the fall: the last differs from the first fall frame
    assert np.abs(frames[-1].astype(int) - frames[1].astype(int)).max(axis=-1).mean() > 0.001


# --- what each person at the screen may read (issue: hidden information in hotseat play) -------------------

def _secret_moves(monkeypatch, state) -> None:
    """Make the game word every move told to others as '<P secret>', so the test sees which text reached whom."""
    monkeypatch.setattr(type(state), "public_move", lambda self, move, player: f"<P{player} secret>")


def test_the_log_tells_other_players_moves_in_their_public_words(monkeypatch) -> None:
    state = new_game("diabolo", 3, seed=3)
    _secret_moves(monkeypatch, state)
    ctl = PlayController(state, ["human", "ai:random", "ai:random"])
    ctl.run_ais()
    assert ctl.human_to_move
    mine = ctl.current_move
    said = state.move_words(mine)
    assert ctl.confirm()
    ctl.run_ais()
    shown = [line for line in ctl.text_lines() if line.startswith("  ") and ":" in line]
    me = state.player_label(0)
    assert any(line.strip().startswith(me) and said[:30] in line for line in shown)  # my own move, in words
    others = [line for line in ctl.log_lines() if not line.startswith(me)]
    assert others and all("secret>" in line for line in others)
    assert not any(str(m) in line for line in others for m in state.history if m.verb == "place")


def test_hotseat_log_shows_each_person_only_the_public_words_of_the_others(monkeypatch) -> None:
    state = new_game("diabolo", 3, seed=3)
    _secret_moves(monkeypatch, state)
    ctl = PlayController(state, ["human", "human", "human"])
    first = state.current_player
    move = ctl.current_move
    ctl.confirm()
    assert ctl.handover
    ctl.confirm()  # the next person looks
    assert ctl.viewer != first
    assert not any(str(move) in line for line in ctl.log_lines())
    assert any(f"<P{first} secret>" in line for line in ctl.log_lines())


def test_undo_on_the_hand_over_screen_never_shows_a_hand_before_enter() -> None:
    state = new_game("diabolo", 3, seed=3)
    ctl = PlayController(state, ["human", "human", "human"])
    ctl.confirm()
    assert ctl.handover
    assert ctl.undo()
    assert ctl.handover and not ctl.scene().blocks  # still the blank screen, now for the player to move
    assert ctl.viewer == ctl.state.current_player
    ctl.confirm()
    assert not ctl.handover and ctl.scene().blocks


def test_undo_back_to_another_person_goes_through_the_hand_over_screen() -> None:
    state = new_game("diabolo", 3, seed=3)
    ctl = PlayController(state, ["human", "human", "human"])
    first = state.current_player
    ctl.confirm()
    ctl.confirm()  # Enter on the hand-over screen: the second person sees their hand
    assert not ctl.handover and ctl.viewer != first
    assert ctl.undo()  # back to the first person's decision
    assert ctl.state.current_player == first
    assert ctl.handover and not ctl.scene().blocks


def test_undone_moves_are_dropped_from_the_log() -> None:
    state = new_game("climbers", 2, seed=1)
    ctl = PlayController(state, ["human", "human"])
    ctl.confirm()
    ctl.confirm()
    assert len(ctl.log) == 2
    undone = str(ctl.state.history[-1])
    assert ctl.undo()
    assert len(ctl.log) == 1 and not any(undone in line for line in ctl.log_lines())
    assert "(undo)" not in "\n".join(ctl.text_lines())


def test_players_are_named_by_the_game_everywhere(monkeypatch) -> None:
    state = new_game("climbers", 2, seed=1)
    monkeypatch.setattr(type(state), "player_label", lambda self, p: f"Seat-{p}-colour")
    ctl = PlayController(state, ["human", "ai:random"])
    assert ctl.text_lines()[0].startswith("Seat-0-colour to move")
    ctl.confirm()
    assert ctl.log_lines()[-1].startswith("Seat-0-colour")


def test_game_over_is_said_in_words() -> None:
    state = new_game("diabolo", 3, seed=2)
    ctl = PlayController(state, ["ai:random"] * 3)
    ctl.run_ais()
    assert state.is_over
    text = "\n".join(ctl.text_lines())
    assert "winners" not in text and "{" not in text
    assert state.outcome_text()[:40] in text.replace("\n", " ")


def test_the_partners_winners_are_named_on_the_table_not_listed() -> None:
    from viewer.games import scene_for_view

    state = new_game("partners", 4, seed=2)
    view = dict(state.view(0), winners=[1, 3])
    lines = scene_for_view(state.layout, view, names=[state.player_label(p) for p in range(4)]).lines
    said = next(line for line in lines if line.startswith("winners"))
    assert said == f"winners: {state.player_label(1)} and {state.player_label(3)}" and "[" not in said


@pytest.mark.parametrize("game,players,physics,whatif", [("climbers", 2, True, True), ("climbers", 2, False, False),
                                                         ("diabolo", 3, True, False)])
def test_the_key_summary_lists_only_the_keys_that_apply(game, players, physics, whatif) -> None:
    state = new_game(game, players, seed=1)
    ctl = PlayController(state, ["human"] * players, physics=stability if physics else None)
    keys = "\n".join(ctl.key_lines())
    assert ("what-if" in keys) == whatif
    assert "q quit" in keys and "u undo" in keys


def test_loading_a_record_restores_its_seats_and_the_hand_over(tmp_path) -> None:
    from tower.games import save_record

    saved = new_game("diabolo", 3, seed=3)
    saved.apply(saved.legal_moves()[0])
    save_record(saved, tmp_path / "g.json", ["human", "human", "ai:greedy"])
    ctl = PlayController(new_game("diabolo", 3, seed=3), ["human", "ai:random", "ai:random"])
    assert ctl.load(tmp_path / "g.json")
    assert ctl.seats == ["human", "human", "ai:greedy"]
    ctl.run_ais()
    assert ctl.handover  # another person may be at the screen now: nothing private before Enter
    assert not ctl.scene().blocks


def test_a_build_given_to_load_is_named_as_a_build(tmp_path) -> None:
    from tower.climbers.build import save_build
    from tower.climbers.setup import random_start_tower

    save_build(random_start_tower(1), tmp_path / "tower.json")
    ctl = PlayController(new_game("climbers", 2, seed=1), ["human", "human"])
    assert not ctl.load(tmp_path / "tower.json")
    assert "build" in ctl.message and "not a game record" in ctl.message


def test_a_move_line_names_the_player_once() -> None:
    from viewer.play import move_line

    assert move_line("P2", "P2 (ai:greedy)", "place red 3 angel") == "P2 (ai:greedy): place red 3 angel"
    assert move_line("P2", "P2 (ai:greedy)", "P2 has chosen whether to double") == \
        "P2 (ai:greedy) has chosen whether to double"
    assert move_line("P1", "P1", "P10 is not P1") == "P1: P10 is not P1"
